"""What every engine returns: one `Verdict` per property, under one engine protocol.

An engine decides; it does not build results or traces. The runner alone turns a verdict into a
`Result`, and the evidence layer alone turns a verdict's path into a confirmed `Trace` (and words
the loops it shows), so the two engines cannot explain the same violation differently.
Statuses and engine names are string enums: they compare and serialise as the plain strings
the JSON, YAML and Markdown outputs have always carried.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Protocol

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


@dataclass
class Verdict:
    """One property decided under one configuration, with the path that shows it (if any)."""

    status: Status
    engine: EngineName
    bound: str  # how far the verdict reaches: "exhaustive", "BMC depth <= 12", "k-induction (k=2)", ...
    proof: bool = True  # False for a `holds` that only holds within a bound
    states: int = 0
    transitions: int = 0
    depth: int = 0
    seconds: float = 0.0
    detail: str = ""
    config: Config | None = None  # the configuration the path lives in, when the engine chose it (free constants)
    path: list[State] | None = None  # readable states from an initial state: the evidence
    shape: str = "path"
    loop_start: int | None = None
    note: str = ""
    last_action: str | None = None  # after: the action of the final step
    branches: tuple[tuple[str, dict[str, Any]], ...] = ()  # deterministic: the disagreeing moves
    loop_exits: bool | None = None  # a lasso: whether its strongly connected component can be left (None: not known)
    more_witnesses: tuple[list[State], ...] = ()  # reachable: further witnesses, each to another end state
    reused: bool = False  # taken from the verdict cache (`checker.verdict_cache`), not decided in this run
    # a run that leaves constants or readings free decides for a set of configurations at once:
    # "every" (the verdict holds of each) or "some" (of the one in `config`); "" for one configuration
    quantifier: str = ""

    @property
    def has_witness(self) -> bool:
        """The path shows that a property which holds does (a reachable state), not a failure."""
        return bool(self.path) and self.status is Status.HOLDS and self.shape == "path"

    @property
    def has_evidence(self) -> bool:
        return bool(self.path) and (self.status in (Status.FAILS, Status.ERROR) or self.shape == "strategy")


class Engine(Protocol):
    """Decide every property of one configuration."""

    name: EngineName

    def decide(self, model: Model, config: Config, props: list[BoundProperty], options: Any) -> dict[str, Verdict]: ...
