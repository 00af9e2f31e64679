"""Bounded model checking: deepen one step at a time, so the first counterexample is a shortest one.

One unrolling from the initial states serves every property of a configuration. At depth k the
solver already holds every play of exactly k steps; each open property asks one question about
the last state (or the last step), then the engine asks whether the last state is a modelling
error. Before any of that it asks whether a play of k steps exists at all: when none does, every
reachable state has been seen and the open properties are decided exhaustively.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import z3

from checker.engines.symbolic.encoding import AND, NOT, OR, Encoder, zv
from checker.engines.symbolic.induction import bad, property_error
from checker.engines.symbolic.unroll import Unrolling, query
from checker.errors import ModellingError
from checker.lang.interp import Interpreter
from checker.lang.model import Config
from checker.lang.properties import BoundProperty

SAFETY = ("invariant", "unreachable", "after", "deadlock-free", "deterministic")


@dataclass
class Outcome:
    """What the symbolic engine established for one property."""

    status: str  # holds | fails | undecided | error
    proof: bool = False
    bound: str = ""
    states: list[dict] | None = None  # the counterexample path (readable states)
    config: Config | None = None  # the constants/readings the solver chose for it
    shape: str = "path"
    loop_start: int | None = None
    last_action: str | None = None
    branches: tuple[tuple[str, dict[str, Any]], ...] = ()
    note: str = ""
    detail: str = ""
    depth: int = 0


@dataclass
class BMCRun:
    """Where deepening stopped, and what it found."""

    outcomes: dict[str, Outcome] = field(default_factory=dict)
    checked: dict[str, int] = field(default_factory=dict)  # prop id -> deepest depth checked for it
    complete_at: int | None = None  # every play ends within this many steps
    reached: int = -1  # the deepest depth fully checked
    stopped_by: str = ""
    error_free_to: int = -1  # no modelling error in any state up to this depth
    coverage_fired: set[str] = field(default_factory=set)
    pending: dict[str, Outcome] = field(default_factory=dict)  # proofs, void if a modelling error is found
    errors_excluded: bool = False  # proved: no reachable state raises a modelling error


def describe_config(enc: Encoder, cfg: Config, verb: str = "fails") -> str:
    """"fails when low_cards=3, reading tie=defender" for the values the solver chose (`verb`:
    what happens under them: a witness `holds` there)."""
    parts = [f"{name}={cfg.constants[name]}" for name in enc.const_vars]
    for name in enc.table_vars:  # a free table: the cells the solver set apart from the configuration's
        fixed = enc.config.constants[name]
        parts += [f"{name}[{'/'.join(map(str, key))}]={value}" for key, value in cfg.constants[name].items() if value != fixed[key]]
    parts += [f"reading {name}={cfg.readings[name]}" for name in enc.reading_vars]
    return (f"{verb} when " + ", ".join(parts)) if parts else ""


def depth_needed(prop: BoundProperty, default_depth: int) -> int:
    """How deep BMC goes for a property: its own `depth`, or the run's. `terminates` with
    `within: N` is decided exactly at depth N + 1 (a play of N + 1 steps exists, or none does),
    so it goes at least that deep."""
    depth = prop.prop.depth or default_depth
    if prop.kind == "terminates" and prop.prop.within is not None:
        depth = max(depth, prop.prop.within + 1)
    return depth


def run_bmc(enc: Encoder, props: list[BoundProperty], default_depth: int, deadline: float, prove=None) -> BMCRun:
    """Deepen from 0 to the largest depth asked for. `prove(k, open_props, run)`, called after
    each depth k has been checked, may return outcomes (proofs) that close properties early."""
    run = BMCRun()
    limits = {p.id: depth_needed(p, default_depth) for p in props}
    max_depth = max(limits.values(), default=default_depth)
    open_props = list(props)
    solver = z3.Solver()
    u = Unrolling(enc, solver, "b")
    coverage_targets = {inst.action.name for inst in enc.instances}

    def finish(prop: BoundProperty, outcome: Outcome) -> None:
        run.outcomes[prop.id] = outcome
        open_props.remove(prop)

    def fail(prop: BoundProperty, m: z3.ModelRef, k: int, **kw: Any) -> None:
        cfg = enc.chosen_config(m)
        outcome = Outcome("fails", True, f"BMC: shortest counterexample, {k} step(s)", u.path(m, k), cfg, depth=k, detail=describe_config(enc, cfg), **kw)
        finish(prop, outcome)

    strengthened = 0  # states s_0 .. s_{strengthened-1} carry the proved lemmas

    def strengthen() -> None:
        """Every state of a play satisfies the lemmas the prover proved inductive: stating
        them prunes the search (about twice as fast at depth 6-7 of Show'n'Go junior)."""
        nonlocal strengthened
        lemmas = getattr(prove, "lemmas", None) or []
        if lemmas:
            for state in u.states[strengthened:]:
                solver.add(*(lemma.at(state) for lemma in lemmas))
            strengthened = len(u.states)

    for k in range(0, max_depth + 1):
        if not open_props and (not run.pending or run.errors_excluded):
            break
        if k > 0:
            u.extend()
            strengthen()
            status, m = query(solver, True, deadline)
            if status == "unknown":
                run.stopped_by = "timeout"
                break
            if status == "unsat":
                run.complete_at = k - 1
                break
            for prop in list(open_props):
                within = prop.prop.within
                if prop.kind == "terminates" and within is not None and k == within + 1 and limits[prop.id] >= k:
                    fail(prop, m, k, note=f"A play lasts longer than {within} steps.")
        asking = [p for p in open_props if limits[p.id] >= k]
        conds = {p.id: _condition(enc, u, p, k, run, coverage_targets) for p in asking}
        error_cond = u.steps[k].error
        status, _ = query(solver, OR(error_cond, *(c[0] if isinstance(c, tuple) else c for c in conds.values())), deadline)
        if status == "unknown":
            run.stopped_by = "timeout"
            break
        timed_out = False
        for prop in asking:
            if status == "sat":
                outcome = _ask(enc, u, solver, prop, k, deadline, run, coverage_targets, conds[prop.id])
            else:
                outcome = None
            if outcome == "unknown":
                timed_out = True
                break
            run.checked[prop.id] = k
            if isinstance(outcome, Outcome):
                finish(prop, outcome)
        if timed_out:
            run.stopped_by = "timeout"
            break
        if status == "unsat":
            run.error_free_to = k
            run.reached = k
            _prove(prove, k, open_props, run, finish)
            continue
        # a modelling error in a state of depth k ends the search for every open property
        status, m = query(solver, u.steps[k].error, deadline)
        if status == "unknown":
            run.stopped_by = "timeout"
            break
        if status == "sat":
            cfg = enc.chosen_config(m)
            path = u.path(m, k)
            try:
                Interpreter(enc.model, cfg).transitions(path[-1])
                message = "a modelling error"
            except ModellingError as exc:
                message = exc.message
            error = Outcome("error", True, f"BMC: modelling error at depth {k}", path, cfg, shape="error", depth=k,
                            note=f"Modelling error in the next step: {message}", detail=message)
            for prop_id in list(run.pending):  # a proof over error-free plays: the error comes first
                run.outcomes[prop_id] = error
                del run.pending[prop_id]
            for prop in list(open_props):
                finish(prop, error)
            run.reached = k
            break
        run.error_free_to = k
        run.reached = k
        _prove(prove, k, open_props, run, finish)
    return run


def _prove(prove, k: int, open_props: list[BoundProperty], run: BMCRun, finish) -> None:
    if prove is None or not open_props:
        return
    for prop_id, outcome in prove(k, list(open_props), run).items():
        prop = next(p for p in open_props if p.id == prop_id)
        open_props.remove(prop)
        run.pending[prop_id] = outcome


def _condition(enc: Encoder, u: Unrolling, prop: BoundProperty, k: int, run: BMCRun, coverage_targets: set[str]):
    """What the property looks for at depth k (a violation, a witness, a loop ...)."""
    kind = prop.kind
    if kind == "deterministic":
        return u.nondeterminism(k, "b")  # the condition with the two chosen instances
    if kind in ("invariant", "unreachable", "reachable", "after", "deadlock-free"):
        return bad(u, prop, k, "b")
    if kind == "terminates":
        return u.loop_back(k)
    if kind == "leads-to":
        return OR(property_error(u, prop, k), _leads_to_cond(enc, u, prop, k))
    if kind == "coverage":
        remaining = [a for a in coverage_targets if a not in run.coverage_fired]
        return OR(*(u.fired(k, a) for a in remaining)) if remaining else True
    return False


def _ask(enc: Encoder, u: Unrolling, solver: z3.Solver, prop: BoundProperty, k: int, deadline: float, run: BMCRun, coverage_targets: set[str], cond):
    """One property's question at depth k: an Outcome when decided, "unknown" on timeout, else None."""
    kind = prop.kind

    def found(cond):
        status, m = query(solver, cond, deadline)
        return ("unknown", None) if status == "unknown" else (status == "sat", m)

    def failing(m, **kw) -> Outcome:
        cfg = enc.chosen_config(m)
        return Outcome("fails", True, f"BMC: shortest counterexample, {k} step(s)", u.path(m, k), cfg, depth=k, detail=describe_config(enc, cfg), **kw)

    perr = property_error(u, prop, k)

    def raising(m) -> Outcome | None:
        """The state found makes the property's own expression raise: the result is `error`."""
        if perr is False or not z3.is_true(m.eval(zv(perr), model_completion=True)):
            return None
        return _property_error(enc, u, prop, m, k)

    if kind == "invariant":
        hit, m = found(cond)
        if hit == "unknown":
            return "unknown"
        return (raising(m) or failing(m, note="The invariant is false in this state.")) if hit else None
    if kind == "unreachable":
        hit, m = found(cond)
        if hit == "unknown":
            return "unknown"
        return (raising(m) or failing(m, note="This state satisfies the expression.")) if hit else None
    if kind == "reachable":
        hit, m = found(cond)
        if hit == "unknown":
            return "unknown"
        if hit:
            cfg = enc.chosen_config(m)
            return raising(m) or Outcome("holds", True, f"BMC: witness at depth {k}", u.path(m, k), cfg, depth=k, detail=describe_config(enc, cfg, "holds"))
        return None
    if kind == "after":
        hit, m = found(cond)
        if hit == "unknown":
            return "unknown"
        return (raising(m) or failing(m, last_action=prop.action, note=f"After `{prop.action}`, the property no longer holds.")) if hit else None
    if kind == "deadlock-free":
        hit, m = found(cond)
        if hit == "unknown":
            return "unknown"
        return failing(m, shape="deadlock", note="No rule applies and the game is not over: the game is stuck.") if hit else None
    if kind == "deterministic":
        cond, b1, b2 = cond
        hit, m = found(cond)
        if hit == "unknown":
            return "unknown"
        if not hit:
            return None
        branches = []
        for b in (b1, b2):
            inst = enc.instances[m.eval(b, model_completion=True).as_long()]
            branches.append((inst.action.name, dict(inst.params)))
        return failing(m, shape="branch", branches=tuple(branches), note="Two forced rules apply at once and prescribe different outcomes.")
    if kind == "terminates":
        hit, m = found(cond)
        if hit == "unknown":
            return "unknown"
        if not hit:
            return None
        path = u.path(m, k)
        start = next(j for j in range(k) if path[j] == path[k])
        return failing(m, shape="lasso", loop_start=start, note="A loop the game can go round forever without ending.")
    if kind == "leads-to":
        return _leads_to(enc, u, solver, prop, k, deadline, failing, raising, cond)
    if kind == "coverage":
        while True:
            remaining = [a for a in coverage_targets if a not in run.coverage_fired]
            if not remaining or k == 0:
                return Outcome("holds", True, f"BMC: every action fired within {k} step(s)", depth=k) if not remaining else None
            hit, m = found(OR(*(u.fired(k, a) for a in remaining)))
            if hit == "unknown":
                return "unknown"
            if not hit:
                return None
            run.coverage_fired.add(enc.instances[u.fired_instance(m, k - 1)].action.name)
    return None


