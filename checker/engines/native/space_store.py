"""Whole explored state spaces kept on disk for the rest of one `rulecheck check`, so that the
check matrix does not explore again what the Readings analysis has just explored.

A full check explores most configurations twice: the impact analysis explores every reading
option's whole game (`statespace.explore_space`: each move with its instance, mover and
weight), and the check matrix explores the same configurations again to decide the properties
(`engine.explore`): 202 configurations and about 47 CPU s of the bundled check. The impact
analysis's explorations are queued first, so when the matrix reaches a configuration its whole
space is usually on disk; the matrix then evaluates its properties over the stored states and
moves (`loops.py`'s `check_space`) instead of exploring. Both loops number states alike
(breadth first, the Python engine's order of moves), so the findings, paths, layers and counts
are those exploring gives (`tests/test_space_store.py` holds them to it).

`sharing()` makes a folder for one run (`$RULECHECK_SPACES`, inherited by the worker processes
started inside it) and removes it afterwards; outside it nothing is kept. Only complete spaces
the bytecode interpreter explored without a modelling error are kept, each is read once (the
matrix explores a configuration once; the process keeps the last one it read, `recent`, for the
`terminates` traces that follow), and one is used only where exploring would have given it
whole: within the state budget of the exploration asked for.
"""

from __future__ import annotations

import glob
import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import numpy as np

from checker.lang import caches
from checker.lang.compile import CompiledModel

ENV = "RULECHECK_SPACES"


@dataclass
class StoredSpace:
    """A complete space as the impact analysis's loop left it: state rows, parents, the moves
    of each state (`starts` into `targets` and `instances`, the Python engine's instance
    numbers) and the terminal flags."""

    rows: np.ndarray
    parent: np.ndarray
    starts: np.ndarray
    targets: np.ndarray
    instances: np.ndarray
    term: np.ndarray

    @property
    def size(self) -> int:
        return int(self.rows.shape[0])

    @property
    def terminal(self) -> np.ndarray:
        return self.term

    def initial_nodes(self) -> list[int]:
        """The initial states' numbers: the first ones, in the model's order of them."""
        return list(range(int(np.count_nonzero(self.parent < 0))))


PREFIX = "rulecheck-spaces-"


@contextmanager
def sharing() -> Iterator[None]:
    """Keep the explored spaces of the processes started inside this block, for this block.
    The folder is named by this process's id; a folder left by a check that was killed (no
    process of its id alive) is removed first."""
    _remove_abandoned()
    folder = tempfile.mkdtemp(prefix=f"{PREFIX}{os.getpid()}-")
    before = os.environ.get(ENV)
    os.environ[ENV] = folder
    try:
        yield
    finally:
        if before is None:
            os.environ.pop(ENV, None)
        else:
            os.environ[ENV] = before
        shutil.rmtree(folder, ignore_errors=True)


def _remove_abandoned() -> None:
    for folder in glob.glob(os.path.join(tempfile.gettempdir(), f"{PREFIX}*-*")):
        pid = os.path.basename(folder)[len(PREFIX) :].split("-", 1)[0]
        if pid.isdigit() and not _alive(int(pid)):
            shutil.rmtree(folder, ignore_errors=True)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # another user's process: alive
    return True


def sharing_now() -> bool:
    """Whether this process is inside a run that shares its spaces."""
    folder = os.environ.get(ENV)
    return folder is not None and os.path.isdir(folder)


def _path(compiled: CompiledModel) -> str | None:
    if not sharing_now():
        return None
    model, config = compiled.model, compiled.config
    return os.path.join(os.environ[ENV], caches.content_key("space-1", model, sorted(config.constants.items()), sorted(config.readings.items())) + ".npz")


def keep(compiled: CompiledModel, space: StoredSpace) -> None:
    """Store a complete, error-free space for this run (nothing outside `sharing`); written
    whole or not at all (a reader never sees half a file)."""
    path = _path(compiled)
    if path is None or os.path.exists(path):
        return
    partial = f"{path}.{os.getpid()}.tmp.npz"
    try:
        np.savez(
            partial,
            rows=space.rows,
            parent=space.parent,
            starts=space.starts,
            targets=space.targets,
            instances=space.instances,
            term=space.term,
        )
        os.replace(partial, path)
    except OSError:
        try:
            os.remove(partial)
        except OSError:
            pass


_RECENT: dict[str, StoredSpace] = {}  # the space `take` last gave this process, by its path


def take(compiled: CompiledModel, max_states: int) -> StoredSpace | None:
    """The stored space of this configuration when there is one of at most `max_states`
    states (the check's loop within that budget would have explored it whole), removed from
    the store (and kept in the process for `recent`); else None."""
    path = _path(compiled)
    if path is None or not os.path.exists(path):
        return None
    try:
        with np.load(path, allow_pickle=False) as data:
            space = StoredSpace(*(data[name] for name in ("rows", "parent", "starts", "targets", "instances", "term")))
        os.remove(path)
    except (OSError, ValueError, KeyError):
        return None
    _RECENT.clear()
    _RECENT[path] = space
    return space if space.size <= max_states else None


def recent(compiled: CompiledModel, max_states: int) -> StoredSpace | None:
    """The space `take` last gave this process when it is this configuration's and
    `explore_space` within `max_states` states would have explored it whole (it stops before a
    state whose moves could pass the budget): a failing `terminates` property's trace asks
    whether the game ends surely, over the same configuration's whole graph, right after."""
    path = _path(compiled)
    space = _RECENT.get(path) if path is not None else None
    if space is None:
        return None
    widest = int(np.diff(space.starts).max(initial=0))
    return space if space.size - 1 + widest <= max_states else None
