"""The model as z3 terms: expressions, states, initial states and one step of the transition relation.

A state is one z3 constant per slot element: `Int` for integers (with the slot's range as a
constraint), `Bool` for booleans, and `Int` codes 0..n-1 for enums (the member's position, the
same code the packed states use). Constants and readings are either folded in as Python values
(fixed by the configuration) or are z3 constants of their own, free within their declared
range or options.

Expressions are translated to a pair (value, error): the value is a Python value when it is known
while encoding (constant folding keeps indices concrete wherever possible) or a z3 term, and the
error is the condition under which the reference interpreter would raise a `ModellingError`
(division by zero, an index outside an integer domain, min/max over nothing), following its
evaluation order: `and`, `or` and `x if c else y` evaluate only what they need.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import Any

import z3

from checker.engines.symbolic.interrupt import raise_if_requested
from checker.lang.expr import Agg, Binary, Call, Cond, ConstRef, Expr, Lit, Old, ReadingRef, Require, SlotRef, Unary, Var
from checker.lang.model import Action, Config, Model
from checker.lang.types import Domain, Type

Val = Any  # a Python bool/int or a z3 term
State = dict[tuple[str, tuple], Any]  # (slot, readable index tuple) -> z3 constant


# -- folding helpers ---------------------------------------------------------------------------
def is_z3(v: Val) -> bool:
    return isinstance(v, z3.ExprRef)


def zv(v: Val) -> z3.ExprRef:
    if is_z3(v):
        return v
    if isinstance(v, bool):
        return z3.BoolVal(v)
    return z3.IntVal(v)


def OR(*xs: Val) -> Val:
    kept = []
    for x in xs:
        if is_z3(x):
            kept.append(x)
        elif x:
            return True
    if not kept:
        return False
    return kept[0] if len(kept) == 1 else z3.Or(*kept)


def AND(*xs: Val) -> Val:
    kept = []
    for x in xs:
        if is_z3(x):
            kept.append(x)
        elif not x:
            return False
    if not kept:
        return True
    return kept[0] if len(kept) == 1 else z3.And(*kept)


def NOT(x: Val) -> Val:
    return z3.Not(x) if is_z3(x) else not x


def ITE(c: Val, a: Val, b: Val) -> Val:
    if not is_z3(c):
        return a if c else b
    if not is_z3(a) and not is_z3(b) and a == b and type(a) is type(b):
        return a
    return z3.If(c, zv(a), zv(b))


def EQ(a: Val, b: Val) -> Val:
    if not is_z3(a) and not is_z3(b):
        return a == b
    return zv(a) == zv(b)


_ARITH = {"+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b}
_CMP = {
    "==": lambda a, b: a == b, "!=": lambda a, b: a != b, "<": lambda a, b: a < b,
    "<=": lambda a, b: a <= b, ">": lambda a, b: a > b, ">=": lambda a, b: a >= b,
}


def floordiv(a: Val, b: Val) -> Val:
    """Python's floor division (z3's `div` is Euclidean: equal for positive divisors)."""
    if not is_z3(a) and not is_z3(b):
        return a // b if b != 0 else 0
    if not is_z3(b):
        return zv(a) / b if b > 0 else (-zv(a)) / (-b)
    a, b = zv(a), zv(b)
    return z3.If(b > 0, a / b, (-a) / (-b))


def floormod(a: Val, b: Val) -> Val:
    if not is_z3(a) and not is_z3(b):
        return a % b if b != 0 else 0
    return zv(a) - zv(b) * floordiv(a, b)


@dataclass
class Instance:
    """An action with its parameters bound (`env` holds them encoded)."""

    id: int
    action: Action
    params: tuple[tuple[str, Any], ...]  # readable values
    env: dict[str, Any]

    @property
    def forced(self) -> bool:
        return self.action.by == "rules"


@dataclass
class Write:
    slot: str
    index: tuple  # encoded index values (Python or z3), full length
    value: Val


@dataclass
class Step:
    """One state's outgoing transitions, as terms over that state."""

    terminal: Val
    guards: list[Val]  # per instance: exists (reading), guard and weight > 0
    errors: list[Val]  # per instance: evaluating it raises (when it exists)
    writes: list[list[Write]]
    forced_any: Val
    enabled: list[Val]  # guard and forced-first priority
    error: Val  # the interpreter's transitions(state) raises
    error_terminal: Val = False


