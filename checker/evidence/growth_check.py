"""The outcome of a finding's growth re-check, as every report shows it.

A finding shown with the small decks, hands and piles a model chose may be an artefact of them.
`checker.pipeline.growth` re-checks one representative failure of each filed finding with every
marked bound (`bound: true`) one step larger, and, when that larger run overruns its budget,
with each bound one step larger on its own; a run whose breadth-first exploration overran may
still be decided by a seeded search that meets a violation (`checker.analysis.witness`), and its
words say so. This module is only the outcome and its words, so the reports (terminal, errata
page, JSON, JUnit, SARIF) depend on no engine code.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any

NO_BOUND = "the model marks no constant as a bound (`bound: true`)"


class Outcome(StrEnum):
    SURVIVES = "survives"  # still fails with the larger bounds: kept as a finding
    VANISHES = "vanishes"  # holds with the larger bounds (all, or one of them): a bound artefact
    NOT_RECHECKED = "not re-checked"  # budget, time, no bound to grow: nothing established


@dataclass(frozen=True)
class SingleGrowth:
    """One bound one step larger on its own (the fallback when growing all at once overruns)."""

    grown: str  # "n_foreign 2->3"
    outcome: Outcome
    reason: str = ""
    states: int = 0
    searched: int = 0  # survives by a seeded search's violation (breadth first overran): the states it spent

    def words(self) -> str:
        if self.outcome == Outcome.NOT_RECHECKED:
            return f"{self.grown}: not re-checked ({self.reason})"
        if self.searched:
            return f"{self.grown}: {self.outcome} ({searched_words(self.searched, self.reason)})"
        return f"{self.grown}: {self.outcome} ({self.states:,} states)"

    def to_json(self) -> dict[str, Any]:
        return {"grown": self.grown, "outcome": str(self.outcome), "reason": self.reason, "states": self.states, "searched": self.searched}

    @classmethod
    def from_json(cls, doc: dict[str, Any]) -> SingleGrowth:
        return cls(str(doc["grown"]), Outcome(doc["outcome"]), str(doc["reason"]), int(doc["states"]), int(doc.get("searched", 0)))


# How a run's reason goes on when its breadth-first run overran and the seeded search decided
# nothing (`checker.pipeline.growth`): kept by `_short`.
SEARCH_MARKS = ("; a seeded search", "; the seeded search")


def searched_words(searched: int, reason: str) -> str:
    """How a growth that breadth first could not decide was decided: a violation met by the
    seeded search, never a claim about the whole larger game."""
    if reason.startswith("not run: "):
        return f"a violation found by a seeded search after {searched:,} states; not explored breadth first, {reason[len('not run: '):]}"
    return f"a violation found by a seeded search after {searched:,} states; the breadth-first run was {_short(reason)}"


def _short(reason: str) -> str:
    """A run's reason without the detail a designer does not act on: "over the budget of 201,100
    states" for "state budget of 201,100 reached; explored to depth 41" (and what a seeded search
    then found, kept)."""
    searched = ""
    for mark in SEARCH_MARKS:
        if mark in reason:
            reason, searched = reason[: reason.index(mark)], reason[reason.index(mark):]
            break
    return _short_run(reason) + searched


def _short_run(reason: str) -> str:
    """`_short` of one breadth-first run's reason."""
    if reason.startswith("state budget of ") and " reached" in reason:
        return f"over the budget of {reason[len('state budget of '):reason.index(' reached')]} states"
    if reason.startswith("it holds, but in a smaller game"):
        return "it holds, but in a smaller game, which says nothing about the finding"
    return reason


