"""A generated Markdown page shows model text as text, never as HTML.

Clause quotes, game names, assumption texts and narrations come from the model's files, and a
page is rendered by whatever Markdown viewer a designer opens it in, many of which pass raw HTML
through: a clause whose `says` holds `<img src=x onerror=...>` must show those characters, not
run them. The page's own markup is a few fixed tags (anchors, folded evidence); every other `<`
outside code is written as `&lt;` (inside code spans and fenced blocks a renderer shows the
characters as they are, so text there is left alone, as are the expressions it quotes).
"""

from __future__ import annotations

import re

# the tags the pages write themselves: exactly these, nothing with other attributes
_OWN_TAGS = re.compile(r'<a id="[A-Za-z0-9_.:-]+"></a>|</?details>|</?summary>|<br>')
_CODE_SPAN = re.compile(r"(`+)(.+?)\1")


def escaped_page(page: str) -> str:
    """`page` with every `<` of model text outside code written as `&lt;` (and `&` before it)."""
    out: list[str] = []
    fenced = False
    for line in page.split("\n"):
        if line.lstrip().startswith("```"):
            fenced = not fenced
            out.append(line)
        elif fenced:
            out.append(line)
        else:
            out.append(_escaped_line(line))
    return "\n".join(out)


def _escaped_line(line: str) -> str:
    parts: list[str] = []
    at = 0
    for span in _CODE_SPAN.finditer(line):
        parts.append(_escaped_text(line[at:span.start()]))
        parts.append(span.group(0))
        at = span.end()
    parts.append(_escaped_text(line[at:]))
    return "".join(parts)


def _escaped_text(text: str) -> str:
    if "<" not in text and "&" not in text:
        return text
    parts: list[str] = []
    at = 0
    for tag in _OWN_TAGS.finditer(text):
        parts.append(_entities(text[at:tag.start()]))
        parts.append(tag.group(0))
        at = tag.end()
    parts.append(_entities(text[at:]))
    return "".join(parts)


def _entities(text: str) -> str:
    return re.sub(r"&(?=[A-Za-z#][A-Za-z0-9]*;)", "&amp;", text).replace("<", "&lt;")
