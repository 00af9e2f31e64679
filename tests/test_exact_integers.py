"""Integers stay exact under every back-end and engine.

The language's integers are Python's: the interpreter, the generated Python code and z3 never
wrap. The compiled back-end computes in 64-bit words, so it must refuse (before running) any
configuration whose values could leave them; the exact engine then runs it, with a notice. The
two reproducers below once got a wrong `holds` from the compiled back-end (and an internal error
from the bytecode interpreter); the generated models put values up to 2^40 and products of
several slots through every back-end, against the Python engine.
"""

from __future__ import annotations

import json
import os
import tempfile

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from checker.engines.backend import explore_and_decide
from checker.engines.explicit import Budget
from checker.engines.native import unavailable_reason
from checker.lang.build import load_model
from checker.lang.compile import CompiledModel
from checker.lang.int_bounds import INT64_MAX, first_wide
from checker.lang.property_kinds import KINDS
from tests.symbolic_support import bound_props, run, write_game

needs_numba = pytest.mark.skipif(unavailable_reason() is not None, reason="numba is not installed")

WRAP_MODEL = """\
game: big
id: m
constants: {big: {type: int, range: [0, 4000000000], default: 4000000000}}
state: {n: "int[0..3]"}
init: {n: 0}
terminal: n == 3
actions:
  up: {by: rules, when: n < 3, do: {n: n + 1}, rule: r-1}
"""
WRAP_PROPS = '- {id: wrap, kind: invariant, expr: "n == 0 or n * big * big < 0", expect: holds}\n'

FOURTH_POWER_MODEL = """\
game: quad
id: m
state: {n: "int[0..65536]"}
init: {n: {choose: [0, 65536]}}
terminal: "true"
actions:
  stay: {by: rules, when: "false", do: {n: n}, rule: r-1}
"""
FOURTH_POWER_PROPS = '- {id: quad, kind: invariant, expr: "n * n * n * n == 0", expect: holds}\n'


@pytest.mark.parametrize("backend", ["auto", "native", "python"])
@pytest.mark.parametrize("case", [(WRAP_MODEL, WRAP_PROPS, "wrap"), (FOURTH_POWER_MODEL, FOURTH_POWER_PROPS, "quad")], ids=["wrap", "fourth-power"])
def test_a_value_past_64_bits_is_computed_exactly_by_every_backend(tmp_path, case, backend, capsys):
    model_yaml, props_yaml, prop = case
    if backend == "native" and unavailable_reason() is not None:
        pytest.skip("numba is not installed")
    path = write_game(str(tmp_path), "g", model_yaml, props_yaml)
    result = run(path, "explicit", ids={prop}, backend=backend, reuse=False)[prop]
    assert result.status == "fails", result.detail
    assert result.trace is not None and result.trace.steps is not None
    if backend == "native":
        assert "beyond the 64-bit integers" in capsys.readouterr().err


@pytest.mark.parametrize("case", [(WRAP_MODEL, WRAP_PROPS, "wrap"), (FOURTH_POWER_MODEL, FOURTH_POWER_PROPS, "quad")], ids=["wrap", "fourth-power"])
def test_a_value_past_64_bits_is_computed_exactly_by_the_symbolic_engine(tmp_path, case):
    model_yaml, props_yaml, prop = case
    path = write_game(str(tmp_path), "g", model_yaml, props_yaml)
    assert run(path, "symbolic", ids={prop})[prop].status == "fails"


def test_the_bound_analysis_names_the_value_that_leaves_64_bits(tmp_path):
    path = write_game(str(tmp_path), "g", WRAP_MODEL, WRAP_PROPS)
    model, props = bound_props(path, {"wrap"})
    wide = first_wide(model, model.default_config().constants, [props[0].expr])
    assert wide is not None and wide.hi > INT64_MAX
    assert wide.loc is not None and wide.loc.file.endswith("g.yaml") and wide.loc.line == 3
    assert "can reach 16000000000000000000" in wide.describe()
    # the model alone computes nothing large, and a smaller constant keeps the property in range
    assert first_wide(model, model.default_config().constants) is None
    assert first_wide(model, {"big": 1_000_000_000}, [props[0].expr]) is None


