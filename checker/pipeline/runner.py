"""Running a check: every model, under every reading combination asked for, every property.

One exploration per (model, reading combination) decides all of that combination's properties;
each failure is replayed into a trace before it becomes part of a `Result`.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

from checker.engines import cluster
from checker.engines.backend import ExplicitEngine
from checker.engines.distributed import DistributedEngine, graph_notice, searched
from checker.engines.explicit import Budget, Progress
from checker.engines.native import Backend
from checker.engines.verdict import EngineName, Path, Status, Verdict
from checker.errors import Loc, RulecheckError, did_you_mean, warn
from checker.evidence import verdict_cache
from checker.evidence.confirm import build_trace, describe_deciders
from checker.evidence.findings import SuiteFinding, check_finding_names, load_findings
from checker.evidence.results import Result
from checker.evidence.scenario_run import ScenarioResult, scenario_results
from checker.lang import caches
from checker.lang.build import load_model
from checker.lang.loader import model_files
from checker.lang.model import Config, Model
from checker.lang.properties import (
    GENERIC,
    BoundProperty,
    Property,
    bind,
    check_expect_names,
    load_suite,
    properties_for,
    referenced_readings,
    suite_path,
)
from checker.lang.scenarios import Scenario, bind_scenario, load_scenarios
from checker.lang.symmetry import check_expressions, check_symmetric
from checker.lang.yamlsrc import ABSENT, MAX_DIGITS
from checker.limits import OutOfBudget, allow_deep_expressions
from checker.pipeline.dispatch import Pool, SerialPool, collect, process_pool, run_in_order, submit_all
from checker.pipeline.options import EngineChoice, ReadingsMode


@dataclass
class CheckOptions:
    """What a check runs, as the command line chose it. The engine, back-end and readings mode
    are enums: a string given for one is read as the enum it names (a wrong one stops here)."""

    engine: EngineChoice = EngineChoice.EXPLICIT
    budget: Budget = field(default_factory=Budget)
    readings: ReadingsMode = ReadingsMode.DEVIATIONS
    pinned: dict[str, str] = field(default_factory=dict)
    constants: dict[str, str] = field(default_factory=dict)
    only_properties: set[str] | None = None
    depth: int = 30  # symbolic: the deepest unrolling
    free_constants: bool = False  # symbolic: constants (tables cell by cell) free within their declared ranges
    free_readings: bool = False  # symbolic: readings free among their options (one run covers all)
    jobs: int = 1  # worker processes for independent explorations (with cluster `local`: its workers)
    cluster: str | None = None  # a Dask scheduler's address, or `local`: explorations run there
    backend: Backend = Backend.AUTO  # the explicit engine's back-end
    on_progress: Callable[[str, Progress], None] | None = None  # serial runs: live exploration figures
    on_jobs_done: Callable[[int, int], None] | None = None  # parallel runs: explorations finished
    witnesses: int = 1  # reachable: how many witnesses (shortest plays to different states) a result keeps
    symmetry: bool = True  # explicit engine: reduce by the model's `symmetric` domains
    reuse: bool = True  # explicit engine: verdicts cached for the same content (`verdict_cache`); `--fresh` turns it off
    # a failing `terminates` lasso's loop classified (who keeps it going; whether the whole game
    # ends surely, which explores the whole game again): off for the re-checks, which read only
    # the verdict and whether its evidence replays
    classify_loops: bool = True

    def __post_init__(self) -> None:
        self.engine = EngineChoice(self.engine)
        self.readings = ReadingsMode(self.readings)
        self.backend = Backend(self.backend)


@dataclass
class GameModels:
    """The models of one folder with their property suite."""

    folder: str
    models: list[Model]
    suite: list[Property]
    findings: list[SuiteFinding] = field(default_factory=list)
    scenarios: list[Scenario] = field(default_factory=list)


def load_games(paths: list[str]) -> list[GameModels]:
    """Load and validate the models under `paths`, grouped by folder, with their suites.

    A suite is validated against every model of its folder (it may name variants that were not
    asked for), but only the requested models are returned for checking."""
    import os

    requested = model_files(paths)
    if not requested:
        raise RulecheckError(f"no model files (*.yaml) under {', '.join(paths)}", hint="models live in models/<game>/<model>.yaml")
    folders: dict[str, list[str]] = {}
    for path in requested:
        folders.setdefault(os.path.dirname(path), []).append(path)
    games = []
    for folder, wanted in sorted(folders.items()):
        everything = [load_model(path) for path in model_files([folder])] if folder else []
        models = [m for m in everything if os.path.normpath(m.path) in {os.path.normpath(w) for w in wanted}]
        models = models or [load_model(path) for path in wanted]
        for model in everything or models:
            check_symmetric(model)
        path = suite_path(models[0].path)
        if not os.path.isfile(path):
            warn(f"no property suite {os.path.relpath(path)}: only the generic properties are checked", Loc(models[0].path, 1, 1))
        suite = load_suite(path)
        known = {m.id for m in everything} | {m.id for m in models}
        for prop in suite:
            for variant in prop.variants or ():
                if variant not in known:
                    raise RulecheckError(f"property `{prop.id}` names an unknown variant `{variant}`", prop.loc, variant, did_you_mean(variant, known))
            check_expect_names(prop, [m for m in everything if not m.abstract] or everything or models)
            for model in everything or models:
                if prop.applies_to(model):
                    check_symmetric_property(model, bind(prop, model))
        findings = load_findings(suite_path(models[0].path))
        property_ids = {p.id for p in suite} | set(GENERIC)
        for finding in findings:
            check_finding_names(finding, property_ids, everything or models)
        scenarios = load_scenarios(suite_path(models[0].path))
        for scenario in scenarios:
            for model in everything or models:
                if scenario.applies_to(model) and not model.abstract:
                    bind_scenario(scenario, model)
        games.append(GameModels(models[0].folder, models, suite, findings, scenarios))
    return games


def check_symmetric_property(model: Model, prop: BoundProperty) -> None:
    """A property of a model declared `symmetric` must not single out a member either."""
    if not model.symmetric:
        return
    if prop.kind == "value":
        raise RulecheckError(f"property `{prop.id}`: a `value` property needs the unreduced game; `symmetric` models do not have it", prop.prop.loc)
    where = f"property `{prop.id}`"
    check_expressions(model, [(where, e, prop.prop.loc) for e in (prop.expr, prop.source, prop.target, prop.measure)])


def check_selection(games: list[GameModels], options: CheckOptions) -> None:
    """Every `--reading`, `--set` and `--property` must name something in the models checked:
    a misspelt name would otherwise check nothing, or the wrong thing, and pass."""
    models = [m for g in games for m in g.models if not m.abstract]
    if not models:
        raise RulecheckError("no models to check (every model found is abstract)")
    readings = {name for m in models for name in m.readings}
    for name in options.pinned:
        if name not in readings:
            raise RulecheckError(f"--reading {name}=...: no model checked has a reading `{name}`", hint=did_you_mean(name, readings) or f"readings: {', '.join(sorted(readings)) or 'none'}")
    constants = {name for m in models for name in m.constants}
    for target in options.constants:
        name = target.partition("[")[0]
        if name not in constants:
            raise RulecheckError(f"--set {target}=...: no model checked has a constant `{name}`", hint=did_you_mean(name, constants) or f"constants: {', '.join(sorted(constants)) or 'none'}")
    if options.only_properties:
        ids = {p.id for m in models for g in games if m in g.models for p in properties_for(m, g.suite)}
        for pid in sorted(options.only_properties):
            if pid not in ids:
                raise RulecheckError(f"--property {pid}: no model checked has a property `{pid}`", hint=did_you_mean(pid, ids) or f"properties: {', '.join(sorted(ids))}")


def reading_configs(model: Model, mode: ReadingsMode | str, pinned: dict[str, str], constants: dict[str, Any]) -> list[Config]:
    """The reading combinations to check: the default and each single deviation (with `pairs`,
    also each pair of deviations of readings that share a clause or a slot), or all."""
    for name, option in pinned.items():
        if name not in model.readings:
            continue
        if option not in model.readings[name].options:
            raise RulecheckError(f"--reading {name}={option}: `{option}` is not an option of `{name}` (options: {', '.join(model.readings[name].options)})")
    base = Config({**model.default_config().constants, **constants}, {**model.default_config().readings, **{k: v for k, v in pinned.items() if k in model.readings}})
    free = [r for r in model.readings.values() if r.name not in pinned]
    mode = ReadingsMode(mode)
    if mode == ReadingsMode.DEFAULT or not free:
        return [base]
    if mode == ReadingsMode.ALL:
        combos = itertools.product(*([(r.name, o) for o in r.options] for r in free))
        return [base.with_readings(dict(combo)) for combo in combos]
    configs = [base]
    for reading in free:
        for option in reading.options:
            if option != base.readings[reading.name]:
                configs.append(base.with_readings({reading.name: option}))
    if mode == ReadingsMode.PAIRS:
        from checker.analysis.footprint import related_pairs

        names = {r.name for r in free}
        for a, b in related_pairs(model):
            if a in names and b in names:
                for oa, ob in itertools.product(model.readings[a].options, model.readings[b].options):
                    if oa != base.readings[a] and ob != base.readings[b]:
                        configs.append(base.with_readings({a: oa, b: ob}))
    return configs


def parse_constants(model: Model, raw: dict[str, str]) -> dict[str, Any]:
    """`--set NAME=VALUE` (or `--set TABLE[member]=VALUE`) values, typed and range-checked
    against this model's constants; names the model does not have are left to other models."""
    out: dict[str, Any] = {}
    for target, text in raw.items():
        name, _, rest = target.partition("[")
        if name not in model.constants:
            continue
        const = model.constants[name]
        value = _constant_value(model, const, target, text)
        if not rest:
            if const.is_table:
                raise RulecheckError(f"--set {target}: `{name}` is a table; set one entry, as in --set {name}[{const.dims[0].values()[0]}]={text}")
            out[name] = value
            continue
        key = tuple(part.rstrip("]") for part in ("[" + rest).split("[")[1:])
        if not const.is_table or len(key) != len(const.dims):
            raise RulecheckError(f"--set {target}: `{name}` takes {len(const.dims)} index(es)")
        typed_key = []
        for part, dom in zip(key, const.dims):
            member = part if dom.is_enum else (int(part) if part.lstrip("-").isdigit() else part)
            if not dom.contains(member):
                raise RulecheckError(f"--set {target}: `{part}` is not in {dom.name}")
            typed_key.append(member)
        table = dict(out.get(name, const.default))
        table[tuple(typed_key)] = value
        out[name] = table
    return out