@dataclass(frozen=True)
class GrowthCheck:
    """One finding re-checked on its representative failure (variant, property, readings).

    `grown`, `reason` and `states` describe the run with every bound larger at once; `singles`,
    when that run overran, the runs with one bound larger each (in the model's order, up to the
    first that makes the finding vanish)."""

    finding: str
    outcome: Outcome
    variant: str
    prop: str  # the representative's property id
    reading: str
    grown: tuple[str, ...]  # "n_foreign 2->3", "hand_base[heroes] 3->4"
    at_max: tuple[str, ...]  # bounds already at the top of their declared range
    reason: str = ""  # why not re-checked, or how the larger run ended
    states: int = 0
    singles: tuple[SingleGrowth, ...] = ()
    searched: int = 0  # every bound at once survives by a seeded search's violation: the states it spent

    @property
    def applies(self) -> bool:
        """The model marks some bound (otherwise there is nothing to grow)."""
        return self.reason != NO_BOUND

    @property
    def artefact(self) -> bool:
        return self.outcome == Outcome.VANISHES

    @property
    def cause(self) -> tuple[str, ...]:
        """The growth the finding vanished under: one bound, when found one at a time."""
        vanished = [s.grown for s in self.singles if s.outcome == Outcome.VANISHES]
        return tuple(vanished) if vanished else self.grown

    def words(self) -> str:
        """One sentence for the page and the terminal."""
        where = f"`{self.prop}` on {self.variant} [{self.reading}]"
        grown = ", ".join(self.grown)
        at_max = f" ({', '.join(self.at_max)} already at the top of its range)" if self.at_max else ""
        if self.singles:
            return self._single_words(where, grown, at_max)
        if self.outcome == Outcome.SURVIVES and self.searched:
            return f"survives: {where} still fails with {grown}{at_max} ({searched_words(self.searched, self.reason)})"
        if self.outcome == Outcome.SURVIVES:
            return f"survives: {where} still fails with {grown}{at_max} ({self.states:,} states explored)"
        if self.outcome == Outcome.VANISHES:
            return f"vanishes: {where} holds with {grown}{at_max} ({self.states:,} states explored, {self.reason}): a bound artefact"
        tried = f" with {grown}{at_max}" if grown else at_max
        return f"not re-checked: {where}{tried}: {self.reason}"

    def _single_words(self, where: str, grown: str, at_max: str) -> str:
        # not run at all (`growth._singles_first`: the one-at-a-time runs predicted an overrun), or run and undecided
        at_once = f"every bound at once ({grown}) was {self.reason}" if self.reason.startswith("not run: ") else f"every bound at once ({grown}) was not re-checked: {self.reason}"
        if self.outcome == Outcome.VANISHES:
            single = next(s for s in self.singles if s.outcome == Outcome.VANISHES)
            return f"vanishes: {where} holds with {single.grown} alone ({single.states:,} states explored, {single.reason}): a bound artefact ({at_once})"
        if self.outcome == Outcome.SURVIVES and self.searched:  # every bound at once, by a seeded search, after the singles
            return f"survives: {where} still fails with every bound at once ({grown}){at_max} ({searched_words(self.searched, self.reason)})"
        if self.outcome == Outcome.SURVIVES:
            each = ", ".join(s.grown for s in self.singles)
            return f"survives: {where} still fails with each bound one step larger on its own ({each}){at_max} ({at_once}){_by_search(self.singles)}"
        held = [s for s in self.singles if s.outcome == Outcome.SURVIVES]
        if held:
            return self._partly_words(where, at_max, held)
        tried = "; ".join(s.words() for s in self.singles)
        return f"not re-checked: {where}{at_max}: {at_once}; one bound at a time: {tried}"

    def _partly_words(self, where: str, at_max: str, held: list[SingleGrowth]) -> str:
        """No growth made the finding vanish, some kept it, the others established nothing: a
        headline of its own, apart from surviving every growth, with the others' reasons short
        (the bounds by name, grouped by why)."""
        why: dict[str, list[str]] = {}
        for single in self.singles:
            if single.outcome != Outcome.SURVIVES:
                why.setdefault(_short(single.reason), []).append(single.grown)
        why.setdefault(_short(self.reason), []).append("every bound at once")
        others = "; ".join(f"{', '.join(grown)}: {reason}" for reason, grown in why.items())
        kept = ", ".join(s.grown for s in held)
        return (f"survives each one-bound growth that was decided ({len(held)} of {len(self.singles)}; not a re-check of every bound): "
                f"{where} still fails with {kept}{at_max}{_by_search(held)}; not decided: {others}")

    def to_json(self) -> dict[str, Any]:
        return {"finding": self.finding, "outcome": str(self.outcome), "variant": self.variant, "property": self.prop,
                "reading": self.reading, "grown": list(self.grown), "at_max": list(self.at_max), "reason": self.reason,
                "states": self.states, "one_at_a_time": [s.to_json() for s in self.singles], "searched": self.searched}

    @classmethod
    def from_json(cls, doc: dict[str, Any]) -> GrowthCheck:
        return cls(str(doc["finding"]), Outcome(doc["outcome"]), str(doc["variant"]), str(doc["property"]), str(doc["reading"]),
                   tuple(doc["grown"]), tuple(doc["at_max"]), str(doc["reason"]), int(doc["states"]),
                   tuple(SingleGrowth.from_json(s) for s in doc.get("one_at_a_time", ())), int(doc.get("searched", 0)))


def _by_search(singles: tuple[SingleGrowth, ...] | list[SingleGrowth]) -> str:
    """Which one-bound growths a seeded search decided (their breadth-first runs overran), as a
    clause after the list: a reader must not take them for whole explorations."""
    searched = [s for s in singles if s.searched]
    if not searched:
        return ""
    each = ", ".join(f"{s.grown} after {s.searched:,} states" for s in searched)
    return f"; where breadth first passed its budget, a violation found by a seeded search: {each}"
