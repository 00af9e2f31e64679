"""`rulecheck count EXPR [PATHS] --by SLOT_OR_EXPR`: reachable states satisfying an expression,
for one configuration or a sweep of constants (`--set NAME=LO..HI`) in one run."""

from __future__ import annotations

import itertools
import json
import sys

import click

from checker.commands.common import default_paths, guarded, pairs
from checker.errors import RulecheckError


@click.command()
@click.argument("expr")
@click.argument("paths", nargs=-1, type=click.Path())
@click.option("--by", "by", multiple=True, metavar="SLOT_OR_EXPR", help="Group the states by this expression's value (a slot, `outcome`, `value`: the game value from the state under perfect play, or any expression); repeat to group by several.")
@click.option("--chance", type=click.Choice(["adversary", "expectation"]), default="adversary", show_default=True, help="With --by value: chance plays against the first side, or by its weights (as a `value` property's `chance:`).")
@click.option("--terminal", "terminal_only", is_flag=True, help="Count only terminal states (the positions where the game is over).")
@click.option("--reading", "pinned", multiple=True, metavar="NAME=OPTION", help="Pin a reading (default: every reading at its default).")
@click.option("--set", "constants", multiple=True, metavar="NAME=VALUE", help="Override a constant's value; NAME=LO..HI or NAME=A,B,C counts under each value (several sweep every combination) in one run.")
@click.option("--max-states", type=click.IntRange(min=1), default=2_000_000, show_default=True, help="Stop exploring after this many states (the counts are then incomplete, exit status 1).")
@click.option("--timeout", type=click.FloatRange(min=0.1), default=600.0, show_default=True, help="Seconds per exploration.")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
@guarded
def count(expr: str, paths: tuple[str, ...], by: tuple[str, ...], chance: str, terminal_only: bool, pinned: tuple[str, ...], constants: tuple[str, ...],
          max_states: int, timeout: float, fmt: str) -> None:
    """Count the reachable states of each model (default: every model under models/) that
    satisfy EXPR, grouped by --by: for example terminal positions by winner,
    `rulecheck count true models/ttt --terminal --by outcome`, or the game value of every
    position, `rulecheck count true models/nim --by heap --by value`. Exit 1 when an
    exploration stopped at its budget (the counts cover only the states explored)."""
    from checker.analysis.count import count_lines, count_states
    from checker.engines.explicit import Budget
    from checker.pipeline.runner import CheckOptions, check_selection, load_games, parse_constants, reading_configs

    pins, sweeps = pairs(pinned, "--reading"), {name: swept_values(name, text) for name, text in pairs(constants, "--set").items()}
    games = load_games(default_paths(paths))
    check_selection(games, CheckOptions(pinned=pins, constants={name: values[0] for name, values in sweeps.items()}))
    counts = []
    swept = [name for name, values in sweeps.items() if len(values) > 1]
    for combination in itertools.product(*sweeps.values()):
        sets = dict(zip(sweeps, combination))
        for game in games:
            for model in game.models:
                if model.abstract:
                    continue
                config = reading_configs(model, "default", pins, parse_constants(model, sets))[0]
                found = count_states(model, config, expr, by, Budget(max_states, timeout), terminal_only, chance)
                found.swept = {name: sets[name] for name in swept if name.partition("[")[0] in model.constants}
                counts.append(found)
    if fmt == "json":
        doc = {"format": "rulecheck-counts", "version": 1, "counts": [c.to_json() for c in counts]}
        click.echo(json.dumps(doc, indent=2, default=str))
    else:
        for found in counts:
            click.echo("\n".join(count_lines(found)))
    sys.exit(0 if all(c.complete for c in counts) else 1)


def swept_values(name: str, text: str) -> list[str]:
    """The values `--set NAME=TEXT` stands for: `LO..HI` (whole numbers, both ends), `A,B,C`, or
    the one value written; each is typed and range-checked against each model later."""
    low, dots, high = text.partition("..")
    if dots:
        if not (low.strip().lstrip("-").isdigit() and high.strip().lstrip("-").isdigit()) or int(low) > int(high):
            raise RulecheckError(f"--set {name}={text}: a sweep LO..HI takes two whole numbers, the lower first", hint=f"as in --set {name}=1..5")
        return [str(v) for v in range(int(low), int(high) + 1)]
    if "," in text:
        values = [part.strip() for part in text.split(",")]
        if not all(values):
            raise RulecheckError(f"--set {name}={text}: an empty value in the list", hint=f"as in --set {name}=1,2,3")
        return values
    return [text]

