"""`sure_end.ends_surely` over the graph the interpreter explores against the walk that steps
through the game (the reference): the same answer on random models under every reading, on
chance-driven bundled models, at bounds that cut the walk short, and the same modelling error."""

from __future__ import annotations

import itertools
import os
from array import array
from types import SimpleNamespace

import pytest

pytest.importorskip("numba")

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from checker.engines import sure_end  # noqa: E402
from checker.errors import ModellingError  # noqa: E402
from checker.lang.build import load_model  # noqa: E402
from checker.lang.compile import CompiledModel  # noqa: E402
from tests.conformance.generated import EXAMPLES, HERE, configs, generated_configs, models  # noqa: E402
from tests.symbolic_support import write_game  # noqa: E402
from tests.test_property_kinds import LOOPS  # noqa: E402


def both_ways(model, config, bound: int, monkeypatch) -> tuple:
    """(over the explored graph, stepping through the game), each an answer or an error."""
    answers = []
    for graph in (True, False):
        with monkeypatch.context() as patch:
            if not graph:
                patch.setattr(sure_end, "_whole_graph", lambda compiled, max_states: None)
            try:
                answers.append(sure_end.ends_surely(CompiledModel(model, config), bound))
            except ModellingError as exc:
                answers.append(("error", exc.message))
    return tuple(answers)


def test_the_graph_is_used_when_it_is_whole(monkeypatch):
    """The explored graph stands in for stepping (no successor called from Python), and a walk
    the bound stops gives None either way."""
    model = load_model(os.path.join(HERE, "models", "titlebelt", "two-player.yaml"))
    config = model.default_config()
    compiled = CompiledModel(model, config, lazy=True)
    compiled.use_functions(lambda s: pytest.fail("stepped from Python"), lambda s: pytest.fail("stepped from Python"))
    assert sure_end.ends_surely(compiled, 100_000) is not None
    assert both_ways(model, config, 10, monkeypatch) == (None, None)


def test_loops_of_every_kind_agree(tmp_path, monkeypatch):
    """A loop only chance keeps going (the game ends surely), one a player can keep, one that
    is forced, and both: each reading's answer the same both ways, and not all alike."""
    model = load_model(write_game(str(tmp_path), "loops", LOOPS, ""))
    answers = [both_ways(model, config, 100_000, monkeypatch) for config in configs(model)]
    assert all(graph == walk for graph, walk in answers), answers
    assert {graph for graph, _ in answers} >= {True, False}


@pytest.mark.parametrize("variant", ["sms/showdown.yaml", "titlebelt/two-player.yaml", "showngo/junior.yaml"])  # the first past the graph bound: stepped
@pytest.mark.slow
def test_bundled_models_agree(variant, monkeypatch):
    model = load_model(os.path.join(HERE, "models", variant))
    for bound in (100_000, 5_000, 200):
        graph, walk = both_ways(model, model.default_config(), bound, monkeypatch)
        assert graph == walk, (variant, bound)


@settings(max_examples=2 * EXAMPLES, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much, HealthCheck.function_scoped_fixture])
@given(models())
def test_random_models_agree(monkeypatch, case):
    for model, config, _, _ in generated_configs(case):
        for bound in (100_000, 7):
            graph, walk = both_ways(model, config, bound, monkeypatch)
            assert graph == walk, "\n".join(case)


@st.composite
def graphs(draw) -> tuple:
    """A graph as `explore_space` leaves it (every node expanded): moves with instance numbers
    (0 and 1 chance's, 2 to 4 players'), terminal nodes, distinct initial nodes."""
    n = draw(st.integers(1, 12))
    moves = [draw(st.lists(st.tuples(st.integers(0, 4), st.integers(0, n - 1)), max_size=4)) for _ in range(n)]
    terminal = [draw(st.booleans()) if moves[node] else draw(st.integers(0, 4)) > 0 for node in range(n)]  # a few stuck nodes
    initial = draw(st.lists(st.integers(0, n - 1), min_size=1, max_size=3, unique=True))
    return moves, terminal, initial


