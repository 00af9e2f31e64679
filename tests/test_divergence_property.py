"""Hypothesis: on random small models with one reading, the divergence scenario is a play legal
under both options that agrees with both at every step and parts ways exactly at its last
state, and it is a shortest one; when none is found, the interpreter finds no reachable state
that tells the two options apart."""

from __future__ import annotations

import os
import tempfile
from collections import deque

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from checker.analysis.divergence import find_divergence
from checker.lang.build import load_model
from checker.lang.interp import Interpreter, freeze

HEADER = """game: Random
id: rnd
players: [one, two]
readings:
  r: {clause: c-1, question: "Which?", options: {p: first, q: second}, default: p}
state:
  a: "int[0..3]"
  b: "int[0..3]"
  turn: player
init: {a: 0, b: 0, turn: one}
terminal: {terminal}
outcome: "a + b if reading.r == p else a"
actions:
"""
FOOTER = """clauses:
  c-1: {at: "1", says: "A rule."}
"""

conditions = st.sampled_from(["a < 3", "b < 3", "a == 1", "b != 2", "a <= b", "reading.r == p", "reading.r == q", "True"])
effects = st.sampled_from([
    '"(a + 1) % 4"', '"(a + 2) % 4"', '"(a + 1) % 4 if reading.r == q else (a + 2) % 4"', '"b"',
])
b_effects = st.sampled_from(['"(b + 1) % 4"', '"(b + 3) % 4"', '"(b + 1) % 4 if reading.r == p else b"', '"a"'])
actions = st.lists(
    st.tuples(st.sampled_from(["chance", "rules", "turn", '"turn if reading.r == p else succ(turn)"']), st.lists(conditions, min_size=1, max_size=2), effects, b_effects, st.sampled_from([None, "p", "q"])),
    min_size=1, max_size=4,
)
terminals = st.sampled_from(["a == 3 and b == 3", "a + b >= 5", "a == 3 and reading.r == q", "b == 2 or a == 3"])


def model_text(terminal: str, specs: list) -> str:
    lines = [HEADER.replace("{terminal}", f'"{terminal}"')]
    for i, (by, conds, a_effect, b_effect, only) in enumerate(specs):
        lines.append(f"  act{i}:\n    by: {by}\n    when: \"{' and '.join(conds)}\"\n")
        lines.append(f"    do: {{a: {a_effect}, b: {b_effect}, turn: succ(turn)}}\n    rule: c-1\n")
        if only:
            lines.append(f"    only: {{r: {only}}}\n")
    return "".join(lines) + FOOTER


def loaded(terminal: str, specs: list):
    """The model `model_text` writes, loaded from a scratch folder."""
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "rnd.yaml")
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(model_text(terminal, specs))
        return load_model(path)


def _view(interp: Interpreter, state: dict) -> tuple:
    """Everything a configuration says about a state: terminal, outcome, moves, movers, results."""
    terminal = interp.terminal(state)
    outcome = interp.eval(interp.model.outcome, state) if terminal else None
    moves = frozenset((m.action, m.params, m.actor, freeze(m.post)) for m in interp.transitions(state))
    return terminal, outcome, moves


def shortest_divergence(model, a, b) -> int | None:
    """Interpreter-only breadth-first search: the depth of the first state the two tell apart."""
    ia, ib = Interpreter(model, a), Interpreter(model, b)
    starts = ia.initial_states()
    queue = deque((s, 0) for s in starts)
    seen = {freeze(s) for s in starts}
    while queue:
        state, depth = queue.popleft()
        view = _view(ia, state)
        if view != _view(ib, state):
            return depth
        for move in ia.transitions(state):
            key = freeze(move.post)
            if key not in seen:
                seen.add(key)
                queue.append((move.post, depth + 1))
    return None


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(terminals, actions)
def test_divergence_is_legal_under_both_and_parts_at_the_end(terminal, specs):
    model = loaded(terminal, specs)
    a = model.default_config()
    b = a.with_readings({"r": "q"})
    found = find_divergence(model, a, b)
    expected = shortest_divergence(model, a, b)
    if expected is None:
        assert not found.found and found.complete
        return
    assert found.found and found.steps == expected
    ia, ib = Interpreter(model, a), Interpreter(model, b)
    states = found.trace.states()
    for pre, post in zip(states, states[1:]):
        assert _view(ia, pre) == _view(ib, pre)  # nothing differs before the last state
        assert any(m.post == post for m in ia.transitions(pre)) and any(m.post == post for m in ib.transitions(pre))
    assert _view(ia, states[-1]) != _view(ib, states[-1])
