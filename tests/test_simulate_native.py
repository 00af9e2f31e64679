"""Seeded random play in the bytecode interpreter (`simulate.simulate_natively`) against the Python loop
(`simulate.simulate_in_python`): the same games, so the same report (finished games, their
lengths in order, outcomes, rules fired, stuck games, modelling errors in the Python engine's
words, moves), on random models (chance by weight, players, rules, forced rules, `only`) under
every reading, on bundled models, with plays cut short; and Python's generator's draws, exactly."""

from __future__ import annotations

import os
import random

import pytest

pytest.importorskip("numba")

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from checker.engines import simulate  # noqa: E402
from checker.engines.native import engine  # noqa: E402
from checker.errors import ModellingError  # noqa: E402
from checker.lang.build import load_model  # noqa: E402
from checker.lang.compile import CompiledModel  # noqa: E402
from tests.symbolic_support import write_game  # noqa: E402
from tests.test_engines_agree import models  # noqa: E402
from tests.test_native import BUNDLED, EXAMPLES, HERE, counted, generated_configs  # noqa: E402

FIELDS = ("games", "finished", "lengths", "outcomes", "fired", "stuck", "errors", "moves")


def agree(compiled: CompiledModel, games: int, seed: int, max_steps: int) -> simulate.SimulationReport | None:
    """The interpreter's report, the same as the Python loop's (None: the Python loop raised a
    modelling error, and the interpreter left the games to it)."""
    try:
        python = simulate.simulate_in_python(compiled, games, seed, max_steps)
    except ModellingError:
        with pytest.raises(engine.NativeDeferred):
            simulate.simulate_natively(compiled, games, seed, max_steps)
        return None
    native = simulate.simulate_natively(compiled, games, seed, max_steps)
    for name in FIELDS:
        assert getattr(native, name) == getattr(python, name), (name, seed, max_steps)
    assert list(native.outcomes) == list(python.outcomes)  # in the order the games met them
    return native


@settings(max_examples=3 * EXAMPLES, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(models(), st.integers(0, 2**32 - 1))
def test_native_games_agree_on_random_models(case, seed):
    for model, config, _ in generated_configs(case):
        compiled = CompiledModel(model, config)
        for max_steps in (60, 3, 0):
            agree(compiled, 40, seed, max_steps)


@pytest.mark.parametrize("path", BUNDLED[::2], ids=[os.path.relpath(p, HERE) for p in BUNDLED[::2]])
def test_native_games_agree_on_bundled_models(path):
    """Half of the bundled models, default configuration, 300 games of the Readings re-check's
    length."""
    model = load_model(path)
    if model.abstract:
        pytest.skip("abstract model")
    report = agree(CompiledModel(model, model.default_config()), 300, 20_240, 1000)
    assert report is not None and report.moves > 300


ERRORS = """game: Errors
id: errors
players: [ann, bob]
domains:
  size: [small, big]
state:
  x: "int[0..3]"
  turn: player
init: {x: 0, turn: {choose: player}}
terminal: "x == 3 and turn == bob"
actions:
  step:
    by: chance
    for: {k: size}
    when: "True"
    weight: "(1 if k == small else 2) + x"
    do: {x: "x + (1 if k == small else 2)", turn: succ(turn)}
    rule: c-1
  wait:
    by: turn
    when: "x < 2"
    do: {turn: succ(turn)}
    rule: c-1
clauses:
  c-1: {at: "1", says: "A rule."}
"""


def test_modelling_errors_are_worded_by_the_python_engine(tmp_path):
    """A move writing past a slot's range ends that game as an error, in the Python engine's
    words, and play goes on with the next game from the same draws."""
    model = load_model(write_game(str(tmp_path), "errors", ERRORS))
    report = agree(CompiledModel(model, model.default_config()), 200, 5, 50)
    assert report is not None and report.errors and report.finished and sum(report.errors.values()) + report.finished + report.stuck == 200


def test_an_error_the_python_loop_raises_is_left_to_it(tmp_path):
    """A terminal condition that cannot be evaluated: the Python loop raises it, through
    `simulate.simulate` too."""
    model = load_model(write_game(str(tmp_path), "errors", ERRORS.replace('terminal: "x == 3 and turn == bob"', 'terminal: "6 // (2 - x) == 0"')))
    compiled = CompiledModel(model, model.default_config())
    with pytest.raises(engine.NativeDeferred):
        simulate.simulate_natively(compiled, 50, 1, 20)
    with pytest.raises(ModellingError):
        simulate.simulate(compiled, 50, 1, 20)


@pytest.mark.parametrize("seed", [0, 1, 2**31 + 7, 123456789])
def test_the_generators_draws_are_pythons(seed):
    """`_below` is `randrange`, `_uniform` is `random()`: the same numbers, interleaved, past
    several twists of the state."""
    import numpy as np

    module = engine.load_module(engine.vm_source())
    rng = random.Random(seed)
    mt = np.array(rng.getstate()[1], np.int64)
    sizes = [1, 2, 3, 7, 1000, 2**31 + 1, 2**32 - 1]
    for k in range(3000):
        n = sizes[k % len(sizes)]
        assert module._below(mt, n) == rng.randrange(n)
        if k % 3 == 0:
            assert module._uniform(mt) == rng.random()


def test_simulate_plays_natively(monkeypatch):
    """`simulate.simulate` runs the interpreter's games when numba is installed."""
    calls = counted(monkeypatch, simulate, "simulate_natively")
    model = load_model(os.path.join(HERE, "tests", "models", "duel", "duel.yaml"))
    compiled = CompiledModel(model, model.default_config(), lazy=True)
    report = simulate.simulate(compiled, 100, 3, 200)
    assert calls == [1] and report.finished == 100 and not compiled.built  # no Python successor code generated
