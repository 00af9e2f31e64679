"""Game values under perfect play (retrograde analysis), for the `value` property kind.

Two sides, the first and second members of `players`; an outcome is a win for a side when it
names it (the side's name, or `<side>_win`); every other end (a draw, no winner, a stuck state,
a play that never ends) counts as neither.

- `chance: adversary` (the default): chance plays against the first side. The value is the
  first side's name when it can force a win from every initial state, the second side's name
  when that side can force a win (from some initial state, chance choosing the start), and
  otherwise the outcome that perfect play reaches (`draw`, say), or `endless` when perfect play
  can go round forever. Computed with attractors, so cycles are handled exactly.
- `chance: expectation`: the first side's expected score (win 1, loss 0, anything else 1/2)
  when both sides play perfectly, chance follows its weights, and where several movers could go
  next each is equally likely (the policy of the outcome probabilities). Computed backwards in
  topological order, so it needs a game graph without cycles (otherwise: undecided).

The evidence is a line of perfect play, replayed in the reference interpreter: each side
follows its strategy (the winning side takes the move found earliest by the attractor, its
opponent the one that resists longest; in expectation, the best move for the mover, and chance's
most likely outcome).
"""

from __future__ import annotations

from array import array
from dataclasses import dataclass

from checker.engines.explicit import Exploration
from checker.engines.finding import Finding
from checker.engines.game_graph import attractor, outcome_labels, win_labels
from checker.engines.graph import is_cyclic, strongly_connected
from checker.engines.statespace import CHANCE, StateSpace, explore_space
from checker.lang.properties import BoundProperty

TOLERANCE = 1e-9


@dataclass
class GameValue:
    value: str | float | None  # None when undecided
    line: list[int]  # node numbers of a line of perfect play
    loop_start: int | None = None  # index in `line` of the node the line returns to, if it cycles
    reason: str = ""  # why undecided, or how the value was computed


def sides(space: StateSpace) -> list[str]:
    model = space.compiled.model
    return list(model.domains["player"].members or ()) if "player" in model.domains else []


def game_value(space: StateSpace, chance: str) -> GameValue:
    prepared = _scored(space)
    if isinstance(prepared, GameValue):
        return prepared
    players, labels, win_of = prepared
    if chance == "expectation":
        return _expectation(space, win_of)
    return _adversary(space, labels, win_of, players)


NEITHER = "neither"  # `state_values` under `chance: adversary`: no side can force a win from there


def state_values(space: StateSpace, chance: str) -> list[str | float] | GameValue:
    """The game value from every node of `space` (the same analysis as `game_value`, which
    answers for the initial states): under `adversary`, the side that can force a win from the
    node or `neither`; under `expectation`, the first side's expected score. An undecided
    `GameValue` says why there is none (not two sides, not fully explored, a cycle)."""
    prepared = _scored(space)
    if isinstance(prepared, GameValue):
        return prepared
    players, labels, win_of = prepared
    if chance == "expectation":
        found = _expected_scores(space, win_of)
        if isinstance(found, GameValue):
            return found
        scores: list[str | float] = list(found[0])
        return scores
    first, second = _attractors(space, win_of)
    return [players[0] if first[n] >= 0 else players[1] if second[n] >= 0 else NEITHER for n in range(space.size)]


def _scored(space: StateSpace) -> tuple[list[str], list[str | None], list[float]] | GameValue:
    """The two sides, every node's outcome label and its score for the first side (win 1, loss
    0, anything else 1/2), or why there is no game value."""
    players = sides(space)
    if len(players) != 2:
        return GameValue(None, [], reason=f"a game value needs two sides; this model has {len(players)}")
    if not space.complete:
        return GameValue(None, [], reason=f"the state space was not fully explored ({space.bound_text()})")
    labels = outcome_labels(space)
    wins = win_labels(players, {label for label in labels if label is not None})
    win_of = [0.5] * space.size
    for node, label in enumerate(labels):
        if label in wins[players[0]]:
            win_of[node] = 1.0
        elif label in wins[players[1]]:
            win_of[node] = 0.0
    return players, labels, win_of


def _attractors(space: StateSpace, score: list[float]) -> tuple[array, array]:
    """Per node, the order in which each side was found to force a win from it (-1: it cannot)."""
    first = attractor(space, {n for n in range(space.size) if score[n] == 1.0}, 0, False)
    second = attractor(space, {n for n in range(space.size) if score[n] == 0.0}, 1, True)
    return first, second


def _adversary(space: StateSpace, labels: list[str | None], score: list[float], players: list[str]) -> GameValue:
    first, second = _attractors(space, score)
    starts = space.initial_nodes()
    values = {n: (1.0 if first[n] >= 0 else 0.0 if second[n] >= 0 else 0.5) for n in starts}
    start = min(starts, key=lambda n: (values[n], n))
    if values[start] == 1.0:
        line, loop = _follow(space, start, first, 0, False)
        return GameValue(players[0], line, loop, f"{players[0]} can force a win" + (", chance playing against it" if CHANCE in space.movers else ""))
    if values[start] == 0.0:
        line, loop = _follow(space, start, second, 1, True)
        return GameValue(players[1], line, loop, f"{players[1]} can force a win" + (", chance playing with it" if CHANCE in space.movers else ""))
    line, loop = _neutral_line(space, start, first, second)
    end = labels[line[-1]] if loop is None else None
    return GameValue(end if end is not None else "endless", line, loop, "neither side can force a win; the line shows play where neither gives the other a forced win")


