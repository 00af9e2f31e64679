"""Repeated subexpressions of one assembled expression, computed once.

Definitions are inlined at every use and quantifiers unrolled, so one expression can hold the
same subexpression many times: Ultimate's `beats(s1, v1, s2, v2)` reads each card value four
times, each value (`ev`) a few dozen instructions, inside aggregates over every card and
player, which made its three-player model 1.4 million instructions. As the Python emitter's
`cse.py` does for generated code, a subexpression that cannot stop the run with a modelling
error, met again in one expression for the same node and the same values of the variables it
reads, is computed once at the start of the expression into a register and loaded where it
occurs. Computing it where a short-circuit would have skipped it changes no value and no error:
it has no effects and cannot fail.

The first occurrence of a subexpression goes into its parent's instructions as one item (its
`Shared` record), every later one as an `Again`: when the expression is finished, a shared
record becomes a load of its register and the record's instructions its definition (placed
first, `Unit.definitions`), an unshared one its instructions in place (`Unit.expand`). The values
an action writes are one such unit: all of them are computed, in one state, before any is
written.
"""

from __future__ import annotations

from dataclasses import dataclass

from checker.engines.native import vm
from checker.lang.expr import Agg, Expr, Var, children

MIN_SIZE = 6  # smaller subexpressions (a constant field read) cost less to repeat than to store and load


@dataclass(frozen=True)
class Reg:
    """A shared value's register, numbered within its expression; `Program.bytecode` places
    these after the registers the writes use."""

    number: int


class Shared:
    """A subexpression's instructions, standing in one item for its first occurrence."""

    __slots__ = ("ops", "size", "order", "register")

    def __init__(self, ops: list, size: int, order: int) -> None:
        self.ops = ops
        self.size = size
        self.order = order  # when it was met first: after every subexpression inside it
        self.register: Reg | None = None


@dataclass(frozen=True, eq=False)
class Again:
    """A later occurrence of a shared subexpression."""

    shared: Shared


class FreeNames:
    """The variables each node reads that a node above binds (action parameters and aggregate
    variables), sorted: what, with the node, determines its instructions."""

    def __init__(self) -> None:
        self._of: dict[int, tuple[str, ...]] = {}

    def __call__(self, expr: Expr) -> tuple[str, ...]:
        found = self._of.get(id(expr))
        if found is None:
            found = self._of[id(expr)] = self._compute(expr)
        return found

    def _compute(self, expr: Expr) -> tuple[str, ...]:
        if isinstance(expr, Var):
            return (expr.name,)
        names: set[str] = set()
        for child in children(expr):
            names.update(self(child))
        if isinstance(expr, Agg):
            names.difference_update(name for name, _ in expr.bound)
        return tuple(sorted(names))


class Unit:
    """One expression being assembled: each subexpression met so far, by node, state row and
    the values of its free variables."""

    def __init__(self) -> None:
        self.met: dict[tuple, Shared] = {}
        self.used: list[Shared] = []  # the ones met again

    def first(self, key: tuple, ops: list, size: int) -> list:
        self.met[key] = shared = Shared(ops, size, len(self.met))
        return [shared]

    def again(self, shared: Shared) -> list:
        if shared.register is None:
            shared.register = Reg(len(self.used))
            self.used.append(shared)
        return [Again(shared)]

    def definitions(self) -> list:
        """Each shared value's definition, in the order they were first met (a subexpression
        before the ones around it, so a definition loads only registers already set)."""
        out: list = []
        for shared in sorted(self.used, key=lambda shared: shared.order):
            _expand(shared.ops, out)
            out.extend([vm.STORE, shared.register])
        return out

    @staticmethod
    def expand(ops: list) -> list:
        """An expression's instructions, once the definitions are placed before it."""
        out: list = []
        _expand(ops, out)
        return out


def _expand(ops: list, out: list) -> None:
    stack = [iter(ops)]
    while stack:
        for item in stack[-1]:
            if isinstance(item, Shared):
                if item.register is not None:
                    out.extend([vm.LOAD, item.register])
                else:
                    stack.append(iter(item.ops))
                    break
            elif isinstance(item, Again):
                out.extend([vm.LOAD, item.shared.register])
            else:
                out.append(item)
        else:
            stack.pop()

