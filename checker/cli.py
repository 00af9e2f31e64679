"""The `rulecheck` command line.

Exit status: 0 when every result matches its `expect` (or, for lint, every model is valid; for
verify, every trace is confirmed); 1 when some result does not (or a saved trace is stale; `check
--fail-on new|any` changes what counts, see checker.report.baseline); 2 for
a usage or model error, including a modelling error met while running a model (one located
message, no traceback unless --debug); 3 for an internal error (one line; --debug for the
traceback).
"""

from __future__ import annotations

import json
import os
import sys
import time
from contextlib import nullcontext
from typing import TYPE_CHECKING

import click

from checker import __version__
from checker.commands import add_commands
from checker.commands.common import DEFAULT_MODELS, guarded
from checker.commands.common import console as _console
from checker.commands.common import default_paths as _default_paths
from checker.commands.common import pairs as _pairs
from checker.commands.progress import Heartbeat, progress_display
from checker.engines.explicit import Budget
from checker.engines.native import Backend
from checker.errors import RulecheckError
from checker.lang import caches
from checker.limits import allow_deep_expressions
from checker.pipeline.dispatch import Pool
from checker.pipeline.gc_policy import tune_collector
from checker.pipeline.options import EngineChoice, ReadingsMode
from checker.report.terminal import print_table

if TYPE_CHECKING:
    from checker.pipeline.runner import GameModels, SideWork

@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--debug", is_flag=True, help="Show tracebacks for errors.")
@click.version_option(version=__version__, prog_name="rulecheck")  # not looked up by distribution name: the command and the distribution (tabletop-rulecheck) differ
def main(debug: bool) -> None:
    """rulecheck: a rules model checker for tabletop games."""
    allow_deep_expressions()
    tune_collector()


@main.command()
@click.argument("paths", nargs=-1, type=click.Path())
@click.option("--details", is_flag=True, help="List every condition the heuristic finds unexplained, and every answered question.")
@guarded
def lint(paths: tuple[str, ...], details: bool) -> None:
    """Validate models (default: every model under models/) and report their size, clause coverage,
    review questions answered, citations by branch, and conditions no cited text explains."""
    from checker.lint.scope import lint_scopes
    from checker.lint.table import lint_table

    scopes = lint_scopes(_default_paths(paths))
    games = [scope.game for scope in scopes]
    table, notes = lint_table(scopes, details)
    console = _console()
    print_table(console, table)
    for line in notes:
        console.print(line, markup=False)
    console.print("unexplained tests: conditions testing a slot or constant that no cited text mentions (a word-matching heuristic; `--details` lists them)", markup=False)
    console.print(f"[green]{sum(len(g.models) for g in games)} model(s) valid[/]")


