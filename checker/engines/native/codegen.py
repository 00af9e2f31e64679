"""Generating one compiled module per model configuration: successors, fused property checks
and the exploration loop, as numba source.

The code is generated from the same IR, by the same emitter, as the Python engine's
(`checker.lang.compile`): guards, dispatch on leading field tests, folding of constants and
readings, unrolled parameters and aggregates. Only the representation of a state differs: here
it is a row of 64-bit words (the Python engine's packed integer cut into words, so converting
between the two is a shift), and fields are read and written per word. Everything that decides a
property at a state (invariants, reachability, unreachability, the `after` checks) is fused into
two functions, so a state costs one call rather than one call per property. A large model's
successor function and checks are split into functions of at most `CHUNK_CHARS` of source each,
called in the same order: numba's compile time grows faster than a function's size.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from dataclasses import dataclass

from checker.engines.native.cse import RAISING as RAISING_NAMES
from checker.engines.native.cse import affine, reads_back, reads_field, shared, shared_by
from checker.lang.compile import Code, CompiledModel, Emitter, Instance, _lit
from checker.lang.expr import Agg, Binary, Expr, ReadingRef, Require, SlotRef
from checker.lang.layout import Layout
from checker.lang.model import Config, Model
from checker.lang.properties import BoundProperty

WORD = 64
# The most generated source (characters) one compiled function holds: the successor function and
# the fused property checks of a larger model are split into functions of about this size.
CHUNK_CHARS = 8_000
# The decorator of every generated function the loop calls per state or per move: `runtime`'s,
# without numba's reference counting (its docstring says why).
HELPER = "@per_state"
STATE_KINDS = {"invariant": 0, "unreachable": 1, "reachable": 1}  # the predicate value that decides


def words_for(bits: int) -> int:
    return max(1, (bits + WORD - 1) // WORD)


def signed(value: int) -> int:
    """A 64-bit pattern as the signed literal numba's int64 holds."""
    value &= (1 << WORD) - 1
    return value - (1 << WORD) if value >> (WORD - 1) else value


# `_ix(<field read>, 0, <size>, '<name>')`: the read as `((s[w] >> o) & mask)`, `(s[w] & mask)`
# or a cached `s_<offset>` (groups 2, 3, 4: its mask, or the offset whose mask the layout gives).
_IX_OF_READ = re.compile(r"_ix\((\(\(s\[\d+\] >> \d+\) & (\d+)\)|\(s\[\d+\] & (\d+)\)|s_(\d+)), 0, (\d+), '[^']*'\)")



class NativeEmitter(Emitter):
    """The compiler's emitter, reading fields from a row of words instead of one integer, and
    readings from the run-time input `rd` (option numbers), so one module serves every reading
    combination of a model."""

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
class _Switch:
    """A test of one dispatch field against constants (`CompiledModel._dispatch`): the field's
    read and, per value, the statements under it."""

    read: str
    branches: list[tuple[int, list[list[str] | _Switch]]]


def _render(statements: list[list[str] | _Switch], depth: int) -> list[str]:
    """Statements as lines, unindented (an instance's block as it is; a switch as
    `_dispatch` writes it, testing `d<depth>`)."""
    lines: list[str] = []
    for statement in statements:
        if not isinstance(statement, _Switch):
            lines.extend(statement)
            continue
        lines.append(f"d{depth} = {statement.read}")
        for n, (value, branch) in enumerate(statement.branches):
            lines.append(f"{'if' if n == 0 else 'elif'} d{depth} == {value}:")
            lines.extend(f"    {line}" for line in _render(branch, depth + 1) or ["pass"])
    return lines


def _sequence(groups: list[list[str]]) -> list[str]:
    """Groups of statements one after the other."""
    return [line for group in groups for line in group]


def _chain(groups: list[list[str]]) -> list[str]:
    """Groups that each open with an `if`, as one `if`/`elif` chain."""
    return [f"el{line}" if k and i == 0 else line for k, group in enumerate(groups) for i, line in enumerate(group)]


def _chunked(groups: list[list[str]], prefix: str, args: str, chunks: list[str], join: Callable[[list[list[str]]], list[str]]) -> list[list[list[str]]]:
    """Consecutive groups of lines packed into functions `<prefix><n>(args)` of at most
    `CHUNK_CHARS` of source each (a larger group alone), joined by `join`, appended to
    `chunks`; the runs packed."""
    runs: list[list[list[str]]] = []
    size = CHUNK_CHARS + 1
    for group in groups:
        chars = len("\n".join(group))
        if size + chars > CHUNK_CHARS:
            runs.append([])
            size = 0
        runs[-1].append(group)
        size += chars
    for n, run in enumerate(runs):
        body = join(run)
        chunks.append("\n".join([HELPER, f"def {prefix}{n}({args}):", *(f"    {line}" for line in body), "    return 0"]))
    return runs


