"""What a check produces: one `Result` per model x reading combination x property."""

from __future__ import annotations

from dataclasses import dataclass, field

from checker.engines.verdict import EngineName, Path, Status
from checker.evidence.confirm import build_trace
from checker.evidence.growth_check import GrowthCheck
from checker.evidence.size_check import SizeCheck
from checker.evidence.trace import Trace
from checker.evidence.value_check import ValueCheck
from checker.lang.interp import State
from checker.lang.model import Config, Model
from checker.lang.properties import BoundProperty, Property
from checker.lang.property_kinds import KINDS

STATUSES = tuple(Status)


@dataclass
class Result:
    model: Model
    prop: Property
    config: Config
    status: Status
    engine: EngineName
    bound: str  # how far the verdict reaches: "exhaustive", "depth <= 12", "k-induction", ...
    expected: str
    states: int = 0
    transitions: int = 0
    depth: int = 0
    seconds: float = 0.0
    trace: Trace | None = None
    detail: str = ""
    proof: bool = True  # False for a `holds` that only holds within a bound
    witness_paths: tuple[list[State], ...] = ()  # reachable, when it holds: shortest plays to different states satisfying it
    witness_of: BoundProperty | None = None  # the property the witness paths are replayed against
    _witnesses: list[Trace] | None = field(default=None, repr=False)
    growth: tuple[GrowthCheck, ...] = ()  # the growth re-checks of the findings this failure shows
    values: tuple[ValueCheck, ...] = ()  # the re-checks of those findings with invented numbers at other plausible values
    sizes: tuple[SizeCheck, ...] = ()  # those findings played at the document's size
    reused: bool = False  # the verdict came from the verdict cache: nothing was explored for it in this run
    # a run over free constants or readings: "every" configuration, or "some" (`config`); "" for one
    quantifier: str = ""
    # the verdict is about a configuration the suite's `expect` speaks of: false for a verdict
    # about "some" configuration whose constants are not the run's own (`--set`, else the defaults)
    about_suite: bool = True

    @property
    def witnesses(self) -> list[Trace]:
        """The witness paths as traces, replayed and confirmed in the interpreter like every
        counterexample, on first use: replaying costs about as much as a small exploration, and
        most runs (the summary, the errata) never show a witness."""
        if self._witnesses is None:
            prop = self.witness_of
            assert prop is not None or not self.witness_paths
            note = KINDS[self.prop.kind].violation.format(expr=self.prop.texts["expr"][0]) if self.witness_paths else ""
            self._witnesses = [build_trace(self.model, self.config, prop, Path(path), note) for path in self.witness_paths]  # type: ignore[arg-type]
        return self._witnesses

    @property
    def reading_label(self) -> str:
        return self.config.reading_label(self.model)

    @property
    def matches(self) -> bool:
        """The verdict is the expected one. A `holds` that is only bounded (time or depth ran
        out before a proof) matches `holds` only when the property itself asks for that bound
        (its own `depth`, reached in full): an unfinished check never passes. A verdict about
        some configuration other than the suite's (free constants) does not say what the
        suite's own configuration gives: it passes nothing (`docs/symbolic.md`)."""
        if self.status != self.expected or not self.about_suite:
            return False
        if self.status == "holds" and not self.proof:
            return self.prop.depth is not None and self.depth >= self.prop.depth and "timeout" not in self.bound
        return True

    @property
    def verdict_text(self) -> str:
        text = "holds (bounded)" if self.status == "holds" and not self.proof else str(self.status)
        if self.quantifier == "every":
            return f"{text} in every configuration"
        if self.quantifier == "some":
            return f"{text} in some configuration" + ("" if self.about_suite else ", undecided in the suite's")
        return text
