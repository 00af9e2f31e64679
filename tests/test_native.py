"""The native back-end against the Python engine (the reference), state for state.

Random models from the engines' differential test (`tests/test_engines_agree.py`) are explored by
both back-ends under every reading combination: the same states in the same order, the same
parents, layers and transition counts, and for every property the same verdict, path, shape and
wording. A configuration where the model raises a modelling error is handed to the Python
engine; the test checks that the native engine defers exactly then. The native back-end is the
bytecode interpreter, compiled once for every model, so a random model costs only its
program's assembly (HYPOTHESIS_PROFILE=local runs many more). Every bundled model is compared
whole (default configuration, whole suite).
"""

from __future__ import annotations

import glob
import os
import tempfile

import pytest

pytest.importorskip("numba")

from hypothesis import HealthCheck, given, settings  # noqa: E402

from checker.analysis.outcomes import longest_play  # noqa: E402
from checker.analysis.statespace import explore_space  # noqa: E402
from checker.engines import explicit  # noqa: E402
from checker.engines.backend import explore_and_decide  # noqa: E402
from checker.engines.explicit import Budget  # noqa: E402
from checker.engines.native import engine  # noqa: E402
from checker.errors import RulecheckError  # noqa: E402
from checker.lang.build import load_model  # noqa: E402
from checker.lang.compile import CompiledModel  # noqa: E402
from checker.lang.interp import Interpreter  # noqa: E402
from checker.lang.loader import is_fragment  # noqa: E402
from checker.lang.property_kinds import KINDS  # noqa: E402
from tests.symbolic_support import bound_props, write_game  # noqa: E402
from tests.test_engines_agree import models  # noqa: E402

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXAMPLES = {"ci": 30, "local": 300}[os.environ.get("HYPOTHESIS_PROFILE", "ci") if os.environ.get("HYPOTHESIS_PROFILE") in ("ci", "local") else "ci"]


def finding_key(f: explicit.Finding) -> tuple:
    return (f.status, [int(n) for n in f.path], f.shape, f.loop_start, f.note, f.detail, f.branch_instances, f.last_instance)


def compare(model, config, props, budget: Budget | None = None, whole: bool = False) -> list[str]:
    """Where the two back-ends differ on one configuration (empty when they agree); with
    `whole`, an exploration the budget stopped is a problem too (the comparison is meant whole)."""
    budget = budget or Budget(200_000, 120.0)
    compiled = CompiledModel(model, config)
    need_graph = any(KINDS[p.kind].needs_edges for p in props)
    py_exp, py_found = explicit.explore(compiled, props, budget, need_graph=need_graph)
    try:
        nat_exp, nat_found = engine.explore(compiled, props, budget, need_graph=need_graph)
    except engine.NativeDeferred:
        property_errors = [f for f in py_found.values() if f.status == "error"]
        if py_exp.error is None and not property_errors:
            return ["the native engine deferred a configuration without any error"]
        return []
    out = []
    if whole and not py_exp.complete:
        out.append(f"not explored whole: stopped by {py_exp.stopped_by} after {len(py_exp.states)} states")
    if py_exp.error is not None:
        out.append(f"the Python engine met a modelling error ({py_exp.error[1]}) the native one did not")
    if list(py_exp.states) != list(nat_exp.states):
        out.append(f"states differ: {len(py_exp.states)} against {len(nat_exp.states)}")
    if list(py_exp.parent) != [int(p) for p in nat_exp.parent]:
        out.append("parents differ")
    for name in ("layer_ends", "transitions", "complete", "stopped_by", "fired"):
        if getattr(py_exp, name) != getattr(nat_exp, name):
            out.append(f"{name}: {getattr(py_exp, name)!r} against {getattr(nat_exp, name)!r}")
    if need_graph and py_exp.complete:
        if list(py_exp.graph.starts) != [int(x) for x in nat_exp.graph.starts] or list(py_exp.graph.edges) != [int(x) for x in nat_exp.graph.edges]:
            out.append("edges differ")
    py = explicit.decide(py_exp, props, py_found)
    nat = engine.decide(nat_exp, props, nat_found)
    for prop in props:
        if finding_key(py[prop.id]) != finding_key(nat[prop.id]):
            out.append(f"{prop.id}: python {finding_key(py[prop.id])} against native {finding_key(nat[prop.id])}")
    return out


def configs(model):
    base = model.default_config()
    out = [base]
    for reading in model.readings.values():
        out += [base.with_readings({reading.name: option}) for option in reading.options if option != base.readings[reading.name]]
    return out


