"""The conformance suite: every back-end and every twin analysis (`backends.PAIRS`) gives its
reference's answers on the same inputs.

One set of properties, each parametrised by pair: the same successors state by state, the same
verdict for every property kind, the same state counts, the same analysis results and the same
random walks for a seed, on generated models (every reading combination), on the bundled models,
on large generated models (10,000 states and more) and on models written to stress one corner.
The mutation tests break each candidate on purpose and check that the same comparison notices.
HYPOTHESIS_PROFILE=local runs ten times the generated examples.
"""

from __future__ import annotations

import importlib.util
import os
import tempfile

import pytest
from hypothesis import HealthCheck, Phase, assume, find, given, settings, target
from hypothesis import strategies as st

from checker.errors import Loc, ModellingError, RulecheckError
from checker.lang.build import load_model
from checker.lang.compile import CompiledModel
from checker.lang.interp import Interpreter
from checker.lang.typecheck import check_expr
from checker.lang.types import BOOL, INT, enum
from tests.conformance import backends
from tests.conformance.backends import PAIRS, Case, Pair, Symbolic, free_differences, generated_cases, loaded_case
from tests.conformance.generated import EXPRESSION_MODEL, HERE, PROFILE, SETTINGS, configs, generated_configs, models, states, typed_exprs
from tests.large_models import LargeModel, large_models
from tests.symbolic_support import run, write_game
from tests.test_divergence_property import actions, loaded, terminals

SEEDS = st.integers(0, 2**32 - 1)
DUEL = os.path.join(HERE, "tests", "models", "duel", "duel.yaml")


def ready(pair: Pair, request: pytest.FixtureRequest) -> None:
    """Skip a pair whose modules are not installed; open the cluster session the partitioned
    search runs in (two local workers, shared by the module's tests)."""
    missing = [name for name in pair.needs if importlib.util.find_spec(name) is None]
    if missing:
        pytest.skip(f"{pair.name} needs {', '.join(missing)}")
    if "distributed" in pair.needs:
        request.getfixturevalue("on_cluster")


def assert_agree(pair: Pair, case: Case, source: str = "") -> None:
    problems = pair.differences(case)
    assert not problems, f"{pair.name} on {case.path} {case.config.readings}:\n" + "\n".join(problems) + ("\n\n" + source if source else "")


# -- generated models -------------------------------------------------------------------------
@pytest.mark.parametrize("pair", PAIRS, ids=lambda p: p.name)
@pytest.mark.slow
def test_every_pair_agrees_on_generated_models(pair: Pair, request: pytest.FixtureRequest) -> None:
    """Every pair on the same random models (one derandomised sequence), under every reading
    combination unless the pair runs the default only, with a seed for the walks."""
    ready(pair, request)

    @settings(SETTINGS, max_examples=pair.examples)
    @given(models(), SEEDS)
    def agree(case: tuple[str, str], seed: int) -> None:
        compared = 0
        for generated in generated_cases(pair, case, seed):
            assert_agree(pair, generated, "\n".join(case))
            compared += 1
        assume(compared > 0)  # a model the checker refuses, or one without initial states: draw another

    agree()


@pytest.mark.parametrize("pair", [p for p in PAIRS if p.large_examples], ids=lambda p: p.name)
@pytest.mark.slow
def test_every_pair_agrees_on_large_models(pair: Pair, request: pytest.FixtureRequest) -> None:
    """Models of 10,000 to 40,000 states (arrays past the first machine word, chance, forced rules
    firing mid-play, a reading removing actions), under one reading combination drawn."""
    ready(pair, request)
    largest = 20_000 if "distributed" in pair.needs else 40_000

    @settings(SETTINGS, max_examples=pair.large_examples, suppress_health_check=list(HealthCheck))
    @given(large_models(min_size=10_000, max_size=largest), st.data())
    def agree(large: LargeModel, data: st.DataObject) -> None:
        with tempfile.TemporaryDirectory() as root:
            case = backends.large_case(root, large.model_yaml, large.props_yaml)
            assume(case is not None)
            if pair.every_reading:
                case = Case(case.model, data.draw(st.sampled_from(configs(case.model))), case.props, case.path, "large")
            target(float(large.size), label="reachable states")
            assert_agree(pair, case, large.model_yaml + "\n" + large.props_yaml)

    agree()


