"""A cache of the generated successor code, so a model configuration is generated and compiled
by Python once per machine, not once per run.

Generating and compiling a large model's successor function costs about a second per reading
combination (Show'n'Go's senior model: 1.3 MB of source, 517 action instances), a quarter of
the bundled check's time. The cache key is computed from what the code is generated from,
without generating it (`caches.content_key`): the checker's own code, every file the model was
loaded from, and the configuration. Not the state budget: it only refuses an enumeration larger than it, so the entry records the
budget the generation needed and is served to every check whose budget allows it. The value is
the compiled code object (marshal, zlib-compressed: about 80 KB for that model), stored once per
generated source (`source-<hash>.bin`; configurations whose sources are the same share it) and
named by each configuration's `<key>.entry` (the budget needed and the source's key), kept in
memory for the rest of the process and on disk under `$RULECHECK_CACHE` (default
`~/.cache/rulecheck`) in `python/`, kept to a size (`cache_bounds`: the least recently used go
first). A cache that cannot be read or written is ignored: the code is generated as without it.
"""

from __future__ import annotations

import hashlib
import marshal
import os
import sys
import zlib
from collections.abc import Callable
from types import CodeType
from typing import NamedTuple

from checker.lang import cache_bounds, caches
from checker.lang.model import Config, Model

_MEMORY: dict[str, CodeType] = {}  # by source key
MEMORY_ENTRIES = 32  # code objects kept in the process (a large model's is about 2 MB)
_ENTRIES: dict[str, tuple[int, str]] = {}  # configuration key -> (the budget its generation needs, its source's key)


class GeneratedSource(NamedTuple):
    """A configuration's generated successor source, and the least state budget under which it
    is generated (the most terms of an aggregate it unrolled; the budget refuses more)."""

    text: str
    terms: int


def cache_key(model: Model, config: Config) -> str | None:
    """A configuration's key (`caches.content_key`); None for a model not loaded from files."""
    if not caches.cacheable(model):
        return None
    return caches.content_key("python-code-1", model, sorted(config.constants.items()), sorted(config.readings.items()))


def successor_code(model: Model, config: Config, max_items: int | None, generate: Callable[[], GeneratedSource], name: str) -> CodeType:
    """The compiled successor code of a configuration: from the cache, or generated (by
    `generate`), compiled and cached. The budget only refuses (`WorkLimit` raises, it never
    changes what is emitted), so the code is cached once per configuration with the budget its
    generation needs, and served to any check whose budget allows that (or that has none): the
    check's, the impact analysis's and the growth re-checks' budgets all differ, and keyed by the
    budget a cold check generated 240 title-belt configurations for 153 distinct ones. A budget
    too small for it generates again, which refuses as it always did."""
    key = cache_key(model, config)
    if key is None:
        return compile(generate().text, name, "exec")
    entry = _entry(key)
    if entry is not None and (max_items is None or entry[0] <= max_items):
        return entry[1]
    generated = generate()
    code, source_key = _compiled(generated.text, name)
    _store_entry(key, generated.terms, source_key)
    return code


def _entry(key: str) -> tuple[int, CodeType] | None:
    """A configuration's cached (budget needed, code), from this process or from disk."""
    if key in _ENTRIES:
        terms, source_key = _ENTRIES[key]
    elif not caches.reads_allowed():
        return None
    else:
        try:
            with open(_path(key, "entry"), encoding="ascii") as handle:
                text_terms, source_key = handle.read().split()
            terms = int(text_terms)
        except (OSError, ValueError):
            return None
        cache_bounds.used(_path(key, "entry"))
    code = _code(source_key)
    if code is None:
        return None
    _ENTRIES[key] = (terms, source_key)
    return terms, code


def _store_entry(key: str, terms: int, source_key: str) -> None:
    """Record which code a configuration's source compiled to (a line of text: the code itself
    is stored once per source, under `source_key`)."""
    _ENTRIES[key] = (terms, source_key)
    try:
        os.makedirs(os.path.dirname(_path(key, "entry")), exist_ok=True)
        partial = f"{_path(key, 'entry')}.{os.getpid()}.tmp"
        with open(partial, "w", encoding="ascii") as handle:
            handle.write(f"{terms} {source_key}\n")
        os.replace(partial, _path(key, "entry"))
    except OSError:
        return
    cache_bounds.written(os.path.dirname(_path(key, "entry")))


def _compiled(source: str, name: str) -> tuple[CodeType, str]:
    """The compiled code of a generated source and its key: compiled once per text, since a
    third of the configurations a cold check generates come out the same as another (the
    readings they change are read by nothing the successor function computes), and compiling
    Show'n'Go's 1.3 MB source costs a second."""
    key = "source-" + hashlib.sha256(f"{sys.version}\0{name}\0{source}".encode()).hexdigest()[:32]
    code = _code(key)
    if code is not None:
        return code, key
    code = _remember(key, compile(source, name, "exec"))
    try:
        os.makedirs(os.path.dirname(_path(key)), exist_ok=True)
        partial = f"{_path(key)}.{os.getpid()}.tmp"
        with open(partial, "wb") as handle:
            handle.write(zlib.compress(marshal.dumps(code), 1))
        os.replace(partial, _path(key))
    except OSError:
        return code, key
    cache_bounds.written(os.path.dirname(_path(key)))
    return code, key


def _code(source_key: str) -> CodeType | None:
    """A source's compiled code, from this process or from disk (None: not cached)."""
    if source_key in _MEMORY:
        return _MEMORY[source_key]
    if not caches.reads_allowed():
        return None
    try:
        with open(_path(source_key), "rb") as handle:
            code = marshal.loads(zlib.decompress(handle.read()))
    except (OSError, ValueError, EOFError, TypeError, zlib.error):
        return None
    cache_bounds.used(_path(source_key))
    return _remember(source_key, code) if isinstance(code, CodeType) else None


def _path(key: str, kind: str = "bin") -> str:
    return os.path.join(caches.user_cache_root(), "python", f"{key}.{kind}")


def _remember(key: str, code: CodeType) -> CodeType:
    if len(_MEMORY) >= MEMORY_ENTRIES:
        del _MEMORY[next(iter(_MEMORY))]
    _MEMORY[key] = code
    return code
