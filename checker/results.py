"""What a check produces: one `Result` per model x reading combination x property."""

from __future__ import annotations

from dataclasses import dataclass

from checker.lang.model import Config, Model
from checker.lang.properties import Property
from checker.trace import Trace

STATUSES = ("holds", "fails", "undecided", "error")


@dataclass
class Result:
    model: Model
    prop: Property
    config: Config
    status: str  # holds | fails | undecided | error
    engine: str  # explicit | symbolic
    bound: str  # how far the verdict reaches: "exhaustive", "depth <= 12", "k-induction", ...
    expected: str
    states: int = 0
    transitions: int = 0
    depth: int = 0
    seconds: float = 0.0
    trace: Trace | None = None
    detail: str = ""
    proof: bool = True  # False for a `holds` that only holds within a bound

    @property
    def reading_label(self) -> str:
        return self.config.reading_label(self.model)

    @property
    def matches(self) -> bool:
        """The verdict is the expected one. A `holds` that is only bounded (time or depth ran
        out before a proof) matches `holds` only when the property itself asks for that bound
        (its own `depth`, reached in full): an unfinished check never passes."""
        if self.status != self.expected:
            return False
        if self.status == "holds" and not self.proof:
            return self.prop.depth is not None and self.depth >= self.prop.depth and "timeout" not in self.bound
        return True

    @property
    def verdict_text(self) -> str:
        if self.status == "holds" and not self.proof:
            return "holds (bounded)"
        return self.status
