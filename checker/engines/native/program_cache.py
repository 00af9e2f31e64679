"""Assembled bytecode on disk, so a model and its constants are assembled once per machine.

A cold check explores the same model and constants in several processes (the check matrix's
workers, the impact analysis's, the Readings re-checks'), and each assembled the program again:
0.05 to 2 CPU s a time, 136 CPU s of a whole cold check. A program is assembled from the
checker's code, the model's files, its constants and the properties it carries (the model's
whole suite, which `generated_props` puts in every program so that one program serves every
subset, or none): the key is `caches.content_key` over them (the readings are a run-time input
here). Programs for properties from elsewhere are kept in the process only. Stored under
`$RULECHECK_CACHE/vm/` as numpy arrays (`.npz`, read with `allow_pickle=False`: data, never
code), kept to a size (`checker.lang.cache_bounds`); a cache that cannot be read or written is
ignored, and `--fresh` reads none.
"""

from __future__ import annotations

import io
import os
import zipfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import numpy as np

from checker.engines.native.vm_code import Bytecode
from checker.lang import cache_bounds, caches
from checker.lang.model import Config, Model
from checker.lang.properties import BoundProperty

FORMAT = "vm-program-2"
_SIZES = ("depth", "registers", "words", "terms", "writes")  # the program's ints, beside its arrays


def _key(model: Model, config: Config, props: list[BoundProperty]) -> str | None:
    if not caches.cacheable(model):
        return None
    return caches.content_key(FORMAT, model, sorted(config.constants.items()), caches.list_digest(props))


def _path(key: str) -> str:
    return os.path.join(caches.user_cache_root(), "vm", f"{key}.npz")


def stored(model: Model, config: Config, props: list[BoundProperty]) -> Bytecode | None:
    """The program of a model, its constants and the properties `props` (none, or its whole
    suite) from the disk cache; None when it is not there."""
    key = _key(model, config, props)
    return _stored(key) if key is not None else None


def _stored(key: str) -> Bytecode | None:
    """The program under `key` (`_key`) from the disk cache; None when it is not there."""
    if not caches.reads_allowed():
        return None
    try:
        with np.load(_path(key), allow_pickle=False) as arrays:
            sizes = [int(v) for v in arrays["sizes"]]
            found = Bytecode(arrays["code"].astype(np.int64), arrays["tables"].astype(np.int64), arrays["entries"].astype(np.int64), *sizes)
    except (OSError, ValueError, KeyError, TypeError, zipfile.BadZipFile, EOFError):
        return None
    cache_bounds.used(_path(key))
    return found


def _encoded(program: Bytecode) -> bytes:
    out = io.BytesIO()
    np.savez(out, code=program.code, tables=program.tables, entries=program.entries, sizes=np.array([getattr(program, name) for name in _SIZES], np.int64))
    return out.getvalue()


def bytecode(model: Model, config: Config, props: list[BoundProperty], assemble: Callable[[], Bytecode]) -> Bytecode:
    """The program of a model, its constants and the properties `props` (none, or its whole
    suite) from the disk cache, or assembled (by `assemble`) and stored."""
    key = _key(model, config, props)
    if key is None:
        return assemble()
    found = _stored(key)
    if found is not None:
        return found
    with _assembling(key):
        found = _stored(key)  # assembled by another process while this one waited
        if found is not None:
            return found
        made = assemble()
        if not caches.write_atomic(_path(key), _encoded(made)):
            return made
    cache_bounds.written(os.path.dirname(_path(key)))
    return made


@contextmanager
def _assembling(key: str) -> Iterator[None]:
    """Held while this process assembles the program of `key`: the check's workers often need
    the same program at the same moment (two options of one model, explored side by side), and
    each assembled it (8 CPU s of a cold check); the second now waits and reads the first's
    from disk. An advisory lock (`fcntl.flock`, released when the file closes, also when the
    process dies); where there is none (no `fcntl`, a folder that cannot be written), nothing
    waits. The lock file is removed after the program is stored: a process that waited on the
    removed file and one that locked a new one may then both assemble, which only repeats
    the work (the program is the same; `os.replace` stores it whole)."""
    try:
        import fcntl
    except ImportError:  # not a POSIX system
        yield
        return
    path = f"{_path(key)}.lock"
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        handle = open(path, "w")  # noqa: SIM115 - held open for the lock's lifetime
    except OSError:
        yield
        return
    try:
        fcntl.flock(handle, fcntl.LOCK_EX)
        yield
    finally:
        try:
            os.remove(path)
        except OSError:
            pass  # removed by a process that held it after this one
        handle.close()
