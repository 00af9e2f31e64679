"""The outcome of a finding re-checked with a number the modeller invented at other values.

A model may need a number the rule document does not print (a cap's lowest value, a die's
faces, a hand limit). Such a constant is marked `plausible: [LO, HI]` (`docs/language.md`), and
`checker.pipeline.invented` re-checks each finding's representative failure with it at the ends
and the middle of that range. A finding that vanishes at some plausible value rests on the
invented number, not on the text: the page says so and names the value. This module is only the
outcome and its words, so the reports depend on no engine code.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from checker.evidence.growth_check import Outcome


@dataclass(frozen=True)
class ValueTried:
    value: int
    outcome: Outcome
    reason: str = ""
    states: int = 0

    def words(self) -> str:
        if self.outcome == Outcome.NOT_RECHECKED:
            return f"at {self.value}: not decided ({self.reason})"
        return f"at {self.value}: {'still fails' if self.outcome == Outcome.SURVIVES else 'holds'} ({self.states:,} states)"


@dataclass(frozen=True)
class ValueCheck:
    """One finding's representative failure re-checked with one invented constant at other
    plausible values (everything else as in the representative)."""

    finding: str
    constant: str
    checked: int  # the value the check used
    plausible: tuple[int, int]
    variant: str
    prop: str
    reading: str
    tried: tuple[ValueTried, ...]

    @property
    def vanishes_at(self) -> tuple[int, ...]:
        return tuple(t.value for t in self.tried if t.outcome == Outcome.VANISHES)

    @property
    def depends(self) -> bool:
        """The finding rests on the invented number: some plausible value makes it vanish."""
        return bool(self.vanishes_at)

    def words(self) -> str:
        """One sentence for the page: the constant, where it was checked, and what each value gave."""
        return f"{self.subject()}: {self.constant_words()}"

    def subject(self) -> str:
        """The failure re-checked: what a finding's checks of several constants share."""
        return f"`{self.prop}` on {self.variant} [{self.reading}]"

    def constant_words(self) -> str:
        """The constant, where it was checked, and what each value gave."""
        lo, hi = self.plausible
        head = f"`{self.constant}` (not in the document; checked at {self.checked}, plausible {lo} to {hi})"
        tried = "; ".join(t.words() for t in self.tried)
        if self.depends:
            return f"{head}: {tried}: the finding depends on the assumed value (it vanishes at {', '.join(map(str, self.vanishes_at))})"
        return f"{head}: {tried}"

    def to_json(self) -> dict[str, Any]:
        return {"finding": self.finding, "constant": self.constant, "checked": self.checked, "plausible": list(self.plausible),
                "variant": self.variant, "prop": self.prop, "reading": self.reading,
                "tried": [{"value": t.value, "outcome": str(t.outcome), "reason": t.reason, "states": t.states} for t in self.tried]}

    @classmethod
    def from_json(cls, doc: dict[str, Any]) -> ValueCheck:
        lo, hi = doc["plausible"]
        tried = tuple(ValueTried(int(t["value"]), Outcome(t["outcome"]), str(t["reason"]), int(t["states"])) for t in doc["tried"])
        return cls(str(doc["finding"]), str(doc["constant"]), int(doc["checked"]), (int(lo), int(hi)), str(doc["variant"]),
                   str(doc["prop"]), str(doc["reading"]), tried)
