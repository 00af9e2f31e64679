"""Reading saved traces back (for `rulecheck explain`)."""

from __future__ import annotations

import json

from checker.errors import Loc, RulecheckError
from checker.trace import TRACE_FORMAT, TRACE_VERSION, narrative


def load_trace(path: str) -> dict:
    try:
        with open(path, encoding="utf-8") as handle:
            doc = json.load(handle)
    except OSError as exc:
        raise RulecheckError(f"cannot read trace: {exc.strerror}", Loc(path, 1, 1)) from None
    except json.JSONDecodeError as exc:
        raise RulecheckError(f"not a JSON file: {exc.msg}", Loc(path, exc.lineno, exc.colno)) from None
    if not isinstance(doc, dict) or doc.get("format") != TRACE_FORMAT:
        raise RulecheckError("not a rulecheck trace (no `format: rulecheck-trace`)", Loc(path, 1, 1), hint="explain reads the .json files rulecheck writes to counterexamples/")
    if doc.get("version") != TRACE_VERSION:
        raise RulecheckError(f"trace format version {doc.get('version')} is not supported (this rulecheck reads version {TRACE_VERSION})", Loc(path, 1, 1))
    return doc


def load_trace_narrative(path: str) -> str:
    return narrative(load_trace(path))
