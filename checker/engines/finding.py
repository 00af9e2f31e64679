"""What an explicit search hands back, shared by both back-ends: its budget, its progress
reports, and a property's finding.

Kept apart from the search itself so that the compiled passes (`checker.engines.native.passes`)
word their findings exactly as the Python engine does without importing it.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Budget:
    max_states: int = 2_000_000
    timeout: float = 600.0
    stop_when_decided: bool = False  # stop as soon as every property has its verdict (growth re-checks)


@dataclass
class Progress:
    states: int
    transitions: int
    depth: int
    frontier: int
    seconds: float

    @property
    def rate(self) -> float:
        return self.states / self.seconds if self.seconds > 0 else 0.0


@dataclass
class Finding:
    """What the engine found for one property: a verdict and, for a failure, a path."""

    status: str  # holds | fails | undecided | error
    path: list[int] = field(default_factory=list)  # state numbers from an initial state
    shape: str = "path"
    loop_start: int | None = None
    note: str = ""
    branch_instances: tuple[int, ...] = ()  # deterministic: instance ids of the disagreeing moves
    last_instance: int | None = None  # after: the instance of the final step
    detail: str = ""
    loop_exits: bool | None = None  # a lasso: whether its strongly connected component can be left
    more_paths: list[list[int]] = field(default_factory=list)  # reachable: further witnesses, each to another state


def trapped_finding(path: list[int], closed: int, stuck: bool) -> Finding:
    """`can-end`'s counterexample, worded the same by both back-ends: a play to a state from
    which no play ends, with the size of its closed set of successors."""
    what = "no rule applies there and the game is not over" if stuck else f"the {closed:,} state(s) reachable from it (itself included) are none of them terminal and lead only to each other"
    return Finding("fails", path, shape="closed", note=f"From the last state no play reaches the end of the game: {what}.", detail=f"closed set of {closed:,} non-terminal state(s)")
