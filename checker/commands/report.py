"""`rulecheck report [PATHS] --html DIR`: check the games and write the HTML report."""

from __future__ import annotations

import os

import click

from checker.commands.common import guarded


@click.command()
@click.argument("paths", nargs=-1, type=click.Path())
@click.option("--html", "html_dir", required=True, type=click.Path(file_okay=False), help="The folder of the site (index.html and a page per game).")
@click.option("--odds", is_flag=True, help="Also run the reading impact analysis: outcome probabilities per reading option and each option's divergence scenario (costs about as much as the check).")
@click.option("--jobs", "-j", type=click.IntRange(min=1), default=os.cpu_count() or 1, show_default="number of CPUs", help="Explorations run in parallel worker processes.")
@click.option("--max-states", type=click.IntRange(min=1), default=2_000_000, show_default=True, help="Explicit engine: stop after this many states.")
@guarded
def report(paths: tuple[str, ...], html_dir: str, odds: bool, jobs: int, max_states: int) -> None:
    """Check the models (default: every game under models/) under the default reading of every
    point and each single change, as the errata pages do, and write the results as a
    self-contained HTML site: ranked findings, trace players, phase pictures. Writes no traces."""
    from checker.engines.explicit import Budget
    from checker.errors import RulecheckError
    from checker.pipeline.html import write_report
    from checker.pipeline.runner import CheckOptions, check_paths

    if not paths and not os.path.isdir("models"):
        raise RulecheckError("no paths given and no `models/` folder here", hint="run from the project root, or name model files or folders")
    results = check_paths(list(paths) or ["models"], CheckOptions(budget=Budget(max_states, 600.0), jobs=jobs))
    for path in write_report(results, html_dir, odds_by_game(results) if odds else None):
        click.echo(f"wrote {path}")


def odds_by_game(results: list) -> dict[str, str]:
    """The readings sections of each game's page (outcome odds, divergence scenarios), from the
    impact analysis of its models."""
    from checker.pipeline.readings import analyse_for_errata
    from checker.report.html.odds import divergences_html, odds_html

    models: dict[str, dict] = {}
    for result in results:
        models.setdefault(result.model.folder, {})[result.model.id] = result.model
    out = {}
    for folder, by_id in sorted(models.items()):
        impacts = analyse_for_errata(list(by_id.values()))
        out[folder] = odds_html(impacts) + "\n<h2>Readings: where they part</h2>\n" + divergences_html(impacts)
    return out
