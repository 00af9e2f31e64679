"""The one key every cache is stored under, where caches live, and the one switch that turns
every cache off.

A cached verdict, program or page section is only as good as its key: an input the key misses
is a stale result served as fresh. So there is one key function (`content_key`), made from
exactly what a result is a function of: the checker's own code (`code_digest`), every file the
loader read to build the model (`Model.sources`, recorded by `yamlsrc.recording_reads` as it
reads them, optional files found absent included), and what the caller adds (the
configuration, the properties' digest, the options). No cache computes a key of its own from
what it guesses the model was built from.

Where caches live: results that are data (verdicts, facts, growth re-checks, page sections) go
under the working directory's `.rulecheck-cache/` as JSON or Markdown, read back as data only;
code made for a model (generated Python code, assembled programs, compiled modules) goes under
the user's cache root (`$RULECHECK_CACHE`, default `~/.cache/rulecheck`), outside any
repository, since a repository's files must never be deserialised into something that runs.

`rulecheck check --fresh` sets `RULECHECK_FRESH=1` for the run and its worker processes: then
no cache of any kind is read (every one is still written, so the next run finds the fresh
results).
"""

from __future__ import annotations

import dataclasses
import glob
import hashlib
import json
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from checker.lang.model import Model

FRESH_ENV = "RULECHECK_FRESH"
PROJECT_DIR = ".rulecheck-cache"  # under the working directory: data only
_CODE_DIGEST: str | None = None
_MODEL_DIGESTS: dict[int, tuple[Model, str]] = {}  # id -> (the model, its digest)
_LIST_DIGESTS: dict[int, tuple[list[Any], str]] = {}  # id -> (the list, its digest): a model's jobs share one list of properties


def reads_allowed() -> bool:
    """False under `--fresh`: no cache may be read."""
    return os.environ.get(FRESH_ENV) != "1"


@contextmanager
def fresh_run(fresh: bool = True) -> Iterator[None]:
    """Within the block (and in the worker processes it starts), no cache is read."""
    before = os.environ.get(FRESH_ENV)
    if fresh:
        os.environ[FRESH_ENV] = "1"
    try:
        yield
    finally:
        if before is None:
            os.environ.pop(FRESH_ENV, None)
        else:
            os.environ[FRESH_ENV] = before


def user_cache_root() -> str:
    """Where code made for models is cached: `$RULECHECK_CACHE`, else the user's cache folder."""
    return os.environ.get("RULECHECK_CACHE") or os.path.join(os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "rulecheck")


def code_digest() -> str:
    """The checker's code and Python's version, once per process: any change to either may
    change every result."""
    global _CODE_DIGEST
    if _CODE_DIGEST is None:
        digest = hashlib.sha256(sys.version.encode())
        package = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # checker/, from checker/lang/
        for path in sorted(glob.glob(os.path.join(package, "**", "*.py"), recursive=True)):
            digest.update(os.path.relpath(path, package).encode())
            with open(path, "rb") as handle:
                digest.update(handle.read())
        _CODE_DIGEST = digest.hexdigest()
    return _CODE_DIGEST


def model_digest(model: Model) -> str:
    """The digest of every file the model was built from, as the loader read them, and of the
    model's id; once per model object. A model that was not loaded from files (none recorded)
    is keyed by its path alone and should not be cached: `cacheable` says so."""
    entry = _MODEL_DIGESTS.get(id(model))
    if entry is not None and entry[0] is model:
        return entry[1]
    digest = hashlib.sha256(repr((os.path.abspath(model.path), model.id, model.sources)).encode()).hexdigest()
    if len(_MODEL_DIGESTS) > 512:
        _MODEL_DIGESTS.clear()
    _MODEL_DIGESTS[id(model)] = (model, digest)
    return digest


def cacheable(model: Model) -> bool:
    """A model whose sources were recorded when it was loaded: only its results are cached."""
    return bool(model.sources)


def content_key(kind: str, model: Model | None, *parts: object, length: int = 32) -> str:
    """The key of a cache entry of `kind` (its format: a change of what is stored changes it):
    the checker's code, the model's sources (`model_digest`) and `parts`, whose `repr` the
    caller makes stable (sorted items, digests of large inputs)."""
    digest = hashlib.sha256(kind.encode())
    digest.update(code_digest().encode())
    if model is not None:
        digest.update(model_digest(model).encode())
    for part in parts:
        digest.update(b"\0" + repr(part).encode())
    return digest.hexdigest()[:length]


def write_atomic(path: str, data: bytes) -> bool:
    """Write a cache entry whole or not at all (worker processes may write the same one at
    once); False when it cannot be written (a cache that cannot be written is skipped)."""
    try:
        os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
        partial = f"{path}.{os.getpid()}.tmp"
        with open(partial, "wb") as handle:
            handle.write(data)
        os.replace(partial, path)
        return True
    except OSError:
        return False


def read_json(path: str | None) -> Any:
    """A JSON cache entry's document, or None when there is none, the run reads no cache
    (`--fresh`), or it cannot be read (then it is recomputed). JSON only: no file is ever
    deserialised in a way that can run code."""
    if path is None or not reads_allowed() or not os.path.isfile(path):
        return None
    try:
        with open(path, encoding="utf-8") as handle:
            return json.load(handle)
    except (OSError, ValueError):
        return None


def write_json(path: str | None, doc: Any) -> None:
    """Write a JSON cache entry whole or not at all (`write_atomic`)."""
    if path is not None:
        write_atomic(path, json.dumps(doc, sort_keys=True).encode())


def stable(value: Any) -> Any:
    """A representation of `value` whose `repr` is the same in every process: sets are sorted
    (their iteration order follows string hashing, which differs between processes)."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return (type(value).__name__, tuple((f.name, stable(getattr(value, f.name))) for f in dataclasses.fields(value)))
    if isinstance(value, dict):
        return ("dict", tuple(sorted((repr(k), stable(v)) for k, v in value.items())))
    if isinstance(value, (set, frozenset)):
        return ("set", tuple(sorted(repr(stable(v)) for v in value)))
    if isinstance(value, (list, tuple)):
        return tuple(stable(v) for v in value)
    return repr(value)


def digest_of(value: Any) -> str:
    """The SHA-256 of a value's `stable` form: the same for equal content in every process."""
    return hashlib.sha256(repr(stable(value)).encode()).hexdigest()


def list_digest(values: list[Any]) -> str:
    """`digest_of` a list (a model's bound properties), computed once per list object."""
    entry = _LIST_DIGESTS.get(id(values))
    if entry is not None and entry[0] is values:
        return entry[1]
    digest = digest_of(values)
    adopt_list_digest(values, digest)
    return digest


def adopt_list_digest(values: list[Any], digest: str) -> None:
    """Take `digest` as the digest of `values`: a check job's properties arrive in a worker
    process as a fresh copy per job, so the digest the planning process computed once per
    model travels with the job (recomputing it per job was 2 to 3 % of a cold check)."""
    if len(_LIST_DIGESTS) > 256:
        _LIST_DIGESTS.clear()
    _LIST_DIGESTS[id(values)] = (values, digest)
