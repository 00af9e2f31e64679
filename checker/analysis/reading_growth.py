"""The growth re-check of the reading-impact lines: does an option still change the outcomes
when the decks, hands and piles grow by one?

The Readings section of an errata page classes each reading option against the default
(`checker.analysis.impact`); an option classed game-breaking, outcome-changing or odds-shifting
there is a claim about the rules, and, like a finding, it may be an artefact of the small bounds
the model checks. So each such line is re-checked as findings are (`checker.pipeline.growth`):
first with every constant marked `bound: true` one step larger at once (`grow`), and, when that
establishes nothing, with each bound larger on its own, stopping at the first that makes the
change vanish.

What is re-checked is the evidence that makes the line's class, nothing more:

- a game-breaking or outcome-changing line: the verdicts that differ between the default and
  the option (whether the game can always still end, whether a stuck state is reachable,
  whether it ends with probability 1, which outcomes are reachable), cheap decisions first
  (`_verdict_run`): a verdict one play shows (a stuck state, an outcome, a state from which the
  game cannot end or never ends) by a seeded search for its witness, confirmed in the
  interpreter (`checker.analysis.witness.find_verdict`), on the side that showed it with the
  checked bounds and then, within `GROWTH_FACTOR` times what it cost there, on the other side
  (found on both: the readings agree on it); the rest breadth first by
  `checker.analysis.evidence.decide`, which stops as soon as they are decided (only a "never"
  needs the whole larger game, so it gets the analysis's `max_states`), the side smaller with
  the checked bounds first, the other not explored once the line survives or when predicted
  past its budget;
- an odds-shifting line (and an outcome-changing one whose only evidence is a forced win): the
  whole impact analysis of the default and of the option, which needs the whole space;
- a line moot by exploration (no reachable state told the readings apart): the divergence
  search again, which stops at the first play after which they part ways; one found makes the
  line "moot with the checked bounds only" (a reading that matters once a deck is larger).

Outcomes: **survives** (a differing verdict still differs, or the option is still odds-shifting
or worse), **vanishes** (every verdict agrees, or the outcomes, their odds and the ending agree:
a bound artefact, which the page does not publish as a change), **not re-checked** (no bound to
grow (naming the assumption that fixes the counts, `fixed_by`), an analysis that was already an
estimate, a budget reached, a larger game that is smaller, or the allowance spent: nothing is
established, and the line says why, briefly).

An odds-shifting line whose whole larger game could not be analysed exactly (the larger
default or option over `max_states`, or the allowance spent) is then decided by estimate: the
seeded simulation the Readings section uses for an analysis over its budget, of the larger
default (once per model) and of the larger option, every bound one step larger at once. 95%
intervals that still do not overlap make it **survives (estimated ...)**; intervals that
overlap make it **not shown at the larger bounds (estimated ...)**, never "vanishes" (a
simulation cannot tell a shift too small for it from none). The estimates of one game together
simulate at most `ESTIMATE_MOVES` x `max_states` moves, counted, not timed, in the page's order.

The cost is bounded as the findings' one-at-a-time runs are, counted in states (not seconds), so
what is published does not depend on the machine: a seeded search for a verdict's witness has
the growth budget (`GROWTH_FACTOR` times the checked exploration, at least `MIN_STATES`, at most
the analysis's `max_states`; on the other side, `GROWTH_FACTOR` times what the witness cost);
a verdict's breadth-first run and a whole
analysis have `max_states` (the larger default's size is found
first by the cheaper `decide` exploration, and an option is not explored when it is predicted
past the budget: the larger option grows, roughly, as the default did; a prediction only saves
an exploration, it is never evidence); the default's
larger explorations and searches are made once per model and growth and shared by its options;
and one game's re-checks together explore at most `VERDICT_ALLOWANCE` times `max_states` for the
verdict re-checks (few lines, the ones that matter most to a designer, and a "never" needs a
whole larger game), `SINGLES_ALLOWANCE` times `max_states` for the whole analyses of the
odds-shifting lines (their own allowance:
the many cheap verdict runs must not starve the few whole analyses that fit, nor the reverse),
and a quarter of `max_states` for the moot lines' searches (every bound at once only). The
early-stopping re-checks of every model come first (the changes', game-breaking first, then the
moot lines'; each group every bound at once for all lines, then one at a time; smallest model
first), the whole analyses after (the smallest model's lines first, in a model the smallest
option's), so each allowance decides as many lines as it can. The outcomes are part of the Readings section,
which is cached as a whole (`checker.pipeline.readings.cached_readings`).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from checker.analysis.bounds import GROWTH_FACTOR, GROWTH_TIMEOUT, MIN_STATES, SINGLES_ALLOWANCE, grow
from checker.analysis.classify import ORDER, classify, most_severe, separated_odds
from checker.analysis.divergence import find_divergence
from checker.analysis.evidence import CAN_END, ENDS_SURELY, OUTCOME, STUCK_REACHABLE, Verdicts, checked_verdicts, decide, differing, says
from checker.analysis.impact import ModelImpact, OptionImpact, Settings
from checker.analysis.outcomes import Impact, analyse, shares
from checker.analysis.witness import Witnessed, find_verdict
from checker.engines.simulate import simulate
from checker.engines.statespace import explore_space
from checker.evidence.growth_check import Outcome
from checker.lang.compile import CompiledModel
from checker.lang.model import Config, Model

SPENT = "the game's allowance of states is spent"
SEARCH_COST = re.compile(r" \(a seeded search after [0-9,]+ states\)")  # a verdict's words, how a search decided it
ESTIMATE_MOVES = SINGLES_ALLOWANCE  # the estimates of one game's lines together simulate at most this many moves per state of `max_states`
MOOT_SHARE = 4  # the moot lines' searches together explore at most `max_states` / MOOT_SHARE states, apart from the changes' allowance
VERDICT_ALLOWANCE = 16  # the verdict re-checks of one game's game-breaking and outcome-changing lines together explore at most this many times `max_states` states
SEVERE = ("game-breaking", "outcome-changing", "odds-shifting")  # the classes by which a line claims the rules' outcomes change


@dataclass(frozen=True)
class ReadingGrowth:
    """One option's re-check: the growth that decided it, and the option's class with it."""

    outcome: Outcome
    grown: str = ""  # "deck_lead 1->2, opening 1->2", or the one bound that decided
    reason: str = ""  # why not re-checked
    classification: str = ""  # the option's class with the larger bounds
    evidence: str = ""  # the verdicts re-checked, as found with the larger bounds
    moot: bool = False  # the re-check of a moot line: survives = still moot, vanishes = the readings part ways
    kept: tuple[str, ...] = ()  # not re-checked, yet survived these one-bound growths (the others and all at once undecided)
    singles: int = 0  # how many one-bound growths there were (with `kept`)
    estimated: bool = False  # decided by seeded simulation (`_estimate_run`): survives, or not shown (never vanishes)

    @property
    def artefact(self) -> bool:
        return self.outcome == Outcome.VANISHES

    def words(self) -> str:
        """The clause the page adds to the option's line."""
        if self.estimated and self.outcome == Outcome.SURVIVES:
            return f"survives (estimated with {self.grown}: {self.evidence}; not decided exactly: {self.reason})"
        if self.estimated:
            return f"not shown at the larger bounds (estimated with {self.grown}: {self.evidence}; not decided exactly: {self.reason})"
        if self.moot and self.outcome == Outcome.SURVIVES:
            return f"still moot with {self.grown} ({self.evidence})"
        if self.moot and self.outcome == Outcome.VANISHES:
            return f"with {self.grown} the readings part ways ({self.evidence}): moot only because the bounds are small"
        if self.outcome == Outcome.SURVIVES:
            return f"survives with {self.grown} ({self.evidence or self.classification + ' there'})"
        if self.outcome == Outcome.VANISHES:
            agree = self.evidence or "the outcomes, their odds and the ending agree there"
            return f"vanishes with {self.grown} ({agree}): a bound artefact, not a change of the rules"
        if self.kept:
            # No growth made it vanish, some kept it, the rest decided nothing: neither "survives"
            # (not every growth was decided) nor a bare "not re-checked" (some were), as for findings.
            return (f"survives each one-bound growth that was decided ({len(self.kept)} of {self.singles}: {', '.join(self.kept)}; "
                    f"not a re-check of every bound); not decided: {self.reason}")
        return f"not re-checked ({self.reason})"


