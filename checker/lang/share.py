"""Common subexpressions of generated straight-line code, computed once into locals.

The generator inlines a model's definitions wherever they are used, so one effect block can
spell the same large expression dozens of times (Ultimate's three-player resolution step: one
value 110,000 characters long, most of it the same few scores again and again). Python does not
share them; this pass does, on the emitted text, which spells equal expressions equally because
the generator brackets every compound expression.

Only *total* expressions are shared: built from the state `s`, the field reads `s_N`, integer
literals, arithmetic, comparisons, `and`/`or`/`not`, conditional expressions, `bool`, `min`,
`max`, `abs` and constant tables indexed by such expressions; nothing that can raise a modelling
error (`_ix`, `_div`, `_pick`, `_fail`, hoisted helpers, which all carry a message string or an
underscore name). The generator emits a bare `//` or `%` only for a constant divisor other than
0, and indexes tables only by enum values, whose encoding always fits. Computing a total
expression earlier, or where a short-circuit would have skipped it, changes neither a value nor
which error is raised first, so the moves and errors stay exactly as they were.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections import defaultdict

MIN_CHARS = 20  # shorter expressions (a field read is 15 characters) cost about what a local does
_TOKENS = re.compile(r"[()\n]|\b(?:and|or|if|else)\b")
_STRING = re.compile(r"'(?:[^'\\\n]|\\.)*'|\"(?:[^\"\\\n]|\\.)*\"")
_WORD = re.compile(r"[A-Za-z_]\w*")
_TOTAL_WORDS = frozenset({"s", "and", "or", "not", "if", "else", "True", "False", "bool", "min", "max", "abs"})
_FIELD = re.compile(r"s_\d+")
_TOTAL_CALLS = ("bool", "min", "max", "abs")


def share(lines: list[str], prefix: str = "h") -> list[str]:
    """`lines` (statements run in order, every line at the same indentation or deeper) with each
    total bracketed expression spelled at least twice, and evaluated whenever the lines run,
    computed once, into `{prefix}N`, in lines put first at the first line's indentation. The
    names must be free in the code around."""
    text = "\n".join(lines)
    code = _Scan(text)
    if not code.groups:
        return lines
    chosen = code.choose(prefix)
    if not chosen:
        return lines
    pad = lines[0][: len(lines[0]) - len(lines[0].lstrip(" "))]
    spans = sorted(((start, end, name) for name, occurrences in chosen.items() for start, end in occurrences), key=lambda t: (t[0], -t[1]))
    definitions: dict[str, str] = {}
    body = _render(text, 0, len(text), spans, definitions, 0)[0]
    # Names were given longest first, and a definition uses only shorter expressions' names.
    return [f"{pad}{name} = {definitions[name]}" for name in reversed(chosen)] + body.split("\n")


class _Scan:
    """The bracket structure of generated code: each total bracketed expression of at least
    MIN_CHARS characters with its spans, each bracket's enclosing bracket, and where each
    bracket level (and each line, outside all brackets) has `and`, `or`, `if` and `else` of its
    own, which say which of its operands are evaluated only sometimes."""

    def __init__(self, text: str) -> None:
        masked = _STRING.sub(lambda m: m.group()[0] + "_" * (len(m.group()) - 2) + m.group()[-1], text)  # brackets in messages are not code
        found: dict[str, list[tuple[int, int]]] = defaultdict(list)
        self.parent: dict[int, int] = {}  # an opening bracket's position -> its enclosing level's
        self.keywords: dict[int, list[tuple[int, str]]] = defaultdict(list)  # level -> (position, keyword)
        self.opening: dict[int, int] = {}  # an expression's start -> its opening bracket
        line = -1  # a line's level: minus one less its start
        opened: list[int] = []
        for match in _TOKENS.finditer(masked):
            token, at = match.group(), match.start()
            if token == "\n":
                line = -at - 2
            elif token == "(":
                self.parent[at] = opened[-1] if opened else line
                opened.append(at)
            elif token != ")":
                self.keywords[opened[-1] if opened else line].append((at, token))
            elif not opened:
                self.groups: dict[str, list[tuple[int, int]]] = {}
                return  # not code this pass understands: leave it alone
            else:
                start = opened.pop()
                self._group(masked, start, match.end(), found)
        self.groups = {t: spans for t, spans in found.items() if len(spans) >= 2 and _total(t)}

    def _group(self, text: str, start: int, end: int, found: dict[str, list[tuple[int, int]]]) -> None:
        """Records the expression a bracket pair closes: the bracket itself, or the call whose
        argument list it is when the callee is total (another call is not an expression here)."""
        bracket = start
        while start > 0 and (text[start - 1].isalnum() or text[start - 1] == "_"):
            start -= 1
        if start < bracket and text[start:bracket] not in _TOTAL_CALLS:
            return
        if start == bracket and start > 0 and text[start - 1] in ")]":
            return
        if end - start >= MIN_CHARS:
            self.opening[start] = bracket
            found[text[start:end]].append((start, end))

    def always_evaluated(self, start: int, hoisted: set[int]) -> bool:
        """Whether the expression at `start` is evaluated whenever its line runs: no level it is
        in puts it after an `and`, `or` or `else`, or before an `if`, of its own, up to a hoisted
        expression (whose definition is evaluated at the top) or the line."""
        level = self.parent[self.opening[start]]
        at = start
        while True:
            for position, keyword in self.keywords.get(level, ()):
                if (position < at) != (keyword == "if"):
                    return False
            if level < 0 or level in hoisted:
                return True
            at, level = level, self.parent[level]

    def choose(self, prefix: str) -> dict[str, list[tuple[int, int]]]:
        """Longest first: an expression is shared when at least two of its spans are still spelled
        out (not inside another shared expression's later copies, which become a name) and one
        of them is always evaluated, so computing it first costs nothing it would not."""
        chosen: dict[str, list[tuple[int, int]]] = {}
        dead_starts: list[int] = []  # disjoint spans whose text is gone, sorted by start
        dead_ends: list[int] = []
        hoisted: set[int] = set()  # opening brackets of the shared expressions' definitions
        for text in sorted(self.groups, key=len, reverse=True):
            live = []
            for start, end in self.groups[text]:
                k = bisect_right(dead_starts, start) - 1
                if k >= 0 and dead_ends[k] >= end:
                    continue
                live.append((start, end))
            if len(live) < 2 or not any(self.always_evaluated(start, hoisted) for start, _ in live):
                continue
            chosen[f"{prefix}{len(chosen)}"] = live
            hoisted.add(self.opening[live[0][0]])
            for start, end in live[1:]:  # the first copy stays, as the definition
                k = bisect_right(dead_starts, start)
                dead_starts.insert(k, start)
                dead_ends.insert(k, end)
        return chosen


def _total(expression: str) -> bool:
    if "'" in expression or '"' in expression:
        return False
    return all(w in _TOTAL_WORDS or _FIELD.fullmatch(w) for w in _WORD.findall(expression))


def _render(text: str, lo: int, hi: int, spans: list[tuple[int, int, str]], definitions: dict[str, str], k: int) -> tuple[str, int]:
    """text[lo:hi] with each outermost span in it replaced by its name; a span's first
    occurrence also records its own text, rendered the same way, as the name's definition.
    `spans` are sorted by start (longest first) and properly nested; returns the text and the
    index of the first span past `hi`."""
    out: list[str] = []
    at = lo
    while k < len(spans) and spans[k][0] < hi:
        start, end, name = spans[k]
        out.append(text[at:start])
        inner, k = _render(text, start, end, spans, definitions, k + 1)
        definitions.setdefault(name, inner)
        out.append(name)
        at = end
    out.append(text[at:hi])
    return "".join(out), k
