"""YAML loading that remembers where every value came from.

PyYAML's composer gives each node its position; we build plain dicts, lists and scalars from
the nodes and keep the position of every key and value beside them, so that any later error
(an unknown name deep inside an expression) can point at file, line and column. Duplicate keys,
which PyYAML silently accepts, are rejected here.
"""

from __future__ import annotations

import re
from typing import Any

import yaml

from checker.errors import Loc, RulecheckError


class _Loader(yaml.SafeLoader):
    """SafeLoader with YAML 1.2 booleans: only true/false (any case) are booleans, so that
    words designers write (yes, no, on, off) stay words."""


_Loader.yaml_implicit_resolvers = {
    first: [(tag, regexp) for tag, regexp in resolvers if tag != "tag:yaml.org,2002:bool"]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}
_Loader.add_implicit_resolver("tag:yaml.org,2002:bool", re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"), list("tTfF"))


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


class _Builder:
    def __init__(self, path: str) -> None:
        self.path = path
        self.scalars = _Loader("")

    def build(self, node: yaml.Node) -> Any:
        if isinstance(node, yaml.MappingNode):
            return self._mapping(node)
        if isinstance(node, yaml.SequenceNode):
            out = YList(self.build(item) for item in node.value)
            out.loc = _loc(self.path, node)
            out.item_locs = [_loc(self.path, item) for item in node.value]
            return out
        value = self.scalars.construct_object(node, deep=True)
        if isinstance(value, float):
            raise RulecheckError(
                "numbers in models are integers", _loc(self.path, node), str(node.value),
                "use a whole number",
            )
        return value

    def _mapping(self, node: yaml.MappingNode) -> YMap:
        out = YMap()
        out.loc = _loc(self.path, node)
        out.key_locs = {}
        out.value_locs = {}
        for key_node, value_node in node.value:
            if not isinstance(key_node, yaml.ScalarNode):
                raise RulecheckError("a mapping key must be a plain name", _loc(self.path, key_node))
            key = self.scalars.construct_object(key_node)
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


def load_yaml(path: str, text: str | None = None) -> Any:
    """Parse one YAML document into YMap/YList/scalars with locations."""
    if text is None:
        try:
            with open(path, encoding="utf-8") as handle:
                text = handle.read()
        except OSError as exc:
            raise RulecheckError(f"cannot read file: {exc.strerror}", Loc(path, 1, 1)) from None
    try:
        node = yaml.compose(text, Loader=_Loader)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        loc = Loc(path, mark.line + 1, mark.column + 1) if mark else Loc(path, 1, 1)
        line = text.splitlines()[mark.line] if mark and mark.line < len(text.splitlines()) else None
        raise RulecheckError(
            f"malformed YAML: {exc.problem or exc.context}", loc, line.strip() if line else None,
            "check indentation and that every `key: value` has a space after the colon",
        ) from None
    if node is None:
        raise RulecheckError("the file is empty", Loc(path, 1, 1))
    return _Builder(path).build(node)
