"""Ctrl-C during a symbolic run: stop promptly, at a point where z3's objects are consistent.

z3 takes over SIGINT while it solves and answers "unknown" when interrupted, so Python never
sees the KeyboardInterrupt; and a KeyboardInterrupt raised by Python's default handler in the
middle of z3's ctypes calls surfaces as a `ctypes.ArgumentError` or a half-built object. So
while the engine runs, SIGINT only sets a flag, and the engine raises KeyboardInterrupt itself
at safe points: before and after every solver query (`unroll.query`, which also recognises a
check that z3 cancelled). A second Ctrl-C raises at once.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager

_requested = False


def _on_sigint(signum, frame) -> None:
    global _requested
    if _requested:
        raise KeyboardInterrupt
    _requested = True


def raise_if_requested() -> None:
    """Raise KeyboardInterrupt at a safe point if Ctrl-C was pressed since the run began."""
    if _requested:
        raise KeyboardInterrupt


@contextmanager
def deferred_interrupts() -> Iterator[None]:
    """Defer SIGINT to the engine's safe points for the duration (main thread only: signal
    handlers cannot be installed elsewhere, and there the default behaviour is kept)."""
    global _requested
    if threading.current_thread() is not threading.main_thread() or signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        yield
        return
    previous = signal.signal(signal.SIGINT, _on_sigint)
    _requested = False
    try:
        yield
        raise_if_requested()
    finally:
        signal.signal(signal.SIGINT, previous)
        _requested = False
