"""The symbolic engine: z3 bounded model checking, k-induction and ranking functions.

`check_symbolic(model, config, props, options)` decides a configuration's properties without
enumerating states:

1. bounded model checking (`bmc`) deepens one step at a time up to `options.depth` (or a
   property's own `depth`), so the first counterexample is a shortest one; when no play of
   k steps exists at all, the search was exhaustive and its verdicts are proofs;
2. k-induction (`induction`) tries to turn each bounded `holds` of a safety property into a
   proof, strengthened by the invariants already proved; a ranking function (`measure`) proves
   `terminates`;
3. a `leads-to` whose `to` holds at the end of every play follows from a proved `terminates`
   and `deadlock-free` (`leads_to_by_termination`).

The runner replays every counterexample in the reference interpreter (`checker.evidence.confirm.build_trace`)
before it is reported. Constants and readings are those of `config`, unless the options leave
them free (`free_constants`: True for every constant, scalar or table, with bounded values, or a
set of names; `free_readings`: True), in which case z3 chooses them and a counterexample says which.
"""

from __future__ import annotations

import time
from typing import Any

from checker.engines.symbolic.bmc import SAFETY, BMCRun, Outcome, run_bmc
from checker.engines.symbolic.encoding import AND, NOT, OR, Encoder, zv
from checker.engines.symbolic.induction import Window, k_induction, ranking
from checker.engines.symbolic.interrupt import deferred_interrupts
from checker.engines.symbolic.lemmas import Lemma, houdini, reached_ranges
from checker.engines.symbolic.unroll import query
from checker.engines.verdict import EngineName, Status, Verdict, evidence_of
from checker.lang.model import Config, Model
from checker.lang.properties import BoundProperty
from checker.lang.property_kinds import KINDS

MAX_INDUCTION_K = 8
# The explicit exploration that proposes strengthening lemmas: at most this many states (and
# the explicit budget), and this many wall seconds or this share of the run's time (generous:
# on a loaded machine a short wall budget cuts the exploration, and with it the lemmas, for
# models the state cap would let finish in a few CPU seconds); 0 states turns it off.
LEMMA_STATES = 100_000
LEMMA_SECONDS = 60.0
LEMMA_SHARE = 0.25


def free_constant_names(model: Model, spec: Any) -> frozenset[str]:
    """Which constants to leave free: True/"all" for every constant, scalar or table, whose
    values are bounded (a bool, an enum, or an int with a range); otherwise the names given. A
    free table has one solver variable per cell, so a proof covers every table in its range."""
    if not spec:
        return frozenset()
    eligible = {name for name, c in model.constants.items() if c.elem.type.kind != "int" or c.elem.lo is not None}
    if spec is True or spec == "all":
        return frozenset(eligible)
    return frozenset(n for n in spec if n in eligible)


def check_symbolic(model: Model, config: Config, props: list[BoundProperty], options: Any) -> dict[str, Verdict]:
    """The symbolic engine's verdict on every property of `props` (the engine protocol's `decide`)."""
    started = time.perf_counter()
    budget = getattr(options, "budget", None)
    deadline = started + (budget.timeout if budget is not None else 600.0)
    depth = getattr(options, "depth", 30)
    free_consts = free_constant_names(model, getattr(options, "free_constants", None))
    free_readings = bool(getattr(options, "free_readings", False)) and bool(model.readings)
    supported = [p for p in props if p.kind not in UNSUPPORTED]
    with deferred_interrupts():
        enc = Encoder(model, config, free_consts, free_readings)
        candidates = []
        if supported and LEMMA_STATES:
            # a short explicit exploration proposes strengthening lemmas (proved before use)
            states = min(LEMMA_STATES, budget.max_states) if budget is not None else LEMMA_STATES
            candidates = reached_ranges(model, config, states, min(LEMMA_SECONDS, LEMMA_SHARE * (deadline - time.perf_counter())))
        outcomes = decide(enc, supported, depth, deadline, candidates) if supported else {}
    for prop in props:
        if prop.kind in UNSUPPORTED:
            outcomes[prop.id] = Outcome("undecided", False, "not supported by the symbolic engine", detail=UNSUPPORTED[prop.kind])
    seconds = time.perf_counter() - started
    free = bool(enc.const_vars or enc.table_vars or enc.reading_vars)
    return {prop.id: to_verdict(outcomes[prop.id], seconds, quantifier(prop.kind, outcomes[prop.id].status, free)) for prop in props}


