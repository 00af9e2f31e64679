"""The front doors of the twin analyses take the compiled path and answer as the reference does.

`explore_space`, `evidence.decide`, `find_divergence`, `find_verdict` and `simulate` run their
numba kernel when numba is installed (without generating Python successor code), give what
their Python loop gives (`test_conformance.py` holds the two loops to each other), and leave
to the Python loop what the kernel cannot do: a modelling error, a run without numba. The
kernels' random draws are Python's generator's, exactly.
"""

from __future__ import annotations

import os
import random

import pytest

pytest.importorskip("numba")

from checker.analysis import divergence, evidence, witness, witness_native  # noqa: E402
from checker.analysis.evidence import CAN_END, ENDS_SURELY, OUTCOME, STUCK_REACHABLE  # noqa: E402
from checker.engines import (
    simulate,  # noqa: E402
    statespace,  # noqa: E402
)
from checker.engines.native import engine  # noqa: E402
from checker.errors import ModellingError  # noqa: E402
from checker.lang.build import load_model  # noqa: E402
from checker.lang.compile import CompiledModel  # noqa: E402
from tests.conformance.backends import Simulation, Space  # noqa: E402
from tests.conformance.generated import HERE  # noqa: E402
from tests.symbolic_support import write_game  # noqa: E402
from tests.test_dominated import RACE  # noqa: E402
from tests.test_reading_impact import COIN  # noqa: E402

DUEL = os.path.join(HERE, "tests", "models", "duel", "duel.yaml")

# Chance by weight and a write past a slot's range (x + 2 from 2): games that end in an error.
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


def counted(monkeypatch: pytest.MonkeyPatch, module: object, name: str) -> list[int]:
    """Replace `module.name` by itself counting its calls: the list grows by one a call."""
    calls: list[int] = []
    original = getattr(module, name)

    def counting(*args):
        calls.append(1)
        return original(*args)

    monkeypatch.setattr(module, name, counting)
    return calls


def test_explore_space_runs_natively(monkeypatch):
    """`explore_space` explores in the interpreter from the start, with the Python loop's
    space, and generates no Python successor code for the configuration."""
    calls = counted(monkeypatch, statespace, "explore_space_natively")
    model = load_model(DUEL)
    reference = statespace.explore_space_in_python(CompiledModel(model, model.default_config()), 100_000)
    compiled = CompiledModel(model, model.default_config(), lazy=True)
    space = statespace.explore_space(compiled, 100_000)
    assert calls == [1] and reference.complete
    assert all(getattr(space, name) == getattr(reference, name) for name in Space.FIELDS)
    assert not compiled.built


def test_decide_runs_natively(monkeypatch):
    """`evidence.decide` explores in the interpreter from the start, with the Python loop's
    verdicts, and generates no Python successor code for the configuration."""
    calls = counted(monkeypatch, evidence, "decide_natively")
    model = load_model(DUEL)
    wanted = [STUCK_REACHABLE, ENDS_SURELY]
    reference = evidence.decide_in_python(CompiledModel(model, model.default_config()), wanted, 100_000)
    compiled = CompiledModel(model, model.default_config(), lazy=True)
    assert evidence.decide(compiled, wanted, 100_000) == reference and calls == [1]
    assert not compiled.built


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


def test_a_walk_meeting_an_error_is_left_to_the_python_walks(tmp_path):
    model = load_model(write_game(str(tmp_path), "errors", ERRORS))
    config = model.default_config()
    assert witness._walked_natively(model, config, CAN_END, 2_000, 50, witness.SEED) is None
    found = witness.find_verdict(model, config, CAN_END, 2_000, 5)
    assert found.states > 0


def test_find_verdict_walks_natively(monkeypatch, tmp_path):
    """`find_verdict` walks in the interpreter when numba is installed, meets the same witness
    after as many states as the Python walk, and confirms it in the reference interpreter (a
    self-contained game: the bundled ones change with their audits)."""
    calls = counted(monkeypatch, witness_native, "walk")
    model = load_model(write_game(str(tmp_path), "race", RACE))
    config = model.default_config()
    found = witness.find_verdict(model, config, OUTCOME + "b", 40_000, 5)
    assert calls == [1] and found.found and 0 < found.states < 40_000
    _, path, spent = witness._walked(model, config, OUTCOME + "b", 40_000, witness.walk_length(5), witness.SEED)
    assert path is not None and spent == found.states


def test_modelling_errors_are_worded_by_the_python_engine(tmp_path):
    """A move writing past a slot's range ends that game as an error, in the Python engine's
    words, and play goes on with the next game from the same draws."""
    model = load_model(write_game(str(tmp_path), "errors", ERRORS))
    problems, report = Simulation.agree(CompiledModel(model, model.default_config()), 200, 5, 50)
    assert problems == []
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
    model = load_model(DUEL)
    compiled = CompiledModel(model, model.default_config(), lazy=True)
    report = simulate.simulate(compiled, 100, 3, 200)
    assert calls == [1] and report.finished == 100 and not compiled.built  # no Python successor code generated
