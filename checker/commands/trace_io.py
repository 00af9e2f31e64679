"""Reading saved traces back (for `rulecheck explain` and `rulecheck verify`): evidence files,
unpacked with their game's `shared.json`, and bare traces."""

from __future__ import annotations

import json

from checker.errors import Loc, RulecheckError
from checker.evidence.trace import TRACE_FORMAT, TRACE_VERSION, narrative, plays_what
from checker.lang.yamlsrc import read_text
from checker.report.evidence_files import EVIDENCE_FORMAT, EVIDENCE_VERSION, shared_table, trace_document


def load_trace(path: str) -> dict:
    """The trace in a file, in the trace format (an evidence file's trace is unpacked)."""
    doc = _load_json(path)
    if isinstance(doc, dict) and doc.get("format") == EVIDENCE_FORMAT:
        _check_version(path, doc, EVIDENCE_VERSION)
        try:
            return trace_document(doc, shared_table(path))
        except RulecheckError as exc:
            raise RulecheckError(exc.message, Loc(path, 1, 1), hint=exc.hint) from None
        except (KeyError, TypeError, ValueError, AttributeError, IndexError) as exc:
            raise RulecheckError(f"not a valid rulecheck evidence file: {type(exc).__name__} {exc}", Loc(path, 1, 1)) from None
    if not isinstance(doc, dict) or doc.get("format") != TRACE_FORMAT:
        raise RulecheckError("not a rulecheck trace (no `format: rulecheck-evidence` or `rulecheck-trace`)", Loc(path, 1, 1), hint="explain reads the .json files rulecheck writes to counterexamples/")
    _check_version(path, doc, TRACE_VERSION)
    return doc


def _load_json(path: str) -> object:
    text = read_text(path, "trace")  # refuses binary, non-UTF-8 and oversized files, located
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise RulecheckError(f"not a JSON file: {exc.msg}", Loc(path, exc.lineno, exc.colno)) from None
    except RecursionError:
        raise RulecheckError("not a trace: JSON nested too deeply", Loc(path, 1, 1)) from None


def _check_version(path: str, doc: dict, supported: int) -> None:
    if doc.get("version") != supported:
        raise RulecheckError(f"{doc.get('format')} version {doc.get('version')} is not supported (this rulecheck reads version {supported})", Loc(path, 1, 1), hint="run `rulecheck check` again to rewrite the evidence")


def load_trace_narrative(path: str) -> str:
    """The play-by-play of a saved trace; for an evidence file, followed by every combination it witnesses."""
    doc = _load_json(path)
    trace = load_trace(path)
    text = narrative(trace)
    if isinstance(doc, dict) and doc.get("format") == EVIDENCE_FORMAT:
        combos = [f"`{w['variant']}`" + ("" if w["reading"] == "default" else f" with `{w['reading']}`") for w in doc.get("witnesses", [])]
        text += f"\nThe same play {plays_what(trace['property']['kind'], trace.get('shape'))} in {len(combos)} combination(s): {', '.join(combos)}.\n"
    return text