@main.command()
@click.argument("paths", nargs=-1, type=click.Path())
@click.option("--engine", type=click.Choice([e.value for e in EngineChoice]), default="explicit", show_default=True, help="auto: explicit while the state space fits the budget, symbolic beyond; distributed: each exploration's states partitioned over the --cluster workers (state and transition properties, deadlock, determinism, coverage; the graph properties, terminates, leads-to, can-end and value, are decided on this machine by the explicit engine).")
@click.option("--max-states", type=click.IntRange(min=1), default=2_000_000, show_default=True, help="Explicit engine: stop after this many states.")
@click.option("--timeout", type=click.FloatRange(min=0.1), default=600.0, show_default=True, help="Seconds per exploration.")
@click.option("--depth", type=click.IntRange(min=1), default=30, show_default=True, help="Symbolic engine: deepest unrolling.")
@click.option("--free-constants", is_flag=True, help="Symbolic engine: leave constants free within their declared ranges, tables cell by cell (a counterexample names the values).")
@click.option("--free-readings", is_flag=True, help="Symbolic engine: leave readings free among their options (one run covers every combination).")
@click.option("--readings", "readings_mode", type=click.Choice([m.value for m in ReadingsMode]), default="deviations", show_default=True, help="deviations: the default combination and every single-option change; pairs: also every pair of changes to readings that share a clause or a slot, reporting interactions.")
@click.option("--reading", "pinned", multiple=True, metavar="NAME=OPTION", help="Pin a reading.")
@click.option("--set", "constants", multiple=True, metavar="NAME=VALUE", help="Override a constant's value.")
@click.option("--property", "only", multiple=True, metavar="ID", help="Check only these properties.")
@click.option("--format", "fmt", type=click.Choice(["summary", "table", "json"]), default="summary", show_default=True, help="summary: a line per game and the unexpected results; table: every result.")
@click.option("--verbose", "-v", is_flag=True, help="Print the full table of results (same as --format table).")
@click.option("--out", default="counterexamples", show_default=True, type=click.Path(), help="Where traces are written.")
@click.option("--no-write", is_flag=True, help="Do not write traces.")
@click.option("--itf", is_flag=True, help="Also write traces in the Informal Trace Format (.itf.json).")
@click.option("--errata-dir", default=os.path.join("docs", "errata"), show_default=True, type=click.Path(), help="Where errata pages are written (on full runs only).")
@click.option("--jobs", "-j", type=click.IntRange(min=1), default=os.cpu_count() or 1, show_default="number of CPUs", help="Explorations run in parallel worker processes.")
@click.option("--backend", type=click.Choice([b.value for b in Backend]), default="auto", show_default=True, help="Explicit engine: native (the compiled bytecode interpreter, numba), python (the reference), auto (native when numba is installed, else python).")
@click.option("--cluster", metavar="ADDRESS", help="Run the explorations on the Dask cluster whose scheduler is at ADDRESS (tcp://host:8786), or `local`: a cluster of --jobs worker processes on this machine (needs the `cluster` extra).")
@click.option("--junit", "junit_path", type=click.Path(dir_okay=False), help="Also write the results as JUnit XML to this file (one test case per property and reading).")
@click.option("--sarif", "sarif_path", type=click.Path(dir_okay=False), help="Also write findings and unexpected results as SARIF 2.1.0 to this file (for code scanning).")
@click.option("--baseline", "baseline_path", type=click.Path(dir_okay=False), help="An earlier `--format json` output: report new, fixed and unchanged findings against it.")
@click.option("--fail-on", type=click.Choice(["new", "unexpected", "any"]), default="unexpected", show_default=True, help="What makes exit status 1: a finding or unexpected result not in the baseline; a result differing from its expect; any finding or unexpected result.")
@click.option("--html", "html_dir", type=click.Path(file_okay=False), help="Also write the results as a self-contained HTML report to this folder (as `rulecheck report --html`).")
@click.option("--witnesses", type=click.IntRange(min=1), default=None, metavar="N", help="Keep up to N witnesses of each `reachable` that holds (shortest plays to different states) and write them with the traces; without it one is kept and written only for properties with `witness: true`.")
@click.option("--no-symmetry", is_flag=True, help="Explore every state of models that declare `symmetric` domains, not one per renaming.")
@click.option("--no-growth", is_flag=True, help="Skip the growth re-check (each filed finding re-checked with the model's marked bounds one step larger).")
@click.option("--no-document-size", is_flag=True, help="Skip playing each filed finding at the document's size (its scaled constants at the values the document prints).")
@click.option("--fresh", is_flag=True, help="Read no cache of any kind: every verdict, fact, growth re-check, Readings section, generated code and program is computed again (and cached again for the next run).")
@guarded
def check(paths: tuple[str, ...], engine: str, max_states: int, timeout: float, depth: int, free_constants: bool, free_readings: bool, readings_mode: str, pinned: tuple[str, ...], constants: tuple[str, ...], only: tuple[str, ...], fmt: str, verbose: bool, out: str, no_write: bool, itf: bool, errata_dir: str, jobs: int, backend: str, cluster: str | None, junit_path: str | None, sarif_path: str | None, baseline_path: str | None, fail_on: str, html_dir: str | None, witnesses: int | None, no_symmetry: bool, no_growth: bool, no_document_size: bool, fresh: bool) -> None:
    """Check models against their properties (default: every model under models/).

    Each filed finding is then re-checked with the bounds its model marks (`bound: true`) one
    step larger; one that vanishes is labelled a bound artefact (--no-growth skips this).

    Writes counterexample traces to --out and, on a full run (every model of each game named, no
    --property, --reading, --set, and the default reading matrix), regenerates each checked
    game's errata page."""
    from checker.engines.native import space_store
    from checker.pipeline.errata import write_errata
    from checker.pipeline.fix_check import fix_checks
    from checker.pipeline.readings import ReadingsAhead
    from checker.pipeline.runner import check_pool, load_games, play_scenarios
    from checker.report.baseline import compare, fails, known_fingerprints, load_baseline, require_baseline
    from checker.report.evidence_files import write_evidence
    from checker.report.json_report import results_json
    from checker.report.summary import print_summary
    from checker.report.table import print_results

    started = time.monotonic()
    click.get_current_context().with_resource(caches.fresh_run(fresh))  # --fresh: no cache read, here or in the workers
    require_baseline(fail_on, baseline_path)
    baseline = load_baseline(baseline_path) if baseline_path else None
    options = _check_options(engine, max_states, timeout, depth, readings_mode, pinned, constants, only)
    options.jobs = jobs
    options.backend = _backend(backend, engine)
    options.witnesses = witnesses or 1
    options.symmetry = not no_symmetry
    options.cluster = _cluster(cluster, engine)
    if free_constants or free_readings:
        if engine == "explicit":
            raise RulecheckError("--free-constants and --free-readings need --engine symbolic (or auto)")
        options.free_constants, options.free_readings = free_constants, free_readings
        if free_readings:
            options.readings = ReadingsMode.DEFAULT  # one symbolic run covers every reading combination
    full_run = (not only and not pinned and not constants and readings_mode == "deviations" and engine == "explicit"
                and _whole_games(_default_paths(paths)))
    readings = ReadingsAhead() if full_run and not no_write else None  # the pages' Readings analysis, made during the check
    # The Readings analysis's whole explorations, kept for the matrix (set before the workers start)
    with Heartbeat() as beat:
        with space_store.sharing() if readings is not None else nullcontext(), check_pool(options) as pool:
            beat.enter("loading the models")
            games = load_games(_default_paths(paths))  # once: the scenarios are played on the same models
            beat.enter("checking the properties")
            results = _run_checks(games, options, pool, readings, beat)
            beat.enter("playing the scenarios")
            scenarios = play_scenarios(games, options) if not only else []
            if not no_growth:
                beat.enter("re-checking the findings (bounds one step larger, invented numbers, the document's size)")
                _growth(results, max_states, timeout, options.jobs, pool, document_size=not no_document_size)
            beat.enter("the Readings analysis of the errata pages")
            prepared = readings.wait() if readings is not None else None  # inside the block: the Readings re-check uses the shared spaces
            beat.enter("checking the findings' proposed wordings")
            fixes = fix_checks(games, results, options) if full_run and not no_write and not modelling_errors(results) else {}
        failures = modelling_errors(results)
        if failures:  # errors before noise: the located error alone, nothing written
            click.echo("\n".join(failures), err=True)
            sys.exit(2)
        if not no_write:
            beat.enter("writing the traces and pages")
            write_evidence(results, out, itf=itf, prune=full_run, all_witnesses=witnesses is not None)
            if full_run:
                write_errata(results, errata_dir, options.jobs, prepared, fixes)
    found = _interactions(results) if readings_mode == "pairs" else []
    if junit_path:
        from checker.report.junit import write_junit

        write_junit(results, junit_path, None if no_write else out)
    if sarif_path:
        from checker.report.sarif import write_sarif

        write_sarif(results, sarif_path, None if no_write else out, known_fingerprints(baseline) if baseline is not None else None)
    if html_dir:
        from checker.pipeline.html import write_report

        write_report(results, html_dir)
    comparison = compare(results, baseline) if baseline is not None else None
    if fmt == "json":
        doc = results_json(results)
        if readings_mode == "pairs":
            doc["interactions"] = [i.to_json() for i in found]
        if comparison is not None:
            doc["baseline"] = comparison.to_json()
        if scenarios:
            doc["scenarios"] = [s.to_json() for s in scenarios]
        click.echo(json.dumps(doc, indent=2, default=str))
    elif fmt == "table" or verbose:
        print_results(results, _console())
        for scenario in scenarios:
            click.echo(f"scenario {scenario.id}: passes" if scenario.passed else scenario.located())
    else:
        print_summary(results, _console(), None if no_write else out, time.monotonic() - started, scenarios)
    for interaction in found if fmt != "json" else []:
        click.echo(interaction.describe())
    for line in comparison.lines() if comparison is not None and fmt != "json" else []:
        click.echo(line)
    sys.exit(1 if fails(fail_on, results, comparison) or not all(s.passed for s in scenarios) else 0)