@dataclass
class Encoder:
    model: Model
    config: Config
    free_constants: frozenset[str] = frozenset()
    free_readings: bool = False
    const_vars: dict[str, z3.ExprRef] = field(default_factory=dict)
    table_vars: dict[str, dict[tuple, z3.ExprRef]] = field(default_factory=dict)  # a free table: one variable per cell
    reading_vars: dict[str, z3.ExprRef] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self._template = None
        for name in sorted(self.free_constants):
            const = self.model.constants[name]
            kind = const.elem.type.kind
            make = z3.Bool if kind == "bool" else z3.Int
            if const.is_table:
                self.table_vars[name] = {key: make(f"const.{name}{list(key)}") for key in itertools.product(*(d.values() for d in const.dims))}
            else:
                self.const_vars[name] = make(f"const.{name}")
        if self.free_readings:
            for name in self.model.readings:
                self.reading_vars[name] = z3.Int(f"reading.{name}")
        self.instances = self._instances()

    # -- parameters ---------------------------------------------------------------------
    def parameter_constraints(self) -> list:
        """Free constants within their declared ranges, free readings among their options."""
        out = []
        cells = [(name, var) for name, var in self.const_vars.items()]
        cells += [(name, var) for name, table in self.table_vars.items() for var in table.values()]
        for name, var in cells:
            elem = self.model.constants[name].elem
            if elem.type.kind == "int":
                out.append(z3.And(var >= elem.lo, var <= elem.hi))
            elif elem.type.kind == "enum":
                assert elem.type.domain is not None  # an enum type is named after its domain
                members = self.model.domains[elem.type.domain].members
                assert members is not None  # and that domain is an enum domain
                out.append(z3.And(var >= 0, var < len(members)))
        for name, var in self.reading_vars.items():
            out.append(z3.And(var >= 0, var < len(self.model.readings[name].options)))
        return out

    def chosen_config(self, m: z3.ModelRef) -> Config:
        """The configuration a solver model picked (fixed values where nothing was free)."""
        constants = dict(self.config.constants)
        for name, var in self.const_vars.items():
            elem = self.model.constants[name].elem
            constants[name] = self.decode(m.eval(var, model_completion=True), elem.type)
        for name, table in self.table_vars.items():
            elem = self.model.constants[name].elem
            constants[name] = {key: self.decode(m.eval(var, model_completion=True), elem.type) for key, var in table.items()}
        readings = dict(self.config.readings)
        for name, var in self.reading_vars.items():
            options = list(self.model.readings[name].options)
            readings[name] = options[m.eval(var, model_completion=True).as_long()]
        return Config(constants, readings)

    # -- values -------------------------------------------------------------------------
    def domain_of(self, type_: Type) -> Domain:
        dom = self.model.scope.domain_of(type_)
        assert dom is not None, type_
        return dom

    def encode(self, value: Any, type_: Type) -> Any:
        if type_.kind == "enum":
            members = self.domain_of(type_).members
            assert members is not None  # the domain of an enum type is an enum domain
            return members.index(value)
        return value

    def decode(self, value: Any, type_: Type) -> Any:
        if is_z3(value):
            if z3.is_true(value) or z3.is_false(value):
                value = z3.is_true(value)
            else:
                value = value.as_long()
        if type_.kind == "enum":
            members = self.domain_of(type_).members
            assert members is not None  # the domain of an enum type is an enum domain
            return members[value]
        if type_.kind == "bool":
            return bool(value)
        return value

    @staticmethod
    def key_of(codes: tuple, dims: tuple[Domain, ...]) -> tuple:
        """Readable index tuple from encoded (concrete) index values."""
        return tuple(d.members[c] if d.members is not None else c for c, d in zip(codes, dims))  # `is not None`: `d.is_enum`, spelt so mypy narrows

    @staticmethod
    def codes_of(dom: Domain) -> list:
        return list(range(dom.size)) if dom.is_enum else dom.values()

    # -- states -------------------------------------------------------------------------
    def new_state(self, tag: str) -> State:
        state: State = {}
        for name, slot in self.model.slots.items():
            for index in slot.elements():
                label = f"{name}{list(index) if index else ''}@{tag}"
                state[(name, index)] = z3.Bool(label) if slot.elem.type.kind == "bool" else z3.Int(label)
        return state

    def range_constraints(self, state: State) -> list:
        out = []
        for (name, _), var in state.items():
            elem = self.model.slots[name].elem
            if elem.type.kind == "int":
                out.append(z3.And(var >= elem.lo, var <= elem.hi))
            elif elem.type.kind == "enum":
                assert elem.type.domain is not None  # an enum type is named after its domain
                members = self.model.domains[elem.type.domain].members
                assert members is not None  # and that domain is an enum domain
                out.append(z3.And(var >= 0, var < len(members)))
        return out

    def readable(self, m: z3.ModelRef, state: State) -> dict[str, Any]:
        """A solver model's state in the interpreter's format."""
        out: dict[str, Any] = {name: ({} if slot.dims else None) for name, slot in self.model.slots.items()}
        for (name, index), var in state.items():
            value = self.decode(m.eval(var, model_completion=True), self.model.slots[name].elem.type)
            if index:
                out[name][index] = value
            else:
                out[name] = value
        return out

    def initial(self, state: State) -> list:
        """Constraints making `state` an initial state."""
        out = list(self.range_constraints(state))
        for name, slot in self.model.slots.items():
            for index in slot.elements():
                elem = self.model.init[name][index]
                var = state[(name, index)]
                if elem.value is not None:
                    value, _ = self.term(elem.value, {}, {})
                    out.append(EQ(var, value))
                elif elem.choices is not None:
                    out.append(OR(*(EQ(var, self.term(c, {}, {})[0]) for c in elem.choices)))
        for cond in self.model.init_where:
            value, err = self.term(cond, state, {})
            out.append(AND(value, NOT(err)))
        return [zv(c) for c in out]

    def equal(self, a: State, b: State) -> Val:
        return AND(*(EQ(a[k], b[k]) for k in a))

    # -- expressions ----------------------------------------------------------------------
    def term(self, expr: Expr, state: State, env: dict[str, Any], old: State | None = None) -> tuple[Val, Val]:
        method = getattr(self, f"t_{type(expr).__name__}")
        return method(expr, state, env, old)

    def t_Lit(self, expr: Lit, state, env, old):
        return self.encode(expr.value, expr.type), False

    def t_Var(self, expr: Var, state, env, old):
        return env[expr.name], False

    def t_ReadingRef(self, expr: ReadingRef, state, env, old):
        if expr.name in self.reading_vars:
            return self.reading_vars[expr.name], False
        return self.encode(self.config.readings[expr.name], expr.type), False

    def t_ConstRef(self, expr: ConstRef, state, env, old):
        const = self.model.constants[expr.name]
        if not expr.indices:
            if expr.name in self.const_vars:
                return self.const_vars[expr.name], False
            return self.encode(self.config.constants[expr.name], const.elem.type), False
        if expr.name in self.table_vars:
            cells = self.table_vars[expr.name]
            return self.select(expr, const.dims, state, env, old, lambda key: cells[key])
        table = self.config.constants[expr.name]
        return self.select(expr, const.dims, state, env, old, lambda key: self.encode(table[key], const.elem.type))

    def t_SlotRef(self, expr: SlotRef, state, env, old):
        slot = self.model.slots[expr.name]
        return self.select(expr, slot.dims, state, env, old, lambda key: state[(expr.name, key)])

    def indices(self, exprs: tuple[Expr, ...], dims: tuple[Domain, ...], state, env, old) -> tuple[list, Val]:
        """Encoded index values and the condition that one is outside its integer domain."""
        codes, errs = [], []
        for index, dom in zip(exprs, dims):
            value, err = self.term(index, state, env, old)
            errs.append(err)
            if not dom.is_enum:
                errs.append(NOT(AND(zv(value) >= dom.lo, zv(value) <= dom.hi)) if is_z3(value) else not dom.contains(value))
            codes.append(value)
        return codes, OR(*errs)

    def select(self, expr, dims, state, env, old, element) -> tuple[Val, Val]:
        codes, err = self.indices(expr.indices, dims, state, env, old)
        if not any(is_z3(c) for c in codes):
            if err is True:
                return (False if expr.type.kind == "bool" else 0), True
            return element(self.key_of(tuple(codes), dims)), err
        candidates = []
        for combo in itertools.product(*([c] if not is_z3(c) else self.codes_of(d) for c, d in zip(codes, dims))):
            cond = AND(*(EQ(c, v) for c, v in zip(codes, combo) if is_z3(c)))
            candidates.append((cond, element(self.key_of(combo, dims))))
        value = candidates[-1][1]
        for cond, v in reversed(candidates[:-1]):
            value = ITE(cond, v, value)
        return value, err

    def t_Unary(self, expr: Unary, state, env, old):
        v, err = self.term(expr.operand, state, env, old)
        if expr.op == "not":
            return NOT(v), err
        if expr.op == "neg":
            return (-v if not is_z3(v) else -v), err
        return (abs(v) if not is_z3(v) else z3.If(v >= 0, v, -v)), err

    def t_Binary(self, expr: Binary, state, env, old):
        op = expr.op
        left, lerr = self.term(expr.left, state, env, old)
        if op in ("and", "or"):
            right, rerr = self.term(expr.right, state, env, old)
            if op == "and":
                return AND(left, right), OR(lerr, AND(left, rerr))
            return OR(left, right), OR(lerr, AND(NOT(left), rerr))
        right, rerr = self.term(expr.right, state, env, old)
        err = OR(lerr, rerr)
        if op in ("//", "%"):
            err = OR(err, EQ(right, 0))
            return (floordiv(left, right) if op == "//" else floormod(left, right)), err
        if op in _ARITH:
            if not is_z3(left) and not is_z3(right):
                return _ARITH[op](left, right), err
            return _ARITH[op](zv(left), zv(right)), err
        if not is_z3(left) and not is_z3(right):
            return _CMP[op](left, right), err
        return _CMP[op](zv(left), zv(right)), err

    def t_Cond(self, expr: Cond, state, env, old):
        test, terr = self.term(expr.test, state, env, old)
        if not is_z3(test):
            branch, berr = self.term(expr.then if test else expr.orelse, state, env, old)
            return branch, OR(terr, berr)
        then, e1 = self.term(expr.then, state, env, old)
        orelse, e2 = self.term(expr.orelse, state, env, old)
        return ITE(test, then, orelse), OR(terr, AND(test, e1), AND(NOT(test), e2))

    def t_Require(self, expr: Require, state, env, old):
        """The interpreter tests first and raises when the test fails, else evaluates."""
        test, terr = self.term(expr.test, state, env, old)
        value, verr = self.term(expr.value, state, env, old)
        return value, OR(terr, NOT(test), AND(test, verr))

    def t_Call(self, expr: Call, state, env, old):
        pairs = [self.term(a, state, env, old) for a in expr.args]
        err = OR(*(e for _, e in pairs))
        args = [v for v, _ in pairs]
        if expr.fn in ("min", "max"):
            return self.extremum(expr.fn, args), err
        dom = expr.domain
        assert dom is not None  # succ/pred: the type checker always gives their domain
        x = args[0]
        if dom.is_enum:
            n = dom.size
            if not is_z3(x):
                return (x + (1 if expr.fn == "succ" else -1)) % n, err
            return (z3.If(x == n - 1, 0, x + 1) if expr.fn == "succ" else z3.If(x == 0, n - 1, x - 1)), err
        lo, hi = dom.lo, dom.hi
        if not is_z3(x):
            if not dom.contains(x):
                return 0, True
            return ((lo if x == hi else x + 1) if expr.fn == "succ" else (hi if x == lo else x - 1)), err
        err = OR(err, z3.Not(z3.And(x >= lo, x <= hi)))
        return (z3.If(x == hi, lo, x + 1) if expr.fn == "succ" else z3.If(x == lo, hi, x - 1)), err

    @staticmethod
    def extremum(fn: str, args: list) -> Val:
        if all(not is_z3(a) for a in args):
            return min(args) if fn == "min" else max(args)
        value = args[0]
        for a in args[1:]:
            better = (zv(a) < zv(value)) if fn == "min" else (zv(a) > zv(value))
            value = z3.If(better, zv(a), zv(value))
        return value

    def t_Old(self, expr: Old, state, env, old):
        assert old is not None, "old(...) outside an `after` property"
        return self.term(expr.operand, old, env, None)

    def t_Agg(self, expr: Agg, state, env, old):
        """sum/count/min/max evaluate every term; any/all stop at the first deciding term in
        domain order (as the interpreter does), so a later term's error is not reached."""
        names = [n for n, _ in expr.bound]
        op = expr.op
        terms = []  # (where, body)
        err: Val = False
        stopped: Val = False  # any/all: an earlier term decided the result
        for combo in itertools.product(*(self.codes_of(d) for _, d in expr.bound)):
            inner = {**env, **dict(zip(names, combo))}
            where, werr = (True, False) if expr.where is None else self.term(expr.where, state, inner, old)
            err = OR(err, AND(NOT(stopped), werr))
            if where is False:
                continue
            body, berr = self.term(expr.body, state, inner, old)
            err = OR(err, AND(NOT(stopped), where, berr))
            terms.append((where, body))
            if op == "any":
                stopped = OR(stopped, AND(where, body))
            elif op == "all":
                stopped = OR(stopped, AND(where, NOT(body)))
            if stopped is True:
                break
        if op in ("sum", "count"):
            pieces = [ITE(w, (b if op == "sum" else ITE(b, 1, 0)), 0) for w, b in terms]
            py = sum(p for p in pieces if not is_z3(p))
            sym = [p for p in pieces if is_z3(p)]
            if not sym:
                return py, err
            total = z3.Sum(*sym) if len(sym) > 1 else sym[0]
            return (total + py if py else total), err
        if op == "any":
            return OR(*(AND(w, b) for w, b in terms)), err
        if op == "all":
            return AND(*(OR(NOT(w), b) for w, b in terms)), err
        # min / max over the kept values: an empty selection is an error
        has: Val = False
        value: Val = 0
        for w, b in terms:
            if w is True:
                value = b if has is False else self.extremum(op, [value, b])
                has = True
            else:
                value = ITE(w, ITE(has, self.extremum(op, [value, b]), b), value) if has is not False else ITE(w, b, value)
                has = OR(has, w)
        return value, OR(err, NOT(has))

    # -- transitions --------------------------------------------------------------------
    def _instances(self) -> list[Instance]:
        actions = list(self.model.actions.values())
        if not self.free_readings:
            actions = [a for a in actions if all(self.config.readings[r] in opts for r, opts in a.only.items())]
        ordered = [a for a in actions if a.by == "rules"] + [a for a in actions if a.by != "rules"]
        out: list[Instance] = []
        for action in ordered:
            for params in action.param_bindings():
                env = {n: self.encode(v, d.type) for (n, v), (_, d) in zip(params.items(), action.params)}
                out.append(Instance(len(out), action, tuple(params.items()), env))
        return out

    def exists(self, action: Action) -> Val:
        """The action exists under the readings (`only`); symbolic when readings are free."""
        conds = []
        for reading, options in action.only.items():
            if reading in self.reading_vars:
                names = list(self.model.readings[reading].options)
                conds.append(OR(*(self.reading_vars[reading] == names.index(o) for o in options)))
            else:
                conds.append(self.config.readings[reading] in options)
        return AND(*conds)

    def step(self, state: State) -> Step:
        terminal, terr = self.term(self.model.terminal, state, {})
        guards, errors, writes = [], [], []
        for inst in self.instances:
            raise_if_requested()  # encoding a large model takes seconds: Ctrl-C stops it here
            exists = self.exists(inst.action)
            g, gerr = self.term(inst.action.guard, state, inst.env)
            werr: Val = False
            if inst.action.weight is not None:
                w, werr = self.term(inst.action.weight, state, inst.env)
                positive = (zv(w) > 0) if is_z3(w) else w > 0
                werr = AND(g, werr)
                g = AND(g, positive)
            inst_writes, aerr = self.apply(inst, state)
            guards.append(AND(exists, g))
            errors.append(AND(exists, OR(gerr, werr, AND(g, aerr))))
            writes.append(inst_writes)
        forced_any = OR(*(g for g, inst in zip(guards, self.instances) if inst.forced))
        enabled = [g if inst.forced else AND(g, NOT(forced_any)) for g, inst in zip(guards, self.instances)]
        # Rules resolve first: free instances are only considered (and can only raise) when no
        # forced instance is enabled, as in the interpreter's transitions().
        forced_errors = [e for e, inst in zip(errors, self.instances) if inst.forced]
        free_errors = [e for e, inst in zip(errors, self.instances) if not inst.forced]
        error = OR(terr, AND(NOT(terminal), OR(*forced_errors, AND(NOT(forced_any), OR(*free_errors)))))
        return Step(terminal, guards, errors, writes, forced_any, enabled, error, terr)

    def apply(self, inst: Instance, state: State) -> tuple[list[Write], Val]:
        """The elements an instance writes and the condition that applying it raises."""
        out: list[Write] = []
        errs: list[Val] = []
        action = inst.action
        for assign in action.assigns:
            slot = self.model.slots[assign.slot]
            names = [n for n, _ in assign.bound]
            for combo in itertools.product(*(self.codes_of(d) for _, d in assign.bound)):
                env = {**inst.env, **dict(zip(names, combo))}
                prefix, ierr = self.indices(assign.indices, slot.dims, state, env, None)
                value, verr = self.term(assign.value, state, env)
                errs += [ierr, verr]
                elem = slot.elem
                if elem.type.kind == "int":
                    errs.append(NOT(AND(zv(value) >= elem.lo, zv(value) <= elem.hi)) if is_z3(value) else not elem.lo <= value <= elem.hi)
                for rest in itertools.product(*(self.codes_of(d) for d in slot.dims[len(prefix):])):
                    out.append(Write(assign.slot, (*prefix, *rest), value))
        # the same element written twice in one action (computed indices may coincide)
        by_slot: dict[str, list[Write]] = {}
        for w in out:
            by_slot.setdefault(w.slot, []).append(w)
        for ws in by_slot.values():
            for a, b in itertools.combinations(ws, 2):
                errs.append(AND(*(EQ(x, y) for x, y in zip(a.index, b.index))))
        return out, OR(*errs)

    def post(self, state: State, step: Step, choose) -> State:
        """The post-state when the instance picked by `choose(id) -> cond` fires (as terms)."""
        posts: dict[tuple[str, tuple], Val] = dict(state)
        for inst, writes in zip(self.instances, step.writes):
            mine: dict[tuple[str, tuple], Val] = {}
            for w in writes:
                dims = self.model.slots[w.slot].dims
                if not any(is_z3(c) for c in w.index):
                    key = (w.slot, self.key_of(w.index, dims))
                    mine[key] = w.value
                    continue
                for combo in itertools.product(*([c] if not is_z3(c) else self.codes_of(d) for c, d in zip(w.index, dims))):
                    key = (w.slot, self.key_of(combo, dims))
                    cond = AND(*(EQ(c, v) for c, v in zip(w.index, combo) if is_z3(c)))
                    mine[key] = ITE(cond, w.value, mine.get(key, state[key]))
            if not mine:
                continue
            sel = choose(inst.id)
            for key, value in mine.items():
                posts[key] = ITE(sel, value, posts[key])
        return posts

    # -- one step, encoded once and instantiated per state ------------------------------
    def template(self):
        """The step over template variables, built once. Every z3 term of it is packed as the
        arguments of one uninterpreted application, so instantiating it for a state is a single
        `substitute` call (shared subterms are rewritten once)."""
        if self._template is None:
            state = self.new_state("T")
            step = self.step(state)
            sels = [z3.Bool(f"fire{i}@T") for i in range(len(self.instances))]
            post = self.post(state, step, lambda i: sels[i])
            keys = list(state)
            fields = [step.terminal, *step.guards, *step.errors, step.forced_any, *step.enabled, step.error, step.error_terminal]
            post_values = [post[key] for key in keys]
            self._template = (state, sels, keys, self._pack(fields), self._pack(post_values))
        return self._template

    @staticmethod
    def _pack(values: list) -> tuple:
        """(packed application or None, positions of z3 terms, the Python values as they are)."""
        terms = [v for v in values if is_z3(v)]
        if not terms:
            return None, values
        fn = z3.Function(f"pack{len(terms)}", *[t.sort() for t in terms], z3.BoolSort())
        return fn(*terms), values

    @staticmethod
    def _unpack(packed: tuple, pairs: list) -> list:
        app, values = packed
        if app is None:
            return list(values)
        done = z3.substitute(app, *pairs)
        out, j = [], 0
        for v in values:
            if is_z3(v):
                out.append(done.arg(j))
                j += 1
            else:
                out.append(v)
        return out

    def step_at(self, state: State) -> Step:
        """`step(state)` by substitution into the template (much cheaper than re-encoding)."""
        t_state, _, _, fields, _ = self.template()
        vals = self._unpack(fields, [(t_state[key], state[key]) for key in state])
        n = len(self.instances)
        terminal, guards, errors = vals[0], vals[1:1 + n], vals[1 + n:1 + 2 * n]
        forced_any, enabled = vals[1 + 2 * n], vals[2 + 2 * n:2 + 3 * n]
        error, error_terminal = vals[2 + 3 * n], vals[3 + 3 * n]
        return Step(terminal, guards, errors, [], forced_any, enabled, error, error_terminal)

    def post_at(self, state: State, choose) -> State:
        """The post-state when the instance picked by `choose(id)` fires, by substitution."""
        t_state, t_sels, keys, _, post = self.template()
        pairs = [(t_state[key], state[key]) for key in state]
        pairs += [(sel, zv(choose(i))) for i, sel in enumerate(t_sels)]
        return dict(zip(keys, self._unpack(post, pairs)))