def _constant_value(model: Model, const, target: str, text: str) -> Any:
    kind = const.elem.type.kind
    if kind == "int":
        shown = text if len(text) <= 40 else text[:40] + "..."
        if sum(c.isdigit() for c in text) > MAX_DIGITS:
            raise RulecheckError(f"--set {target}={shown}: an integer of {sum(c.isdigit() for c in text):,} digits, at most {MAX_DIGITS:,}")
        try:
            value: Any = int(text)
        except ValueError:
            raise RulecheckError(f"--set {target}={shown}: expected an integer") from None
        if const.elem.lo is not None and not const.elem.lo <= value <= const.elem.hi:
            raise RulecheckError(f"--set {target}={text}: out of its range {const.elem.lo}..{const.elem.hi}")
        return value
    if kind == "bool":
        if text.lower() not in ("true", "false"):
            raise RulecheckError(f"--set {target}={text}: expected true or false")
        return text.lower() == "true"
    assert const.elem.type.domain is not None, "an enum constant names its domain"
    members = model.domains[const.elem.type.domain].members or ()
    if text not in members:
        raise RulecheckError(f"--set {target}={text}: expected one of {', '.join(members)}")
    return text


@dataclass
class Job:
    """One exploration's worth of work: a model under a group of reading combinations that
    differ only in readings nothing consults, so one exploration decides them all."""

    model: Model
    configs: list[tuple[int, Config]]  # (position in the model's reading matrix, config)
    props: list[BoundProperty]
    engine: EngineChoice
    budget: Budget
    depth: int
    free: tuple[bool, bool] = (False, False)  # symbolic: (free_constants, free_readings)
    backend: Backend = Backend.AUTO
    witnesses: int = 1
    symmetry: bool = True
    reuse: bool = True
    props_digest: str = ""  # `caches.list_digest(props)`, computed once per model when verdicts may be reused


