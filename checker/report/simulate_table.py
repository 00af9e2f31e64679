"""The `rulecheck simulate` report: game lengths, the outcomes table and how often each rule fired."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table

from checker.engines.simulate import SimulationReport
from checker.lang.model import Config, Model


def print_simulation(console: Console, model: Model, config: Config, report: SimulationReport, games: int, seed: int) -> None:
    """Print `report`, the result of `games` seeded random games of `model` under `config`."""
    lengths = sorted(report.lengths)
    console.print(f"{model.game} ({model.id}), readings {config.reading_label(model)}: {games} games, seed {seed}")
    if lengths:
        console.print(f"finished {report.finished}; length mean {report.mean_length:.1f}, median {lengths[len(lengths) // 2]}, min {lengths[0]}, max {lengths[-1]} steps")
    table = Table(title="outcomes", header_style="bold")
    table.add_column("outcome")
    table.add_column("games", justify="right")
    for outcome, count in report.outcomes.most_common():
        table.add_row(outcome, f"{count} ({100 * count / games:.1f}%)")
    console.print(table)
    rules = Table(title="rules fired (share of games)", header_style="bold")
    for column in ("action", "clauses", "games"):
        rules.add_column(column, justify="right" if column == "games" else "left")
    for name, action in model.actions.items():
        rules.add_row(name, ", ".join(action.rule), f"{100 * report.fired[name] / games:.1f}%")
    console.print(rules)
    for message, count in report.errors.items():
        console.print(f"[red]modelling error in {count} game(s):[/] {message}")

