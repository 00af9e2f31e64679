"""Proofs: k-induction for safety properties, ranking functions for termination.

k-induction. The base case is the bounded search: no violation within depth D. The step asks
for a window of k+1 states, not necessarily reachable, each satisfying the slot ranges and the
invariants already proved, connected by k real transitions (error-free, forced rules first),
pairwise distinct (a simple path), where the property holds at the first k positions and fails at
the last. When no such window exists (and k <= D+1), every reachable state satisfies the
property: a shortest path to a violation would end in such a window.

Ranking function. For `terminates` with a `measure`: over the states that satisfy the ranges
and the proved invariants, are not terminal and raise no modelling error, the measure is >= 0,
and every path of k steps between such states (some k <= 8) ends with a strictly smaller
measure than it started with. When z3 finds no state and path breaking that, every play ends
(the measure cannot decrease forever).
"""

from __future__ import annotations

import time

import z3

from checker.engines.symbolic.encoding import AND, NOT, OR, Encoder, zv
from checker.engines.symbolic.lemmas import Lemma
from checker.engines.symbolic.unroll import Unrolling, query
from checker.lang.expr import Expr
from checker.lang.properties import BoundProperty


def property_error(u: Unrolling, prop: BoundProperty, i: int):
    """Evaluating the property's own expressions at position i raises (a division by zero, an
    index outside its domain): the explicit engine reports that as the result `error`."""
    kind = prop.kind
    if kind in ("invariant", "unreachable", "reachable"):
        assert prop.expr is not None  # these kinds require `expr` (property_kinds), which `bind` types
        return u.value(prop.expr, i)[1]
    if kind == "after":
        assert prop.action is not None and prop.expr is not None  # `after` requires both
        return u.after_violated(i, prop.action, prop.expr)[1]
    if kind == "leads-to":
        assert prop.source is not None and prop.target is not None  # `leads-to` requires `from` and `to`
        return OR(u.value(prop.source, i)[1], u.value(prop.target, i)[1])
    return False


def bad(u: Unrolling, prop: BoundProperty | str, i: int, tag: str):
    """What the property looks for at position i, for the safety kinds and `reachable` (and
    "_error": a modelling error): a violation, or its expression raising there, since a proof
    must exclude both (the value of an expression that raises is meaningless)."""
    kind = prop if isinstance(prop, str) else prop.kind
    if kind == "_error":
        return u.steps[i].error
    if kind == "invariant":
        assert isinstance(prop, BoundProperty) and prop.expr is not None  # a kind given as a string is only "_error"
        value, err = u.value(prop.expr, i)
        return OR(err, NOT(value))
    if kind in ("unreachable", "reachable"):
        assert isinstance(prop, BoundProperty) and prop.expr is not None  # as above
        value, err = u.value(prop.expr, i)
        return OR(err, value)
    if kind == "after":
        assert isinstance(prop, BoundProperty) and prop.action is not None and prop.expr is not None  # as above
        return OR(*reversed(u.after_violated(i, prop.action, prop.expr)))
    if kind == "deadlock-free":
        return u.deadlock(i)
    if kind == "deterministic":
        return u.nondeterminism(i, tag)[0]
    raise ValueError(kind)


class Window:
    """One unrolling of arbitrary (not necessarily reachable) windows, shared by every
    k-induction and ranking attempt of a run: the states and transitions are encoded once and
    only grow; what differs per attempt (the strengthening invariants, the simple-path
    constraints, the property's hypothesis and its violation) is added inside a push/pop.
    Encoding a step of a large model costs about a second; a fresh unrolling per property and
    per attempt paid that again and again."""

    def __init__(self, enc: Encoder) -> None:
        self.enc = enc
        self.solver = z3.Solver()
        self.u = Unrolling(enc, self.solver, "i", initial=False, guarded=True)
        self._terms: dict = {}
        self._keep: dict[int, Expr | Lemma] = {}

    def reach(self, k: int) -> Unrolling:
        while self.u.k < k:
            self.u.extend()
        return self.u

    def cached(self, key, make):
        if key not in self._terms:
            self._terms[key] = make()
        return self._terms[key]

    def strengthening(self, strengthen: list[Expr | Lemma], upto: int) -> list:
        """The proved invariants (expressions, defined and true) and lemmas at s_0 .. s_upto."""
        out = []
        for expr in strengthen:
            self._keep.setdefault(id(expr), expr)  # keeps id(expr) from being reused while cached
            for i in range(upto + 1):
                if isinstance(expr, Lemma):
                    out.append(self.cached(("lemma", expr, i), lambda e=expr, i=i: e.at(self.u.states[i])))
                else:
                    out.append(self.cached(("inv", id(expr), i), lambda e=expr, i=i: zv(AND(*_defined_and_true(self.enc, e, self.u.states[i])))))
        return out

    def distinct(self, i: int, j: int):
        return self.cached(("ne", i, j), lambda: zv(NOT(self.enc.equal(self.u.states[i], self.u.states[j]))))


