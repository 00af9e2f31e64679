"""Writing counterexamples to `counterexamples/<game>/`: one file per distinct trace.

Most readings do not touch the play that breaks a property, so the same trace witnesses many
(variant, reading) combinations. Each distinct trace is written once, as
`<property>.<hash>.json` where the hash is of the play itself (the trace without the variant,
readings and constants it was found under), and the file lists every combination it witnesses.
Inside, each clause quote is written once in a `clauses` table and steps cite clause ids; a step's
changes are `[element, before, after]` triples; `trace_document` turns the file back into the
project's trace format (docs/traces.md), which `rulecheck explain` narrates. No Markdown
rendering is written: `rulecheck explain` rebuilds it.

Writes are atomic and skipped when the bytes would not change, so the same run writes identical
files. A full run prunes the files of its games that it no longer produces, and only files the
checker writes (evidence files, and trace files of the former one-per-combination layout).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from typing import Any

from checker.results import Result
from checker.trace import to_itf, to_json

EVIDENCE_FORMAT = "rulecheck-evidence"
EVIDENCE_VERSION = 1
_HASH = 12
_OURS = re.compile(r"^[A-Za-z0-9_-]+\.[0-9a-f]{" + str(_HASH) + r"}\.(json|itf\.json)$")
_PER_COMBINATION = (".json", ".md", ".itf.json")  # the former layout: <model>.<property>.<reading>.*
_NOT_THE_PLAY = ("model", "readings", "constants")
_ONE_LINE = ("property", "readings", "constants", "initial")  # small records, each on one line


def trace_identity(doc: dict[str, Any]) -> str:
    """The hash of a trace's play: what the players did and saw, not where it was found."""
    play = {k: v for k, v in doc.items() if k not in _NOT_THE_PLAY}
    return hashlib.sha256(json.dumps(play, sort_keys=True, default=str).encode()).hexdigest()[:_HASH]


def evidence_name(result: Result) -> str:
    """The file name (in the game's folder) of the evidence of a failing result with a trace."""
    assert result.trace is not None
    return f"{result.prop.id}.{trace_identity(to_json(result.trace))}.json"


def evidence_path(out_dir: str, result: Result) -> str:
    return os.path.join(out_dir, result.model.folder, evidence_name(result))


def write_evidence(results: list[Result], out_dir: str, itf: bool = False, prune: bool = True) -> list[str]:
    """Write one file per distinct trace; returns the paths written (or already up to date)."""
    groups: dict[str, list[tuple[Result, dict[str, Any]]]] = {}
    for result in results:
        if result.trace is not None:
            doc = to_json(result.trace)
            path = os.path.join(out_dir, result.model.folder, f"{result.prop.id}.{trace_identity(doc)}.json")
            groups.setdefault(path, []).append((result, doc))
    written: list[str] = []
    for path in sorted(groups):
        witnesses = [_witness(r) for r, _ in groups[path]]
        if not prune:
            witnesses += _existing_witnesses(path)
        witnesses = sorted({json.dumps(w, sort_keys=True): w for w in witnesses}.values(), key=lambda w: (w["variant"], w["reading"]))
        representative = min(groups[path], key=lambda pair: (pair[0].model.id, pair[0].reading_label))
        os.makedirs(os.path.dirname(path), exist_ok=True)
        _write_if_changed(path, _dump(evidence_document(representative[0], representative[1], witnesses)))
        written.append(path)
        if itf:
            itf_path = path[: -len(".json")] + ".itf.json"
            _write_if_changed(itf_path, json.dumps(to_itf(representative[0].trace), indent=1, default=str) + "\n")
            written.append(itf_path)
    if prune:
        _prune(results, out_dir, set(written), itf)
    return written


def _witness(result: Result) -> dict[str, Any]:
    return {"variant": result.model.id, "reading": result.reading_label, "readings": dict(sorted(result.config.readings.items()))}


