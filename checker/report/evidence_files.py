"""Writing counterexamples to `counterexamples/<game>/`: one file per distinct trace.

Most readings do not touch the play that breaks a property, so the same trace witnesses many
(variant, reading) combinations. Each distinct trace is written once, as
`<property>.<hash>.json` where the hash is of the play itself (the trace without the variant,
readings and constants it was found under), and the file lists every combination it witnesses.
Steps cite clause ids; the quotes are written once per game, in `clauses.json` beside the
traces; a step's changes are `[element, before, after]` triples. `trace_document` turns a file
back into the project's trace format (docs/traces.md), which `rulecheck explain` narrates. No
Markdown rendering is written: `rulecheck explain` rebuilds it.

Writes are atomic and skipped when the bytes would not change, so the same run writes identical
files. A full run prunes the files of its games that it no longer produces, and only files the
checker writes (evidence files, and trace files of the former one-per-combination layout); a
partial run adds its witnesses and quotes to those already recorded.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from typing import Any

from checker.results import Result
from checker.trace import Trace, to_itf, to_json

EVIDENCE_FORMAT = "rulecheck-evidence"
EVIDENCE_VERSION = 1
CLAUSES_FORMAT = "rulecheck-clauses"
CLAUSES_FILE = "clauses.json"
_HASH = 12
_OURS = re.compile(r"^[A-Za-z0-9_-]+\.[0-9a-f]{" + str(_HASH) + r"}\.(json|itf\.json)$")
_PER_COMBINATION = (".json", ".md", ".itf.json")  # the former layout: <model>.<property>.<reading>.*
_NOT_THE_PLAY = ("model", "readings", "constants")
_ONE_LINE = ("property", "readings", "constants", "initial", "step_fields")  # small records, each on one line


def trace_identity(doc: dict[str, Any]) -> str:
    """The hash of a trace's play: what the players did and saw, not where it was found."""
    play = {k: v for k, v in doc.items() if k not in _NOT_THE_PLAY}
    return hashlib.sha256(json.dumps(play, sort_keys=True, default=str).encode()).hexdigest()[:_HASH]


def evidence_name(result: Result, trace: Trace | None = None) -> str:
    """The file name (in the game's folder) of a result's trace (default: its counterexample)."""
    trace = trace or result.trace
    assert trace is not None
    return f"{result.prop.id}.{trace_identity(to_json(trace))}.json"


def evidence_path(out_dir: str, result: Result, trace: Trace | None = None) -> str:
    return os.path.join(out_dir, result.model.folder, evidence_name(result, trace))


def saved_traces(result: Result, all_witnesses: bool = False) -> list[Trace]:
    """The traces of a result that are written: its counterexample, and the witnesses of a
    `reachable` that holds when its property says `witness: true` or the run asks for them
    (`check --witnesses`): the bundled evidence stays the counterexamples and the few witnesses
    a suite chose (docs/traces.md)."""
    traces = [result.trace] if result.trace is not None else []
    if all_witnesses or result.prop.witness:
        traces += result.witnesses
    return traces


def write_evidence(results: list[Result], out_dir: str, itf: bool = False, prune: bool = True, all_witnesses: bool = False) -> list[str]:
    """Write one file per distinct trace and each game's clause quotes; returns the paths written
    (or already up to date)."""
    groups: dict[str, list[tuple[Result, Trace, dict[str, Any]]]] = {}
    for result in results:
        for trace in saved_traces(result, all_witnesses):
            doc = to_json(trace)
            path = os.path.join(out_dir, result.model.folder, f"{result.prop.id}.{trace_identity(doc)}.json")
            groups.setdefault(path, []).append((result, trace, doc))
    written: list[str] = []
    quotes: dict[str, dict[str, dict[str, str]]] = {}
    for path in sorted(groups):
        witnesses = [_witness(r) for r, _, _ in groups[path]]
        if not prune:
            witnesses += _recorded(path, EVIDENCE_FORMAT, "witnesses", [])
        witnesses = sorted({json.dumps(w, sort_keys=True): w for w in witnesses}.values(), key=lambda w: (w["variant"], w["reading"]))
        result, trace, doc = min(groups[path], key=lambda item: (item[0].model.id, item[0].reading_label))
        os.makedirs(os.path.dirname(path), exist_ok=True)
        _write_if_changed(path, _dump(evidence_document(result, doc, witnesses, quotes.setdefault(os.path.dirname(path), {}))))
        written.append(path)
        if itf:
            itf_path = path[: -len(".json")] + ".itf.json"
            _write_if_changed(itf_path, json.dumps(to_itf(trace), indent=1, default=str) + "\n")
            written.append(itf_path)
    for folder, table in sorted(quotes.items()):
        path = os.path.join(folder, CLAUSES_FILE)
        if not prune:
            table = {**_recorded(path, CLAUSES_FORMAT, "clauses", {}), **table}
        doc = {"format": CLAUSES_FORMAT, "version": EVIDENCE_VERSION, "clauses": dict(sorted(table.items()))}
        _write_if_changed(path, json.dumps(doc, indent=1, ensure_ascii=False) + "\n")
        written.append(path)
    if prune:
        _prune(results, out_dir, set(written), itf)
    return written


