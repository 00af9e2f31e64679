"""Interval bounds on every integer value a model configuration can compute.

The language promises exact integer arithmetic: the reference interpreter and the generated
Python code use Python's integers, and z3 its unbounded ones. The compiled back-end computes in
64-bit words, where `n * big * big` wraps silently and a property that fails would be reported
as holding, with no trace for the replay to catch. Every range a value can come from is declared
(slots, constants under the configuration, domains of parameters and aggregate variables), so an
interval over every subexpression is computable before anything runs: `first_wide` finds the
first one that may leave 64 bits, and the compiled back-end refuses such a model (the exact
engine runs it instead). The bounds are conservative: a model refused here may in fact never
compute a large value, but a model accepted here never computes one.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from checker.errors import Loc
from checker.lang.expr import Agg, Binary, Call, Cond, ConstRef, Expr, Lit, Old, Require, SlotRef, Unary, Var, children, walk
from checker.lang.model import Model
from checker.lang.types import Domain

INT64_MIN, INT64_MAX = -(1 << 63), (1 << 63) - 1
# A packed field this wide or wider is refused: its code would not stay a non-negative int64 once
# read from the two words it straddles.
MAX_FIELD_BITS = 62

Interval = tuple[int, int]
_TRUTH: Interval = (0, 1)


@dataclass(frozen=True)
class WideValue:
    """A subexpression, or a slot, whose values may leave the 64-bit integers."""

    loc: Loc | None
    lo: int
    hi: int
    what: str = "a value computed here"

    def describe(self) -> str:
        where = f" at {self.loc}" if self.loc is not None else ""
        if INT64_MIN <= self.lo and self.hi <= INT64_MAX:
            return f"{self.what}{where} spans {_short(self.lo)}..{_short(self.hi)}, wider than a field of the compiled back-end's packed states"
        reach = self.hi if self.hi > INT64_MAX else self.lo
        return f"{self.what}{where} can reach {_short(reach)}, beyond the 64-bit integers of the compiled back-end"


def _short(value: int) -> str:
    digits = str(abs(value))
    sign = "-" if value < 0 else ""
    return f"{sign}{digits}" if len(digits) <= 24 else f"{sign}{digits[0]}.{digits[1:4]}e{len(digits) - 1}"


def model_expressions(model: Model) -> Iterator[Expr]:
    """Every expression of the model that an exploration evaluates: guards, actors, weights,
    assignments and their indices, the end, the outcome and the initial states."""
    for action in model.actions.values():
        yield action.guard
        if action.actor is not None:
            yield action.actor
        if action.weight is not None:
            yield action.weight
        for assign in action.assigns:
            yield from assign.indices
            yield assign.value
    yield model.terminal
    if model.outcome is not None:
        yield model.outcome
    yield from model.init_where
    for elements in model.init.values():
        for elem in elements.values():
            if elem.value is not None:
                yield elem.value
            yield from elem.choices or ()


def _binders(model: Model, exprs: list[Expr]) -> dict[str, Interval]:
    """For each variable name, the hull of every integer domain that binds it anywhere (action
    parameters, broadcast assignments, aggregates): conservative, and independent of where a
    shared node sits, so one bound per node is enough."""
    hull: dict[str, Interval] = {}

    def bind(name: str, domain: Domain) -> None:
        lo, hi = (0, max(domain.size - 1, 0)) if domain.is_enum else (domain.lo, domain.hi)
        old = hull.get(name)
        hull[name] = (lo, hi) if old is None else (min(old[0], lo), max(old[1], hi))

    for action in model.actions.values():
        for name, domain in action.params:
            bind(name, domain)
        for assign in action.assigns:
            for name, domain in assign.bound:
                bind(name, domain)
    for expr in exprs:
        for node in walk(expr):
            if isinstance(node, Agg):
                for name, domain in node.bound:
                    bind(name, domain)
    return hull


class _Bounds:
    """The interval of each node, computed once per node (shared nodes are common: inlined
    definitions), children first, stopping at the first one outside 64 bits."""

    def __init__(self, model: Model, constants: dict[str, Any], variables: dict[str, Interval]) -> None:
        self.model = model
        self.constants = constants
        self.variables = variables
        self.memo: dict[int, Interval] = {}
        self.wide: WideValue | None = None

    def of(self, expr: Expr) -> Interval:
        known = self.memo.get(id(expr))
        if known is not None:
            return known
        parts = [self.of(child) for child in children(expr) if child is not None]
        interval = self._node(expr, parts)
        if self.wide is None and (interval[0] < INT64_MIN or interval[1] > INT64_MAX):
            self.wide = WideValue(expr.loc, *interval)
        self.memo[id(expr)] = interval
        return interval

    def _node(self, expr: Expr, parts: list[Interval]) -> Interval:
        if expr.type.kind != "int":
            return self._small(expr)
        if isinstance(expr, Lit):
            value = int(expr.value)  # type: ignore[call-overload]
            return value, value
        if isinstance(expr, SlotRef):
            elem = self.model.slots[expr.name].elem
            return int(elem.lo or 0), int(elem.hi or 0)
        if isinstance(expr, ConstRef):
            return self._constant(expr.name)
        if isinstance(expr, Var):
            return self.variables.get(expr.name, (INT64_MIN - 1, INT64_MAX + 1))
        if isinstance(expr, Unary):
            (lo, hi), = parts
            if expr.op == "neg":
                return -hi, -lo
            return (0 if lo <= 0 <= hi else min(abs(lo), abs(hi))), max(abs(lo), abs(hi))
        if isinstance(expr, Binary):
            return _arith(expr.op, parts[0], parts[1])
        if isinstance(expr, Cond):
            return _hull(parts[1:])
        if isinstance(expr, Agg):
            return self._aggregate(expr, parts[0])
        if isinstance(expr, Call):
            los, his = [p[0] for p in parts], [p[1] for p in parts]
            return (min(los), min(his)) if expr.fn == "min" else (max(los), max(his))
        if isinstance(expr, (Old, Require)):
            return parts[-1]
        return INT64_MIN - 1, INT64_MAX + 1  # a node this analysis does not know: refused

    def _small(self, expr: Expr) -> Interval:
        """A bool is 0 or 1; an enum its member's position."""
        if expr.type.kind == "enum" and expr.type.domain in self.model.domains:
            return 0, max(self.model.domains[expr.type.domain].size - 1, 0)
        return _TRUTH

    def _constant(self, name: str) -> Interval:
        value = self.constants.get(name)
        values = list(value.values()) if isinstance(value, dict) else [value]
        ints = [int(v) for v in values if isinstance(v, int)]
        if not ints:
            elem = self.model.constants[name].elem
            return int(elem.lo or 0), int(elem.hi or 0)
        return min(ints), max(ints)

    @staticmethod
    def _aggregate(expr: Agg, body: Interval) -> Interval:
        terms = 1
        for _, domain in expr.bound:
            terms *= max(domain.size, 0)
        if expr.op == "sum":
            return min(0, terms * body[0]), max(0, terms * body[1])
        if expr.op == "count":
            return 0, terms
        return body  # min, max