def plan_model(model: Model, suite: list[Property], options: CheckOptions) -> list[Job]:
    props = [p for p in properties_for(model, suite) if options.only_properties is None or p.id in options.only_properties]
    bound = [bind(p, model) for p in props]
    constants = parse_constants(model, options.constants)
    relevant = referenced_readings(model, bound)
    groups: dict[tuple, list[tuple[int, Config]]] = {}
    for position, config in enumerate(reading_configs(model, options.readings, options.pinned, constants)):
        key: tuple = tuple(sorted((n, o) for n, o in config.readings.items() if n in relevant))
        if options.engine not in (EngineChoice.EXPLICIT, EngineChoice.DISTRIBUTED):
            key = (position,)
        groups.setdefault(key, []).append((position, config))
    free = (options.free_constants, options.free_readings)
    digest = caches.list_digest(bound) if options.reuse else ""
    return [Job(model, configs, bound, options.engine, options.budget, options.depth, free, options.backend, options.witnesses, options.symmetry, options.reuse, digest) for configs in groups.values()]


def run_job(job: Job, on_progress: Callable[[str, Progress], None] | None = None) -> list[tuple[int, list[Result]]]:
    allow_deep_expressions()  # also in worker processes
    if job.props_digest:
        caches.adopt_list_digest(job.props, job.props_digest)
    options = CheckOptions(engine=job.engine, budget=job.budget, depth=job.depth, on_progress=on_progress, free_constants=job.free[0], free_readings=job.free[1], backend=job.backend, witnesses=job.witnesses, symmetry=job.symmetry, reuse=job.reuse)
    (first_position, first), *others = job.configs
    batch, exploration = _check_config(job.model, first, job.props, options)
    out = [(first_position, batch)]
    for position, config in others:
        if exploration is None:  # no exploration to share (the budget ran out before it)
            out.append((position, _check_config(job.model, config, job.props, options)[0]))
            continue
        # The options that differ are read by nothing: the exploration is the same one.
        out.append((position, [result_of(job.model, config, prop, exploration[prop.id], options.reuse) for prop in job.props]))
    return out


