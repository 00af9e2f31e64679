"""A cache of the generated successor code, so a model configuration is generated and compiled
by Python once per machine, not once per run.

Generating and compiling a large model's successor function costs about a second per reading
combination (Show'n'Go's senior model: 1.3 MB of source, 517 action instances), a quarter of
the bundled check's time. The cache key is computed from what the code is generated from,
without generating it: the checker's own code, every YAML file of the model's folder and of the
folders of what it extends (the model, its bases, its clauses), the model, the configuration and the state budget (which bounds
the enumerations made while generating; code generated within a budget is also the code without
one, and is cached under that key too). The value is the compiled code object (marshal,
zlib-compressed: about 80 KB for that model), kept in memory for the rest of the process and on
disk under `$RULECHECK_CACHE` (default `~/.cache/rulecheck`) in `python/`. A cache that cannot
be read or written is ignored: the code is generated as without it.
"""

from __future__ import annotations

import glob
import hashlib
import marshal
import os
import sys
import zlib
from collections.abc import Callable
from types import CodeType

from checker.errors import RulecheckError
from checker.lang.model import Config, Model

_MEMORY: dict[str, CodeType] = {}
MEMORY_ENTRIES = 32  # code objects kept in the process (a large model's is about 2 MB)
_CODE_DIGEST: str | None = None


def cache_root() -> str:
    return os.environ.get("RULECHECK_CACHE") or os.path.join(os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "rulecheck")


def code_digest() -> str:
    """The checker's code, once per process: any change to it may change the generated code."""
    global _CODE_DIGEST
    if _CODE_DIGEST is None:
        digest = hashlib.sha256(sys.version.encode())
        package = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        for path in sorted(glob.glob(os.path.join(package, "**", "*.py"), recursive=True)):
            digest.update(os.path.relpath(path, package).encode())
            with open(path, "rb") as handle:
                digest.update(handle.read())
        _CODE_DIGEST = digest.hexdigest()
    return _CODE_DIGEST


def _model_folders(path: str) -> list[str]:
    """The folders of the model file and of every file its `extends` chain names (a base may
    live in another folder); each holds YAML the model may be built from."""
    folders: list[str] = []
    seen: set[str] = set()
    current: str | None = os.path.abspath(path)
    while current is not None and current not in seen and os.path.isfile(current):
        seen.add(current)
        folders.append(os.path.dirname(current))
        parent = _extends(current)
        current = os.path.normpath(os.path.join(os.path.dirname(current), parent)) if isinstance(parent, str) else None
    return sorted(set(folders))


_EXTENDS: dict[tuple[str, str], object] = {}  # (path, text) -> the file's `extends` value
EXTENDS_ENTRIES = 256


def _extends(path: str) -> object:
    """A model file's `extends` value, read once per process and text of the file: every cache
    key and native index record asks for it (several times per exploration), and building the
    file's located values afresh each time (`load_yaml`) cost about 8 ms a call, a title-belt check
    making some 200 to 300 calls (1.1 ms now, reading and hashing the files)."""
    from checker.lang.yamlsrc import load_yaml, read_text

    text = read_text(path)
    key = (path, text)
    if key not in _EXTENDS:
        if len(_EXTENDS) >= EXTENDS_ENTRIES:
            del _EXTENDS[next(iter(_EXTENDS))]
        _EXTENDS[key] = load_yaml(path, text).get("extends")
    return _EXTENDS[key]


def source_digest(model_path: str) -> str:
    """The YAML files a model may be built from (its folder and its `extends` chain's), as
    read here: part of the cache key, and what a cluster's workers must see the same."""
    digest = hashlib.sha256()
    for folder in _model_folders(model_path):
        for path in sorted(glob.glob(os.path.join(folder, "*.yaml"))):
            digest.update(path.encode())
            with open(path, "rb") as handle:
                digest.update(handle.read())
    return digest.hexdigest()


def cache_key(model: Model, config: Config, max_states: int | None) -> str:
    digest = hashlib.sha256(code_digest().encode())
    digest.update(source_digest(model.path).encode())
    digest.update(repr((os.path.abspath(model.path), model.id, sorted(config.constants.items()), sorted(config.readings.items()), max_states)).encode())
    return digest.hexdigest()[:32]


def successor_code(model: Model, config: Config, max_states: int | None, generate: Callable[[], str], name: str) -> CodeType:
    """The compiled successor code of a configuration: from the cache, or generated (by
    `generate`), compiled and cached. Code generated under a state budget is also cached as the
    code without one: the budget only refuses (`WorkLimit` raises, it never changes what is
    emitted), so the trace confirmations' and other budget-free `CompiledModel`s of a
    configuration the check has generated find its code (a cold Ultimate check generated every
    configuration twice)."""
    try:
        key = cache_key(model, config, max_states)
        unbounded = cache_key(model, config, None) if max_states is not None else None
    except (OSError, RulecheckError):  # a file gone or changed since the model was loaded
        return compile(generate(), name, "exec")
    if key in _MEMORY:
        return _MEMORY[key]
    path = _path(key)
    try:
        with open(path, "rb") as handle:
            code = marshal.loads(zlib.decompress(handle.read()))
        if isinstance(code, CodeType):
            if unbounded is not None:
                _remember(unbounded, code)
            return _remember(key, code)
    except (OSError, ValueError, EOFError, TypeError, zlib.error):
        pass
    code, stored = _compiled(generate(), name)
    if stored is not None:  # the same bytes under the configuration's names, not stored again
        _link(stored, path)
        if unbounded is not None and not os.path.exists(_path(unbounded)):
            _link(stored, _path(unbounded))
    if unbounded is not None:
        _remember(unbounded, code)
    return _remember(key, code)


def _compiled(source: str, name: str) -> tuple[CodeType, str | None]:
    """The compiled code of a generated source, and the cache file holding it (None when it
    cannot be written): compiled once per text, since a third of the configurations a cold
    check generates come out the same as another (the readings they change are read by nothing
    the successor function computes), and compiling Show'n'Go's 1.3 MB source costs a second."""
    key = "source-" + hashlib.sha256(f"{sys.version}\0{name}\0{source}".encode()).hexdigest()[:32]
    path = _path(key)
    if key in _MEMORY:
        return _MEMORY[key], path if os.path.exists(path) else None
    try:
        with open(path, "rb") as handle:
            code = marshal.loads(zlib.decompress(handle.read()))
        if isinstance(code, CodeType):
            return _remember(key, code), path
    except (OSError, ValueError, EOFError, TypeError, zlib.error):
        pass
    code = _remember(key, compile(source, name, "exec"))
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        partial = f"{path}.{os.getpid()}.tmp"
        with open(partial, "wb") as handle:
            handle.write(zlib.compress(marshal.dumps(code), 1))
        os.replace(partial, path)
    except OSError:
        return code, None
    return code, path


def _link(stored: str, path: str) -> None:
    """`path` made another name of the cache file `stored` (nothing when it cannot be)."""
    try:
        partial = f"{path}.{os.getpid()}.tmp"
        os.link(stored, partial)
        os.replace(partial, path)
    except OSError:
        pass


def _path(key: str) -> str:
    return os.path.join(cache_root(), "python", f"{key}.bin")


def _remember(key: str, code: CodeType) -> CodeType:
    if len(_MEMORY) >= MEMORY_ENTRIES:
        del _MEMORY[next(iter(_MEMORY))]
    _MEMORY[key] = code
    return code
