"""The growth re-check of the reading-impact lines: does an option still change the outcomes
when the decks, hands and piles grow by one?

The Readings section of an errata page classes each reading option against the default
(`checker.analysis.impact`); an option classed outcome-changing or game-breaking there is a
claim about the rules, and, like a finding, it may be an artefact of the small bounds the model
checks. So each such line is re-checked as findings are (`checker.analysis.growth`): the impact
of the default and of the option is computed again with every constant marked `bound: true`
one step larger at once (`grow`), and, when that overruns its budget, with each bound larger on
its own, stopping at the first that makes the change vanish. The divergence scenario is not
searched again: only the impacts decide the class, and a found divergence is what made the
line a change in the first place.

Outcomes: **survives** (the option is still outcome-changing or game-breaking with the larger
bounds), **vanishes** (with the larger bounds it changes no outcome: a bound artefact, which the
page does not publish as an outcome change), **not re-checked** (no bound to grow, an analysis
that was already an estimate at the checked bounds, a budget reached, a larger game that is
smaller, or the allowance spent: nothing is established, and the line says why).

The cost is bounded as the findings' one-at-a-time runs are: each exploration has the growth
budget (`GROWTH_FACTOR` times the largest checked exploration of the model's re-checked lines, at
least `MIN_STATES`; a model for which that exceeds the analysis's own `max_states` is not
re-checked at all, rather than explored to a budget too small to conclude); the default's larger
analysis is computed once per model and growth and shared by its options (a growth whose default
overruns the budget is not tried again for the model's other options); and one game's re-checks
together explore at most `SINGLES_ALLOWANCE` times the analysis's `max_states`, counted in states
(not seconds), smallest model first, so what is published does not depend on the machine. Lines
past the allowance are "not re-checked". The outcomes are part of the Readings section, which is
cached as a whole (`checker.report.reading_impact.cached_readings_section`, keyed on the
checker's code, the model files and the verdicts), so an unchanged game pays once.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from checker.analysis.classify import classify, most_severe
from checker.analysis.growth import GROWTH_FACTOR, MIN_STATES, SINGLES_ALLOWANCE, grow
from checker.analysis.impact import ModelImpact, OptionImpact, Settings
from checker.analysis.outcomes import Impact, analyse
from checker.analysis.statespace import explore_space
from checker.growth_check import NO_BOUND, Outcome
from checker.lang.compile import CompiledModel
from checker.lang.model import Config

SPENT = "not run: the game's re-checks have spent their allowance of states"
SEVERE = ("game-breaking", "outcome-changing")  # the classes by which a line claims the rules' outcomes change


@dataclass(frozen=True)
class ReadingGrowth:
    """One option's re-check: the growth that decided it, and the option's class with it."""

    outcome: Outcome
    grown: str = ""  # "deck_lead 1->2, opening 1->2", or the one bound that decided
    reason: str = ""  # why not re-checked
    classification: str = ""  # the option's class with the larger bounds

    @property
    def artefact(self) -> bool:
        return self.outcome == Outcome.VANISHES

    def words(self) -> str:
        """The clause the page adds to the option's line."""
        if self.outcome == Outcome.SURVIVES:
            return f"survives with {self.grown} ({self.classification} there)"
        if self.outcome == Outcome.VANISHES:
            return f"vanishes with {self.grown} (the outcomes, their odds and the ending agree there): a bound artefact, not an outcome change of the rules"
        return f"not re-checked ({self.reason})"


@dataclass
class _Allowance:
    """The states one game's re-checks may still explore."""

    left: int

    def spend(self, states: int) -> None:
        self.left -= states


@dataclass
class _ModelRuns:
    """One model's larger analyses of the default, by growth label (None: over the budget)."""

    mi: ModelImpact
    budget: int
    allowance: _Allowance
    defaults: dict[str, Impact | None] = field(default_factory=dict)

    def default(self, label: str, constants: dict[str, Any]) -> Impact | None:
        if label not in self.defaults:
            self.defaults[label] = self.impact(Config(constants, self.mi.baseline.readings))
        return self.defaults[label]

    def impact(self, config: Config) -> Impact | None:
        """The exact impact of one configuration, or None when its exploration overruns the
        budget (no seeded estimate: an estimate cannot tell an artefact from a change)."""
        space = explore_space(CompiledModel(self.mi.model, config), self.budget)
        self.allowance.spend(space.size)
        return analyse(space) if space.complete else None