def quantifier(kind: str, status: str, free: bool) -> str:
    """How a verdict over free constants or readings quantifies over configurations. A path the
    solver finds lives in the one configuration it chose ("some": a counterexample, an error, a
    `reachable` witness; `coverage` holds when each action fires in some configuration, not
    necessarily one); the verdict it reaches when nothing is found holds of them all ("every":
    an invariant proved, a `reachable` with no witness in any)."""
    if not free or status == "undecided":
        return ""
    if status == "error":
        return "some"
    found_something = status == "holds" if KINDS[kind].existential else status == "fails"
    return "some" if found_something else "every"


class SymbolicEngine:
    """The engine protocol (`checker.engines.verdict.Engine`) for z3."""

    name = EngineName.SYMBOLIC

    def decide(self, model: Model, config: Config, props: list[BoundProperty], options: Any) -> dict[str, Verdict]:
        return check_symbolic(model, config, props, options)


UNSUPPORTED = {name: k.symbolic_gap for name, k in KINDS.items() if k.symbolic_gap is not None}


PROOF_DEPTHS = (0, 1, 3, 7, 15)  # after these BMC depths, try k-induction with k = depth + 1


class Prover:
    """k-induction attempts interleaved with the deepening, and the proofs found so far."""

    def __init__(self, enc: Encoder, deadline: float, candidates: list[Lemma] | None = None) -> None:
        self.enc = enc
        self.deadline = deadline
        self.candidates = candidates or []
        self.lemmas: list[Lemma] | None = None  # the candidates proved inductive (on first use)
        self.proved: list[BoundProperty] = []
        self._window: Window | None = None
        self._strengthening: dict[str, object] = {}  # prop id -> the proved fact as an expression
        self.tried: dict = {}  # prop id (or ("_error", strengthening size)) -> largest k tried
        self.errors_excluded: int | None = None  # k of the proof that no modelling error is reachable
        self.rank_tried: dict[str, int] = {}  # prop id -> how many proved invariants strengthened its last try
        self.ranked: set[str] = set()  # `terminates ... within` whose measure proves only that plays end
        self.rank_refuted: dict[str, dict | None] = {}  # prop id -> a state where the measure fails

    def rank(self, open_props: list[BoundProperty], depth: int) -> dict[str, Outcome]:
        """Ranking-function proofs for the open `terminates` properties with a `measure`, tried
        again whenever more invariants have been proved. A measure proves that every play ends,
        never a `within` bound: such a property only notes it (`ranked`) and stays open."""
        out: dict[str, Outcome] = {}
        for prop in open_props:
            if prop.kind != "terminates" or prop.measure is None or prop.id in self.ranked:
                continue
            if self.rank_tried.get(prop.id) == len(self.proved) or time.perf_counter() > self.deadline:
                continue
            self.rank_tried[prop.id] = len(self.proved)
            status, state, k = ranking(self.window, prop.measure, self.strengthening(), MAX_INDUCTION_K, self.deadline)
            if status in ("proved", "vacuous") and prop.prop.within is not None:
                self.ranked.add(prop.id)
            elif status == "proved" and k == 1:
                out[prop.id] = Outcome("holds", True, "ranking function", depth=depth, detail="the measure is >= 0 and decreases on every step")
            elif status == "proved":
                out[prop.id] = Outcome("holds", True, f"ranking function (decreases within {k} steps)", depth=depth,
                                       detail=f"the measure is >= 0 and decreases over every {k} steps")
            elif status == "vacuous":
                out[prop.id] = Outcome("holds", True, f"ranking function (decreases within {k} steps)", depth=depth,
                                       detail=f"whatever the measure: no path of {k + 1} steps exists between non-terminal states the proved facts allow, so every play ends within {k} steps")
            elif status == "refuted":
                self.rank_refuted[prop.id] = state
        return out

    @property
    def window(self) -> Window:
        """The induction window, encoded on first use (many runs never need it)."""
        if self._window is None:
            self._window = Window(self.enc)
        return self._window

    def strengthening(self) -> list:
        """The facts a proof may assume: the reached-range lemmas proved inductive (Houdini,
        computed on first use) and the suite's invariants proved so far."""
        if self.lemmas is None:
            # at most half the time left: a set not proved in time is dropped whole
            now = time.perf_counter()
            self.lemmas = houdini(self.enc, self.candidates, now + (self.deadline - now) / 2) if self.candidates else []
        for p in self.proved:
            if p.kind in ("invariant", "unreachable") and p.id not in self._strengthening:
                self._strengthening[p.id] = p.expr if p.kind == "invariant" else _negate(p.expr)
        return [*self.lemmas, *self._strengthening.values()]

    def __call__(self, depth: int, open_props: list[BoundProperty], run: BMCRun, final: bool = False) -> dict[str, Outcome]:
        if not final and depth not in PROOF_DEPTHS:
            return {}
        max_k = min(MAX_INDUCTION_K, depth + 1)
        out: dict[str, Outcome] = {}
        candidates = [p for p in open_props if p.kind in SAFETY or p.kind == "reachable"]
        for _ in range(2):  # a second round uses what the first one proved
            progress = False
            for prop in candidates:
                checked = run.checked.get(prop.id, -1)
                k_limit = min(max_k, checked + 1)
                if prop.id in out or k_limit <= self.tried.get(prop.id, 0) or time.perf_counter() > self.deadline:
                    continue
                self.tried[prop.id] = k_limit
                k = k_induction(self.window, prop, self.strengthening(), k_limit, self.deadline)
                if k is None:
                    continue
                progress = True
                if prop.kind == "reachable":
                    out[prop.id] = Outcome("fails", True, f"k-induction (k={k})", detail="No reachable state satisfies the expression (proved by k-induction).", depth=checked)
                else:
                    self.proved.append(prop)
                    out[prop.id] = Outcome("holds", True, f"k-induction (k={k})", depth=checked)
            if not progress:
                break
            for prop_id in out:  # a later proof may use the earlier ones: retry the others
                self.tried.pop(prop_id, None)
            self.tried = {pid: k for pid, k in self.tried.items() if isinstance(pid, tuple) or pid in out}
        out.update(self.rank(open_props, depth))
        # no modelling error in any reachable state (using the invariants proved so far)
        key = ("_error", len(self.proved))
        if self.errors_excluded is None and self.tried.get(key, 0) < max_k and run.error_free_to >= depth:
            self.tried[key] = max_k
            self.errors_excluded = k_induction(self.window, "_error", self.strengthening(), max_k, self.deadline)
            run.errors_excluded = self.errors_excluded is not None
        return out


