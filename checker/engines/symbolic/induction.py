"""Proofs: k-induction for safety properties, ranking functions for termination.

k-induction. The base case is the bounded search: no violation within depth D. The step asks
for a window of k+1 states, not necessarily reachable, each satisfying the slot ranges and the
invariants already proved, connected by k real transitions (error-free, forced rules first),
pairwise distinct (a simple path), where the property holds at the first k positions and fails at
the last. When no such window exists (and k <= D+1), every reachable state satisfies the
property: a shortest path to a violation would end in such a window.

Ranking function. For `terminates` with a `measure`: one step from any state that satisfies the
ranges and the proved invariants, is not terminal and raises no modelling error, to its
successor, with measure >= 0 before and a strictly smaller measure after. When z3 finds no
state and step breaking that, every play ends (the measure cannot decrease forever).
"""

from __future__ import annotations

import time

import z3

from checker.engines.symbolic.encoding import AND, NOT, OR, Encoder, zv
from checker.engines.symbolic.unroll import Unrolling, query
from checker.lang.expr import Expr
from checker.properties import BoundProperty


def property_error(u: Unrolling, prop: BoundProperty, i: int):
    """Evaluating the property's own expressions at position i raises (a division by zero, an
    index outside its domain): the explicit engine reports that as the result `error`."""
    kind = prop.kind
    if kind in ("invariant", "unreachable", "reachable"):
        return u.value(prop.expr, i)[1]
    if kind == "after":
        return u.after_violated(i, prop.action, prop.expr)[1]
    if kind == "leads-to":
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
        value, err = u.value(prop.expr, i)
        return OR(err, NOT(value))
    if kind in ("unreachable", "reachable"):
        value, err = u.value(prop.expr, i)
        return OR(err, value)
    if kind == "after":
        return OR(*reversed(u.after_violated(i, prop.action, prop.expr)))
    if kind == "deadlock-free":
        return u.deadlock(i)
    if kind == "deterministic":
        return u.nondeterminism(i, tag)[0]
    raise ValueError(kind)


def k_induction(enc: Encoder, prop: BoundProperty | str, strengthen: list[Expr], max_k: int, deadline: float) -> int | None:
    """The smallest k <= max_k for which the induction step closes, or None."""
    kind = prop if isinstance(prop, str) else prop.kind
    solver = z3.Solver()
    u = Unrolling(enc, solver, "i", initial=False, strengthen=strengthen)
    for k in range(1, max_k + 1):
        if time.perf_counter() > deadline:
            return None
        u.extend()
        # the hypothesis at position k-1 (existential selectors cannot be negated: `deterministic`
        # keeps only the strengthening invariants as its hypothesis)
        if kind != "deterministic":
            solver.add(zv(NOT(bad(u, prop, k - 1, "h"))))
        # simple path: pre-states distinct (for `after` the last state may repeat an earlier one)
        last = k - 1 if kind == "after" else k
        for j in range(last):
            solver.add(zv(NOT(enc.equal(u.states[j], u.states[last]))))
        status, _ = query(solver, bad(u, prop, k, f"g{k}"), deadline)
        if status == "unsat":
            return k
        if status == "unknown":
            return None
    return None


def ranking(enc: Encoder, measure: Expr, strengthen: list[Expr], deadline: float) -> tuple[str, dict | None]:
    """("proved" | "refuted" | "unknown", a state where the measure fails to decrease)."""
    solver = z3.Solver()
    u = Unrolling(enc, solver, "r", initial=False, strengthen=strengthen)
    u.extend()
    before, err0 = enc.term(measure, u.states[0], {})
    after, err1 = enc.term(measure, u.states[1], {})
    fails = OR(err0, err1, NOT(AND(zv(before) >= 0, zv(after) < zv(before))))
    status, m = query(solver, fails, deadline)
    if status == "unsat":
        return "proved", None
    if status == "sat":
        return "refuted", enc.readable(m, u.states[0])
    return "unknown", None
