"""Compiling a model, under one configuration, into Python functions over packed states.

Constants and readings are fixed per configuration, so they are folded into the code; action
parameters and aggregate variables range over finite domains, so they are unrolled, which turns
most indices into constant bit offsets. The result is one `successors(s)` function per model
configuration, generated as Python source and compiled once: the explicit engine calls it for
every state it visits. Its semantics are the interpreter's (`checker.lang.interp`), and a
hypothesis test holds the two to each other.
"""

from __future__ import annotations

import itertools
import math
import re
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from types import CodeType
from typing import Any, cast

from checker.errors import ModellingError
from checker.lang import emit_memo
from checker.lang.compile_cache import GeneratedSource, successor_code
from checker.lang.expr import Agg, Binary, Call, Cond, ConstRef, Expr, Lit, Old, ReadingRef, Require, SlotRef, Unary, Var
from checker.lang.interp import Interpreter
from checker.lang.layout import Layout
from checker.lang.model import Action, Assign, Config, Model
from checker.lang.share import share
from checker.limits import WorkLimit

_NOVALUE = object()
MAX_TEXT_NESTING = 40  # brackets in generated code; Python's parser allows 200
_FIELD_READ = re.compile(r"\(\(s >> (\d+)\) & (\d+)\)")  # `Emitter.read` of a field not at offset 0
MAX_BLOCK_DEPTH = 60  # indented blocks in generated code; Python's tokenizer allows 100
REMEMBERED = frozenset({Agg, Call, Cond})  # the nodes whose code `emit_memo` keeps: the ones that unroll or nest (for smaller ones the lookup costs more than emitting; measured on Ultimate)


@dataclass
class Code:
    """Python source for an expression, and its value when known at compile time."""

    text: str
    value: Any = _NOVALUE
    bounds: tuple[int, int] | None = None  # the least and greatest value, for code that cannot raise

    @property
    def const(self) -> bool:
        return self.value is not _NOVALUE

    @property
    def range(self) -> tuple[int, int] | None:
        """The values this int code can take, when known (a constant's is itself)."""
        if self.const:
            return (self.value, self.value) if isinstance(self.value, int) and not isinstance(self.value, bool) else None
        return self.bounds


def _decided(op: str, left: tuple[int, int], right: tuple[int, int]) -> bool | None:
    """The comparison's value when the ranges of its sides decide it, else None."""
    (a, b), (c, d) = left, right
    if op in ("==", "!="):
        if a == b == c == d:
            return op == "=="
        if b < c or d < a:
            return op == "!="
        return None
    if op in ("<", ">="):
        if b < c:
            return op == "<"
        if a >= d:
            return op == ">="
        return None
    if b <= c:  # <= and >
        return op == "<="
    if a > d:
        return op == ">"
    return None


def _arith_bounds(op: str, left: tuple[int, int], right: tuple[int, int]) -> tuple[int, int] | None:
    (a, b), (c, d) = left, right
    if op == "+":
        return a + c, b + d
    if op == "-":
        return a - d, b - c
    if op == "*":
        products = (a * c, a * d, b * c, b * d)
        return min(products), max(products)
    return None


@dataclass(frozen=True)
class Instance:
    """An action with its parameters bound: one candidate transition per state."""

    id: int
    action: Action
    params: tuple[tuple[str, Any], ...]

    @property
    def forced(self) -> bool:
        return self.action.by == "rules"


def _lit(value: Any) -> Code:
    return Code(repr(value), value)


# -- run-time helpers the generated code calls ----------------------------------------------
def _div(a: int, b: int) -> int:
    if b == 0:
        raise ModellingError("division by zero")
    return a // b


def _mod(a: int, b: int) -> int:
    if b == 0:
        raise ModellingError("division by zero")
    return a % b


def _ix(value: int, lo: int, size: int, name: str) -> int:
    if not lo <= value < lo + size:
        raise ModellingError(f"index {value} of `{name}` is outside {lo}..{lo + size - 1}")
    return value - lo


def _range(action: str, slot: str, value: int, lo: int, hi: int) -> None:
    raise ModellingError(f"action `{action}` writes {value} to `{slot}`, outside its range {lo}..{hi}")


def _twice(action: str, slot: str) -> None:
    raise ModellingError(f"action `{action}` writes `{slot}` twice")


def _pick(fn: Callable, values: list, op: str) -> int:
    kept = [v for v in values if v is not _SKIP]
    if not kept:
        raise ModellingError(f"{op}() over no values")
    return fn(kept)


def _fail(message: str) -> None:
    """A `Require` node whose test failed: `(value if test else _fail(message))`."""
    raise ModellingError(message)


_SKIP = object()
HELPERS = {"_fail": _fail, "_div": _div, "_mod": _mod, "_ix": _ix, "_range": _range, "_twice": _twice, "_pick": _pick, "_SKIP": _SKIP, "min": min, "max": max, "abs": abs}

_DEFINED: dict[tuple[str, str], CodeType] = {}  # (source, file name) -> its compiled code
DEFINED_CHARS = 8_000_000  # the source kept with them (the code is of about the same size)
_DEFINED_KEPT = 0  # characters of source in _DEFINED


def define(source: str, filename: str, name: str) -> Callable:
    """The function `name` that generated `source` defines, compiled once per process and text.
    An exploration compiles its fused screen again each time a property is decided
    (`ScreenSource.function`), and the reading combinations of a model emit the same screens and
    predicates where no reading is involved: compiling them again was a tenth of a cold Ultimate
    check (benchmarks/README.md). The same text compiles to the same code, so nothing else
    changes; the oldest entries go once the texts kept pass `DEFINED_CHARS`."""
    global _DEFINED_KEPT
    key = (source, filename)
    code = _DEFINED.get(key)
    if code is None:
        code = compile(source, filename, "exec")
        _DEFINED[key] = code
        _DEFINED_KEPT += len(source)
        while _DEFINED_KEPT > DEFINED_CHARS and len(_DEFINED) > 1:
            oldest = next(iter(_DEFINED))
            _DEFINED_KEPT -= len(oldest[0])
            del _DEFINED[oldest]
    namespace: dict[str, Any] = dict(HELPERS)
    exec(code, namespace)  # noqa: S102 - our own generated code
    return namespace[name]