def counted(monkeypatch, module, name: str) -> list[int]:
    """Replace `module.name` by itself counting its calls: the list grows by one a call."""
    calls: list[int] = []
    original = getattr(module, name)

    def counting(*args):
        calls.append(1)
        return original(*args)

    monkeypatch.setattr(module, name, counting)
    return calls


def generated_configs(case: tuple[str, str], extra_props: str = ""):
    """Each configuration with initial states of a generated model (`tests.test_engines_agree`),
    with the model and its bound properties; nothing when the model or its properties do not load."""
    model_yaml, props_yaml = case
    with tempfile.TemporaryDirectory() as root:
        path = write_game(root, "random", model_yaml, props_yaml + extra_props)
        try:
            model = load_model(path)
            _, props = bound_props(path)
        except RulecheckError:
            return  # a generated model or property the checker refuses (a static division by zero, say)
        for config in configs(model):
            if Interpreter(model, config).initial_states():
                yield model, config, props


@settings(max_examples=EXAMPLES, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(models())
def test_native_agrees_on_random_models(case):
    for model, config, props in generated_configs(case, "\n- {id: ends-reachable, kind: can-end}"):  # native here; the symbolic engine has none
        problems = compare(model, config, props)
        assert not problems, "\n".join(problems) + "\n\n" + "\n".join(case)


def with_passes(threshold: int, fn, *args):
    """`fn(*args)` with the compiled graph passes used from `threshold` states (0: always; a
    huge one: never, the Python passes)."""
    saved = explicit.COMPILED_PASSES_FROM
    explicit.COMPILED_PASSES_FROM = threshold
    try:
        return fn(*args)
    finally:
        explicit.COMPILED_PASSES_FROM = saved


def decided_both_ways(exp: explicit.Exploration, props, found) -> tuple[dict, dict]:
    """The exploration's findings with the graph passes in Python, then compiled."""
    return with_passes(1 << 62, explicit.decide, exp, props, found), with_passes(0, explicit.decide, exp, props, found)


@settings(max_examples=4 * EXAMPLES, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(models())
def test_compiled_passes_agree_on_the_python_engines_graphs(case):
    """The compiled graph passes run on the Python engine's edge arrays (large graphs) give the
    Python passes' findings: the same verdicts, lassos, paths, exits and wording, for
    `terminates` (with and without `within`), `leads-to` and `can-end`; and the impact
    analysis's longest play the same."""
    model_yaml, props_yaml = case
    props_yaml += "\n- {id: ends-reachable, kind: can-end}"
    with tempfile.TemporaryDirectory() as root:
        path = write_game(root, "random", model_yaml, props_yaml)
        try:
            model = load_model(path)
            _, props = bound_props(path)
        except RulecheckError:
            return  # the generator's model or properties do not check (a constant divided by zero)
        for config in configs(model):
            if not Interpreter(model, config).initial_states():
                continue
            exp, found = explicit.explore(CompiledModel(model, config), props, Budget(200_000, 120.0))
            python, compiled = decided_both_ways(exp, props, found)
            for prop in props:
                assert (finding_key(python[prop.id]), python[prop.id].loop_exits) == (finding_key(compiled[prop.id]), compiled[prop.id].loop_exits), model_yaml + "\n" + props_yaml
            space = explore_space(exp.compiled)
            if space.complete:
                assert with_passes(1 << 62, longest_play, space) == with_passes(0, longest_play, space), model_yaml


def test_compiled_passes_find_the_python_passes_lasso_and_trap():
    """A model whose plays can cycle and get trapped (`terminates` and `can-end` fail under one
    reading): the compiled passes on the Python engine's graph agree with the Python passes
    under every reading, the failing ones included."""
    with open(os.path.join(HERE, "tests/impact/models/trap/trap.yaml"), encoding="utf-8") as handle:
        text = handle.read()
    with tempfile.TemporaryDirectory() as root:
        model, props = bound_props(write_game(root, "trapped", text, "- {id: ends-reachable, kind: can-end}\n- {id: ends, kind: terminates}"))
        statuses = set()
        for config in configs(model):
            exp, found = explicit.explore(CompiledModel(model, config), props, Budget(200_000, 120.0))
            python, compiled = decided_both_ways(exp, props, found)
            assert {k: finding_key(f) for k, f in python.items()} == {k: finding_key(f) for k, f in compiled.items()}
            statuses |= {(k, f.status) for k, f in python.items()}
        assert ("ends-reachable", "fails") in statuses and ("ends", "fails") in statuses


def test_budget_and_wide_states_agree(monkeypatch):
    """A state budget that stops the search half-way, states of several 64-bit words, and
    arrays (the visited table included) that start small and grow."""
    monkeypatch.setattr(engine, "INITIAL_CAPACITY", 64)
    monkeypatch.setattr(engine, "INITIAL_TABLE", 16)
    model, props = bound_props(os.path.join(HERE, "benchmarks", "models", "deckrace", "deckrace.yaml"))
    assert CompiledModel(model, model.default_config()).layout.bits > 64
    assert compare(model, model.default_config(), props, Budget(5_000, 60.0)) == []


def test_war_agrees():
    """War with 6 cards: every deal ends; both back-ends give the same states, graph and verdicts."""
    model, props = bound_props(os.path.join(HERE, "benchmarks", "models", "war", "war6.yaml"))
    assert compare(model, model.default_config(), props) == []


ROWS = """\
game: Rows
id: rows
players: [a, b]
domains:
  card: {range: [0, 3]}
  lvl: {range: [0, 1]}
  suit: [red, blue]
constants:
  start: {type: int, range: [0, 3], default: 2}
  suit_of: {type: suit, of: card, value: {0: red, 1: blue, 2: red, 3: blue}}
  bonus: {type: int, of: lvl, value: {0: 0, 1: 3}}
define:
  worth(p, c): hand[p][c] * (c + 1) + bonus[lv[p]]
  beats(x, y): x > y + 1
readings:
  boost:
    clause: rows-2
    question: Does raising a level cost the turn?
    options: {free: no, costly: yes}
    default: free
state:
  deck: {type: "int[0..3]", of: card}
  hand: {type: "int[0..3]", of: [player, card]}
  lv: {type: lvl, of: player}
  turn: player
init:
  deck: start
  hand: 0
  lv: 0
  turn: a
terminal: sum(deck[c] for c in card) == 0
actions:
  draw:
    by: turn
    for: {k: card}
    when: deck[k] > 0
    do:
      "deck[c] for c in card": deck[c] - (1 if c == k else 0)
      "hand[turn][c] for c in card": hand[turn][c] + (1 if c == k else 0)
      turn: succ(turn)
    rule: rows-1
  raise:
    by: turn
    when: lv[turn] == 0 and hand[turn][0] > 0
    do:
      lv[turn]: 1
      "hand[turn][c] for c in card": hand[turn][c] - (1 if c == 0 else 0)
      turn: "succ(turn) if reading.boost == costly else turn"
    rule: rows-2
clauses:
  rows-1: {at: "1", says: "Draw a card of the kind you name."}
  rows-2: {at: "2", says: "Discard a 0 to raise your level."}
"""
ROWS_PROPS = """\
- {id: no-mutual-beat, kind: invariant, expr: "not any(beats(worth(p, j), worth(q, k)) and beats(worth(q, k), worth(p, j)) for p in player for q in player for j in card for k in card)"}
- {id: worth-bounded, kind: invariant, expr: "all(worth(p, j) + worth(p, k) < 20 for p in player for j in card for k in card)"}
- {id: big-lead, kind: reachable, expr: "any(beats(worth(a, j), worth(b, k)) for j in card for k in card)"}
- {id: draw-moves-one, kind: after, action: draw, expr: "sum(hand[p][c] for p in player for c in card) == old(sum(hand[p][c] for p in player for c in card)) + 1"}
- {id: ends, kind: terminates}
"""


def test_initial_value_out_of_range_is_left_to_the_reference():
    """An initial value outside its slot's range (a constant set so): the compiled successors
    leave out writes that put a field's own value back, with their range check, so the native
    engine defers and the Python engine (which reports the write) runs."""
    text = ROWS.replace("default: 2", "default: 3").replace('deck: {type: "int[0..3]"', 'deck: {type: "int[0..2]"')  # 3 fits the field's two bits
    with tempfile.TemporaryDirectory() as root:
        model, props = bound_props(write_game(root, "rows", text, ROWS_PROPS))
        compiled = CompiledModel(model, model.default_config())
        with pytest.raises(engine.NativeDeferred):
            engine.explore(compiled, props, Budget())
        exp, _ = explore_and_decide(compiled, props, Budget(), None, True, "native")
        assert exp.error is not None and "outside its range" in exp.error[1]


def test_modelling_error_is_left_to_the_reference():
    """A division by zero: the native engine defers and the Python engine reports it."""
    text = """\
game: Div
id: div
players: [a, b]
state:
  x: "int[0..3]"
init: {x: 0}
terminal: "x == 3"
actions:
  up:
    by: rules
    when: "x < 3"
    do: {x: "x + 1 if x < 2 else 4 // (x - 2)"}
    rule: r-1
"""
    with tempfile.TemporaryDirectory() as root:
        path = write_game(root, "div", text, "- {id: inv, kind: invariant, expr: 'x >= 0'}")
        model, props = bound_props(path)
        compiled = CompiledModel(model, model.default_config())
        with pytest.raises(engine.NativeDeferred):
            engine.explore(compiled, props, Budget())
        exp, findings = explore_and_decide(compiled, props, Budget(), None, False, "auto")
        assert exp.error is not None and "division by zero" in exp.error[1]
        assert findings["inv"].status == "error"


def test_runner_backends_give_the_same_results_and_traces():
    """Through the runner (every reading deviation, traces replayed in the interpreter): the
    native and the Python back-end report the same results, word for word."""
    from checker.report.json_report import results_json
    from checker.runner import CheckOptions, check_paths

    duel = os.path.join(HERE, "tests", "models", "duel")
    outputs = {}
    for backend in ("python", "native"):
        results = check_paths([duel], CheckOptions(backend=backend))
        for result in results:
            result.seconds = 0.0
        outputs[backend] = results_json(results)
    assert outputs["python"] == outputs["native"]
    assert any(r["verdict"] == "fails" and r["trace"] for r in outputs["native"]["results"])


def test_native_check_builds_no_python_successor_code_unless_needed(monkeypatch):
    """`--backend native` leaves the Python successor code unbuilt (it cost most of a cold
    compiled check), a trace still replays, and a fallback to the Python engine builds it."""
    from checker.engines.backend import ExplicitEngine
    from checker.lang import compile as compile_module
    from checker.runner import CheckOptions

    builds: list[str] = []
    original = compile_module.CompiledModel._build

    def counting(self):
        if self._functions is None:
            builds.append(self.model.id)
        return original(self)

    monkeypatch.setattr(compile_module.CompiledModel, "_build", counting)
    model, props = bound_props(os.path.join(HERE, "benchmarks", "models", "war", "war6.yaml"))
    config = model.default_config()
    verdicts = ExplicitEngine().decide(model, config, props, CheckOptions(backend="native"))
    assert builds == []
    python = ExplicitEngine().decide(model, config, props, CheckOptions(backend="python"))
    assert builds == [model.id]
    assert {k: (v.status, v.evidence, v.note) for k, v in verdicts.items()} == {k: (v.status, v.evidence, v.note) for k, v in python.items()}
    compiled = CompiledModel(model, config, lazy=True)
    assert not compiled.built
    exp, _ = explicit.explore(compiled, props, Budget())  # the fallback: the Python engine
    assert compiled.built and exp.complete


def test_auto_interprets_every_model_and_never_compiles_one(tmp_path, monkeypatch):
    """`auto` explores a model in the bytecode interpreter from the start, however small, with
    the Python engine's results; it compiles nothing for the model (the only module it writes
    is the interpreter's own) and generates no Python successor code."""
    import sys

    monkeypatch.setenv("RULECHECK_CACHE", str(tmp_path))
    for name in [n for n in sys.modules if n.startswith("rulecheck_native_")]:
        monkeypatch.delitem(sys.modules, name)
    model, props = bound_props(os.path.join(HERE, "tests", "models", "duel", "duel.yaml"))
    py_exp, py_found = explicit.explore(CompiledModel(model, model.default_config()), props, Budget(), need_graph=True)
    reference = {k: finding_key(f) for k, f in explicit.decide(py_exp, props, py_found).items()}
    compiled = CompiledModel(model, model.default_config(), lazy=True)
    for _ in range(2):
        exp, found = explore_and_decide(compiled, props, Budget(), None, True, "auto")
        assert isinstance(exp, engine.NativeExploration) and exp.complete
        assert {k: finding_key(f) for k, f in found.items()} == reference
    assert not compiled.built
    written = glob.glob(os.path.join(tmp_path, "native", "*.py"))
    assert [os.path.basename(p) for p in written] == [f"{engine.module_name(engine.vm_source())}.py"]  # the interpreter's module only


BUNDLED = sorted(
    os.path.join(folder, name)
    for folder in (os.path.join(HERE, "models", game) for game in ("showngo", "sms", "supershow", "titlebelt", "ultimate"))
    for name in os.listdir(folder)
    if name.endswith(".yaml") and name not in ("clauses.yaml", "questions.yaml") and not is_fragment(os.path.join(folder, name))
)


@pytest.mark.parametrize("path", BUNDLED, ids=[os.path.relpath(p, HERE) for p in BUNDLED])
def test_the_interpreter_agrees_on_every_bundled_model_whole(path):
    """Every bundled model, default configuration, its whole property suite, explored whole in
    the Python engine and in the bytecode interpreter (what `check` runs): state for state.
    About a minute of CPU for all of them (SMS's showdown, 478,340 states, the largest)."""
    model, props = bound_props(path)
    if model.abstract:
        pytest.skip("abstract model")
    assert compare(model, model.default_config(), props, Budget(2_000_000, 1800.0), whole=True) == []


@pytest.mark.parametrize("path, trapped", [("benchmarks/models/war/war6.yaml", 0), ("tests/impact/models/trap/trap.yaml", 1)])
def test_can_end_agrees_with_the_reference(path, trapped):
    """War with 6 cards (3,217 states, every deal ends) and a reading that creates a trap state
    (`can-end` fails under it): under every reading both back-ends give the same verdict, and
    where it fails the same trapped state, path and wording."""
    with open(os.path.join(HERE, path), encoding="utf-8") as handle:
        text = handle.read()
    with tempfile.TemporaryDirectory() as root:
        model, props = bound_props(write_game(root, "trapped", text, "- {id: ends-reachable, kind: can-end}"))
        failing = 0
        for config in configs(model):
            assert compare(model, config, props) == []
            compiled = CompiledModel(model, config)
            exp, found = explicit.explore(compiled, props, Budget(200_000, 120.0))
            failing += explicit.decide(exp, props, found)["ends-reachable"].status == "fails"
        assert failing == trapped


def test_each_group_of_kernels_takes_its_own_compile_lock(tmp_path, monkeypatch):
    """The interpreter's module holds every analysis's loop, each compiled on its first call: a
    process that compiled one loop still takes the lock for the next (else it compiled that
    one beside another process compiling it too); a group compiled once takes no lock again.
    A process's first group of a module also takes the module's lock, before the group's: the
    callees every loop shares (`run`, the moves) are compiled by one process."""
    import fcntl

    from checker.engines.native import compile_lock

    monkeypatch.setenv("RULECHECK_CACHE", str(tmp_path))
    monkeypatch.setattr(compile_lock, "_WARM", set())
    monkeypatch.setattr(compile_lock, "_STARTED", set())
    locked: list[str] = []
    monkeypatch.setattr(fcntl, "flock", lambda handle, operation: locked.append(os.path.basename(handle.name)))
    for kernels in ("space", "ends", "space", "ends", "divergence"):
        with engine.compiling("rulecheck_vm", kernels):
            pass
    with engine.compiling("rulecheck_other", "space"):
        pass
    assert locked == ["rulecheck_vm.first.lock", "rulecheck_vm.space.lock", "rulecheck_vm.ends.lock", "rulecheck_vm.divergence.lock",
                      "rulecheck_other.first.lock", "rulecheck_other.space.lock"]


def test_the_interpreters_shared_callees_are_compiled_alone_under_the_modules_lock(tmp_path, monkeypatch):
    """The interpreter's module compiles `run` and the helpers every loop shares alone under the
    module's lock (once per process, for the types the loops pass: `test_vm` checks each is
    compiled once), so another process waits for those, not for a whole first group: the
    groups then take their own locks only."""
    import fcntl

    from checker.engines.native import compile_lock

    monkeypatch.setenv("RULECHECK_CACHE", str(tmp_path))
    monkeypatch.setattr(compile_lock, "_WARM", set())
    monkeypatch.setattr(compile_lock, "_STARTED", set())
    locked: list[str] = []
    monkeypatch.setattr(fcntl, "flock", lambda handle, operation: locked.append(os.path.basename(handle.name)))
    shared: list[str] = []
    compile_lock.shared_first("rulecheck_vm", lambda: shared.append("compiled") or locked.append("(compiling)"))
    compile_lock.shared_first("rulecheck_vm", lambda: shared.append("again"))
    for kernels in ("space", "ends"):
        with engine.compiling("rulecheck_vm", kernels):
            pass
    assert shared == ["compiled"]
    assert locked == ["rulecheck_vm.first.lock", "(compiling)", "rulecheck_vm.space.lock", "rulecheck_vm.ends.lock"]
    model = load_model(os.path.join(HERE, "models", "titlebelt", "two-player.yaml"))
    _, module, _ = engine.build_vm(CompiledModel(model, model.default_config(), lazy=True), [], checks=False)
    assert module.__name__ in compile_lock._STARTED
    assert f"{module.__name__}.first.lock" in locked
