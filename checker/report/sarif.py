"""`rulecheck check --sarif FILE`: findings and unexpected results as SARIF 2.1.0.

SARIF is what code-scanning tools (GitHub code scanning, GitLab, editors' SARIF viewers) read
to put an annotation on the line that broke. Two kinds of result are written:

- **findings** (`checker.report.findings`: the suite's filed findings and the unfiled ones,
  ranked by severity), at the level their severity sets: game-breaking and outcome-changing are
  `error`, rules-visible `warning`, cosmetic `note`, bound artefacts `none` (filed so, or vanishing in the growth re-check,
  `checker.pipeline.growth`);
- **unexpected results** (a verdict differing from its `expect`), always `error`.

A filed finding whose failures are all expected is known and accepted: it carries an `inSource`
suppression naming the finding, so code scanning lists it as suppressed, not as an open alert;
an unfiled finding and an unexpected result carry none.

A result's rule is the property (rule id `GAME/PROPERTY`, since property ids repeat across
games), described in the property's own `says`. It is located at the property's line in
`properties/GAME.yaml` and at each cited clause's line in the game's `clauses.yaml`; the evidence
trace is its code flow, each step at the `rule:` line of the action that fired. Each result
carries a `partialFingerprints` entry computed from what identifies it (game and finding id; or
game, variant, property, reading and verdict), never from line numbers or the trace, so a
code-scanning tool tracks the same finding across runs while the files around it change.
"""

from __future__ import annotations

import hashlib
import json
import os
from functools import lru_cache
from typing import Any

from checker import DISTRIBUTION
from checker.errors import Loc
from checker.evidence.findings import suite_findings
from checker.evidence.results import Result
from checker.evidence.trace import Trace
from checker.report.evidence_files import evidence_path
from checker.report.findings import NOT_A_DEFECT, FindingEvidence, group_findings
from checker.report.junit import repository_path, unexpected_message

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
LEVEL_OF_SEVERITY = {"game-breaking": "error", "outcome-changing": "error", "rules-visible": "warning", "cosmetic": "note", NOT_A_DEFECT: "none"}
FINGERPRINT = "rulecheck/v1"


def rule_id(result: Result) -> str:
    return f"{result.model.folder}/{result.prop.id}"


def fingerprint(*parts: str) -> str:
    """A stable identity: a hash of what names the result, never of where it is written."""
    return hashlib.sha256("\x1f".join(parts).encode()).hexdigest()[:32]