def _hull(parts: Iterable[Interval]) -> Interval:
    parts = list(parts)
    return min(p[0] for p in parts), max(p[1] for p in parts)


def _arith(op: str, left: Interval, right: Interval) -> Interval:
    (a, b), (c, d) = left, right
    if op == "+":
        return a + c, b + d
    if op == "-":
        return a - d, b - c
    if op == "*":
        corners = (a * c, a * d, b * c, b * d)
        return min(corners), max(corners)
    if op == "//":
        # |x // y| <= |x| for every y != 0 (floor division), and x // -1 is -x
        size = max(abs(a), abs(b))
        return -size, size
    if op == "%":
        # x % y lies strictly between 0 and y, on y's side
        size = max(abs(c), abs(d))
        return -size, size
    return _TRUTH  # comparisons and `and`/`or`


def first_wide(model: Model, constants: dict[str, Any], extra: Iterable[Expr] = ()) -> WideValue | None:
    """The first value of the model under `constants` (and of the `extra` expressions, a
    property suite's) that may leave the 64-bit integers, or None when none can."""
    layout_wide = _wide_slot(model)
    if layout_wide is not None:
        return layout_wide
    exprs = [*model_expressions(model), *extra]
    bounds = _Bounds(model, constants, _binders(model, exprs))
    for expr in exprs:
        bounds.of(expr)
        if bounds.wide is not None:
            return bounds.wide
    return _wide_weights(model, bounds)


def _wide_weights(model: Model, bounds: _Bounds) -> WideValue | None:
    """A random walk adds up the weights of every chance move of a state: their total must fit
    too (each instance of each chance action at its largest weight, conservatively)."""
    total, first = 0, None
    for action in model.actions.values():
        if action.by != "chance":
            continue
        instances = 1
        for _, domain in action.params:
            instances *= domain.size
        weight = 1 if action.weight is None else max(bounds.of(action.weight)[1], 0)
        total += instances * weight
        first = first or action
    if first is not None and total > INT64_MAX:
        return WideValue(first.loc, 0, total, "the weights of the chance moves of one state, added up,")
    return None


def _wide_slot(model: Model) -> WideValue | None:
    for slot in model.slots.values():
        elem = slot.elem
        if elem.type.kind != "int" or elem.lo is None or elem.hi is None:
            continue
        if elem.lo < INT64_MIN or elem.hi > INT64_MAX or (elem.hi - elem.lo).bit_length() > MAX_FIELD_BITS:
            return WideValue(slot.loc, int(elem.lo), int(elem.hi), f"slot `{slot.name}`")
    return None