@dataclass
class _Allowance:
    """The states one game's re-checks may still explore."""

    left: int

    def spend(self, states: int) -> None:
        self.left -= states


def _existential(name: str) -> bool:
    """The value of verdict `name` that one play shows (a witness): a stuck state or an outcome
    reached (True); a state from which the game cannot end, or never ends (False)."""
    return name == STUCK_REACHABLE or name.startswith(OUTCOME)


def _shows(name: str) -> tuple[tuple[str, bool], ...]:
    """What a confirmed witness of verdict `name` decides: a stuck state also means the game
    cannot always still end, and so does a state from which no play ends at all."""
    if name == STUCK_REACHABLE:
        return ((STUCK_REACHABLE, True), (CAN_END, False))
    if name == ENDS_SURELY:
        return ((ENDS_SURELY, False), (CAN_END, False))
    return ((name, _existential(name)),)


def _searched_for(names: list[str]) -> list[str]:
    """The witnesses to seek for `names`: "cannot always still end" not apart when "may never
    end" is sought too (its witness shows both)."""
    return [n for n in names if not (n == CAN_END and ENDS_SURELY in names)]


@dataclass
class _Side:
    """What the re-check knows of one side (the default or an option) of one larger
    configuration: the verdicts decided so far, and how."""

    readings: dict[str, str]
    checked: int  # the side's states with the checked bounds
    values: dict[str, bool] = field(default_factory=dict)
    searched: dict[str, Witnessed] = field(default_factory=dict)  # the seeded searches made, by verdict sought
    by_search: dict[str, int] = field(default_factory=dict)  # the verdicts a search's witness decided: the states it spent
    explored: dict[tuple[str, ...], Verdicts] = field(default_factory=dict)  # the breadth-first runs, by verdicts wanted
    last: Verdicts | None = None  # the last breadth-first run
    smaller: tuple[int | None] | None = None  # once known: (the larger game's size when smaller than the checked one, else None)

    def undecided(self, names: list[str]) -> list[str]:
        return [n for n in names if n not in self.values]

    def says(self, name: str) -> str:
        how = f" (a seeded search after {self.by_search[name]:,} states)" if name in self.by_search else ""
        return says(name, self.values[name]) + how

    def words(self, names: list[str], skipped: str) -> str:
        """What was decided, and why the rest was not, briefly: "a state where no rule applies is
        reachable (a seeded search after 1,204 states), undecided past its budget of 500,000
        states; no witness in a seeded search of 50,000 states"."""
        known = [self.says(n) for n in names if n in self.values]
        if len(known) < len(names):
            if skipped:
                known.append(skipped)
            elif self.last is not None and not self.last.complete:
                known.append(f"undecided {self.last.stopped_by}")
            else:
                known.append(SPENT)
            missed = [w for n, w in self.searched.items() if not w.found and any(shown not in self.values for shown, _ in _shows(n))]
            if missed:
                refused = [w.refused for w in missed if w.refused]
                known.append("; ".join(refused) if refused else f"no witness in a seeded search of {sum(w.states for w in missed):,} states")
        return ", ".join(known)


