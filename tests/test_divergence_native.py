"""The divergence search in the bytecode interpreter (`divergence.search_in_interpreter`) against the
Python search (`divergence.search_in_python`): the same kind, the same play, the same number of
states, depth and reason to stop, on random models with readings that change guards, results,
movers, `only` and the outcome, on generated models under every pair of reading combinations,
on bundled models, and with budgets that stop the search."""

from __future__ import annotations

import itertools
import os

import pytest

pytest.importorskip("numba")

from hypothesis import HealthCheck, given, settings  # noqa: E402

from checker.analysis import divergence  # noqa: E402
from checker.lang.build import load_model  # noqa: E402
from checker.lang.compile import CompiledModel  # noqa: E402
from checker.lang.model import Config, Model  # noqa: E402
from tests.test_divergence_property import actions, loaded, terminals  # noqa: E402
from tests.test_engines_agree import models  # noqa: E402
from tests.test_native import BUNDLED, EXAMPLES, HERE, counted, generated_configs  # noqa: E402
from tests.test_reading_impact import COIN  # noqa: E402

FIELDS = ("kind", "path", "states", "depth", "complete", "stopped_by")


def agree(model: Model, baseline: Config, alternative: Config, max_states: int) -> divergence.Search:
    a, b = CompiledModel(model, baseline), CompiledModel(model, alternative)
    with_actor = divergence._actor_consults_readings(model)
    python = divergence.search_in_python(a, b, with_actor, max_states, 600.0)
    native = divergence.search_in_interpreter(a, b, with_actor, max_states, 600.0)
    for name in FIELDS:
        assert getattr(native, name) == getattr(python, name), (name, max_states, baseline.readings, alternative.readings)
    return native


@settings(max_examples=80, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(terminals, actions)
def test_native_search_agrees_on_models_built_to_diverge(terminal, specs):
    """Readings in guards, effects, `only`, who moves and the outcome (`test_divergence_property`)."""
    model = loaded(terminal, specs)
    base = model.default_config()
    for max_states in (500_000, 4, 1):
        agree(model, base, base.with_readings({"r": "q"}), max_states)


@settings(max_examples=EXAMPLES, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(models())
def test_native_search_agrees_on_random_models(case):
    """Every pair of reading combinations of a generated model that share their constants."""
    configs = list(generated_configs(case))
    for (model, a, _), (_, b, _) in itertools.combinations(configs, 2):
        if a.constants == b.constants:
            for max_states in (200_000, 6):
                agree(model, a, b, max_states)


def _bundled_pairs() -> list[tuple[str, str, str]]:
    """(model path, reading, option): each bundled concrete model's first two readings, each
    against its first option the default does not take."""
    pairs = []
    for path in BUNDLED[::4]:
        model = load_model(path)
        if model.abstract:
            continue
        base = model.default_config()
        for name in sorted(model.readings)[:2]:
            other = next(o for o in model.scope.readings[name].members if o != base.readings[name])
            pairs.append((path, name, other))
    return pairs


@pytest.mark.parametrize("path, reading, option", _bundled_pairs(), ids=lambda v: os.path.relpath(v, HERE) if os.sep in str(v) else str(v))
def test_native_search_agrees_on_bundled_models(path, reading, option):
    """A quarter of the bundled models, each reading against the default, within 20,000 states."""
    model = load_model(path)
    base = model.default_config()
    agree(model, base, base.with_readings({reading: option}), 20_000)


def test_find_divergence_searches_natively(monkeypatch):
    """`find_divergence` runs the interpreter's search (and finds what the Python search finds)."""
    calls = counted(monkeypatch, divergence, "search_in_interpreter")
    model = load_model(COIN)
    base = model.default_config()
    found = divergence.find_divergence(model, base, base.with_readings({"tie": "reflip"}))
    assert calls == [1] and found.found and found.kind == "moves" and found.steps == 2


def test_find_divergence_falls_back_to_python_without_numba(monkeypatch):
    """Without numba (or for a model the interpreter leaves alone) the Python search runs, with
    the same scenario."""
    from checker.engines import native

    model = load_model(COIN)
    base = model.default_config()
    alternative = base.with_readings({"tie": "reflip"})
    natively = divergence.find_divergence(model, base, alternative)
    monkeypatch.setattr(native, "unavailable_reason", lambda: "numba is not installed")
    monkeypatch.setattr(divergence, "search_in_interpreter", lambda *args: pytest.fail("the interpreter ran without numba"))
    in_python = divergence.find_divergence(model, base, alternative)
    assert (in_python.kind, in_python.summary, in_python.states, in_python.depth) == (natively.kind, natively.summary, natively.states, natively.depth)
