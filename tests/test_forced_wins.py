"""The forced-win sets (`outcomes.won_nodes`): the compiled worklist against numpy's frontier
at a time, on random move graphs."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from checker.engines import explicit
from checker.engines.game_graph import won_nodes
from checker.engines.statespace import CHANCE, RULES


@st.composite
def move_graphs(draw):
    """Stored moves as `outcomes.MoveArrays` holds them: `expanded` nodes with moves by either
    side, chance or the rules (loops, multiple moves to one node and nodes without moves
    alike), and a goal."""
    n = draw(st.integers(1, 30))
    expanded = draw(st.integers(0, n))
    rows = [draw(st.lists(st.tuples(st.integers(0, n - 1), st.sampled_from([0, 1, CHANCE, RULES])), max_size=4)) for _ in range(expanded)]
    counts = np.array([len(row) for row in rows], np.int64)
    target = np.array([t for row in rows for t, _ in row], np.int64)
    has_moves = np.zeros(n, bool)
    has_moves[:expanded] = counts > 0
    into = np.argsort(target, kind="stable")
    moves = SimpleNamespace(
        size=n, source=np.repeat(np.arange(expanded, dtype=np.int64), counts), target=target,
        movers=np.array([m for row in rows for _, m in row], np.int32), has_moves=has_moves,
        into=into, into_starts=np.searchsorted(target[into], np.arange(n + 1)),
    )
    return moves, np.array(draw(st.lists(st.booleans(), min_size=n, max_size=n)), bool)


@settings(max_examples=300, deadline=None, derandomize=True)
@given(move_graphs())
@pytest.mark.slow
def test_the_compiled_worklist_finds_numpys_won_set(graph):
    pytest.importorskip("numba")
    moves, goal = graph
    for side in (0, 1):
        for cooperative in (False, True):
            with pytest.MonkeyPatch.context() as patch:
                patch.setattr(explicit, "COMPILED_PASSES_FROM", 10**9)
                by_numpy = won_nodes(moves, goal, side, cooperative)
                patch.setattr(explicit, "COMPILED_PASSES_FROM", 0)
                compiled = won_nodes(moves, goal, side, cooperative)
            assert compiled.dtype == by_numpy.dtype and compiled.tolist() == by_numpy.tolist()


def test_a_side_wins_where_its_opponent_cannot_avoid_the_goal():
    """0: the side moves to 1 or 2; 1: the opponent moves to the goal 3 or to 4, a dead end;
    2: the opponent moves only to the goal. Won: 3, 2 and (through 2) 0; not 1 (the opponent
    escapes to 4), nor 4."""
    pytest.importorskip("numba")
    target = np.array([1, 2, 3, 4, 3], np.int64)
    into = np.argsort(target, kind="stable")
    moves = SimpleNamespace(size=5, source=np.array([0, 0, 1, 1, 2], np.int64), target=target, movers=np.array([0, 0, 1, 1, 1], np.int32),
                            has_moves=np.array([True, True, True, False, False]), into=into, into_starts=np.searchsorted(target[into], np.arange(6)))
    goal = np.array([False, False, False, True, False])
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(explicit, "COMPILED_PASSES_FROM", 0)
        assert won_nodes(moves, goal, 0, False).tolist() == [True, False, True, True, False]