def _defined_and_true(enc: Encoder, expr: Expr, state) -> tuple:
    value, err = enc.term(expr, state, {})
    return NOT(err), value


def k_induction(window: Window, prop: BoundProperty | str, strengthen: list[Expr | Lemma], max_k: int, deadline: float) -> int | None:
    """The smallest k <= max_k for which the induction step closes, or None."""
    kind = prop if isinstance(prop, str) else prop.kind
    pid = prop if isinstance(prop, str) else prop.id
    solver = window.solver
    for k in range(1, max_k + 1):
        if time.perf_counter() > deadline:
            return None
        u = window.reach(k)
        solver.push()
        try:
            solver.add(*u.active[:k], *window.strengthening(strengthen, k))
            # the hypothesis at positions 0..k-1 (existential selectors cannot be negated:
            # `deterministic` keeps only the strengthening invariants as its hypothesis)
            if kind != "deterministic":
                solver.add(*(window.cached(("hyp", pid, j), lambda j=j, u=u: zv(NOT(bad(u, prop, j, "h")))) for j in range(k)))
            # simple path: pre-states distinct (for `after` the last state may repeat an earlier one)
            last = k - 1 if kind == "after" else k
            solver.add(*(window.distinct(i, j) for j in range(last + 1) for i in range(j)))
            status, _ = query(solver, bad(u, prop, k, f"g{k}"), deadline)
        finally:
            solver.pop()
        if status == "unsat":
            return k
        if status == "unknown":
            return None
    return None


def ranking(window: Window, measure: Expr, strengthen: list[Expr | Lemma], max_k: int, deadline: float) -> tuple[str, dict | None, int]:
    """("proved" | "vacuous" | "refuted" | "unknown", a state where the measure fails, the k of
    the proof); "vacuous": proved because no path of k + 1 steps exists at all.

    Proved when, over the states the ranges and the proved facts allow that are not terminal
    and raise no error, (1) the measure is defined and >= 0, and (2) for some k <= max_k every
    path of k steps (to a state with a successor: an infinite play never ends in a terminal or
    raising state) ends with a smaller measure than it started with. An infinite play would
    then lower a measure that is never negative every k steps. k = 1 is the classical ranking
    function; a larger k lets a measure count only what a game uses up (cards, turns, halves),
    level or even rising on the few bookkeeping steps between two such events, instead of
    ranking every stage of the turn as well."""
    enc, solver = window.enc, window.solver
    u = window.reach(1)
    before, err0 = enc.term(measure, u.states[0], {})
    state = None
    for k in range(0, max_k + 1):
        u = window.reach(k + 1)
        if k == 0:
            fails = OR(err0, zv(before) < 0)
        else:
            last, err_k = enc.term(measure, u.states[k], {})
            fails = OR(err0, err_k, zv(last) >= zv(before))
        solver.push()
        try:
            solver.add(*u.active[:k + 1], *window.strengthening(strengthen, k + 1))
            status, m = query(solver, fails, deadline)
            state = enc.readable(m, u.states[0]) if status == "sat" else None
        finally:
            solver.pop()
        if status == "unknown":
            return "unknown", None, 0
        if k == 0 and status == "sat":
            return "refuted", state, 0
        if k > 0 and status == "unsat":
            return ("proved" if k == 1 or _path_exists(window, strengthen, k, deadline) else "vacuous"), None, k
    return "refuted", state, 0


def _path_exists(window: Window, strengthen: list[Expr | Lemma], k: int, deadline: float) -> bool:
    """Whether any path of k + 1 steps exists (from any state the facts allow); when none does,
    a measure "decreasing within k steps" says nothing of the measure: the plays are short."""
    solver = window.solver
    solver.push()
    try:
        solver.add(*window.u.active[:k + 1], *window.strengthening(strengthen, k + 1))
        status, _ = query(solver, z3.BoolVal(True), deadline)
    finally:
        solver.pop()
    return status != "unsat"
