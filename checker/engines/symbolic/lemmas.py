"""Strengthening lemmas: ranges the explicit engine actually reached, proved inductive by z3.

k-induction fails on an invariant that holds in every reachable state when an unreachable
state within the slot ranges breaks it in one step (a card count that only adds up because the
interrupt chain is empty whenever the stage is `drawing`). Such facts are what a short explicit
exploration sees at once: in every state it met with `stage == drawing`, `depth` was 0.

`reached_ranges` explores breadth first within a small budget and proposes, for every slot
element, the range of values it took, over all states and among the states where each scalar
enum or bool slot has a given value. These are only candidates (the exploration may be partial,
or run under other constants than the ones left free). `houdini` keeps the largest subset that
is proved: every initial state satisfies it, and from any state within the slot ranges that
satisfies all of it (and raises no modelling error, is not terminal), every transition leads to
a state that satisfies all of it again. Candidates that fail either check are dropped and the
check repeated until nothing fails, so what is returned is an inductive invariant of the plays
the explicit engine explores, never an assumption.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import z3

from checker.engines.symbolic.encoding import Encoder, State
from checker.engines.symbolic.unroll import Unrolling, query
from checker.lang.model import Config, Model

MAX_INT_GUARD = 8  # integer slots with fewer values than this also split the ranges (half, depth)


@dataclass(frozen=True)
class Lemma:
    """`when` (element, code) holds => lo <= element <= hi; codes as the encoding uses them."""

    element: tuple[str, tuple]
    lo: int
    hi: int
    when: tuple[tuple[str, tuple], int] | None = None

    def at(self, state: State) -> z3.BoolRef:
        var = state[self.element]
        if z3.is_bool(var):
            body = var if self.lo == 1 else z3.Not(var)
        elif self.lo == self.hi:
            body = var == self.lo
        else:
            body = z3.And(var >= self.lo, var <= self.hi)
        if self.when is None:
            return body
        guard_key, code = self.when
        guard = state[guard_key]
        return z3.Implies(guard if z3.is_bool(guard) and code == 1 else (z3.Not(guard) if z3.is_bool(guard) else guard == code), body)

    def holds(self, values: dict[tuple[str, tuple], int]) -> bool:
        """The lemma on concrete element values (booleans as 0/1)."""
        if self.when is not None and values[self.when[0]] != self.when[1]:
            return True
        return self.lo <= values[self.element] <= self.hi


def reached_ranges(model: Model, config: Config, max_states: int, seconds: float) -> list[Lemma]:
    """Candidate lemmas from a breadth-first exploration within the budget (none when the model
    cannot be compiled or explored within it): each element's range of values, over every
    state and among the states where a scalar enum, bool or small integer slot has one value."""
    from checker.engines.explicit import Budget, explore
    from checker.errors import ModellingError
    from checker.lang.compile import CompiledModel
    from checker.limits import OutOfBudget, WorkLimit

    started = time.perf_counter()
    try:
        compiled = CompiledModel(model, config, WorkLimit(max_states, started + seconds))
        exp, _ = explore(compiled, [], Budget(max_states, max(seconds - (time.perf_counter() - started), 0.01)), need_graph=False)
    except (OutOfBudget, ModellingError, MemoryError):
        return []
    if not exp.states:
        return []
    fields = compiled.layout.fields
    declared = {(f.slot, f.index): (0, 1) if f.is_bool else (0, len(f.members) - 1) if f.members is not None else (f.lo, f.lo + (1 << f.width) - 1) for f in fields}
    for f in fields:
        elem = model.slots[f.slot].elem
        if elem.type.kind == "int":
            assert elem.lo is not None and elem.hi is not None  # a slot's int type always has its range (build.elem_type)
            declared[(f.slot, f.index)] = (elem.lo, elem.hi)
    guards = [f for f in fields if not f.index and (f.is_bool or f.members is not None or declared[(f.slot, f.index)][1] - declared[(f.slot, f.index)][0] < MAX_INT_GUARD)]
    # ranges[(guard field position or -1, guard code)][field position] = [lo, hi] (as codes)
    shifts = [(f.offset, f.mask) for f in fields]
    ranges: dict[tuple[int, int], list[list[int]]] = {}
    guard_pos = [fields.index(g) for g in guards]
    for s in exp.states:
        codes = [(s >> off) & mask for off, mask in shifts]
        for key in [(-1, 0)] + [(p, codes[p]) for p in guard_pos]:
            cur = ranges.get(key)
            if cur is None:
                ranges[key] = [[c, c] for c in codes]
                continue
            for r, c in zip(cur, codes):
                if c < r[0]:
                    r[0] = c
                elif c > r[1]:
                    r[1] = c
    out: list[Lemma] = []
    for (gpos, gcode), per_field in sorted(ranges.items()):
        for pos, (lo, hi) in enumerate(per_field):
            f = fields[pos]
            if pos == gpos:
                continue
            lo_v, hi_v = _value(f, lo), _value(f, hi)
            element = (f.slot, f.index)
            if (lo_v, hi_v) == declared[element]:
                continue
            when = None if gpos < 0 else ((fields[gpos].slot, fields[gpos].index), _value(fields[gpos], gcode))
            out.append(Lemma(element, lo_v, hi_v, when))
    return out


def _value(f, code: int) -> int:
    """A packed field's code as the symbolic encoding's value (ints shifted back by lo)."""
    return code if f.is_bool or f.members is not None else code + f.lo


def houdini(enc: Encoder, candidates: list[Lemma], deadline: float) -> list[Lemma]:
    """The largest subset of `candidates` that holds initially and is 1-inductive (see the
    module docstring); [] when time runs out first."""
    if not candidates:
        return []
    # initial states: drop every candidate some initial state violates
    init = z3.Solver()
    u0 = Unrolling(enc, init, "h0")
    alive = _prune(init, candidates, {lemma: lemma.at(u0.states[0]) for lemma in candidates}, {}, u0.states[0], deadline)
    if not alive:
        return []
    # the induction step: every candidate still alive assumed in s0 (under its flag, so one
    # solver serves every round), drop those some successor s1 violates, until none is
    solver = z3.Solver()
    u = Unrolling(enc, solver, "h", initial=False)
    u.extend()
    flags = {lemma: z3.Bool(f"lemma{n}") for n, lemma in enumerate(alive)}
    solver.add(*(z3.Implies(flag, lemma.at(u.states[0])) for lemma, flag in flags.items()))
    return _prune(solver, alive, {lemma: lemma.at(u.states[1]) for lemma in alive}, flags, u.states[1], deadline) or []


def _or(terms: list[z3.BoolRef]) -> z3.BoolRef:
    """z3.Or without its per-argument coercion (a round may disjoin thousands of terms)."""
    if len(terms) == 1:
        return terms[0]
    ctx = terms[0].ctx
    args = (z3.Ast * len(terms))(*(t.as_ast() for t in terms))
    return z3.BoolRef(z3.Z3_mk_or(ctx.ref(), len(terms), args), ctx)


def _values(m: z3.ModelRef, state: State) -> dict[tuple[str, tuple], int]:
    out = {}
    for key, var in state.items():
        value = m.eval(var, model_completion=True)
        out[key] = (1 if z3.is_true(value) else 0) if z3.is_bool(value) else value.as_long()
    return out


def _prune(solver: z3.Solver, alive: list[Lemma], terms: dict, flags: dict, state: State, deadline: float) -> list[Lemma] | None:
    """Drop the candidates a model of the solver, with the flags of those alive assumed and
    "some alive candidate's term is false", violates, until no such model exists. None on
    timeout. Each round asks under a fresh literal and assumptions, without push/pop, so the
    solver keeps what it learnt."""
    rounds = 0
    negated = {lemma: z3.Not(term) for lemma, term in terms.items()}
    while alive:
        if time.perf_counter() > deadline:
            return None
        goal = z3.Bool(f"houdini_round{rounds}@{id(solver)}")
        rounds += 1
        solver.add(z3.Implies(goal, _or([negated[lemma] for lemma in alive])))
        status, m = query(solver, True, deadline, assumptions=[goal, *(flags[lemma] for lemma in alive if lemma in flags)])
        if status == "unknown":
            return None
        if status == "unsat":
            return alive
        values = _values(m, state)
        alive = [lemma for lemma in alive if lemma.holds(values)]
    return alive