def evidence_document(result: Result, doc: dict[str, Any], witnesses: list[dict[str, Any]]) -> dict[str, Any]:
    trace = json.loads(json.dumps(doc, default=str))  # a deep copy, with values as JSON has them
    quotes: dict[str, str] = {}
    for step in trace["steps"] + trace["branches"]:
        step["clauses"] = [_cite(c, quotes) for c in step.get("clauses", [])]
        step["changes"] = [_triple(c) for c in step.get("changes", [])]
    return {
        "format": EVIDENCE_FORMAT, "version": EVIDENCE_VERSION, "game": result.model.folder,
        "property": trace["property"], "witnesses": witnesses, "clauses": dict(sorted(quotes.items())), "trace": trace,
    }


def _cite(clause: Any, quotes: dict[str, str]) -> Any:
    if isinstance(clause, dict) and set(clause) == {"id", "says"}:
        quotes[clause["id"]] = clause["says"]
        return clause["id"]
    return clause


def _triple(change: Any) -> Any:
    if isinstance(change, dict) and set(change) == {"element", "before", "after"}:
        return [change["element"], change["before"], change["after"]]
    return change


def trace_document(evidence: dict[str, Any]) -> dict[str, Any]:
    """The trace of an evidence file in the project's trace format (the inverse of the packing)."""
    trace = json.loads(json.dumps(evidence["trace"]))
    quotes = evidence.get("clauses", {})
    for step in trace["steps"] + trace["branches"]:
        step["clauses"] = [{"id": c, "says": quotes.get(c, "")} if isinstance(c, str) else c for c in step["clauses"]]
        step["changes"] = [{"element": c[0], "before": c[1], "after": c[2]} if isinstance(c, list) else c for c in step["changes"]]
    return trace


def _existing_witnesses(path: str) -> list[dict[str, Any]]:
    """The witnesses an earlier run recorded in the same file (a partial run only adds to them)."""
    try:
        with open(path, encoding="utf-8") as handle:
            doc = json.load(handle)
    except (OSError, json.JSONDecodeError):
        return []
    return list(doc.get("witnesses", [])) if isinstance(doc, dict) and doc.get("format") == EVIDENCE_FORMAT else []


def _dump(doc: dict[str, Any]) -> str:
    """JSON with one line per step (and per witness, and for the initial state), so a file stays
    small and a diff shows which step changed."""
    rows: dict[str, str] = {}

    def placeholder(item: Any) -> str:
        key = f"\u0000{len(rows)}\u0000"
        rows[key] = json.dumps(item, ensure_ascii=False, default=str)
        return key

    def pack(key: str, value: Any) -> Any:
        if key in ("steps", "branches", "witnesses"):
            return [placeholder(item) for item in value]
        return placeholder(value) if key in _ONE_LINE else value

    packed = {k: pack(k, v) for k, v in doc.items()}
    packed["trace"] = {k: pack(k, v) for k, v in doc["trace"].items()}
    text = json.dumps(packed, indent=1, ensure_ascii=False, default=str)
    for key, row in rows.items():
        text = text.replace(json.dumps(key), row, 1)
    return text + "\n"


def _prune(results: list[Result], out_dir: str, keep: set[str], itf: bool) -> None:
    models = {r.model.folder: set() for r in results}
    for r in results:
        models[r.model.folder].add(r.model.id)
    for folder, model_ids in models.items():
        base = os.path.join(out_dir, folder)
        if not os.path.isdir(base):
            continue
        for name in sorted(os.listdir(base)):
            path = os.path.join(base, name)
            if path in keep or (not itf and name.endswith(".itf.json")):
                continue
            former = name.split(".", 1)[0] in model_ids and name.endswith(_PER_COMBINATION)
            if _OURS.match(name) or former:
                os.remove(path)


def _write_if_changed(path: str, text: str) -> None:
    if os.path.isfile(path):
        with open(path, encoding="utf-8") as handle:
            if handle.read() == text:
                return
    tmp = f"{path}.tmp"
    with open(tmp, "w", encoding="utf-8") as handle:
        handle.write(text)
    os.replace(tmp, path)

