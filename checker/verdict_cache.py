"""The check matrix's explicit verdicts, kept by content so that a run over unchanged models
reuses them instead of exploring again.

A designer re-runs the whole suite after every rule change, and most of it is unchanged: the
other games' models, properties and the checker are the same bytes, so their verdicts are too.
The key hashes everything a verdict is a function of: the checker's code (and Python's version),
the model's YAML files and its `extends` chain (`compile_cache.source_digest`), the model and its
configuration (constants and readings), every bound property in full, and the options the
exploration reads (state budget, time limit, back-end, witnesses, symmetry). Only verdicts that
no clock decided are kept: an exploration that was complete, or stopped at its state budget or
once every property was decided, never one a time limit stopped. A reused verdict's path is
replayed in the interpreter like any other (`runner.result_of`), so evidence is still confirmed
on every run; its `seconds` are 0, and the summary counts the combinations taken from here.

Beside them: facts of a configuration alone that the evidence needs (`remembered`: whether a
chance-sustained loop's game ends surely). The folder is `.rulecheck-cache/verdicts` under the
working directory, as the Readings and growth caches are, or `$RULECHECK_VERDICTS`; `rulecheck
check --fresh` neither reads nor writes it.
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
import pickle
from collections.abc import Callable
from typing import Any, TypeVar

from checker.lang.compile_cache import code_digest, source_digest
from checker.lang.model import Config, Model
from checker.lang.properties import BoundProperty
from checker.verdict import Verdict

CACHE_DIR = os.path.join(".rulecheck-cache", "verdicts")
FORMAT = "verdicts-1"  # changes when what is stored changes shape
_DETERMINED = ("exhaustive", "state budget", "every property decided")  # how an exploration ended without a clock
T = TypeVar("T")
_PROPS: dict[int, tuple[list[BoundProperty], str]] = {}  # id -> (the list, its digest): a model's jobs share one list


def cache_dir() -> str:
    return os.environ.get("RULECHECK_VERDICTS") or CACHE_DIR


def key(model: Model, config: Config, props: list[BoundProperty], options: Any) -> str | None:
    """The content key of one configuration's verdicts (None: a model file is gone or unreadable)."""
    budget = options.budget
    return _config_key(model, config, props_digest(props), repr((options.engine, budget.max_states, budget.timeout, budget.stop_when_decided, options.backend, options.witnesses, options.symmetry)))


def _config_key(model: Model, config: Config, *parts: str) -> str | None:
    try:
        sources = source_digest(model.path)
    except OSError:
        return None
    digest = hashlib.sha256(FORMAT.encode())
    digest.update(code_digest().encode())
    digest.update(sources.encode())
    digest.update(repr((os.path.abspath(model.path), model.id, sorted(config.constants.items()), sorted(config.readings.items()))).encode())
    for part in parts:
        digest.update(b"\0" + part.encode())
    return digest.hexdigest()[:32]


def remembered(fact: str, model: Model, config: Config, compute: Callable[[], T]) -> T:
    """`compute()`, a fact of one configuration alone that no clock decides (`fact` names it
    with its budget), kept by content beside the verdicts: whether a chance-sustained loop's
    game ends surely explores the whole game again, about a second each, and was a third of a
    run over unchanged models."""
    name = _config_key(model, config, fact)
    path = os.path.join(cache_dir(), f"{fact}-{name}.pickle") if name is not None else None
    if path is not None:
        try:
            with open(path, "rb") as handle:
                return pickle.load(handle)  # noqa: S301 - written below
        except (OSError, EOFError, pickle.UnpicklingError, AttributeError, ImportError, TypeError, ValueError):
            pass
    value = compute()
    if path is not None:
        _write(path, value)
    return value


def load(name: str) -> tuple[dict[str, Verdict], bool] | None:
    """(verdicts by property, whether the exploration was complete), or None when not cached."""
    try:
        with open(os.path.join(cache_dir(), f"{name}.pickle"), "rb") as handle:
            stored = pickle.load(handle)  # noqa: S301 - written by this module, under the user's own folder
    except (OSError, EOFError, pickle.UnpicklingError, AttributeError, ImportError, TypeError, ValueError):
        return None
    verdicts, complete = stored
    for verdict in verdicts.values():
        verdict.seconds, verdict.reused = 0.0, True  # nothing was explored for it in this run
    return verdicts, complete


def store(name: str, verdicts: dict[str, Verdict], complete: bool) -> None:
    """Keep the verdicts when no time limit decided any of them (written whole or not at all)."""
    if not verdicts or not all(_determined(v) for v in verdicts.values()):
        return
    _write(os.path.join(cache_dir(), f"{name}.pickle"), (verdicts, complete))


def _write(path: str, value: object) -> None:
    """Whole or not at all (worker processes may write the same entry at once)."""
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        partial = f"{path}.{os.getpid()}.tmp"
        with open(partial, "wb") as handle:
            pickle.dump(value, handle, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(partial, path)
    except OSError:
        pass  # an unwritable cache only means the next run explores again


def _determined(verdict: Verdict) -> bool:
    words = f"{verdict.detail} {verdict.note}".lower()
    return verdict.bound.startswith(_DETERMINED) and "timeout" not in words and "timed out" not in words


def props_digest(props: list[BoundProperty]) -> str:
    """The content digest of a model's bound properties, computed once per list object."""
    entry = _PROPS.get(id(props))
    if entry is not None and entry[0] is props:
        return entry[1]
    digest = hashlib.sha256(repr(_canonical(props)).encode()).hexdigest()
    adopt_digest(props, digest)
    return digest


def adopt_digest(props: list[BoundProperty], digest: str) -> None:
    """Take `digest` as the digest of `props`: a check job's properties arrive in a worker
    process as a fresh copy per job, so the digest the planning process computed once per
    model travels with the job (recomputing it per job was 2 to 3 % of a cold check)."""
    if len(_PROPS) > 256:
        _PROPS.clear()
    _PROPS[id(props)] = (props, digest)


def _canonical(value: Any) -> Any:
    """A representation of `value` whose `repr` is the same in every process: sets are sorted
    (their iteration order follows string hashing, which differs between processes)."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return (type(value).__name__, tuple((f.name, _canonical(getattr(value, f.name))) for f in dataclasses.fields(value)))
    if isinstance(value, dict):
        return ("dict", tuple(sorted((repr(k), _canonical(v)) for k, v in value.items())))
    if isinstance(value, (set, frozenset)):
        return ("set", tuple(sorted(repr(_canonical(v)) for v in value)))
    if isinstance(value, (list, tuple)):
        return tuple(_canonical(v) for v in value)
    return repr(value)
