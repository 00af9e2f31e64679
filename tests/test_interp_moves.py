"""The reference interpreter gives the moves of a state it was asked about before without
working them out again (the replays and checks of one configuration's traces ask about the same
states), always as a new list, never keeping a modelling error; and `shared_interpreter` hands
the same interpreter to the traces of one configuration."""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, given, settings

from checker.errors import ModellingError
from checker.lang import interp as interp_module
from checker.lang.build import load_model
from checker.lang.interp import SHARED_KEPT, Interpreter, shared_interpreter
from tests.conformance.generated import models

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MODEL = os.path.join(HERE, "models", "titlebelt", "two-player.yaml")


def _counting(monkeypatch, interp: Interpreter) -> list[int]:
    calls: list[int] = []
    original = interp._transitions

    def counted(state):
        calls.append(1)
        return original(state)

    monkeypatch.setattr(interp, "_transitions", counted)
    return calls


def test_a_states_moves_are_worked_out_once(monkeypatch):
    model = load_model(MODEL)
    interp = Interpreter(model, model.default_config())
    calls = _counting(monkeypatch, interp)
    start = interp.initial_states()[0]
    first = interp.transitions(start)
    assert first and calls == [1]
    again = interp.transitions(dict(start))  # an equal state, another object
    assert again == first and again is not first and calls == [1]
    first.clear()  # a caller's list is its own
    assert interp.transitions(start) == again
    after = again[0].post
    interp.transitions(after)
    assert calls == [1, 1]
    assert Interpreter(model, model.default_config()).transitions(after) == interp.transitions(after)


def test_a_modelling_error_is_raised_again_each_time(monkeypatch):
    model = load_model(MODEL)
    interp = Interpreter(model, model.default_config())
    calls: list[int] = []

    def failing(state):
        calls.append(1)
        raise ModellingError("a division by zero")

    monkeypatch.setattr(interp, "_transitions", failing)
    start = interp.initial_states()[0]
    for _ in range(2):
        with pytest.raises(ModellingError):
            interp.transitions(start)
    assert calls == [1, 1]


def test_only_so_many_states_are_kept(monkeypatch):
    model = load_model(MODEL)
    interp = Interpreter(model, model.default_config())
    monkeypatch.setattr(interp_module, "MOVES_KEPT", 1)
    calls = _counting(monkeypatch, interp)
    start = interp.initial_states()[0]
    other = interp.transitions(start)[0].post
    for state in (start, other, other, start):
        interp.transitions(state)
    assert calls == [1, 1, 1]  # the first state kept, the second worked out each time


def test_a_step_asked_before_is_not_worked_out_again(monkeypatch):
    """A replayed step (a state, the next state, the action named) asked again, also one no
    move makes, is answered from what `move_to` kept, up to `MOVES_KEPT` steps."""
    model = load_model(MODEL)
    interp = Interpreter(model, model.default_config())
    calls: list[tuple] = []
    original = interp._first_move_to
    monkeypatch.setattr(interp, "_first_move_to", lambda *args: calls.append(args) or original(*args))
    start = interp.initial_states()[0]
    move = Interpreter(model, model.default_config()).transitions(start)[0]
    asked = [(move.post, None), (move.post, move.action), (start, None)]
    first = [interp.move_to(start, post, action) for post, action in asked]
    assert first[0] == first[1] == move and first[2] is None
    assert [interp.move_to(start, post, action) for post, action in asked] == first and len(calls) == 3
    assert interp.move_to(start, move.post, "no-such-action") is None and len(calls) == 4  # another step
    monkeypatch.setattr(interp_module, "MOVES_KEPT", 4)
    assert interp.move_to(start, start, move.action) is None and len(calls) == 5
    interp.move_to(start, start, move.action)
    assert len(calls) == 6  # no room left to keep it


def test_one_interpreter_per_configuration_among_the_last_few():
    model = load_model(MODEL)
    base = model.default_config()
    assert shared_interpreter(model, base) is shared_interpreter(model, model.default_config())
    name, reading = next(iter(model.readings.items()))
    other = base.with_readings({name: next(o for o in reading.options if o != base.readings[name])})
    assert shared_interpreter(model, other) is not shared_interpreter(model, base)
    first = shared_interpreter(model, base)
    for value in range(SHARED_KEPT):
        shared_interpreter(model, type(base)({**base.constants, "__probe__": value}, base.readings))
    assert shared_interpreter(model, base) is not first  # pushed out by the others


@settings(max_examples=120, deadline=None, derandomize=True, database=None, suppress_health_check=list(HealthCheck))
@given(models())
@pytest.mark.slow
def test_a_replay_finds_the_first_move_the_full_list_gives(case):
    """`move_to`, what a replay asks at each step, works out the moves only up to the one
    taken: it gives the first of `transitions` leading to a state (by an action, when one is
    named), and None for a state no legal move leads to, such as one only a players' move
    reaches while a forced rule is enabled. On random models: forced rules, chance weights
    that may be zero, parameters, actions that exist under one reading only."""
    import tempfile

    from hypothesis import assume

    from checker.errors import RulecheckError
    from tests.symbolic_support import write_game

    model_yaml, props_yaml = case
    with tempfile.TemporaryDirectory() as root:
        try:
            model = load_model(write_game(root, "random", model_yaml, props_yaml))
        except RulecheckError:
            assume(False)
        config = model.default_config()
        full, lazy = Interpreter(model, config), Interpreter(model, config)
        seen: list = []
        frontier = list(full.initial_states())
        while frontier and len(seen) < 60:
            state = frontier.pop(0)
            if state in seen:
                continue
            seen.append(state)
            try:
                moves = full.transitions(state)
                every = [] if full.terminal(state) else full._moves(full.active_actions(), state)  # forced or not
            except ModellingError:
                continue
            asked = [(post, action) for post in [m.post for m in every] + [state] for action in [None, *{m.action for m in every}]]
            expected = [next((m for m in moves if m.post == post and action in (None, m.action)), None) for post, action in asked]
            assert [lazy.move_to(state, post, action) for post, action in asked] == expected
            assert [lazy.move_to(state, post, action) for post, action in asked] == expected  # the steps asked before
            lazy.transitions(state)
            assert [lazy.move_to(state, post, action) for post, action in asked] == expected  # read from the moves kept
            frontier.extend(m.post for m in moves)
