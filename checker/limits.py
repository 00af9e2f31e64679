"""How deep the checker's own recursion may go.

Expressions are trees, and the type checker, the interpreter, the code generator and the
symbolic encoder walk them recursively. Chains of one operator are built as balanced trees, and
the type checker refuses nesting beyond `MAX_NESTING` levels with a located error; this raises
Python's recursion limit so that every accepted expression can be walked. Python-to-Python calls
(the walkers) use no C stack in CPython 3.11+, so the raised limit is safe.
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass

MAX_NESTING = 1000  # expression nesting levels the type checker accepts
RECURSION_LIMIT = 20_000  # about five frames per nesting level for MAX_NESTING, with room to spare


def allow_deep_expressions() -> None:
    if sys.getrecursionlimit() < RECURSION_LIMIT:
        sys.setrecursionlimit(RECURSION_LIMIT)


class OutOfBudget(Exception):
    """The work before exploration (initial states, unrolling parameters and aggregates) ran
    past `--max-states` or `--timeout`; the check is undecided, with this reason."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True)
class WorkLimit:
    """The budget as it applies to enumerations: at most `max_items` of anything enumerated
    (candidate initial states, action instances, unrolled aggregate terms), until `deadline`
    (a `time.perf_counter()` value)."""

    max_items: int
    deadline: float

    def count(self, what: str, n: int) -> None:
        if n > self.max_items:
            raise OutOfBudget(f"state budget of {self.max_items:,} reached while enumerating {what} ({n:,})")

    def clock(self, what: str) -> None:
        if time.perf_counter() > self.deadline:
            raise OutOfBudget(f"timeout while enumerating {what}, before exploration")
