"""Assembling a model into the bytecode `vm.run` executes.

The program has the shape of the Python engine's generated successor code (`checker.lang.compile`):
the same instances, the same dispatch on leading field tests (`source.NativeSource`; moves are
then put in the Python engine's order, `engine.python_order`), readings as a run-time input,
parameters and aggregates unrolled and constants folded. What the generated code does in
Python, the instructions do here: the interpreter's semantics,
with short-circuits exactly where the Python engine has them, so an error the Python engine
would not meet is not met here either. A bool-typed expression's value is 0 or 1 (comparisons,
`not`, bool fields and tables, and `and`/`or` chains of such values), so no instruction
converts truth values except where a bool is stored.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Collection
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from checker.engines.graph import CHANCE, RULES
from checker.engines.native import vm
from checker.engines.native.source import WORD, NativeSource
from checker.engines.native.vm_share import MIN_SIZE, Again, FreeNames, Label, Mark, Reg, Shared, Unit, register_at, registers_needed
from checker.lang.compile import _FOLD, Instance, _conjuncts, _Pending
from checker.lang.expr import Agg, Binary, Call, Cond, ConstRef, Expr, Lit, Old, ReadingRef, Require, SlotRef, Unary, Var
from checker.limits import WorkLimit

_BINARY = {"+": vm.ADD, "-": vm.SUB, "*": vm.MUL, "//": vm.DIV, "%": vm.MOD, "==": vm.EQ, "!=": vm.NE, "<": vm.LT, "<=": vm.LE, ">": vm.GT, ">=": vm.GE}


@dataclass(slots=True)
class Const:
    """An expression's value known while assembling."""

    value: Any


class Ops(list):
    """Instructions computing an expression's value onto the stack. A jump's operand is a
    `Label`, and the place it names is a `Mark` of it in the list: lists concatenate as they
    are, and addresses are given when the whole program is placed (`_placed`)."""


Value = Const | Ops


def _placed(ops: list, base: int) -> list[int]:
    """`ops` at address `base`: superinstructions fused (`_fused`), marks removed, labels
    replaced by addresses, jumps threaded (`_threaded`)."""
    ops = _fused(ops)
    at: dict[int, int] = {}
    address = base
    for item in ops:
        if type(item) is Mark:
            assert id(item.label) not in at, "a label placed twice"
            at[id(item.label)] = address
        else:
            address += 1
    return _threaded([item if type(item) is int else at[id(item)] if isinstance(item, Label) else item for item in ops if type(item) is not Mark], base)


# A short-circuit jump that keeps a zero, and what it becomes when it lands on a JUMP_IF_ZERO.
_KEEPING_ZERO = {vm.AND_ELSE: vm.JUMP_IF_ZERO, vm.FIELD_EQ_AND: vm.FIELD_EQ_JUMP, vm.FIELD_AND: vm.FIELD_JUMP}
_THREADED = frozenset([*_KEEPING_ZERO, vm.OR_ELSE])  # the jumps `_threaded` sends on


def _threaded(code: list[int], base: int) -> list[int]:
    """`code` with each short-circuit jump that lands on a test of the value it carries sent on
    to where that test goes: an `and` chain's zero meeting another `and` (`vm.AND_ELSE`) or a
    guard's JUMP_IF_ZERO, an `or` chain's non-zero meeting a JUMP_IF_ZERO (which goes on past
    it). A guard's conjunction then jumps to the next block at its first false test, in one
    instruction. The jumping instruction keeps its width, and the stack the same depth."""
    code = list(code)
    i, n = 0, len(code)
    while i < n:
        op = code[i]
        width = 5 + 2 * code[i + 3] if op == vm.DISPATCH else 2 + 4 * code[i + 1] if op == vm.FIELD_SUM else 1 + _OPERANDS[op]
        if op in _THREADED:
            at = i + width - 1  # the address operand is the last
            for _ in range(len(code)):
                target = code[at] - base
                if not 0 <= target < len(code):
                    break
                landing = code[target]
                if code[i] in _KEEPING_ZERO and landing == vm.AND_ELSE:
                    code[at] = code[target + 1]
                elif code[i] in _KEEPING_ZERO and landing == vm.JUMP_IF_ZERO:
                    code[i], code[at] = _KEEPING_ZERO[code[i]], code[target + 1]
                elif code[i] == vm.OR_ELSE and landing == vm.JUMP_IF_ZERO:
                    code[i], code[at] = vm.JUMP_UNLESS_ZERO, code[at] + 2
                else:
                    break
        i += width
    return code


def _fused(ops: list) -> list:
    """`ops` with each PUSH and the STORE or arithmetic after it as one instruction (`vm.SET`,
    `vm.ADD_C`, ...): one dispatch instead of two and no stack traffic for the constant. Then
    each FIELD and the comparison with a constant after it (`vm.FIELD_EQ_C`, `vm.FIELD_NE_C`),
    and such an equality and the jump or `and` after it (`vm.FIELD_EQ_JUMP`,
    `vm.FIELD_EQ_AND`). Only where no jump lands on the second (a `Mark` between them keeps
    them apart); a return address (`vm.CALL`'s) is always the start of an instruction, which
    fusing leaves one. Before the field tests, a chain of fields added up is one `vm.FIELD_SUM`
    (`_field_sum`; its last field is followed by an ADD, never by a test)."""
    summed = _rewritten(_rewritten(ops, _PUSHES, _constant_pair), _SUMMED.keys(), _field_sum)
    return _rewritten(summed, _FIELDS, _field_test)


_PUSHES, _FIELDS = frozenset([vm.PUSH]), frozenset([vm.FIELD])


def _rewritten(ops: list, firsts: Collection[int], fuse) -> list:
    """`ops` with each instruction of `firsts` that `fuse` fuses with the ones after it (it returns
    the superinstruction and how many items it replaces, or None) replaced; marks kept. Once
    per item of every program: the widths are looked up here, not by a call."""
    out: list = []
    append, extend = out.append, out.extend
    i, n = 0, len(ops)
    while i < n:
        op = ops[i]
        if type(op) is Mark:
            append(op)
            i += 1
            continue
        if op in firsts:
            fused = fuse(ops, i)
            if fused is not None:
                extend(fused[0])
                i += fused[1]
                continue
        width = 5 + 2 * ops[i + 3] if op == vm.DISPATCH else 2 + 4 * ops[i + 1] if op == vm.FIELD_SUM else 1 + _OPERANDS[op]
        if width == 1:
            append(op)
        else:
            extend(ops[i : i + width])
        i += width
    return out


