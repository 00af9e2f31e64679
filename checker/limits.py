"""How deep the checker's own recursion may go.

Expressions are trees, and the type checker, the interpreter, the code generator and the
symbolic encoder walk them recursively. Chains of one operator are built as balanced trees, and
the type checker refuses nesting beyond `MAX_NESTING` levels with a located error; this raises
Python's recursion limit so that every accepted expression can be walked. Python-to-Python calls
(the walkers) use no C stack in CPython 3.11+, so the raised limit is safe.
"""

from __future__ import annotations

import sys

MAX_NESTING = 1000  # expression nesting levels the type checker accepts
RECURSION_LIMIT = 20_000  # about five frames per nesting level for MAX_NESTING, with room to spare


def allow_deep_expressions() -> None:
    if sys.getrecursionlimit() < RECURSION_LIMIT:
        sys.setrecursionlimit(RECURSION_LIMIT)