def test_a_slot_too_wide_for_a_packed_field_is_refused(tmp_path):
    path = write_game(str(tmp_path), "g", WRAP_MODEL.replace('"int[0..3]"', '"int[0..9223372036854775807]"'), "")
    model = load_model(path)
    wide = first_wide(model, model.default_config().constants)
    assert wide is not None and wide.what == "slot `n`"


def test_literals_past_64_bits_are_no_internal_error(tmp_path):
    """A literal above 2^63, and one folded from constants, in a guard and an effect."""
    model_yaml = WRAP_MODEL.replace("when: n < 3", "when: n < 3 and 18446744073709551616 > big * big")
    path = write_game(str(tmp_path), "g", model_yaml, '- {id: top, kind: reachable, expr: "n == 3"}\n')
    for backend in ("auto", "native", "python") if unavailable_reason() is None else ("python",):
        assert run(path, "explicit", ids={"top"}, backend=backend, reuse=False)["top"].status == "holds"


@needs_numba
def test_values_just_inside_64_bits_run_compiled_and_agree(tmp_path, capsys):
    """A product of two 31-bit slots is accepted (2^62), runs in the compiled back-end and
    computes what the Python engine computes."""
    model_yaml = """\
    game: near
    id: m
    state: {x: "int[0..2147483647]", y: "int[0..2147483647]"}
    init: {x: {choose: [0, 2147483647]}, y: 2147483647}
    terminal: y == 0
    actions:
      halve: {by: rules, when: y > 0, do: {y: y // 2}, rule: r-1}
    """
    path = write_game(str(tmp_path), "near", model_yaml, '- {id: big, kind: unreachable, expr: "x * y == 4611686014132420609"}\n')
    model, props = bound_props(path, {"big"})
    assert first_wide(model, model.default_config().constants, [props[0].expr]) is None
    for backend in ("native", "python"):
        result = run(path, "explicit", ids={"big"}, backend=backend, reuse=False)["big"]
        assert result.status == "fails"  # 2147483647 * 2147483647 at the start
    assert "64-bit" not in capsys.readouterr().err


# -- generated models with large values ----------------------------------------------------------
@st.composite
def wide_models(draw):
    """A model of two integer slots with ranges up to 2^40, a large constant, moves that write
    products of several slots back (clamped into range) and properties comparing such products
    with large literals. Their spaces are small (a few initial values, a few moves), so the
    exploration is whole; whether a configuration is refused by the bound analysis is drawn too
    (products of two, three or four factors)."""
    def bound() -> int:
        return draw(st.sampled_from([3, 1000, 2**20, 2**31 - 1, 2**40]))

    xhi, yhi, big = bound(), bound(), bound()
    xlo = -draw(st.sampled_from([0, 1, xhi]))
    atoms = ["x", "y", "big", str(draw(st.integers(-(2**20), 2**20)))]

    def product() -> str:
        factors = draw(st.sampled_from([1, 1, 2, 2, 3, 4]))
        return " * ".join(draw(st.sampled_from(atoms)) for _ in range(factors))

    def value() -> str:
        form = draw(st.integers(0, 3))
        a, b = product(), product()
        if form == 0:
            return f"{a} + {b}"
        if form == 1:
            return f"{a} - {b}"
        if form == 2:
            return f"({a}) // (y + 1)"
        return f"({a}) % (big + 1)"

    moves = []
    for i in range(draw(st.integers(1, 3))):
        target, lo, hi = draw(st.sampled_from([("x", xlo, xhi), ("y", 0, yhi)]))
        moves.append(f"  m{i}: {{by: rules, when: \"k < 2\", do: {{{target}: {json.dumps(f'min(max({value()}, {lo}), {hi})')}, k: k + 1}}, rule: r-1}}")
    model_yaml = "\n".join([
        "game: wide", "id: m",
        f"constants: {{big: {{type: int, range: [0, {2**40}], default: {big}}}}}",
        f"state: {{x: \"int[{xlo}..{xhi}]\", y: \"int[0..{yhi}]\", k: \"int[0..2]\"}}",
        f"init: {{x: {{choose: [{xlo}, {xhi}, {max(xlo, min(xhi, 7))}]}}, y: {{choose: [0, {yhi}]}}, k: 0}}",
        "terminal: k == 2",
        "actions:", *moves, "",
    ])
    compare = draw(st.sampled_from(["<", "<=", "==", "!=", ">="]))
    props = [
        f"- {{id: inv, kind: invariant, expr: {json.dumps(f'{value()} {compare} {product()}')}}}",
        f"- {{id: reach, kind: reachable, expr: {json.dumps(f'{product()} > {value()}')}}}",
        f"- {{id: unreach, kind: unreachable, expr: {json.dumps(f'{value()} == {product()}')}}}",
    ]
    return model_yaml, "\n".join(props) + "\n"