def check_model(model: Model, suite: list[Property], options: CheckOptions) -> list[Result]:
    return _run_jobs(plan_model(model, suite, options), options)




def check_config(model: Model, config: Config, props: list[BoundProperty], options: CheckOptions) -> list[Result]:
    """Decide every property under one configuration with the chosen engine."""
    return _check_config(model, config, props, options)[0]


def _check_config(model: Model, config: Config, props: list[BoundProperty], options: CheckOptions) -> tuple[list[Result], dict[str, Verdict] | None]:
    """check_config, also returning the explicit engine's verdicts (None for the symbolic
    engine) so that an equivalent configuration can reuse them."""
    if options.engine == EngineChoice.SYMBOLIC or (options.engine == EngineChoice.AUTO and _leaves_free(model, options)):
        # an explicit exploration covers one deck and one reading combination; left free, only
        # the symbolic engine answers for all of them
        return symbolic_results(model, config, props, options), None
    if options.engine == EngineChoice.DISTRIBUTED and not all(searched(p) for p in props):
        return _spread_and_local(model, config, props, options)
    label = f"{model.folder}/{model.id} [{config.reading_label(model)}]"
    engine: ExplicitEngine | DistributedEngine
    if options.engine == EngineChoice.DISTRIBUTED:
        engine = DistributedEngine(cluster.current())
    else:
        report = options.on_progress
        engine = ExplicitEngine((lambda p: report(label, p)) if report is not None else None)
    reused = _reused(model, config, props, options) if isinstance(engine, ExplicitEngine) else (None, None)
    try:
        verdicts = reused[1][0] if reused[1] is not None else engine.decide(model, config, props, options)
    except OutOfBudget as exc:
        if options.engine == EngineChoice.AUTO and engine.compile_over_budget:
            return symbolic_results(model, config, props, options), None
        return [unexplored_result(model, config, prop, exc.reason) for prop in props], None
    except MemoryError:
        if not engine.compiling:
            raise
        return [unexplored_result(model, config, prop, "out of memory while compiling the model") for prop in props], None
    if engine.initial_empty:
        raise no_initial_state(model, config)
    complete = reused[1][1] if reused[1] is not None else engine.complete
    if reused[0] is not None and reused[1] is None:
        verdict_cache.store(reused[0], verdicts, complete)
    results = [result_of(model, config, prop, verdicts[prop.id], options.reuse, classify_loop=options.classify_loops) for prop in props]
    if options.engine == EngineChoice.AUTO and not complete:
        undecided = [r.prop.id for r in results if r.status == "undecided"]
        if undecided:
            again = {r.prop.id: r for r in symbolic_results(model, config, [p for p in props if p.id in undecided], options)}
            results = [again.get(r.prop.id, r) for r in results]
    return results, verdicts