def _growth(results: list, max_states: int, timeout: float, jobs: int, pool: Pool | None = None, document_size: bool = True) -> None:
    """The growth re-check of every filed finding, its re-check with the invented numbers at
    other plausible values and (`document_size`) its play at the document's size (outcomes
    attached to the results), in up to `jobs` worker processes (`pool`'s when given)."""
    from checker.pipeline.full_size import size_checks
    from checker.pipeline.growth import growth_checks
    from checker.pipeline.invented import value_checks

    growth_checks(results, max_states, timeout, jobs=jobs, pool=pool)
    value_checks(results, max_states, timeout, pool=pool)
    if document_size:
        size_checks(results, pool=pool)


def _interactions(results: list) -> list:
    from checker.analysis.interactions import interactions

    return interactions(results)


def modelling_errors(results: list) -> list[str]:
    """One located message per distinct modelling error the checks ran into: where it is
    written, the action and parameters being tried, and the play that reaches it (a run that
    meets one prints these alone and writes no finding summary, trace or page)."""
    seen: set[tuple[str, str]] = set()
    lines: list[str] = []
    for result in results:
        error = result.trace.error if result.trace is not None else None
        if error is None or (error.message, str(error.loc)) in seen:
            continue
        seen.add((error.message, str(error.loc)))
        lines.append(error.located())
        steps = [f"{s.action}({', '.join(f'{k}={v}' for k, v in s.params.items())})" for s in result.trace.steps]
        shown = " -> ".join(steps[:12]) + (f" -> ... ({len(steps)} steps)" if len(steps) > 12 else "")
        lines.append(f"  reached by: {shown or 'the initial state'} [{result.model.folder}/{result.model.id}, readings {result.reading_label}]")
    return lines


