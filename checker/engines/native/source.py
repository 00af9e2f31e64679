"""What a model configuration's program is assembled from: its instances, dispatch and properties.

The bytecode interpreter runs one program per model and constants (`vm_code.py`), whatever the
readings: readings are a run-time input (`rd`), so the program holds every reading's instances
and tests `only` at run time. `NativeSource` gives the assembler the Python compiler's instance
list and guard dispatch (`checker.lang.compile`), so the program tests guards in the Python
engine's structure, with `NativeEmitter` folding constants as the compiler does and never a
reading. A state is a row of 64-bit words (the Python engine's packed integer cut into words).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from checker.lang.compile import Code, CompiledModel, Emitter, Instance, _lit
from checker.lang.expr import Agg, Binary, Expr, ReadingRef, Require, SlotRef
from checker.lang.layout import Layout
from checker.lang.model import Config, Model
from checker.lang.properties import BoundProperty

WORD = 64
STATE_KINDS = {"invariant": 0, "unreachable": 1, "reachable": 1}  # the predicate value that decides
# The helpers of emitted code that can raise a modelling error (`cannot_raise`).
RAISING = ("_req(", "_div(", "_mod(", "_ix(", "_pmin(", "_pmax(", "_empty(")
SKIP_TEXT = str(-(1 << 62))


def words_for(bits: int) -> int:
    return max(1, (bits + WORD - 1) // WORD)


def signed(value: int) -> int:
    """A 64-bit pattern as the signed literal numba's int64 holds."""
    value &= (1 << WORD) - 1
    return value - (1 << WORD) if value >> (WORD - 1) else value


def cannot_raise(code: Code) -> bool:
    """Whether evaluating this code can raise a modelling error (a conservative test)."""
    return code.const or not any(name in code.text for name in RAISING)


def word_read(state: str, offset: int, mask: int) -> str:
    """The field at a constant bit offset: one word, or the two it straddles."""
    w, o = divmod(offset, WORD)
    width = mask.bit_length()
    if o + width <= WORD:
        return f"({state}[{w}] & {signed(mask)})" if o == 0 else f"(({state}[{w}] >> {o}) & {mask})"
    low = WORD - o
    return f"((({state}[{w}] >> {o}) & {(1 << low) - 1}) | (({state}[{w + 1}] << {low}) & {mask}))"


# `_ix(<field read>, 0, <size>, '<name>')`: the read as `((s[w] >> o) & mask)`, `(s[w] & mask)`
# or a cached `s_<offset>` (groups 2, 3, 4: its mask, or the offset whose mask the layout gives).
_IX_OF_READ = re.compile(r"_ix\((\(\(s\[\d+\] >> \d+\) & (\d+)\)|\(s\[\d+\] & (\d+)\)|s_(\d+)), 0, (\d+), '[^']*'\)")


