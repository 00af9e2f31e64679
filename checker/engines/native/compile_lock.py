"""Compile locks: one process compiles a group of numba kernels, the others load its cache.

numba compiles a kernel on its first call in a process (or loads the compiled code numba's cache
holds for it). Worker processes (`--jobs`) that reach the same kernels at once would each compile
them (minutes and gigabytes for a large generated model; 3 to 4 CPU s for the interpreter's `run`
alone): a file lock in the cache directory per group of kernels makes the second wait, then load
what the first wrote. One lock per group (the interpreter's module holds the loops of every
analysis, each compiled on its first call): with one per module, a process that had compiled one
loop compiled the others without the lock, beside another process compiling them too.

Groups share callees (`run`, the moves, the terminal condition, Tarjan's components), which a
group's lock does not cover: each process's first group is compiled under the module's lock too,
so the callees every loop uses are compiled once, by the first process to start, and the others'
first groups load them. The interpreter's module compiles its shared callees alone under that
lock instead (`shared_first`, for the argument types its loops pass), so that another process
waits for those only (about 4 s from an empty cache), not for the first process's whole first
group (7 s more), and compiles its own group meanwhile: at the start of a cold check one worker
compiled the impact analysis's first loops while the other waited. Without `fcntl` (Windows)
there is no lock, only the duplicated work.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from typing import IO, Any, TypeVar

from checker.engines.native import cache_dir

F = TypeVar("F", bound=Callable[..., Any])

_WARM: set[tuple[str, str]] = set()  # (module, kernels) this process has compiled or loaded
_STARTED: set[str] = set()  # modules this process has compiled or loaded a group of


def lock_folder() -> str:
    return os.path.join(cache_dir(), "locks")


@contextmanager
def compiling(name: str, kernels: str) -> Iterator[None]:
    """Hold the compile lock of module `name`'s group `kernels` (and, for this process's first
    group of the module, the module's) while they are first called."""
    if (name, kernels) in _WARM:
        yield
        return
    with ExitStack() as held:
        if name not in _STARTED:
            held.enter_context(_file_lock(f"{name}.first"))  # always before a group's: no two processes wait on each other
        held.enter_context(_file_lock(f"{name}.{kernels}"))
        yield
        _WARM.add((name, kernels))
        _STARTED.add(name)


def shared_first(name: str, compile_shared: Callable[[], None]) -> None:
    """Once per process, `compile_shared` (the callees every group of module `name` shares,
    compiled or loaded from numba's cache) under the module's lock; the module's groups are then
    compiled under their own locks alone."""
    if name in _STARTED:
        return
    with _file_lock(f"{name}.first"):
        compile_shared()
    _STARTED.add(name)


def first_call_locked(name: str) -> Callable[[F], F]:
    """A function whose first call in a process compiles kernels of module `name` (numba's
    own, or its cache's): that call under the compile lock of a group named after it."""

    def wrap(function: F) -> F:
        @functools.wraps(function)
        def locked(*args: Any, **kwargs: Any) -> Any:
            with compiling(name, function.__name__):
                return function(*args, **kwargs)

        return locked  # type: ignore[return-value]

    return wrap


@contextmanager
def _file_lock(stem: str) -> Iterator[None]:
    """An exclusive lock on a file of the cache's lock folder, held until the block ends."""
    folder = lock_folder()
    try:
        os.makedirs(folder, exist_ok=True)
        handle = open(os.path.join(folder, f"{stem}.lock"), "w")  # noqa: SIM115 - held across the yield
    except OSError:
        handle = None  # an unwritable cache: compile without the lock
    try:
        if handle is not None:
            _exclusive(handle)
        yield
    finally:
        if handle is not None:
            handle.close()  # closing releases the lock


def _exclusive(handle: IO[str]) -> None:
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX
        return
    fcntl.flock(handle, fcntl.LOCK_EX)