_TEST = re.compile(r"^(\s*(?:el)?if )(.*):$")


def _shared_tests(body: list[str], prefix: str) -> tuple[list[str], list[str]]:
    """The `if` tests of a function's lines (the instances' guards) with the subexpressions
    they repeat computed once, first (`cse.shared_by`): an action with many instances repeats
    the same derived value in each guard (Show'n'Go's `need` in each of `draw_two`'s 100
    instances). (The assignments, the lines.)"""
    tests = [(k, match) for k, line in enumerate(body) if (match := _TEST.match(line))]
    temps, texts = shared_by([match.group(2) for _, match in tests], prefix)
    if not temps:
        return [], body
    out = list(body)
    for (k, match), text in zip(tests, texts):
        out[k] = f"{match.group(1)}{text}:"
    return temps, out


RAISING = ("_req(", "_div(", "_mod(", "_ix(", "_pmin(", "_pmax(", "_empty(")


def cannot_raise(code: Code) -> bool:
    """Whether evaluating this code can raise a modelling error (a conservative test)."""
    return code.const or not any(name in code.text for name in RAISING)


SKIP_TEXT = str(-(1 << 62))


def word_read(state: str, offset: int, mask: int) -> str:
    """The field at a constant bit offset: one word, or the two it straddles."""
    w, o = divmod(offset, WORD)
    width = mask.bit_length()
    if o + width <= WORD:
        return f"({state}[{w}] & {signed(mask)})" if o == 0 else f"(({state}[{w}] >> {o}) & {mask})"
    low = WORD - o
    return f"((({state}[{w}] >> {o}) & {(1 << low) - 1}) | (({state}[{w + 1}] << {low}) & {mask}))"


@dataclass
class StateProp:
    prop: BoundProperty
    slot: int  # index into the status arrays
    deciding: bool  # the predicate value that decides it