def _spread_and_local(model: Model, config: Config, props: list[BoundProperty], options: CheckOptions) -> tuple[list[Result], dict[str, Verdict] | None]:
    """`--engine distributed` with graph properties: the partitioned search cannot decide them
    (they need the whole state graph on one machine), so they are checked here as a local check
    would check them, by the explicit engine and labelled so, and the others on the cluster.
    Results in the properties' order; verdicts to reuse only when both halves have them."""
    local = [p for p in props if not searched(p)]
    spread = [p for p in props if searched(p)]
    results, verdicts = _check_config(model, config, local, replace(options, engine=EngineChoice.EXPLICIT))
    if spread:
        spread_results, spread_verdicts = _check_config(model, config, spread, options)
        results += spread_results
        verdicts = {**verdicts, **spread_verdicts} if verdicts is not None and spread_verdicts is not None else None
    by_id = {r.prop.id: r for r in results}
    return [by_id[p.id] for p in props], verdicts


def _reused(model: Model, config: Config, props: list[BoundProperty], options: CheckOptions) -> tuple[str | None, tuple[dict[str, Verdict], bool] | None]:
    """(the verdict cache's key, the cached verdicts and completeness): (None, None) when the
    run may not reuse them (`--fresh`), a key and None when nothing is cached yet."""
    if not options.reuse:
        return None, None
    name = verdict_cache.key(model, config, props, options)
    return name, (verdict_cache.load(name) if name is not None else None)


def _leaves_free(model: Model, options: CheckOptions) -> bool:
    """The options leave something of this model free (a ranged constant or a reading)."""
    from checker.engines.symbolic import free_constant_names

    return bool(free_constant_names(model, options.free_constants)) or (bool(options.free_readings) and bool(model.readings))


def unexplored_result(model: Model, config: Config, prop: BoundProperty, reason: str) -> Result:
    """`undecided`: the budget ran out before exploration could start."""
    return Result(
        model=model, prop=prop.prop, config=config, status=Status.UNDECIDED, engine=EngineName.EXPLICIT, bound=reason,
        expected=prop.prop.expect.verdict(model, config), detail=reason,
    )


def no_initial_state(model: Model, config: Config) -> RulecheckError:
    """No state satisfies `init` and `init_where`: every invariant would hold of nothing."""
    loc = model.init_where[0].loc if model.init_where and model.init_where[0].loc else Loc(model.path, 1, 1)
    return RulecheckError(
        f"model `{model.id}` has no initial state (readings {config.reading_label(model)}): `init` and `init_where` exclude every choice",
        loc, hint="every property would hold of an empty game; relax `init_where` or the initial choices",
    )


