"""The growth re-check: does a finding survive when the decks, hands and piles grow by one?

A model checks small decks so that exploring them stays cheap; a failure that needs exactly
that deck is a fact about the model, not the rules. So each filed finding is re-checked on one
representative failing result (a property pinned `fails` where the finding has one, then the
shortest counterexample), first with every constant the model marks `bound: true` one step
larger at once. A marked value of zero is a card or pile the variant leaves out and stays out; a
value at the top of its declared range stays there and the check says so. A bound that declares
what it `grows_with` grows with it as one step (a hand one card larger with the cards it deals,
so that the rest of the deal does not shrink): such a step is one "bound" below.

Growing every bound at once multiplies the state space, so that run often overruns its budget.
Then (and whenever that run establishes nothing: it held only vacuously, or in a smaller game)
each bound is grown on its own, one run each, in the model's order, until one makes the
finding vanish: a finding that vanishes when any single deck, hand or pile grows by one is a bound
artefact, and the outcome names that bound. If every single growth still fails, the finding
survives each; if none vanishes and some established nothing, neither does the re-check ("not
re-checked"), and the outcome says which bound and why. Where only the whole larger game can
keep the failure (a `reachable` nothing reaches, coverage, a graph property), the bounds are
grown one at a time first, and every bound at once is run only if their growths, multiplied,
predict that it fits its budget (otherwise it says it was not run, and why): such a run could
only keep the finding by exploring more than all of them together.

Breadth first is needed only for the shortest trace and for a finding that vanishes (which takes
the whole larger game); a finding survives a growth as soon as one violation is shown in the
larger game, whatever found it. So a larger run whose breadth-first exploration ends undecided
(over its budget or clock, or every bound at once not run because the one-at-a-time runs
predict an overrun and left the finding undecided) is handed to a seeded search of the same
larger configuration under the same state budget (`checker.analysis.witness`: random walks, and
for `can-end` the exhaustive exploration of everything reachable from a candidate state), for the
kinds a finite play can show to fail; a violation it meets, once replayed and confirmed in the
interpreter, makes that growth survive, and the outcome's words say it was found by a seeded
search after so many states while breadth first passed its budget. A search that meets none
decides nothing, and the reason says it was made. `reachable`, coverage and `value` stay as they
were: only the whole larger game keeps their failures.

The cost is kept small by these choices: one representative per finding (not per failing
result), the larger run decides only that property and stops at its first violation (breadth
first, so a finding that survives usually costs a fraction of the state space), the one-at-a-time
runs only when all at once established nothing, and a state budget per run of `GROWTH_FACTOR` times the
representative's own exploration (at least `MIN_STATES`), with a time limit as a safety net. A
run that hits either establishes nothing. Findings whose representatives share a configuration
(two properties failing under one reading) need the same larger configurations under the same
budget, so they are re-checked together and each larger configuration is explored once for all
of their properties (`SharedRuns`, which keeps a verdict only where the property's own run would
have explored the very same states). Outcomes are cached on disk, keyed by the checker's
code, the game's model files and suite, the representative, the budget and the seeded search's
seed and budget, so an unchanged game pays once.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, replace
from typing import Any

from checker.analysis.bounds import GROWTH_FACTOR, GROWTH_TIMEOUT, MIN_STATES, SINGLES_ALLOWANCE, Growth, grow
from checker.analysis.witness import SEED, find_violation, searchable
from checker.engines.explicit import Budget
from checker.errors import RulecheckError
from checker.evidence.growth_check import GrowthCheck, Outcome, SingleGrowth
from checker.evidence.results import Result
from checker.lang import caches
from checker.lang.model import Config
from checker.lang.properties import BoundProperty, bind
from checker.lang.property_kinds import KINDS, KindClass
from checker.pipeline.dispatch import Pool
from checker.pipeline.options import EngineChoice
from checker.report.findings import FindingEvidence, group_findings

CACHE_DIR = caches.PROJECT_DIR


def representative(entry: FindingEvidence) -> Result:
    """The failure a finding is re-checked on: one pinned `fails` if any, the shortest trace."""
    def key(r: Result) -> tuple:
        return (r.expected != "fails", r.trace is None, len(r.trace.steps) if r.trace else 0, r.states)
    return min(entry.results, key=key)  # min keeps the first of equals: the serial order


def filed_entries(results: list[Result]) -> list[FindingEvidence]:
    """The filed findings the results show, game by game, without those filed as bound
    artefacts: what the growth, invented-number and document-size re-checks re-check."""
    from checker.evidence.findings import suite_findings

    entries: list[FindingEvidence] = []
    for folder in sorted({r.model.folder for r in results}):
        mine = [r for r in results if r.model.folder == folder]
        entries += [e for e in group_findings(mine, suite_findings(mine)) if e.finding is not None and e.cls != "bound-artefact"]
    return entries


def growth_checks(results: list[Result], max_states: int, timeout: float, cache_dir: str | None = CACHE_DIR, jobs: int = 1, pool: Pool | None = None) -> list[GrowthCheck]:
    """Re-check every filed finding the results show (not those filed as bound artefacts) and
    attach each outcome to the failing results of its finding (`Result.growth`). With `jobs`
    above 1 the findings are re-checked in that many worker processes (those of `pool` when
    given: the check's own, `checker.pipeline.runner.check_pool`); outcomes are attached in the serial
    order either way."""
    from checker.pipeline.dispatch import SerialPool, process_pool, run_in_order

    entries = filed_entries(results)
    chosen = [(e.id, representative(e)) for e in entries]
    groups: dict[tuple, list[int]] = {}
    for number, (_, result) in enumerate(chosen):
        groups.setdefault(_group_key(result), []).append(number)
    # The largest explorations first, so that worker processes finish together rather than one
    # waiting on the last big group (the outcomes do not depend on the order they are computed in).
    ordered = sorted(groups.values(), key=lambda members: -chosen[members[0]][1].states)
    items = [([chosen[n] for n in members], max_states, timeout, cache_dir) for members in ordered]
    if pool is not None:
        grouped = run_in_order(_recheck_group, items, pool)
    elif jobs > 1 and len(items) > 1:
        with process_pool(min(jobs, len(items))) as own:
            grouped = run_in_order(_recheck_group, items, own)
    else:
        grouped = run_in_order(_recheck_group, items, SerialPool())
    by_number = {n: check for members, checks in zip(ordered, grouped, strict=True) for n, check in zip(members, checks, strict=True)}
    out = [by_number[n] for n in range(len(chosen))]
    for entry, check in zip(entries, out, strict=True):
        for r in entry.results:
            r.growth = (*r.growth, check)
    return out


def _group_key(result: Result) -> tuple:
    """Representatives with equal keys are grown into the same configurations under the same
    budget: the same model, configuration and size of exploration."""
    config = result.config
    return (result.model.path, result.model.id, tuple(sorted(config.readings.items())), tuple(sorted((k, repr(v)) for k, v in config.constants.items())), result.states)


def _recheck_group(item: tuple[list[tuple[str, Result]], int, float, str | None]) -> list[GrowthCheck]:
    """The re-checks of findings sharing a configuration, as a job of a pool (a module-level
    function: it is pickled); their larger runs are shared."""
    chosen, max_states, timeout, cache_dir = item
    shared = SharedRuns([result for _, result in chosen]) if len(chosen) > 1 else None
    return [recheck(finding, result, max_states, timeout, cache_dir, shared) for finding, result in chosen]


class SharedRuns:
    """The larger runs of a group of representatives that share model, configuration and
    budget: each larger configuration is explored once, deciding every property of the group.

    A run stops early only once all of its properties are decided, so a property that no state
    decided (a `reachable` still failing, an invariant still holding, a graph property, an
    undecided one) saw exactly the states its own run would have, and its verdict is kept; a
    property some state decided would have stopped its own run sooner (fewer states), so it
    gets its own run, as without sharing."""

    def __init__(self, results: list[Result]) -> None:
        self.model = results[0].model
        self.props = list({r.prop.id: bind(r.prop, r.model) for r in results}.values())
        self.kept: dict[tuple, dict[str, Result]] = {}

    def check(self, prop: BoundProperty, config: Config, options: Any) -> Result:
        from checker.pipeline.runner import check_config

        key = (tuple(sorted(config.readings.items())), tuple(sorted((k, repr(v)) for k, v in config.constants.items())))
        if key not in self.kept:
            try:
                joint = check_config(self.model, config, self.props, options)
            except RulecheckError:
                joint = []  # each property's own run raises it again, worded as before
            self.kept[key] = {r.prop.id: r for r in joint if _unaffected_by_others(r)}
        kept = self.kept[key].get(prop.id)
        return kept if kept is not None else check_config(self.model, config, [prop], options)[0]


def _unaffected_by_others(result: Result) -> bool:
    """No state decided this property during a shared run (see `SharedRuns`)."""
    kind, status = result.prop.kind, result.status
    if kind == "terminates" and result.prop.within is None and status == "fails":  # a cycle may decide it during the run (`expanded_cycle`)
        return False
    if KINDS[kind].klass is KindClass.GRAPH or status == "undecided":  # other graph kinds: decided after the exploration
        return True
    if kind == "reachable":
        return status == "fails"
    return status == "holds" and kind != "coverage"


def recheck(finding: str, result: Result, max_states: int, timeout: float, cache_dir: str | None = CACHE_DIR, shared: SharedRuns | None = None) -> GrowthCheck:
    """The growth re-check of one finding on its representative failing result: every bound
    at once, then, if that established nothing, each bound on its own."""
    model = result.model
    growth = grow(model, result.config)
    base = GrowthCheck(finding, Outcome.NOT_RECHECKED, model.id, result.prop.id, result.reading_label, growth.cells, growth.at_max)
    if not growth.grown:
        return replace(base, reason=growth.nothing_to_grow())
    budget = Budget(min(max_states, max(MIN_STATES, GROWTH_FACTOR * result.states)), min(timeout, GROWTH_TIMEOUT), stop_when_decided=True)
    path = _cache_path(cache_dir, finding, result, growth, budget) if cache_dir is not None else None
    cached = _read(path)
    if cached is not None:
        return cached
    if len(growth.singles) > 1 and _survives_only_whole(result):
        check = _singles_first(base, result, growth, budget, shared)
    else:
        run = _run(result, Config(growth.constants, result.config.readings), budget, shared)
        check = replace(base, outcome=run.outcome, reason=run.reason, states=run.states, searched=run.searched)
        if run.outcome == Outcome.NOT_RECHECKED and len(growth.singles) > 1:
            check = _one_at_a_time(check, result, growth, budget, shared)
    if not any("timeout" in reason for reason in (check.reason, *(s.reason for s in check.singles))):
        _write(path, check)  # a time limit depends on the machine's load: not kept
    return check


def _survives_only_whole(result: Result) -> bool:
    """The representative's failure can be kept by a larger run only once that run has explored
    the whole larger game: a `reachable` nothing reaches, an action that never fires, a graph
    property (but a `terminates` that a cycle decides early, `expanded_cycle`)."""
    prop = result.prop
    if prop.kind == "terminates":
        return prop.within is not None
    return prop.kind in ("reachable", "coverage") or KINDS[prop.kind].klass is KindClass.GRAPH


def _singles_first(base: GrowthCheck, result: Result, growth: Growth, budget: Budget, shared: SharedRuns | None) -> GrowthCheck:
    """`recheck` for a finding whose larger run must explore the whole larger game: each bound
    alone first (as `_one_at_a_time`), then every bound at once unless the one-at-a-time runs
    predict that it overruns its budget (`_predicted_states`), in which case it is not run and
    says so. Where it runs, the outcome is the one of the other order (all at once first): its
    own when it decides the finding, else the one-at-a-time runs'."""
    singles = _one_at_a_time(base, result, growth, budget, shared)
    predicted = _predicted_states(result.states, singles.singles)
    if predicted > budget.max_states:
        skipped = replace(singles, reason=f"not run: the one-at-a-time runs predict about {predicted:,} states (the checked {result.states:,} times "
                                          f"each bound's own growth), over its budget of {budget.max_states:,}")
        if skipped.outcome != Outcome.NOT_RECHECKED:
            return skipped
        # Undecided one bound at a time: a violation with every bound at once still decides it.
        run = _search(result, Config(growth.constants, result.config.readings), budget, _Run(Outcome.NOT_RECHECKED, skipped.reason))
        return replace(skipped, outcome=run.outcome, searched=run.searched) if run.searched else skipped
    run = _run(result, Config(growth.constants, result.config.readings), budget, shared)
    if run.outcome != Outcome.NOT_RECHECKED:
        return replace(base, outcome=run.outcome, reason=run.reason, states=run.states, searched=run.searched)
    return replace(singles, reason=run.reason, states=run.states)


def _predicted_states(checked: int, singles: tuple[SingleGrowth, ...]) -> int:
    """The size of the game with every bound one step larger, as the one-at-a-time runs predict
    it: the checked game's states times each bound's own growth factor (the states of its run
    over the checked ones; a run that shrank the game counts as no growth, one that stopped
    early or was not run as what it explored, so the prediction errs low), to two significant
    figures. A prediction, not a bound: it only spares a run that would almost surely overrun."""
    size = float(checked)
    for single in singles:
        size *= max(1.0, single.states / checked) if checked else 1.0
    exponent = max(len(str(int(size))) - 2, 0)
    return int(round(size, -exponent))


def _one_at_a_time(check: GrowthCheck, result: Result, growth: Growth, budget: Budget, shared: SharedRuns | None) -> GrowthCheck:
    """All at once established nothing (it overran, or held only vacuously or in a smaller
    game): grow each bound on its own, stopping at the first that makes the finding vanish (it
    is then an artefact of that bound)."""
    singles: list[SingleGrowth] = []
    # A shared allowance of states, not of seconds: a model may mark many bounds, and what is
    # published must not depend on the machine's speed or load.
    allowance = SINGLES_ALLOWANCE * budget.max_states
    spent = 0
    for label, constants in growth.singles:
        if spent >= allowance:
            singles.append(SingleGrowth(label, Outcome.NOT_RECHECKED, f"not run: the one-at-a-time runs have spent their allowance of {allowance:,} states"))
            continue
        run = _run(result, Config(constants, result.config.readings), budget, shared)
        singles.append(SingleGrowth(label, run.outcome, run.reason, run.states, run.searched))
        spent += run.states + run.search_spent  # a search after an overrun counts too
        if run.outcome == Outcome.VANISHES:
            return replace(check, outcome=Outcome.VANISHES, singles=tuple(singles))
    survived = all(s.outcome == Outcome.SURVIVES for s in singles)
    return replace(check, outcome=Outcome.SURVIVES if survived else Outcome.NOT_RECHECKED, singles=tuple(singles))


@dataclass(frozen=True)
class _Run:
    """One larger run of the representative's property."""

    outcome: Outcome
    reason: str
    states: int = 0
    searched: int = 0  # decided by the seeded search's violation: the states the search spent
    search_spent: int = 0  # the states the seeded search spent, whether or not it met a violation


def recheck_at(result: Result, config: Config, budget: Budget) -> tuple[Outcome, str, int]:
    """The representative's property decided under another configuration that is not a larger
    game (an invented number at another value): (outcome, how the run ended, states). Unlike a
    growth, a game with fewer states that satisfies the property is an answer here."""
    run = _run(result, config, budget, larger=False)
    return run.outcome, run.reason, run.states


def _run(result: Result, config: Config, budget: Budget, shared: SharedRuns | None = None, larger: bool = True) -> _Run:
    """Decide the representative's property under a larger configuration (alone, or in the
    group's shared run where that gives the same verdict); `larger=False`: under another
    configuration, where holding in fewer states still counts."""
    from checker.pipeline.runner import CheckOptions, check_config

    # Stopped at the first violation, in either back-end (`Budget.stop_when_decided`; `auto`
    # interprets a large one natively, never compiling it). Not the verdict cache: the outcomes
    # have their own (`cache_dir`).
    options = CheckOptions(engine=EngineChoice.EXPLICIT, budget=budget, reuse=False, classify_loops=False)
    prop = bind(result.prop, result.model)
    try:
        grown = shared.check(prop, config, options) if shared is not None else check_config(result.model, config, [prop], options)[0]
    except RulecheckError as exc:
        return _Run(Outcome.NOT_RECHECKED, f"the larger configuration cannot be checked: {exc.message}")
    if grown.status == result.status:
        return _Run(Outcome.SURVIVES, grown.bound, grown.states)
    if grown.status == "holds" and grown.proof:  # exhaustive, or a `reachable` witness found
        if larger and grown.bound == "exhaustive" and grown.states < result.states:
            return _Run(Outcome.NOT_RECHECKED, f"it holds, but in a smaller game ({grown.states:,} states against {result.states:,} with the checked bounds), "
                        "which says nothing about the finding", grown.states)
        if not _premise_reached(result, config, budget):
            return _Run(Outcome.NOT_RECHECKED, "it holds only because its `from` situation is no longer reachable with the larger bounds (vacuous)", grown.states)
        if not larger and not _still_ends(result, config, budget):
            return _Run(Outcome.NOT_RECHECKED, f"it holds, but no play reaches the end of the game at this value ({grown.states:,} states): "
                        "the game no longer plays, which says nothing about the finding", grown.states)
        return _Run(Outcome.VANISHES, grown.bound, grown.states)
    if grown.status == "undecided":
        return _search(result, config, budget, _Run(Outcome.NOT_RECHECKED, grown.bound, grown.states))
    return _Run(Outcome.NOT_RECHECKED, f"the larger run ends in `{grown.status}` ({grown.detail or grown.bound})", grown.states)


def _search(result: Result, config: Config, budget: Budget, overran: _Run) -> _Run:
    """A larger run that breadth first could not decide (it passed its budget or clock, or was
    not run): a violation the seeded search meets within the same state budget, confirmed in
    the interpreter, shows that the finding survives (`checker.analysis.witness`). None met
    decides nothing, and the reason says the search was made."""
    prop = bind(result.prop, result.model)
    if result.status != "fails" or not searchable(prop):
        return overran
    try:
        found = find_violation(result.model, config, prop, budget.max_states, result.depth)
    except RulecheckError as exc:
        return replace(overran, reason=f"{overran.reason}; the seeded search stopped: {exc.message}")
    if found.trace is None:
        return replace(overran, reason=f"{overran.reason}; {found.words()}", search_spent=found.states)
    return replace(overran, outcome=Outcome.SURVIVES, searched=found.states, search_spent=found.states)


def _premise_reached(result: Result, config: Config, budget: Budget) -> bool:
    """A `leads-to` that holds because its `from` is never reached says nothing about the
    finding: the larger game must still reach that situation (one more run, stopped as soon as
    it is)."""
    from checker.pipeline.runner import CheckOptions, check_config

    prop = result.prop
    if prop.kind != "leads-to":
        return True
    bound = bind(prop, result.model)
    premise = BoundProperty(replace(prop, id=f"{prop.id}-from", kind="reachable", texts={"expr": prop.texts["from"]}), expr=bound.source)
    options = CheckOptions(engine=EngineChoice.EXPLICIT, budget=budget, reuse=False, classify_loops=False)  # cached with the outcome
    return check_config(result.model, config, [premise], options)[0].status == "holds"


def _still_ends(result: Result, config: Config, budget: Budget) -> bool:
    """An invented number at another value can leave a game in which no play ends (every play
    stuck at once, say, when a cap admits no hand): a property that holds there says nothing
    about the finding. The game must still reach an end somewhere (one more run, stopped as
    soon as it does)."""
    from checker.pipeline.runner import CheckOptions, check_config

    prop = result.prop
    ends = BoundProperty(replace(prop, id=f"{prop.id}-ends", kind="reachable", texts={"expr": ("the end of the game", prop.loc)}), expr=result.model.terminal)
    options = CheckOptions(engine=EngineChoice.EXPLICIT, budget=budget, reuse=False, classify_loops=False)  # cached with the outcome
    return check_config(result.model, config, [ends], options)[0].status == "holds"


def _cache_path(cache_dir: str, finding: str, result: Result, growth: Growth, budget: Budget) -> str | None:
    """The cache file of one re-check (`caches.content_key`): the checker's code, every file the
    model was loaded from, the property in full, the representative and the budget."""
    model = result.model
    if not caches.cacheable(model):
        return None
    key = caches.content_key("growth-1", model, finding, caches.digest_of(result.prop), result.status, sorted(result.config.readings.items()),
                             sorted((k, repr(v)) for k, v in growth.constants.items()), budget.max_states, budget.timeout,
                             ("witness search", SEED, budget.max_states), length=24)
    return os.path.join(cache_dir, f"growth-{key}.json")


def _read(path: str | None) -> GrowthCheck | None:
    doc = caches.read_json(path)
    try:
        return GrowthCheck.from_json(doc) if doc is not None else None
    except (ValueError, KeyError, TypeError):
        return None  # an unreadable cache entry is recomputed


def _write(path: str | None, check: GrowthCheck) -> None:
    caches.write_json(path, check.to_json())
