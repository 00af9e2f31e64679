"""Rules nobody would use: a choice the rules offer a player that can never improve that
player's result under perfect play.

Over a configuration's whole state graph, each player's standing at every position is one of
three values: the player can force a win whatever the others and chance do (2), the player can
still win if play goes their way (1), or the player can no longer win (0). At a position where a
player chooses among moves of several actions, an action *helps* when its best move leads to a
better standing than every other action's best, and *hurts* when to a worse one. An action the
rules offer that helps its taker nowhere and hurts somewhere is a choice only a mistaken player
makes ("a team up can only cost the roller in a first-fall match"): a finding about the text,
with a position where it is offered and why it cannot pay. The analysis needs an outcome that
names who wins (a player's name, or `<player>_win`); without one it says so.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from checker.analysis.outcomes import reaches_goal
from checker.engines.game_graph import MoveArrays, win_labels, won_nodes
from checker.engines.statespace import StateSpace

FORCED, CAN, LOST = 2, 1, 0


@dataclass(frozen=True)
class Dominated:
    """An action that never helps the player taking it, with the evidence."""

    player: str
    action: str
    offered: int  # positions where it is offered beside another action of the player's
    worse: int  # of those, positions where its best move is worse than the best other one
    example: int  # a shallowest such position (a node of the space)
    taken: int  # the standing its best move leaves there (FORCED, CAN or LOST)
    instead: int  # the standing the best other move leaves

    def words(self) -> str:
        said = {FORCED: "can force a win", CAN: "can still win", LOST: "can no longer win"}
        return (f"`{self.action}` never helps {self.player}: in none of the {self.offered} positions where it is offered beside another choice "
                f"does it leave {self.player} better placed, and in {self.worse} it leaves them worse (after it {self.player} "
                f"{said[self.taken]}, after the best other choice {self.player} {said[self.instead]})")


@dataclass
class Choices:
    """The dominated actions of one configuration, or why they were not looked for."""

    dominated: list[Dominated] = field(default_factory=list)
    note: str = ""


def dominated_choices(space: StateSpace, labels: list[str | None]) -> Choices:
    """Every player's actions that help nowhere and hurt somewhere, over a complete space;
    `labels` the outcome label of each node that ends play."""
    model = space.compiled.model
    players = list(model.domains["player"].members or ()) if "player" in model.domains else []
    outcomes = {label for label in labels if label is not None}
    wins = win_labels(players, outcomes)
    if not space.complete:
        return Choices(note="the state space is not explored whole")
    if not any(wins.values()):
        return Choices(note="the outcome names no winning player (a player's name, or `<player>_win`)")
    moves = MoveArrays(space)
    actions = np.array([space.compiled.instances[i].action.name for i in space.instances[: moves.target.size]], dtype=object)
    out: list[Dominated] = []
    for number, player in enumerate(players):
        goal = np.array([label in wins[player] for label in labels], dtype=bool)
        if not goal.any():
            continue
        standing = np.where(won_nodes(moves, goal, number, False), FORCED, np.where(reaches_goal(space, goal), CAN, LOST))
        out += _of_player(player, number, moves, actions, standing)
    return Choices(out)


def _of_player(player: str, number: int, moves: MoveArrays, actions: np.ndarray, standing: np.ndarray) -> list[Dominated]:
    """The actions of one player that help nowhere and hurt somewhere."""
    mine = np.flatnonzero(moves.movers == number)
    if mine.size == 0:
        return []
    best: dict[tuple[int, str], int] = {}
    for edge in mine.tolist():
        key = (int(moves.source[edge]), str(actions[edge]))
        best[key] = max(best.get(key, LOST), int(standing[moves.target[edge]]))
    by_node: dict[int, dict[str, int]] = {}
    for (node, action), value in best.items():
        by_node.setdefault(node, {})[action] = value
    offered: dict[str, int] = {}
    helps: set[str] = set()
    hurts: dict[str, list[tuple[int, int, int]]] = {}
    for node in sorted(by_node):
        choices = by_node[node]
        if len(choices) < 2:
            continue
        for action, value in choices.items():
            other = max(v for a, v in choices.items() if a != action)
            offered[action] = offered.get(action, 0) + 1
            if value > other:
                helps.add(action)
            elif value < other:
                hurts.setdefault(action, []).append((node, value, other))
    out = []
    for action in sorted(hurts):
        if action in helps:
            continue
        node, taken, instead = hurts[action][0]
        out.append(Dominated(player, action, offered[action], len(hurts[action]), node, taken, instead))
    return out