def decide(enc: Encoder, props: list[BoundProperty], depth: int, deadline: float, candidates: list[Lemma] | None = None) -> dict[str, Outcome]:
    prover = Prover(enc, deadline, candidates)
    run = run_bmc(enc, props, depth, deadline, prover)
    out = dict(run.outcomes)
    out.update(run.pending)
    undecided = [p for p in props if p.id not in out]
    if run.complete_at is not None:
        for prop in undecided:
            out[prop.id] = exhaustive(enc, prop, run)
        return out
    # the bounded verdicts, then proofs where they can still be had
    if run.stopped_by != "timeout":
        out.update(prover(run.reached, undecided, run, final=True))
    out.update(leads_to_by_termination(prover, [p for p in undecided if p.id not in out], props, out, run.reached))
    for prop in undecided:
        if prop.id not in out:
            out[prop.id] = bounded(enc, prop, run)
    if prover.errors_excluded is None and run.complete_at is None:
        for outcome in out.values():
            if outcome.bound.startswith(("k-induction", "ranking function")) and "excluded only" not in outcome.bound:
                outcome.bound += f"; modelling errors excluded only to depth {run.error_free_to}"
    for prop in undecided:
        outcome = out[prop.id]
        if prop.id in prover.ranked and outcome.status == "holds" and not outcome.proof:
            # a measure proves that every play ends, never how soon: `within` stays bounded
            outcome.bound += "; ranking function: every play ends"
            outcome.detail = f"the measure proves that every play ends; a play longer than {prop.prop.within} steps was looked for only up to {outcome.depth} steps"
        elif prop.id in prover.rank_refuted and outcome.status != "fails":
            outcome.detail = f"the measure does not decrease from a state the proved invariants allow (it may be unreachable): {_short(prover.rank_refuted[prop.id])}"
    return out


