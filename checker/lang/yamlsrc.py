"""YAML loading that remembers where every value came from.

PyYAML's composer gives each node its position; we build plain dicts, lists and scalars from
the nodes and keep the position of every key and value beside them, so that any later error
(an unknown name deep inside an expression) can point at file, line and column. Duplicate keys,
which PyYAML silently accepts, are rejected here.
"""

from __future__ import annotations

import hashlib
import os
import re
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import yaml

from checker.errors import Loc, RulecheckError


class _Loader(yaml.SafeLoader):
    """SafeLoader with YAML 1.2 booleans: only true/false (any case) are booleans, so that
    words designers write (yes, no, on, off) stay words; dates stay text too."""


_DROPPED = {"tag:yaml.org,2002:bool", "tag:yaml.org,2002:timestamp"}
_Loader.yaml_implicit_resolvers = {
    first: [(tag, regexp) for tag, regexp in resolvers if tag not in _DROPPED]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}
_Loader.add_implicit_resolver("tag:yaml.org,2002:bool", re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"), list("tTfF"))

_FastLoader: type[yaml.SafeLoader] | None = None
if getattr(yaml, "__with_libyaml__", False):

    class _CLoader(yaml.CSafeLoader):
        """`_Loader`'s resolvers over libyaml's scanner and parser: the same nodes (a plain
        scalar's style is '' there, None in PyYAML), ten times faster, in every process that
        loads the models. A text libyaml refuses is composed again by `_Loader`, whose error
        messages and positions the designer sees."""

    _CLoader.yaml_implicit_resolvers = _Loader.yaml_implicit_resolvers
    _FastLoader = _CLoader  # type: ignore[assignment]


class YMap(dict):
    """A mapping that knows the location of itself, its keys and its values."""

    loc: Loc
    key_locs: dict[Any, Loc]
    value_locs: dict[Any, Loc]

    def key_loc(self, key: Any) -> Loc:
        return self.key_locs.get(key, self.loc)

    def value_loc(self, key: Any) -> Loc:
        return self.value_locs.get(key, self.loc)


class YList(list):
    """A sequence that knows the location of itself and of each item."""

    loc: Loc
    item_locs: list[Loc]

    def item_loc(self, index: int) -> Loc:
        return self.item_locs[index] if index < len(self.item_locs) else self.loc


def _loc(path: str, node: yaml.Node) -> Loc:
    mark = node.start_mark
    col = mark.column + 1
    if isinstance(node, yaml.ScalarNode) and node.style in ("'", '"'):
        col += 1  # point at the first character inside the quotes
    return Loc(path, mark.line + 1, col)


MAX_BYTES = 4 * 1024 * 1024  # the largest bundled file is about 50 KB
MAX_NESTING = 100  # mappings and lists inside each other; bundled models nest under 10 deep
MAX_VALUES = 200_000  # values after expanding aliases; bundled files hold a few thousand
STANDARD_TAGS = {f"tag:yaml.org,2002:{name}" for name in ("str", "int", "bool", "null", "float", "map", "seq")}
LEADING_ZERO = re.compile(r"[-+]?0[0-9_]+")
SEXAGESIMAL = re.compile(r"[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+")


class _Builder:
    """Builds located values from composed nodes, refusing what YAML allows but a model must
    not contain: language-specific tags, YAML 1.1 number forms, alias expansions beyond
    MAX_VALUES (an alias bomb is a few lines that expand to billions of values)."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.scalars = _Loader("")
        self.built = 0

    def build(self, node: yaml.Node) -> Any:
        self.check(node)
        if isinstance(node, yaml.MappingNode):
            return self._mapping(node)
        if isinstance(node, yaml.SequenceNode):
            out = YList(self.build(item) for item in node.value)
            out.loc = _loc(self.path, node)
            out.item_locs = [_loc(self.path, item) for item in node.value]
            return out
        value = self.scalar(node)
        if isinstance(value, float):
            raise RulecheckError(
                "numbers in models are integers", _loc(self.path, node), str(node.value),
                'use a whole number (a `value` property\'s expected score is a string: value: "1/2")',
            )
        return value

    def scalar(self, node: yaml.Node) -> Any:
        try:
            return self.scalars.construct_object(node, deep=True)
        except yaml.YAMLError as exc:
            raise RulecheckError(f"cannot read this value: {getattr(exc, 'problem', None) or exc}", _loc(self.path, node), str(node.value)[:60]) from None

    def check(self, node: yaml.Node) -> None:
        self.built += 1
        if self.built > MAX_VALUES:
            raise RulecheckError(f"the document expands to more than {MAX_VALUES:,} values", _loc(self.path, node), None, "YAML aliases (`*name`) are expanded; a model does not need them")
        if node.tag not in STANDARD_TAGS:
            raise RulecheckError(f"YAML tag `{node.tag}` is not allowed in a model", _loc(self.path, node), None, "remove the `!`-tag; models hold plain mappings, lists, names, numbers and true/false")
        if isinstance(node, yaml.ScalarNode) and not node.style and node.tag == "tag:yaml.org,2002:int":
            digits = sum(c.isdigit() for c in node.value)
            if digits > MAX_DIGITS:
                raise RulecheckError(f"an integer of {digits:,} digits: numbers in a model have at most {MAX_DIGITS:,}", _loc(self.path, node), node.value[:40] + "...")
            if SEXAGESIMAL.fullmatch(node.value):
                raise RulecheckError(f"`{node.value}` is read by YAML as a base-60 number", _loc(self.path, node), node.value, "write the number you mean, or quote the text")
            if LEADING_ZERO.fullmatch(node.value):
                raise RulecheckError(f"`{node.value}` has a leading zero, which YAML reads as octal", _loc(self.path, node), node.value, f"write {node.value.lstrip('+-').lstrip('0_') or '0'}")

    def _mapping(self, node: yaml.MappingNode) -> YMap:
        out = YMap()
        out.loc = _loc(self.path, node)
        out.key_locs = {}
        out.value_locs = {}
        for key_node, value_node in node.value:
            if not isinstance(key_node, yaml.ScalarNode):
                raise RulecheckError("a mapping key must be a plain name", _loc(self.path, key_node))
            self.check(key_node)
            key = self.scalar(key_node)
            if key in out:
                first = out.key_locs[key]
                raise RulecheckError(
                    f"duplicate key `{key}` (first defined at line {first.line})",
                    _loc(self.path, key_node), str(key),
                    "YAML keeps only the last of duplicate keys; merge or rename them",
                )
            out[key] = self.build(value_node)
            out.key_locs[key] = _loc(self.path, key_node)
            out.value_locs[key] = _loc(self.path, value_node)
        return out


MAX_DIGITS = 1000  # digits of an integer in a model or expression (Python refuses to read more than 4,300)
_RECORDERS: list[dict[str, str]] = []  # the reads being recorded (`recording_reads`), innermost last
ABSENT = "absent"  # what a recorder holds for an optional file that was looked for and not found


@contextmanager
def recording_reads() -> Iterator[dict[str, str]]:
    """Every file read (`read_text`) or looked for (`present`) inside the block, by absolute
    path: the SHA-256 of the bytes read, or `ABSENT`. A model's cache keys are made from exactly
    this (`Model.sources`), so no input the loader read can be left out of them, by
    construction: a fragment, a base in another folder, the clause index, the questions file."""
    reads: dict[str, str] = {}
    _RECORDERS.append(reads)
    try:
        yield reads
    finally:
        _RECORDERS.pop()


def _record(path: str, digest: str) -> None:
    for reads in _RECORDERS:
        reads[os.path.abspath(path)] = digest


def present(path: str) -> bool:
    """Whether an optional input file (a clause index, a questions file, a property suite)
    exists, recorded either way: adding one later must change every key made from the reads."""
    found = os.path.isfile(path)
    if not found:
        _record(path, ABSENT)
    return found


def regular_file(path: str) -> bool:
    """A regular file (not a FIFO, a device or a folder, which reading could block on or
    misread); symbolic links are followed."""
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except OSError:
        return False


def read_text(path: str, what: str = "file") -> str:
    """A file's text, refusing what is not a small UTF-8 text file with a located message."""
    if os.path.exists(path) and not regular_file(path):
        raise RulecheckError(f"cannot read {what}: not a regular file", Loc(path, 1, 1), None, "a model, suite or trace is a plain text file")
    try:
        with open(path, "rb") as handle:
            data = handle.read(MAX_BYTES + 1)
    except OSError as exc:
        raise RulecheckError(f"cannot read {what}: {exc.strerror}", Loc(path, 1, 1)) from None
    if _RECORDERS:
        _record(path, hashlib.sha256(data).hexdigest())
    if len(data) > MAX_BYTES:
        raise RulecheckError(f"the {what} is larger than {MAX_BYTES // (1024 * 1024)} MB", Loc(path, 1, 1), None, "a model or trace file is text of a few hundred KB at most")
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise RulecheckError(f"the {what} is UTF-16 encoded", Loc(path, 1, 1), None, "save it as UTF-8")
    if b"\x00" in data:
        raise RulecheckError(f"the {what} is binary (it contains a NUL byte)", _byte_loc(path, data, data.index(b"\x00")), None, "expected a UTF-8 text file")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise RulecheckError(f"the {what} is not UTF-8 (byte 0x{data[exc.start]:02x})", _byte_loc(path, data, exc.start), None, "save it as UTF-8") from None


def _byte_loc(path: str, data: bytes, offset: int) -> Loc:
    line_start = data.rfind(b"\n", 0, offset) + 1
    return Loc(path, data.count(b"\n", 0, offset) + 1, offset - line_start + 1)


def _check_nesting(path: str, text: str, loader: type[yaml.SafeLoader] = _Loader) -> None:
    """Refuse deep nesting before composing: both composers recurse once per level."""
    depth = 0
    for event in yaml.parse(text, Loader=loader):
        if isinstance(event, (yaml.MappingStartEvent, yaml.SequenceStartEvent)):
            depth += 1
            if depth > MAX_NESTING:
                mark = event.start_mark
                assert mark is not None  # a parsed event carries its position
                raise RulecheckError(f"mappings and lists nested more than {MAX_NESTING} deep", Loc(path, mark.line + 1, mark.column + 1))
        elif isinstance(event, (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
            depth -= 1


_COMPOSED: dict[tuple[str, str], yaml.Node] = {}  # (path, text) -> its node tree, read only
COMPOSED_ENTRIES = 256


def load_yaml(path: str, text: str | None = None) -> Any:
    """Parse one YAML document into YMap/YList/scalars with locations.

    A file is composed once per process and text: a game's base model and clause index are
    read again for every variant, and PyYAML's pure-Python scanner made that most of the time
    of checking a small model. The located values are built afresh from the node tree each
    time (callers may change them); the tree itself is only read."""
    if text is None:
        text = read_text(path)
    node = _COMPOSED.get((path, text))
    if node is None:
        node = _compose(path, text)
        if len(_COMPOSED) >= COMPOSED_ENTRIES:
            del _COMPOSED[next(iter(_COMPOSED))]
        _COMPOSED[(path, text)] = node
    return _Builder(path).build(node)


def _compose(path: str, text: str) -> yaml.Node:
    node: Any = _compose_fast(path, text) if _FastLoader is not None else _REFUSED  # a node tree, None or `_REFUSED`
    if node is _REFUSED:
        node = _compose_plain(path, text)
    if node is None:
        raise RulecheckError("the file is empty", Loc(path, 1, 1))
    return node


_REFUSED = object()  # what `_compose_fast` gives for a text libyaml refuses


def _compose_fast(path: str, text: str) -> Any:
    """The node tree libyaml composes (None: an empty document), or `_REFUSED`."""
    assert _FastLoader is not None
    try:
        _check_nesting(path, text, _FastLoader)
        return yaml.compose(text, Loader=_FastLoader)
    except yaml.YAMLError:
        return _REFUSED


def _compose_plain(path: str, text: str) -> yaml.Node | None:
    """The node tree PyYAML composes (None: an empty document), its errors in located words."""
    try:
        _check_nesting(path, text)
        return yaml.compose(text, Loader=_Loader)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        loc = Loc(path, mark.line + 1, mark.column + 1) if mark else Loc(path, 1, 1)
        line = text.splitlines()[mark.line] if mark and mark.line < len(text.splitlines()) else None
        raise RulecheckError(
            f"malformed YAML: {exc.problem or exc.context}", loc, line.strip() if line else None,
            "check indentation and that every `key: value` has a space after the colon",
        ) from None
    except yaml.YAMLError as exc:  # a reader error: a character YAML does not allow
        mark = getattr(exc, "position", None)
        loc = _byte_loc(path, text.encode("utf-8"), len(text[:mark].encode("utf-8"))) if isinstance(mark, int) else Loc(path, 1, 1)
        raise RulecheckError(f"not a YAML text file: {getattr(exc, 'reason', exc)}", loc) from None