@dataclass
class _ModelRuns:
    """One model's larger explorations of the default, by growth label, shared by its options:
    the verdicts its lines need (None: the allowance was spent), and whole analyses (None: over
    the budget)."""

    mi: ModelImpact
    allowance: _Allowance
    max_states: int
    defaults: dict[str, Impact | None] = field(default_factory=dict)  # the larger default's whole analysis, by growth label
    sides: dict[str, _Side] = field(default_factory=dict)  # the larger default's verdicts, by growth label
    grew: dict[str, tuple[int, int, str]] = field(default_factory=dict)  # by growth label: a side's checked and larger sizes, and which side
    overran: dict[str, tuple[int, str]] = field(default_factory=dict)  # by growth label: the smallest checked side whose larger game passed `max_states`

    def verdict_budget(self, checked: int) -> int:
        return min(self.max_states, max(MIN_STATES, GROWTH_FACTOR * checked))

    def default_side(self, label: str) -> _Side:
        """The larger default's verdicts, shared by the model's lines (a line wanting only an
        outcome a search met early does not pay for another's whole space)."""
        return self.sides.setdefault(label, _Side(self.mi.baseline.readings, self.mi.impact.states))

    def search(self, side: _Side, constants: dict[str, Any], name: str, budget: int, depth: int) -> None:
        """A seeded search of one side for the witness of `name` (`checker.analysis.witness`),
        within `budget` states; what a confirmed witness shows is recorded, with its cost."""
        if name in side.searched or all(n in side.values for n, _ in _shows(name)) or self.allowance.left <= 0:
            return
        found = find_verdict(self.mi.model, Config(constants, side.readings), name, budget, depth)
        self.allowance.spend(found.states)
        side.searched[name] = found
        if found.found:
            for shown, value in _shows(name):
                if shown not in side.values:
                    side.values[shown] = value
                    side.by_search[shown] = found.states

    def explore(self, side: _Side, constants: dict[str, Any], names: list[str], label: str) -> str:
        """Breadth first over one side's larger game, for the verdicts `names` still undecided
        there, within the analysis's `max_states` (a "never" needs the whole larger game); not
        run (and why, returned) when predicted past it: from how a side of the model grew with
        the same growth, or from a side no larger with the checked bounds that passed it (the
        larger sides grow, roughly, alike: a prediction saves an exploration, never evidence)."""
        wanted = side.undecided(names)
        if not wanted or tuple(wanted) in side.explored or self.allowance.left <= 0:
            return ""
        over = self.overran.get(label)
        if over is not None and side.checked >= over[0]:
            return f"would pass {self.max_states:,} states, as the larger {over[1]} does ({over[0]:,} states with the checked bounds)"
        grew = self.grew.get(label)
        if grew is not None and side.checked * grew[1] // grew[0] > self.max_states:
            return (f"would pass {self.max_states:,} states (about {side.checked * grew[1] // grew[0]:,}: the {grew[2]} grows from "
                    f"{grew[0]:,} to {grew[1]:,})")
        found = decide(CompiledModel(self.mi.model, Config(constants, side.readings), lazy=True), wanted, self.max_states)
        self.allowance.spend(found.states)
        side.explored[tuple(wanted)] = found
        side.last = found
        which = "default" if side.readings == self.mi.baseline.readings else "option"
        if found.complete and found.states >= side.checked:
            self.grew.setdefault(label, (side.checked, found.states, which))
        if found.stopped_by.startswith("past its budget") and (over is None or side.checked < over[0]):
            self.overran[label] = (side.checked, which)
        for name in wanted:
            value = found.get(name)
            if value is not None:
                side.values[name] = value
        return ""

    def size(self, side: _Side, constants: dict[str, Any]) -> int | None:
        """The size of a side's larger game when it is smaller than its checked one (None: it
        is not), from its breadth-first run when that says, else explored up to the checked
        size (`smaller`)."""
        if side.smaller is None:
            grown = side.last
            if grown is not None and (grown.complete or grown.states >= side.checked):
                side.smaller = (grown.states if grown.complete and grown.states < side.checked else None,)
            else:
                side.smaller = (self.smaller(side.readings, constants, side.checked, self.allowance),)
        return side.smaller[0]

    def smaller(self, readings: dict[str, str], constants: dict[str, Any], checked: int, allowance: _Allowance) -> int | None:
        """The size of a larger game that is smaller than the checked one's `checked` states
        (None: it is not): explored only up to `checked` states. A verdict found early in a
        game that growing a bound broke (a deal that no longer fits, say) says nothing."""
        size = decide(CompiledModel(self.mi.model, Config(constants, readings), lazy=True), [], checked, at_least=checked)
        allowance.spend(size.states)
        return size.states if size.complete and size.states < checked else None

    def default(self, label: str, constants: dict[str, Any]) -> Impact | None:
        """The larger default's whole analysis, shared by the model's lines: its size is found
        first by the cheaper exploration of `decide` (no movers, weights or solve), up to
        `max_states` (the budget of a configuration every line needs), or taken from a verdict
        run that explored it whole; None past it."""
        if label not in self.defaults:
            side = self.sides.get(label)
            past = f"past its budget of {self.max_states:,} states"
            counted = next((run for run in side.explored.values() if run.complete or run.stopped_by == past), None) if side is not None else None
            # A verdict run of the larger default that explored it whole, or that stopped past this
            # same budget, has counted what this run would: the whole space, or the states before
            # the first one whose moves would pass the budget (this run, wanting no verdict and
            # `at_least` the budget, stops there too, or after the state that fills it, which a
            # verdict run would not pass either). The allowance is spent alike, so the page is the same.
            size = counted or decide(CompiledModel(self.mi.model, Config(constants, self.mi.baseline.readings), lazy=True), [], self.max_states, at_least=self.max_states)
            self.allowance.spend(size.states)
            self.defaults[label] = self.impact(Config(constants, self.mi.baseline.readings), size.states) if size.complete else None
        return self.defaults[label]

    def impact(self, config: Config, budget: int) -> Impact | None:
        """The exact impact of one configuration, or None when its exploration overruns
        `budget` (no seeded estimate: an estimate cannot tell an artefact from a change)."""
        space = explore_space(CompiledModel(self.mi.model, config, lazy=True), budget)
        self.allowance.spend(space.size)
        return analyse(space) if space.complete else None


