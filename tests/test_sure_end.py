"""`sure_end.ends_surely` over the graph the interpreter explores against the walk that steps
through the game (the reference): the same answer on random models under every reading, on
chance-driven bundled models, at bounds that cut the walk short, and the same modelling error."""

from __future__ import annotations

import os

import pytest

pytest.importorskip("numba")

from hypothesis import HealthCheck, given, settings  # noqa: E402

from checker import sure_end  # noqa: E402
from checker.errors import ModellingError  # noqa: E402
from checker.lang.build import load_model  # noqa: E402
from checker.lang.compile import CompiledModel  # noqa: E402
from tests.symbolic_support import write_game  # noqa: E402
from tests.test_engines_agree import models  # noqa: E402
from tests.test_native import EXAMPLES, HERE, configs, generated_configs  # noqa: E402
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
def test_bundled_models_agree(variant, monkeypatch):
    model = load_model(os.path.join(HERE, "models", variant))
    for bound in (100_000, 5_000, 200):
        graph, walk = both_ways(model, model.default_config(), bound, monkeypatch)
        assert graph == walk, (variant, bound)


@settings(max_examples=2 * EXAMPLES, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much, HealthCheck.function_scoped_fixture])
@given(models())
def test_random_models_agree(monkeypatch, case):
    for model, config, _ in generated_configs(case):
        for bound in (100_000, 7):
            graph, walk = both_ways(model, config, bound, monkeypatch)
            assert graph == walk, "\n".join(case)
