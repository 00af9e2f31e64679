"""The native back-end of the explicit engine: the whole exploration in compiled code.

There is one compiled back-end: the model is assembled into a program (`vm_code.py`, a fraction
of a second per model and constants, cached on disk) that the bytecode interpreter (`vm.py`)
runs, compiled once per machine for every model. This package's own module holds only what
every module of it and every caller may ask without importing numba: whether the back-end is
installed, which property kinds it decides, and where it keeps its files. Choosing between this
back-end and the Python engine is `checker.engines.backend`'s job, above both.
"""

from __future__ import annotations

import os
import sys
from enum import StrEnum

from checker.lang import caches
from checker.lang.property_kinds import KINDS


class Backend(StrEnum):
    """Which explicit back-end runs an exploration: `auto` (the compiled one when numba is
    installed), `native` (the compiled one, or a refusal), `python` (the reference)."""

    AUTO = "auto"
    NATIVE = "native"
    PYTHON = "python"


BACKENDS = tuple(b.value for b in Backend)
# The property kinds the compiled loop and passes decide; any other kind runs in the Python engine.
NATIVE_KINDS = frozenset(name for name, k in KINDS.items() if k.native)
_NOTICES: set[str] = set()
# The property kinds the native loop decides as it explores: a run that stops once every property
# is decided (`Budget.stop_when_decided`, the growth re-checks) stops early natively only when it
# asks for these alone; with other kinds it explores on, as the Python engine does.
DECIDED_IN_LOOP = frozenset({"invariant", "reachable", "unreachable", "after", "deadlock-free", "deterministic"})


def unavailable_reason() -> str | None:
    """Why the native back-end cannot run on this installation (None when it can)."""
    from importlib.util import find_spec

    if find_spec("numba") is None or find_spec("numpy") is None:  # found, not imported: importing numba takes a while
        return "numba is not installed (the `fast` extra: pip install -e '.[fast]' in a checkout, or pip install 'numba>=0.59')"
    return None


def cache_dir() -> str:
    """Where the back-end keeps its generated modules, programs and compile locks."""
    return os.path.join(caches.user_cache_root(), "native")


def notice(message: str) -> None:
    if message not in _NOTICES:
        _NOTICES.add(message)
        print(f"rulecheck: {message}; using the Python engine", file=sys.stderr)
