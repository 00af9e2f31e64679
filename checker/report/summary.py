"""The terminal summary of `rulecheck check`: one line per game, then the unexpected results.

The full table (one row per model, reading and property: thousands for the bundled games) is
for `--verbose` / `--format table`; the summary fits on one screen whatever the run's size:
a line per game, a line per unexpected result (with the path of its evidence), and a total.
"""

from __future__ import annotations

from rich.console import Console
from rich.markup import escape

from checker.evidence.findings import suite_findings
from checker.evidence.growth_check import Outcome
from checker.evidence.results import Result
from checker.evidence.scenario_run import ScenarioResult
from checker.report.errata_details import game_results
from checker.report.evidence_files import evidence_path
from checker.report.findings import NOT_A_DEFECT, SEVERITIES, group_findings

GROWTH_WORDS = {Outcome.SURVIVES: "survive", Outcome.VANISHES: "vanish", Outcome.NOT_RECHECKED: "not re-checked"}
MAX_UNEXPECTED_LINES = 20  # beyond this the summary would no longer fit on a screen


def summary_lines(results: list[Result], out_dir: str | None, wall_seconds: float | None = None, scenarios: list[ScenarioResult] | None = None) -> list[str]:
    """The summary as plain lines, for printing and for tests; a failed scenario is a line of
    its own (located at the step that is not enabled), passing ones are counted in the total."""
    lines = []
    for folder in sorted({r.model.folder for r in results}):
        lines.append(_game_line(folder, game_results(folder, results)))
    unexpected = [r for r in results if not r.matches]
    for r in unexpected[:MAX_UNEXPECTED_LINES]:
        where = f"{r.model.folder}/{r.model.id} {r.prop.id} [{r.reading_label}]"
        evidence = f" \u2192 {evidence_path(out_dir, r)}" if out_dir and r.trace is not None else ""
        detail = f": {r.detail}" if r.detail and not evidence else ""
        lines.append(f"unexpected {where}: {r.verdict_text}, expected {r.expected}{detail}{evidence}")
    if len(unexpected) > MAX_UNEXPECTED_LINES:
        lines.append(f"... and {len(unexpected) - MAX_UNEXPECTED_LINES} more unexpected results (all of them: --verbose)")
    failed = [s for s in scenarios or [] if not s.passed]
    lines += [f"unexpected: {s.located()}" for s in failed]
    mismatches = len(unexpected)
    took = f" in {wall_seconds:.1f} s" if wall_seconds is not None else ""
    played = f"; {len(scenarios)} scenario(s), {len(failed)} failed" if scenarios else ""
    lines.append(f"{len(results)} results{took}, {len(results) - mismatches} as expected, {mismatches} unexpected{played}")
    return lines


def growth_words(results: list[Result]) -> str:
    """The game's growth re-checks counted by outcome (each finding's sentence is on the errata
    page and in the JSON: the summary keeps one line per game)."""
    checks = {g.finding: g for r in results for g in r.growth if g.applies}  # a model with no bound: nothing to say
    if not checks:
        return ""
    counts = [f"{sum(1 for g in checks.values() if g.outcome == o)} {word}" for o, word in GROWTH_WORDS.items()]
    return f"; growth re-check: {', '.join(counts)}"


def _game_line(folder: str, results: list[Result]) -> str:
    models = {r.model.id for r in results}
    combinations = {(r.model.id, r.reading_label) for r in results}
    properties = {r.prop.id for r in results}
    entries = group_findings(results, suite_findings(results))
    counts = [f"{sum(1 for e in entries if e.severity == s)} {s}" for s in SEVERITIES if any(e.severity == s for e in entries)]
    defects = [e for e in entries if e.severity != NOT_A_DEFECT]
    unfiled = sum(1 for e in defects if e.unfiled)
    findings = f"{len(defects)} finding(s)" + (f" ({', '.join(counts)})" if counts else "")
    if unfiled:
        findings += f", {unfiled} unfiled"
    artefacts = len(entries) - len(defects)
    if artefacts:
        findings += f", {artefacts} bound artefact(s)"
    explored: dict[tuple[str, str, str], float] = {}
    for r in results:
        key = (r.model.id, r.reading_label, r.engine)
        explored[key] = max(explored.get(key, 0.0), r.seconds)
    unexpected = sum(1 for r in results if not r.matches)
    reused = {(r.model.id, r.reading_label) for r in results if r.reused}
    cached = f" (the verdicts of {len(reused)} reused from .rulecheck-cache; --fresh explores again)" if reused else ""
    return (f"{folder}: {len(models)} model(s), {len(combinations)} combinations, {len(properties)} properties; {findings}; "
            f"{unexpected} unexpected; {sum(explored.values()):.1f} s exploring{cached}{growth_words(results)}")


def print_summary(results: list[Result], console: Console, out_dir: str | None, wall_seconds: float | None = None, scenarios: list[ScenarioResult] | None = None) -> None:
    lines = summary_lines(results, out_dir, wall_seconds, scenarios)
    ok = all(r.matches for r in results) and all(s.passed for s in scenarios or [])
    for line in lines[:-1]:  # never wrapped: a line per game and per unexpected result, whatever the width
        style = "red" if line.startswith("unexpected") else ""
        console.print(f"[{style}]{escape(line)}[/]" if style else escape(line), soft_wrap=True)
    console.print(f"[{'green' if ok else 'red'}]{escape(lines[-1])}[/]", soft_wrap=True)

