"""The property kinds: one table every module reads.

A kind's row says what a suite writes for it (its fields), what class of property it is (which
decides how an engine finds it), which verdict a path found by an engine means, how a violation
is explained in a trace's note, what the interpreter must see at the end of a trace to confirm
it, and how an unfiled failure of it is named and classed on the errata page. Adding a kind means
adding a row here and the engine checks and the confirmation for its class; nothing else tests
kind names.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class KindClass(StrEnum):
    """How a kind is decided: on each state, on each transition, or on the whole graph."""

    STATE = "state"  # a predicate of one reachable state (a path to it is the evidence)
    TRANSITION = "transition"  # a predicate of one move (`after`)
    GRAPH = "graph"  # needs the reachable graph: loops, backward reachability, game values
    GENERIC = "generic"  # about the rules themselves, added to every suite


@dataclass(frozen=True)
class PropertyKind:
    name: str
    fields: frozenset[str]  # the keys a property of this kind must give (besides id and kind)
    klass: KindClass
    found: str  # the verdict an engine gives when it finds a path: `fails`, or `holds` for a witness
    violation: str  # a trace's note for the path found (`{expr}` is the property's expression); "" when the engine words it
    confirms: str  # what the replayed trace's end must show (the interpreter checks it: checker/evidence/confirm.py)
    problem: str | None = None  # an unfiled failure's title on the errata page (None: the property's own words)
    unfiled_class: str | None = None  # an unfiled failure's class (None: from its verdicts across readings)
    game_breaking: bool = False  # a failure makes the game unplayable as written
    symbolic_gap: str | None = None  # why the symbolic engine cannot decide it (None: it can)
    native: bool = True  # the native back-end's compiled loop decides it
    needs_edges: bool = False  # the explicit engine must keep the exploration's edges to decide it
    optional: frozenset[str] = frozenset()  # keys only this kind may give (besides the common ones)
    existential: bool = False  # `holds` means something exists (a witness, an action firing): over free configurations, in some


    @property
    def keeps_witness(self) -> bool:
        """A path the engine finds shows the property holds (a witness), not that it fails."""
        return self.found == "holds"


def _kind(name: str, fields: tuple[str, ...], klass: KindClass, confirms: str, *, found: str = "fails", violation: str = "", optional: tuple[str, ...] = (), **extra: object) -> PropertyKind:
    return PropertyKind(name, frozenset(fields), klass, found, violation, confirms, optional=frozenset(optional), **extra)  # type: ignore[arg-type]


KINDS: dict[str, PropertyKind] = {k.name: k for k in (
    _kind("invariant", ("expr",), KindClass.STATE, "a state where the invariant is false",
          violation="In the last state `{expr}` is false, but it should hold in every reachable state."),
    _kind("after", ("action", "expr"), KindClass.TRANSITION, "a transition after which the expression is false"),
    _kind("reachable", ("expr",), KindClass.STATE, "a state satisfying the expression", found="holds",
          violation="The last state satisfies `{expr}`: a witness that it is reachable.", optional=("witness",), existential=True),
    _kind("unreachable", ("expr",), KindClass.STATE, "a state satisfying the expression",
          violation="The last state satisfies `{expr}`, which should be unreachable."),
    _kind("leads-to", ("from", "to"), KindClass.GRAPH, "a play from `from` that avoids `to`", needs_edges=True),
    _kind("terminates", (), KindClass.GRAPH, "a loop of non-terminal states, or a play longer than `within`",
          problem="A game can go on for ever", unfiled_class="gap", game_breaking=True, needs_edges=True),
    _kind("deadlock-free", (), KindClass.GENERIC, "a non-terminal state with no enabled action",
          problem="A player can be left with no legal move", unfiled_class="gap", game_breaking=True),
    _kind("deterministic", (), KindClass.GENERIC, "two forced rules with different outcomes",
          problem="Two rules prescribe different outcomes for the same situation", unfiled_class="contradiction"),
    _kind("coverage", (), KindClass.GENERIC, "an action that never fires",
          problem="Some rules can never apply", unfiled_class="dead-rule", existential=True),
    _kind("can-end", (), KindClass.GRAPH, "a state from which no play reaches a terminal state",
          problem="A game can reach a point from which it cannot end", unfiled_class="gap", game_breaking=True,
          symbolic_gap="`can-end` (AG EF terminal) needs the whole reachable graph: use the explicit engine", native=True, needs_edges=True),
    _kind("value", ("value",), KindClass.GRAPH, "a line of play that ends or returns to an earlier state",
          symbolic_gap="`value` (retrograde analysis) needs the whole reachable graph: use the explicit engine", native=False),
)}

GENERIC = tuple(name for name, k in KINDS.items() if k.klass is KindClass.GENERIC)  # added to every suite
STATE_KINDS = tuple(name for name, k in KINDS.items() if k.klass is KindClass.STATE)
GAME_BREAKING = frozenset(name for name, k in KINDS.items() if k.game_breaking)


def kind(name: str) -> PropertyKind:
    """The row of a kind the suite loader has accepted."""
    return KINDS[name]