def _witness(result: Result) -> dict[str, Any]:
    return {"variant": result.model.id, "reading": result.reading_label}


def evidence_document(result: Result, doc: dict[str, Any], witnesses: list[dict[str, Any]], quotes: dict[str, dict[str, str]]) -> dict[str, Any]:
    """The evidence file of a trace; the quotes its steps cite are added to `quotes`.

    Steps are packed: clause ids for quotes, `[element, before, after]` for changes, and, when
    every step has the same fields, each step as the list of its values in the order `step_fields`
    names (the field names would otherwise be a sixth of the file)."""
    trace = json.loads(json.dumps(doc, default=str))  # a deep copy, with values as JSON has them
    moves = trace["steps"] + trace["branches"]
    for step in moves:
        step["clauses"] = [_cite(c, quotes) for c in step.get("clauses", [])]
        step["changes"] = [_triple(c) for c in step.get("changes", [])]
    fields = list(moves[0]) if moves else []
    if moves and all(list(step) == fields for step in moves):
        trace["step_fields"] = fields
        for key in ("steps", "branches"):
            trace[key] = [[step[f] for f in fields] for step in trace[key]]
    return {"format": EVIDENCE_FORMAT, "version": EVIDENCE_VERSION, "game": result.model.folder, "witnesses": witnesses, "trace": trace}


def _cite(clause: Any, quotes: dict[str, dict[str, str]]) -> Any:
    """A step's citation as its clause id, its text (quote, place) moving to the game's table;
    left as it is when the table already holds a different text for that id."""
    if not isinstance(clause, dict) or not isinstance(clause.get("id"), str) or not all(isinstance(v, str) for v in clause.values()):
        return clause
    body = {k: v for k, v in clause.items() if k != "id"}
    if quotes.setdefault(clause["id"], body) != body:
        return clause
    return clause["id"]


def _triple(change: Any) -> Any:
    if isinstance(change, dict) and set(change) == {"element", "before", "after"}:
        return [change["element"], change["before"], change["after"]]
    return change


def trace_document(evidence: dict[str, Any], quotes: dict[str, dict[str, str]]) -> dict[str, Any]:
    """The trace of an evidence file in the project's trace format (the inverse of the packing);
    `quotes` is the game's clause table (a missing quote is said to be missing)."""
    trace = json.loads(json.dumps(evidence["trace"]))
    fields = trace.pop("step_fields", None)
    if fields is not None:
        for key in ("steps", "branches"):
            trace[key] = [dict(zip(fields, values)) for values in trace[key]]
    for step in trace["steps"] + trace["branches"]:
        step["clauses"] = [{"id": c, **quotes.get(c, {"says": f"(quote not found in {CLAUSES_FILE})"})} if isinstance(c, str) else c for c in step["clauses"]]
        step["changes"] = [{"element": c[0], "before": c[1], "after": c[2]} if isinstance(c, list) else c for c in step["changes"]]
    return trace


def clause_quotes(evidence_path: str) -> dict[str, dict[str, str]]:
    """The clause table of the game folder an evidence file is in (empty when absent)."""
    return _recorded(os.path.join(os.path.dirname(evidence_path), CLAUSES_FILE), CLAUSES_FORMAT, "clauses", {})


def _recorded(path: str, fmt: str, key: str, empty: Any) -> Any:
    """What an earlier run recorded under `key` in a file of ours (`empty` when there is none)."""
    try:
        with open(path, encoding="utf-8") as handle:
            doc = json.load(handle)
    except (OSError, json.JSONDecodeError):
        return empty
    return doc.get(key, empty) if isinstance(doc, dict) and doc.get("format") == fmt else empty


def _dump(doc: dict[str, Any]) -> str:
    """JSON with one line per step (and per witness, and for the initial state), so a file stays
    small and a diff shows which step changed."""
    rows: dict[str, str] = {}

    def placeholder(item: Any) -> str:
        key = f"\u0000{len(rows)}\u0000"
        rows[key] = json.dumps(item, ensure_ascii=False, separators=(",", ":"), default=str)
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
            if _OURS.match(name) or former or name == CLAUSES_FILE:
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