def _verdicts(model, config, props, backend: str) -> dict[str, tuple]:
    compiled = CompiledModel(model, config)
    need_graph = any(KINDS[p.kind].needs_edges for p in props)
    exp, found = explore_and_decide(compiled, props, Budget(50_000, 60.0), None, need_graph, backend)
    return {p.id: (found[p.id].status, [exp.states[n] for n in found[p.id].path] if found[p.id].path else None, found[p.id].detail) for p in props}


@needs_numba
@settings(max_examples=150, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(wide_models())
def test_the_compiled_back_end_agrees_with_the_python_engine_on_large_values(case):
    """The compiled back-end against the Python engine (explorations, verdicts, paths) on
    generated models with values up to 2^40: a configuration the bound analysis accepts runs
    compiled, one it refuses runs exactly, and either way the results are the reference's."""
    model_yaml, props_yaml = case
    with tempfile.TemporaryDirectory() as root:
        path = write_game(root, "wide", model_yaml, props_yaml)
        model, props = bound_props(path, {"inv", "reach", "unreach"})
        config = model.default_config()
        refused = first_wide(model, config.constants, [p.expr for p in props if p.expr is not None]) is not None
        event("refused" if refused else "compiled")
        reference = _verdicts(model, config, props, "python")
        assert _verdicts(model, config, props, "native") == reference, model_yaml + props_yaml


@pytest.mark.slow
def test_every_bundled_model_is_exact_in_64_bits():
    """The bound analysis refuses no bundled model (they run compiled, as before)."""
    import glob

    from checker.lang.loader import model_files
    from checker.lang.properties import bind, load_suite, properties_for, suite_path

    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    for path in model_files(sorted(glob.glob(os.path.join(here, "models", "*")))):
        model = load_model(path)
        if model.abstract:
            continue
        props = [bind(p, model) for p in properties_for(model, load_suite(suite_path(path)))]
        wide = first_wide(model, model.default_config().constants, [e for p in props for e in (p.expr, p.source, p.target, p.measure) if e is not None])
        assert wide is None, f"{path}: {wide.describe()}"


def test_chance_weights_whose_total_leaves_64_bits_are_refused(tmp_path):
    model_yaml = """\
    game: dice
    id: m
    domains: {face: {range: [1, 4]}}
    constants: {w: {type: int, range: [0, 4611686018427387904], default: 4611686018427387904}}
    state: {n: "int[0..4]"}
    init: {n: 0}
    terminal: n > 0
    actions:
      roll: {by: chance, for: {f: face}, when: n == 0, weight: w, do: {n: f}, rule: r-1}
    """
    path = write_game(str(tmp_path), "dice", model_yaml, '- {id: four, kind: reachable, expr: "n == 4"}\n')
    model = load_model(path)
    wide = first_wide(model, model.default_config().constants)
    assert wide is not None and "weights" in wide.what
    assert first_wide(model, {"w": 1000}) is None
