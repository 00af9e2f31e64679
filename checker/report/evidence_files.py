"""Writing counterexamples to `counterexamples/<game>/`: one file per distinct trace.

Most readings do not touch the play that breaks a property, so the same trace witnesses many
(variant, reading) combinations. Each distinct trace is written once, as
`<property>.<hash>.json` where the hash is of the play itself (the trace without the variant,
readings and constants it was found under), and the file lists every combination it witnesses.

What the traces of a game repeat is written once, in `shared.json` beside them: the text of
every clause and assumption a step cites (a step cites ids), and per model its default readings
and constants, its initial state and its `display` block (a trace records only the readings and
constants that differ from its model's, and omits an initial state or display equal to the
model's). That repetition was three fifths of the bytes. A step's changes are `[element,
before, after]` triples. `trace_document` turns a file back into the project's trace format
(docs/traces.md), which `rulecheck explain` narrates and `rulecheck verify` replays. No Markdown
rendering is written: `rulecheck explain` rebuilds it.

Writes are atomic and skipped when the bytes would not change, so the same run writes identical
files. A full run prunes the files of its games that it no longer produces, and only files the
checker writes (evidence files, and the files of the former layouts); a partial run adds its
witnesses and shared entries to those already recorded.
"""

from __future__ import annotations

import copy
import hashlib
import json
import os
import re
from typing import Any

from checker.errors import RulecheckError
from checker.evidence.results import Result
from checker.evidence.trace import Trace, jsonable_constants, to_itf, to_json

EVIDENCE_FORMAT = "rulecheck-evidence"
EVIDENCE_VERSION = 2
SHARED_FORMAT = "rulecheck-shared"
SHARED_FILE = "shared.json"
_FORMER_SHARED = "clauses.json"  # version 1's table of clause quotes, pruned by a full run
_HASH = 12
_OURS = re.compile(r"^[A-Za-z0-9_-]+\.[0-9a-f]{" + str(_HASH) + r"}\.(json|itf\.json)$")
_PER_COMBINATION = (".json", ".md", ".itf.json")  # the former layout: <model>.<property>.<reading>.*
_NOT_THE_PLAY = ("model", "readings", "constants")
_BY_MODEL_WHOLE = ("initial", "display")  # omitted from a trace when equal to its model's
_BY_MODEL_DIFF = ("readings", "constants")  # a trace records those that differ from its model's
# What is written on one line (a path of keys, `*` for any): each step, witness and shared entry,
# so a file stays small and a diff shows which step or entry changed.
_EVIDENCE_LINES = (("witnesses", "*"), ("trace", "property"), ("trace", "readings"), ("trace", "constants"), ("trace", "initial"), ("trace", "display"), ("trace", "step_fields"), ("trace", "steps", "*"), ("trace", "branches", "*"))
_SHARED_LINES = (("clauses", "*"), ("assumptions", "*"), ("models", "*", "readings"), ("models", "*", "constants"), ("models", "*", "initial"), ("models", "*", "display", "slots", "*"), ("models", "*", "display", "names", "*"), ("models", "*", "display", "piles"))


