"""Errors a user can act on.

Every problem in a model or on the command line is reported as one `RulecheckError` naming the
file, line and column, the offending text, what was expected and, where obvious, a fix. The CLI
prints it and exits with status 2; tracebacks appear only with --debug.
"""

from __future__ import annotations

import difflib
import os
import sys
from collections.abc import Iterable
from dataclasses import dataclass


def shown_path(path: str) -> str:
    """A file as messages name it: relative to the working directory when it lies below it (a
    property file found from a model's folder is read by its absolute path, a model by the path
    given), as given otherwise; so every message names files the same way."""
    if os.path.isabs(path):
        try:
            relative = os.path.relpath(path)
        except ValueError:  # another drive
            return path
        if not relative.startswith(os.pardir):
            return relative
    return path


@dataclass(frozen=True)
class Loc:
    """A position in a source file (1-based line and column)."""

    file: str
    line: int
    col: int

    def __str__(self) -> str:
        return f"{shown_path(self.file)}:{self.line}:{self.col}"

    def shifted(self, lines: int, col: int) -> Loc:
        """The position `lines` lines below and, on the first line, `col` columns right."""
        if lines == 0:
            return Loc(self.file, self.line, self.col + col)
        return Loc(self.file, self.line + lines, col + 1)


class RulecheckError(Exception):
    """A user-facing error: bad model, bad property, bad command-line value."""

    def __init__(
        self,
        message: str,
        loc: Loc | None = None,
        text: str | None = None,
        hint: str | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.loc = loc
        self.text = text
        self.hint = hint

    def render(self) -> str:
        where = f"{self.loc}: " if self.loc else ""
        lines = [f"{where}error: {self.message}"]
        if self.text:
            lines.append(f"    {self.text}")
        if self.hint:
            lines.append(f"  hint: {self.hint}")
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.render()

    def __reduce__(self) -> tuple:
        # keep the location and hint when the error crosses from a worker process
        return (type(self), (self.message, self.loc, self.text, self.hint))


class ModellingError(Exception):
    """A run-time fault of the model itself: a write outside a slot's range, a division by
    zero, an index outside its domain. The engine reports it with the trace that reached it."""

    def __init__(self, message: str, loc: Loc | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.loc = loc  # where the failing expression or assignment is written
        self.action: str | None = None  # the action being tried, with its parameters
        self.params: dict[str, object] = {}

    def located(self) -> str:
        """`file:line:col: error: ...` naming the action and its parameters when known."""
        where = f"{self.loc}: " if self.loc else ""
        params = ", ".join(f"{k}={v}" for k, v in self.params.items())
        doing = f" (while trying action `{self.action}`{f' with {params}' if params else ''})" if self.action else ""
        return f"{where}error: modelling error: {self.message}{doing}"


def did_you_mean(name: str, candidates: Iterable[str]) -> str | None:
    """A 'did you mean' hint for a misspelt name, or None when nothing is close."""
    close = difflib.get_close_matches(name, sorted(set(candidates)), n=1, cutoff=0.6)
    return f"did you mean `{close[0]}`?" if close else None


def warn(message: str, loc: Loc | None = None) -> None:
    """A located warning on stderr: something accepted that is probably not what was meant."""
    where = f"{loc}: " if loc else ""
    print(f"{where}warning: {message}", file=sys.stderr)
