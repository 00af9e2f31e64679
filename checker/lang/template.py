"""Action `text:` templates: `{name}` replaced by a parameter, a scalar slot or `by`.

Deliberately not `str.format`: a format string can look up attributes (`{p.__class__}`), index
objects and pad a field to any width (`{p:>999999999}`), so a model file could run code paths or
allocate gigabytes while a trace is narrated. Here a field is a bare name and nothing else;
`{{` and `}}` write literal braces. Fields are checked when the model is loaded.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

from checker.errors import Loc, RulecheckError, did_you_mean

_PIECE = re.compile(r"\{\{|\}\}|\{([^{}]*)\}|[{}]")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def template_fields(template: str, loc: Loc, known: Iterable[str]) -> list[str]:
    """The names a template fills in; a located error for anything else inside braces."""
    names = set(known)
    out = []
    for match in _PIECE.finditer(template):
        piece = match.group(0)
        if piece in ("{{", "}}"):
            continue
        field = match.group(1)
        if field is None:
            raise RulecheckError("a lone brace in `text`", loc, template, "write `{{` or `}}` for a literal brace")
        if not _NAME.fullmatch(field):
            raise RulecheckError(f"`{{{field}}}` in `text` is not a field name", loc, template, "a field is `{name}`: a parameter, a scalar slot, or `by`")
        if field not in names:
            raise RulecheckError(f"`text` names an unknown field `{field}`", loc, template, did_you_mean(field, names) or f"fields: {', '.join(sorted(names))}")
        out.append(field)
    return out


def fill(template: str, values: Mapping[str, object]) -> str:
    """The template with each `{name}` replaced by its value (unknown names are left as written)."""

    def replace(match: re.Match) -> str:
        piece = match.group(0)
        if piece in ("{{", "}}"):
            return piece[0]
        field = match.group(1)
        return str(values[field]) if field in values else piece

    return _PIECE.sub(replace, template)