def _backend(backend: str, engine: str) -> Backend:
    """--backend native is refused when the native back-end is not installed; the default
    `auto` then runs every explicit exploration in the Python engine, and says so once, since a
    whole check takes about seven times the CPU there and the remedy is one install away."""
    from checker.engines.native import unavailable_reason

    if backend == Backend.PYTHON:
        return Backend.PYTHON
    reason = unavailable_reason()
    if reason is not None and backend == "native":
        raise RulecheckError(f"--backend {backend}: {reason}")
    if reason is not None and engine != "symbolic":
        click.echo(f"rulecheck: the compiled back-end is unavailable, {reason}: the explicit engine runs in Python, the reference, several times slower", err=True)
    return Backend(backend)


def _cluster(address: str | None, engine: str) -> str | None:
    """--engine distributed needs --cluster; --cluster needs Dask installed (checked before loading anything)."""
    from checker.engines.cluster import require_dask

    if engine == "distributed" and address is None:
        raise RulecheckError("--engine distributed needs a cluster: add --cluster ADDRESS (or --cluster local)")
    if address is not None:
        require_dask("--cluster")
    return address


def _check_options(engine: str, max_states: int, timeout: float, depth: int, readings_mode: str, pinned: tuple[str, ...], constants: tuple[str, ...], only: tuple[str, ...]):
    from checker.pipeline.runner import CheckOptions

    return CheckOptions(
        engine=EngineChoice(engine), budget=Budget(max_states, timeout), readings=ReadingsMode(readings_mode), pinned=_pairs(pinned, "--reading"),
        constants=_pairs(constants, "--set"), only_properties=set(only) or None, depth=depth,
    )