def _property_error(enc: Encoder, u: Unrolling, prop: BoundProperty, m: z3.ModelRef, k: int) -> Outcome:
    """The result `error` with the path to the state where the property's expression raises,
    and the interpreter's message for it (the trace is replayed and confirmed like any other)."""
    cfg = enc.chosen_config(m)
    path = u.path(m, k)
    params: dict = {}
    old = None
    if prop.kind == "after":
        params = dict(enc.instances[u.fired_instance(m, k - 1)].params)
        old = path[-2]
    interp = Interpreter(enc.model, cfg)
    message = "the expression cannot be evaluated"
    for expr in (e for e in (prop.expr, prop.source, prop.target) if e is not None):
        try:
            interp.eval(expr, path[-1], params, old=old)
        except ModellingError as exc:
            message = exc.message
            break
    return Outcome("error", True, f"BMC: property error at depth {k}", path, cfg, shape="property-error", depth=k,
                   last_action=prop.action if prop.kind == "after" else None,
                   note=f"The property's expression cannot be evaluated in the last state: {message}.", detail=f"property expression: {message}")


def _leads_to_cond(enc: Encoder, u: Unrolling, prop: BoundProperty, k: int):
    """A play with a state where `from` holds after which `to` never holds, ending (terminal or
    stuck) or looping back into that part. `on_j` (fresh per depth) marks the avoiding part."""
    assert prop.source is not None and prop.target is not None  # `leads-to` requires `from` and `to`, which `bind` types
    on = [z3.Bool(f"avoid{j}@lt{k}") for j in range(k + 1)]
    conds = [on[k]]
    for j in range(k + 1):
        conds.append(z3.Implies(on[j], zv(NOT(u.value(prop.target, j)[0]))))
        entered = z3.And(on[j], z3.Not(on[j - 1])) if j > 0 else on[0]
        conds.append(z3.Implies(entered, zv(u.value(prop.source, j)[0])))
        if j > 0:
            conds.append(z3.Implies(on[j - 1], on[j]))
    step = u.steps[k]
    ends = OR(step.terminal, u.deadlock(k))
    loops = [AND(on[j], enc.equal(u.states[j], u.states[k])) for j in range(k)]
    return AND(*conds, OR(ends, *loops))


def _leads_to(enc: Encoder, u: Unrolling, solver, prop: BoundProperty, k: int, deadline: float, failing, raising, cond):
    status, m = query(solver, cond, deadline)
    if status == "unknown":
        return "unknown"
    if status == "unsat":
        return None
    assert m is not None  # `query` answers "sat" with its model
    error = raising(m)
    if error is not None:
        return error
    path = u.path(m, k)
    first = next(j for j in range(k + 1) if z3.is_true(m.eval(z3.Bool(f"avoid{j}@lt{k}"), model_completion=True)))
    loop = next((j for j in range(first, k) if path[j] == path[k]), None)
    if loop is not None:
        return failing(m, shape="lasso", loop_start=loop, note="From a state where `from` holds, play can cycle forever without `to` ever holding.")
    return failing(m, note="From a state where `from` holds, the game ends or sticks without `to` ever holding.")
