"""The interpreter's successor and terminal functions (`checker.engines.native.stepper`): the
searches that step through states get them without generating Python successor code, a
modelling error is raised in the Python engine's words at the same states, and each state's end
is asked of the interpreter once. That they give the generated functions' moves state by state
is the conformance suite's (`tests/conformance`, the `stepper` pair)."""

from __future__ import annotations

import os
from collections import deque

import pytest

pytest.importorskip("numba")

from checker.engines.backend import stepping  # noqa: E402
from checker.engines.native import stepper  # noqa: E402
from checker.lang.build import load_model  # noqa: E402
from checker.lang.compile import CompiledModel  # noqa: E402
from tests.conformance.backends import stepper_differences, worded  # noqa: E402
from tests.conformance.generated import HERE  # noqa: E402


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
    from tests.conformance.test_dispatch import ERRORS
    from tests.symbolic_support import write_game

    model = load_model(write_game(str(tmp_path), "errors", ERRORS))
    python = CompiledModel(model, model.default_config())
    errors = [s for s in _reachable(python) if isinstance(worded(python.successors, s), tuple)]
    assert errors, "the model has a state whose moves fail"
    compared, _, problems = stepper_differences(model, model.default_config(), 1_000)
    assert problems == [] and compared > len(errors)


def _reachable(compiled: CompiledModel) -> list[int]:
    """Every state the model's moves reach (where they can be computed)."""
    seen = list(dict.fromkeys(compiled.initial))
    for s in seen:
        moves = worded(compiled.successors, s)
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