def recheck_readings(impacts: list[ModelImpact], settings: Settings) -> dict[tuple[str, str, str], ReadingGrowth]:
    """The re-check of every outcome-changing or game-breaking option of one game's models, by
    (model id, reading, option), within the game's allowance of states."""
    allowance = _Allowance(SINGLES_ALLOWANCE * settings.max_states)
    out: dict[tuple[str, str, str], ReadingGrowth] = {}
    # The smallest models first: their larger games are the likeliest to fit the budget, so the
    # allowance decides as many lines as it can (the page's order is kept by the keys).
    for mi in sorted(impacts, key=lambda m: (m.impact.states, m.model.id)):
        severe = [o for r in mi.readings for o in r.options if o.classification in SEVERE]
        if not severe:
            continue
        largest = max([mi.impact.states] + [o.impact.states for o in severe if o.impact is not None])
        if GROWTH_FACTOR * largest > settings.max_states:
            # The larger analyses could not have their budget: nothing would be established, at
            # the cost of the largest explorations (the Saturday Morning Showdown's, for one).
            skipped = ReadingGrowth(Outcome.NOT_RECHECKED, reason=f"the checked analysis ({largest:,} states) leaves the larger one less than {GROWTH_FACTOR} times "
                                    f"its size within the analysis's state budget of {settings.max_states:,}")
            out.update({(mi.model.id, o.reading, o.option): skipped for o in severe})
            continue
        runs = _ModelRuns(mi, max(MIN_STATES, GROWTH_FACTOR * largest), allowance)
        for option in severe:
            out[(mi.model.id, option.reading, option.option)] = _recheck(runs, option)
    return out


def _recheck(runs: _ModelRuns, option: OptionImpact) -> ReadingGrowth:
    """Every bound at once; if that establishes nothing, each bound on its own, in the model's
    order, until one makes the change vanish (as `checker.analysis.growth` does for findings)."""
    mi = runs.mi
    growth = grow(mi.model, mi.baseline)
    if not growth.marked:
        return ReadingGrowth(Outcome.NOT_RECHECKED, reason=NO_BOUND)
    if not growth.grown:
        return ReadingGrowth(Outcome.NOT_RECHECKED, reason="every bound is at the top of its declared range or left out")
    if option.impact is None or not (mi.impact.complete and option.impact.complete):
        return ReadingGrowth(Outcome.NOT_RECHECKED, reason="the analysis with the checked bounds is already an estimate (over its state budget)")
    at_once = ", ".join(growth.grown)
    first = _run(runs, option, at_once, growth.constants)
    if first.outcome != Outcome.NOT_RECHECKED or len(growth.singles) < 2:
        return first
    survived: list[ReadingGrowth] = []
    why: dict[str, list[str]] = {}  # reason -> the bounds it stopped, in the model's order
    for label, constants in growth.singles:
        single = _run(runs, option, label, constants)
        if single.outcome == Outcome.VANISHES:
            return ReadingGrowth(Outcome.VANISHES, f"{label} alone", classification=single.classification)
        if single.outcome == Outcome.SURVIVES:
            survived.append(single)
            why.setdefault("survives", []).append(label)
        else:
            why.setdefault(single.reason, []).append(label)
    if len(survived) == len(growth.singles):
        each = ", ".join(label for label, _ in growth.singles)
        return ReadingGrowth(Outcome.SURVIVES, f"each bound one step larger on its own ({each})", classification=most_severe([s.classification for s in survived]))
    singles = "; ".join(f"{', '.join(labels)}: {reason}" for reason, labels in why.items())
    return ReadingGrowth(Outcome.NOT_RECHECKED, reason=f"every bound at once: {first.reason}; one bound at a time: {singles}")


def _run(runs: _ModelRuns, option: OptionImpact, label: str, constants: dict[str, Any]) -> ReadingGrowth:
    """The option's class against the default, both analysed with `constants`."""
    mi = runs.mi
    if runs.allowance.left <= 0 and label not in runs.defaults:
        return ReadingGrowth(Outcome.NOT_RECHECKED, label, SPENT)
    base = runs.default(label, constants)
    if base is None:
        return ReadingGrowth(Outcome.NOT_RECHECKED, label, f"the default overruns the state budget of {runs.budget:,}")
    if runs.allowance.left <= 0:
        return ReadingGrowth(Outcome.NOT_RECHECKED, label, SPENT)
    alt = runs.impact(Config(constants, option.config.readings))
    if alt is None:
        return ReadingGrowth(Outcome.NOT_RECHECKED, label, f"the option overruns the state budget of {runs.budget:,}")
    assert option.impact is not None and option.divergence is not None
    if base.states < mi.impact.states or alt.states < option.impact.states:
        return ReadingGrowth(Outcome.NOT_RECHECKED, label, f"the larger game is smaller ({base.states:,} and {alt.states:,} states against "
                             f"{mi.impact.states:,} and {option.impact.states:,}), which says nothing about the option")
    cls, _ = classify(option.divergence, base, alt)
    return ReadingGrowth(Outcome.SURVIVES if cls in SEVERE else Outcome.VANISHES, label, classification=cls)