def _whole_games(paths: list[str]) -> bool:
    """Whether the paths cover every model file of each game they touch: a page or the pruning of
    a game's traces from a few of its variants would drop what the others showed."""
    from checker.lang.loader import model_files

    given = model_files(paths)
    return given == model_files(sorted({os.path.dirname(p) for p in given}))


def _run_checks(games: list[GameModels], options, pool: Pool | None = None, side: SideWork | None = None, beat: Heartbeat | None = None) -> list:
    from checker.pipeline.runner import check_games

    with progress_display(beat) as (on_progress, on_jobs_done):
        options.on_progress = on_progress
        options.on_jobs_done = on_jobs_done
        return check_games(games, options, pool, side)


@main.command()
@click.argument("games", nargs=-1)
@click.option("--models-dir", default=DEFAULT_MODELS, show_default=True, type=click.Path())
@click.option("--errata-dir", default=os.path.join("docs", "errata"), show_default=True, type=click.Path())
@guarded
def errata(games: tuple[str, ...], models_dir: str, errata_dir: str) -> None:
    """Regenerate the errata pages of GAMES (folder names under models/; default: all)."""
    from checker.pipeline.errata import write_errata
    from checker.pipeline.fix_check import fix_checks
    from checker.pipeline.runner import load_games

    paths = tuple(os.path.join(models_dir, g) for g in games) or (models_dir,)
    for path in paths:
        if not os.path.isdir(path):
            raise RulecheckError(f"no game folder `{path}`", hint=f"games: {', '.join(sorted(os.listdir(models_dir))) if os.path.isdir(models_dir) else 'none'}")
    options = _check_options("explicit", 2_000_000, 600.0, 30, "deviations", (), (), ())
    options.jobs = os.cpu_count() or 1
    loaded = load_games(list(paths))
    results = _run_checks(loaded, options)
    _growth(results, 2_000_000, 600.0, options.jobs)
    for path in write_errata(results, errata_dir, options.jobs, fixes=fix_checks(loaded, results, options)):
        click.echo(f"wrote {path}")