def leads_to_by_termination(prover: Prover, open_props: list[BoundProperty], props: list[BoundProperty], out: dict[str, Outcome], depth: int) -> dict[str, Outcome]:
    """`leads-to` from proofs of the same run: when every play ends (a `terminates` proved), no
    reachable state is stuck (a `deadlock-free` proved), and every terminal state satisfies `to`,
    then every play from a `from` state reaches a `to` state (its last one at the latest). This
    is how `leads-to` gets a proof without an exhaustive BMC, whose depth is the longest play's.
    Both expressions must also never raise (over the states the proved facts allow), since the
    explicit engine reports a raising expression as an error."""
    def proved(kind: str) -> BoundProperty | None:
        return next((p for p in props if p.kind == kind and out.get(p.id) is not None and out[p.id].status == "holds"
                     and out[p.id].proof and (kind != "terminates" or p.prop.within is None)), None)

    ends, live = proved("terminates"), proved("deadlock-free")
    result: dict[str, Outcome] = {}
    if ends is None or live is None or time.perf_counter() > prover.deadline:
        return result
    for prop in open_props:
        if prop.kind != "leads-to" or time.perf_counter() > prover.deadline:
            continue
        if terminal_implies(prover, prop) == "unsat":
            result[prop.id] = Outcome("holds", True, f"{out[ends.id].bound}, with {ends.id} and {live.id}", depth=depth,
                                      detail=f"every play ends ({ends.id}), none is stuck ({live.id}), and every terminal state satisfies `to`")
    return result


def terminal_implies(prover: Prover, prop: BoundProperty) -> str:
    """Whether a state the proved facts allow can be terminal without `to`, or make `from` or
    `to` raise: "unsat" when none can."""
    window = prover.window
    u, solver = window.u, window.solver
    assert prop.source is not None and prop.target is not None  # a leads-to has both
    src_err = u.value(prop.source, 0)[1]
    dst, dst_err = u.value(prop.target, 0)
    solver.push()
    try:
        solver.add(*window.strengthening(prover.strengthening(), 0))
        status, _ = query(solver, zv(OR(src_err, dst_err, AND(u.steps[0].terminal, NOT(dst)))), prover.deadline)
    finally:
        solver.pop()
    return status


def _negate(expr):
    from checker.lang.expr import Unary
    from checker.lang.types import BOOL

    return Unary(BOOL, op="not", operand=expr)


def _short(state: dict | None) -> str:
    if state is None:
        return ""
    parts = []
    for name, value in state.items():
        if isinstance(value, dict):
            parts.append(f"{name}=" + "{" + ", ".join(f"{'/'.join(map(str, k))}: {v}" for k, v in value.items()) + "}")
        else:
            parts.append(f"{name}={value}")
    return ", ".join(parts)


def exhaustive(enc: Encoder, prop: BoundProperty, run: BMCRun) -> Outcome:
    """Every play ends within `run.complete_at` steps and none broke the property."""
    k = run.complete_at
    assert k is not None, "called only once every play has ended"
    bound = f"exhaustive BMC (every play ends within {k} step(s))"
    if prop.kind == "reachable":
        return Outcome("fails", True, bound, depth=k, detail="No reachable state satisfies the expression.")
    if prop.kind == "coverage":
        never = sorted({i.action.name for i in enc.instances} - run.coverage_fired)
        return Outcome("fails", True, bound, depth=k, shape="list", detail=f"never fire: {', '.join(never)}")
    return Outcome("holds", True, bound, depth=k)


def bounded(enc: Encoder, prop: BoundProperty, run: BMCRun) -> Outcome:
    d = run.checked.get(prop.id, run.reached)
    bound = f"BMC depth <= {d}" + (" (timeout)" if run.stopped_by == "timeout" else "")
    if prop.kind == "reachable":
        return Outcome("undecided", False, bound, depth=d, detail=f"no reachable witness within {d} steps")
    if prop.kind == "coverage":
        never = sorted({i.action.name for i in enc.instances} - run.coverage_fired)
        return Outcome("undecided", False, bound, depth=d, detail=f"not yet fired within {d} steps: {', '.join(never)}")
    if prop.kind == "terminates":
        return Outcome("holds", False, bound + ": no lasso", depth=d)
    if d < 0:
        return Outcome("undecided", False, bound, depth=d)
    return Outcome("holds", False, bound, depth=d)


def to_verdict(outcome: Outcome, seconds: float, quantifier: str = "") -> Verdict:
    return Verdict(
        Status(outcome.status), EngineName.SYMBOLIC, outcome.bound, depth=max(outcome.depth, 0), seconds=seconds,
        detail=outcome.detail or (outcome.note if outcome.status == "fails" and not outcome.states else ""),
        proof=outcome.proof if outcome.status == "holds" else True, config=outcome.config,
        evidence=evidence_of(outcome.shape, outcome.states, loop_start=outcome.loop_start, last_action=outcome.last_action, moves=outcome.branches),  # a counterexample, or a `reachable`'s witness
        note=outcome.note, quantifier=quantifier,
    )