def sarif_document(results: list[Result], out: str | None, known: set[str] | None = None) -> dict[str, Any]:
    """The SARIF log of `results`; `out` is where evidence traces were written (None: not written).
    With `known` (the fingerprints a baseline run showed), each result says whether it is new."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        tool_version = version(DISTRIBUTION)
    except PackageNotFoundError:
        tool_version = "0"
    rules: dict[str, dict[str, Any]] = {}
    entries: list[dict[str, Any]] = []
    for game_results in _by_game(results).values():
        for finding in group_findings(game_results, suite_findings(game_results)):
            shown = finding.shown or finding.results[0]
            rules.setdefault(rule_id(shown), _rule(shown))
            entries.append(_finding_result(finding, shown, out))
        for result in game_results:
            if not result.matches:
                rules.setdefault(rule_id(result), _rule(result))
                entries.append(_unexpected_result(result, out))
    ordered = list(rules)
    for entry in entries:
        entry["ruleIndex"] = ordered.index(entry["ruleId"])
        if known is not None:
            entry["baselineState"] = "unchanged" if entry["partialFingerprints"][FINGERPRINT] in known else "new"
    driver = {"name": "rulecheck", "version": tool_version, "informationUri": f"https://pypi.org/project/{DISTRIBUTION}/", "rules": list(rules.values())}
    return {"$schema": SARIF_SCHEMA, "version": "2.1.0", "runs": [{"tool": {"driver": driver}, "columnKind": "unicodeCodePoints", "results": entries}]}


def _by_game(results: list[Result]) -> dict[str, list[Result]]:
    games: dict[str, list[Result]] = {}
    for result in results:
        games.setdefault(result.model.folder, []).append(result)
    return games


def _rule(result: Result) -> dict[str, Any]:
    prop = result.prop
    said = prop.says or f"a `{prop.kind}` property"
    return {
        "id": rule_id(result), "name": prop.id,
        "shortDescription": {"text": said}, "fullDescription": {"text": f"{said} ({prop.kind} property of {result.model.folder})"},
        "properties": {"kind": prop.kind, "clauses": list(prop.clauses)},
    }


def _finding_result(finding: FindingEvidence, shown: Result, out: str | None) -> dict[str, Any]:
    game = shown.model.folder
    clauses = finding.finding.clauses if finding.finding is not None and finding.finding.clauses else shown.prop.clauses
    label = "bound artefact (vanishes with larger bounds)" if finding.growth is not None and finding.growth.artefact else finding.cls
    text = f"{finding.title} [{finding.id}: {label}, {finding.severity}]. {shown.prop.id}: {shown.prop.says or shown.prop.kind}"
    shown_by = sorted({f"{r.model.id} {r.prop.id}[{r.reading_label}]" for r in finding.results})
    entry = _result(shown, LEVEL_OF_SEVERITY[finding.severity], text, clauses, fingerprint(game, "finding", finding.id), out)
    entry["properties"].update({"finding": finding.id, "class": finding.cls, "severity": finding.severity, "severityReason": finding.severity_reason, "filed": not finding.unfiled, "shownBy": shown_by})
    if finding.growth is not None:
        entry["properties"]["growth"] = finding.growth.to_json()
    if not finding.unfiled and all(r.matches for r in finding.results):
        # known and expected: the suite files it, so a code-scanning tool shows it as accepted, not as an open alert
        entry["suppressions"] = [{"kind": "inSource", "justification": f"filed as finding `{finding.id}` in properties/{game}.yaml, its failures expected"}]
    return entry


def _unexpected_result(result: Result, out: str | None) -> dict[str, Any]:
    text = f"{unexpected_message(result)}. {result.prop.id}: {result.prop.says or result.prop.kind}"
    key = fingerprint(result.model.folder, "unexpected", result.model.id, result.prop.id, result.reading_label, result.status)
    entry = _result(result, "error", text, result.prop.clauses, key, out)
    entry["properties"].update({"variant": result.model.id, "reading": result.reading_label, "verdict": result.verdict_text, "expected": result.expected})
    return entry


def _result(result: Result, level: str, text: str, clauses: tuple[str, ...], key: str, out: str | None) -> dict[str, Any]:
    locations = [_location(result.prop.loc, f"property {result.prop.id}")]
    for cid in clauses:
        clause = result.model.clauses.get(cid)
        if clause is not None:
            locations.append(_location(clause.loc, f"clause {cid}: {clause.says}"))
    entry: dict[str, Any] = {"ruleId": rule_id(result), "level": level, "message": {"text": text}, "locations": locations,
                             "partialFingerprints": {FINGERPRINT: key}, "properties": {}}
    if result.trace is not None:
        flow = _code_flow(result, result.trace)
        if flow is not None:
            entry["codeFlows"] = [flow]
        if out is not None:
            entry["properties"]["evidence"] = evidence_path(out, result)
    return entry


def _code_flow(result: Result, trace: Trace) -> dict[str, Any] | None:
    """The trace as one thread flow: a step per action fired, at its `rule:` line."""
    steps = []
    for step in trace.steps:
        action = result.model.actions.get(step.action)
        if action is None:
            continue
        cited = ", ".join(cid for cid, _ in step.clauses)
        steps.append({"location": _location(_rule_line(action.loc), step.text + (f" ({cited})" if cited else ""))})
    if not steps:
        return None
    return {"message": {"text": f"{trace.shape} of {len(trace.steps)} step(s) under readings {trace.reading_label}"}, "threadFlows": [{"locations": steps}]}


def _location(loc: Loc, text: str) -> dict[str, Any]:
    return {"physicalLocation": {"artifactLocation": {"uri": repository_path(loc.file)}, "region": {"startLine": max(loc.line, 1), "startColumn": max(loc.col, 1)}}, "message": {"text": text}}


def _rule_line(action_loc: Loc) -> Loc:
    """The `rule:` line of the action whose mapping starts at `action_loc` (that line without one)."""
    lines = _lines(action_loc.file)
    first = action_loc.line - 1
    if not 0 <= first < len(lines):
        return action_loc
    if lines[first].rstrip().endswith(":"):  # the location is the action's name: its body starts below
        first += 1
    body = [n for n in range(first, len(lines)) if lines[n].strip() and not lines[n].lstrip().startswith("#")]
    if not body:
        return action_loc
    indent = _indent(lines[body[0]])
    for number in body:
        if _indent(lines[number]) < indent:
            break
        if _indent(lines[number]) == indent and lines[number].lstrip().startswith("rule:"):
            return Loc(action_loc.file, number + 1, indent + 1)
    return action_loc


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


@lru_cache(maxsize=64)
def _lines(path: str) -> tuple[str, ...]:
    try:
        with open(path, encoding="utf-8") as handle:
            return tuple(handle.read().splitlines())
    except OSError:
        return ()


def write_sarif(results: list[Result], path: str, out: str | None, known: set[str] | None = None) -> None:
    """Write the SARIF log atomically."""
    tmp = f"{path}.tmp{os.getpid()}"
    with open(tmp, "w", encoding="utf-8") as handle:
        json.dump(sarif_document(results, out, known), handle, indent=1, default=str)
        handle.write("\n")
    os.replace(tmp, path)