def symbolic_results(model: Model, config: Config, props: list[BoundProperty], options: CheckOptions) -> list[Result]:
    from checker.engines.symbolic import SymbolicEngine

    verdicts = SymbolicEngine().decide(model, config, props, options)
    return [result_of(model, config, prop, verdicts[prop.id], free_readings=options.free_readings) for prop in props]


def result_of(model: Model, config: Config, prop: BoundProperty, verdict: Verdict, reuse: bool = False, free_readings: bool = False,
              classify_loop: bool = True) -> Result:
    """The one place a verdict becomes a `Result`: its evidence is replayed and confirmed in the
    interpreter (`build_trace`), under the configuration the engine chose when it chose one
    (`reuse`: facts of the configuration the verdict cache keeps may come from it). A verdict
    over free configurations is compared with `expect` as its quantifier allows: one for every
    configuration with the expectation of each (every reading option, when readings are free);
    one for some configuration with that configuration's, and only when its constants are the
    run's own (`config`'s), the ones the suite's expectation is about."""
    cfg = verdict.config or config
    expected = prop.prop.expect.verdict(model, cfg)
    if verdict.quantifier == "every" and free_readings:
        expected = _expected_under_every_reading(model, config, prop)
    result = Result(
        model=model, prop=prop.prop, config=cfg, status=verdict.status, engine=verdict.engine, bound=verdict.bound,
        expected=expected, states=verdict.states, transitions=verdict.transitions,
        depth=verdict.depth, seconds=verdict.seconds, detail=verdict.detail, proof=verdict.proof, reused=verdict.reused,
        quantifier=verdict.quantifier, about_suite=verdict.quantifier != "some" or (verdict.config is not None and verdict.config.constants == config.constants),
    )
    evidence = verdict.evidence
    if verdict.has_evidence:
        assert evidence is not None
        result.trace = build_trace(model, cfg, prop, evidence, verdict.note, classify_loop=classify_loop, reuse=reuse)
        if result.trace.loop_deciders is not None:
            result.detail = describe_deciders(result.trace.loop_deciders)
    elif verdict.has_witness:
        assert isinstance(evidence, Path)
        result.witness_paths, result.witness_of = (evidence.states, *evidence.more), prop
    return result


def _expected_under_every_reading(model: Model, config: Config, prop: BoundProperty) -> str:
    """The one verdict `expect` gives under every combination of the readings it names, or
    words saying it differs between them (then no single verdict matches)."""
    named = sorted({name for conditions, _ in prop.prop.expect.rules for name, _ in conditions if name in model.readings})
    verdicts = {prop.prop.expect.verdict(model, config.with_readings(dict(zip(named, combo)))) for combo in itertools.product(*(model.readings[n].options for n in named))}
    return verdicts.pop() if len(verdicts) == 1 else "holds or fails, by reading"


def play_scenarios(games: list[GameModels], options: CheckOptions) -> list[ScenarioResult]:
    """Every scenario of the games, on every model it applies to, under the default readings
    with `--reading` and `--set` applied and the scenario's own `readings` on top."""
    out = []
    for game in games:
        for model in game.models:
            mine = [bind_scenario(s, model) for s in game.scenarios if s.applies_to(model)]
            if model.abstract or not mine:
                continue
            config = reading_configs(model, "default", options.pinned, parse_constants(model, options.constants))[0]
            out += scenario_results(model, config, mine)
    return out


class SideWork(Protocol):
    """Work a whole check does beside its matrix that needs none of its results (the pages'
    Readings analysis, `pipeline.readings.ReadingsAhead`)."""

    def queue(self, games: list[GameModels], pool: Pool) -> None:
        """Submit its jobs to `pool` (before the matrix's: they start first)."""

    def start(self) -> None:
        """Start the part that must run in this process, in a thread of it: it runs while the
        matrix's jobs run and the caller goes on (its owner waits for it)."""


def check_paths(paths: list[str], options: CheckOptions, pool: Pool | None = None, side: SideWork | None = None) -> list[Result]:
    """Every model under `paths` checked (`check_games`)."""
    return check_games(load_games(paths), options, pool, side)


