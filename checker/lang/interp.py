"""The reference interpreter: the semantics of the language, written plainly.

It walks the typed IR over readable states (a dict from slot name to value, arrays as dicts from
index tuples to values). It is slow and obvious on purpose: every trace any engine produces is
replayed here before it is reported, and the compiled code is tested against it.

Semantics shared by every engine: `and`, `or` and `x if c else y` evaluate only the operand they
need; `//` and `%` are floor division and modulo as in Python, and dividing by zero is a
modelling error, as is indexing outside an integer domain or writing outside a slot's range.
"""

from __future__ import annotations

import itertools
import math
import operator
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from checker.errors import ModellingError
from checker.lang.expr import Agg, Binary, Call, Cond, ConstRef, Expr, Lit, Old, ReadingRef, Require, SlotRef, Unary, Var
from checker.lang.model import Action, Config, Model
from checker.limits import WorkLimit

State = dict[str, Any]

_UNARY: dict[str, Callable[[Any], Any]] = {"neg": operator.neg, "not": operator.not_, "abs": abs}
_BINARY = {
    "+": operator.add, "-": operator.sub, "*": operator.mul, "//": operator.floordiv, "%": operator.mod,
    "==": operator.eq, "!=": operator.ne, "<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge,
}


@dataclass(frozen=True)
class Transition:
    """One enabled move: the action, its parameter values, who takes it, and the state after."""

    action: str
    params: tuple[tuple[str, Any], ...]
    actor: str  # a player name, "chance" or "rules"
    post: Any


def freeze(state: State) -> tuple:
    """A hashable, comparable form of a readable state."""
    return tuple((name, tuple(sorted(v.items())) if isinstance(v, dict) else v) for name, v in sorted(state.items()))


MOVES_KEPT = 2048  # states per interpreter whose moves it keeps (`transitions`)
SHARED_KEPT = 4  # interpreters kept by `shared_interpreter`