@main.command()
@click.argument("paths", nargs=-1, type=click.Path())
@click.option("--max-states", type=click.IntRange(min=1), default=500_000, show_default=True, help="States per exploration (divergence search and each option's graph).")
@click.option("--timeout", type=click.FloatRange(min=0.1), default=300.0, show_default=True, help="Seconds per exploration.")
@click.option("--games", type=click.IntRange(min=1), default=2000, show_default=True, help="Seeded random games per configuration when its state space exceeds the budget.")
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--pairs", is_flag=True, help="Also every pair of deviations of readings that share a clause or a slot, and their interactions.")
@click.option("--between", "between", multiple=True, metavar="NAME=OPTION", help="Only the divergence scenario between the default combination and this one (repeat for several readings).")
@click.option("--format", "fmt", type=click.Choice(["table", "json", "markdown"]), default="table", show_default=True, help="markdown: the Readings section of each game's errata page.")
@guarded
def readings(paths: tuple[str, ...], max_states: int, timeout: float, games: int, seed: int, pairs: bool, between: tuple[str, ...], fmt: str) -> None:
    """What each reading changes: divergence scenario, outcome impact and class, per model.

    For every reading option other than the default: the shortest play legal under both after
    which they differ, the reachable outcomes, can-end, longest game, outcome probabilities
    (exact on the explicit graph, or seeded estimates beyond the budget), forced wins for two
    sides, and the class: game-breaking, outcome-changing, odds-shifting, rules-visible or moot."""
    from checker.analysis.impact import Settings
    from checker.pipeline.readings import analyse_model, readings_section
    from checker.pipeline.runner import load_games
    from checker.report.impact_json import impacts_json

    settings = Settings(max_states, timeout, games, seed, pairs)
    if between:
        _print_divergences(_default_paths(paths), _pairs(between, "--between"), settings, fmt)
        return
    results = []
    for game in load_games(_default_paths(paths)):
        for model in game.models:
            if not model.abstract:
                results.append(analyse_model(model, settings))
    if fmt == "json":
        click.echo(json.dumps(impacts_json(results), indent=2, default=str))
        return
    if fmt == "markdown":
        from checker.report.markdown_escape import escaped_page

        for folder in dict.fromkeys(r.model.folder for r in results):
            mine = [r for r in results if r.model.folder == folder]
            click.echo(escaped_page(f"## Readings: {mine[0].model.game}\n\n" + "\n".join(readings_section([r.model for r in mine], [], mine, settings))))
        return
    _print_impacts(results)


def _print_divergences(paths: list[str], chosen: dict[str, str], settings, fmt: str) -> None:
    """`readings --between`: the divergence scenario between the default combination and the
    chosen options, for every model that has all the readings named."""
    from checker.analysis.divergence import find_divergence
    from checker.pipeline.runner import load_games, reading_configs
    from checker.report.impact_json import divergence_json
    from checker.report.reading_impact import scenario_lines

    out = []
    for game in load_games(paths):
        for model in game.models:
            if model.abstract or not set(chosen) <= set(model.readings):
                continue
            for name, option in chosen.items():
                if option not in model.readings[name].options:
                    raise RulecheckError(f"--between {name}={option}: `{option}` is not an option of `{name}` (options: {', '.join(model.readings[name].options)})")
            target = reading_configs(model, "default", chosen, {})[0]
            found = find_divergence(model, model.default_config(), target, settings.max_states, settings.timeout)
            out.append((model, found))
    if not out:
        raise RulecheckError(f"--between: no model has the readings {', '.join(sorted(chosen))}")
    if fmt == "json":
        click.echo(json.dumps({"format": "rulecheck-divergences", "version": 1, "divergences": [{"game": m.folder, "variant": m.id, **(divergence_json(d) or {})} for m, d in out]}, indent=2, default=str))
        return
    for model, found in out:
        click.echo(f"## {model.folder}/{model.id}: default against {found.alternative.reading_label(model)}\n")
        click.echo("\n".join(scenario_lines(found)))


def _print_impacts(results: list) -> None:
    from rich.table import Table

    table = Table(title="rulecheck readings", header_style="bold")
    for column in ("game", "model", "reading", "option", "class", "divergence", "why"):
        table.add_column(column)
    for result in results:
        for reading in result.readings:
            for option in reading.options:
                div = option.divergence
                where = f"after {div.steps} step(s): {div.kind}" if div is not None and div.found else "none"
                table.add_row(result.model.folder, result.model.id, reading.reading.name, option.option, option.classification, where, "; ".join(option.reasons))
    console = _console()
    print_table(console, table)
    for result in results:
        for pair in result.pairs:
            if pair.interacts:
                names = " + ".join(f"{n}={o}" for n, o in pair.options)
                console.print(f"{result.model.folder}/{result.model.id}: {names} interact: together {sorted(pair.effect) or 'no change'}, separately {sorted(pair.union) or 'no change'}")
        console.print(f"{result.model.folder}/{result.model.id}: {result.seconds:.1f} CPU s")


