"""`rulecheck check --baseline FILE --fail-on new|unexpected|any`: results against an earlier run.

A designer's CI usually runs on a rule text with known, filed problems; what should stop a
merge is a problem that was not there at the last release. The baseline is an earlier
`rulecheck check --format json` output, which lists its findings (`findings_json`), each under a
fingerprint of what identifies it (game and finding id, the same fingerprint the SARIF output
carries), and its results. The comparison sorts findings into new, fixed and unchanged by
fingerprint, and unexpected results (a verdict differing from `expect`) into new and known by
(game, variant, property, reading, verdict). Line numbers and traces play no part, so editing
the files around a finding keeps it `unchanged`.

`--fail-on` chooses what makes the exit status 1: `unexpected` (the default, as without a
baseline) some result differs from its `expect`; `new` some finding or unexpected result is not
in the baseline; `any` some finding (bound artefacts aside) or unexpected result exists at all.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from checker.errors import RulecheckError
from checker.evidence.results import Result
from checker.report.findings import NOT_A_DEFECT, group_findings


def finding_fingerprint(game: str, finding_id: str) -> str:
    from checker.report.sarif import fingerprint

    return fingerprint(game, "finding", finding_id)


def findings_json(results: list[Result]) -> list[dict[str, Any]]:
    """Every finding the results show, game by game, for the JSON output (and later baselines)."""
    from checker.evidence.findings import suite_findings

    games: dict[str, list[Result]] = {}
    for result in results:
        games.setdefault(result.model.folder, []).append(result)
    out = []
    for game, mine in games.items():
        for entry in group_findings(mine, suite_findings(mine)):
            out.append({
                "game": game, "id": entry.id, "fingerprint": finding_fingerprint(game, entry.id), "title": entry.title,
                "class": entry.cls, "severity": entry.severity, "filed": not entry.unfiled,
                "shown_by": sorted({f"{r.model.id} {r.prop.id}[{r.reading_label}]" for r in entry.results}),
                "growth": entry.growth.to_json() if entry.growth is not None else None,
            })
    return out


def unexpected_key(entry: dict[str, Any]) -> tuple[str, ...]:
    return tuple(str(entry.get(k)) for k in ("game", "variant", "property", "reading", "verdict"))


@dataclass
class Comparison:
    new: list[dict[str, Any]] = field(default_factory=list)
    fixed: list[dict[str, Any]] = field(default_factory=list)
    unchanged: list[dict[str, Any]] = field(default_factory=list)
    new_unexpected: list[tuple[str, ...]] = field(default_factory=list)
    known_unexpected: list[tuple[str, ...]] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {
            "new": self.new, "fixed": self.fixed, "unchanged": self.unchanged,
            "new_unexpected": [dict(zip(("game", "variant", "property", "reading", "verdict"), k)) for k in self.new_unexpected],
            "known_unexpected": len(self.known_unexpected),
        }

    def lines(self) -> list[str]:
        """The comparison for a person reading the CI log."""
        out = [f"baseline: {len(self.new)} new, {len(self.fixed)} fixed, {len(self.unchanged)} unchanged finding(s); "
               f"{len(self.new_unexpected)} new unexpected result(s), {len(self.known_unexpected)} already in the baseline"]
        out += [f"  new: {f['game']}: {f['id']} ({f['severity']}): {f['title']}" for f in self.new]
        out += [f"  fixed: {f['game']}: {f['id']}: {f['title']}" for f in self.fixed]
        out += [f"  new unexpected: {g}/{v} {p}[{r}]: {verdict}" for g, v, p, r, verdict in self.new_unexpected]
        return out


def known_fingerprints(baseline: dict[str, Any]) -> set[str]:
    """The SARIF fingerprints of everything the baseline showed: its findings and unexpected results."""
    from checker.report.sarif import fingerprint

    known = {str(f.get("fingerprint")) for f in baseline["findings"] if isinstance(f, dict)}
    for r in baseline["results"]:
        if isinstance(r, dict) and r.get("matches") is False:
            game, variant, prop, reading, verdict = unexpected_key(r)
            known.add(fingerprint(game, "unexpected", variant, prop, reading, verdict))
    return known


def load_baseline(path: str) -> dict[str, Any]:
    """An earlier `--format json` output, checked enough to compare with (exit 2 otherwise)."""
    try:
        with open(path, encoding="utf-8") as handle:
            doc = json.load(handle)
    except OSError as exc:
        raise RulecheckError(f"cannot read the baseline `{path}`: {exc.strerror}") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        line = getattr(exc, "lineno", 0)
        raise RulecheckError(f"the baseline `{path}` is not JSON (line {line}): {getattr(exc, 'msg', exc)}", hint="pass a file written by `rulecheck check --format json`") from None
    if not isinstance(doc, dict) or doc.get("format") != "rulecheck-results":
        raise RulecheckError(f"the baseline `{path}` is not a rulecheck results file", hint="pass a file written by `rulecheck check --format json`")
    if not isinstance(doc.get("findings"), list) or not isinstance(doc.get("results"), list):
        raise RulecheckError(f"the baseline `{path}` lists no findings (written by an older rulecheck)", hint="regenerate it with `rulecheck check --format json`")
    return doc


def compare(results: list[Result], baseline: dict[str, Any]) -> Comparison:
    now = {f["fingerprint"]: f for f in findings_json(results)}
    before = {f.get("fingerprint"): f for f in baseline["findings"] if isinstance(f, dict)}
    out = Comparison()
    for key, finding in now.items():
        (out.unchanged if key in before else out.new).append(finding)
    out.fixed = [f for key, f in before.items() if key not in now]
    known = {unexpected_key(r) for r in baseline["results"] if isinstance(r, dict) and r.get("matches") is False}
    for result in results:
        if not result.matches:
            key = (result.model.folder, result.model.id, result.prop.id, result.reading_label, result.status)
            (out.known_unexpected if key in known else out.new_unexpected).append(key)
    return out


def require_baseline(fail_on: str, baseline_path: str | None) -> None:
    """Refuse `--fail-on new` without a baseline before any checking starts."""
    if fail_on == "new" and not baseline_path:
        raise RulecheckError("--fail-on new needs --baseline FILE (an earlier `rulecheck check --format json` output)")


def fails(fail_on: str, results: list[Result], comparison: Comparison | None) -> bool:
    """Whether the run should exit 1 under `--fail-on` (`new` needs the comparison)."""
    unexpected = any(not r.matches for r in results)
    if fail_on == "unexpected":
        return unexpected
    if fail_on == "new":
        assert comparison is not None, "require_baseline refuses --fail-on new without a baseline"
        return bool(comparison.new or comparison.new_unexpected)
    if fail_on == "any":
        return unexpected or any(f["severity"] != NOT_A_DEFECT for f in findings_json(results))
    raise ValueError(fail_on)