@settings(max_examples=600, deadline=None, derandomize=True)
@given(graphs(), st.integers(1, 14))
def test_the_compiled_walk_and_end_components_answer_as_the_python_ones(graph, bound):
    """`_on_graph` (compiled) against `_walk` with `_has_end_component` (Python) on the same
    graph: end components kept by a player's choice, by chance's, or cut by a way out."""
    moves, terminal, initial = graph
    starts = array("i", [0])
    for node_moves in moves:
        starts.append(starts[-1] + len(node_moves))
    space = SimpleNamespace(starts=starts, targets=array("i", [t for ms in moves for _, t in ms]), instances=array("i", [i for ms in moves for i, _ in ms]),
                            terminal=bytearray(terminal), size=len(moves))
    chance = {0, 1}
    expected = sure_end._walk(list(initial), terminal.__getitem__, moves.__getitem__, chance, bound)
    assert sure_end._on_graph(space, list(initial), chance, bound) == expected, graph


def test_the_compiled_end_component_search_finds_what_the_python_one_finds():
    """Hand-made cases: a player's cycle (kept), a chance cycle with a way out (left surely), a
    chance cycle of two outcomes both inside (kept), a cycle whose only option leaves it."""
    cases = {  # node: [(instance, target)], node 3 terminal
        True: [[(2, 1)], [(2, 0), (2, 3)], [], []],
        False: [[(0, 1), (0, 3)], [(0, 0)], [], []],
    }
    for kept, moves in cases.items():
        space = SimpleNamespace(starts=array("i", [0, *itertools.accumulate(len(m) for m in moves)]), targets=array("i", [t for ms in moves for _, t in ms]),
                                instances=array("i", [i for ms in moves for i, _ in ms]), terminal=bytearray([0, 0, 1, 1]), size=4)
        assert sure_end._on_graph(space, [0], {0, 1}, 100) is (not kept)
        assert sure_end._walk([0], space.terminal.__getitem__, moves.__getitem__, {0, 1}, 100) is (not kept)


def test_the_graph_the_check_just_read_is_used(tmp_path, monkeypatch):
    """In a run that shares spaces (`space_store`), a `terminates` trace's question comes right
    after the check read its configuration's whole space: that graph answers (nothing explored
    again), the same as stepping, under every reading of the loops game; a bound it would pass
    explores as before."""
    from checker.analysis.impact import keep_space
    from checker.engines.native import space_store
    from checker.engines.statespace import explore_space

    model = load_model(write_game(str(tmp_path), "loops", LOOPS, ""))
    for config in configs(model):
        expected = both_ways(model, config, 100_000, monkeypatch)
        with space_store.sharing(), monkeypatch.context() as patch:
            keep_space(explore_space(CompiledModel(model, config, lazy=True), 100_000))
            assert space_store.take(CompiledModel(model, config, lazy=True), 100_000) is not None
            patch.setattr("checker.engines.statespace.explore_space", lambda *args, **kwargs: pytest.fail("explored again"))
            assert sure_end.ends_surely(CompiledModel(model, config, lazy=True), 100_000) == expected[1]
            assert space_store.recent(CompiledModel(model, config, lazy=True), 1) is None  # past a bound of one state: explored


def test_the_compiled_walk_and_search_are_called_under_compile_locks(monkeypatch):
    """Two workers that reached `ends_surely`'s compiled walk and end-component search at once
    compiled them twice (about 0.7 CPU s of a cold check): their first calls hold the
    `end_components` module's locks (`compile_lock.compiling`), as the graph passes' do."""
    from contextlib import contextmanager

    from checker.engines.native import compile_lock

    held: list[tuple[str, str]] = []
    original = compile_lock.compiling

    @contextmanager
    def recording(name, kernels):
        with original(name, kernels):
            held.append((name, kernels))
            yield

    monkeypatch.setattr(compile_lock, "compiling", recording)
    space = SimpleNamespace(starts=array("i", [0, 2, 3, 3]), targets=array("i", [1, 2, 0]), instances=array("i", [0, 0, 0]), terminal=bytearray([0, 0, 1]), size=3)
    assert sure_end._on_graph(space, [0], {0}, 100) is True
    assert held == [("end_components", "walk"), ("end_components", "has_end_component")]