class NativeSource(CompiledModel):
    """The generated module's source for one model configuration.

    It reuses the Python compiler's instance list and guard dispatch (`_dispatch`,
    `_plain_block`), replacing only the effect blocks, which write words of `out[n]`."""

    remembers_code = False  # one module serves every reading combination: nothing to reuse

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

    def _plain_block(self, emitter: Emitter, item, pad: str) -> list[str]:
        """The Python compiler's block, run only under the readings the action exists in."""
        lines = super()._plain_block(emitter, item, pad)
        only = item.instance.action.only
        if not only or not lines:
            return lines
        domains = self.model.scope.readings
        tests = []
        for name, options in only.items():
            k = self.reading_names.index(name)
            tests.append("(" + " or ".join(f"rd[{k}] == {domains[name].members.index(o)}" for o in options) + ")")
        return [f"{pad}if {' and '.join(tests)}:"] + [f"    {line}" for line in lines]

    # -- the module -----------------------------------------------------------------------------
    def module_source(self) -> str:
        parts = [
            HEADER,
            self.successor_source(),
            self.predicate_function("terminal", self.model.terminal),
            self.state_props_source(),
            self.after_props_source(),
            self.leads_source(),
            DRIVER,
        ]
        return "\n\n".join(parts) + "\n"

    def successor_source(self) -> str:
        """successors(s, out_i, out, rd): the dispatch of `CompiledModel._successor_source`,
        with its effect blocks packed into functions of at most `CHUNK_CHARS` of source each
        (`_pack`) when the whole would be larger."""
        from checker.lang.compile import _conjuncts, _Pending

        emitter = self.emitter()
        for instance in self.instances:
            self._guard(emitter, instance)
        emitter.cached = {key for key, n in emitter.reads.items() if n >= 2 and key[0] == "s"}
        emitter.memo.clear()  # the code emitted so far reads the fields now cached its own way
        forced = self._statements(emitter, [_Pending(i, _conjuncts(i.action.guard)) for i in self.instances if i.forced])
        free = self._statements(emitter, [_Pending(i, _conjuncts(i.action.guard)) for i in self.instances if not i.forced])
        chunks: list[str] = []
        whole = len("\n".join(_render(forced, 1) + _render(free, 1)))
        body: list[str] = []
        for part in (forced, free):
            body.extend(_render(part, 1) if whole <= CHUNK_CHARS else self._pack(part, 1, chunks))
            if part is forced and forced:
                body += ["if n > 0:", "    return n"]
        temps, body = _shared_tests(body, "g_") if whole <= CHUNK_CHARS else ([], body)
        body = temps + body
        lines = [HELPER, "def successors(s, out_i, out, rd):", "    n = 0", *self._cached_reads(body, "    ")]
        lines += [f"    {line}" for line in body]
        lines.append("    return n")
        return "\n\n".join([*chunks, "\n".join(lines)])

    def _statements(self, emitter: Emitter, pending: list) -> list[list[str] | _Switch]:
        """`CompiledModel._dispatch` as a tree: each instance's guarded block (its lines), and
        the `if field == value` switches over the instances sharing a leading field test, in
        the order `_dispatch` writes them (so successors come in the Python engine's order)."""
        split = self.dispatch_split(emitter, pending)
        if split is None:
            return [block for block in (self._plain_block(emitter, item, "") for item in pending) if block]
        offset, grouped, rest = split
        width = next(f.width for f in self.layout.fields if f.offset == offset)
        read = emitter.read("s", offset, (1 << width) - 1)
        switch = _Switch(read, [(value, self._statements(emitter, items)) for value, items in sorted(grouped.items())])
        return [switch, *(block for block in (self._plain_block(emitter, item, "") for item in rest) if block)]

    def _pack(self, statements: list[list[str] | _Switch], depth: int, chunks: list[str]) -> list[str]:
        """The lines of `statements` with runs of them moved into functions of their own
        (appended to `chunks`) of at most `CHUNK_CHARS` of source each, and a switch too large
        for one function kept here, its branches packed in turn. numba's time per function
        grows faster than its size (its SSA pass and type inference revisit the whole function
        per variable), so many small functions compile much faster than one large one."""
        out: list[str] = []
        run: list[list[str] | _Switch] = []
        size = 0
        for statement in statements:
            chars = len("\n".join(_render([statement], depth)))
            if isinstance(statement, _Switch) and chars > CHUNK_CHARS:
                out.extend(self._chunk(run, depth, chunks))
                run, size = [], 0
                out.append(f"d{depth} = {statement.read}")
                for n, (value, branch) in enumerate(statement.branches):
                    out.append(f"{'if' if n == 0 else 'elif'} d{depth} == {value}:")
                    out.extend(f"    {line}" for line in self._pack(branch, depth + 1, chunks) or ["pass"])
                continue
            if run and size + chars > CHUNK_CHARS:
                out.extend(self._chunk(run, depth, chunks))
                run, size = [], 0
            run.append(statement)
            size += chars
        out.extend(self._chunk(run, depth, chunks))
        return out

    def _chunk(self, run: list[list[str] | _Switch], depth: int, chunks: list[str]) -> list[str]:
        """A function holding `run` (reading the cached fields it uses itself), and its call."""
        if not run:
            return []
        name = f"_c{len(chunks)}"
        temps, body = _shared_tests(_render(run, depth), f"g{len(chunks)}_")
        lines = [HELPER, f"def {name}(s, out_i, out, n, rd):", *self._cached_reads(temps + body, "    ")]
        lines += [f"    {line}" for line in temps + body]
        lines.append("    return n")
        chunks.append("\n".join(lines))
        return [f"n = {name}(s, out_i, out, n, rd)"]

    def _cached_reads(self, body: list[str], pad: str) -> list[str]:
        """The reads into `s_<offset>` variables of the cached fields these lines use."""
        used = sorted({int(m) for line in body for m in re.findall(r"\bs_(\d+)\b", line)})
        return [f"{pad}s_{offset} = {word_read('s', offset, next(f.mask for f in self.layout.fields if f.offset == offset))}" for offset in used]

    def _value_lines(self, action, assign, value: Code, var: str) -> list[str]:
        """The compiler's lines, the range check's error without its arguments: the compiled
        code only stops (`NativeDeferred`), and the Python engine reports the error."""
        call = re.compile(re.escape(f"_range({action.name!r}, {assign.slot!r}, ") + r"[^)]*\)")
        return [call.sub("_range()", line) for line in super()._value_lines(action, assign, value, var)]

    def _unchanged(self, writes: list[tuple], k: int) -> bool:
        """Whether write k of a block can be left out: it writes back the value its field has
        (`hand[turn][c] for c in card` where one card changes), its offset cannot raise, and every
        other write to its slot is known apart from it (so leaving it out hides no write
        twice). Its range check cannot fail: every field of a state is in its range (every
        write is checked, and the engine checks the initial states: `engine.in_range`)."""
        _, offset, value, slot = writes[k]
        if value.const or any(f"{name}(" in offset.text for name in RAISING_NAMES):
            return False
        sl = self.layout.slots[slot]
        mask = (1 << sl.width) - 1
        if offset.const:
            read = {word_read("s", offset.value, mask), f"s_{offset.value}"}
            if not reads_field(value.text, read, self.model.slots[slot].elem.lo or 0):
                return False
        elif not reads_back(value.text, offset.text, mask, self.model.slots[slot].elem.lo or 0):
            return False
        form = affine(offset.text)
        for j, (_, other, _, other_slot) in enumerate(writes):
            if j == k or other_slot != slot:
                continue
            if other.const != offset.const:
                return False
            other_form = affine(other.text)
            if other_form[0] != form[0] or other_form[1] == form[1]:
                return False
        return True

    def _effect_block(self, emitter: Emitter, instance, env: dict, target: str) -> list[str]:
        """As `CompiledModel._effect_block`, writing the post-state into row `out[n]`. The
        values' repeated subexpressions are computed once (`cse.shared_by`), and two writes
        whose offsets differ by a constant (a row assigned element by element) are known apart
        here, not tested at run time."""
        import itertools

        action = instance.action
        writes = [(assign, offset, value, slot) for assign in action.assigns for offset, value, slot in self._writes(emitter, assign, env)]
        writes = [w for k, w in enumerate(writes) if not self._unchanged(writes, k)]
        open_values = [k for k, (_, _, value, _) in enumerate(writes) if not value.const]
        lines, texts = shared_by([writes[k][2].text for k in open_values], f"e{instance.id}_")
        values = [value for _, _, value, _ in writes]
        for k, text in zip(open_values, texts):
            values[k] = Code(text)
        clear = constants = 0
        static_sets: list[tuple[int, str, int]] = []  # (offset, value var, width)
        dynamic: list[tuple[str, str, int, str]] = []
        counter = itertools.count()
        static_offsets: dict[int, str] = {}
        forms: dict[str, tuple[frozenset, int]] = {}
        for (assign, offset, _, slot), value_code in zip(writes, values):
            var = f"v{next(counter)}"
            value_lines = self._value_lines(action, assign, value_code, var)
            literal = re.fullmatch(rf"{var} = (\d+)", value_lines[0]) if offset.const and len(value_lines) == 1 else None
            if literal is None:
                lines.extend(value_lines)
            sl = self.layout.slots[slot]
            field_mask = (1 << sl.width) - 1
            if offset.const:
                if offset.value in static_offsets:
                    lines.append("_twice()")
                    continue
                static_offsets[offset.value] = slot
                forms[str(offset.value)] = (frozenset(), offset.value)
                clear |= field_mask << offset.value
                if literal is not None:  # a constant: written into the words as one
                    constants |= int(literal.group(1)) << offset.value
                else:
                    static_sets.append((offset.value, var, sl.width))
            else:
                ovar = f"o{next(counter)}"
                lines.append(f"{ovar} = {offset.text}")
                forms[ovar] = affine(offset.text)
                dynamic.append((ovar, var, field_mask, slot))
        for i, (ovar, _, _, slot) in enumerate(dynamic):
            others = [o for o, _, _, s in dynamic[:i] if s == slot] + [str(off) for off, s in static_offsets.items() if s == slot]
            for other in others:
                (terms, constant), (other_terms, other_constant) = forms[ovar], forms[other]
                if terms != other_terms:
                    lines.append(f"if {ovar} == {other}: _twice()")
                elif constant == other_constant:
                    lines.append("_twice()")
        for w in range(self.words):
            clear_w = (clear >> (WORD * w)) & ((1 << WORD) - 1)
            parts = []
            if not clear_w:
                parts.append(f"s[{w}]")
            elif clear_w != (1 << WORD) - 1:
                parts.append(f"(s[{w}] & {signed(~clear_w)})")
            if (constants >> (WORD * w)) & ((1 << WORD) - 1):
                parts.append(str(signed(constants >> (WORD * w))))
            for offset, var, width in static_sets:
                first, o = divmod(offset, WORD)
                if first == w:
                    parts.append(f"({var} << {o})" if o else var)
                elif first + 1 == w and o + width > WORD:
                    parts.append(f"({var} >> {WORD - o})")
            lines.append(f"out[n, {w}] = {' | '.join(parts) or '0'}")
        for ovar, var, field_mask, _ in dynamic:
            lines.append(f"_wr(out[n], {ovar}, {field_mask}, {var})")
        lines.append(f"out_i[n] = {instance.id}")
        lines.append("n += 1")
        return lines

    # -- properties ---------------------------------------------------------------------------
    def expression(self, expr: Expr, env: dict | None = None) -> str:
        return self.emitter().emit(expr, env or {}).text

    def predicate_function(self, name: str, expr: Expr, args: str = "s, rd") -> str:
        return f"{HELPER}\ndef {name}({args}):\n    return bool({self.expression(expr)})"

    def state_props_source(self) -> str:
        """check_state(s, node, status, where, rd): decide the open state properties at a new
        state (status[k] becomes 1 and where[k] the state). An expression that cannot be
        evaluated raises; the engine then leaves the configuration to the Python engine. A large
        suite's checks are split into functions of about `CHUNK_CHARS` each, called in turn."""
        groups = []
        for sp in self.state_props:
            k = sp.slot
            temps, text = shared(self.expression(sp.prop.expr), f"t{k}_")
            decide = [f"    status[{k}] = 1", f"    where[{k}] = node"]
            if not temps:
                groups.append([f"if status[{k}] == 0 and bool({text}) == {sp.deciding}:", *decide])
                continue
            groups.append([f"if status[{k}] == 0:", *(f"    {line}" for line in temps), f"    if bool({text}) == {sp.deciding}:", *(f"    {line}" for line in decide)])
        args = "s, node, status, where, rd"
        chunks: list[str] = []
        body = _sequence(groups)
        if len("\n".join(body)) > CHUNK_CHARS:
            body = [f"_s{n}({args})" for n, _ in enumerate(_chunked(groups, "_s", args, chunks, _sequence))]
        lines = [HELPER, f"def check_state({args}):", *(f"    {line}" for line in body), "    return 0"]
        return "\n\n".join([*chunks, "\n".join(lines)])

    def after_props_source(self) -> str:
        """check_after(inst, s, o, pre, node, status, where, where2, inst_at, rd): the `after`
        properties of instance `inst`, post-state s, pre-state o (split by ranges of instances
        into functions of about `CHUNK_CHARS` each when larger)."""
        base = len(self.state_props)
        by_instance: dict[int, list[tuple[int, str]]] = {}
        for k, prop in enumerate(self.after_props):
            for inst in self.instances:
                if inst.action.name == prop.action:
                    env = self.encoded_params(inst)
                    by_instance.setdefault(inst.id, []).append((base + k, self.expression(prop.expr, env)))
        groups = []
        for inst_id, checks in sorted(by_instance.items()):
            temps, texts = shared_by([text for _, text in checks], f"a{inst_id}_")
            group = [f"if inst == {inst_id}:", *(f"    {line}" for line in temps)]
            for (k, _), text in zip(checks, texts):
                group += [f"    if status[{k}] == 0 and not ({text}):", f"        _after({k}, status, where, where2, inst_at, pre, node, inst)"]
            groups.append(group)
        args = "inst, s, o, pre, node, status, where, where2, inst_at, rd"
        chunks: list[str] = []
        body = _chain(groups)
        if len("\n".join(body)) > CHUNK_CHARS:
            body = []
            for n, run in enumerate(_chunked(groups, "_a", args, chunks, _chain)):
                last = int(run[-1][0].split("==")[1].rstrip(":"))
                body += [f"{'if' if n == 0 else 'elif'} inst <= {last}:", f"    _a{n}({args})"]
        lines = ["HAS_AFTER = " + str(bool(self.after_props)), "", HELPER, f"def check_after({args}):", *(f"    {line}" for line in body), "    return 0"]
        return "\n\n".join([*chunks, "\n".join(lines)])

    def leads_source(self) -> str:
        """leads_masks(k, states, source, target, rd): evaluate leads-to property k's `from` and
        `to` on every state."""
        lines = [HELPER, "def leads_masks(k, states, source, target, rd):", "    for node in range(states.shape[0]):", "        s = states[node]"]
        if not self.leads:
            lines.append("        pass")
        for k, prop in enumerate(self.leads):
            lines += [
                f"        {'if' if k == 0 else 'elif'} k == {k}:",
                f"            source[node] = 1 if ({self.expression(prop.source)}) else 0",
                f"            target[node] = 1 if ({self.expression(prop.target)}) else 0",
            ]
        lines += ["    return 0"]
        return "\n".join(lines)


HEADER = """\
# Generated by rulecheck (checker/engines/native/codegen.py) for one model configuration.
import numpy as np

from checker.engines.native.runtime import EMPTY, LOW, _after, _div, _empty, _ix, _mod, _pmax, _pmin, _range, _rd, _req, _twice, _wr, kernel, per_state, prefetch, state_hash, table_shift  # noqa: F401"""


def driver_source() -> str:
    with open(os.path.join(os.path.dirname(__file__), "driver.py.txt")) as fh:
        return fh.read()


DRIVER = driver_source()