class NativeEmitter(Emitter):
    """The compiler's emitter, reading fields from a row of words instead of one integer, and
    readings from the run-time input `rd` (option numbers), so nothing a reading decides is
    folded: one program serves every reading combination of a model. The dispatch reads only
    what it folds to a constant; the texts keep the shapes the folding depends on."""

    reading_index: dict[str, int] = {}
    memo: dict[tuple, tuple[Expr, Code]] = {}

    def emit(self, expr: Expr, env: dict, state: str = "s") -> Code:
        """The compiler's `emit`, remembered per expression, environment and state: `and`/`or`
        and quantifiers emit their operands once to see whether they can raise and again when
        they can, so without it nested ones cost time exponential in their depth (a property
        of Ultimate took 43 CPU s to emit). Cleared when the cached fields change."""
        key = (id(expr), state, tuple(sorted(env.items())))  # the entry keeps `expr` alive, so its id stays its own
        if key not in self.memo:
            self.memo[key] = (expr, super().emit(expr, env, state))
        return self.memo[key][1]

    def element_number(self, expr, dims: tuple, env: dict, state: str) -> Code:
        """The compiler's element number, without the domain check of an index that is a field
        read whose mask keeps it inside the domain (a slot indexing a table over its own
        type): that check cannot fail, and it would keep the index from being shared (`cse`)."""
        code = super().element_number(expr, dims, env, state)
        if "_ix(" not in code.text:
            return code
        masks = {f.offset: f.mask for f in self.layout.fields}

        def unchecked(match: re.Match) -> str:
            read, size = match.group(1), int(match.group(5))
            mask = int(match.group(2) or match.group(3) or masks.get(int(match.group(4) or -1), size))
            return read if mask < size else match.group(0)

        return Code(_IX_OF_READ.sub(unchecked, code.text))

    def emit_ReadingRef(self, expr: ReadingRef, env: dict, state: str) -> Code:
        return Code(f"rd[{self.reading_index[expr.name]}]")

    def read(self, state: str, offset: int, mask: int) -> str:
        key = (state, offset)
        self.reads[key] += 1
        if key in self.cached:
            return f"{state}_{offset}"
        return word_read(state, offset, mask)

    def emit_SlotRef(self, expr: SlotRef, env: dict, state: str) -> Code:
        slot_layout = self.layout.slots[expr.name]
        element = self.element_number(expr, self.model.slots[expr.name].dims, env, state)
        mask = (1 << slot_layout.width) - 1
        if element.const:
            raw = self.read(state, slot_layout.base + element.value * slot_layout.width, mask)
        else:
            raw = f"_rd({state}, {slot_layout.base} + ({element.text}) * {slot_layout.width}, {mask})"
        lo = self.model.slots[expr.name].elem.lo or 0
        return Code(f"({raw} + {lo})") if lo else Code(raw)

    def emit_Require(self, expr: Require, env: dict, state: str) -> Code:
        """A call, not the Python emitter's conditional: numba needs both branches typed alike.
        The value is evaluated before the test fails; either error is an error, as in the
        interpreter."""
        test = self.emit(expr.test, env, state)
        if test.const and test.value:
            return self.emit(expr.value, env, state)
        value = self.emit(expr.value, env, state)
        return Code(f"_req({test.text}, {value.text}, {expr.message!r})")

    def emit_Binary(self, expr: Binary, env: dict, state: str) -> Code:
        """`and`/`or` of operands that cannot raise become `&`/`|`: no branches, so the
        compiled functions stay small (and fast to compile); short-circuiting is only needed
        where skipping an operand can skip an error."""
        if expr.op not in ("and", "or"):
            return super().emit_Binary(expr, env, state)
        left = self.emit(expr.left, env, state)
        right = self.emit(expr.right, env, state)
        if left.const or not (cannot_raise(left) and cannot_raise(right)):
            return super().emit_Binary(expr, env, state)
        if right.const:
            if expr.op == "and":
                return Code(f"bool({left.text})") if right.value else _lit(False)
            return _lit(True) if right.value else Code(f"bool({left.text})")
        return Code(f"({left.text} {'&' if expr.op == 'and' else '|'} {right.text})")

    def emit_Agg(self, expr: Agg, env: dict, state: str) -> Code:
        if expr.op in ("any", "all"):
            return self.emit_quantifier(expr, env, state)
        if expr.op not in ("min", "max"):
            return super().emit_Agg(expr, env, state)
        names = [n for n, _ in expr.bound]
        terms: list[tuple[Code, Code]] = []
        import itertools

        for combo in itertools.product(*(d.values() for _, d in expr.bound)):
            inner = {**env, **{n: (d.code(v) if d.is_enum else v) for n, (_, d), v in zip(names, expr.bound, combo)}}
            where = self.emit(expr.where, inner, state) if expr.where is not None else _lit(True)
            if where.const and not where.value:
                continue
            terms.append((where, self.emit(expr.body, inner, state)))
        if not terms:
            return Code(f"_empty({expr.op!r})")
        if all(w.const for w, _ in terms):
            if all(b.const for _, b in terms):
                return _lit((min if expr.op == "min" else max)(b.value for _, b in terms))
            return Code(f"{expr.op}({', '.join(b.text for _, b in terms)})" if len(terms) > 1 else terms[0][1].text)
        items = ", ".join(b.text if w.const else f"({b.text} if {w.text} else {SKIP_TEXT})" for w, b in terms)
        return Code(f"_p{expr.op}(({items},))")


    def emit_quantifier(self, expr: Agg, env: dict, state: str) -> Code:
        """any/all as the Python compiler writes them, with `|`/`&` where nothing can raise."""
        import itertools

        code = super().emit_Agg(expr, env, state)
        if code.const or not cannot_raise(code):
            return code
        names = [n for n, _ in expr.bound]
        pieces: list[str] = []
        for combo in itertools.product(*(d.values() for _, d in expr.bound)):
            inner = {**env, **{n: (d.code(v) if d.is_enum else v) for n, (_, d), v in zip(names, expr.bound, combo)}}
            where = self.emit(expr.where, inner, state) if expr.where is not None else _lit(True)
            if where.const and not where.value:
                continue
            body = self.emit(expr.body, inner, state)
            if where.const:
                piece = body
            elif expr.op == "any":
                piece = Code(f"({where.text} & {body.text})")
            else:
                piece = Code(f"((not {where.text}) | {body.text})")
            if not piece.const:
                pieces.append(piece.text)
        return Code(f"({(' | ' if expr.op == 'any' else ' & ').join(pieces)})") if len(pieces) > 1 else code


