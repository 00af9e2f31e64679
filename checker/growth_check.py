"""The outcome of a finding's growth re-check, as every report shows it.

A finding shown with the small decks, hands and piles a model chose may be an artefact of them.
`checker.analysis.growth` re-checks one representative failure of each filed finding with every
marked bound (`bound: true`) one step larger; this module is only the outcome and its words, so
the reports (terminal, errata page, JSON, JUnit, SARIF) depend on no engine code.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any

NO_BOUND = "the model marks no constant as a bound (`bound: true`)"


class Outcome(StrEnum):
    SURVIVES = "survives"  # still fails with every bound one step larger: kept as a finding
    VANISHES = "vanishes"  # holds with the larger bounds: a bound artefact, not a rule defect
    NOT_RECHECKED = "not re-checked"  # budget, time, no bound to grow: nothing established


@dataclass(frozen=True)
class GrowthCheck:
    """One finding re-checked on its representative failure (variant, property, readings)."""

    finding: str
    outcome: Outcome
    variant: str
    property: str
    reading: str
    grown: tuple[str, ...]  # "n_foreign 2->3", "hand_base[heroes] 3->4"
    at_max: tuple[str, ...]  # bounds already at the top of their declared range
    reason: str = ""  # why not re-checked, or how the larger run ended
    states: int = 0

    @property
    def applies(self) -> bool:
        """The model marks some bound (otherwise there is nothing to grow)."""
        return self.reason != NO_BOUND

    @property
    def artefact(self) -> bool:
        return self.outcome == Outcome.VANISHES

    def words(self) -> str:
        """One sentence for the page and the terminal."""
        where = f"`{self.property}` on {self.variant} [{self.reading}]"
        grown = ", ".join(self.grown)
        at_max = f" ({', '.join(self.at_max)} already at the top of its range)" if self.at_max else ""
        if self.outcome == Outcome.SURVIVES:
            return f"survives: {where} still fails with {grown}{at_max} ({self.states:,} states explored)"
        if self.outcome == Outcome.VANISHES:
            return f"vanishes: {where} holds with {grown}{at_max} ({self.states:,} states explored, {self.reason}): a bound artefact"
        tried = f" with {grown}{at_max}" if grown else at_max
        return f"not re-checked: {where}{tried}: {self.reason}"

    def to_json(self) -> dict[str, Any]:
        return {"finding": self.finding, "outcome": str(self.outcome), "variant": self.variant, "property": self.property,
                "reading": self.reading, "grown": list(self.grown), "at_max": list(self.at_max), "reason": self.reason,
                "states": self.states}

    @classmethod
    def from_json(cls, doc: dict[str, Any]) -> GrowthCheck:
        return cls(str(doc["finding"]), Outcome(doc["outcome"]), str(doc["variant"]), str(doc["property"]), str(doc["reading"]),
                   tuple(doc["grown"]), tuple(doc["at_max"]), str(doc["reason"]), int(doc["states"]))
