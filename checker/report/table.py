"""The terminal table of results: game x variant x property x reading."""

from __future__ import annotations

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from checker.evidence.results import Result
from checker.report.terminal import print_table

STYLE = {"holds": "green", "fails": "red", "undecided": "yellow", "error": "bold red"}


def results_table(results: list[Result]) -> Table:
    table = Table(title="rulecheck", show_lines=False, header_style="bold")
    for column in ("game", "variant", "property", "reading", "verdict", "expect", "engine", "bound", "states", "seconds"):
        table.add_column(column, justify="right" if column in ("states", "seconds") else "left", overflow="fold")
    for r in results:
        ok = "" if r.matches else " \u2717"
        verdict = f"[{STYLE.get(r.status, '')}]{r.verdict_text}[/]{ok}"
        table.add_row(r.model.folder, r.model.id, r.prop.id, r.reading_label, verdict, r.expected, r.engine, r.bound, f"{r.states:,}", f"{r.seconds:.2f}")
    return table


def print_results(results: list[Result], console: Console) -> None:
    print_table(console, results_table(results))
    mismatches = [r for r in results if not r.matches]
    for r in mismatches:
        detail = f": {r.detail}" if r.detail else ""
        console.print(f"[red]unexpected[/] {escape(f'{r.model.folder}/{r.model.id} {r.prop.id} [{r.reading_label}]: {r.verdict_text}, expected {r.expected}{detail}')}")
    summary = f"{len(results)} results, {len(results) - len(mismatches)} as expected, {len(mismatches)} unexpected"
    console.print(f"[{'green' if not mismatches else 'red'}]{summary}[/]")
