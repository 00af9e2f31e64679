"""What every engine returns: one `Verdict` per property, under one engine protocol.

An engine decides; it does not build results or traces. The runner alone turns a verdict into a
`Result`, and the evidence layer alone turns a verdict's evidence into a confirmed `Trace` (and
words the loops it shows), so the two engines cannot explain the same violation differently.
The evidence is typed by its shape (a path, a lasso, a closed set, a strategy, ...), each type
with only the parts that shape has, so no consumer reads a loop start off a deadlock.
Statuses and engine names are string enums: they compare and serialise as the plain strings
the JSON, YAML and Markdown outputs have always carried.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any, ClassVar, Protocol, TypeAlias

from checker.lang.interp import State
from checker.lang.model import Config, Model
from checker.lang.properties import BoundProperty


class Status(StrEnum):
    HOLDS = "holds"
    FAILS = "fails"
    UNDECIDED = "undecided"
    ERROR = "error"


class EngineName(StrEnum):
    EXPLICIT = "explicit"
    SYMBOLIC = "symbolic"
    DISTRIBUTED = "distributed"  # the explicit search, partitioned over a Dask cluster's workers


# -- the evidence a verdict carries, one type per shape the engines find ---------------------------
# Each is a play of readable states from an initial state; what its last state (or its loop) must
# show is the type's. `shape` is the word traces and their JSON carry for it.


@dataclass(frozen=True)
class Path:
    """A play that shows the verdict by its end: its last state breaks an invariant or is a
    `reachable` state (a witness), its last step breaks an `after`, it ends without `to`
    (`leads-to`) or outlasts `within` (`terminates`)."""

    states: list[State]
    last_action: str | None = None  # `after`: the action of the final step (another may reach the same state)
    more: tuple[list[State], ...] = ()  # `reachable`: further witnesses, each to another end state
    shape: ClassVar[str] = "path"


@dataclass(frozen=True)
class Deadlock:
    """A play to a state where no rule applies and the game is not over."""

    states: list[State]
    shape: ClassVar[str] = "deadlock"


@dataclass(frozen=True)
class ClosedSet:
    """A play to a state from which no play ends (`can-end`): its successors close on themselves."""

    states: list[State]
    shape: ClassVar[str] = "closed"


@dataclass(frozen=True)
class StepError:
    """A play to a state whose next step raises a modelling error."""

    states: list[State]
    shape: ClassVar[str] = "error"


@dataclass(frozen=True)
class PropertyError:
    """A play to a state where the property's own expression cannot be evaluated."""

    states: list[State]
    last_action: str | None = None  # `after`: the action of the final step, whose parameters the expression reads
    shape: ClassVar[str] = "property-error"


@dataclass(frozen=True)
class Branches:
    """A play to a state where two forced rules apply at once and prescribe different outcomes
    (`deterministic`): the replay confirms the two moves, which a path alone does not name."""

    states: list[State]
    moves: tuple[tuple[str, dict[str, Any]], ...]  # (action, parameters) of the disagreeing moves
    shape: ClassVar[str] = "branch"


@dataclass(frozen=True)
class Lasso:
    """A play that ends where it already was: it can go round its loop forever."""

    states: list[State]
    loop_start: int  # index into `states` of the state the last one repeats
    exits: bool | None = None  # whether the loop's strongly connected component can be left (None: not known)
    shape: ClassVar[str] = "lasso"


@dataclass(frozen=True)
class Strategy:
    """A line of perfect play (`value`), shown whether the value matched or not; it ends the
    game or returns to an earlier state."""

    states: list[State]
    loop_start: int | None = None  # index into `states` of the state the line returns to, if it cycles
    shape: ClassVar[str] = "strategy"


Evidence: TypeAlias = Path | Deadlock | ClosedSet | StepError | PropertyError | Branches | Lasso | Strategy


def evidence_of(shape: str, states: list[State] | None, *, loop_start: int | None = None, last_action: str | None = None,
                moves: tuple[tuple[str, dict[str, Any]], ...] = (), exits: bool | None = None,
                more: tuple[list[State], ...] = ()) -> Evidence | None:
    """The typed evidence of a search's finding (None: it has no play). The searches name a
    finding's shape with a word beside one record of optional parts, in state numbers; this is
    the one place those words become types, once the states are readable."""
    if not states:
        return None
    match shape:
        case "path":
            return Path(states, last_action, more)
        case "deadlock":
            return Deadlock(states)
        case "closed":
            return ClosedSet(states)
        case "error":
            return StepError(states)
        case "property-error":
            return PropertyError(states, last_action)
        case "branch":
            return Branches(states, moves)
        case "lasso":
            assert loop_start is not None, "a lasso names where its loop starts"
            return Lasso(states, loop_start, exits)
        case "strategy":
            return Strategy(states, loop_start)
    raise ValueError(f"no evidence has the shape {shape!r}")


@dataclass
class Verdict:
    """One property decided under one configuration, with the evidence that shows it (if any)."""

    status: Status
    engine: EngineName
    bound: str  # how far the verdict reaches: "exhaustive", "BMC depth <= 12", "k-induction (k=2)", ...
    proof: bool = True  # False for a `holds` that only holds within a bound
    states: int = 0
    transitions: int = 0
    depth: int = 0
    seconds: float = 0.0
    detail: str = ""
    config: Config | None = None  # the configuration the evidence lives in, when the engine chose it (free constants)
    evidence: Evidence | None = None  # the play that shows the verdict, from an initial state
    note: str = ""
    reused: bool = False  # taken from the verdict cache (`checker.evidence.verdict_cache`), not decided in this run
    # a run that leaves constants or readings free decides for a set of configurations at once:
    # "every" (the verdict holds of each) or "some" (of the one in `config`); "" for one configuration
    quantifier: str = ""

    @property
    def has_witness(self) -> bool:
        """The evidence shows that a property which holds does (a reachable state), not a failure."""
        return isinstance(self.evidence, Path) and self.status is Status.HOLDS

    @property
    def has_evidence(self) -> bool:
        """The evidence shows a failure (or an error), or the line of play a game value rests on."""
        return self.evidence is not None and (self.status in (Status.FAILS, Status.ERROR) or isinstance(self.evidence, Strategy))


class Engine(Protocol):
    """Decide every property of one configuration."""

    name: EngineName

    def decide(self, model: Model, config: Config, props: list[BoundProperty], options: Any) -> dict[str, Verdict]: ...
