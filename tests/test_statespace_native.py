"""The impact analysis's state space in the bytecode interpreter (`statespace.explore_space_natively`) against
the Python loop (`statespace.explore_space_in_python`): the same states in the same order, the
same parents, moves, instances, movers, weights, terminal flags, depth and reason to stop, on
random models under every reading, on bundled models, and with budgets that stop them."""

from __future__ import annotations

import os

import pytest

pytest.importorskip("numba")

from hypothesis import HealthCheck, given, settings  # noqa: E402

from checker.analysis import statespace  # noqa: E402
from checker.engines.native import engine  # noqa: E402
from checker.lang.build import load_model  # noqa: E402
from checker.lang.compile import CompiledModel  # noqa: E402
from tests.test_engines_agree import models  # noqa: E402
from tests.test_native import BUNDLED, EXAMPLES, HERE, counted, generated_configs  # noqa: E402

FIELDS = ("states", "index", "parent", "starts", "targets", "instances", "movers", "weights", "terminal", "depth", "complete", "stopped_by", "error")


def agree(compiled: CompiledModel, max_states: int) -> None:
    python = statespace.explore_space_in_python(compiled, max_states, 600.0)
    try:
        native = statespace.explore_space_natively(compiled, max_states, 600.0)
    except engine.NativeDeferred:
        assert python.error is not None, "the interpreter stopped where the Python loop met no error"
        return
    for name in FIELDS:
        assert getattr(native, name) == getattr(python, name), (name, max_states)
    assert native.initial_nodes() == python.initial_nodes()  # numbered first, not looked up
    nodes = [0, python.size // 2, python.size - 1, -1] if python.size else []
    assert [native.states[n] for n in nodes] == [python.states[n] for n in nodes]  # packed when read
    assert native.states[1:4] == python.states[1:4]
    picked = list(range(python.size - 1, -1, -3))  # packed together, in the order asked
    assert native.states_at(picked) == python.states_at(picked) == [python.states[n] for n in picked]


@settings(max_examples=3 * EXAMPLES, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(models())
def test_native_space_agrees_on_random_models(case):
    for model, config, _ in generated_configs(case):
        compiled = CompiledModel(model, config)
        for max_states in (200_000, 7, 3):
            agree(compiled, max_states)


@pytest.mark.parametrize("path", BUNDLED[1::3], ids=[os.path.relpath(p, HERE) for p in BUNDLED[1::3]])
def test_native_space_agrees_on_bundled_models(path):
    """A third of the bundled models, default configuration, stopped by a budget of 30,000."""
    model = load_model(path)
    if model.abstract:
        pytest.skip("abstract model")
    agree(CompiledModel(model, model.default_config()), 30_000)


def test_explore_space_runs_natively(monkeypatch):
    """`explore_space` explores in the interpreter from the start, with the Python loop's
    space, and generates no Python successor code for the configuration."""
    calls = counted(monkeypatch, statespace, "explore_space_natively")
    model = load_model(os.path.join(HERE, "tests", "models", "duel", "duel.yaml"))
    reference = statespace.explore_space_in_python(CompiledModel(model, model.default_config()), 100_000)
    compiled = CompiledModel(model, model.default_config(), lazy=True)
    space = statespace.explore_space(compiled, 100_000)
    assert calls == [1] and reference.complete
    assert all(getattr(space, name) == getattr(reference, name) for name in FIELDS)
    assert not compiled.built