class Interpreter:
    def __init__(self, model: Model, config: Config) -> None:
        self.model = model
        self.config = config
        self._active: list[Action] | None = None
        self._bindings: dict[str, list[dict[str, Any]]] = {}  # per action: its parameter bindings (shared, never written)
        self._moves_of: dict[tuple, list[Transition]] = {}  # by frozen state: its moves, for the first `MOVES_KEPT` states asked
        self._moved: dict[tuple, Transition | None] = {}  # `move_to`'s answers, for the first `MOVES_KEPT` steps asked

    # -- expressions -------------------------------------------------------------------
    def eval(self, expr: Expr, state: State, env: dict[str, Any] | None = None, old: State | None = None) -> Any:
        """The value of `expr` in `state`, with `env`'s variables bound (and `old`, the state
        before a move, for `old(...)` in an `after` property). Each kind of node has its own
        method below; the table `_NODES` picks it by the node's type."""
        evaluate = _NODES.get(type(expr))
        if evaluate is None:
            raise TypeError(f"unknown expression node {type(expr).__name__}")
        return evaluate(self, expr, state, env or {}, old)

    def _lit(self, expr: Lit, state: State, env: dict[str, Any], old: State | None) -> Any:
        return expr.value

    def _slot(self, expr: SlotRef, state: State, env: dict[str, Any], old: State | None) -> Any:
        value = state[expr.name]
        if not expr.indices:
            return value
        return value[self.index(expr, self.model.slots[expr.name].dims, state, env, old)]

    def _constant(self, expr: ConstRef, state: State, env: dict[str, Any], old: State | None) -> Any:
        value = self.config.constants[expr.name]
        if not expr.indices:
            return value
        return value[self.index(expr, self.model.constants[expr.name].dims, state, env, old)]

    def _reading(self, expr: ReadingRef, state: State, env: dict[str, Any], old: State | None) -> Any:
        return self.config.readings[expr.name]

    def _var(self, expr: Var, state: State, env: dict[str, Any], old: State | None) -> Any:
        return env[expr.name]

    def _unary(self, expr: Unary, state: State, env: dict[str, Any], old: State | None) -> Any:
        return _UNARY[expr.op](self.eval(expr.operand, state, env, old))

    def _cond(self, expr: Cond, state: State, env: dict[str, Any], old: State | None) -> Any:
        branch = expr.then if self.eval(expr.test, state, env, old) else expr.orelse
        return self.eval(branch, state, env, old)

    def _call(self, expr: Call, state: State, env: dict[str, Any], old: State | None) -> Any:
        args = [self.eval(a, state, env, old) for a in expr.args]
        if expr.fn in ("min", "max"):
            return min(args) if expr.fn == "min" else max(args)
        assert expr.domain is not None  # succ/pred: the type checker always gives their domain
        members = expr.domain.values()
        step = 1 if expr.fn == "succ" else -1
        return members[(members.index(args[0]) + step) % len(members)]

    def _require(self, expr: Require, state: State, env: dict[str, Any], old: State | None) -> Any:
        if not self.eval(expr.test, state, env, old):
            raise ModellingError(expr.message, expr.loc)
        return self.eval(expr.value, state, env, old)

    def _old(self, expr: Old, state: State, env: dict[str, Any], old: State | None) -> Any:
        if old is None:
            raise ModellingError("old(...) used outside an `after` property")
        return self.eval(expr.operand, old, env, None)

    def index(self, expr: SlotRef | ConstRef, dims: tuple, state: State, env: dict[str, Any], old: State | None) -> tuple:
        key = tuple(self.eval(i, state, env, old) for i in expr.indices)
        for value, dom in zip(key, dims):
            if not dom.contains(value):
                raise ModellingError(f"index {value} of `{expr.name}` is outside {dom.name} ({dom.lo}..{dom.hi})", expr.loc)
        return key

    def binary(self, expr: Binary, state: State, env: dict[str, Any], old: State | None) -> Any:
        op = expr.op
        left = self.eval(expr.left, state, env, old)
        if op == "and":
            return bool(left) and bool(self.eval(expr.right, state, env, old))
        if op == "or":
            return bool(left) or bool(self.eval(expr.right, state, env, old))
        right = self.eval(expr.right, state, env, old)
        if op in ("//", "%") and right == 0:
            raise ModellingError("division by zero", expr.loc)
        return _BINARY[op](left, right)

    def aggregate(self, expr: Agg, state: State, env: dict[str, Any], old: State | None) -> Any:
        """sum/count/min/max evaluate every term; any/all stop at the first deciding term, in
        domain order, as Python's any() and all() do (so a later term's error is not reached)."""
        names = [n for n, _ in expr.bound]

        def terms():
            for combo in itertools.product(*(d.values() for _, d in expr.bound)):
                inner = {**env, **dict(zip(names, combo))}
                if expr.where is not None and not self.eval(expr.where, state, inner, old):
                    continue
                yield self.eval(expr.body, state, inner, old)

        if expr.op == "any":
            return any(terms())
        if expr.op == "all":
            return all(terms())
        values = list(terms())
        if expr.op == "sum":
            return sum(values)
        if expr.op == "count":
            return sum(1 for v in values if v)
        if not values:
            raise ModellingError(f"{expr.op}() over no values", expr.loc)
        return min(values) if expr.op == "min" else max(values)

    # -- states ------------------------------------------------------------------------
    def initial_states(self, limit: WorkLimit | None = None) -> list[State]:
        """Every initial state, in a fixed order (the product of choices, then `init_where`).
        With a limit, the candidates are counted before any is built (`choose: any` over many
        slots multiplies quickly) and the clock is watched while they are filtered."""
        per_element: list[tuple[str, tuple, list]] = []
        for name, slot in self.model.slots.items():
            for index in slot.elements():
                elem = self.model.init[name][index]
                per_element.append((name, index, self.init_options(elem, slot)))
        if limit is not None:
            limit.count("candidate initial states", math.prod(len(opts) for _, _, opts in per_element))
        out = []
        for n, combo in enumerate(itertools.product(*(opts for _, _, opts in per_element))):
            if limit is not None and n % 1024 == 1023:
                limit.clock("initial states")
            state = self.blank()
            for (name, index, _), value in zip(per_element, combo):
                self.store(state, name, index, value)
            if all(self.eval(cond, state) for cond in self.model.init_where):
                out.append(state)
        return out

    def init_options(self, elem, slot) -> list:
        if elem.value is not None:
            return [self.eval(elem.value, {})]
        if elem.choices is not None:
            return list(dict.fromkeys(self.eval(c, {}) for c in elem.choices))
        return slot.allowed(self.model.domains)

    def is_initial(self, state: State) -> bool:
        for name, slot in self.model.slots.items():
            for index in slot.elements():
                if self.load(state, name, index) not in self.init_options(self.model.init[name][index], slot):
                    return False
        return all(self.eval(cond, state) for cond in self.model.init_where)

    def blank(self) -> State:
        return {name: ({} if slot.dims else None) for name, slot in self.model.slots.items()}

    @staticmethod
    def store(state: State, name: str, index: tuple, value: Any) -> None:
        if index:
            state[name][index] = value
        else:
            state[name] = value

    @staticmethod
    def load(state: State, name: str, index: tuple) -> Any:
        return state[name][index] if index else state[name]

    def terminal(self, state: State) -> bool:
        return bool(self.eval(self.model.terminal, state))

    # -- transitions -------------------------------------------------------------------
    def active_actions(self) -> list[Action]:
        """The actions that exist under this configuration's readings (`only`)."""
        if self._active is None:
            self._active = [a for a in self.model.actions.values() if all(self.config.readings[r] in opts for r, opts in a.only.items())]
        return list(self._active)

    def transitions(self, state: State) -> list[Transition]:
        """Every enabled move, forced rules first: if any `rules` action is enabled, only those.

        Rules resolve before anyone acts, so while a forced action is enabled the players' and
        chance's actions are not even considered: an error in one of their guards or effects
        is not reached then (the compiled engine and the symbolic encoding do the same).

        The moves of a state asked before are given again (a new list of the same moves): the
        traces of one configuration's properties mostly start alike, and a trace's checks ask
        again for the moves of states its replay asked for. A modelling error is raised again
        each time (nothing is kept then)."""
        key = freeze(state)
        known = self._moves_of.get(key)
        if known is None:
            known = self._transitions(state)
            if len(self._moves_of) < MOVES_KEPT:
                self._moves_of[key] = known
        return list(known)

    def move_to(self, state: State, post: State, action: str | None = None) -> Transition | None:
        """The first of `transitions(state)` leading to `post` (by `action`, when given), found
        without working out the moves after it: a replay asks this at every step of a trace,
        and needs only the moves up to the one taken (the same moves in the same order: the
        forced rules first, and the others only when no forced rule is enabled). A state whose
        moves were asked before is read from what `transitions` kept, and a step asked before
        (the traces of one configuration share their first steps: a fifth of a worker's
        replayed steps) from what this kept."""
        frozen = freeze(state)
        known = self._moves_of.get(frozen)
        if known is not None:
            return next((m for m in known if m.post == post and (action is None or m.action == action)), None)
        step = (frozen, freeze(post), action)
        if step in self._moved:
            return self._moved[step]
        move = self._first_move_to(state, post, action)
        if len(self._moved) < MOVES_KEPT:
            self._moved[step] = move
        return move

    def _first_move_to(self, state: State, post: State, action: str | None) -> Transition | None:
        if self.terminal(state):
            return None
        actions = self.active_actions()
        forced_enabled = False
        for move in self._each_move([a for a in actions if a.by == "rules"], state, action):
            forced_enabled = True
            if move is not None and move.post == post:
                return move
        if forced_enabled:
            return None
        return next((m for m in self._each_move([a for a in actions if a.by != "rules"], state, action) if m is not None and m.post == post), None)

    def _transitions(self, state: State) -> list[Transition]:
        if self.terminal(state):
            return []
        actions = self.active_actions()
        forced = self._moves([a for a in actions if a.by == "rules"], state)
        return forced if forced else self._moves([a for a in actions if a.by != "rules"], state)

    def _moves(self, actions: list[Action], state: State) -> list[Transition]:
        return [move for move in self._each_move(actions, state) if move is not None]

    def _each_move(self, actions: list[Action], state: State, action: str | None = None) -> Iterator[Transition | None]:
        """The enabled instances of `actions` in order, each worked out when the caller asks for
        the next: its move, or None for an instance of another action than `action` (named).
        A modelling error names the instance it was met in."""
        for candidate in actions:
            bindings = self._bindings.get(candidate.name)
            if bindings is None:
                bindings = self._bindings[candidate.name] = candidate.param_bindings()
            for params in bindings:
                try:
                    if not self.enabled(candidate, params, state):
                        continue
                    if action is not None and candidate.name != action:
                        move = None
                    else:
                        move = Transition(candidate.name, tuple(params.items()), self.actor(candidate, params, state), self.apply(candidate, params, state))
                except ModellingError as exc:
                    if exc.action is None:
                        exc.action, exc.params = candidate.name, dict(params)
                    raise
                yield move

    def enabled(self, action: Action, params: dict[str, Any], state: State) -> bool:
        if not self.eval(action.guard, state, params):
            return False
        return action.weight is None or self.eval(action.weight, state, params) > 0

    def actor(self, action: Action, params: dict[str, Any], state: State) -> str:
        if action.actor is None:
            return action.by
        return self.eval(action.actor, state, params)

    def apply(self, action: Action, params: dict[str, Any], state: State) -> State:
        post = {name: (dict(v) if isinstance(v, dict) else v) for name, v in state.items()}
        written: set[tuple[str, tuple]] = set()
        for assign in action.assigns:
            slot = self.model.slots[assign.slot]
            names = [n for n, _ in assign.bound]
            for combo in itertools.product(*(d.values() for _, d in assign.bound)):
                env = {**params, **dict(zip(names, combo))}
                prefix = tuple(self.eval(i, state, env) for i in assign.indices)
                for value, dom in zip(prefix, slot.dims):
                    if not dom.contains(value):
                        raise ModellingError(f"action `{action.name}` writes `{assign.slot}` at index {value}, outside {dom.name}", assign.loc)
                value = self.eval(assign.value, state, env)
                elem = slot.elem
                if elem.type.kind == "int" and not elem.lo <= value <= elem.hi:
                    raise ModellingError(f"action `{action.name}` writes {value} to `{assign.slot}`, outside its range {elem.lo}..{elem.hi}", assign.value.loc or assign.loc)
                for rest in itertools.product(*(d.values() for d in slot.dims[len(prefix):])):
                    index = (*prefix, *rest)
                    if (assign.slot, index) in written:
                        raise ModellingError(f"action `{action.name}` writes `{assign.slot}{list(index) if index else ''}` twice", assign.loc)
                    written.add((assign.slot, index))
                    self.store(post, assign.slot, index, value)
        return post


_NODES: dict[type[Expr], Callable[..., Any]] = {  # the method that evaluates each kind of expression node
    Lit: Interpreter._lit, SlotRef: Interpreter._slot, ConstRef: Interpreter._constant, ReadingRef: Interpreter._reading,
    Var: Interpreter._var, Unary: Interpreter._unary, Binary: Interpreter.binary, Cond: Interpreter._cond,
    Agg: Interpreter.aggregate, Call: Interpreter._call, Require: Interpreter._require, Old: Interpreter._old,
}


_SHARED: dict[tuple[int, str], Interpreter] = {}


def shared_interpreter(model: Model, config: Config) -> Interpreter:
    """One interpreter per model and configuration among the last `SHARED_KEPT` asked for, so
    that the replays and checks of one configuration's traces share the moves it keeps (a
    kept interpreter holds its model, so no other model can take its `id`)."""
    key = (id(model), repr((sorted(config.constants.items()), sorted(config.readings.items()))))
    interp = _SHARED.pop(key, None) or Interpreter(model, config)
    _SHARED[key] = interp  # the most recent last
    while len(_SHARED) > SHARED_KEPT:
        del _SHARED[next(iter(_SHARED))]
    return interp
