"""Repeated subexpressions of one assembled expression, computed once per evaluation.

Definitions are inlined at every use and quantifiers unrolled, so one expression can hold the
same subexpression many times: Ultimate's `beats(s1, v1, s2, v2)` reads each card value four
times, each value (`ev`) a few dozen instructions, inside aggregates over every card and
player, which made its three-player program 1.4 million instructions. A subexpression met
again in one expression for the same node and the same values of the variables it reads is
the same value there (one state, no effects), so it is kept in a register where it is first
computed (`KEEP`) and:

- loaded (`LOAD`) where it was computed on every path to this occurrence (an earlier operand
  that always runs: the left of `+`, the first of an `and`, a test before its branches);
- elsewhere loaded when this evaluation computed it already (`CALL`: its stamp is the unit's
  current stamp, which `UNIT` renews at the start of every evaluation), else computed by a
  subroutine of the unit (placed once after it, ending in `KEEP_RETURN`).

Nothing is computed where the Python engine would not compute it, so an error (an index outside
its domain, a division by zero) is met exactly where it would be, and no evaluation runs more
instructions than without sharing but for the `KEEP`s, `CALL`s and returns.

The first occurrence of a subexpression goes into its parent's instructions as one item (its
`Shared` record), every later one as an `Again`; when the unit is finished (`Unit.expand`) a
record becomes its instructions, with a `KEEP` when it is met again. The values an action writes
are one unit: all of them are computed, in one state, before any is written.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from checker.engines.native import vm
from checker.lang.expr import Agg, Expr, Var, children

MIN_SIZE = 6  # smaller subexpressions (a constant field read) cost less to repeat than to keep


class Label:
    """A jump target, named by identity."""


class Entry(Label):
    """A subroutine's first instruction: one place per unit, which copies of the code that
    calls it keep (`vm_code._fresh`)."""


@dataclass(frozen=True)
class Mark:
    """Where a label is: the address of the next instruction."""

    label: Label


@dataclass(frozen=True)
class Reg:
    """A shared value's register (or its stamp's), numbered within its unit; `Program.bytecode`
    places them after the registers the writes use (`register_at`)."""

    number: int
    stamp: bool = False


COUNTER = Reg(-1)  # the current evaluation's stamp


def register_at(reg: Reg, base: int) -> int:
    """The register number: the counter at `base`, then each value followed by its stamp."""
    return base if reg.number < 0 else base + 1 + 2 * reg.number + int(reg.stamp)


def registers_needed(shared: int) -> int:
    return 1 + 2 * shared if shared else 0


class Shared:
    """A subexpression's instructions, standing in one item for its first occurrence."""

    __slots__ = ("ops", "size", "register")

    def __init__(self, ops: list, size: int) -> None:
        self.ops = ops
        self.size = size
        self.register: Reg | None = None


@dataclass(frozen=True, eq=False)
class Again:
    """A later occurrence of a shared subexpression: computed on every path to it (`load`), or
    not."""

    shared: Shared
    load: bool


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
    """One unit being assembled: each subexpression met so far (by node, state row and the
    values of its free variables), and the ones computed on every path to the point being
    assembled (instructions are assembled in the order they run)."""

    def __init__(self) -> None:
        self.met: dict[tuple, Shared] = {}
        self.used = 0  # subexpressions met again (each has a register)
        self.available: set[int] = set()
        self.cached = False  # some occurrence asks whether this evaluation computed its value
        self._entries: dict[int, Entry] = {}  # id of a shared record -> its subroutine's entry
        self._pending: list[Shared] = []  # records whose subroutine is called and not yet placed

    def first(self, key: tuple, ops: list, size: int) -> list:
        self.met[key] = shared = Shared(ops, size)
        self.available.add(id(shared))
        return [shared]

    def again(self, shared: Shared) -> list:
        if shared.register is None:
            shared.register = Reg(self.used)
            self.used += 1
        load = id(shared) in self.available
        self.cached = self.cached or not load
        self.available.add(id(shared))
        return [Again(shared, load)]

    @contextmanager
    def conditional(self) -> Iterator[None]:
        """Instructions that run only on some paths: what they compute is not available after."""
        before = set(self.available)
        try:
            yield
        finally:
            self.available = before

    def start(self) -> list:
        """What the unit's first instructions are: a new stamp, when some occurrence asks."""
        return [vm.UNIT, COUNTER] if self.cached else []

    def expand(self, ops: list) -> list:
        """An expression's instructions."""
        out: list = []
        self._place(ops, out, None)
        return out

    def subroutines(self) -> list:
        """The subroutines the unit's instructions call, to place after them (jumped over)."""
        if not self._pending:
            return []
        after = Label()
        out: list = [vm.JUMP, after]
        while self._pending:
            shared = self._pending.pop()
            reg = shared.register
            assert reg is not None
            out.append(Mark(self._entries[id(shared)]))
            self._place(shared.ops, out, {})
            out.extend([vm.KEEP_RETURN, reg, Reg(reg.number, True), COUNTER])
        out.append(Mark(after))
        return out

    def _call(self, shared: Shared) -> list:
        entry = self._entries.get(id(shared))
        if entry is None:
            entry = self._entries[id(shared)] = Entry()
            self._pending.append(shared)
        reg = shared.register
        assert reg is not None
        return [vm.CALL, reg, Reg(reg.number, True), COUNTER, entry]

    def _place(self, ops: list, out: list, rename: dict[int, Label] | None) -> None:
        """`ops` with their records expanded into `out`; with `rename`, as a subroutine's body
        (called where the earlier occurrences may not have run: labels of its own, every later
        occurrence called)."""
        stack: list[tuple[Iterator, list]] = [(iter(ops), [])]
        while stack:
            items, after = stack[-1]
            for item in items:
                if type(item) is int:  # most items: an operation or an operand
                    out.append(item)
                    continue
                if isinstance(item, Shared):
                    reg = item.register
                    stack.append((iter(item.ops), [] if reg is None else [vm.KEEP, reg, Reg(reg.number, True), COUNTER]))
                    break
                if isinstance(item, Again):
                    if item.load and rename is None:
                        out.extend([vm.LOAD, item.shared.register])
                    else:
                        out.extend(self._call(item.shared))
                elif rename is not None and type(item) is Label:
                    out.append(rename.setdefault(id(item), Label()))
                elif rename is not None and isinstance(item, Mark):
                    out.append(Mark(rename.setdefault(id(item.label), Label())))
                else:
                    out.append(item)
            else:
                stack.pop()
                out.extend(after)
