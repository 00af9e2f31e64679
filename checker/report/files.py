"""Writing generated files atomically, and recognising the ones the checker wrote.

A page or trace is written to a temporary file beside its target and moved over it with
`os.replace`, so a failed or interrupted write leaves the old file intact, never a truncated one.
"""

from __future__ import annotations

import json
import os
import tempfile

from checker.trace import TRACE_FORMAT

ITF_SIGNATURE = "rulecheck counterexample"


def write_if_changed(path: str, text: str) -> bool:
    """Write `text` to `path` atomically unless it already holds exactly that; True if written."""
    if os.path.isfile(path):
        with open(path, encoding="utf-8", errors="replace") as handle:
            if handle.read() == text:
                return False
    folder = os.path.dirname(path) or "."
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=f".{os.path.basename(path)}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.remove(tmp)
        raise
    return True


def _json(path: str) -> object:
    try:
        with open(path, encoding="utf-8") as handle:
            return json.load(handle)
    except (OSError, ValueError):
        return None


def is_trace_file(path: str) -> bool:
    """Whether the file is a trace the checker writes: its JSON, ITF or narrative form."""
    if path.endswith(".itf.json"):
        doc = _json(path)
        meta = doc.get("#meta") if isinstance(doc, dict) else None
        return isinstance(meta, dict) and str(meta.get("description", "")).startswith(ITF_SIGNATURE)
    if path.endswith(".json"):
        doc = _json(path)
        return isinstance(doc, dict) and doc.get("format") == TRACE_FORMAT
    if path.endswith(".md"):
        return is_trace_file(path[: -len(".md")] + ".json")
    return False
