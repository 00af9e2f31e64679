"""The Readings re-check's exploration in the bytecode interpreter (`evidence.decide_natively`) against
the Python loop (`evidence.decide_in_python`): the same verdicts, the same number of states, the
same completeness and the same reason to stop, on random models under every reading, on the
bundled models, with budgets that stop them and `at_least` counts that hold them."""

from __future__ import annotations

import os

import pytest

pytest.importorskip("numba")

from hypothesis import HealthCheck, given, settings  # noqa: E402

from checker.analysis import evidence  # noqa: E402
from checker.analysis.evidence import CAN_END, ENDS_SURELY, OUTCOME, STUCK_REACHABLE  # noqa: E402
from checker.engines.native import engine  # noqa: E402
from checker.lang.build import load_model  # noqa: E402
from checker.lang.compile import CompiledModel  # noqa: E402
from tests.test_engines_agree import models  # noqa: E402
from tests.test_native import BUNDLED, EXAMPLES, HERE, counted, generated_configs  # noqa: E402


def wanted_lists(model) -> list[list[str]]:
    """Each verdict alone, all of them, and none (only `at_least` holds the run)."""
    outcome = model.outcome
    if outcome is None:
        labels = ["finished"]
    elif outcome.type.kind == "enum":
        labels = list(model.scope.domain_of(outcome.type).members)
    else:
        labels = ["True", "False", "0", "1"]
    names = [STUCK_REACHABLE, CAN_END, ENDS_SURELY, *(OUTCOME + label for label in labels)]
    return [[name] for name in names] + [names, []]


def agree(compiled: CompiledModel, wanted: list[str], max_states: int, at_least: int) -> None:
    python = evidence.decide_in_python(compiled, wanted, max_states, at_least)
    try:
        native = evidence.decide_natively(compiled, wanted, max_states, at_least)
    except engine.NativeDeferred:
        assert python.stopped_by.startswith("at a modelling error"), "the interpreter stopped where the Python loop met no error"
        return
    assert native == python, (wanted, max_states, at_least)


@settings(max_examples=3 * EXAMPLES, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(models())
def test_native_evidence_agrees_on_random_models(case):
    for model, config, _ in generated_configs(case):
        compiled = CompiledModel(model, config)
        for wanted in wanted_lists(model):
            for max_states, at_least in ((200_000, 0), (7, 0), (200_000, 5), (3, 2)):
                agree(compiled, wanted, max_states, at_least)


@pytest.mark.parametrize("path", BUNDLED[::3], ids=[os.path.relpath(p, HERE) for p in BUNDLED[::3]])
def test_native_evidence_agrees_on_bundled_models(path):
    """A third of the bundled models (every third), default configuration: stopped by the
    budget, by every verdict decided, and held to a number of states."""
    model = load_model(path)
    if model.abstract:
        pytest.skip("abstract model")
    compiled = CompiledModel(model, model.default_config())
    for wanted in wanted_lists(model)[::2]:
        agree(compiled, wanted, 30_000, 0)
    agree(compiled, [STUCK_REACHABLE, CAN_END], 30_000, 20_000)


def test_decide_runs_natively(monkeypatch):
    """`evidence.decide` explores in the interpreter from the start, with the Python loop's
    verdicts, and generates no Python successor code for the configuration."""
    calls = counted(monkeypatch, evidence, "decide_natively")
    model = load_model(os.path.join(HERE, "tests", "models", "duel", "duel.yaml"))
    wanted = [STUCK_REACHABLE, ENDS_SURELY]
    reference = evidence.decide_in_python(CompiledModel(model, model.default_config()), wanted, 100_000)
    compiled = CompiledModel(model, model.default_config(), lazy=True)
    assert evidence.decide(compiled, wanted, 100_000) == reference and calls == [1]
    assert not compiled.built
