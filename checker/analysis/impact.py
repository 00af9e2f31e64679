"""The impact analysis of a game's readings: per reading option, its divergence scenario from
the default, the outcome impact under both, and its class; optionally pairs of options.

One exploration of the default configuration per model serves every option; an option whose
reading no model expression consults is moot without exploring anything, and an option with no
divergence is the same game as the default on every reachable state, so its impact is not
recomputed.
"""

from __future__ import annotations

import itertools
import time
from dataclasses import dataclass, field

import numpy as np

from checker.analysis.classify import classify, most_severe
from checker.analysis.divergence import Divergence, find_divergence
from checker.analysis.dominated import dominated_choices
from checker.analysis.footprint import gating_partners, related_pairs
from checker.analysis.outcomes import NEVER, Impact, analyse
from checker.engines.game_graph import outcome_labels
from checker.engines.statespace import StateSpace, explore_space
from checker.lang.compile import CompiledModel
from checker.lang.model import Config, Model, Reading
from checker.lang.properties import referenced_readings


@dataclass
class Settings:
    max_states: int = 500_000
    timeout: float = 300.0
    games: int = 2000  # seeded games per configuration when the state space exceeds the budget
    seed: int = 0
    pairs: bool = False


@dataclass
class PairedEffect:
    """What a moot option does once a reading that gates it is at another option: the
    partner's option set in both games, the moot option's own against it."""

    partner: tuple[str, str]  # (reading, option) set beside it
    divergence: Divergence
    impact: Impact | None
    classification: str
    reasons: list[str]


@dataclass
class OptionImpact:
    reading: str
    option: str
    config: Config
    divergence: Divergence | None  # None when the model never consults the reading
    impact: Impact | None
    classification: str
    reasons: list[str]
    # a moot option re-checked beside each option of the readings that gate it (`moot_in_pairs`):
    # how many such combinations, and those where it is not moot
    pairs_checked: int = 0
    paired: list[PairedEffect] = field(default_factory=list)


@dataclass
class ReadingImpact:
    reading: Reading
    options: list[OptionImpact]

    @property
    def classification(self) -> str:
        return most_severe([o.classification for o in self.options])


@dataclass
class PairImpact:
    """Two options taken together, and whether their joint effect is the union of their own."""

    options: tuple[tuple[str, str], tuple[str, str]]
    effect: set[str]
    union: set[str]
    impact: Impact | None

    @property
    def interacts(self) -> bool:
        return self.effect != self.union


@dataclass
class ModelImpact:
    model: Model
    baseline: Config
    impact: Impact
    readings: list[ReadingImpact] = field(default_factory=list)
    pairs: list[PairImpact] = field(default_factory=list)
    seconds: float = 0.0


def consulted_readings(model: Model) -> set[str]:
    return referenced_readings(model, [])


def impact_of(model: Model, config: Config, settings: Settings) -> Impact:
    """One configuration's outcomes; its whole space is kept for the check matrix when the run
    shares spaces (`checker.engines.native.space_store`)."""
    space = explore_space(CompiledModel(model, config, lazy=True), settings.max_states, settings.timeout)  # the Python successor code only if something runs in Python
    keep_space(space)
    impact = analyse(space, settings.games, settings.seed)
    if space.complete and space.error is None:
        choices = dominated_choices(space, outcome_labels(space))
        impact.never_help, impact.never_help_note = [d.words() for d in choices.dominated], choices.note
    return impact


def keep_space(space: StateSpace) -> None:
    """A complete space the bytecode interpreter explored, kept for the rest of the run."""
    from checker.engines.native import space_store, unavailable_reason

    if not space_store.sharing_now() or unavailable_reason() is not None or not space.complete or space.error is not None:
        return
    from checker.engines.statespace import PackedStates

    if not isinstance(space.states, PackedStates):
        return
    parent, starts, targets, instances = (np.frombuffer(column, np.int32) for column in (space.parent, space.starts, space.targets, space.instances))
    space_store.keep(space.compiled, space_store.StoredSpace(space.states.rows, parent, starts, targets, instances, np.frombuffer(space.terminal, np.uint8)))


Item = tuple[Model, Config, Config | None, Settings]  # one exploration: the baseline's (no alternative) or one option's
Explored = tuple[Divergence | None, Impact | None, float]  # what `explore_item` gives back
Plan = list[tuple[Model, Config, set[str], list[tuple[str, str, Config]], int]]


def plan_models(models: list[Model], settings: Settings, baseline: Config | None = None) -> tuple[Plan, list[Item]]:
    """The explorations the analysis of `models` needs (`explore_item` of each, in any pool)
    and the plan that `assemble` reads their outputs with, in the same order."""
    plans: Plan = []
    items: list[Item] = []
    for model in models:
        base = baseline or model.default_config()
        consulted = consulted_readings(model)
        deviations = [(name, option, base.with_readings({name: option})) for name, reading in model.readings.items()
                      for option in reading.options if option != base.readings[name]]
        requests: list[Item] = [(model, base, None, settings)]
        requests += [(model, base, config, settings) for name, _, config in deviations if name in consulted]
        plans.append((model, base, consulted, deviations, len(requests)))
        items += requests
    return plans, items


