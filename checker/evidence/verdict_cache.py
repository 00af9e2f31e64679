"""The check matrix's explicit verdicts, kept by content so that a run over unchanged models
reuses them instead of exploring again.

A designer re-runs the whole suite after every rule change, and most of it is unchanged: the
other games' models, properties and the checker are the same bytes, so their verdicts are too.
The key (`caches.content_key`) is made from everything a verdict is a function of: the checker's
code, every file the model was loaded from, the configuration (constants and readings), every
bound property in full, and the options the exploration reads (state budget, time limit,
back-end, witnesses, symmetry). Only verdicts that no clock decided are kept: an exploration that
was complete, or stopped at its state budget or once every property was decided, never one a
time limit stopped. A reused verdict's path is replayed in the interpreter like any other
(`runner.result_of`), so evidence is still confirmed on every run; its `seconds` are 0, and the
summary counts the combinations taken from here.

Beside them: facts of a configuration alone that the evidence needs (`remembered`: whether a
chance-sustained loop's game ends surely). The folder is `.rulecheck-cache/verdicts` under the
working directory, as the Readings and growth caches are, or `$RULECHECK_VERDICTS`. It is in
the user's repository, so entries are JSON read back as data only (`_decoded` builds verdicts,
their evidence, states and configurations and nothing else; anything else in a file makes it a
miss): a file a pull request plants there cannot run code. `rulecheck check --fresh` reads
nothing from it.
"""

from __future__ import annotations

import dataclasses
import json
import os
from collections.abc import Callable
from typing import Any, TypeVar, get_args

from checker.engines.verdict import EngineName, Evidence, Status, Verdict
from checker.lang import caches
from checker.lang.model import Config, Model
from checker.lang.properties import BoundProperty

CACHE_DIR = os.path.join(caches.PROJECT_DIR, "verdicts")
FORMAT = "verdicts-4"  # changes when what is stored changes shape
_DETERMINED = ("exhaustive", "state budget", "every property decided")  # how an exploration ended without a clock
T = TypeVar("T")
_VERDICT_FIELDS = {f.name for f in dataclasses.fields(Verdict)}
_EVIDENCE_BY_SHAPE: dict[str, type[Evidence]] = {kind.shape: kind for kind in get_args(Evidence)}


def cache_dir() -> str:
    return os.environ.get("RULECHECK_VERDICTS") or CACHE_DIR


def key(model: Model, config: Config, props: list[BoundProperty], options: Any) -> str | None:
    """The content key of one configuration's verdicts (None: a model not loaded from files)."""
    budget = options.budget
    return _config_key(model, config, caches.list_digest(props), (options.engine, budget.max_states, budget.timeout, budget.stop_when_decided, options.backend, options.witnesses, options.symmetry))


def _config_key(model: Model, config: Config, *parts: object) -> str | None:
    if not caches.cacheable(model):
        return None
    return caches.content_key(FORMAT, model, sorted(config.constants.items()), sorted(config.readings.items()), *parts)


def remembered(fact: str, model: Model, config: Config, compute: Callable[[], T]) -> T:
    """`compute()`, a fact of one configuration alone that no clock decides (`fact` names it
    with its budget), kept by content beside the verdicts: whether a chance-sustained loop's
    game ends surely explores the whole game again, about a second each, and was a third of a
    run over unchanged models. Facts are JSON scalars or None (an undecided answer is as
    deterministic as a decided one, and as dear: every game past the bound explores up to it
    before answering None), stored as a list of one, so that None is told from a miss."""
    name = _config_key(model, config, fact)
    path = os.path.join(cache_dir(), f"{fact}-{name}.json") if name is not None else None
    if path is not None and caches.reads_allowed():
        stored = _read(path)
        if isinstance(stored, list) and len(stored) == 1 and (stored[0] is None or isinstance(stored[0], (bool, int, float, str))):
            return stored[0]  # type: ignore[return-value]
    value = compute()
    if path is not None:
        caches.write_atomic(path, json.dumps([value]).encode())
    return value


def load(name: str) -> tuple[dict[str, Verdict], bool] | None:
    """(verdicts by property, whether the exploration was complete), or None when not cached."""
    if not caches.reads_allowed():
        return None
    stored = _read(os.path.join(cache_dir(), f"{name}.json"))
    try:
        shared = _Shared(stored["shared"])  # type: ignore[index]
        verdicts = {str(k): _verdict(shared.unpack(v)) for k, v in stored["verdicts"].items()}  # type: ignore[index]
        complete = stored["complete"]  # type: ignore[index]
    except (KeyError, TypeError, ValueError, AttributeError):
        return None
    if not isinstance(complete, bool):
        return None
    for verdict in verdicts.values():
        verdict.seconds, verdict.reused = 0.0, True  # nothing was explored for it in this run
    return verdicts, complete


def store(name: str, verdicts: dict[str, Verdict], complete: bool) -> None:
    """Keep the verdicts when no time limit decided any of them (written whole or not at all)."""
    if not verdicts or not all(_determined(v) for v in verdicts.values()):
        return
    packer = _Packer()
    body = {k: packer.pack(_encoded(_fields(v))) for k, v in verdicts.items()}
    doc = {"format": FORMAT, "complete": complete, "shared": packer.shared, "verdicts": body}
    caches.write_atomic(os.path.join(cache_dir(), f"{name}.json"), json.dumps(doc, separators=(",", ":")).encode())


