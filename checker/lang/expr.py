"""The typed expression IR that every engine reads.

The type checker turns Python `ast` nodes into these; the compiler turns them into Python code,
the interpreter evaluates them directly and the symbolic engine into z3 terms. Definitions are
already inlined here, so an engine never sees a name it must look up in a scope.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from checker.errors import Loc
from checker.lang.types import Domain, Type


@dataclass(frozen=True)
class Expr:
    type: Type
    loc: Loc | None = field(default=None, compare=False, kw_only=True)


@dataclass(frozen=True, kw_only=True)
class Lit(Expr):
    """A literal: bool, int, or an enum member name."""

    value: object


@dataclass(frozen=True, kw_only=True)
class SlotRef(Expr):
    """A state slot element, fully indexed (scalars have no indices)."""

    name: str
    indices: tuple[Expr, ...] = ()


@dataclass(frozen=True, kw_only=True)
class ConstRef(Expr):
    """A constant: a scalar, or a table element with indices."""

    name: str
    indices: tuple[Expr, ...] = ()


@dataclass(frozen=True, kw_only=True)
class ReadingRef(Expr):
    """The option chosen for a reading (an enum whose members are the options)."""

    name: str


@dataclass(frozen=True, kw_only=True)
class Var(Expr):
    """An action parameter or a variable bound by an aggregate."""

    name: str


@dataclass(frozen=True, kw_only=True)
class Unary(Expr):
    op: str  # "neg" | "not" | "abs"
    operand: Expr


@dataclass(frozen=True, kw_only=True)
class Binary(Expr):
    """Arithmetic (+ - * // %), logic (and or) and comparison (== != < <= > >=)."""

    op: str
    left: Expr
    right: Expr


@dataclass(frozen=True, kw_only=True)
class Cond(Expr):
    test: Expr
    then: Expr
    orelse: Expr


@dataclass(frozen=True, kw_only=True)
class Agg(Expr):
    """sum/count/any/all/min/max of `body` over every combination of `bound` satisfying `where`."""

    op: str
    bound: tuple[tuple[str, Domain], ...]
    body: Expr
    where: Expr | None = None


@dataclass(frozen=True, kw_only=True)
class Call(Expr):
    """min/max of several values, succ/pred in a domain's cyclic order."""

    fn: str
    args: tuple[Expr, ...] = ()
    domain: Domain | None = None  # for succ/pred


@dataclass(frozen=True, kw_only=True)
class Old(Expr):
    """The value of an expression in the pre-state (only inside `after` properties)."""

    operand: Expr


@dataclass(frozen=True, kw_only=True)
class Require(Expr):
    """`value`, provided `test` holds; otherwise the modelling error `message` at this node's
    location. The type checker builds it for what a pile cannot do (the top of an empty pile,
    a card put on a full one), so every engine reports those as it reports a division by zero."""

    test: Expr
    value: Expr
    message: str


ARITH = {"+", "-", "*", "//", "%"}
LOGIC = {"and", "or"}
COMPARE = {"==", "!=", "<", "<=", ">", ">="}


def children(expr: Expr) -> tuple[Expr, ...]:
    """The direct sub-expressions, for generic walks."""
    if isinstance(expr, (SlotRef, ConstRef)):
        return expr.indices
    if isinstance(expr, Unary):
        return (expr.operand,)
    if isinstance(expr, Binary):
        return (expr.left, expr.right)
    if isinstance(expr, Cond):
        return (expr.test, expr.then, expr.orelse)
    if isinstance(expr, Agg):
        return (expr.body,) + ((expr.where,) if expr.where is not None else ())
    if isinstance(expr, Call):
        return expr.args
    if isinstance(expr, Old):
        return (expr.operand,)
    if isinstance(expr, Require):
        return (expr.test, expr.value)
    return ()


def walk(expr: Expr):
    """Every distinct node of an expression, parents before children. Iterative, and each
    shared node (a definition used twice is one node) is visited once: a chain of definitions
    that each use the previous twice is linear here, not exponential."""
    seen: set[int] = set()
    stack = [expr]
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        yield node
        stack.extend(reversed(children(node)))