def trace_identity(doc: dict[str, Any]) -> str:
    """The hash of a trace's play: what the players did and saw, not where it was found, nor
    which values a step shows as what decided it (`decided_by`, derived from the rules: a
    narration detail that leaves every file's name as it was)."""
    play = {k: v for k, v in doc.items() if k not in _NOT_THE_PLAY}
    for key in ("steps", "branches"):
        if key in play:
            play[key] = [{k: v for k, v in step.items() if k != "decided_by"} for step in play[key]]
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
    a suite chose (docs/traces.md); and the violations its findings showed at the document's
    size (`checker.pipeline.full_size`), once, with the representative failure they were played for."""
    traces = [result.trace] if result.trace is not None else []
    if all_witnesses or result.prop.witness:
        traces += result.witnesses
    traces += [c.trace for c in result.sizes if c.trace is not None and c.variant == result.model.id and c.reading == result.reading_label]
    return traces


def write_evidence(results: list[Result], out_dir: str, itf: bool = False, prune: bool = True, all_witnesses: bool = False) -> list[str]:
    """Write one file per distinct trace and each game's shared table; returns the paths written
    (or already up to date)."""
    groups: dict[str, list[tuple[Result, Trace, dict[str, Any]]]] = {}
    for result in results:
        for trace in saved_traces(result, all_witnesses):
            doc = to_json(trace)
            path = os.path.join(out_dir, result.model.folder, f"{result.prop.id}.{trace_identity(doc)}.json")
            groups.setdefault(path, []).append((result, trace, doc))
    written: list[str] = []
    tables: dict[str, dict[str, Any]] = {}
    for path in sorted(groups):
        witnesses = [_witness(r) for r, _, _ in groups[path]]
        if not prune:
            witnesses += _recorded(path, EVIDENCE_FORMAT).get("witnesses", [])
        witnesses = sorted({json.dumps(w, sort_keys=True): w for w in witnesses}.values(), key=lambda w: (w["variant"], w["reading"]))
        result, trace, doc = min(groups[path], key=lambda item: (item[0].model.id, item[0].reading_label))
        folder = os.path.dirname(path)
        if folder not in tables:  # a partial run packs against what is recorded, and adds to it
            tables[folder] = _recorded(os.path.join(folder, SHARED_FILE), SHARED_FORMAT) if not prune else {}
        os.makedirs(folder, exist_ok=True)
        _write_if_changed(path, _dump(evidence_document(result, doc, witnesses, tables[folder]), _EVIDENCE_LINES))
        written.append(path)
        if itf:
            itf_path = path[: -len(".json")] + ".itf.json"
            _write_if_changed(itf_path, json.dumps(to_itf(trace), indent=1, default=str) + "\n")
            written.append(itf_path)
    for folder, table in sorted(tables.items()):
        path = os.path.join(folder, SHARED_FILE)
        doc = {"format": SHARED_FORMAT, "version": EVIDENCE_VERSION, **{key: dict(sorted(table.get(key, {}).items())) for key in ("clauses", "assumptions", "models")}}
        _write_if_changed(path, _dump(doc, _SHARED_LINES))
        written.append(path)
    if prune:
        _prune(results, out_dir, set(written), itf)
    return written


def _witness(result: Result) -> dict[str, Any]:
    return {"variant": result.model.id, "reading": result.reading_label}


def evidence_document(result: Result, doc: dict[str, Any], witnesses: list[dict[str, Any]], shared: dict[str, Any]) -> dict[str, Any]:
    """The evidence file of a trace; what it shares with the game's other traces goes to `shared`.

    A citation becomes its clause (or assumption) id, its text moving to the shared table; the
    model's defaults, initial state and display go to the table's entry for the model, and the
    trace keeps only what differs. Whatever disagrees with what the table already holds (another
    text for the same id, another initial state) stays whole in the trace, so unpacking always
    gives the trace back exactly. Steps are packed: `[element, before, after]` for changes, and,
    when every step has the same fields, each step as the list of its values in the order
    `step_fields` names (the field names would otherwise be a sixth of the file)."""
    trace = json.loads(json.dumps(doc, default=str))  # a deep copy, with values as JSON has them
    defaults = result.model.default_config()
    model = shared.setdefault("models", {}).setdefault(trace["model"], {
        "readings": dict(sorted(defaults.readings.items())),
        "constants": json.loads(json.dumps(jsonable_constants(defaults.constants), default=str)),
        **{key: trace[key] for key in _BY_MODEL_WHOLE},
    })
    for key in _BY_MODEL_DIFF:
        trace[key] = {k: v for k, v in trace[key].items() if k not in model[key] or model[key][k] != v}
    for key in _BY_MODEL_WHOLE:
        if model.setdefault(key, trace[key]) == trace[key]:
            del trace[key]
    clauses, assumptions = shared.setdefault("clauses", {}), shared.setdefault("assumptions", {})
    moves = trace["steps"] + trace["branches"]
    for step in moves:
        step["clauses"] = [_cite(c, clauses) for c in step.get("clauses", [])]
        if "assumptions" in step:
            step["assumptions"] = [_cite(a, assumptions) for a in step["assumptions"]]
        step["changes"] = [_triple(c) for c in step.get("changes", [])]
    fields = list(moves[0]) if moves else []
    if moves and all(list(step) == fields for step in moves):
        trace["step_fields"] = fields
        for key in ("steps", "branches"):
            trace[key] = [[step[f] for f in fields] for step in trace[key]]
    return {"format": EVIDENCE_FORMAT, "version": EVIDENCE_VERSION, "game": result.model.folder, "witnesses": witnesses, "trace": trace}


def _cite(citation: Any, table: dict[str, dict[str, str]]) -> Any:
    """A step's citation as its id, its text (quote, place) moving to the game's table; left as
    it is when the table already holds a different text for that id."""
    if not isinstance(citation, dict) or not isinstance(citation.get("id"), str) or not all(isinstance(v, str) for v in citation.values()):
        return citation
    body = {k: v for k, v in citation.items() if k != "id"}
    if table.setdefault(citation["id"], body) != body:
        return citation
    return citation["id"]


def _triple(change: Any) -> Any:
    if isinstance(change, dict) and set(change) == {"element", "before", "after"}:
        return [change["element"], change["before"], change["after"]]
    return change


def trace_document(evidence: dict[str, Any], shared: dict[str, Any]) -> dict[str, Any]:
    """The trace of an evidence file in the project's trace format (the inverse of the packing);
    `shared` is the game's table (`shared.json`). Something the file refers to that the table
    lacks is a RulecheckError: the trace cannot be read without it."""
    trace = copy.deepcopy(evidence["trace"])
    model = shared.get("models", {}).get(trace.get("model"), {})
    for key in _BY_MODEL_WHOLE:
        if key not in trace:
            trace[key] = copy.deepcopy(_shared(model, key, f"model `{trace.get('model')}`'s {key}"))
    for key in _BY_MODEL_DIFF:
        trace[key] = dict(sorted({**model.get(key, {}), **trace.get(key, {})}.items()))
    fields = trace.pop("step_fields", None)
    if fields is not None:
        for key in ("steps", "branches"):
            trace[key] = [dict(zip(fields, values)) for values in trace[key]]
    clauses, assumptions = shared.get("clauses", {}), shared.get("assumptions", {})
    for step in trace["steps"] + trace["branches"]:
        step["clauses"] = [{"id": c, **_shared(clauses, c, f"clause `{c}`")} if isinstance(c, str) else c for c in step["clauses"]]
        if "assumptions" in step:
            step["assumptions"] = [{"id": a, **_shared(assumptions, a, f"assumption `{a}`")} if isinstance(a, str) else a for a in step["assumptions"]]
        step["changes"] = [{"element": c[0], "before": c[1], "after": c[2]} if isinstance(c, list) else c for c in step["changes"]]
    return trace


def _shared(table: dict[str, Any], key: str, what: str) -> Any:
    if key not in table:
        raise RulecheckError(f"the game's {SHARED_FILE} has no {what}, which this trace refers to", hint=f"keep {SHARED_FILE} beside the traces of its game, or run `rulecheck check` again")
    return table[key]


def shared_table(evidence_path: str) -> dict[str, Any]:
    """The shared table of the game folder an evidence file is in (empty when absent)."""
    return _recorded(os.path.join(os.path.dirname(evidence_path), SHARED_FILE), SHARED_FORMAT)


def _recorded(path: str, fmt: str) -> dict[str, Any]:
    """A file of ours in this version as an earlier run wrote it (empty when there is none)."""
    try:
        with open(path, encoding="utf-8") as handle:
            doc = json.load(handle)
    except (OSError, json.JSONDecodeError):
        return {}
    return doc if isinstance(doc, dict) and doc.get("format") == fmt and doc.get("version") == EVIDENCE_VERSION else {}


def _dump(doc: dict[str, Any], one_line: tuple[tuple[str, ...], ...]) -> str:
    """Indented JSON in which the values at the `one_line` paths each take one line."""
    rows: dict[str, str] = {}

    def pack(value: Any, path: tuple[str, ...]) -> Any:
        if any(len(p) == len(path) and all(a in ("*", b) for a, b in zip(p, path)) for p in one_line):
            key = f"\u0000{len(rows)}\u0000"
            rows[json.dumps(key)] = json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)
            return key
        if isinstance(value, dict):
            return {k: pack(v, (*path, k)) for k, v in value.items()}
        if isinstance(value, list):
            return [pack(v, (*path, "*")) for v in value]
        return value

    text = json.dumps(pack(doc, ()), indent=1, ensure_ascii=False, default=str)
    return re.sub(r'"\\u0000\d+\\u0000"', lambda match: rows[match.group(0)], text) + "\n"


def _prune(results: list[Result], out_dir: str, keep: set[str], itf: bool) -> None:
    models: dict[str, set[str]] = {r.model.folder: set() for r in results}
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
            if _OURS.match(name) or former or name in (SHARED_FILE, _FORMER_SHARED):
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

