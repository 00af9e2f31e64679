"""The interpreter's successor and terminal functions (`checker.engines.native.stepper`) against
the Python engine's generated ones: the same moves (instance numbers, packed states, order) and
terminal flags at every state of breadth-first explorations, and the same modelling errors in
the same words, on random models under every reading and on bundled models; and the searches
that step through states get them without generating Python successor code."""

from __future__ import annotations

import os
from collections import deque

import pytest

pytest.importorskip("numba")

from hypothesis import HealthCheck, given, settings  # noqa: E402

from checker.engines.backend import stepping  # noqa: E402
from checker.engines.native import stepper  # noqa: E402
from checker.errors import ModellingError  # noqa: E402
from checker.lang.build import load_model  # noqa: E402
from checker.lang.compile import CompiledModel  # noqa: E402
from checker.lang.model import Config, Model  # noqa: E402
from tests.test_engines_agree import models  # noqa: E402
from tests.test_native import BUNDLED, EXAMPLES, HERE, generated_configs  # noqa: E402


def _outcome(call, s):
    try:
        return call(s)
    except ModellingError as exc:
        return ("error", exc.message)


def agree(model: Model, config: Config, limit: int) -> int:
    """Compare both functions over up to `limit` states breadth first; the states compared."""
    python = CompiledModel(model, config)
    native = stepper.attach(CompiledModel(model, config, lazy=True))
    assert native.successors is not python.successors
    seen = set(python.initial)
    queue = deque(python.initial)
    compared = 0
    while queue and compared < limit:
        s = queue.popleft()
        compared += 1
        ended = _outcome(python.terminal, s)
        assert _outcome(native.terminal, s) == ended
        moves = _outcome(python.successors, s)
        assert _outcome(native.successors, s) == moves
        if ended is True or isinstance(moves, tuple):
            continue
        for _, t in moves:
            if t not in seen:
                seen.add(t)
                queue.append(t)
    return compared


@settings(max_examples=3 * EXAMPLES, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(models())
def test_stepper_agrees_on_random_models(case):
    for model, config, _ in generated_configs(case):
        agree(model, config, 3_000)


@pytest.mark.parametrize("path", BUNDLED[1::2], ids=[os.path.relpath(p, HERE) for p in BUNDLED[1::2]])
def test_stepper_agrees_on_bundled_models(path):
    """Half of the bundled models, default configuration, the first 3,000 states."""
    model = load_model(path)
    if model.abstract:
        pytest.skip("abstract model")
    assert agree(model, model.default_config(), 3_000) > 100


def test_stepping_generates_no_python_successor_code():
    """`stepping` gives a search the interpreter's functions; the Python ones are built only
    to word a modelling error."""
    model = load_model(os.path.join(HERE, "tests", "models", "duel", "duel.yaml"))
    compiled = stepping(model, model.default_config())
    s = compiled.initial[0]
    assert compiled.successors(s) == CompiledModel(model, model.default_config()).successors(s)
    assert compiled.successors is not None and not compiled.building
    assert isinstance(compiled.successors.__self__, stepper.Stepper)  # type: ignore[attr-defined]


def test_modelling_errors_are_the_python_engines(tmp_path):
    """A move writing past a slot's range: the interpreter's functions raise the Python
    engine's error, in its words, at the same states."""
    from tests.symbolic_support import write_game
    from tests.test_simulate_native import ERRORS

    model = load_model(write_game(str(tmp_path), "errors", ERRORS))
    python = CompiledModel(model, model.default_config())
    errors = [s for s in _reachable(python) if isinstance(_outcome(python.successors, s), tuple)]
    assert errors, "the model has a state whose moves fail"
    assert agree(model, model.default_config(), 1_000) > len(errors)


def _reachable(compiled: CompiledModel) -> list[int]:
    """Every state the model's moves reach (where they can be computed)."""
    seen = list(dict.fromkeys(compiled.initial))
    for s in seen:
        moves = _outcome(compiled.successors, s)
        if not isinstance(moves, tuple):
            seen.extend(t for _, t in moves if t not in seen)
    return seen


def test_each_states_end_is_asked_of_the_interpreter_once(monkeypatch):
    """The searches ask again whether the states they pass are terminal: the interpreter is
    asked once per state, and the answers stay the Python engine's."""
    model = load_model(os.path.join(HERE, "benchmarks", "models", "war", "war6.yaml"))  # 3,217 states, many of them ends
    config = model.default_config()
    python = CompiledModel(model, config)
    step = stepper.Stepper(CompiledModel(model, config, lazy=True))
    asked: list[int] = []
    original = step.module.terminal
    monkeypatch.setattr(step.module, "terminal", lambda row, ctx: asked.append(1) or original(row, ctx))
    states, queue = [], deque(python.initial)
    while queue and len(states) < 5000:
        s = queue.popleft()
        states.append(s)
        if not python.terminal(s):
            queue.extend(t for _, t in python.successors(s))
    states = list(dict.fromkeys(states))
    ends = [python.terminal(s) for s in states]
    assert any(ends) and not all(ends)
    for _ in range(2):
        assert [step.terminal(s) for s in states] == ends
    assert len(asked) == len(states)
