"""Reading saved traces back (for `rulecheck explain`)."""

from __future__ import annotations

import json

from checker.errors import Loc, RulecheckError
from checker.lang.yamlsrc import read_text
from checker.trace import TRACE_FORMAT, TRACE_VERSION, narrative


def load_trace(path: str) -> dict:
    text = read_text(path, "trace")  # refuses binary, non-UTF-8 and oversized files, located
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        raise RulecheckError(f"not a JSON file: {exc.msg}", Loc(path, exc.lineno, exc.colno)) from None
    except RecursionError:
        raise RulecheckError("not a trace: JSON nested too deeply", Loc(path, 1, 1)) from None
    if not isinstance(doc, dict) or doc.get("format") != TRACE_FORMAT:
        raise RulecheckError("not a rulecheck trace (no `format: rulecheck-trace`)", Loc(path, 1, 1), hint="explain reads the .json files rulecheck writes to counterexamples/")
    if doc.get("version") != TRACE_VERSION:
        raise RulecheckError(f"trace format version {doc.get('version')} is not supported (this rulecheck reads version {TRACE_VERSION})", Loc(path, 1, 1))
    return doc


def load_trace_narrative(path: str) -> str:
    return narrative(load_trace(path))