def _constant_pair(ops: list, i: int) -> tuple[list, int] | None:
    """PUSH and the STORE or arithmetic after it; a comparison's guard jump after that too."""
    if ops[i] != vm.PUSH or i + 2 >= len(ops) or type(ops[i + 2]) is Mark:
        return None
    after = ops[i + 2]
    if after == vm.STORE:
        return [vm.SET, ops[i + 3], ops[i + 1]], 4
    if after in _WITH_CONSTANT:
        if after in _TEST_JUMPS and i + 4 < len(ops) and type(ops[i + 3]) is int and ops[i + 3] == vm.JUMP_IF_ZERO:
            return [_TEST_JUMPS[after], ops[i + 1], ops[i + 4]], 5
        return [_WITH_CONSTANT[after], ops[i + 1]], 3
    return None


_SUMMED = {vm.FIELD: 0, vm.FIELD2: 2}  # a field's kind in a FIELD_SUM: added to its state number


def _field_sum(ops: list, i: int) -> tuple[list, int] | None:
    """FIELD (or FIELD2) and one or more FIELD (or FIELD2) and ADD after it: their sum."""
    n = len(ops)
    terms = [ops[i + 1] + _SUMMED[ops[i]], *ops[i + 2 : i + 5]]
    j = i + 5
    while j + 5 < n and type(ops[j]) is int and ops[j] in _SUMMED and type(ops[j + 5]) is int and ops[j + 5] == vm.ADD:
        terms += [ops[j + 1] + _SUMMED[ops[j]], *ops[j + 2 : j + 5]]
        j += 6
    if j == i + 5:
        return None
    return [vm.FIELD_SUM, len(terms) // 4, *terms], j - i


def _field_test(ops: list, i: int) -> tuple[list, int] | None:
    """FIELD and the jump, `and` or comparison with a constant after it (and an equality's
    jump or `and` after that)."""
    n = len(ops)
    if ops[i] != vm.FIELD or i + 5 >= n:
        return None
    after = ops[i + 5]
    if after in (vm.JUMP_IF_ZERO, vm.AND_ELSE):
        return [vm.FIELD_JUMP if after == vm.JUMP_IF_ZERO else vm.FIELD_AND, *ops[i + 1 : i + 5], ops[i + 6]], 7
    if after == vm.EQ_C_JUMP:  # an equality's guard jump, fused with its constant already (`_constant_pair`)
        return [vm.FIELD_EQ_JUMP, *ops[i + 1 : i + 5], ops[i + 6], ops[i + 7]], 8
    if after not in (vm.EQ_C, vm.NE_C):
        return None
    test = [vm.FIELD_EQ_C if after == vm.EQ_C else vm.FIELD_NE_C, *ops[i + 1 : i + 5], ops[i + 6]]
    if test[0] == vm.FIELD_EQ_C and i + 7 < n and ops[i + 7] in (vm.JUMP_IF_ZERO, vm.AND_ELSE):
        return [vm.FIELD_EQ_JUMP if ops[i + 7] == vm.JUMP_IF_ZERO else vm.FIELD_EQ_AND, *test[1:], ops[i + 8]], 9
    return test, 7


def _fresh(ops: list) -> list:
    """A copy of `ops` with labels of its own, to place the same code twice (subroutine entries,
    `vm_share.Entry`, stay: the copy calls the same subroutines)."""
    renamed: dict[int, Label] = {}

    def new(label: Label) -> Label:
        return renamed.setdefault(id(label), Label())

    return [Mark(new(i.label)) if type(i) is Mark and type(i.label) is Label else new(i) if type(i) is Label else i for i in ops]


@dataclass
class Assembler:
    """Assembles expressions of one model into instructions."""

    source: NativeSource
    limit: WorkLimit | None = None  # the budget's bound on unrolled aggregate terms, as the Python emitter's
    tables: list[int] = field(default_factory=list)
    _table_at: dict[tuple, int] = field(default_factory=dict)
    terms: int = 0  # the most terms of an aggregate unrolled (the budget the program needs)
    unit: Unit | None = None  # the expression being assembled, whose repeated subexpressions are shared (`vm_share`)
    registers: int = 0  # the most registers an expression's shared values needed
    _free: FreeNames = field(default_factory=FreeNames)
    _tables_of: dict[str, tuple[int, ...]] = field(default_factory=dict)

    @property
    def model(self):
        return self.source.model

    # -- values -----------------------------------------------------------------------------
    def encode(self, value: Any, expr: Expr) -> Any:
        if expr.type.kind == "enum":
            return self.model.scope.domain_of(expr.type).members.index(value)
        return value

    def ops(self, value: Value) -> Ops:
        """The instructions that push `value`."""
        if isinstance(value, Const):
            return Ops([vm.PUSH, int(value.value)])
        return value

    def shared(self, make: Callable[[], Value]) -> Value:
        """`make()`, one expression, with its repeated subexpressions computed once."""
        start, (value,), subroutines = self.shared_all(lambda: [make()])
        return value if isinstance(value, Const) else Ops([*start, *value, *subroutines])

    def shared_all(self, make: Callable[[], list[Value]]) -> tuple[Ops, list[Value], Ops]:
        """`make()`, expressions evaluated one after the other, every one of them, sharing
        the subexpressions they repeat (within one or across them): the instructions to place
        before the first (a new stamp, when one is needed), the expressions, and the
        subroutines they call, to place after the last (`vm_share.Unit.subroutines`)."""
        assert self.unit is None, "expressions do not nest"
        self.unit = unit = Unit()
        try:
            values = make()
        finally:
            self.unit = None
        self.registers = max(self.registers, unit.used)
        expanded = [value if isinstance(value, Const) else Ops(unit.expand(value)) for value in values]
        return Ops(unit.start()), expanded, Ops(unit.subroutines())

    def expr(self, expr: Expr | None, env: dict[str, Any], state: int = 0) -> Value:
        assert expr is not None, "an IR node without its operand"  # the type checker always sets them
        unit = self.unit
        kind = type(expr)
        if unit is None or kind in _NEVER_SHARED:
            return _HANDLERS[kind](self, expr, env, state)
        key = (id(expr), state, *[env[name] for name in self._free(expr)])
        met = unit.met.get(key)
        if met is not None:
            return Ops(unit.again(met))
        value = _HANDLERS[kind](self, expr, env, state)
        if isinstance(value, Const):
            return value
        size = _size(value)
        if size < MIN_SIZE:
            return value
        return Ops(unit.first(key, value, size))

    def _Lit(self, expr: Lit, env: dict, state: int) -> Value:
        return Const(self.encode(expr.value, expr))

    def _Var(self, expr: Var, env: dict, state: int) -> Value:
        return Const(env[expr.name])

    def _ReadingRef(self, expr: ReadingRef, env: dict, state: int) -> Value:
        return Ops([vm.READING, self.source.reading_names.index(expr.name)])

    def _ConstRef(self, expr: ConstRef, env: dict, state: int) -> Value:
        value = self.source.config.constants[expr.name]
        if not expr.indices:
            return Const(self.encode(value, expr))
        const = self.model.constants[expr.name]
        element = self.element_number(expr, const.dims, env, state)
        table = self._table(expr)
        if isinstance(element, Const):
            return Const(table[element.value])
        if table not in self._table_at:
            self._table_at[table] = len(self.tables)
            self.tables.extend(table)
        return Ops([*element, vm.TABLE, self._table_at[table]])

    def _table(self, expr: ConstRef) -> tuple[int, ...]:
        """A table constant's encoded elements in row-major order (once per table)."""
        table = self._tables_of.get(expr.name)
        if table is None:
            const = self.model.constants[expr.name]
            value = self.source.config.constants[expr.name]
            keys = itertools.product(*(d.values() for d in const.dims))
            table = self._tables_of[expr.name] = tuple(int(self.encode(value[k], expr)) for k in keys)
        return table

    def element_number(self, expr: SlotRef | ConstRef, dims: tuple, env: dict, state: int) -> Value:
        """Row-major element number, each index checked against its domain (as the compiler)."""
        total: Value = Const(0)
        stride = math.prod(d.size for d in dims)
        for index, dom in zip(expr.indices, dims):
            stride //= dom.size
            code = self.expr(index, env, state)
            if dom.is_enum:
                position = code
            elif isinstance(code, Const) and dom.contains(code.value):
                position = Const(code.value - dom.lo)
            else:
                position = Ops([*self.ops(code), vm.INDEX, dom.lo, dom.size])
            total = self.arith("+", total, self.arith("*", position, Const(stride)))
        return total

    def _SlotRef(self, expr: SlotRef, env: dict, state: int) -> Value:
        layout = self.source.layout.slots[expr.name]
        element = self.element_number(expr, self.model.slots[expr.name].dims, env, state)
        mask = (1 << layout.width) - 1
        if isinstance(element, Const):
            offset = layout.base + element.value * layout.width
            w, o = divmod(offset, WORD)
            read = Ops([vm.FIELD if o + layout.width <= WORD else vm.FIELD2, state, w, o, mask])
        else:
            read = Ops([*element, vm.FIELDX, state, layout.base, layout.width, mask])
        lo = self.model.slots[expr.name].elem.lo or 0
        return self.arith("+", read, Const(lo))

    def _Unary(self, expr: Unary, env: dict, state: int) -> Value:
        operand = self.expr(expr.operand, env, state)
        if isinstance(operand, Const):
            v = operand.value
            return Const(not v if expr.op == "not" else -v if expr.op == "neg" else abs(v))
        return Ops([*operand, {"not": vm.NOT, "neg": vm.NEG, "abs": vm.ABS}[expr.op]])

    def arith(self, op: str, left: Value, right: Value) -> Value:
        if type(left) is Const:  # called for every index and offset: type tests, not isinstance
            if type(right) is Const:
                if op in _FOLD:
                    return Const(_FOLD[op](left.value, right.value))
                if right.value != 0:
                    return Const(left.value // right.value if op == "//" else left.value % right.value)
            elif op == "+" and left.value == 0:
                return right
        if type(right) is Const and right.value == (0 if op == "+" else 1 if op == "*" else None):
            return left
        return Ops([*self.ops(left), *self.ops(right), _BINARY[op]])

    def positive(self, expr: Expr, env: dict) -> Value:
        """`expr > 0` (a chance action's weight)."""
        return self.arith(">", self.expr(expr, env), Const(0))

    def _Binary(self, expr: Binary, env: dict, state: int) -> Value:
        if expr.op in ("and", "or"):
            return self.logic(expr.op, [partial(self.expr, e, env, state) for e in _chain_of(expr)])
        return self.arith(expr.op, self.expr(expr.left, env, state), self.expr(expr.right, env, state))


    def logic(self, op: str, operands: list[Callable[[], Value]]) -> Value:
        """A short-circuit chain: operands after a constant that decides it are not assembled."""
        deciding = op == "or"
        live: list[Ops] = []
        for make in operands:
            if live:
                with self.conditional():  # runs only when the live operands before it do not decide
                    value = make()
            else:
                value = make()
            if isinstance(value, Const):
                if bool(value.value) == deciding:
                    return Const(deciding) if not live else self._chain(op, [*live, Ops([vm.PUSH, int(deciding)])])
                continue
            live.append(value)
        if not live:
            return Const(not deciding)
        return self._chain(op, live)

    @staticmethod
    def _chain(op: str, live: list[Ops]) -> Ops:
        if len(live) == 1:
            return live[0]
        end = Label()
        out = Ops()
        for n, part in enumerate(live):
            out.extend(part)
            if n < len(live) - 1:
                out.extend([vm.AND_ELSE if op == "and" else vm.OR_ELSE, end])
        out.append(Mark(end))
        return out

    def _Cond(self, expr: Cond, env: dict, state: int) -> Value:
        test = self.expr(expr.test, env, state)
        if isinstance(test, Const):
            return self.expr(expr.then if test.value else expr.orelse, env, state)
        with self.conditional():
            then = self.ops(self.expr(expr.then, env, state))
        with self.conditional():
            orelse = self.ops(self.expr(expr.orelse, env, state))
        return self.branch(test, then, orelse)

    @staticmethod
    def branch(test: Ops, then: Ops, orelse: Ops) -> Ops:
        """`then if test else orelse`."""
        other, end = Label(), Label()
        out = Ops(test)
        out.extend([vm.JUMP_IF_ZERO, other])
        out.extend(then)
        out.extend([vm.JUMP, end])
        out.append(Mark(other))
        out.extend(orelse)
        out.append(Mark(end))
        return out

    def _Call(self, expr: Call, env: dict, state: int) -> Value:
        args = [self.expr(a, env, state) for a in expr.args]
        if expr.fn in ("min", "max"):
            known = [a.value for a in args if isinstance(a, Const)]
            if len(known) == len(args):
                return Const((min if expr.fn == "min" else max)(known))
            out = Ops(self.ops(args[0]))
            for arg in args[1:]:
                out.extend(self.ops(arg))
                out.append(vm.MIN if expr.fn == "min" else vm.MAX)
            return out
        assert expr.domain is not None  # succ/pred always name their domain
        size = expr.domain.size
        step = 1 if expr.fn == "succ" else size - 1
        return self.arith("%", self.arith("+", args[0], Const(step)), Const(size))

    def _Old(self, expr: Old, env: dict, state: int) -> Value:
        return self.expr(expr.operand, env, 1)

    def _Require(self, expr: Require, env: dict, state: int) -> Value:
        test = self.expr(expr.test, env, state)
        if isinstance(test, Const) and test.value:
            return self.expr(expr.value, env, state)
        value = self.ops(self.expr(expr.value, env, state))
        return self.branch(self.ops(test), value, Ops([vm.FAIL, vm.PUSH, 0]))

    def _Agg(self, expr: Agg, env: dict, state: int) -> Value:
        count = math.prod(d.size for _, d in expr.bound)
        self.terms = max(self.terms, count)
        if self.limit is not None:
            self.limit.count("the terms of an aggregate", count)
            self.limit.clock("aggregate terms")
        names = [n for n, _ in expr.bound]
        envs = []
        for n, combo in enumerate(itertools.product(*(d.values() for _, d in expr.bound))):
            if self.limit is not None and n % 4096 == 4095:
                self.limit.clock("aggregate terms")
            envs.append({**env, **{n: (d.code(v) if d.is_enum else v) for n, (_, d), v in zip(names, expr.bound, combo)}})
        op = expr.op
        if op in ("any", "all"):
            return self.logic("or" if op == "any" else "and", [partial(self._quantified, expr, inner, state) for inner in envs])
        terms: list[tuple[Value, Value]] = []
        for n, inner in enumerate(envs):
            if self.limit is not None and n % 4096 == 4095:
                self.limit.clock("aggregate terms")
            where = self.expr(expr.where, inner, state) if expr.where is not None else Const(True)
            if isinstance(where, Const) and not where.value:
                continue
            with self.conditional(where):
                terms.append((where, self.expr(expr.body, inner, state)))
        if op in ("sum", "count"):
            return self._total(op, terms)
        fold = vm.MIN_SKIPPING if op == "min" else vm.MAX_SKIPPING
        known = [b.value for w, b in terms if isinstance(w, Const) and isinstance(b, Const)]
        if terms and len(known) == len(terms):
            return Const((min if op == "min" else max)(known))
        out = Ops([vm.PUSH, vm.SKIP])
        for where, body in terms:
            item = self.ops(body) if isinstance(where, Const) else self.branch(where, self.ops(body), Ops([vm.PUSH, vm.SKIP]))
            out.extend(item)
            out.append(fold)
        out.append(vm.NOT_SKIP)
        return out

    def _total(self, op: str, terms: list[tuple[Value, Value]]) -> Value:
        """A sum or count over its terms: the constant terms folded into one, the others added in
        one program grown in place (folding term by term copied the program at every term, which
        took hours on an aggregate of a million terms, out of reach of the budget's clock)."""
        constant = 0
        out = Ops()
        for n, (where, body) in enumerate(terms):
            if self.limit is not None and n % 4096 == 4095:
                self.limit.clock("aggregate terms")
            value = body
            if op == "count":
                value = Const(1 if body.value else 0) if isinstance(body, Const) else body
            if isinstance(where, Ops):
                value = self.branch(where, self.ops(value), Ops([vm.PUSH, 0]))
            if isinstance(value, Const):
                constant += value.value
                continue
            had_terms = bool(out)
            out.extend(self.ops(value))
            if had_terms:
                out.append(_BINARY["+"])
        if not out:
            return Const(constant)
        if constant:
            out.extend([vm.PUSH, constant, _BINARY["+"]])
        return out

    def _quantified(self, expr: Agg, inner: dict, state: int) -> Value:
        """One term of `any` (its `where` and its body) or of `all` (its `where` false, or its
        body), assembled where the chain runs it."""
        if expr.where is None:
            return self.expr(expr.body, inner, state)
        body = partial(self.expr, expr.body, inner, state)
        if expr.op == "any":
            return self.logic("and", [partial(self.expr, expr.where, inner, state), body])
        return self.logic("or", [lambda: self._not(self.expr(expr.where, inner, state)), body])

    def conditional(self, test: Value | None = None) -> AbstractContextManager:
        """Assembling instructions that run only on some paths (after `test`, when it is not
        a constant): what they compute is not available after them (`vm_share.Unit`)."""
        if self.unit is None or isinstance(test, Const):
            return nullcontext()
        return self.unit.conditional()

    @staticmethod
    def _not(value: Value) -> Value:
        return Const(not value.value) if isinstance(value, Const) else Ops([*value, vm.NOT])


_NEVER_SHARED: frozenset[type] = frozenset((Lit, Var, ReadingRef))  # a push or a reading: nothing to save
# `Assembler.expr`'s method for each kind of node (a node of another kind is a KeyError, which
# `engine._assembled` reports as a model the interpreter cannot run).
_HANDLERS: dict[type, Callable[..., Value]] = {
    kind: getattr(Assembler, f"_{kind.__name__}") for kind in (Lit, Var, ReadingRef, ConstRef, SlotRef, Unary, Binary, Cond, Call, Old, Require, Agg)
}


def _size(ops: list) -> int:
    """The instructions' length once a unit is finished (a shared record counts as its
    instructions, a later occurrence as a load)."""
    size = len(ops)
    for item in ops:
        kind = type(item)
        if kind is int:
            continue  # most items: an operation or an operand, one place each
        if kind is Shared:
            size += item.size - 1
        elif kind is Again:
            size += 1
        elif kind is Mark:
            size -= 1
    return size


def _ready(value: Value) -> Callable[[], Value]:
    """An operand of `Assembler.logic` already assembled."""
    return lambda: value


def _shape(ops: list) -> tuple:
    """The instructions as a comparable value: labels numbered in order of appearance."""
    names: dict[int, int] = {}
    return tuple(("mark", names.setdefault(id(i.label), len(names))) if isinstance(i, Mark) else ("label", names.setdefault(id(i), len(names))) if isinstance(i, Label) else ("reg", i.number, i.stamp) if isinstance(i, Reg) else i for i in ops)


def _chain_of(expr: Binary) -> list[Expr]:
    out: list[Expr] = []
    stack: list[Expr | None] = [expr]
    while stack:
        node = stack.pop()
        assert node is not None
        if isinstance(node, Binary) and node.op == expr.op:
            stack.extend((node.right, node.left))
        else:
            out.append(node)
    return out




def whole_program(source: NativeSource, limit: WorkLimit | None = None) -> Bytecode:
    """`source`'s program in one go: the moves, then its properties' predicates after them
    (the engine assembles the two apart, to keep and share the moves: `engine.build_vm`)."""
    moves = Program(source, limit).bytecode()
    return Program(source, limit, moves).bytecode() if source.props else moves


@dataclass(frozen=True)
class Bytecode:
    """An assembled program: instructions, constant tables and entry points (read-only, shared
    by every context), and the sizes of the stack and registers a run needs."""

    code: Any
    tables: Any
    entries: Any
    depth: int
    registers: int
    words: int
    terms: int  # the most terms of an aggregate it unrolled: a budget below it refuses the program
    writes: int  # the registers the writes use: the shared values' come after them

    def context(self, readings: list[int], order: list[int]) -> tuple:
        """The inputs `loops.py`'s functions take (`ctx`): the
        shared arrays, these readings, each instance's place in the Python engine's order of
        moves (empty: the program's own order is it), and scratch space of its own."""
        import numpy as np

        return (
            self.code,
            self.tables,
            np.array(readings, np.int64),
            np.zeros(self.depth + 1, np.int64),
            np.zeros(max(self.registers, 1), np.int64),
            np.zeros(1, np.int64),
            np.zeros(1, np.int64),
            np.zeros((1, self.words), np.int64),
            self.entries,
            np.zeros(1, np.int8),
            np.zeros(1, np.int64),
            np.array(order, np.int64),
        )


class Program:
    """One model configuration's bytecode, whatever its readings (a run-time input): the
    successor program, the terminal condition and the property predicates in one array, the
    constant tables they index, and the entry points `loops.py` reads (`entries`).

    The moves come first (the successor program, the terminal condition, the outcome, each
    instance's mover and weight), the property predicates after them. Without `moves` the
    program is the moves alone (`source`'s properties aside); with the moves' program, it is
    that program with `source`'s predicates placed after it: so a loop that decides no
    property and the check matrix share the moves, assembled once (the moves are most of a
    program: a suite's predicates add a tenth on most bundled models)."""

    def __init__(self, source: NativeSource, limit: WorkLimit | None = None, moves: Bytecode | None = None) -> None:
        self.source = source
        self.asm = Assembler(source, limit)
        self.code: list = []  # integers, and the shared values' registers until `bytecode` numbers them
        self.registers = 0  # the writes' registers
        self.depth = 0
        self.continued_registers = 0  # the registers of the moves' program this one continues
        if moves is None:
            self._moves()
        else:
            self._properties(moves)

    def _moves(self) -> None:
        source = self.source
        successors = self._place(self._successors())
        terminal = self.expression(source.model.terminal)
        outcome = self.expression(source.model.outcome) if source.model.outcome is not None else -1
        movers = [self._mover(inst) for inst in source.instances]
        weights = [self._weight(inst) for inst in source.instances]
        checks = self._place([vm.RETURN])  # no property
        entries = [successors, terminal, checks, 0, 0, 0, outcome, max(len(source.instances), 1), 0, 0]
        entries[8] = len(entries)
        entries += movers
        entries[9] = len(entries)
        entries += weights
        entries[3] = len(entries)
        entries += [0] * (len(source.instances) + 1)  # no `after` property of any instance
        entries[4] = entries[5] = len(entries)
        self.entries = entries
        self.depth = stack_depth(self.code, [successors, terminal, checks, *(e for e in [outcome, *movers, *weights] if e >= 0)])

    def _properties(self, moves: Bytecode) -> None:
        """`source`'s predicates after the program of the moves: its code, tables, registers
        and unrolled terms continued, its entries but for the properties' kept."""
        source = self.source
        self.code = moves.code.tolist()
        self.asm.tables = moves.tables.tolist()
        self.asm.terms = moves.terms
        self.registers = moves.writes
        checks = self._place(self._state_checks())
        base = len(source.state_props)
        after: dict[int, list[tuple[int, int]]] = {}
        for j, prop in enumerate(source.after_props):
            for inst in source.instances:
                if inst.action.name == prop.action:
                    after.setdefault(inst.id, []).append((base + j, self.expression(prop.expr, source.encoded_params(inst))))
        leads = [(self.expression(p.source), self.expression(p.target)) for p in source.leads]
        entries = moves.entries.tolist()[: int(moves.entries[3])]
        entries[2] = checks
        ranges = [0]
        for inst in source.instances:
            ranges.append(ranges[-1] + len(after.get(inst.id, ())))
        entries += ranges
        entries[4] = len(entries)
        entries += [x for inst in source.instances for pair in after.get(inst.id, ()) for x in pair]
        entries[5] = len(entries)
        entries += [x for pair in leads for x in pair]
        self.entries = entries
        self.depth = max(moves.depth, stack_depth(self.code, [checks, *(e for pairs in after.values() for _, e in pairs), *(e for pair in leads for e in pair)]))
        self.continued_registers = moves.registers

    def _place(self, ops: list) -> int:
        base = len(self.code)
        self.code.extend(_placed(ops, base))
        return base

    def _state_checks(self) -> list:
        """Every state property in turn: skipped once decided, else evaluated and decided
        where its value is the deciding one (`source.STATE_KINDS`)."""
        out: list = []
        for sp in self.source.state_props:
            skip = Label()
            out.extend([vm.OPEN, sp.slot, skip, *self._shared(sp.prop.expr, {}), vm.DECIDE, sp.slot, int(sp.deciding), Mark(skip)])
        out.append(vm.RETURN)
        return out

    def _mover(self, instance: Instance) -> int:
        """Who makes an instance's move, for `explore_space`: `graph.CHANCE` or `RULES`, or
        the program giving the player's member number."""
        action = instance.action
        if action.by != "player":
            return CHANCE if action.by == "chance" else RULES
        return self.expression(action.actor, self.source.encoded_params(instance))

    def _weight(self, instance: Instance) -> int:
        """The program giving a chance move's weight (-1: none, the weight is 1)."""
        weight = instance.action.weight
        return -1 if weight is None else self.expression(weight, self.source.encoded_params(instance))

    def expression(self, expr: Expr | None, env: dict | None = None) -> int:
        """The address of a program returning `expr`'s value (a bool's is 0 or 1)."""
        return self._place([*self._shared(expr, env or {}), vm.RETURN])

    def _shared(self, expr: Expr | None, env: dict) -> Ops:
        """`expr`'s instructions, its repeated subexpressions computed once (`vm_share`)."""
        asm = self.asm
        return asm.ops(asm.shared(partial(asm.expr, expr, env)))

    def bytecode(self) -> Bytecode:
        """What the interpreter runs: the program without its assembler (which can be cached).
        The shared values' registers come after the writes'."""
        import numpy as np

        tables = self.asm.tables or [0]
        base = self.registers
        code = [register_at(item, base) if type(item) is Reg else item for item in self.code]
        registers = max(base + registers_needed(self.asm.registers), self.continued_registers)
        return Bytecode(np.array(code, np.int64), np.array(tables, np.int64), np.array(self.entries, np.int64), self.depth, registers, self.source.words,
                        self.asm.terms, base)

    # -- successors ---------------------------------------------------------------------------
    def _successors(self) -> list:
        source = self.source
        emitter = source.emitter()
        forced = [_Pending(i, _conjuncts(i.action.guard)) for i in source.instances if i.forced]
        free = [_Pending(i, _conjuncts(i.action.guard)) for i in source.instances if not i.forced]
        out: list = []
        out.extend(self._statements(emitter, forced))
        if forced:
            out.append(vm.FORCED_DONE)
        out.extend(self._statements(emitter, free))
        out.append(vm.RETURN)
        return out

    def _statements(self, emitter, pending: list[_Pending]) -> list:
        """`NativeSource._statements` as instructions: a DISPATCH over the instances sharing a
        leading field test, then the others in order."""
        source = self.source
        split = source.dispatch_split(emitter, pending)
        if split is None:
            return self._blocks(pending)
        offset, grouped, rest = split
        width = next(f.width for f in source.layout.fields if f.offset == offset)
        after = Label()
        values = sorted(grouped)
        labels = [Label() for _ in values]
        out: list = [vm.DISPATCH, offset, (1 << width) - 1, len(values)]
        for value, label in zip(values, labels):
            out.extend([value, label])
        out.append(after)
        for value, label in zip(values, labels):
            out.append(Mark(label))
            out.extend(self._statements(emitter, grouped[value]))
            out.extend([vm.JUMP, after])
        out.append(Mark(after))
        out.extend(self._blocks(rest))
        return out

    def _blocks(self, pending: list[_Pending]) -> list:
        """The instances' guarded blocks in order, as the compiler's `_plain_run` writes them:
        consecutive blocks whose tests start alike test it once, and skip the rest of the run
        together when it fails (the instances of one action share the tests that do not read
        its parameters). The shared test is pure and the first block of the run that can fire
        evaluates it first anyway, so the moves, their order and any error are the same."""
        runs = [(item.instance, tests) for item in pending if (tests := self._tests(item)) is not None]
        return self._run(runs)

    def _run(self, runs: list[tuple[Instance, list[Ops]]]) -> list:
        out: list = []
        start = 0
        while start < len(runs):
            instance, tests = runs[start]
            end = start + 1
            if tests:
                head = _shape(tests[0])
                while end < len(runs) and runs[end][1] and _shape(runs[end][1][0]) == head:
                    end += 1
            skip = Label()
            if end - start == 1:
                for test in tests:
                    out.extend([*test, vm.JUMP_IF_ZERO, skip])
                out.extend(self._effects(instance, self.source.encoded_params(instance)))
            else:
                out.extend([*tests[0], vm.JUMP_IF_ZERO, skip])
                out.extend(self._run([(inst, rest[1:]) for inst, rest in runs[start:end]]))
            out.append(Mark(skip))
            start = end
        return out

    def _tests(self, item: _Pending) -> list[Ops] | None:
        """The run-time tests an instance's block makes before its effects, in order: the
        readings it exists under (`only`), its guard's conjuncts, a chance action's weight > 0.
        None when the block can never fire (a conjunct false whatever the state: nothing
        after it is evaluated, as in the compiler)."""
        asm = self.asm
        instance = item.instance
        env = self.source.encoded_params(instance)
        tests: list[Ops] = []
        only = instance.action.only
        if only:
            domains = self.source.model.scope.readings
            per_reading = []
            for name, options in only.items():
                k = self.source.reading_names.index(name)
                tests_of = [Ops([vm.READING, k, vm.PUSH, domains[name].members.index(o), vm.EQ]) for o in options]
                per_reading.append(asm.logic("or", [_ready(t) for t in tests_of]))
            tests.append(asm.ops(asm.logic("and", [_ready(t) for t in per_reading])))
        conjuncts: list[Callable[[], Value]] = [partial(asm.shared, partial(asm.expr, c, env)) for c in item.conjuncts]
        weight = instance.action.weight
        if weight is not None:
            conjuncts.append(partial(asm.shared, partial(asm.positive, weight, env)))
        for make in conjuncts:
            value = make()
            if isinstance(value, Const):
                if not value.value:
                    return None
                continue
            tests.append(value)
        return tests

    def _effects(self, instance: Instance, env: dict) -> list:
        """Every write's value and offset into registers (range-checked, written twice
        refused), then the successor: a copy of the state with the writes made. A constant
        offset is an operand of its write (`vm.WRITE_AT`), and so is a constant value written
        there (`vm.WRITE_K`): nothing runs for them before the copy."""
        action = instance.action
        writes: list[list[int]] = []  # each write's instruction after BEGIN
        static: dict[int, str] = {}
        dynamic: list[tuple[int, str]] = []  # (offset register, slot)
        listed: list[tuple[Value, Value, str, Any, bool]] = []

        def assemble() -> list[Value]:
            listed.extend(self._write_list(action, env))
            return [v for offset, value, *_ in listed for v in (offset, value)]

        out, values, subroutines = self.asm.shared_all(assemble)
        reg = 0
        for k, (_, _, slot, elem, again) in enumerate(listed):
            offset, value = values[2 * k], values[2 * k + 1]
            if again:  # the same instructions placed once more: labels of their own
                offset, value = (Ops(_fresh(v)) if isinstance(v, Ops) else v for v in (offset, value))
            encoded = self._value(value, elem)
            mask = (1 << self.source.layout.slots[slot].width) - 1
            if isinstance(offset, Const):
                if offset.value in static:
                    out.append(vm.FAIL)
                    continue
                static[offset.value] = slot
                if len(encoded) == 2 and encoded[0] == vm.PUSH:
                    writes.append([vm.WRITE_K, offset.value, encoded[1], mask])
                    continue
                out.extend([*encoded, vm.STORE, reg])
                writes.append([vm.WRITE_AT, offset.value, reg, mask])
                reg += 1
                continue
            out.extend([*encoded, vm.STORE, reg])
            out.extend(offset)
            out.extend([vm.STORE, reg + 1])
            dynamic.append((reg + 1, slot))
            writes.append([vm.WRITE, reg + 1, reg, mask])
            reg += 2
        # Two writes meeting at run time are a modelling error, as in the compiler.
        for i, (offset_reg, slot) in enumerate(dynamic):
            others = [Ops([vm.LOAD, r]) for r, s in dynamic[:i] if s == slot] + [Ops([vm.PUSH, off]) for off, s in static.items() if s == slot]
            for other in others:
                out.extend(self._differ(offset_reg, other))
        self.registers = max(self.registers, reg)
        out.append(vm.BEGIN)
        for write in writes:
            out.extend(write)
        out.extend([vm.MOVE, instance.id])
        out.extend(subroutines)
        return out

    @staticmethod
    def _differ(reg: int, other: Ops) -> list:
        ok = Label()
        out: list = [vm.LOAD, reg, *other, vm.NE, vm.JUMP_UNLESS_ZERO, ok, vm.FAIL]
        out.append(Mark(ok))
        return out

    def _value(self, value: Value, elem) -> list:
        """The encoded value a write stores: 0/1, a member number, or an integer minus the
        slot's least value after checking it is in range."""
        kind = elem.type.kind
        if kind == "bool":
            return [vm.PUSH, 1 if value.value else 0] if isinstance(value, Const) else [*value, vm.TRUTH]  # 0 or 1 already: made sure of where it is stored
        if kind == "enum":
            return self.asm.ops(value)
        if isinstance(value, Const):
            if not elem.lo <= value.value <= elem.hi:
                return [vm.FAIL, vm.PUSH, 0]
            return [vm.PUSH, value.value - elem.lo]
        out = [*value, vm.IN_RANGE, elem.lo, elem.hi]
        if elem.lo:
            out.extend([vm.PUSH, elem.lo, vm.SUB])
        return out

    def _write_list(self, action, env: dict) -> list[tuple[Value, Value, str, Any, bool]]:
        """(bit offset, value, slot, element type, whether the offset and value were listed
        before) of every element the action writes, in the compiler's order
        (`CompiledModel._writes`); assembled inside the action's unit (`Assembler.shared_all`)."""
        asm = self.asm
        layout = self.source.layout
        out = []
        for assign in action.assigns:
            slot = self.source.model.slots[assign.slot]
            sl = layout.slots[assign.slot]
            names = [n for n, _ in assign.bound]
            for combo in itertools.product(*(d.values() for _, d in assign.bound)):
                inner = {**env, **{n: (d.code(v) if d.is_enum else v) for n, (_, d), v in zip(names, assign.bound, combo)}}
                value = asm.expr(assign.value, inner)
                prefix = SlotRef(slot.elem.type, name=slot.name, indices=assign.indices)
                element = asm.element_number(prefix, slot.dims[: len(assign.indices)], inner, 0) if assign.indices else Const(0)
                rest_count = math.prod(d.size for d in slot.dims[len(assign.indices):])
                for rest in range(rest_count):
                    number = asm.arith("+", asm.arith("*", element, Const(rest_count)), Const(rest))
                    offset = asm.arith("+", Const(sl.base), asm.arith("*", number, Const(sl.width)))
                    out.append((offset, value, assign.slot, slot.elem, rest > 0))
        return out


# -- the stack's depth -------------------------------------------------------------------------
# A PUSH, a comparison and a guard's JUMP_IF_ZERO after it run as one: the comparison with the constant, jumping when false.
_TEST_JUMPS = {vm.EQ: vm.EQ_C_JUMP, vm.NE: vm.NE_C_JUMP, vm.LT: vm.LT_C_JUMP, vm.LE: vm.LE_C_JUMP, vm.GT: vm.GT_C_JUMP, vm.GE: vm.GE_C_JUMP}
_TEST_JUMP_OPS = frozenset(_TEST_JUMPS.values())
# (pops, pushes, operands) of each operation; DISPATCH's operands depend on its count.
_EFFECT = {
    vm.PUSH: (0, 1, 1), vm.FIELD: (0, 1, 4), vm.FIELD2: (0, 1, 4), vm.FIELDX: (1, 1, 4), vm.READING: (0, 1, 1),
    vm.TABLE: (1, 1, 1), vm.INDEX: (1, 1, 2), vm.NEG: (1, 1, 0), vm.ABS: (1, 1, 0), vm.NOT: (1, 1, 0), vm.TRUTH: (1, 1, 0),
    vm.JUMP: (0, 0, 1), vm.JUMP_IF_ZERO: (1, 0, 1), vm.JUMP_UNLESS_ZERO: (1, 0, 1), vm.FAIL: (0, 0, 0),
    vm.NOT_SKIP: (1, 1, 0), vm.STORE: (1, 0, 1), vm.LOAD: (0, 1, 1), vm.IN_RANGE: (1, 1, 2), vm.BEGIN: (0, 0, 0),
    vm.WRITE: (0, 0, 3), vm.MOVE: (0, 0, 1), vm.FORCED_DONE: (0, 0, 0), vm.DECIDE: (1, 0, 2), vm.KEEP: (1, 1, 3), vm.UNIT: (0, 0, 1),
    **{op: (2, 1, 0) for op in (vm.ADD, vm.SUB, vm.MUL, vm.DIV, vm.MOD, vm.EQ, vm.NE, vm.LT, vm.LE, vm.GT, vm.GE, vm.MIN, vm.MAX, vm.MIN_SKIPPING, vm.MAX_SKIPPING)},
    vm.SET: (0, 0, 2), **{op: (1, 1, 1) for op in (vm.ADD_C, vm.SUB_C, vm.MUL_C, vm.EQ_C, vm.NE_C, vm.LT_C, vm.LE_C, vm.GT_C, vm.GE_C)},
    vm.FIELD_EQ_C: (0, 1, 5), vm.FIELD_NE_C: (0, 1, 5), vm.FIELD_EQ_JUMP: (0, 0, 6), vm.FIELD_JUMP: (0, 0, 5), vm.WRITE_AT: (0, 0, 3), vm.WRITE_K: (0, 0, 3),
    **{op: (1, 0, 2) for op in _TEST_JUMP_OPS},
}
# The operands of every operation the assembler emits (DISPATCH's: 4 + 2 x its count).
_OPERANDS = {op: operands for op, (_, _, operands) in _EFFECT.items()} | {vm.RETURN: 0, vm.KEEP_RETURN: 3, vm.CALL: 4, vm.OPEN: 2, vm.AND_ELSE: 1, vm.OR_ELSE: 1, vm.FIELD_EQ_AND: 6, vm.FIELD_AND: 5}
# The operations that neither jump nor end a path: (pops, change of depth, width).
_PLAIN = {op: (pops, pushes - pops, 1 + operands) for op, (pops, pushes, operands) in _EFFECT.items()
          if op not in (vm.JUMP, vm.JUMP_IF_ZERO, vm.JUMP_UNLESS_ZERO, vm.FIELD_EQ_JUMP, vm.FIELD_JUMP, vm.FAIL, *_TEST_JUMP_OPS)}
# A PUSH followed by one of these runs as the superinstruction: the operation with the pushed constant.
_WITH_CONSTANT = {vm.ADD: vm.ADD_C, vm.SUB: vm.SUB_C, vm.MUL: vm.MUL_C, vm.EQ: vm.EQ_C, vm.NE: vm.NE_C, vm.LT: vm.LT_C, vm.LE: vm.LE_C, vm.GT: vm.GT_C, vm.GE: vm.GE_C}


def stack_depth(code: list[int], entries: list[int]) -> int:
    """The deepest the stack gets from any entry point, following every jump and call; and a
    check of the assembler: every path reaches each instruction at one depth, never pops an
    empty stack, returns with at most one value, and a subroutine returns with its value above
    the return address (`vm.run` has no bounds checks: the stack is allocated from this)."""
    subroutines: dict[int, int] = {}
    return max((_deepest(code, entry, 0, subroutines) for entry in entries), default=0)


def _deepest(code: list[int], entry: int, start: int, subroutines: dict[int, int]) -> int:
    """The deepest the stack gets from `entry` entered at depth `start`: 0 for an entry point,
    1 for a subroutine (its return address), whose own depths `subroutines` keeps."""
    deepest = start
    depth_at: dict[int, int] = {}
    work = [(entry, start)]
    while work:
        pc, depth = work.pop()
        while True:
            if pc in depth_at:
                assert depth_at[pc] == depth, f"instruction {pc} reached at depths {depth_at[pc]} and {depth}"
                break
            depth_at[pc] = depth
            op = code[pc]
            plain = _PLAIN.get(op)
            if plain is not None:  # most instructions: no jump
                pops, change, width = plain
                assert depth >= pops, f"instruction {pc} pops an empty stack"
                depth += change
                if depth > deepest:
                    deepest = depth
                pc += width
                continue
            if op == vm.RETURN:
                assert start == 0 and depth <= 1, f"return at depth {depth}"
                break
            if op == vm.KEEP_RETURN:
                assert start == 1 and depth == 2, f"a subroutine returns at depth {depth}"
                break
            if op == vm.FIELD_SUM:
                depth += 1
                deepest = max(deepest, depth)
                pc += 2 + 4 * code[pc + 1]
                continue
            if op == vm.DISPATCH:
                count = code[pc + 3]
                work.extend((code[pc + 5 + 2 * k], depth) for k in range(count))
                work.append((code[pc + 4 + 2 * count], depth))
                break
            if op == vm.OPEN:
                work.append((code[pc + 2], depth))
                pc += 3
                continue
            if op == vm.CALL:
                target = code[pc + 4]
                if target not in subroutines:
                    subroutines[target] = _deepest(code, target, 1, subroutines)
                deepest = max(deepest, depth + subroutines[target])
                depth += 1
                pc += 5
                continue
            if op in (vm.AND_ELSE, vm.OR_ELSE):
                assert depth >= 1
                work.append((code[pc + 1], depth))
                depth -= 1
                pc += 2
                continue
            if op in (vm.FIELD_EQ_AND, vm.FIELD_AND):  # pushes 0 where it jumps, nothing where it goes on
                width = _OPERANDS[op]
                deepest = max(deepest, depth + 1)
                work.append((code[pc + width], depth + 1))
                pc += 1 + width
                continue
            pops, pushes, operands = _EFFECT[op]
            assert depth >= pops, f"instruction {pc} pops an empty stack"
            depth += pushes - pops
            deepest = max(deepest, depth)
            if op == vm.JUMP:
                pc = code[pc + 1]
                continue
            if op in (vm.JUMP_IF_ZERO, vm.JUMP_UNLESS_ZERO):
                work.append((code[pc + 1], depth))
            if op in (vm.FIELD_EQ_JUMP, vm.FIELD_JUMP) or op in _TEST_JUMP_OPS:
                work.append((code[pc + operands], depth))
            if op == vm.FAIL:
                break
            pc += 1 + operands
    return deepest
