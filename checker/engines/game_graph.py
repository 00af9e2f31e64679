"""Game-graph algorithms over a recorded state space: what each end means, who wins it, and
what a side can force (attractors).

They decide the `value` property kind (`engines.value`) and serve the analyses above
(`analysis.outcomes`, `analysis.dominated`), so they sit with the explorer that records the
graph rather than with either.
"""

from __future__ import annotations

from array import array

import numpy as np

from checker.engines.graph import CHANCE
from checker.engines.statespace import StateSpace

STUCK = "stuck (no rule applies)"


def outcome_labels(space: StateSpace) -> list[str | None]:
    """Per node: its outcome label if the node ends play (terminal, or stuck), else None."""
    compiled = space.compiled
    evaluate = compiled.evaluator(compiled.model.outcome) if compiled.model.outcome is not None else None
    terminal = np.frombuffer(bytes(space.terminal), dtype=np.uint8).astype(bool)
    starts = np.frombuffer(space.starts, dtype=np.int32)
    stuck = np.zeros(space.size, dtype=bool)
    stuck[: space.expanded] = starts[1:] == starts[:-1]  # expanded with no move
    labels: list[str | None] = [None] * space.size
    for node in np.flatnonzero(stuck & ~terminal).tolist():
        labels[node] = STUCK
    ends = np.flatnonzero(terminal).tolist()
    for node, state in zip(ends, space.states_at(ends)):  # in node order, as a modelling error in `outcome` is met
        labels[node] = str(evaluate(state)) if evaluate else "finished"
    return labels


def win_labels(players: list[str], outcomes: set[str]) -> dict[str, set[str]]:
    """The outcome labels that mean a win for each player: the player's own name, or
    `<player>_win`, `<player>_wins`, `<player>_won`."""
    return {p: {o for o in outcomes if o in (p, f"{p}_win", f"{p}_wins", f"{p}_won")} for p in players}


class MoveArrays:
    """The stored moves as numpy arrays, with the moves into each node listed together (the
    predecessor lists `won_nodes` walks back along)."""

    def __init__(self, space: StateSpace) -> None:
        edges = space.starts[space.expanded]
        counts = np.diff(np.frombuffer(space.starts, dtype=np.int32)[: space.expanded + 1])
        self.size = space.size
        self.source = np.repeat(np.arange(space.expanded, dtype=np.int64), counts)
        self.target = np.frombuffer(space.targets, dtype=np.int32)[:edges].astype(np.int64)
        self.movers = np.frombuffer(space.movers, dtype=np.int32)[:edges]
        self.has_moves = np.zeros(space.size, dtype=bool)
        self.has_moves[: space.expanded] = counts > 0
        self.into = np.argsort(self.target, kind="stable")  # edges grouped by target
        self.into_starts = np.searchsorted(self.target[self.into], np.arange(space.size + 1))


def won_nodes(moves: MoveArrays, goal: np.ndarray, side: int, chance_cooperative: bool) -> np.ndarray:
    """The nodes `attractor` finds won for `side` (the same least fixed point, computed a
    frontier at a time with numpy instead of a node at a time, or compiled from the won nodes
    back where the graph passes are; only the set is needed here)."""
    from checker.engines.explicit import compiled_passes

    friendly = moves.movers == side
    if chance_cooperative:
        friendly |= moves.movers == CHANCE
    n = moves.size
    passes = compiled_passes(n)
    if passes is not None:
        return passes.won_nodes(moves.source, moves.into, moves.into_starts, friendly, moves.has_moves, goal)
    unfriendly_left = np.bincount(moves.source[~friendly], minlength=n)
    has_friendly = np.bincount(moves.source[friendly], minlength=n) > 0
    friendly_hit = np.zeros(n, dtype=bool)
    won = goal.copy()
    frontier = np.flatnonzero(won)
    while frontier.size:
        lo, hi = moves.into_starts[frontier], moves.into_starts[frontier + 1]
        lengths = hi - lo
        offsets = np.repeat(lo - np.cumsum(lengths) + lengths, lengths) + np.arange(lengths.sum())
        edges = moves.into[offsets]
        edges = edges[~won[moves.source[edges]]]
        preds = moves.source[edges]
        friendly_hit[preds[friendly[edges]]] = True
        np.subtract.at(unfriendly_left, preds[~friendly[edges]], 1)
        candidates = np.unique(preds)
        newly = candidates[(unfriendly_left[candidates] == 0) & (friendly_hit[candidates] | ~has_friendly[candidates]) & moves.has_moves[candidates]]
        won[newly] = True
        frontier = newly
    return won


def attractor(space: StateSpace, goal: set[int], side: int, chance_cooperative: bool) -> array:
    """Per node, the order in which it was found won for `side` (-1: not won).

    A node is won when `side` can force reaching `goal` from it. A move is friendly when `side`
    makes it (or chance does, when cooperative); forced rules are never friendly (two
    disagreeing rules resolve against the side). Where several movers could go next, the
    opponents decide who moves: a node is won when every unfriendly move leads to a won node
    and, if the side can move there, one of its moves does. Every node's deciding successors
    were found before it, so following decreasing order numbers reaches the goal."""
    n = space.size
    order = array("i", [-1]) * n
    unfriendly_left = [0] * n
    has_friendly = bytearray(n)
    friendly_hit = bytearray(n)
    preds: list[list[tuple[int, bool]]] = [[] for _ in range(n)]
    movers, targets = space.movers, space.targets
    for node in range(n):
        for e in space.moves(node):
            friendly = movers[e] == side or (chance_cooperative and movers[e] == CHANCE)
            if friendly:
                has_friendly[node] = 1
            else:
                unfriendly_left[node] += 1
            preds[targets[e]].append((node, friendly))
    queue = sorted(goal)
    for number, node in enumerate(queue):
        order[node] = number
    found = len(queue)
    head = 0
    while head < len(queue):
        node = queue[head]
        head += 1
        for pred, friendly in preds[node]:
            if order[pred] >= 0:
                continue
            if friendly:
                friendly_hit[pred] = 1
            else:
                unfriendly_left[pred] -= 1
            if unfriendly_left[pred] == 0 and (friendly_hit[pred] or not has_friendly[pred]) and space.starts[pred] != space.starts[pred + 1]:
                order[pred] = found
                found += 1
                queue.append(pred)
    return order
