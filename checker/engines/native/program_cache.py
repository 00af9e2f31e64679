"""Assembled bytecode on disk, so a model and its constants are assembled once per machine.

A cold check explores the same model and constants in several processes (the check matrix's
workers, the impact analysis's, the Readings re-checks'), and each assembled the program again:
0.05 to 2 CPU s a time, 136 CPU s of a whole cold check. A program is assembled from the
checker's code, the model's YAML files, its constants and the model's property suite (which
`generated_props` puts in every program, so that one program serves every subset): the key
`compile_cache` computes for generated Python code, without the readings (a run-time input
here), with the suite file's bytes and the properties' ids. Programs for properties from
elsewhere are kept in the process only. Stored under `$RULECHECK_CACHE/vm/`, kept to a size
(`checker.lang.cache_bounds`); a cache that cannot be read or written is ignored.
"""

from __future__ import annotations

import hashlib
import os
import pickle
import zlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from checker.engines.native.vm_code import Bytecode
from checker.errors import RulecheckError
from checker.lang import cache_bounds
from checker.lang.compile_cache import cache_root, code_digest, source_digest
from checker.lang.model import Config, Model
from checker.lang.properties import suite_path


def _key(model: Model, config: Config, prop_ids: list[str]) -> str:
    digest = hashlib.sha256(code_digest().encode())
    digest.update(source_digest(model.path).encode())
    suite = suite_path(model.path)
    if prop_ids and os.path.isfile(suite):
        with open(suite, "rb") as handle:
            digest.update(handle.read())
    digest.update(repr((os.path.abspath(model.path), model.id, sorted(config.constants.items()), prop_ids)).encode())
    return digest.hexdigest()[:32]


def _path(key: str) -> str:
    return os.path.join(cache_root(), "vm", f"{key}.bin")


def stored(model: Model, config: Config, prop_ids: list[str]) -> Bytecode | None:
    """The program of a model, its constants and its suite's properties `prop_ids` (none, or the
    whole suite) from the disk cache; None when it is not there."""
    try:
        key = _key(model, config, prop_ids)
    except (OSError, RulecheckError):
        return None
    return _stored(key)


def _stored(key: str) -> Bytecode | None:
    """The program under `key` (`_key`) from the disk cache; None when it is not there."""
    try:
        with open(_path(key), "rb") as handle:
            found = pickle.loads(zlib.decompress(handle.read()))
    except (OSError, ValueError, EOFError, pickle.UnpicklingError, zlib.error, AttributeError, TypeError):
        return None
    if not isinstance(found, Bytecode):
        return None
    cache_bounds.used(_path(key))
    return found


def bytecode(model: Model, config: Config, prop_ids: list[str], assemble: Callable[[], Bytecode]) -> Bytecode:
    """The program of a model, its constants and its suite's properties `prop_ids` (none, or the
    whole suite) from the disk cache, or assembled (by `assemble`) and stored. The key is
    computed once (it reads and hashes the model's YAML files)."""
    try:
        key = _key(model, config, prop_ids)
    except (OSError, RulecheckError):  # a file gone or changed since the model was loaded
        return assemble()
    found = _stored(key)
    if found is not None:
        return found
    with _assembling(key):
        found = _stored(key)  # assembled by another process while this one waited
        if found is not None:
            return found
        made = assemble()
        try:
            partial = f"{_path(key)}.{os.getpid()}.tmp"
            with open(partial, "wb") as handle:
                handle.write(zlib.compress(pickle.dumps(made, protocol=5), 1))
            os.replace(partial, _path(key))
        except OSError:
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
