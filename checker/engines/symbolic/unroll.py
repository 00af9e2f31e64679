"""Paths of the transition relation in one solver, and what "bad" means for each property kind.

An `Unrolling` holds states s_0 .. s_k and, between consecutive states, one transition: a
selector `sel_i` picks an action instance that is enabled in s_i (guard, weight > 0, the reading
allows it, and forced rules first), s_i is not terminal and evaluating its transitions raises no
modelling error (the explicit engine stops at such a state), and s_{i+1} is that instance's
post-state. From an initial state this is exactly the interpreter's reachable play of length k.
Without the initial constraint it is an arbitrary window of k steps, as k-induction needs.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import z3

from checker.engines.symbolic.encoding import AND, EQ, NOT, OR, Encoder, State, Step, zv
from checker.engines.symbolic.interrupt import raise_if_requested
from checker.lang.expr import Expr


@dataclass
class Unrolling:
    """With `guarded`, each transition's constraints hold only under its activation literal
    (`active[i]` for s_i -> s_{i+1}): one unrolling then serves windows of every length, a query
    about k steps assuming only the first k literals (a longer unrolling must not constrain
    s_k to have successors)."""

    enc: Encoder
    solver: z3.Solver
    tag: str
    initial: bool = True
    guarded: bool = False
    states: list[State] = field(default_factory=list)
    steps: list[Step] = field(default_factory=list)
    sels: list[list[z3.BoolRef]] = field(default_factory=list)  # per step: one Bool per instance
    active: list[z3.BoolRef] = field(default_factory=list)  # per step, when guarded

    def __post_init__(self) -> None:
        self.solver.add(*self.enc.parameter_constraints())
        self._add_state()
        if self.initial:
            self.solver.add(*self.enc.initial(self.states[0]))

    @property
    def k(self) -> int:
        return len(self.states) - 1

    def _add_state(self) -> None:
        state = self.enc.new_state(f"{self.tag}{len(self.states)}")
        self.solver.add(*self.enc.range_constraints(state))
        self.states.append(state)
        self.steps.append(self.enc.step_at(state))

    def extend(self) -> None:
        """Add one transition s_k -> s_{k+1}."""
        k = self.k
        state, step = self.states[k], self.steps[k]
        n = len(self.enc.instances)
        sels = [z3.Bool(f"fire{i}@{self.tag}{k}") for i in range(n)]
        cs = [zv(NOT(step.terminal)), zv(NOT(step.error)), zv(OR(*sels))]
        if n <= 12:
            for i in range(n):
                for j in range(i + 1, n):
                    cs.append(z3.Or(z3.Not(sels[i]), z3.Not(sels[j])))
        elif n:
            cs.append(z3.AtMost(*sels, 1))
        for i in range(n):
            cs.append(z3.Implies(sels[i], zv(step.enabled[i])))
        post = self.enc.post_at(state, lambda i: sels[i])
        self.sels.append(sels)
        self._add_state()
        nxt = self.states[k + 1]
        cs += [zv(EQ(nxt[key], post[key])) for key in nxt]
        if self.guarded:
            lit = z3.Bool(f"active@{self.tag}{k}")
            self.active.append(lit)
            cs = [z3.Implies(lit, c) for c in cs]
        self.solver.add(*cs)

    # -- what the properties look at ----------------------------------------------------
    def value(self, expr: Expr, i: int, env: dict | None = None, old: int | None = None):
        """(value, error): the expression at s_i and the condition that evaluating it raises
        (the value is meaningless where the error condition holds: z3 leaves x // 0 free)."""
        return self.enc.term(expr, self.states[i], env or {}, self.states[old] if old is not None else None)

    def deadlock(self, i: int):
        step = self.steps[i]
        return AND(NOT(step.terminal), NOT(step.error), *(NOT(g) for g in step.guards))

    def nondeterminism(self, i: int, tag: str):
        """Two enabled forced instances with different post-states; returns (cond, b1, b2)."""
        step, state = self.steps[i], self.states[i]
        forced = [inst.id for inst in self.enc.instances if inst.forced]
        if len(forced) < 2:
            return False, None, None
        b1, b2 = z3.Int(f"b1@{tag}{i}"), z3.Int(f"b2@{tag}{i}")
        p1 = self.enc.post_at(state, lambda j: b1 == j)
        p2 = self.enc.post_at(state, lambda j: b2 == j)
        differ = OR(*(NOT(EQ(p1[key], p2[key])) for key in state))
        cond = AND(
            NOT(step.terminal), NOT(step.error), b1 < b2,
            OR(*(AND(b1 == j, step.guards[j]) for j in forced)),
            OR(*(AND(b2 == j, step.guards[j]) for j in forced)),
            differ,
        )
        return cond, b1, b2

    def fired(self, i: int, action: str):
        """The transition into s_i was an instance of `action`."""
        if i == 0:
            return False
        return OR(*(self.sels[i - 1][inst.id] for inst in self.enc.instances if inst.action.name == action))

    def after_violated(self, i: int, action: str, expr: Expr):
        """(violated, raises): the step into s_i was `action` and `expr` is false after it, or
        evaluating `expr` after it raises."""
        if i == 0:
            return False, False
        cases, errors = [], []
        for inst in self.enc.instances:
            if inst.action.name == action:
                value, err = self.enc.term(expr, self.states[i], inst.env, self.states[i - 1])
                cases.append(AND(self.sels[i - 1][inst.id], NOT(value)))
                errors.append(AND(self.sels[i - 1][inst.id], err))
        return OR(*cases), OR(*errors)

    def loop_back(self, i: int, since: int = 0):
        """s_i equals an earlier state s_j (since <= j < i)."""
        return OR(*(self.enc.equal(self.states[j], self.states[i]) for j in range(since, i)))

    def distinct(self, upto: int) -> list:
        """Pairwise distinctness of s_0 .. s_upto (simple paths, for k-induction)."""
        out = []
        for i in range(upto + 1):
            for j in range(i + 1, upto + 1):
                out.append(zv(NOT(self.enc.equal(self.states[i], self.states[j]))))
        return out

    # -- reading a solver model back ------------------------------------------------------
    def fired_instance(self, m: z3.ModelRef, i: int) -> int:
        """The instance the model fires on step i (s_i -> s_{i+1})."""
        return next(j for j, b in enumerate(self.sels[i]) if z3.is_true(m.eval(b, model_completion=True)))

    def path(self, m: z3.ModelRef, upto: int | None = None) -> list[dict]:
        last = self.k if upto is None else upto
        return [self.enc.readable(m, self.states[i]) for i in range(last + 1)]


def _interrupted(solver: z3.Solver, started: float, timeout_ms: int | None) -> bool:
    """z3 catches Ctrl-C during a check and only answers "unknown", with the reason "canceled"
    (as for its own timeout) or "interrupted from keyboard": an answer cancelled before the
    timeout was due is the user's Ctrl-C, which must stop the run."""
    import time

    reason = solver.reason_unknown()
    if reason == "interrupted from keyboard":
        return True
    if reason != "canceled":
        return False
    return timeout_ms is None or (time.perf_counter() - started) * 1000 < timeout_ms - 50


def query(solver: z3.Solver, cond, deadline: float | None = None, assumptions: list | None = None) -> tuple[str, z3.ModelRef | None]:
    """Is `cond` satisfiable together with the solver's constraints (and the `assumptions`,
    literals)? ("sat" | "unsat" | "unknown", model)."""
    import time

    raise_if_requested()
    if cond is False:
        return "unsat", None
    remaining = None
    if deadline is not None:
        remaining = int((deadline - time.perf_counter()) * 1000)
        if remaining <= 0:
            return "unknown", None
        solver.set("timeout", remaining)
    solver.push()
    try:
        if cond is not True:
            solver.add(zv(cond))
        started = time.perf_counter()
        result = solver.check(*(assumptions or ()))
        if result == z3.sat:
            return "sat", solver.model()
        if result == z3.unknown and _interrupted(solver, started, remaining):
            raise KeyboardInterrupt
        raise_if_requested()
        return ("unsat" if result == z3.unsat else "unknown"), None
    finally:
        solver.pop()