def _follow(space: StateSpace, start: int, order, side: int, chance_cooperative: bool) -> tuple[list[int], None]:
    """The winning side's strategy from `start`: its own moves to the earliest-won successor,
    the opponents' to the latest-won one (every step lowers the order number)."""
    line = [start]
    node = start
    while not space.terminal[node]:  # won nodes that are not goals (terminal) have moves
        moves = list(space.moves(node))
        friendly = [e for e in moves if space.movers[e] == side or (chance_cooperative and space.movers[e] == CHANCE)]
        unfriendly = [e for e in moves if e not in friendly]
        if unfriendly:
            edge = max(unfriendly, key=lambda e: order[space.targets[e]])
        else:
            edge = min((e for e in friendly if order[space.targets[e]] >= 0), key=lambda e: order[space.targets[e]])
        node = space.targets[edge]
        line.append(node)
    return line, None


def _neutral_line(space: StateSpace, start: int, first, second) -> tuple[list[int], int | None]:
    """A line that stays where neither side can force a win, until it ends or repeats."""
    line = [start]
    seen = {start: 0}
    node = start
    while not space.terminal[node] and space.starts[node] != space.starts[node + 1]:
        moves = list(space.moves(node))
        keep = [e for e in moves if first[space.targets[e]] < 0 and second[space.targets[e]] < 0]
        edge = (keep or moves)[0]
        node = space.targets[edge]
        if node in seen:
            line.append(node)
            return line, seen[node]
        seen[node] = len(line)
        line.append(node)
    return line, None


def _expectation(space: StateSpace, score: list[float]) -> GameValue:
    found = _expected_scores(space, score)
    if isinstance(found, GameValue):
        return found
    value, best_edge = found
    starts = space.initial_nodes()
    total = sum(value[n] for n in starts) / len(starts)
    line = [starts[0]]
    while best_edge[line[-1]] >= 0:
        line.append(space.targets[best_edge[line[-1]]])
    return GameValue(total, line, None, "first side's expected score (win 1, loss 0, otherwise 1/2) under perfect play, chance by its weights")


def _expected_scores(space: StateSpace, score: list[float]) -> tuple[list[float], list[int]] | GameValue:
    """Every node's expected score for the first side under perfect play, and the move that
    perfect play takes there (-1 at an end), backwards in topological order; undecided on a
    graph with a cycle."""
    graph = space.graph()
    live = bytearray(0 if t else 1 for t in space.terminal)
    value = list(score)
    best_edge = [-1] * space.size
    for component in strongly_connected(graph, live.__getitem__):
        if is_cyclic(graph, component):
            return GameValue(None, [], reason="perfect play with chance as expectation is computed on games without cycles; this game graph has one")
        node = component[0]
        if space.starts[node] == space.starts[node + 1]:
            continue  # stuck: scored as neither side's win
        value[node], best_edge[node] = _node_value(space, node, value)
    return value, best_edge


def _node_value(space: StateSpace, node: int, value: list[float]) -> tuple[float, int]:
    by_mover: dict[int, list[int]] = {}
    for e in space.moves(node):
        by_mover.setdefault(space.movers[e], []).append(e)
    total = 0.0
    shown = -1
    for mover, edges in sorted(by_mover.items()):
        if mover == CHANCE:
            weight = sum(space.weights[e] for e in edges)
            part = sum(space.weights[e] * value[space.targets[e]] for e in edges) / weight
            pick = max(edges, key=lambda e: space.weights[e])
        elif mover == 0:
            pick = max(edges, key=lambda e: value[space.targets[e]])
            part = value[space.targets[pick]]
        elif mover == 1:
            pick = min(edges, key=lambda e: value[space.targets[e]])
            part = value[space.targets[pick]]
        else:  # forced rules (one move, unless they disagree): each equally likely
            part = sum(value[space.targets[e]] for e in edges) / len(edges)
            pick = edges[0]
        total += part / len(by_mover)
        if shown < 0:
            shown = pick
    return total, shown


def matches(value: str | float | None, expected: str | float) -> bool:
    if value is None:
        return False
    if isinstance(expected, float) or isinstance(value, float):
        return isinstance(value, float) and isinstance(expected, float) and abs(value - expected) <= TOLERANCE
    return value == expected


def value_finding(exp: Exploration, prop: BoundProperty) -> Finding:
    """A `value` property decided after the explicit engine's exploration: the game value under
    perfect play against the property's `value`; a line of perfect play is the evidence either
    way. Given to the engine's `decide` by its caller (`checker.engines.backend`), so the
    engine imports no analysis."""
    # the same space again, recorded as a graph; the budget test counts a state's moves before it
    # knows which lead to new states, so it needs room for one state's moves beyond the states
    # the first exploration found (a budget of exactly that many stopped whole games early)
    space = explore_space(exp.compiled, max_states=len(exp.states) + len(exp.compiled.instances) + 1)
    found = game_value(space, prop.chance)
    if found.value is None:
        return Finding("undecided", detail=found.reason)
    shown = f"{found.value:.6g}" if isinstance(found.value, float) else found.value
    path = [exp.index[space.states[n]] for n in found.line]
    assert prop.value is not None  # `bind_value` always sets a `value` property's expected value
    status = "holds" if matches(found.value, prop.value) else "fails"
    note = f"Game value under perfect play (chance: {prop.chance}): {shown}; {found.reason}. The steps show a line of perfect play."
    return Finding(status, path, shape="strategy", loop_start=found.loop_start, note=note, detail=f"value: {shown} (expected {prop.value})")