def assemble(plans: Plan, explored: list[Explored], settings: Settings) -> list[ModelImpact]:
    """The models' analyses from their explorations' outputs (in `plan_models`' order)."""
    out = []
    for model, base, consulted, deviations, count in plans:
        started = time.process_time()
        outcomes, explored = explored[:count], explored[count:]
        seconds = sum(spent for _, _, spent in outcomes)
        baseline_impact = outcomes[0][1]
        assert baseline_impact is not None, "the baseline item is explored without an alternative"
        result = ModelImpact(model, base, baseline_impact)
        pending = [(divergence, impact) for divergence, impact, _ in outcomes[1:]]
        for name, reading in model.readings.items():
            options = []
            for option, config in [(o, c) for n, o, c in deviations if n == name]:
                if name not in consulted:
                    label, reasons = classify(Divergence(model, base, config, found=False), None, None, unconsulted=True)
                    options.append(OptionImpact(name, option, config, None, None, label, reasons))
                    continue
                divergence, impact = pending.pop(0)
                assert divergence is not None, "an option's item always searches for a divergence"
                label, reasons = classify(divergence, result.impact, impact)
                options.append(OptionImpact(name, option, config, divergence, impact, label, reasons))
            result.readings.append(ReadingImpact(reading, options))
        if settings.pairs:
            result.pairs = pair_impacts(model, result, settings)
        result.seconds = seconds + time.process_time() - started
        out.append(result)
    return out


def explore_item(item: Item) -> Explored:
    """The baseline's impact (no alternative), or one option's divergence from the baseline and
    its impact when they diverge; with the CPU seconds it took (a pool job: module level)."""
    started = time.process_time()
    model, baseline, config, settings = item
    if config is None:
        return None, impact_of(model, baseline, settings), time.process_time() - started
    divergence = find_divergence(model, baseline, config, settings.max_states, settings.timeout)
    impact = impact_of(model, config, settings) if divergence.found else None
    return divergence, impact, time.process_time() - started


def effect(base: Impact, alt: Impact | None) -> set[str]:
    """What an option changes, as facts that can be united: outcomes gained or lost, the game
    no longer (or again) able to end, stuck states appearing or vanishing, odds moving."""
    if alt is None:
        return set()
    out = {f"gains {o}" for o in set(alt.outcomes) - set(base.outcomes)}
    out |= {f"loses {o}" for o in set(base.outcomes) - set(alt.outcomes)}
    if base.can_end != alt.can_end:
        out.add("can end" if alt.can_end else "cannot always end")
    if bool(base.stuck_states) != bool(alt.stuck_states):
        out.add("can get stuck" if alt.stuck_states else "never stuck")
    if base.probabilities is not None and alt.probabilities is not None and base.complete and alt.complete:
        for name in sorted(set(base.probabilities) | set(alt.probabilities) | {NEVER}):
            a, b = base.probabilities.get(name, 0.0), alt.probabilities.get(name, 0.0)
            if abs(a - b) > 1e-9:
                out.add(f"{name} {'more' if b > a else 'less'} likely")
    return out


def moot_in_pairs(impacts: list[ModelImpact], settings: Settings) -> None:
    """Re-check every moot option of a consulted reading beside each other option of the
    readings that gate it (`footprint.gating_partners`): a verdict of "no effect" with the
    other readings at their defaults is only published as such when it holds in every one of
    these combinations too (a lone player's count-out rule is moot while count outs are off).
    The effects found are kept on the option (`OptionImpact.paired`)."""
    for mi in impacts:
        singles = {(o.reading, o.option): o for r in mi.readings for o in r.options}
        for moot in (o for o in singles.values() if o.classification == "moot" and o.divergence is not None):
            for partner in gating_partners(mi.model, moot.reading):
                for option in mi.model.readings[partner].options:
                    if option == mi.baseline.readings[partner]:
                        continue
                    beside = mi.baseline.with_readings({partner: option})
                    both = beside.with_readings({moot.reading: moot.option})
                    divergence = find_divergence(mi.model, beside, both, settings.max_states, settings.timeout)
                    moot.pairs_checked += 1
                    if not divergence.found:
                        continue
                    alone = singles[(partner, option)]
                    base = alone.impact if alone.impact is not None else mi.impact  # no divergence of its own: the default's game
                    impact = impact_of(mi.model, both, settings)
                    label, reasons = classify(divergence, base, impact)
                    if label != "moot":
                        moot.paired.append(PairedEffect((partner, option), divergence, impact, label, reasons))


def pair_impacts(model: Model, result: ModelImpact, settings: Settings) -> list[PairImpact]:
    """Every pair of deviations of readings that share a clause or a slot."""
    singles = {(o.reading, o.option): o for r in result.readings for o in r.options}
    out = []
    for a, b in related_pairs(model):
        for oa, ob in itertools.product([o for o in model.readings[a].options if o != result.baseline.readings[a]], [o for o in model.readings[b].options if o != result.baseline.readings[b]]):
            first, second = singles[(a, oa)], singles[(b, ob)]
            config = result.baseline.with_readings({a: oa, b: ob})
            impact = impact_of(model, config, settings)
            union = effect(result.impact, first.impact) | effect(result.impact, second.impact)
            out.append(PairImpact(((a, oa), (b, ob)), effect(result.impact, impact), union, impact))
    return out
