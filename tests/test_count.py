"""`rulecheck count EXPR [PATHS] --by SLOT_OR_EXPR`: reachable states satisfying an expression,
grouped. Ground truth: tic-tac-toe has 958 terminal positions, 626 won by X, 316 by O and 16
drawn (the well-known enumeration of legal games' end positions)."""

from __future__ import annotations

import json
import os

import pytest

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
    found = count_states(model, config, "phase == play", ["turn"], Budget(100_000, 60))
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


def test_the_value_of_every_nim_position_in_one_run_and_a_sweep_of_starts(tmp_path):
    """`--by value` with the slots of a position gives the game value from every reachable
    position of one exploration: in normal-play Nim the player to move wins exactly where the
    heaps' xor is not 0 (Bouton). A `--set LO..HI` sweep counts under each start in one process."""
    from tests.symbolic_support import write_game
    from tests.test_can_end_value import NIM

    path = write_game(str(tmp_path), "nim", NIM)
    start = ["--set", "start[h1]=3", "--set", "start[h2]=3", "--set", "start[h3]=3"]
    groups = [f"--by=left[h{i}]" for i in (1, 2, 3)] + ["--by", "turn", "--by", "value"]
    run = rulecheck("count", "true", path, *start, *groups, "--format", "json", cwd=str(tmp_path))
    assert run.returncode == 0, run.stderr
    (count,) = json.loads(run.stdout)["counts"]
    assert count["by"] == "left[h1], left[h2], left[h3], turn, value" and count["complete"]
    positions = [tuple(g["value"]) for g in count["groups"]]
    assert len(positions) == count["states"] == 120  # a state each: a position and who is to move
    for a, b, c, turn, value in positions:
        other = "bob" if turn == "ann" else "ann"
        assert value == (turn if a ^ b ^ c else other), (a, b, c, turn, value)
    sweep = rulecheck("count", "true", path, "--set", "start[h1]=0..3", "--set", "start[h2]=1,2", cwd=str(tmp_path))
    assert sweep.returncode == 0, sweep.stderr
    heads = [line for line in sweep.stdout.splitlines() if not line.startswith(" ")]
    assert len(heads) == 8 and heads[0].startswith("nim/m [default] start[h1]=0 start[h2]=1: ")
    assert heads[-1].startswith("nim/m [default] start[h1]=3 start[h2]=2: ")


@pytest.mark.slow
def test_tic_tac_toe_is_a_draw_from_the_empty_board_and_a_sweep_needs_numbers():
    """Perfect play from the empty board is a draw: neither side can force a win from there, and
    the terminal positions are valued by their result (a won board for its winner)."""
    empty = rulecheck("count", "all(board[c] == 0 for c in cell)", TICTACTOE, "--by", "value", cwd=ROOT)
    assert empty.returncode == 0, empty.stderr
    assert empty.stdout.splitlines()[1:] == ["  neither  1"]
    ends = rulecheck("count", "result == x_win", TICTACTOE, "--terminal", "--by", "value", cwd=ROOT)
    assert ends.stdout.splitlines()[1:] == ["  x  626"], ends.stdout
    bad = rulecheck("count", "true", DUEL, "--set", "target=3..x", cwd=ROOT)
    assert bad.returncode == 2 and "a sweep LO..HI takes two whole numbers" in bad.stderr
    outside = rulecheck("count", "true", DUEL, "--set", "target=8..10", cwd=ROOT)
    assert outside.returncode == 2 and "target" in outside.stderr and "range" in outside.stderr