@main.command()
@click.argument("model_path", type=click.Path())
@click.option("--games", type=click.IntRange(min=1), default=1000, show_default=True)
@click.option("--seed", type=int, default=0, show_default=True, help="Same seed, same games.")
@click.option("--max-steps", type=click.IntRange(min=1), default=1000, show_default=True, help="Give up on a game after this many steps.")
@click.option("--reading", "pinned", multiple=True, metavar="NAME=OPTION")
@click.option("--set", "constants", multiple=True, metavar="NAME=VALUE")
@guarded
def simulate(model_path: str, games: int, seed: int, max_steps: int, pinned: tuple[str, ...], constants: tuple[str, ...]) -> None:
    """Play random games of one model: length, outcomes, and how often each rule fires.

    Chance moves follow their weights; players choose uniformly. An estimate, never a proof."""
    from checker.engines.simulate import simulate as run_games
    from checker.lang.build import load_model
    from checker.lang.compile import CompiledModel
    from checker.pipeline.runner import CheckOptions, GameModels, check_selection, parse_constants, reading_configs
    from checker.report.simulate_table import print_simulation

    model = load_model(model_path)
    check_selection([GameModels(model.folder, [model], [])], CheckOptions(pinned=_pairs(pinned, "--reading"), constants=_pairs(constants, "--set")))
    config = reading_configs(model, "default", _pairs(pinned, "--reading"), parse_constants(model, _pairs(constants, "--set")))[0]
    report = run_games(CompiledModel(model, config, lazy=True), games, seed, max_steps)
    console = _console()
    print_simulation(console, model, config, report, games, seed)


@main.command()
@click.argument("trace_file", type=click.Path())
@click.option("--models-dir", default=DEFAULT_MODELS, show_default=True, type=click.Path(), help="Where the trace's model is found (models/<game>/).")
@guarded
def explain(trace_file: str, models_dir: str) -> None:
    """Print the play-by-play narrative of a saved trace (a .json file from counterexamples/),
    after checking that the current model still produces it (exit 1 if not)."""
    from checker.commands.trace_io import load_trace_narrative
    from checker.commands.verify import NoModelFolder, StaleTrace, verify_trace
    from checker.errors import warn

    try:
        verify_trace(trace_file, models_dir)
    except NoModelFolder as exc:
        warn(f"not verified against a model: {exc.message}", exc.loc)
    except StaleTrace as exc:
        click.echo(f"{trace_file}: stale or edited trace: {exc}", err=True)
        click.echo("Re-run `rulecheck check` to regenerate the evidence.", err=True)
        sys.exit(1)
    click.echo(load_trace_narrative(trace_file))


@main.command()
@click.argument("traces", nargs=-1, type=click.Path())
@click.option("--models-dir", default=DEFAULT_MODELS, show_default=True, type=click.Path(), help="Where the traces' models are found (models/<game>/).")
@guarded
def verify(traces: tuple[str, ...], models_dir: str) -> None:
    """Re-check saved traces (default: every trace under counterexamples/) against the current
    models: replay every step and confirm what the property's kind claims. Exit 1 if any
    trace is stale or edited, 2 if a file is not a readable trace."""
    from checker.commands.verify import StaleTrace, trace_files, verify_trace

    files = trace_files(list(traces) or ["counterexamples"])
    if not files:
        raise RulecheckError("no trace files to verify", hint="name .json trace files or folders")
    stale = 0
    for path in files:
        try:
            click.echo(f"{path}: {verify_trace(path, models_dir)}")
        except StaleTrace as exc:
            stale += 1
            click.echo(f"{path}: stale or edited trace: {exc}", err=True)
    click.echo(f"{len(files)} trace(s), {len(files) - stale} confirmed, {stale} stale or edited")
    sys.exit(1 if stale else 0)


add_commands(main)

if __name__ == "__main__":
    main()