# -- the bundled models -----------------------------------------------------------------------
BUNDLED_RUNS = [(pair, path, constants) for pair in PAIRS for path, constants in pair.bundled]


@pytest.mark.parametrize("pair, path, constants", BUNDLED_RUNS, ids=[f"{p.name}-{os.path.relpath(path, HERE)}" for p, path, _ in BUNDLED_RUNS])
@pytest.mark.slow
def test_every_pair_agrees_on_bundled_models(pair: Pair, path: str, constants: dict[str, int], request: pytest.FixtureRequest) -> None:
    """The bundled games in their default configuration (a few constants made smaller where a
    pair is slow), each pair on its share of them (`backends.EVERY_BUNDLED`)."""
    ready(pair, request)
    case = loaded_case(path, scale="bundled")
    if case.model.abstract:
        pytest.skip("abstract model")
    config = case.config
    if constants:
        config = type(config)({**config.constants, **constants}, config.readings)
    assert_agree(pair, Case(case.model, config, case.props, path, "bundled"))


# -- expressions, state by state --------------------------------------------------------------
EXPRESSION_EXAMPLES = int(os.environ.get("RULECHECK_AGREEMENT_EXAMPLES", "3000"))
_EXPRESSION_ENGINES: dict[str, tuple[CompiledModel, Interpreter]] = {}


def evaluated(fn) -> tuple[str, object]:
    try:
        return ("value", fn())
    except ModellingError:
        return ("error", None)


def expression_engines(reading: str) -> tuple[CompiledModel, Interpreter]:
    """The generated code and the interpreter of `EXPRESSION_MODEL` under one reading, made once."""
    if reading not in _EXPRESSION_ENGINES:
        with tempfile.TemporaryDirectory() as root:
            model = load_model(write_game(root, "agree", EXPRESSION_MODEL))
        config = model.default_config().with_readings({"r": reading})
        _EXPRESSION_ENGINES[reading] = (CompiledModel(model, config), Interpreter(model, config))
    return _EXPRESSION_ENGINES[reading]


