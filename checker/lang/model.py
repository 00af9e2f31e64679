"""The loaded, validated model: declarations with typed expressions, ready for every engine."""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import Any

from checker.errors import Loc
from checker.lang.expr import Expr
from checker.lang.types import Domain, ElemType


@dataclass
class Slot:
    name: str
    elem: ElemType
    dims: tuple[Domain, ...]
    loc: Loc
    label: str = ""  # the players' words for it, used by narratives
    internal: bool = False  # bookkeeping of the model: kept in traces for replay, never shown

    @property
    def shown_name(self) -> str:
        return self.label or self.name

    def elements(self) -> list[tuple]:
        """Every index tuple of this slot, row-major (a scalar has the single index ())."""
        return list(itertools.product(*(d.values() for d in self.dims)))

    def allowed(self, domains: dict[str, Domain]) -> list:
        """Every value an element may hold."""
        elem = self.elem
        if elem.type.kind == "bool":
            return [False, True]
        if elem.type.kind == "int":
            assert elem.lo is not None and elem.hi is not None  # a slot's int type always has its range (build.elem_type)
            return list(range(elem.lo, elem.hi + 1))
        assert elem.type.domain is not None  # an enum type is named after its domain
        members = domains[elem.type.domain].members
        assert members is not None  # the domain of an enum type is an enum domain
        return list(members)


@dataclass(frozen=True)
class Pile:
    """An ordered pile (`type: pile`): a bounded sequence of `elem` values, top first.

    It is stored in two ordinary slots, so no engine knows piles: the slot `name` holds one
    element per position (its last dimension, 0 = the top) and the internal slot `length` how
    many cards the pile holds. Positions at or beyond the length hold the element type's first
    value, so one pile has one packed state."""

    name: str
    length: str
    size: int
    elem: ElemType
    outer: tuple[Domain, ...]  # an array of piles is indexed by these first
    members: tuple[str, ...] = ()  # the members of an enum element type

    @property
    def positions(self) -> Domain:
        return Domain(f"{self.name}#pos", lo=0, hi=self.size - 1)

    @property
    def empty(self) -> Any:
        """The value every position beyond the length holds."""
        if self.elem.type.kind == "bool":
            return False
        if self.elem.type.kind == "int":
            return self.elem.lo
        return self.members[0]


@dataclass
class Constant:
    name: str
    elem: ElemType
    dims: tuple[Domain, ...]
    default: Any  # scalar value, or dict from index tuple to value for a table
    loc: Loc
    doc: str = ""
    bound: bool = False  # a size the model chose (deck, hand, pile): the growth re-check raises it
    # `grows_with`: per cell (() for a scalar), the cells of other bounds that the growth re-check
    # raises by one step together with it, as (constant, index)
    grows_with: dict[tuple, tuple[tuple[str, tuple], ...]] = field(default_factory=dict)
    fixed_by: str = ""  # the assumption that fixes this count (it is not a bound): the growth re-check names it
    # the value the rule document prints (a scalar, or a table as `default`), when it prints one
    document: Any = None
    # a number the document does not print and the modeller chose: the range a designer could
    # plausibly print (every finding is re-checked at its ends)
    plausible: tuple[int, int] | None = None

    @property
    def is_table(self) -> bool:
        return bool(self.dims)

    @property
    def invented(self) -> bool:
        return self.plausible is not None

    @property
    def scaled(self) -> bool:
        """The checked default is smaller than the document's value (a miniature of the game)."""
        return self.document is not None and self.document != self.default


@dataclass
class Reading:
    name: str
    clauses: tuple[str, ...]
    question: str
    options: dict[str, str]
    default: str
    loc: Loc
    answers: tuple[str, ...] = ()  # review questions this reading answers


@dataclass
class Assumption:
    """A choice the model makes where the text is silent, recorded so a designer can disagree."""

    id: str
    clauses: tuple[str, ...]
    says: str
    why: str
    answers: tuple[str, ...]
    loc: Loc
    # a careful reader could take another view: the reading whose default option is this
    # assumption and whose other options are the alternatives (checked like any reading)
    contested: str = ""


@dataclass
class Question:
    """A review question about the rule text (models/<game>/questions.yaml)."""

    id: str
    clauses: tuple[str, ...]
    kind: str
    raised_by: str
    question: str
    out_of_scope: str  # the reason, when the question is outside what the model answers
    loc: Loc


@dataclass
class Citation:
    """Clauses an action cites only when `when` holds in the state it fires from (its branch)."""

    when: Expr
    rule: tuple[str, ...]
    loc: Loc


@dataclass
class Narration:
    """One narrative template of an action; `when` (None: always) picks it, first match wins."""

    when: Expr | None
    say: str
    loc: Loc


@dataclass
class Assign:
    """One assignment of an action: slot[indices...] = value, for every binding of `bound`.

    `indices` may be fewer than the slot's dimensions: the value is then written to every
    element of the remaining dimensions (a broadcast)."""

    slot: str
    indices: tuple[Expr, ...]
    bound: tuple[tuple[str, Domain], ...]
    value: Expr
    loc: Loc
    text: str