_FOLD = {
    "+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b,
    "==": lambda a, b: a == b, "!=": lambda a, b: a != b, "<": lambda a, b: a < b,
    "<=": lambda a, b: a <= b, ">": lambda a, b: a > b, ">=": lambda a, b: a >= b,
}


@dataclass
class Emitter:
    """Turns IR into Python source over the packed state `s` (and `o` for old(...))."""

    model: Model
    config: Config
    layout: Layout
    reads: Counter = field(default_factory=Counter)
    cached: set[tuple[str, int]] = field(default_factory=set)
    helpers: dict[str, str] = field(default_factory=dict)  # hoisted expression text -> function name
    limit: WorkLimit | None = None  # the budget for unrolling aggregates
    touched: set[tuple[str, int]] | None = None  # when a set: every field `read` adds itself (`emit_memo`)
    hoists: int = 0  # how many times `hoist` was called (code whose emission hoisted is not remembered)
    remembering: emit_memo.Remembering | None = None  # code kept across configurations (`emit_memo`)
    terms: int = 0  # the most terms of any aggregate emitted: the least budget that lets this code be generated

    # -- values ------------------------------------------------------------------------
    def encode(self, value: Any, expr: Expr) -> Any:
        """A readable value as the generated code represents it (enums as member index)."""
        if expr.type.kind == "enum":
            return self.model.scope.domain_of(expr.type).members.index(value)
        return value

    def decode(self, value: Any, expr: Expr) -> Any:
        if expr.type.kind == "enum":
            return self.model.scope.domain_of(expr.type).members[value]
        if expr.type.kind == "bool":
            return bool(value)
        return value

    # -- expressions ---------------------------------------------------------------------
    def emit(self, expr: Expr, env: dict[str, Any], state: str = "s") -> Code:
        if self.remembering is not None and type(expr) in REMEMBERED:
            return self._remembered(expr, env, state)
        return self._emit(expr, env, state)

    def _remembered(self, expr: Expr, env: dict[str, Any], state: str) -> Code:
        """`_emit`, once per process for everything its text depends on (`emit_memo`)."""
        assert self.remembering is not None
        key = self.remembering.expression_key(expr, env, state)
        kept = self.remembering.find(key, self.cached)
        if kept is None:
            kept = self.tracked(key, lambda: self._emit(expr, env, state), lambda code: len(code.text), expr)
        else:
            self.terms = max(self.terms, kept.terms)
            if self.touched is not None:
                self.touched |= kept.reads
        return kept.made

    def tracked(self, key: tuple, make: Callable[[], Any], size: Callable[[Any], int], node: Expr | None = None) -> emit_memo.Kept:
        """What `make` emits, with the fields it read and, unless it hoisted a helper (whose
        name depends on what came before), kept under `key`."""
        assert self.remembering is not None
        outer, hoists, before, terms = self.touched, self.hoists, set(self.cached), self.terms
        self.touched = set()
        self.terms = 0
        try:
            made = make()
            reads, made_terms = frozenset(self.touched), self.terms
        finally:
            self.touched = outer
            self.terms = max(terms, self.terms)
        if outer is not None:
            outer |= reads
        kept = emit_memo.Kept(reads, frozenset(r for r in reads if r in before), made, frozenset(self.cached - before), node, made_terms)
        if self.hoists == hoists:
            self.remembering.memo.keep(key, kept, size(made))
        return kept

    def _emit(self, expr: Expr, env: dict[str, Any], state: str) -> Code:
        method = getattr(self, f"emit_{type(expr).__name__}")
        code = method(expr, env, state)
        if not code.const and len(code.text) > 2 * MAX_TEXT_NESTING and _nesting(code.text) > MAX_TEXT_NESTING:
            return self.hoist(code)
        return code

    def hoist(self, code: Code) -> Code:
        """Move deeply nested code into a helper function and call it instead, so generated
        source never nests deeper than Python's parser and compiler allow, whatever the
        expression. The call is made exactly where the code stood: evaluation stays lazy."""
        self.hoists += 1
        name = self.helpers.setdefault(code.text, f"_e{len(self.helpers)}")
        reads_old = re.search(r"\(o [>&]", code.text) is not None  # old(...) reads `o`
        return Code(f"{name}(s, o)" if reads_old else f"{name}(s)")

    def helper_source(self) -> list[str]:
        """The hoisted helpers' definitions; each reads the state fields it uses itself."""
        lines = []
        for text, name in self.helpers.items():
            lines.append(f"def {name}(s, o=None):")
            for offset in sorted({int(m) for m in re.findall(r"\bs_(\d+)\b", text)}):
                mask = next(f.mask for f in self.layout.fields if f.offset == offset)
                lines.append(f"    s_{offset} = (s >> {offset}) & {mask}")
            lines.append(f"    return {text}")
        return lines

    def emit_Lit(self, expr: Lit, env: dict[str, Any], state: str) -> Code:
        return _lit(self.encode(expr.value, expr))

    def emit_Var(self, expr: Var, env: dict[str, Any], state: str) -> Code:
        return _lit(env[expr.name])

    def emit_ReadingRef(self, expr: ReadingRef, env: dict[str, Any], state: str) -> Code:
        return _lit(self.encode(self.config.readings[expr.name], expr))

    def emit_ConstRef(self, expr: ConstRef, env: dict[str, Any], state: str) -> Code:
        value = self.config.constants[expr.name]
        if not expr.indices:
            return _lit(self.encode(value, expr))
        const = self.model.constants[expr.name]
        keys = list(itertools.product(*(d.values() for d in const.dims)))
        element = self.element_number(expr, const.dims, env, state)
        if element.const:
            return _lit(self.encode(value[keys[element.value]], expr))
        table = tuple(self.encode(value[k], expr) for k in keys)
        return Code(f"{table!r}[{element.text}]")

    def element_number(self, expr: SlotRef | ConstRef, dims: tuple, env: dict[str, Any], state: str) -> Code:
        """Row-major element number of an indexed slot or table, checked against its domains."""
        parts: list[Code] = []
        stride = 1
        strides: list[int] = []
        for dom in reversed(dims):
            strides.insert(0, stride)
            stride *= dom.size
        for index, dom, step in zip(expr.indices, dims, strides):
            code = self.emit(index, env, state)
            if dom.is_enum:
                position = code
            elif code.const:
                if not dom.contains(code.value):
                    return Code(f"_ix({code.value}, {dom.lo}, {dom.size}, {expr.name!r})")
                position = _lit(code.value - dom.lo)
            elif self._always_within(index, dom):
                position = self.arith("-", code, _lit(dom.lo)) if dom.lo else code
            else:
                position = Code(f"_ix({code.text}, {dom.lo}, {dom.size}, {expr.name!r})")
            parts.append(position if step == 1 else self.arith("*", position, _lit(step)))
        total = parts[0] if parts else _lit(0)
        for part in parts[1:]:
            total = self.arith("+", total, part)
        return total

    def _always_within(self, index: Expr, dom: Any) -> bool:
        """Whether an int index is a slot element whose declared range lies inside `dom`: its
        value always does, so checking it (`_ix`) could never fail, and code that cannot fail
        can be shared (`checker.lang.share`)."""
        if not isinstance(index, SlotRef):
            return False
        elem = self.model.slots[index.name].elem
        if elem.type.kind == "bool" or elem.lo is None:
            return False
        return dom.lo <= elem.lo and elem.hi <= dom.hi

    def emit_SlotRef(self, expr: SlotRef, env: dict[str, Any], state: str) -> Code:
        slot_layout = self.layout.slots[expr.name]
        element = self.element_number(expr, self.model.slots[expr.name].dims, env, state)
        mask = (1 << slot_layout.width) - 1
        if element.const:
            raw = self.read(state, slot_layout.base + element.value * slot_layout.width, mask)
        else:
            shift = f"({slot_layout.base} + ({element.text}) * {slot_layout.width})"
            raw = f"(({state} >> {shift}) & {mask})"
        elem = self.model.slots[expr.name].elem
        lo = elem.lo or 0
        # A field always holds a value of its declared range (effects check what they write).
        bounds = (elem.lo, elem.hi) if element.const and elem.type.kind == "int" and elem.lo is not None and elem.hi is not None else None
        return Code(f"({raw} + {lo})", bounds=bounds) if lo else Code(raw, bounds=bounds)

    def read(self, state: str, offset: int, mask: int) -> str:
        key = (state, offset)
        self.reads[key] += 1
        if self.touched is not None:
            self.touched.add(key)
        if key in self.cached:
            return f"{state}_{offset}"
        if offset == 0:
            return f"({state} & {mask})"
        return f"(({state} >> {offset}) & {mask})"

    def emit_Unary(self, expr: Unary, env: dict[str, Any], state: str) -> Code:
        if expr.op == "not":
            inner: Expr
            negations, inner = 0, expr
            while isinstance(inner, Unary) and inner.op == "not":  # `not not x` is `bool(x)`
                negations, inner = negations + 1, inner.operand
            operand = self.emit(inner, env, state)
            if operand.const:
                return _lit(bool(operand.value) != (negations % 2 == 1))
            return Code(f"(not {operand.text})") if negations % 2 else Code(f"bool({operand.text})")
        operand = self.emit(expr.operand, env, state)
        if expr.op == "not":
            return _lit(not operand.value) if operand.const else Code(f"(not {operand.text})")
        if expr.op == "neg":
            return _lit(-operand.value) if operand.const else Code(f"(-{operand.text})")
        return _lit(abs(operand.value)) if operand.const else Code(f"abs({operand.text})")

    def arith(self, op: str, left: Code, right: Code) -> Code:
        if left.const and right.const and op in _FOLD:
            return _lit(_FOLD[op](left.value, right.value))
        if op in ("//", "%"):
            if right.const and right.value != 0:
                if left.const:
                    return _lit(left.value // right.value if op == "//" else left.value % right.value)
                return Code(f"({left.text} {op} {right.text})")
            helper = "_div" if op == "//" else "_mod"
            return Code(f"{helper}({left.text}, {right.text})")
        if op == "+" and right.const and right.value == 0:
            return left
        if op == "+" and left.const and left.value == 0:
            return right
        ranges = (left.range, right.range)
        if ranges[0] is not None and ranges[1] is not None:
            # Both sides are total (bounds are only known for code that cannot raise), so a
            # comparison their ranges decide is that constant: `0 <= hand` of a 0..5 slot.
            decided = _decided(op, ranges[0], ranges[1]) if op in ("==", "!=", "<", "<=", ">", ">=") else None
            if decided is not None:
                return _lit(decided)
            return Code(f"({left.text} {op} {right.text})", bounds=_arith_bounds(op, ranges[0], ranges[1]))
        return Code(f"({left.text} {op} {right.text})")

    def emit_Binary(self, expr: Binary, env: dict[str, Any], state: str) -> Code:
        if expr.op in ("and", "or"):
            return self.logic_chain(expr.op, _chain(expr), env, state)
        if expr.op == "+":
            return self.sum_of([self.emit(term, env, state) for term in _chain(expr)])
        left = self.emit(expr.left, env, state)
        right = self.emit(expr.right, env, state)
        return self.arith(expr.op, left, right)

    def logic_chain(self, op: str, operands: list[Expr], env: dict[str, Any], state: str) -> Code:
        """`a and b and c ...` as one flat Python chain, short-circuiting exactly as written:
        operands after a constant that decides the chain are not emitted (nor evaluated)."""
        deciding = op == "or"  # the constant value that decides the chain
        live: list[str] = []
        dropped_last = False
        for operand in operands:
            code = self.emit(operand, env, state)
            if code.const:
                if bool(code.value) == deciding:
                    return Code(f"({f' {op} '.join(live)} {op} {deciding})") if live else _lit(deciding)
                dropped_last = True  # a neutral constant
                continue
            live.append(code.text)
            dropped_last = False
        if not live:
            return _lit(not deciding)
        text = f" {op} ".join(live)
        return Code(f"bool({text})") if dropped_last or len(live) == 1 and len(operands) > 1 else Code(f"({text})")

    def sum_of(self, terms: list[Code]) -> Code:
        """A flat sum of many terms, constant terms folded into one."""
        constant = sum(t.value for t in terms if t.const)
        live = [t.text for t in terms if not t.const]
        if not live:
            return _lit(constant)
        ranges = [t.bounds for t in terms if not t.const]
        bounds = None if None in ranges else (constant + sum(r[0] for r in ranges), constant + sum(r[1] for r in ranges))  # type: ignore[index, misc]
        if constant:
            live.append(repr(constant))
        return Code(live[0], bounds=bounds) if len(live) == 1 else Code(f"({' + '.join(live)})", bounds=bounds)

    def emit_Cond(self, expr: Cond, env: dict[str, Any], state: str) -> Code:
        test = self.emit(expr.test, env, state)
        if test.const:
            return self.emit(expr.then if test.value else expr.orelse, env, state)
        then = self.emit(expr.then, env, state)
        orelse = self.emit(expr.orelse, env, state)
        return Code(f"({then.text} if {test.text} else {orelse.text})")

    def emit_Call(self, expr: Call, env: dict[str, Any], state: str) -> Code:
        args = [self.emit(a, env, state) for a in expr.args]
        if expr.fn in ("min", "max"):
            if all(a.const for a in args):
                return _lit((min if expr.fn == "min" else max)(a.value for a in args))
            return Code(f"{expr.fn}({', '.join(a.text for a in args)})")
        assert expr.domain is not None  # succ/pred: the type checker always gives their domain
        size = expr.domain.size
        step = 1 if expr.fn == "succ" else size - 1
        if args[0].const:
            return _lit((args[0].value + step) % size)
        return Code(f"(({args[0].text} + {step}) % {size})")

    def emit_Old(self, expr: Old, env: dict[str, Any], state: str) -> Code:
        return self.emit(expr.operand, env, "o")

    def emit_Require(self, expr: Require, env: dict[str, Any], state: str) -> Code:
        test = self.emit(expr.test, env, state)
        if test.const and test.value:
            return self.emit(expr.value, env, state)
        value = self.emit(expr.value, env, state)
        return Code(f"({value.text} if {test.text} else _fail({expr.message!r}))")

    def emit_Agg(self, expr: Agg, env: dict[str, Any], state: str) -> Code:
        count = math.prod(d.size for _, d in expr.bound)
        self.terms = max(self.terms, count)
        if self.limit is not None:
            self.limit.count("the terms of an aggregate", count)
            self.limit.clock("aggregate terms")
        names = [n for n, _ in expr.bound]
        terms: list[tuple[Code, Code]] = []  # (where, body)
        for n, combo in enumerate(itertools.product(*(d.values() for _, d in expr.bound))):
            if self.limit is not None and n % 4096 == 4095:
                self.limit.clock("aggregate terms")
            inner = {**env, **{n: (d.code(v) if d.is_enum else v) for n, (_, d), v in zip(names, expr.bound, combo)}}
            where = self.emit(expr.where, inner, state) if expr.where is not None else _lit(True)
            if where.const and not where.value:
                continue
            terms.append((where, self.emit(expr.body, inner, state)))
        op = expr.op
        if op in ("sum", "count"):
            pieces = []
            for where, body in terms:
                value = body if op == "sum" else (_lit(1 if body.value else 0) if body.const else Code(f"(1 if {body.text} else 0)"))
                if not where.const:
                    value = Code(f"({value.text} if {where.text} else 0)")
                pieces.append(value)
            return self.sum_of(pieces)
        if op in ("any", "all"):
            pieces = []
            for where, body in terms:
                if where.const:
                    pieces.append(body)
                elif op == "any":
                    pieces.append(Code(f"({where.text} and {body.text})"))
                else:
                    pieces.append(Code(f"(not {where.text} or {body.text})"))
            if op == "any":
                if any(p.const and p.value for p in pieces):
                    return _lit(True)
                live = [p for p in pieces if not p.const]
                return Code(f"({' or '.join(p.text for p in live)})") if live else _lit(False)
            if any(p.const and not p.value for p in pieces):
                return _lit(False)
            live = [p for p in pieces if not p.const]
            return Code(f"({' and '.join(p.text for p in live)})") if live else _lit(True)
        if all(w.const for w, _ in terms):
            if not terms:
                return Code(f"_pick({op}, [], {op!r})")
            if all(b.const for _, b in terms):
                return _lit((min if op == "min" else max)(b.value for _, b in terms))
            return Code(f"{op}({', '.join(b.text for _, b in terms)})" if len(terms) > 1 else terms[0][1].text)
        items = ", ".join(b.text if w.const else f"({b.text} if {w.text} else _SKIP)" for w, b in terms)
        return Code(f"_pick({op}, [{items}], {op!r})")


@dataclass
class _Pending:
    """An instance whose guard is still to be emitted: the conjuncts not yet tested."""

    instance: Instance
    conjuncts: list[Expr]


def split_by_dispatch(pending: list[_Pending], keys: list[tuple[int, int] | None], offset: int) -> tuple[dict[int, list[_Pending]], list[_Pending]]:
    """The guarded blocks whose guard starts with `field at offset == value` (`keys`, one per
    block), by value and with that hoisted test dropped, and the others in their order: the
    grouping the successor dispatch of both the Python and the native code is built from."""
    grouped: dict[int, list[_Pending]] = {}
    rest: list[_Pending] = []
    for item, key in zip(pending, keys):
        if key is not None and key[0] == offset:
            grouped.setdefault(key[1], []).append(_Pending(item.instance, item.conjuncts[1:]))
        else:
            rest.append(item)
    return grouped, rest


def place_reads(body: list[str], reads: dict[int, str]) -> list[str]:
    """`body` (a function's statements, one a line, indented four spaces a block) with each
    field read of `reads` (`s_N = ...`, by bit offset N) put at the top of the innermost block
    that holds every line using `s_N`: a field only one dispatch branch reads is then read only
    in states that take that branch, where reading every field at the top cost SMS's showdown
    model a third of its successor function's time. A read is pure, so where it stands changes
    nothing else."""
    enclosing: list[tuple[int, ...]] = []  # per line: the header lines of the blocks it is in
    stack: list[tuple[int, int]] = []  # (indent, header line) of the open blocks
    for n, line in enumerate(body):
        indent = len(line) - len(line.lstrip(" "))
        while stack and stack[-1][0] >= indent:
            stack.pop()
        enclosing.append(tuple(header for _, header in stack))
        if line.endswith(":") and line.lstrip().startswith(("if ", "elif ", "else:")):
            stack.append((indent, n))
    scopes: dict[int, tuple[int, ...]] = {}
    for n, line in enumerate(body):
        for offset in {int(m) for m in re.findall(r"\bs_(\d+)\b", line)}:
            if offset in reads:
                here = enclosing[n]
                common = scopes.get(offset, here)
                k = 0
                while k < min(len(common), len(here)) and common[k] == here[k]:
                    k += 1
                scopes[offset] = common[:k]
    after: dict[int, list[int]] = {}  # header line (-1: the function's top) -> offsets read there
    for offset, scope in scopes.items():
        after.setdefault(scope[-1] if scope else -1, []).append(offset)
    top = [f"    {reads[offset]}" for offset in sorted(after.get(-1, []))]
    out = list(top)
    for n, line in enumerate(body):
        out.append(line)
        if n in after:
            pad = " " * (len(line) - len(line.lstrip(" ")) + 4)
            out.extend(f"{pad}{reads[offset]}" for offset in sorted(after[n]))
    return out


def _conjuncts(expr: Expr) -> list[Expr]:
    """A guard's top-level `and` operands, left to right."""
    return _chain(expr) if isinstance(expr, Binary) and expr.op == "and" else [expr]


def _chain(expr: Binary) -> list[Expr]:
    """The operands of a chain of one associative operator, left to right, without recursion."""
    out: list[Expr] = []
    stack: list[Expr] = [expr]
    while stack:
        node = stack.pop()
        if isinstance(node, Binary) and node.op == expr.op:
            stack.extend((node.right, node.left))
        else:
            out.append(node)
    return out


_NON_BRACKETS = bytes(b for b in range(256) if b not in b"()[]")
_STEP = [0] * 256
_STEP[ord("(")] = _STEP[ord("[")] = 1
_STEP[ord(")")] = _STEP[ord("]")] = -1


def _nesting(text: str) -> int:
    """How deeply brackets nest in generated code. Every emitted expression asks this, so the
    scan runs in C (the UTF-8 bytes without everything but brackets, whose steps accumulate)
    rather than a loop per character: it was the largest part of compiling property checks."""
    brackets = text.encode("utf-8").translate(None, _NON_BRACKETS)
    return max(itertools.accumulate(map(_STEP.__getitem__, brackets), initial=0))


@dataclass
class ScreenSource:
    """The emitted parts of a screen (`CompiledModel.any_decides`): hoisted helpers, the reads
    of the fields the tests share, and each test's lines, in the order of the tests."""

    model_id: str
    helpers: list[str]
    reads: list[str]
    checks: list[list[str]]

    def function(self, which: Iterable[int]) -> Callable[[int], bool]:
        """The screen of the tests numbered `which` (a field read only by the others, or a
        helper only they call, costs a shift or a definition, never a wrong answer). What the
        tests spell more than once is computed once, before the first (`share`): a test that
        decides returns early on few states, so that costs little where it could be wasted."""
        checks = [line for i in which for line in self.checks[i]]
        lines = [*self.helpers, "def any_decides(s):", *self.reads, *(share(checks) if checks else [])]
        lines.append("    return False")
        return define("\n".join(lines) + "\n", f"<checks {self.model_id}>", "any_decides")


class CompiledModel:
    """A model under one configuration, as fast Python functions over packed states."""

    remembers_code = True  # generated blocks and expressions are kept for the model's other configurations (`emit_memo`)

    def __init__(self, model: Model, config: Config, limit: WorkLimit | None = None, lazy: bool = False) -> None:
        """With a limit, every enumeration (instances, aggregate terms, initial states) stops
        with `OutOfBudget` once it would exceed the budget.

        `lazy` leaves the successor and terminal functions to be built on first use: the native
        back-end explores with its own compiled module and needs only the layout, the instances
        and the initial states, while building the Python code cost most of a cold compiled
        check (Ultimate's: 169 of 272 s). Trace replay and a fallback to the Python engine
        build them when they ask; `building` stays true if building them raised."""
        self.model = model
        self.config = config
        self.limit = limit
        if limit is not None:
            limit.count("state elements", sum(math.prod(d.size for d in slot.dims) for slot in model.slots.values()))
        self.layout = Layout(model)
        self.interpreter = Interpreter(model, config)
        self.instances = self._instances()
        self.building = False
        self._functions: tuple[Callable[[int], list[tuple[int, int]]], Callable[[int], bool]] | None = None
        if not lazy:
            self._build()
        self.initial = [self.layout.pack(s) for s in self.interpreter.initial_states(limit)]

    def _build(self) -> tuple[Callable[[int], list[tuple[int, int]]], Callable[[int], bool]]:
        """The successor and terminal functions, generated (or taken from the code cache) once."""
        if self._functions is None:
            self.building = True
            model, limit = self.model, self.limit
            code = successor_code(model, self.config, limit.max_items if limit is not None else None, self._successor_source, f"<compiled {model.id}>")
            namespace: dict[str, Any] = dict(HELPERS)
            exec(code, namespace)  # noqa: S102 - our own generated code
            self._functions = (namespace["successors"], self.predicate(model.terminal))
            self.building = False
        return self._functions

    def use_functions(self, successors: Callable[[int], list[tuple[int, int]]], terminal: Callable[[int], bool]) -> None:
        """Successor and terminal functions computed elsewhere (the bytecode interpreter's,
        `checker.engines.native.stepper`), the same moves in the same order: no Python code
        is generated for them."""
        self._functions = (successors, terminal)

    @property
    def built(self) -> bool:
        """Whether the successor and terminal functions have been built."""
        return self._functions is not None

    @property
    def successors(self) -> Callable[[int], list[tuple[int, int]]]:
        return self._build()[0]

    @property
    def terminal(self) -> Callable[[int], bool]:
        return self._build()[1]

    def _instances(self) -> list[Instance]:
        active = self.interpreter.active_actions()
        ordered = [a for a in active if a.by == "rules"] + [a for a in active if a.by != "rules"]
        if self.limit is not None:
            self.limit.count("action instances (actions times parameter values)", sum(math.prod(d.size for _, d in a.params) for a in ordered))
        out: list[Instance] = []
        for action in ordered:
            for params in action.param_bindings():
                out.append(Instance(len(out), action, tuple(params.items())))
        return out

    def encoded_params(self, instance: Instance) -> dict[str, Any]:
        return {name: (dom.code(value) if dom.is_enum else value) for (name, value), (_, dom) in zip(instance.params, instance.action.params)}

    def _remembering(self, emitter: Emitter) -> Emitter:
        """`emitter`, keeping and reusing code across this model's configurations (`emit_memo`)
        where this generator does."""
        if self.remembers_code:
            emitter.remembering = emit_memo.Remembering(emit_memo.memo_of(self.model), self.config, self.limit)
        return emitter

    # -- standalone expressions ----------------------------------------------------------
    def function(self, expr: Expr, env: dict[str, Any] | None = None, with_old: bool = False) -> Callable:
        """A function of the packed state (and the old state) returning the encoded value."""
        emitter = self._remembering(Emitter(self.model, self.config, self.layout, limit=self.limit))
        code = emitter.emit(expr, env or {})
        args = "s, o" if with_old else "s"
        source = "\n".join([*emitter.helper_source(), f"def f({args}):", f"    return {code.text}"]) + "\n"
        return define(source, "<string>", "f")

    def predicate(self, expr: Expr, env: dict[str, Any] | None = None) -> Callable[[int], bool]:
        return self.function(expr, env)

    def any_decides(self, tests: list[tuple[Expr, bool]]) -> Callable[[int], bool]:
        """One function of the packed state telling whether any `expr` has the value `deciding`
        there (or raising when one cannot be evaluated), for a list of (expr, deciding).

        The explicit engine calls it on every new state instead of one predicate per property:
        each field the predicates read more than once is read once, and one call replaces many.
        It only filters: a state where it answers True (or raises) is checked again predicate
        by predicate, so which property is decided, and which error is reported, stay the
        per-predicate functions' own."""
        return self.screen_source(tests).function(range(len(tests)))

    def screen_source(self, tests: list[tuple[Expr, bool]]) -> ScreenSource:
        """The source of `any_decides` for `tests`, emitted once, from which the function for
        any subset of them is assembled (`ScreenSource.function`): an exploration narrows its
        screen each time a property is decided, and emitting large predicates again each time
        cost more than the rest of a small exploration."""
        emitter = Emitter(self.model, self.config, self.layout, limit=self.limit)
        for expr, _ in tests:  # a first pass only counts which fields the predicates read
            emitter.emit(expr, {})
        emitter.cached = {key for key, n in emitter.reads.items() if n >= 2 and key[0] == "s"}
        emitter.helpers.clear()
        self._remembering(emitter)
        reads = []
        for _, offset in sorted(emitter.cached, key=lambda k: k[1]):
            mask = next(f.mask for f in self.layout.fields if f.offset == offset)
            reads.append(f"    s_{offset} = (s >> {offset}) & {mask}" if offset else f"    s_0 = s & {mask}")
        checks: list[list[str]] = []
        for expr, deciding in tests:
            code = emitter.emit(expr, {})
            if code.const:
                checks.append(["    return True"] if bool(code.value) == deciding else [])
                continue
            checks.append([f"    if {'' if deciding else 'not '}{code.text}:", "        return True"])
        return ScreenSource(self.model.id, emitter.helper_source(), reads, checks)

    def evaluator(self, expr: Expr) -> Callable[[int], Any]:
        """A function returning the readable value (enum member names, bools), for reports."""
        raw, decode = self.function(expr), self.decoder(expr)
        return lambda s: decode(raw(s))

    def decoder(self, expr: Expr) -> Callable[[Any], Any]:
        """The readable value (enum member name, bool) of `expr`'s encoded value."""
        emitter = Emitter(self.model, self.config, self.layout)
        return lambda value: emitter.decode(value, expr)

    # -- the successor function ----------------------------------------------------------
    def _successor_source(self) -> GeneratedSource:
        """The successor function's source, and the budget it needs (the most terms of an
        aggregate it unrolled), under which the code cache serves it to budgeted checks."""
        emitter = Emitter(self.model, self.config, self.layout, limit=self.limit)
        for n, instance in enumerate(self.instances):  # a first pass only counts which fields guards read
            if self.limit is not None and n % 64 == 63:
                self.limit.clock("action instances")
            self._guard(emitter, instance)
        emitter.cached = {key for key, n in emitter.reads.items() if n >= 2 and key[0] == "s"}
        emitter.helpers.clear()  # the counting pass's helpers read fields their own way
        self._remembering(emitter)
        lines: list[str] = []
        forced = [_Pending(i, _conjuncts(i.action.guard)) for i in self.instances if i.forced]
        free = [_Pending(i, _conjuncts(i.action.guard)) for i in self.instances if not i.forced]
        if forced:
            lines.append("    f = []")
            lines.extend(self._dispatch(emitter, forced, 1))
            lines.append("    if f:")
            lines.append("        return f")
        lines.append("    r = []")
        lines.extend(self._dispatch(emitter, free, 1))
        lines.append("    return r")
        reads = {}
        for _, offset in emitter.cached:
            mask = next(f.mask for f in self.layout.fields if f.offset == offset)
            reads[offset] = f"s_{offset} = (s >> {offset}) & {mask}" if offset else f"s_0 = s & {mask}"
        return GeneratedSource("\n".join([*emitter.helper_source(), "def successors(s):", *place_reads(lines, reads)]) + "\n", emitter.terms)

    def _dispatch(self, emitter: Emitter, pending: list[_Pending], depth: int) -> list[str]:
        """Guarded effect blocks, nested under `if field == value` tests where guards share a
        leading equality on one state field: each state then tests only the guards that can hold.
        Only a guard's *first* conjunct is hoisted, so evaluation order (and so which errors can
        happen) is exactly the guard's own."""
        pad = "    " * depth
        split = self.dispatch_split(emitter, pending)
        if split is None:
            return self._plain_run(emitter, pending, pad)
        offset, grouped, rest = split
        width = next(f.width for f in self.layout.fields if f.offset == offset)
        read = emitter.read("s", offset, (1 << width) - 1)
        lines = [f"{pad}d{depth} = {read}"]
        for n, (value, items) in enumerate(sorted(grouped.items())):
            lines.append(f"{pad}{'if' if n == 0 else 'elif'} d{depth} == {value}:")
            body = self._dispatch(emitter, items, depth + 1)
            lines.extend(body or [f"{pad}    pass"])
        lines.extend(self._plain_run(emitter, rest, pad))
        return lines

    def dispatch_split(self, emitter: Emitter, pending: list[_Pending]) -> tuple[int, dict[int, list[_Pending]], list[_Pending]] | None:
        """The field `_dispatch` nests `pending` under (the one most guards start by testing
        for equality, the first such on a tie; None when fewer than two do), the blocks by its
        value, and the others in their order."""
        keys = [self._dispatch_key(emitter, p) for p in pending]
        counts = Counter(k[0] for k in keys if k is not None)
        offset = next((off for off, n in counts.most_common(1) if n >= 2), None)
        if offset is None:
            return None
        grouped, rest = split_by_dispatch(pending, keys, offset)
        return offset, grouped, rest

    def block_order(self, emitter: Emitter | None = None) -> list[Instance]:
        """The instances in the order the successor function tests them, which is the order of
        the moves it returns: the forced rules first, each list nested by `dispatch_split` (a
        dispatch's branches by value before the blocks it leaves), else in its own order. It
        depends on which instances there are and on what the emitter folds to a constant, so
        the native back-end, with every reading's instances and readings read at run time,
        may test them in another order (`engines/native/engine.py` puts its moves in this one)."""
        emitter = emitter or Emitter(self.model, self.config, self.layout)

        def ordered(pending: list[_Pending]) -> list[Instance]:
            split = self.dispatch_split(emitter, pending)
            if split is None:
                return [p.instance for p in pending]
            _, grouped, rest = split
            return [i for value in sorted(grouped) for i in ordered(grouped[value])] + [p.instance for p in rest]

        forced = [_Pending(i, _conjuncts(i.action.guard)) for i in self.instances if i.forced]
        free = [_Pending(i, _conjuncts(i.action.guard)) for i in self.instances if not i.forced]
        return ordered(forced) + ordered(free)

    def _plain_run(self, emitter: Emitter, pending: list[_Pending], pad: str) -> list[str]:
        """The guarded blocks of `pending` in their order, consecutive blocks whose guards start
        with the same test nested under one `if` of it: the instances of one action share the
        conjuncts that do not read its parameters, which each instance's block tested again
        (SMS's showdown model: eight tests before the first that differs). The shared test is
        pure and is evaluated first by the first of those blocks that can fire, so the moves,
        their order and any error raised are the ungrouped code's; blocks that cannot fire are
        dropped with the test they share when none of the run can fire."""
        if len(pad) // 4 >= MAX_BLOCK_DEPTH:
            return [line for item in pending for line in self._plain_block(emitter, item, pad)]
        lines: list[str] = []
        heads = [self._leading_test(emitter, item) for item in pending]
        start = 0
        while start < len(pending):
            end = start + 1
            if heads[start] is not None:
                while end < len(pending) and heads[end] == heads[start]:
                    end += 1
            if end - start == 1:
                lines.extend(self._plain_block(emitter, pending[start], pad))
            else:
                rest = [_Pending(item.instance, item.conjuncts[1:]) for item in pending[start:end]]
                body = self._plain_run(emitter, rest, pad + "    ")
                if body:
                    lines.append(f"{pad}if {heads[start]}:")
                    lines.extend(body)
            start = end
        return lines

    def _leading_test(self, emitter: Emitter, item: _Pending) -> str | None:
        """The code of a block's first guard conjunct when it is a run-time test (a constant one
        decides the block alone in `_plain_block`)."""
        if not item.conjuncts:
            return None
        code = emitter.emit(item.conjuncts[0], self.encoded_params(item.instance))
        return None if code.const else code.text

    def _dispatch_key(self, emitter: Emitter, item: _Pending) -> tuple[int, int] | None:
        """(bit offset, encoded value) when the first conjunct is `field == constant`."""
        if not item.conjuncts:
            return None
        first = item.conjuncts[0]
        env = self.encoded_params(item.instance)
        negate = isinstance(first, Unary) and first.op == "not"
        if negate:
            first = cast(Unary, first).operand  # `negate`: `first` is a Unary `not`
        if isinstance(first, SlotRef) and first.type.kind == "bool":
            slot_ref, value = first, _lit(not negate)
        elif not negate and isinstance(first, Binary) and first.op == "==":
            if isinstance(first.left, SlotRef):
                slot_ref, value = first.left, emitter.emit(first.right, env)
            elif isinstance(first.right, SlotRef):
                slot_ref, value = first.right, emitter.emit(first.left, env)
            else:
                return None
        else:
            return None
        if not value.const:
            return None
        slot = self.model.slots[slot_ref.name]
        element = emitter.element_number(slot_ref, slot.dims, env, "s") if slot_ref.indices else _lit(0)
        if not element.const:
            return None
        layout = self.layout.slots[slot_ref.name]
        encoded = value.value
        if slot.elem.type.kind == "int":
            if not slot.elem.lo <= encoded <= slot.elem.hi:
                return None
            encoded -= slot.elem.lo
        elif slot.elem.type.kind == "bool":
            encoded = 1 if encoded else 0
        return layout.base + element.value * layout.width, encoded

    def _plain_block(self, emitter: Emitter, item: _Pending, pad: str) -> list[str]:
        guard, block = self._remembered_block(emitter, item)
        if block is None:
            return []
        if guard.const:
            return [f"{pad}{line}" for line in block]
        return [f"{pad}if {guard.text}:"] + [f"{pad}    {line}" for line in block]

    def _guarded_block(self, emitter: Emitter, item: _Pending) -> tuple[Code, tuple[str, ...] | None]:
        """The block's guard and its effect lines (None: the guard is false whatever the state)."""
        instance = item.instance
        env = self.encoded_params(instance)
        guard = _lit(True)
        for conjunct in item.conjuncts:
            guard = self._and(guard, emitter.emit(conjunct, env))
            if guard.const and not guard.value:
                return guard, None
        if instance.action.weight is not None:
            guard = self._and(guard, emitter.arith(">", emitter.emit(instance.action.weight, env), _lit(0)))
            if guard.const and not guard.value:
                return guard, None
        return guard, tuple(share(self._read_fields_once(emitter, self._effect_block(emitter, instance, env, "f" if instance.forced else "r"))))

    def _remembered_block(self, emitter: Emitter, item: _Pending) -> tuple[Code, tuple[str, ...] | None]:
        """`_guarded_block`, made once per process for everything its text depends on
        (`checker.lang.emit_memo`)."""
        if emitter.remembering is None:
            return self._guarded_block(emitter, item)
        key = emitter.remembering.block_key(item.instance, len(item.conjuncts))
        kept = emitter.remembering.find(key, emitter.cached)
        if kept is None:
            return emitter.tracked(key, lambda: self._guarded_block(emitter, item), lambda made: sum(len(line) for line in made[1] or ())).made
        emitter.cached.update(kept.names)
        emitter.terms = max(emitter.terms, kept.terms)
        return kept.made

    def _read_fields_once(self, emitter: Emitter, lines: list[str]) -> list[str]:
        """`lines` with each field they read more than once named `s_N` (and read once, where
        `place_reads` puts it). The counting pass sees guards only: emitting every effect twice
        would cost Ultimate's generator seconds, and effects read fields guards do not."""
        text = "\n".join(lines)
        masks = {f.offset: f.mask for f in self.layout.fields}
        counts = Counter(int(m.group(1)) for m in _FIELD_READ.finditer(text) if masks.get(int(m.group(1))) == int(m.group(2)))
        again = {offset for offset, n in counts.items() if n >= 2}
        if not again:
            return lines
        emitter.cached.update(("s", offset) for offset in again)

        def named(match: re.Match) -> str:
            offset = int(match.group(1))
            return f"s_{offset}" if offset in again and masks[offset] == int(match.group(2)) else match.group()

        return _FIELD_READ.sub(named, text).split("\n")

    def _guard(self, emitter: Emitter, instance: Instance) -> Code:
        """The guard, and for a chance action also `weight > 0`."""
        env = self.encoded_params(instance)
        guard = emitter.emit(instance.action.guard, env)
        if instance.action.weight is not None and not (guard.const and not guard.value):
            guard = self._and(guard, emitter.arith(">", emitter.emit(instance.action.weight, env), _lit(0)))
        return guard

    @staticmethod
    def _and(left: Code, right: Code) -> Code:
        if left.const:
            return right if left.value else left
        if right.const:
            return left if right.value else right
        return Code(f"({left.text} and {right.text})")

    def _effect_block(self, emitter: Emitter, instance: Instance, env: dict[str, Any], target: str) -> list[str]:
        """Statements computing the post-state from `s` and appending it to `target`."""
        action = instance.action
        lines: list[str] = []
        clear = 0
        static_sets: list[str] = []
        dynamic: list[tuple[str, str, int, str]] = []  # (offset expr, value var, mask, slot)
        counter = itertools.count()
        static_offsets: dict[int, str] = {}
        for assign in action.assigns:
            for write in self._writes(emitter, assign, env):
                offset, value_code, slot = write
                var = f"v{next(counter)}"
                lines.extend(self._value_lines(action, assign, value_code, var))
                sl = self.layout.slots[slot]
                field_mask = (1 << sl.width) - 1
                if offset.const:
                    if offset.value in static_offsets:
                        # Only an error if this instance can fire: raise when the block runs.
                        lines.append(f"_twice({action.name!r}, {slot!r})")
                        continue
                    static_offsets[offset.value] = slot
                    clear |= field_mask << offset.value
                    static_sets.append(f"({var} << {offset.value})" if offset.value else var)
                else:
                    ovar = f"o{next(counter)}"
                    lines.append(f"{ovar} = {offset.text}")
                    dynamic.append((ovar, var, field_mask, slot))
        # Two writes meeting at run time are a modelling error, as in the interpreter.
        for i, (ovar, _, _, slot) in enumerate(dynamic):
            others = [o for o, _, _, s in dynamic[:i] if s == slot] + [str(off) for off, s in static_offsets.items() if s == slot]
            for other in others:
                lines.append(f"if {ovar} == {other}: _twice({action.name!r}, {slot!r})")
        full = (1 << max(self.layout.bits, 1)) - 1
        expr = f"(s & {full & ~clear})" if clear else "s"
        if static_sets:
            expr = f"({expr} | {' | '.join(static_sets)})"
        if dynamic:
            lines.append(f"t = {expr}")
            for ovar, var, field_mask, _ in dynamic:
                lines.append(f"t = (t & ~({field_mask} << {ovar})) | ({var} << {ovar})")
            expr = "t"
        lines.append(f"{target}.append(({instance.id}, {expr}))")
        return lines

    def _writes(self, emitter: Emitter, assign: Assign, env: dict[str, Any]) -> list[tuple[Code, Code, str]]:
        """(bit offset, encoded value, slot) for every element an assignment writes."""
        slot = self.model.slots[assign.slot]
        sl = self.layout.slots[assign.slot]
        out = []
        names = [n for n, _ in assign.bound]
        for combo in itertools.product(*(d.values() for _, d in assign.bound)):
            inner = {**env, **{n: (d.code(v) if d.is_enum else v) for n, (_, d), v in zip(names, assign.bound, combo)}}
            value = emitter.emit(assign.value, inner)
            prefix = SlotRef(slot.elem.type, name=slot.name, indices=assign.indices)
            partial_dims = slot.dims[: len(assign.indices)]
            element = emitter.element_number(prefix, partial_dims, inner, "s") if assign.indices else _lit(0)
            rest_dims = slot.dims[len(assign.indices):]
            rest_count = 1
            for dom in rest_dims:
                rest_count *= dom.size
            for rest in range(rest_count):
                number = emitter.arith("+", emitter.arith("*", element, _lit(rest_count)), _lit(rest))
                offset = emitter.arith("+", _lit(sl.base), emitter.arith("*", number, _lit(sl.width)))
                out.append((offset, value, assign.slot))
        return out

    def _value_lines(self, action: Action, assign: Assign, value: Code, var: str) -> list[str]:
        slot = self.model.slots[assign.slot]
        elem = slot.elem
        if elem.type.kind == "bool":
            return [f"{var} = {1 if value.value else 0}"] if value.const else [f"{var} = 1 if {value.text} else 0"]
        if elem.type.kind == "enum":
            return [f"{var} = {value.text}"]
        if value.const:
            if not elem.lo <= value.value <= elem.hi:
                return [f"_range({action.name!r}, {assign.slot!r}, {value.value}, {elem.lo}, {elem.hi})", f"{var} = 0"]
            return [f"{var} = {value.value - elem.lo}"]
        lines = [f"{var} = {value.text}", f"if not {elem.lo} <= {var} <= {elem.hi}: _range({action.name!r}, {assign.slot!r}, {var}, {elem.lo}, {elem.hi})"]
        if elem.lo:
            lines.append(f"{var} -= {elem.lo}")
        return lines