def check_games(games: list[GameModels], options: CheckOptions, pool: Pool | None = None, side: SideWork | None = None) -> list[Result]:
    """Every model of `games` checked. With `pool` (from `check_pool`) the check matrix runs
    there, `side`'s jobs queued ahead of it and its serial part started here beside it, so the
    workers and this process are busy together and no phase waits alone at the end."""
    jobs: list[Job] = []
    check_selection(games, options)
    for game in games:
        for model in game.models:
            if not model.abstract:
                jobs.extend(plan_model(model, game.suite, options))
    if pool is None:
        return _run_jobs(jobs, options)
    if side is not None:
        side.queue(games, pool)
    handles = submit_all(run_job, jobs, pool)
    if side is not None:
        side.start()
    return _gathered(jobs, collect(handles, options.on_jobs_done))


def _run_jobs(jobs: list[Job], options: CheckOptions) -> list[Result]:
    """Run jobs on the pool the options choose (`checker.pipeline.dispatch`) and return the results in
    the order a serial run gives: model by model, reading combination by reading combination."""
    if options.engine == EngineChoice.DISTRIBUTED:
        _say_what_is_local(jobs)
    with _pool(options, jobs) as pool:
        serial = isinstance(pool, SerialPool)
        job_fn = functools.partial(run_job, on_progress=options.on_progress) if serial else run_job
        outputs = run_in_order(job_fn, jobs, pool, None if serial else options.on_jobs_done)
    return _gathered(jobs, outputs)


def _say_what_is_local(jobs: list[Job]) -> None:
    """`--engine distributed`: one line, before anything runs, naming the properties decided on
    this machine instead (`distributed.graph_notice`)."""
    import sys

    message = graph_notice([(job.model.folder, prop) for job in jobs for prop in job.props])
    if message is not None:
        print(f"rulecheck: {message}", file=sys.stderr)


def _gathered(jobs: list[Job], outputs: list[list[tuple[int, list[Result]]]]) -> list[Result]:
    """The jobs' outputs as one list of results in the serial order."""
    models = {job.model.path: job.model for job in jobs}
    for output in outputs:
        for _, batch in output:
            for result in batch:
                result.model = models[result.model.path]  # one model object per file, as in a serial run
    by_model: dict[str, list[tuple[int, list[Result]]]] = {}
    order: list[str] = []
    for job, output in zip(jobs, outputs):
        if job.model.path not in by_model:
            order.append(job.model.path)
        by_model.setdefault(job.model.path, []).extend(output)
    results: list[Result] = []
    for path in order:
        for _, batch in sorted(by_model[path], key=lambda item: item[0]):
            results.extend(batch)
    return results


@contextmanager
def check_pool(options: CheckOptions) -> Iterator[Pool | None]:
    """One pool of `--jobs` worker processes for a whole `rulecheck check` (the check matrix,
    the Readings analysis, the growth re-checks), so that each phase's last jobs overlap the
    next phase's first; None where the matrix chooses its own (`--jobs 1`, `--cluster`), and
    each phase then runs as it did alone."""
    if options.cluster is not None or options.jobs <= 1:
        yield None
        return
    with process_pool(options.jobs) as pool:
        yield pool


def read_files(models: list[Model]) -> list[str]:
    """Every file the models were loaded from, and their property suites: what a worker must
    see the same."""
    return sorted({path for model in models for path, digest in model.sources if digest != ABSENT} | {suite_path(model.path) for model in models})


@contextmanager
def _pool(options: CheckOptions, jobs: list[Job]) -> Iterator[Pool]:
    """Where the jobs run: on the cluster (the distributed engine drives its workers from this
    process, one exploration at a time), in `--jobs` worker processes, or here."""
    if options.cluster is not None:
        with cluster.session(options.cluster, options.jobs, read_files([job.model for job in jobs])) as on_cluster:
            yield SerialPool() if options.engine == EngineChoice.DISTRIBUTED else on_cluster
    elif options.jobs > 1 and len(jobs) > 1:
        with process_pool(min(options.jobs, len(jobs))) as pool:
            yield pool
    else:
        yield SerialPool()