@dataclass
class Action:
    name: str
    by: str  # "chance" | "rules" | "player"
    actor: Expr | None  # the player expression when by == "player"
    params: tuple[tuple[str, Domain], ...]
    guard: Expr
    weight: Expr | None
    assigns: tuple[Assign, ...]
    rule: tuple[str, ...]  # cited whenever the action fires
    only: dict[str, tuple[str, ...]]
    narrations: tuple[Narration, ...]
    loc: Loc
    cite: tuple[Citation, ...] = ()  # cited only when their condition holds
    assumes: tuple[str, ...] = ()  # ids of the model's assumptions the action rests on (no sentence of the text does)

    @property
    def all_clauses(self) -> tuple[str, ...]:
        """Every clause the action may cite, unconditional ones first."""
        return tuple(dict.fromkeys([*self.rule, *(cid for c in self.cite for cid in c.rule)]))

    def param_bindings(self) -> list[dict[str, Any]]:
        names = [n for n, _ in self.params]
        return [dict(zip(names, combo)) for combo in itertools.product(*(d.values() for _, d in self.params))]


@dataclass
class InitElem:
    """How one slot element starts: a fixed value, or a choice among several."""

    value: Expr | None = None
    choices: tuple[Expr, ...] | None = None  # None with value None means: any value of the type


@dataclass
class Clause:
    id: str
    at: str
    says: str
    status: str  # "rule" | "out-of-scope" | "assumed"
    why: str
    loc: Loc
    same_as: tuple[str, ...] = ()  # the clauses of other sections that state the same rule (each way)

    def section(self) -> str:
        """The section a clause id belongs to: its id without the last `-` part (`SS-TTE-12`:
        `SS-TTE`)."""
        return self.id.rsplit("-", 1)[0] if "-" in self.id else self.id


@dataclass
class Model:
    game: str
    id: str
    path: str
    abstract: bool
    header: str
    source: dict[str, str]
    domains: dict[str, Domain]
    constants: dict[str, Constant]
    readings: dict[str, Reading]
    slots: dict[str, Slot]
    init: dict[str, dict[tuple, InitElem]]
    init_where: tuple[Expr, ...]
    terminal: Expr
    outcome: Expr | None
    actions: dict[str, Action]
    clauses: dict[str, Clause]
    scope: Any = field(repr=False, default=None)  # the typecheck.Scope, for properties
    assumptions: list[Assumption] = field(default_factory=list)
    questions: list[Question] = field(default_factory=list)
    names: dict[str, dict[str, str]] = field(default_factory=dict)  # domain -> member -> display name
    piles: dict[str, Pile] = field(default_factory=dict)  # the ordered piles, by the name of their elements slot
    symmetric: tuple[str, ...] = ()  # enum domains whose members the rules treat alike
    symmetric_loc: Loc | None = None
    # every file the loader read to build it (the extends graph, fragments, clauses, questions;
    # optional files looked for and absent too), by absolute path, with its SHA-256: what every
    # cache key of the model is made from (`checker.lang.caches.model_digest`)
    sources: tuple[tuple[str, str], ...] = ()
    # the sections of the document in effect for this model (clause id prefixes, `sections:`);
    # empty: every clause is
    sections: tuple[str, ...] = ()

    def __reduce__(self) -> tuple:
        """Pickled once per object, unpickled once per process (`checker.lang.shipping`)."""
        from checker.lang.shipping import reduce_model

        return reduce_model(self)

    def __copy__(self) -> Model:
        from checker.lang.shipping import copied

        return copied(self, None)

    def __deepcopy__(self, memo: dict) -> Model:
        from checker.lang.shipping import copied

        return copied(self, memo)

    def in_effect(self, cid: str) -> bool:
        """Whether a clause is in a section of the document that applies to this model."""
        clause = self.clauses.get(cid)
        return not self.sections or clause is None or clause.section() in self.sections

    def cited(self, cid: str) -> str:
        """The clause a step cites for `cid`: itself when in effect, else the clause stating the
        same rule in a section that is (`same_as`), else itself (which lint reports)."""
        if self.in_effect(cid):
            return cid
        clause = self.clauses.get(cid)
        return next((other for other in (clause.same_as if clause else ()) if self.in_effect(other)), cid)

    def display(self, domain: str, member: Any) -> str:
        """A member's display name (its own name when it has none)."""
        return self.names.get(domain, {}).get(str(member), str(member))

    @property
    def folder(self) -> str:
        import os

        return os.path.basename(os.path.dirname(os.path.abspath(self.path)))

    def default_config(self) -> Config:
        return Config(
            constants={name: c.default for name, c in self.constants.items()},
            readings={name: r.default for name, r in self.readings.items()},
        )


@dataclass(frozen=True)
class Config:
    """Values for every constant and an option for every reading: one concrete game."""

    constants: dict[str, Any]
    readings: dict[str, str]

    def with_readings(self, readings: dict[str, str]) -> Config:
        return Config(self.constants, {**self.readings, **readings})

    def reading_label(self, model: Model) -> str:
        """`default`, or the options that differ from the model's defaults."""
        diffs = [f"{n}={o}" for n, o in self.readings.items() if model.readings[n].default != o]
        return ",".join(diffs) if diffs else "default"