def _read(path: str) -> object:
    """A cache file's JSON (None: missing or unreadable)."""
    try:
        with open(path, encoding="utf-8") as handle:
            return json.load(handle)
    except (OSError, ValueError):
        return None


# -- the JSON codec: verdicts, evidence, configurations, states; tuples and dicts with any keys tagged
def _fields(value: Verdict | Evidence) -> dict[str, Any]:
    """A verdict's or an evidence's fields by name, their values as they are."""
    return {f.name: getattr(value, f.name) for f in dataclasses.fields(value)}


def _encoded(value: Any) -> Any:
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, Evidence):
        return {"evidence": [value.shape, _encoded(_fields(value))]}
    if isinstance(value, Config):
        return {"config": [_encoded(value.constants), _encoded(value.readings)]}
    if isinstance(value, dict):
        return {"dict": [[_encoded(k), _encoded(v)] for k, v in value.items()]}
    if isinstance(value, tuple):
        return {"tuple": [_encoded(v) for v in value]}
    if isinstance(value, list):
        return [_encoded(v) for v in value]
    raise TypeError(f"a verdict holds a {type(value).__name__}")


def _decoded(value: Any) -> Any:
    """What `_encoded` wrote, as data: scalars, lists, tuples, dicts, evidence, configurations."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, list):
        return [_decoded(v) for v in value]
    if isinstance(value, dict) and len(value) == 1:
        (tag, inner), = value.items()
        if tag == "tuple" and isinstance(inner, list):
            return tuple(_decoded(v) for v in inner)
        if tag == "dict" and isinstance(inner, list):
            return {_hashable(_decoded(k)): _decoded(v) for k, v in inner}
        if tag == "evidence" and isinstance(inner, list) and len(inner) == 2:
            return _evidence(*(_decoded(v) for v in inner))
        if tag == "config" and isinstance(inner, list) and len(inner) == 2:
            constants, readings = (_decoded(v) for v in inner)
            if isinstance(constants, dict) and isinstance(readings, dict):
                return Config(constants, readings)
    raise ValueError("not a cached verdict")


# -- repeated subtrees kept once: a trace's states differ in a slot or two, so a state's piles and
# records recur along it and across the traces of one configuration (Ultimate's largest file: 1.7 MB
# of JSON, 664 distinct subtrees above the threshold repeated into 6.9 MB of repeats counted nested)
_SHARED_ABOVE = 48  # characters of JSON: smaller subtrees cost less written out than as a reference


class _Packer:
    """Replaces every JSON container written more than `_SHARED_ABOVE` characters long by
    `{"ref": i}`, entry i of `shared`; entries are made children first, so an entry refers only
    to earlier ones and unpacking cannot loop."""

    def __init__(self) -> None:
        self.shared: list[Any] = []
        self._index: dict[str, int] = {}

    def pack(self, value: Any) -> Any:
        if isinstance(value, list):
            value = [self.pack(v) for v in value]
        elif isinstance(value, dict):
            value = {k: self.pack(v) for k, v in value.items()}
        else:
            return value
        text = json.dumps(value, separators=(",", ":"), sort_keys=True)
        if len(text) <= _SHARED_ABOVE:
            return value
        if text not in self._index:
            self._index[text] = len(self.shared)
            self.shared.append(value)
        return {"ref": self._index[text]}


class _Shared:
    """The entries a packed file refers to, expanded on demand: a reference is read only to an
    entry before the one that holds it (or any entry, from a verdict), else the file is a miss."""

    def __init__(self, shared: Any) -> None:
        if not isinstance(shared, list):
            raise ValueError("not a cached verdict")
        self._entries = shared

    def unpack(self, value: Any, below: int | None = None) -> Any:
        if isinstance(value, list):
            return [self.unpack(v, below) for v in value]
        if not isinstance(value, dict):
            return value
        if set(value) == {"ref"}:
            ref = value["ref"]
            limit = len(self._entries) if below is None else below
            if not isinstance(ref, int) or isinstance(ref, bool) or not 0 <= ref < limit:
                raise ValueError("not a cached verdict")
            return self.unpack(self._entries[ref], ref)  # each use its own copy: verdicts' states are mutable dicts
        return {k: self.unpack(v, below) for k, v in value.items()}


def _hashable(key: Any) -> Any:
    if isinstance(key, (list, dict)):
        raise ValueError("not a cached verdict")
    return key


def _evidence(shape: Any, fields: Any) -> Evidence:
    """The evidence of that shape with exactly its own fields."""
    kind = _EVIDENCE_BY_SHAPE.get(shape) if isinstance(shape, str) else None
    if kind is None or not isinstance(fields, dict) or set(fields) != {f.name for f in dataclasses.fields(kind)}:
        raise ValueError("not a cached verdict")
    return kind(**fields)


def _verdict(doc: Any) -> Verdict:
    fields = _decoded(doc)
    if not isinstance(fields, dict) or set(fields) != _VERDICT_FIELDS:
        raise ValueError("not a cached verdict")
    fields["status"], fields["engine"] = Status(fields["status"]), EngineName(fields["engine"])
    if fields["evidence"] is not None and not isinstance(fields["evidence"], Evidence):
        raise ValueError("not a cached verdict")
    return Verdict(**fields)


def _determined(verdict: Verdict) -> bool:
    words = f"{verdict.detail} {verdict.note}".lower()
    return verdict.bound.startswith(_DETERMINED) and "timeout" not in words and "timed out" not in words