@settings(max_examples=EXPRESSION_EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(data=st.data(), typed=typed_exprs(), reading=st.sampled_from(["one", "two"]))
@pytest.mark.slow
def test_generated_code_evaluates_expressions_as_the_interpreter(data: st.DataObject, typed: tuple[str, str], reading: str) -> None:
    """Random well-typed expressions over a model with every kind of slot, in random states: the
    generated function returns the interpreter's value, or both raise a modelling error
    (division by zero, an index outside an integer domain, min of nothing); a state packs and
    unpacks to itself."""
    compiled, interp = expression_engines(reading)
    model = compiled.model
    kind, source = typed
    expected = {"int": INT, "bool": BOOL, "player": enum("player")}[kind]
    try:
        expr = check_expr(model.scope, source, Loc("generated", 1, 1), expected)
    except RulecheckError as exc:
        # A literal index outside its domain, or a literal zero divisor, is rejected
        # statically, which is right; skip those.
        assume("is outside" not in exc.message and exc.message != "division by zero")
        raise
    state = data.draw(states(model))
    packed = compiled.layout.pack(state)
    assert compiled.layout.unpack(packed) == state
    evaluate = compiled.evaluator(expr)
    got = evaluated(lambda: evaluate(packed))
    want = evaluated(lambda: interp.eval(expr, state))
    assert got == want, f"{source}: compiled {got}, interpreted {want}"


def test_the_expression_generator_reaches_errors_and_values() -> None:
    """The expression comparison is only worth its examples if they include modelling errors."""
    compiled, interp = expression_engines("one")
    state = interp.initial_states()[0]
    for source, want in [("m // (n - n)", "error"), ("far[m + 4]", "error"), ("min(arr[k] for k in kind if false)", "error"), ("sum(grid[p][i] for p in player for i in pos) + 2", "value")]:
        expr = check_expr(compiled.model.scope, source, Loc("t", 1, 1), INT)
        assert evaluated(lambda e=expr: compiled.evaluator(e)(compiled.layout.pack(state)))[0] == want
        assert evaluated(lambda e=expr: interp.eval(e, state))[0] == want


# -- the symbolic engine with constants and readings left free ---------------------------------
@settings(SETTINGS, max_examples={"ci": 25, "local": 150}[PROFILE])
@given(models())
def test_the_symbolic_engine_agrees_over_every_configuration(case: tuple[str, str]) -> None:
    """With the constant and the reading free, the symbolic engine finds a counterexample exactly
    when the explicit engine finds one under some configuration, names one, and is as short."""
    with tempfile.TemporaryDirectory() as root:
        path = write_game(root, "random", *case)
        try:
            model = load_model(path)
            backends.bound_props(path)
        except RulecheckError:
            assume(False)
        problems = free_differences(path, model)
    assert not problems, "\n".join(problems) + "\n\n" + "\n".join(case)


# -- the divergence search on models built to diverge -----------------------------------------
@settings(SETTINGS, max_examples=80)
@given(terminals, actions)
def test_the_divergence_search_agrees_on_models_built_to_diverge(terminal: str, specs: list) -> None:
    """Readings in guards, effects, `only`, who moves and the outcome (`test_divergence_property`),
    with budgets that stop the search at once."""
    pytest.importorskip("numba")
    model = loaded(terminal, specs)
    base = model.default_config()
    problems = [d for max_states in (500_000, 4, 1) for d in backends.Divergence.agree(model, base, base.with_readings({"r": "q"}), max_states)]
    assert not problems, "\n".join(problems)


# -- models written to stress one corner ------------------------------------------------------
def pair_named(name: str) -> Pair:
    return next(p for p in PAIRS if p.name == name)


@pytest.mark.parametrize("pair_name, path, every_reading", [
    ("native", "benchmarks/models/war/war6.yaml", False),  # every deal ends: 3,217 states, graph and verdicts
    ("symbolic", "tests/models/duel/duel.yaml", True),  # every property kind, exhaustively deep, under both readings
    ("distributed", "benchmarks/models/war/war8.yaml", False),  # 185,201 states over two workers
])
@pytest.mark.slow
def test_pairs_agree_on_written_models(pair_name: str, path: str, every_reading: bool, request: pytest.FixtureRequest) -> None:
    """Models outside the generators' reach: a deep game, the test duel, a larger War."""
    pair = pair_named(pair_name)
    ready(pair, request)
    case = loaded_case(os.path.join(HERE, path))
    for config in configs(case.model) if every_reading else [case.config]:
        assert_agree(pair, Case(case.model, config, case.props, case.path))


@pytest.mark.slow
def test_the_interpreter_agrees_under_every_reading_of_a_game() -> None:
    """Readings are a run-time input of one program: the title belt's two-player model under
    each reading deviation, its first 15,000 states."""
    pytest.importorskip("numba")
    from checker.engines.explicit import Budget

    case = loaded_case(os.path.join(HERE, "models", "titlebelt", "two-player.yaml"))
    for config in configs(case.model):
        assert backends.compare(case.model, config, case.props, Budget(15_000, 600.0)) == []


def test_wide_states_and_growing_arrays_agree(monkeypatch: pytest.MonkeyPatch) -> None:
    """A state budget that stops the search half-way, states of several 64-bit words, and arrays
    (the visited table included) that start small and grow."""
    pytest.importorskip("numba")
    from checker.engines.explicit import Budget
    from checker.engines.native import engine

    monkeypatch.setattr(engine, "INITIAL_CAPACITY", 64)
    monkeypatch.setattr(engine, "INITIAL_TABLE", 16)
    case = loaded_case(os.path.join(HERE, "benchmarks", "models", "deckrace", "deckrace.yaml"))
    assert CompiledModel(case.model, case.config).layout.bits > 64
    assert backends.compare(case.model, case.config, case.props, Budget(5_000, 60.0)) == []


@pytest.mark.parametrize("path, trapped", [("benchmarks/models/war/war6.yaml", 0), ("tests/impact/models/trap/trap.yaml", 1)])
def test_can_end_and_lassos_agree_where_plays_get_trapped(path: str, trapped: int) -> None:
    """War with 6 cards (every deal ends) and a model whose plays can cycle and get trapped
    under one reading (`terminates` and `can-end` fail there): under every reading the bytecode
    interpreter and the compiled passes give the Python engine's verdicts, and where they fail
    the same trapped state, lasso, path and wording."""
    pytest.importorskip("numba")
    with open(os.path.join(HERE, path), encoding="utf-8") as handle:
        text = handle.read()
    with tempfile.TemporaryDirectory() as root:
        model_path = write_game(root, "trapped", text, "- {id: ends-reachable, kind: can-end}\n- {id: ends, kind: terminates}")
        failing = set()
        for config in configs(load_model(model_path)):
            case = loaded_case(model_path, config)
            for name in ("native", "compiled-passes"):
                assert_agree(pair_named(name), case)
            exp_found = run(model_path, "explicit", config=config, backend="python")
            failing |= {pid for pid, r in exp_found.items() if r.status == "fails" and pid in ("ends-reachable", "ends")}
    assert failing == ({"ends-reachable", "ends"} if trapped else set())


# -- mutations: each candidate broken on purpose, and the suite notices ------------------------
FIXED = """\
game: Fixed
id: fixed
players: [a, b]
state:
  x: "int[0..3]"
  turn: player
init: {x: 0, turn: a}
terminal: x == 3
actions:
  up:
    by: turn
    when: x < 2
    do: {x: x + 1, turn: succ(turn)}
    rule: r-1
  jump:
    by: rules
    when: x == 2 and turn == a
    do: {x: 3}
    rule: r-1
  wait:
    by: turn
    when: x == 2 and turn == b
    do: {turn: a}
    rule: r-1
"""
FIXED_PROPS = """\
- {id: inv, kind: invariant, expr: "x <= 3"}
- {id: reach, kind: reachable, expr: "x == 3"}
- {id: ends, kind: terminates}
- {id: one, kind: reachable, expr: "x == 1"}
- {id: jump-from-two, kind: after, action: jump, expr: "old(x) == 2"}
"""


@pytest.mark.parametrize("pair", PAIRS, ids=lambda p: p.name)
def test_the_suite_notices_a_broken_candidate(pair: Pair, request: pytest.FixtureRequest) -> None:
    """The duel (every construct of the language, a reading, every property kind) agrees, and
    stops agreeing once the candidate is broken (`Pair.mutant`): a move dropped, a verdict
    flipped, a state, transition, move or level miscounted."""
    ready(pair, request)
    case = loaded_case(DUEL)
    assert pair.differences(case) == []
    with pair.mutant():
        assert pair.differences(case), f"the broken {pair.name} candidate went unnoticed"


@pytest.mark.parametrize("kind", ["guard", "transition"])
def test_a_broken_symbolic_encoding_is_noticed(kind: str, tmp_path) -> None:
    """The symbolic encoding ignoring every guard, or dropping `up`'s transitions, on a model
    written so that each changes a verdict or a trace."""
    case = loaded_case(write_game(str(tmp_path), "fixed", FIXED, FIXED_PROPS))
    assert Symbolic().differences(case) == []
    with Symbolic().mutant(kind, "up"):
        assert Symbolic().differences(case), f"dropping a {kind} went unnoticed"


@pytest.mark.parametrize("kind", ["guard", "transition"])
def test_hypothesis_finds_a_model_where_a_broken_symbolic_encoding_disagrees(kind: str) -> None:
    """Hypothesis itself finds a random model on which the mutated engine disagrees."""

    def noticed(case: tuple[str, str]) -> bool:
        return any(Symbolic().differences(c) for c in generated_cases(Symbolic(), case))

    with Symbolic().mutant(kind):
        found = find(models(), noticed, settings=settings(max_examples=40, deadline=None, database=None, derandomize=True, phases=[Phase.generate], suppress_health_check=list(HealthCheck)))
    assert found


def test_generated_configs_cover_every_reading() -> None:
    """The generated cases of a model with a reading are its default and the other option, each
    with the model's file for the engines that load it again (the suite's inputs, not vacuous)."""
    text = FIXED.replace("state:", "readings:\n  r: {clause: r-1, question: which?, options: {o1: one, o2: two}, default: o1}\nstate:")
    cases = [(config.readings, os.path.exists(path)) for _, config, _, path in generated_configs((text, FIXED_PROPS))]
    assert cases == [({"r": "o1"}, True), ({"r": "o2"}, True)]
