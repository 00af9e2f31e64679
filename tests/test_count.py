"""`rulecheck count EXPR [PATHS] --by SLOT_OR_EXPR`: reachable states satisfying an expression,
grouped. Ground truth: tic-tac-toe has 958 terminal positions, 626 won by X, 316 by O and 16
drawn (the well-known enumeration of legal games' end positions)."""

from __future__ import annotations

import json
import os

from checker.analysis.count import count_states
from checker.engines.explicit import Budget
from checker.errors import Loc
from checker.lang.build import load_model
from checker.lang.interp import Interpreter, freeze
from checker.lang.typecheck import check_expr
from tests.conftest import DUEL, HERE, rulecheck

ROOT = os.path.dirname(HERE)
TICTACTOE = os.path.join(HERE, "impact", "models", "tictactoe")


def test_tic_tac_toe_terminal_positions_by_winner():
    run = rulecheck("count", "true", TICTACTOE, "--terminal", "--by", "outcome", "--format", "json", cwd=ROOT)
    assert run.returncode == 0, run.stderr
    (count,) = json.loads(run.stdout)["counts"]
    assert count["matching"] == 958 and count["complete"]
    assert [(g["value"], g["states"]) for g in count["groups"]] == [("x_win", 626), ("o_win", 316), ("draw", 16)]
    by_slot = rulecheck("count", "result != pending", TICTACTOE, "--by", "result", cwd=ROOT)
    assert by_slot.returncode == 0, by_slot.stderr
    assert by_slot.stdout.splitlines() == [
        "tictactoe/tictactoe [default]: 958 states of 6,436 reachable states satisfy `result != pending`",
        "  x_win  626", "  o_win  316", "  draw   16",
    ]


def reachable_states(model, config):
    interp = Interpreter(model, config)
    frontier = interp.initial_states()
    seen = {freeze(s): s for s in frontier}
    while frontier:
        following = []
        for state in frontier:
            if interp.terminal(state):
                continue
            for move in interp.transitions(state):
                if freeze(move.post) not in seen:
                    seen[freeze(move.post)] = move.post
                    following.append(move.post)
        frontier = following
    return interp, list(seen.values())


def test_counts_agree_with_the_interpreter_state_by_state():
    model = load_model(DUEL)
    config = model.default_config().with_readings({"tie": "defender"})
    found = count_states(model, config, "phase == play", "turn", Budget(100_000, 60))
    interp, states = reachable_states(model, config)
    condition = check_expr(model.scope, "phase == play", Loc("t", 1, 1))
    turn = check_expr(model.scope, "turn", Loc("t", 1, 1))
    expected: dict[str, int] = {}
    for state in states:
        if interp.eval(condition, state):
            expected[interp.eval(turn, state)] = expected.get(interp.eval(turn, state), 0) + 1
    assert found.states == len(states)
    assert dict(found.groups) == expected and found.matching == sum(expected.values()) > 0
    assert [value for value, _ in found.groups] == ["alice", "bob"]  # the domain's order


def test_a_bad_expression_is_a_located_error_and_a_stopped_exploration_says_so():
    run = rulecheck("count", "score[carol] > 0", DUEL, cwd=ROOT)
    assert run.returncode == 2 and "<count EXPR>:1:" in run.stderr and "carol" in run.stderr
    run = rulecheck("count", "true", DUEL, "--by", "hand", cwd=ROOT)
    assert run.returncode == 2 and "<count --by>:1:" in run.stderr
    run = rulecheck("count", "true", DUEL, "--max-states", "10", cwd=ROOT)
    assert run.returncode == 1 and "incomplete: state budget of 10 reached" in run.stdout