Run = Callable[[str, dict[str, Any]], ReadingGrowth]


def recheck_readings(impacts: list[ModelImpact], settings: Settings) -> dict[tuple[str, str, str], ReadingGrowth]:
    """The re-check of every game-breaking, outcome-changing or odds-shifting option of one
    game's models, by (model id, reading, option), within the game's allowance of states."""
    allowance = _Allowance(VERDICT_ALLOWANCE * settings.max_states)
    whole_allowance = _Allowance(SINGLES_ALLOWANCE * settings.max_states)  # apart: see the module's docstring
    moot_allowance = _Allowance(settings.max_states // MOOT_SHARE)
    out: dict[tuple[str, str, str], ReadingGrowth] = {}
    cheap: list[tuple[_ModelRuns, OptionImpact, Run]] = []  # the lines decided by early-stopping searches
    moot: list[tuple[_ModelRuns, OptionImpact, Run]] = []
    whole: list[tuple[_ModelRuns, list[OptionImpact]]] = []
    # The smallest models first, and the cheap verdict re-checks of every model before any whole
    # analysis, every bound at once before one at a time: so the allowance decides as many lines
    # as it can (the page keeps its own order).
    for mi in sorted(impacts, key=lambda m: (m.impact.states, m.model.id)):
        severe = [o for r in mi.readings for o in r.options if o.classification in SEVERE]
        evidence = {(o.reading, o.option): differing(mi.impact, o.impact) for o in severe if o.impact is not None and _exact(mi, o)}
        runs = _ModelRuns(mi, allowance, settings.max_states)
        rest = []
        for option in severe:
            names = evidence.get((option.reading, option.option))
            if names:
                cheap.append((runs, option, _memo(_verdict_run(runs, option, names))))
            else:
                rest.append(option)
        whole.append((runs, rest))
        moot += [(runs, o, _memo(_moot_run(runs, o, moot_allowance))) for r in mi.readings for o in r.options
                 if o.classification == "moot" and o.divergence is not None and o.divergence.complete]
    # The changes before the moot lines (a change published in error costs a designer more than a
    # missed one), the game-breaking first; all of them with every bound at once before any one
    # bound at a time.
    cheap.sort(key=lambda line: ORDER.index(line[1].classification))
    for lines, one_at_a_time in ((cheap, True), (moot, False)):  # a moot line's search is a stretch: every bound at once only
        decided = [_recheck(runs, option, run, False) for runs, option, run in lines]
        for number, (runs, option, run) in enumerate(lines):
            if decided[number].outcome == Outcome.NOT_RECHECKED and one_at_a_time:
                decided[number] = _recheck(runs, option, run)
            out[(runs.mi.model.id, option.reading, option.option)] = decided[number]
    # The whole analyses, the cheapest lines first: the smallest model's (its larger defaults,
    # shared by its lines, are most of the cost), and in a model the smallest option's; so the
    # allowance decides as many lines as it can (the Ultimate three-player lines, each needing
    # 500,000 states and more, no longer come before the two-player ones). Each
    # larger configuration has the analysis's own budget, `max_states` (a 4-fold budget of the
    # checked size would refuse many that fit); a line whose larger option is predicted past it
    # (from how much the shared larger default grew) is not explored.
    whole_lines = sorted(((runs, o) for runs, rest in whole for o in rest),
                   key=lambda line: (line[0].mi.impact.states, line[0].mi.model.id, line[1].impact.states if line[1].impact is not None else 0))
    for runs, option in whole_lines:
        runs.allowance = whole_allowance  # the model's early-stopping re-checks are done: the rest is the whole analyses'
        out[(runs.mi.model.id, option.reading, option.option)] = _recheck(runs, option, _whole_run(runs, option))
    # The odds-shifting lines no exact analysis decided (the larger game over its budget, or the
    # allowance spent): decided by estimate, in the same order, within an allowance of simulated
    # moves of their own (counted, not timed: what is published does not depend on the machine).
    moves = _Allowance(ESTIMATE_MOVES * settings.max_states)
    defaults: dict[tuple[str, str], Impact] = {}
    for runs, option in whole_lines:
        key = (runs.mi.model.id, option.reading, option.option)
        if option.classification == "odds-shifting" and _undecided(out[key]) and moves.left > 0:
            out[key] = _estimate_run(runs, option, out[key], settings, moves, defaults)
    return out


def _undecided(line: ReadingGrowth) -> bool:
    """An exact re-check that decided nothing because every bound at once could not be
    afforded (the larger default or option over the analysis's budget, or the allowance
    spent), so an estimate of that larger game may decide it; not a line some growths kept, nor
    one whose larger game is smaller, already an estimate, or has no bound to grow (an estimate
    would say nothing there either)."""
    if line.outcome != Outcome.NOT_RECHECKED or line.kept or line.moot:
        return False
    at_once = line.reason.removeprefix("all at once: ").split("; one at a time: ")[0]
    return at_once.startswith((SPENT, "the default passes ", "the option passes ", "the option would pass "))


def _estimate_run(runs: _ModelRuns, option: OptionImpact, exact: ReadingGrowth, settings: Settings, moves: _Allowance,
                  defaults: dict[tuple[str, str], Impact]) -> ReadingGrowth:
    """The odds-shifting line re-checked by estimate with every bound one step larger at once:
    the seeded simulation the Readings section uses for an analysis over its budget
    (`settings.games` games, `settings.seed`), of the larger default (shared by the model's
    lines) and of the larger option. Intervals that still do not overlap: the line survives,
    estimated; intervals that overlap show nothing either way (a simulation cannot tell a shift
    too small for it from none), so the line is "not shown", never "vanishes"."""
    mi = runs.mi
    growth = grow(mi.model, mi.baseline)
    label = ", ".join(growth.cells)
    # a play at least as long as the longest the checked game allows, with room for the larger one
    max_steps = max(1000, 8 * (mi.impact.longest or 0))
    key = (mi.model.id, label)
    if key not in defaults:
        defaults[key] = _simulated(mi.model, Config(growth.constants, mi.baseline.readings), settings, max_steps, moves)
    alt = _simulated(mi.model, Config(growth.constants, option.config.readings), settings, max_steps, moves)
    separated = separated_odds(defaults[key], alt)
    games = f"{settings.games:,} seeded games each (seed {settings.seed}), 95% intervals"
    if separated:
        return ReadingGrowth(Outcome.SURVIVES, label, exact.reason, "odds-shifting", f"{games} do not overlap: {', '.join(separated)}", estimated=True)
    return ReadingGrowth(Outcome.NOT_RECHECKED, label, exact.reason, evidence=f"{games} overlap", estimated=True)


def _simulated(model: Model, config: Config, settings: Settings, max_steps: int, moves: _Allowance) -> Impact:
    """One configuration's outcome shares by seeded simulation, as an estimated `Impact`."""
    report = simulate(CompiledModel(model, config, lazy=True), settings.games, settings.seed, max_steps)
    moves.spend(report.moves)
    probabilities, intervals = shares(report)
    return Impact(False, "seeded simulation", 0, probabilities=probabilities, intervals=intervals)


def _memo(run: Run) -> Run:
    """`run`, each growth label run once (the verdict lines are visited twice)."""
    done: dict[str, ReadingGrowth] = {}

    def once(label: str, constants: dict[str, Any]) -> ReadingGrowth:
        if label not in done:
            done[label] = run(label, constants)
        return done[label]

    return once


def _exact(mi: ModelImpact, option: OptionImpact) -> bool:
    return option.impact is not None and mi.impact.complete and option.impact.complete


def _recheck(runs: _ModelRuns, option: OptionImpact, run: Run, one_at_a_time: bool = True) -> ReadingGrowth:
    """Every bound at once; if that establishes nothing (and `one_at_a_time`), each bound on its
    own, in the model's order, until one makes the change vanish (as `checker.pipeline.growth`
    does for findings)."""
    mi = runs.mi
    growth = grow(mi.model, mi.baseline)
    if not growth.grown:
        return ReadingGrowth(Outcome.NOT_RECHECKED, reason=growth.nothing_to_grow())
    if option.classification != "moot" and not _exact(mi, option):
        return ReadingGrowth(Outcome.NOT_RECHECKED, reason="the analysis with the checked bounds is already an estimate (over its state budget)")
    first = run(", ".join(growth.cells), growth.constants)
    if first.outcome != Outcome.NOT_RECHECKED or len(growth.singles) < 2 or not one_at_a_time:
        return first
    survived: list[ReadingGrowth] = []
    why: dict[str, list[str]] = {}  # reason -> the bounds it stopped, in the model's order
    for label, constants in growth.singles:
        single = run(label, constants)
        if single.outcome == Outcome.VANISHES:
            return ReadingGrowth(Outcome.VANISHES, f"{label} alone", classification=single.classification, evidence=single.evidence, moot=single.moot)
        if single.outcome == Outcome.SURVIVES:
            survived.append(single)
        else:
            why.setdefault(single.reason, []).append(label.split(" ")[0])
    if len(survived) == len(growth.singles):
        each = ", ".join(label for label, _ in growth.singles)
        return ReadingGrowth(Outcome.SURVIVES, f"each bound one step larger on its own ({each})", classification=most_severe([s.classification for s in survived]),
                             evidence=_common_evidence([s.evidence for s in survived]), moot=survived[0].moot)
    others = "; ".join(f"{', '.join(labels)}: {reason}" for reason, labels in why.items())
    if not survived and set(why) == {first.reason}:
        return ReadingGrowth(Outcome.NOT_RECHECKED, reason=first.reason)  # every growth stopped alike: said once
    if survived:
        return ReadingGrowth(Outcome.NOT_RECHECKED, reason=f"{others}; every bound at once: {first.reason}", classification=most_severe([s.classification for s in survived]),
                             moot=survived[0].moot, kept=tuple(s.grown for s in survived), singles=len(growth.singles))
    return ReadingGrowth(Outcome.NOT_RECHECKED, reason=f"all at once: {first.reason}; one at a time: {others}")


def _common_evidence(evidence: list[str]) -> str:
    """The evidence every one-bound growth kept, said once: the same words, or the same but for
    what each seeded search cost ("(a seeded search after 1,204 states)" then reads "(seeded
    searches)"); none when they differ otherwise."""
    if len(set(evidence)) == 1:
        return evidence[0]
    plain = {SEARCH_COST.sub(" (seeded searches)", e) for e in evidence}
    return plain.pop() if len(plain) == 1 else ""


def _verdict_run(runs: _ModelRuns, option: OptionImpact, names: list[str]) -> Run:
    """A run deciding only the verdicts `names` that made the option's class, for the default
    (shared by the model's lines) and for the option, the cheap decisions first:

    1. a seeded search of each side for the witness of each verdict that side showed by a play
       with the checked bounds (a stuck state, an outcome, a state from which the game cannot
       end: `checker.analysis.witness`), within the growth budget; breadth first cannot decide
       "cannot always still end" before it has the whole larger game;
    2. the other side's witness sought on each side, within `GROWTH_FACTOR` times what it took
       there: found, both readings agree on that verdict (the line may vanish);
    3. breadth first, the side smaller with the checked bounds first, within the analysis's
       `max_states` (a "never" needs the whole larger game), stopping once decided; the second
       side is not explored once the line survives, nor when it is predicted past the budget
       (the larger sides grow, roughly, alike: a prediction saves an exploration, never evidence).
    """
    mi = runs.mi
    assert option.impact is not None
    depth = max(max(i.longest or 0, len(i.trap or [0]) - 1) for i in (mi.impact, option.impact))  # how far the checked plays go
    expected = (checked_verdicts(mi.impact), checked_verdicts(option.impact))

    def run(label: str, constants: dict[str, Any]) -> ReadingGrowth:
        assert option.impact is not None
        if runs.allowance.left <= 0:
            return ReadingGrowth(Outcome.NOT_RECHECKED, label, SPENT)
        sides = (runs.default_side(label), _Side(option.config.readings, option.impact.states))
        sought = _searched_for(names)
        for side, checked in zip(sides, expected, strict=True):
            for name in sought:
                if checked.get(name, False) == _existential(name):
                    runs.search(side, constants, name, runs.verdict_budget(side.checked), depth)
        for (side, checked), other in zip(zip(sides, expected, strict=True), reversed(sides), strict=True):
            for name in sought:
                witness = other.searched.get(name)
                if checked.get(name, False) != _existential(name) and witness is not None and witness.found:
                    runs.search(side, constants, name, min(runs.verdict_budget(side.checked), GROWTH_FACTOR * witness.states), depth)
        decided = _settled(runs, sides, names, label, constants, option.classification)
        skipped = ["", ""]
        for number in sorted(range(2), key=lambda n: sides[n].checked):  # the side smaller with the checked bounds first
            if decided is None:
                skipped[number] = runs.explore(sides[number], constants, names, label)
                decided = _settled(runs, sides, names, label, constants, option.classification)
        if decided is not None:
            return decided
        return ReadingGrowth(Outcome.NOT_RECHECKED, label, "; ".join(f"the {word}: {side.words(names, skip)}"
                                                                     for word, side, skip in zip(("default", "option"), sides, skipped, strict=True)))

    return run


def _settled(runs: _ModelRuns, sides: tuple[_Side, _Side], names: list[str], label: str, constants: dict[str, Any], checked_class: str) -> ReadingGrowth | None:
    """The line's outcome once the sides decide it: survives as soon as one verdict still
    differs; vanishes only when every verdict is decided alike on both sides and neither larger
    game is smaller than its checked one; None while undecided."""
    base, alt = sides
    still = [n for n in names if n in base.values and n in alt.values and base.values[n] != alt.values[n]]
    if still:
        cls = "outcome-changing" if all(n.startswith(OUTCOME) for n in still) else "game-breaking"
        contrast = "; ".join(f"the default: {base.says(n)}, the option: {alt.says(n)}" for n in still)
        return ReadingGrowth(Outcome.SURVIVES, label, classification=cls, evidence=contrast)
    if base.undecided(names) or alt.undecided(names):
        return None
    for side in sides:
        size = runs.size(side, constants)
        if size is not None:
            return ReadingGrowth(Outcome.NOT_RECHECKED, label, f"the larger game is smaller ({size:,} states against {side.checked:,})")
    agree = "; ".join(says(n, base.values[n]) + _searches_words(base, alt, n) for n in names)
    return ReadingGrowth(Outcome.VANISHES, label, classification=checked_class, evidence=f"under both readings {agree}")


def _searches_words(base: _Side, alt: _Side, name: str) -> str:
    """How seeded searches decided one verdict both readings agree on: " (seeded searches after
    1,204 and 3,310 states)", " (the option: a seeded search after 3,310 states)", or nothing."""
    if name in base.by_search and name in alt.by_search:
        return f" (seeded searches after {base.by_search[name]:,} and {alt.by_search[name]:,} states)"
    for word, side in (("default", base), ("option", alt)):
        if name in side.by_search:
            return f" (the {word}: a seeded search after {side.by_search[name]:,} states)"
    return ""


def _moot_run(runs: _ModelRuns, option: OptionImpact, allowance: _Allowance) -> Run:
    """A run searching the larger game for a divergence of a moot option from the default (it
    stops at the first: a play after which the readings part ways). A found one is worth more
    than "still moot", which needs the whole larger game, so the search gets the checked search's
    size (at least `MIN_STATES`), not four times it, and an allowance of its own: the moot lines
    neither starve the changes' re-checks nor are starved by them."""
    mi = runs.mi
    checked = option.divergence
    assert checked is not None

    def run(label: str, constants: dict[str, Any]) -> ReadingGrowth:
        if allowance.left <= 0:
            return ReadingGrowth(Outcome.NOT_RECHECKED, label, SPENT, moot=True)
        found = find_divergence(mi.model, Config(constants, mi.baseline.readings), Config(constants, option.config.readings),
                                min(runs.max_states, max(MIN_STATES, checked.states)), GROWTH_TIMEOUT)
        allowance.spend(found.states)
        if found.found:
            size = runs.smaller(mi.baseline.readings, constants, checked.states, allowance)
            if size is not None:
                return ReadingGrowth(Outcome.NOT_RECHECKED, label, f"the larger game is smaller ({size:,} states against {checked.states:,})", moot=True)
            return ReadingGrowth(Outcome.VANISHES, label, classification="moot", evidence=found.summary.rstrip("."), moot=True)
        if not found.complete:
            stopped = f"no divergence in its first {found.states:,} states" if found.stopped_by.startswith("state budget") else f"the search stopped: {found.stopped_by}"
            return ReadingGrowth(Outcome.NOT_RECHECKED, label, stopped, moot=True)
        if found.states < checked.states:
            return ReadingGrowth(Outcome.NOT_RECHECKED, label, f"the larger game is smaller ({found.states:,} states against {checked.states:,})", moot=True)
        return ReadingGrowth(Outcome.SURVIVES, label, classification="moot", evidence=found.bound, moot=True)

    return run


def _whole_run(runs: _ModelRuns, option: OptionImpact) -> Run:
    """A run of the whole impact analysis of the default and the option (for odds). The option
    is not explored when its larger game is predicted past its budget: it grows, roughly, as
    the default grew (a prediction that only saves an exploration, never evidence)."""
    mi = runs.mi

    def run(label: str, constants: dict[str, Any]) -> ReadingGrowth:
        if runs.allowance.left <= 0 and label not in runs.defaults:
            return ReadingGrowth(Outcome.NOT_RECHECKED, label, SPENT)
        base = runs.default(label, constants)
        if base is None:
            return ReadingGrowth(Outcome.NOT_RECHECKED, label, f"the default passes {runs.max_states:,} states")
        assert option.impact is not None and option.divergence is not None
        if base.states < mi.impact.states:
            return ReadingGrowth(Outcome.NOT_RECHECKED, label, f"the larger game is smaller ({base.states:,} states against {mi.impact.states:,})")
        budget = runs.max_states  # the analysis's own budget: the allowance bounds the cost, the prediction skips the hopeless
        predicted = option.impact.states * base.states // mi.impact.states
        if predicted > budget:
            return ReadingGrowth(Outcome.NOT_RECHECKED, label, f"the option would pass {budget:,} states (about {predicted:,}: the default grows from "
                                 f"{mi.impact.states:,} to {base.states:,})")
        if runs.allowance.left <= 0:
            return ReadingGrowth(Outcome.NOT_RECHECKED, label, SPENT)
        alt = runs.impact(Config(constants, option.config.readings), budget)
        if alt is None:
            return ReadingGrowth(Outcome.NOT_RECHECKED, label, f"the option passes {budget:,} states")
        if alt.states < option.impact.states:
            return ReadingGrowth(Outcome.NOT_RECHECKED, label, f"the larger game is smaller ({base.states:,} and {alt.states:,} states against "
                                 f"{mi.impact.states:,} and {option.impact.states:,})")
        cls, _ = classify(option.divergence, base, alt)
        return ReadingGrowth(Outcome.SURVIVES if cls in SEVERE else Outcome.VANISHES, label, classification=cls)

    return run
