"""Inlining a definition never lets its own loop variables capture a caller's variable.

`inner(q)` counts the players equal to `q`; called as `inner(p)` from a loop over `p`, the
body's `for p in player` must not rebind the argument. Each engine (interpreter, compiled
expressions, symbolic encoder) is checked, and nested definitions whose loop variables shadow
each other and the caller's are compared against the same sums written in plain Python.
"""

from __future__ import annotations

import itertools
import os

import pytest

from checker.errors import Loc
from checker.lang.build import load_model
from checker.lang.compile import CompiledModel
from checker.lang.interp import Interpreter
from checker.lang.typecheck import check_expr
from checker.lang.types import INT
from tests.conftest import write
from tests.symbolic_support import run, write_game

CAPTURE = """\
game: capture
id: m
players: [a, b]
define:
  inner(q): sum(1 for p in player if p == q)
  pairs(q): sum(inner(p) + inner(q) for p in player)
  outer(p, q): sum(pairs(p) * inner(q) for q in player)
state:
  x: "int[0..5]"
init:
  x: 0
terminal: x > 0
actions:
  go:
    by: rules
    do:
      x: sum(inner(p) for p in player)
    rule: c1
clauses:
  c1: {at: here, says: "x becomes 2"}
"""

CAPTURE_PROPS = """\
- id: x-is-two
  kind: invariant
  expr: x == 0 or x == 2
- id: reaches-two
  kind: reachable
  expr: x == 2
"""

PLAYERS = ["a", "b"]
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def inner(q: str) -> int:
    return sum(1 for p in PLAYERS if p == q)


def pairs(q: str) -> int:
    return sum(inner(p) + inner(q) for p in PLAYERS)


def outer(p: str, q: str) -> int:
    return sum(pairs(p) * inner(q2) for q2 in PLAYERS)


def _engines(tmp_path):
    model = load_model(write(tmp_path, CAPTURE, "m.yaml", "capture"))
    config = model.default_config()
    interp = Interpreter(model, config)
    compiled = CompiledModel(model, config)
    state = interp.initial_states()[0]
    return model, interp, compiled, state


def _both(model, interp, compiled, state, source: str) -> tuple[int, int]:
    expr = check_expr(model.scope, source, Loc("t", 1, 1), INT)
    return interp.eval(expr, state), compiled.evaluator(expr)(compiled.layout.pack(state))


def test_the_reproducer_under_the_interpreter_and_the_compiled_engine(tmp_path):
    model, interp, compiled, state = _engines(tmp_path)
    assert _both(model, interp, compiled, state, "sum(inner(p) for p in player)") == (2, 2)


CASES = [
    ("sum(inner(p) for p in player)", sum(inner(p) for p in PLAYERS)),
    ("sum(inner(q) for q in player)", sum(inner(q) for q in PLAYERS)),
    ("sum(pairs(p) for p in player)", sum(pairs(p) for p in PLAYERS)),
    ("sum(pairs(q) for q in player)", sum(pairs(q) for q in PLAYERS)),
    ("sum(outer(p, q) for p in player for q in player)", sum(outer(p, q) for p, q in itertools.product(PLAYERS, PLAYERS))),
    ("sum(outer(q, p) for p in player for q in player if p != q)", sum(outer(q, p) for p, q in itertools.product(PLAYERS, PLAYERS) if p != q)),
    ("sum(sum(inner(p) * pairs(q) for q in player) for p in player)", sum(inner(p) * pairs(q) for p in PLAYERS for q in PLAYERS)),
    ("count(inner(p) == 1 for p in player)", sum(1 for p in PLAYERS if inner(p) == 1)),
]


@pytest.mark.parametrize(("source", "want"), CASES, ids=[c[0] for c in CASES])
def test_nested_definitions_that_shadow_each_other(tmp_path, source, want):
    model, interp, compiled, state = _engines(tmp_path)
    assert _both(model, interp, compiled, state, source) == (want, want)


def test_equal_calls_still_give_equal_ir(tmp_path):
    """The renaming is deterministic, so two identical calls remain equal expressions."""
    model, *_ = _engines(tmp_path)
    first = check_expr(model.scope, "inner(a)", Loc("t", 1, 1), INT)
    second = check_expr(model.scope, "inner(a)", Loc("t", 2, 1), INT)
    assert first.body == second.body and first.bound == second.bound


@pytest.mark.parametrize("engine", ["explicit", "symbolic"])
def test_the_reproducer_under_each_engine(tmp_path, engine):
    path = write_game(str(tmp_path), "capture", CAPTURE, CAPTURE_PROPS)
    results = run(path, engine, depth=4)
    assert results["x-is-two"].status == "holds", (results["x-is-two"].status, results["x-is-two"].bound)
    assert results["reaches-two"].status == "holds", (results["reaches-two"].status, results["reaches-two"].bound)


def test_titlebelt_most_cards_needs_a_unique_leader():
    """Title Belt's `most(q)` loops over `r`; `any(most(r) for r in player)` once let that loop
    capture the caller's `r` (so it meant "anyone is active"). At the start every hand ties, so
    nobody has the most cards."""
    from checker.lang.types import BOOL

    model = load_model(os.path.join(ROOT, "models", "titlebelt", "base.yaml"))
    config = model.default_config()
    interp = Interpreter(model, config)
    (start,) = interp.initial_states()
    for source, want in [("any(most(r) for r in player)", False), ("any(most(q) for q in player)", False), ("any(active[r] for r in player)", True)]:
        assert interp.eval(check_expr(model.scope, source, Loc("t", 1, 1), BOOL), start) is want, source