@dataclass
class StateProp:
    prop: BoundProperty
    slot: int  # index into the status arrays
    deciding: bool  # the predicate value that decides it


class NativeSource(CompiledModel):
    """What one model configuration's program is assembled from (`vm_code.Program`): every
    action's instances whatever the readings, the Python compiler's guard dispatch over them
    (`dispatch_split`, `block_order`), the properties the program decides, and the number of
    words a state takes.

    It is a `CompiledModel` for the Python compiler's instance list and dispatch, with the
    emitter below (readings a run-time input), so one program serves every reading combination
    of a model and constants."""

    remembers_code = False  # one program serves every reading combination: nothing to reuse

    def __init__(self, model: Model, config: Config, compiled: CompiledModel, props: list[BoundProperty]) -> None:
        self.model = model
        self.config = config
        self.layout: Layout = compiled.layout
        self.interpreter = compiled.interpreter
        self.reading_names = sorted(model.readings)
        self.instances = self._all_instances()
        python_ids = {(inst.action.name, inst.params): inst.id for inst in compiled.instances}
        self.python_ids = [python_ids.get((inst.action.name, inst.params), -1) for inst in self.instances]
        self.words = words_for(self.layout.bits)
        self.props = props
        self.state_props = [StateProp(p, k, STATE_KINDS[p.kind] == 1) for k, p in enumerate(q for q in props if q.kind in STATE_KINDS)]
        self.after_props = [p for p in props if p.kind == "after"]
        self.leads = [p for p in props if p.kind == "leads-to"]

    def _all_instances(self) -> list[Instance]:
        """Every action's instances, whatever the readings (`only` becomes a run-time test), in
        the Python compiler's order: forced rules first, then the model's order."""
        actions = list(self.model.actions.values())
        ordered = [a for a in actions if a.by == "rules"] + [a for a in actions if a.by != "rules"]
        out: list[Instance] = []
        for action in ordered:
            for params in action.param_bindings():
                out.append(Instance(len(out), action, tuple(params.items())))
        return out

    def reading_values(self, config: Config) -> list[int]:
        """The run-time input `rd` for a configuration: each reading's option number."""
        return [self.model.scope.readings[name].members.index(config.readings[name]) for name in self.reading_names] or [0]

    def emitter(self) -> NativeEmitter:
        emitter = NativeEmitter(self.model, self.config, self.layout)
        emitter.reading_index = {name: k for k, name in enumerate(self.reading_names)}
        emitter.memo = {}
        return emitter
