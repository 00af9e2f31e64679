"""`rulecheck count EXPR [PATHS] --by SLOT_OR_EXPR`: reachable states satisfying an expression."""

from __future__ import annotations

import json
import sys

import click

from checker.commands.common import default_paths, guarded, pairs


@click.command()
@click.argument("expr")
@click.argument("paths", nargs=-1, type=click.Path())
@click.option("--by", "by", metavar="SLOT_OR_EXPR", help="Group the states by this expression's value (a slot, `outcome`, or any expression).")
@click.option("--terminal", "terminal_only", is_flag=True, help="Count only terminal states (the positions where the game is over).")
@click.option("--reading", "pinned", multiple=True, metavar="NAME=OPTION", help="Pin a reading (default: every reading at its default).")
@click.option("--set", "constants", multiple=True, metavar="NAME=VALUE", help="Override a constant's value.")
@click.option("--max-states", type=click.IntRange(min=1), default=2_000_000, show_default=True, help="Stop exploring after this many states (the counts are then incomplete, exit status 1).")
@click.option("--timeout", type=click.FloatRange(min=0.1), default=600.0, show_default=True, help="Seconds per exploration.")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
@guarded
def count(expr: str, paths: tuple[str, ...], by: str | None, terminal_only: bool, pinned: tuple[str, ...], constants: tuple[str, ...], max_states: int, timeout: float, fmt: str) -> None:
    """Count the reachable states of each model (default: every model under models/) that
    satisfy EXPR, grouped by --by: for example terminal positions by winner,
    `rulecheck count true models/ttt --terminal --by outcome`. Exit 1 when an exploration
    stopped at its budget (the counts cover only the states explored)."""
    from checker.analysis.count import count_lines, count_states
    from checker.engines.explicit import Budget
    from checker.runner import CheckOptions, check_selection, load_games, parse_constants, reading_configs

    pins, sets = pairs(pinned, "--reading"), pairs(constants, "--set")
    games = load_games(default_paths(paths))
    check_selection(games, CheckOptions(pinned=pins, constants=sets))
    counts = []
    for game in games:
        for model in game.models:
            if model.abstract:
                continue
            config = reading_configs(model, "default", pins, parse_constants(model, sets))[0]
            counts.append(count_states(model, config, expr, by, Budget(max_states, timeout), terminal_only))
    if fmt == "json":
        doc = {"format": "rulecheck-counts", "version": 1, "counts": [c.to_json() for c in counts]}
        click.echo(json.dumps(doc, indent=2, default=str))
    else:
        for found in counts:
            click.echo("\n".join(count_lines(found)))
    sys.exit(0 if all(c.complete for c in counts) else 1)

