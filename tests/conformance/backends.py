"""Every back-end and every twin analysis, each held to its reference behind one protocol, `Pair`.

A pair names a reference (the reference interpreter, the Python engine, the Python loop of an
analysis) and a candidate that must give its answers (the generated Python code, the bytecode
interpreter, the compiled graph passes, the symbolic engine, the partitioned search, the numba
kernel of an analysis). `differences(case)` runs both on one configuration of one model and
lists where they part (empty when they agree); the suite (`test_conformance.py`) runs every
pair on the same generated, bundled and large models, so a new back-end is held to everything
by adding one pair here, not by writing one comparison file more. `mutant()` breaks the
candidate on purpose (drops a move, flips a verdict, loses a state): the suite must then notice,
which shows its comparisons are not vacuous.

A candidate may leave a configuration to its reference (`NativeDeferred`: the bytecode
interpreter hands a modelling error to the Python engine, which words it); a pair counts that as
a difference unless the reference met an error there.
"""

from __future__ import annotations

import dataclasses
import os
from collections import deque
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from typing import Any, Protocol

from hypothesis import assume, event
from hypothesis.control import currently_in_test_context

from checker.errors import ModellingError, RulecheckError
from checker.evidence.trace import ReplayMismatch
from checker.lang.compile import CompiledModel
from checker.lang.interp import Interpreter, freeze
from checker.lang.model import Config, Model
from checker.lang.properties import BoundProperty
from checker.lang.property_kinds import KINDS, KindClass
from tests.conformance.generated import BUNDLED, EXAMPLES, HERE, PROFILE, configs
from tests.symbolic_support import bound_props, run, trace_len

# Which bundled models each pair runs on (default configuration): every one where the comparison
# is cheap, a share where it is not (the default run's time).
EVERY_BUNDLED: tuple[tuple[str, dict[str, int]], ...] = tuple((path, {}) for path in BUNDLED)


@dataclass(frozen=True)
class Case:
    """One configuration of one model and its bound properties, as every pair receives it.

    `path` is the model's file (the engines behind the runner load it again); `scale` says
    where the case comes from ("generated", "bundled", "large", or "fixed": a model written for
    one test), since a pair sizes its budgets by it; `seed` drives the seeded walks."""

    model: Model
    config: Config
    props: list[BoundProperty]
    path: str
    scale: str = "fixed"
    seed: int = 0


class Pair(Protocol):
    """A candidate held to its reference."""

    name: str
    needs: tuple[str, ...]  # modules it imports that an install may lack (numba, distributed)
    every_reading: bool  # run under every reading combination of a generated model (else the default only)
    extra_props: str  # properties added to a generated suite (kinds only this pair decides)
    examples: int  # generated models per run of the suite
    large_examples: int  # large generated models (10,000 states and more) per run; 0: none
    bundled: tuple[tuple[str, dict[str, int]], ...]  # bundled models (and constants set) it runs on

    def differences(self, case: Case) -> list[str]:
        """Where the candidate and the reference part on `case` (empty when they agree)."""
        ...

    def mutant(self) -> AbstractContextManager[None]:
        """The candidate broken on purpose, for as long as the context lasts."""
        ...


def note(text: str) -> None:
    """`event`, when a hypothesis test is running (the pairs also run on fixed models)."""
    if currently_in_test_context():
        event(text)


def given_that(condition: bool) -> None:
    """`assume` in a hypothesis test (a generated model the comparison cannot use: draw
    another); on a written model the condition must hold."""
    if currently_in_test_context():
        assume(condition)
    else:
        assert condition, "a written model the comparison cannot use"


def size_band(states: int) -> str:
    """A coarse size class for `event`: hypothesis reports how many examples fall in each."""
    for bound in (1, 10, 100, 1_000, 10_000):
        if states <= bound:
            return f"<= {bound:,}"
    return f"{states // 10_000 * 10_000:,}-{states // 10_000 * 10_000 + 9_999:,}"


def fields_differ(what: str, reference: object, candidate: object, names: tuple[str, ...]) -> list[str]:
    """The named attributes on which two results differ, each with both values."""
    return [f"{what}: {name} {getattr(reference, name)!r} against {getattr(candidate, name)!r}"
            for name in names if getattr(reference, name) != getattr(candidate, name)]


@contextmanager
def changed(owner: Any, name: str, change: Callable[[Any], Any]) -> Iterator[None]:
    """`owner.name` replaced by itself with `change` applied to what it returns: a back-end that
    computes as before, then answers wrong."""
    original = getattr(owner, name)
    setattr(owner, name, lambda *args, **kwargs: change(original(*args, **kwargs)))
    try:
        yield
    finally:
        setattr(owner, name, original)


def flipped(status: str) -> str:
    return {"holds": "fails", "fails": "holds"}.get(status, "holds")


# -- the reference interpreter against the generated Python code ------------------------------
RAISED = "a modelling error"


def raised(fn: Callable[..., Any], *args: Any) -> Any:
    """`fn(*args)`, or RAISED when it raises a modelling error."""
    try:
        return fn(*args)
    except ModellingError:
        return RAISED


def successor_differences(model: Model, config: Config, limit: int = 60_000) -> tuple[int, list[str]]:
    """Explore with the generated successor function and compare, on every reachable state, its
    moves (action, parameters, packed target) and terminality with the interpreter's. Returns
    the number of states compared and the first differences; a state whose moves raise is not
    expanded."""
    compiled, interp = CompiledModel(model, config), Interpreter(model, config)
    seen = set(compiled.initial)
    queue = deque(compiled.initial)
    problems: list[str] = []
    while queue and len(problems) < 5:
        s = queue.popleft()
        state = compiled.layout.unpack(s)
        ended, should_end = raised(compiled.terminal, s), raised(interp.terminal, state)
        if ended != should_end:
            problems.append(f"terminal: compiled {ended}, interpreted {should_end} in {state}")
            continue
        if ended is not False:
            continue
        got = raised(lambda s=s: sorted((compiled.instances[i].action.name, compiled.instances[i].params, t) for i, t in compiled.successors(s)))
        want = raised(lambda state=state: sorted((m.action, m.params, compiled.layout.pack(m.post)) for m in interp.transitions(state)))
        if got == RAISED or want == RAISED:
            # the generated code skips the free actions while a forced rule is enabled, the
            # interpreter evaluates (and may raise in) them: only a raise in the code alone is wrong
            if got == RAISED and want != RAISED:
                problems.append(f"in {state}: the generated code raises, the interpreter does not")
            continue
        if got != want:
            problems.append(f"in {state}: compiled only {sorted(set(got) - set(want))}, interpreted only {sorted(set(want) - set(got))}")
        for _, _, t in got:
            if t not in seen:
                seen.add(t)
                queue.append(t)
        assert len(seen) <= limit, "the generator made a model larger than the test's limit"
    return len(seen), problems


class Successors:
    """The generated Python successor and terminal functions against the reference interpreter,
    state by state: the same moves (action, parameters, target) and terminality everywhere."""

    name = "successors"
    needs: tuple[str, ...] = ()
    every_reading = True
    extra_props = ""
    examples = EXAMPLES
    large_examples = int(os.environ.get("RULECHECK_LARGE_EXAMPLES", "3"))  # the interpreter is slow: 3 take about 15 s
    bundled: tuple[tuple[str, dict[str, int]], ...] = ()

    def differences(self, case: Case) -> list[str]:
        states, problems = successor_differences(case.model, case.config)
        note(f"reachable states: {size_band(states)}")
        if case.scale == "large" and states < 10_000:
            problems.append(f"a large model of {states} states")
        return problems

    @contextmanager
    def mutant(self) -> Iterator[None]:
        """Every state's last move dropped by the generated function."""
        original = CompiledModel.__init__

        def dropping(compiled: CompiledModel, *args: Any, **kwargs: Any) -> None:
            original(compiled, *args, **kwargs)
            honest, terminal = compiled._build()
            compiled._functions = (lambda s: honest(s)[:-1], terminal)

        CompiledModel.__init__ = dropping  # type: ignore[method-assign]
        try:
            yield
        finally:
            CompiledModel.__init__ = original  # type: ignore[method-assign]


def worded(call: Callable[[int], Any], s: int) -> Any:
    """`call(s)`, or ("error", its message) for a modelling error: an error is compared in words."""
    try:
        return call(s)
    except ModellingError as exc:
        return ("error", exc.message)


def stepper_differences(model: Model, config: Config, limit: int) -> tuple[int, bool, list[str]]:
    """The bytecode interpreter's successor and terminal functions (`native.stepper`) against the
    generated Python ones over up to `limit` states breadth first: the same moves (instance
    numbers, packed states, order), terminal flags and modelling errors in the same words.
    Returns the states compared, whether they are every reachable state (the search ran out of
    states before `limit`), and the first differences."""
    from checker.engines.native import stepper

    python = CompiledModel(model, config)
    native = stepper.attach(CompiledModel(model, config, lazy=True))
    assert native.successors is not python.successors
    seen = set(python.initial)
    queue = deque(python.initial)
    compared, problems = 0, []
    while queue and compared < limit and len(problems) < 5:
        s = queue.popleft()
        compared += 1
        ended, moves = worded(python.terminal, s), worded(python.successors, s)
        if worded(native.terminal, s) != ended:
            problems.append(f"terminal in {s}: python {ended}, native {worded(native.terminal, s)}")
        if worded(native.successors, s) != moves:
            problems.append(f"moves in {s}: python {moves}, native {worded(native.successors, s)}")
        if ended is True or isinstance(moves, tuple):
            continue
        for _, t in moves:
            if t not in seen:
                seen.add(t)
                queue.append(t)
    return compared, not queue and not problems, problems


class Stepper:
    """The bytecode interpreter's successor and terminal functions, which the searches that step
    through states from Python use (`backend.stepping`), against the generated Python ones:
    state by state, the first 3,000 states of a bundled model."""

    name = "stepper"
    needs = ("numba",)
    every_reading = True
    extra_props = ""
    examples = 3 * EXAMPLES
    large_examples = 0
    bundled = EVERY_BUNDLED[1::2]

    def differences(self, case: Case) -> list[str]:
        compared, every_state, problems = stepper_differences(case.model, case.config, 3_000)
        # a bundled model whose search stopped short (its moves raising early, say) compared too
        # little to speak for it; a small model (a worked example) compared whole is fine
        if case.scale == "bundled" and compared <= 100 and not every_state:
            problems.append(f"only {compared} states compared")
        return problems

    def mutant(self) -> AbstractContextManager[None]:
        """The interpreter's successor function dropping each state's last move."""
        from checker.engines.native import stepper

        return changed(stepper.Stepper, "successors", lambda moves: moves[:-1])


# -- the Python engine against the bytecode interpreter ---------------------------------------
def finding_key(f: Any) -> tuple:
    """Everything a finding says that a report shows: verdict, path, shape, loop and wording."""
    return (f.status, [int(n) for n in f.path], f.shape, f.loop_start, f.note, f.detail, f.branch_instances, f.last_instance)


def compare(model: Model, config: Config, props: list[BoundProperty], budget: Any = None, whole: bool = False) -> list[str]:
    """Where the Python engine and the bytecode interpreter differ on one configuration: the
    same states in the same order, parents, layers, transitions, actions fired, edges and, for
    every property, the same finding. With `whole`, an exploration the budget stopped is a
    difference too (the comparison is meant whole)."""
    from checker.engines import explicit
    from checker.engines.explicit import Budget
    from checker.engines.native import engine

    budget = budget or Budget(200_000, 120.0)
    compiled = CompiledModel(model, config)
    need_graph = any(KINDS[p.kind].needs_edges for p in props)
    py_exp, py_found = explicit.explore(compiled, props, budget, need_graph=need_graph)
    try:
        nat_exp, nat_found = engine.explore(compiled, props, budget, need_graph=need_graph)
    except engine.NativeDeferred:
        property_errors = [f for f in py_found.values() if f.status == "error"]
        if py_exp.error is None and not property_errors:
            return ["the native engine deferred a configuration without any error"]
        return []
    out = []
    if whole and not py_exp.complete:
        out.append(f"not explored whole: stopped by {py_exp.stopped_by} after {len(py_exp.states)} states")
    if py_exp.error is not None:
        out.append(f"the Python engine met a modelling error ({py_exp.error[1]}) the native one did not")
    if list(py_exp.states) != list(nat_exp.states):
        out.append(f"states differ: {len(py_exp.states)} against {len(nat_exp.states)}")
    if list(py_exp.parent) != [int(p) for p in nat_exp.parent]:
        out.append("parents differ")
    out += fields_differ("exploration", py_exp, nat_exp, ("layer_ends", "transitions", "complete", "stopped_by", "fired"))
    if need_graph and py_exp.complete:
        if list(py_exp.graph.starts) != [int(x) for x in nat_exp.graph.starts] or list(py_exp.graph.edges) != [int(x) for x in nat_exp.graph.edges]:
            out.append("edges differ")
    py = explicit.decide(py_exp, props, py_found)
    nat = engine.decide(nat_exp, props, nat_found)
    for prop in props:
        if finding_key(py[prop.id]) != finding_key(nat[prop.id]):
            out.append(f"{prop.id}: python {finding_key(py[prop.id])} against native {finding_key(nat[prop.id])}")
    return out


class NativeExplicit:
    """The bytecode interpreter's exploration and verdicts against the Python engine's: state for
    state, edge for edge, finding for finding (every property kind, `can-end` included); every
    bundled model explored whole (about a minute of CPU, SMS's showdown of 478,340 states the
    largest)."""

    name = "native"
    needs = ("numba",)
    every_reading = True
    extra_props = "\n- {id: ends-reachable, kind: can-end}"  # native and Python only; the symbolic engine has none
    examples = EXAMPLES
    large_examples = 2
    bundled = EVERY_BUNDLED

    def differences(self, case: Case) -> list[str]:
        from checker.engines.explicit import Budget

        if case.scale == "bundled":
            return compare(case.model, case.config, case.props, Budget(2_000_000, 1800.0), whole=True)
        return compare(case.model, case.config, case.props)

    def mutant(self) -> AbstractContextManager[None]:
        """The first property's verdict flipped by the interpreter's decision."""
        from checker.engines.native import engine

        def flip(found: dict) -> dict:
            first = next(iter(found))
            return {**found, first: dataclasses.replace(found[first], status=flipped(found[first].status))}

        return changed(engine, "decide", flip)


class NativeStopping:
    """A run that stops once every property is decided (the growth re-checks) stops at the same
    state in the bytecode interpreter as in the Python engine and decides the same: each
    property alone and all of them, under every reading, also where a budget stops the run
    first (a graph property is then undecided in both). Coverage and an unbounded `terminates`
    are decided at layers' ends (`layer_checks`)."""

    name = "native-stopping"
    needs = ("numba",)
    every_reading = True
    extra_props = "\n- {id: fired, kind: coverage}"
    examples = 3 * EXAMPLES
    large_examples = 0
    bundled = EVERY_BUNDLED

    def differences(self, case: Case) -> list[str]:
        from checker.engines.explicit import Budget

        if case.scale == "bundled":  # the whole suite in one run
            return compare(case.model, case.config, case.props, Budget(40_000, 600.0, stop_when_decided=True))
        out = []
        for chosen in [case.props, *([p] for p in case.props)]:
            for budget in (Budget(200_000, 120.0, stop_when_decided=True), Budget(12, 120.0, stop_when_decided=True)):
                out += compare(case.model, case.config, chosen, budget)
        return out

    def mutant(self) -> AbstractContextManager[None]:
        """One transition lost from the interpreter's count."""
        from checker.engines.native import engine

        def lose(result: tuple) -> tuple:
            exp, found = result
            exp.transitions -= 1
            return exp, found

        return changed(engine, "explore", lose)


class CompiledPasses:
    """The compiled graph passes (used on large graphs) run on the Python engine's edge arrays
    against the Python passes: the same verdicts, lassos, paths, exits and wording for
    `terminates` (with and without `within`), `leads-to` and `can-end`; and the impact
    analysis's longest play the same."""

    name = "compiled-passes"
    needs = ("numba",)
    every_reading = True
    extra_props = "\n- {id: ends-reachable, kind: can-end}"
    examples = 4 * EXAMPLES
    large_examples = 0
    bundled: tuple[tuple[str, dict[str, int]], ...] = ()

    @staticmethod
    def with_passes(threshold: int, fn: Callable[..., Any], *args: Any) -> Any:
        """`fn(*args)` with the compiled passes used from `threshold` states (0: always; a huge
        one: never, the Python passes)."""
        from checker.engines import explicit

        saved = explicit.COMPILED_PASSES_FROM
        explicit.COMPILED_PASSES_FROM = threshold
        try:
            return fn(*args)
        finally:
            explicit.COMPILED_PASSES_FROM = saved

    def differences(self, case: Case) -> list[str]:
        from checker.analysis.outcomes import longest_play
        from checker.engines import explicit
        from checker.engines.explicit import Budget
        from checker.engines.statespace import explore_space

        exp, found = explicit.explore(CompiledModel(case.model, case.config), case.props, Budget(200_000, 120.0))
        python = self.with_passes(1 << 62, explicit.decide, exp, case.props, found)
        compiled = self.with_passes(0, explicit.decide, exp, case.props, found)
        out = [f"{p.id}: Python passes {finding_key(python[p.id])}, compiled {finding_key(compiled[p.id])}"
               for p in case.props if (finding_key(python[p.id]), python[p.id].loop_exits) != (finding_key(compiled[p.id]), compiled[p.id].loop_exits)]
        space = explore_space(exp.compiled)
        if space.complete and self.with_passes(1 << 62, longest_play, space) != self.with_passes(0, longest_play, space):
            out.append("the longest play differs")
        return out

    def mutant(self) -> AbstractContextManager[None]:
        """The compiled `terminates` pass answering the opposite."""
        from checker.engines.native import passes

        return changed(passes, "terminates", lambda f: dataclasses.replace(f, status=flipped(f.status)))


# -- the explicit engine against the symbolic one ---------------------------------------------
MAX_LOOP_STATES = 16  # compare terminates / leads-to only when the lasso search can be exhaustive
EXACT_LENGTH = ("invariant", "unreachable", "deadlock-free", "after", "deterministic")
FOUND = {"invariant": "fails", "unreachable": "fails", "after": "fails", "reachable": "holds"}
SYMBOLIC_DEPTH = 6  # the symbolic engine unrolls this far on the large models (z3 time grows fast)
SHORTEST = ("invariant", "unreachable", "after")


def symbolic_verdict(result: Any) -> str:
    """The symbolic verdict read at a depth that covers every reachable state."""
    if result.status == "undecided" and result.prop.kind in ("reachable", "coverage"):
        return "fails"
    return result.status


def interpreter_error_depth(model: Model, config: Config) -> int | None:
    """Breadth-first in the reference interpreter: the depth of the first state whose
    transitions raise a modelling error (None when no reachable state does)."""
    interp = Interpreter(model, config)
    seen = set()
    queue: deque = deque()
    for s in interp.initial_states():
        if freeze(s) not in seen:
            seen.add(freeze(s))
            queue.append((s, 0))
    while queue:
        state, depth = queue.popleft()
        try:
            moves = interp.transitions(state)
        except ModellingError:
            return depth
        for move in moves:
            key = freeze(move.post)
            if key not in seen:
                seen.add(key)
                queue.append((move.post, depth + 1))
    return None


def property_reference(model: Model, config: Config, props: list[BoundProperty]) -> dict[str, tuple[int | None, int | None]]:
    """Breadth-first in the reference interpreter (on a model whose transitions never raise):
    per property with expressions, (the depth of the first state where its expression raises,
    the depth of the first state that decides it: a violation, or a `reachable` witness)."""
    interp = Interpreter(model, config)
    out: dict[str, list] = {p.id: [None, None] for p in props if p.kind in (*FOUND, "leads-to")}

    def seen_at(prop: BoundProperty, depth: int, expr_calls: list[Callable[[], Any]]) -> None:
        slot = out[prop.id]
        try:
            values = [call() for call in expr_calls]
        except ModellingError:
            if slot[0] is None:
                slot[0] = depth
            return
        decided = (not values[0]) if prop.kind in ("invariant", "after") else bool(values[0]) if prop.kind != "leads-to" else False
        if decided and slot[1] is None:
            slot[1] = depth

    seen, queue = set(), deque()
    for s in interp.initial_states():
        if freeze(s) not in seen:
            seen.add(freeze(s))
            queue.append((s, 0))
    while queue:
        state, depth = queue.popleft()
        for prop in props:
            if prop.kind in ("invariant", "unreachable", "reachable"):
                seen_at(prop, depth, [lambda e=prop.expr, s=state: interp.eval(e, s)])
            elif prop.kind == "leads-to":
                seen_at(prop, depth, [lambda e=prop.source, s=state: interp.eval(e, s), lambda e=prop.target, s=state: interp.eval(e, s)])
        for move in interp.transitions(state):
            for prop in props:
                if prop.kind == "after" and move.action == prop.action:
                    seen_at(prop, depth + 1, [lambda e=prop.expr, m=move, s=state: interp.eval(e, m.post, dict(m.params), old=s)])
            key = freeze(move.post)
            if key not in seen:
                seen.add(key)
                queue.append((move.post, depth + 1))
    return {pid: (v[0], v[1]) for pid, v in out.items()}


def allowed_with_property_errors(kind: str, raises: int, decides: int | None) -> set[str]:
    """The verdicts a breadth-first engine may give when the property's expression raises at
    depth `raises`: `error`, or the ordinary verdict when a deciding state is as shallow (which
    of the two comes first at one depth is the engine's order)."""
    if kind == "leads-to":
        return {"error"}
    if decides is None or raises < decides:
        return {"error"}
    if raises == decides:
        return {"error", FOUND[kind]}
    return {FOUND[kind]}


def modelling_error(result: Any) -> bool:
    """An `error` from the model's transitions (not from the property's own expression)."""
    return result.status == "error" and (result.trace is None or result.trace.shape != "property-error")


class Symbolic:
    """The symbolic engine (z3: BMC, k-induction, ranking functions) against the explicit one,
    where it decides. It deepens far enough to cover every reachable state (the explicit
    engine's breadth-first depth, or the number of states for the loop-shaped kinds), so its
    bounded verdicts are exact and must equal the explicit ones, and its first counterexample
    must be as short as the explicit breadth-first one. A `within` bound is decided exactly
    whatever the run's depth, so it is also checked at depth 1, where a measure must never prove
    it; a proof at depth 1 (of `ends` or `leads`, by a measure decreasing over k steps or from
    termination and deadlock freedom) must match the explicit verdict. A property whose
    expression raises is `error` in both, with a trace as short as the reference
    interpreter's first raising state; a modelling error is compared with the interpreter too.
    On large models it unrolls only SYMBOLIC_DEPTH steps: what the explicit engine finds within
    that it must find at the same depth, nothing beyond, and a proof must be of a property that
    holds."""

    name = "symbolic"
    needs: tuple[str, ...] = ("z3",)
    every_reading = False
    extra_props = ""
    examples = {"ci": 60, "local": 400}[PROFILE]
    large_examples = {"ci": 2, "local": 20}[PROFILE]
    bundled: tuple[tuple[str, dict[str, int]], ...] = ()

    def differences(self, case: Case) -> list[str]:
        if case.scale == "large":
            return self.large_differences(case)
        return self.exhaustive_differences(case)

    def exhaustive_differences(self, case: Case) -> list[str]:
        """Modelling errors are compared with the reference interpreter rather than the explicit
        engine: the generated successor function skips the free actions of a state where a
        forced rule is enabled, while the interpreter (the semantics) evaluates them and raises
        when one of them errs, so the two can disagree on errors (see the report on issue 4)."""
        path, model, config = case.path, case.model, case.config
        reference_error = interpreter_error_depth(model, config)
        try:
            exp = run(path, "explicit", config=config)
        except (ModellingError, ReplayMismatch):
            exp = None  # the explicit engine's trace does not replay: the discrepancy above
            if reference_error is None:
                raise
        given_that(exp is None or next(iter(exp.values())).bound == "exhaustive")
        if exp is None:
            states, depth = 10_000, reference_error or 0
        else:
            states, depth = next(iter(exp.values())).states, next(iter(exp.values())).depth
            note(f"reachable states: {size_band(states)}")
        loops = states <= MAX_LOOP_STATES
        sym_depth = max(depth + 1, states + 1 if loops else 0)
        ids = {p.id for p in case.props}
        try:
            sym = run(path, "symbolic", depth=sym_depth, config=config)
            # a `within` bound is decided exactly whatever the run's depth (BMC goes to within + 1)
            if "soon" in ids:
                sym.update(run(path, "symbolic", depth=1, ids={"soon"}, config=config))
            # proofs that do not wait for an exhaustive BMC (a measure decreasing over k steps,
            # leads-to from termination and deadlock freedom) must be right at depth 1 too
            shallow = run(path, "symbolic", depth=1, ids={"ends", "leads", "deadlock-free"} & ids, config=config)
        except ReplayMismatch as exc:
            return [f"symbolic trace does not replay: {exc}"]
        references = property_reference(model, config, case.props) if reference_error is None else {}
        out = []
        s_err = next((r for r in sym.values() if modelling_error(r)), None)
        e_err = next((r for r in exp.values() if modelling_error(r)), None) if exp is not None else None
        if reference_error is not None or s_err is not None or e_err is not None:
            # a modelling error stops the search: compare where it first happens with the interpreter
            if reference_error is None or s_err is None:
                out.append(f"modelling error: interpreter at depth {reference_error}, symbolic {s_err and s_err.detail!r}")
            elif trace_len(s_err) != reference_error:
                out.append(f"modelling error depth: interpreter {reference_error}, symbolic {trace_len(s_err)}")
            return out
        assert exp is not None
        for pid, e in exp.items():
            s = sym[pid]
            raises, decides = references.get(pid, (None, None))
            if raises is not None:
                # the property's own expression raises somewhere: `error` with a shortest trace
                allowed = allowed_with_property_errors(e.prop.kind, raises, decides)
                if e.status not in allowed:
                    out.append(f"{pid}: explicit {e.status}, expected one of {sorted(allowed)} (raises at depth {raises})")
                sym_allowed = allowed | ({"fails"} if e.prop.kind == "leads-to" else set())
                if symbolic_verdict(s) not in sym_allowed:
                    out.append(f"{pid}: symbolic {s.status} ({s.bound}), expected one of {sorted(sym_allowed)} (raises at depth {raises})")
                for r, who in ((e, "explicit"), (s, "symbolic")):
                    if r.status == "error" and trace_len(r) != raises:
                        out.append(f"{pid}: {who} property error after {trace_len(r)} steps, the interpreter's first at {raises}")
                continue
            if e.prop.kind == "leads-to" and not loops:
                continue
            if e.prop.kind == "terminates" and not loops and e.prop.within is None:
                continue
            if pid in shallow and shallow[pid].status == "holds" and shallow[pid].proof and e.status != "holds":
                out.append(f"{pid}: explicit {e.status}, symbolic at depth 1 holds ({shallow[pid].bound})")
            if symbolic_verdict(s) != e.status:
                out.append(f"{pid}: explicit {e.status}, symbolic {s.status} ({s.bound})")
            elif e.status == "fails" and e.prop.kind in EXACT_LENGTH and trace_len(e) != trace_len(s):
                out.append(f"{pid}: shortest counterexample explicit {trace_len(e)} steps, symbolic {trace_len(s)}")
        return out

    def large_differences(self, case: Case) -> list[str]:
        python = run(case.path, "explicit", backend="python")
        note(f"reachable states: {size_band(next(iter(python.values())).states)}")
        sym = run(case.path, "symbolic", depth=SYMBOLIC_DEPTH, ids={"inv", "reach", "unreach", "aft", "deadlock-free"})
        out = []
        for pid, s in sym.items():
            e, kind = python[pid], python[pid].prop.kind
            found = "holds" if kind == "reachable" else "fails"
            shallow = e.status == found and (trace_len(e) or 0) <= SYMBOLIC_DEPTH if kind != "reachable" else e.status == "holds"
            if s.status == found and kind != "reachable":
                if e.status != found or trace_len(s) != trace_len(e):
                    out.append(f"{pid}: symbolic {s.status} after {trace_len(s)} steps, explicit {e.status} after {trace_len(e)}")
            elif s.status == found:  # a reachable witness
                if e.status != "holds":
                    out.append(f"{pid}: symbolic finds a witness, explicit {e.status}")
            elif s.status == "holds" and s.proof and e.status != "holds":
                out.append(f"{pid}: symbolic proves it ({s.bound}), explicit {e.status}")
            elif kind in SHORTEST and shallow:
                out.append(f"{pid}: explicit {e.status} after {trace_len(e)} steps, symbolic {s.status} ({s.bound}) within {SYMBOLIC_DEPTH}")
        return out

    def mutant(self, kind: str = "transition", action: str | None = None) -> AbstractContextManager[None]:
        """The encoding broken: every guard ignored ("guard"), or an action's transitions
        dropped ("transition": the named action's, or the last instance's)."""
        return mutated_encoding(kind, action)


@contextmanager
def mutated_encoding(kind: str, action: str | None) -> Iterator[None]:
    from checker.engines.symbolic import encoding

    original = encoding.Encoder.step

    def step(self: Any, state: Any) -> Any:
        result = original(self, state)
        if kind == "guard":
            result.guards = [encoding.AND(self.exists(inst.action), True) for inst in self.instances]
        elif action is None:  # the last instance can never fire
            result.guards = result.guards[:-1] + [False]
        else:
            result.guards = [False if inst.action.name == action else g for g, inst in zip(result.guards, self.instances)]
        forced = encoding.OR(*(g for g, inst in zip(result.guards, self.instances) if inst.forced))
        result.forced_any = forced
        result.enabled = [g if inst.forced else encoding.AND(g, encoding.NOT(forced)) for g, inst in zip(result.guards, self.instances)]
        return result

    encoding.Encoder.step = step  # type: ignore[method-assign]
    try:
        yield
    finally:
        encoding.Encoder.step = original  # type: ignore[method-assign]


def free_differences(path: str, model: Model) -> list[str]:
    """The symbolic engine with the constant `c` and the reading `r` of a generated model left
    free must find a counterexample exactly when the explicit engine finds one under some
    configuration, name a configuration where it does, and be as short as the shortest."""
    base = model.default_config()
    options = list(model.readings["r"].options) if "r" in model.readings else [None]
    every = [Config({**base.constants, "c": c}, {**base.readings, **({"r": o} if o else {})}) for c in range(3) for o in options]
    ids = {"inv", "unreach", "reach", "aft", "deadlock-free"}
    explicit = []
    for cfg in every:
        given_that(bool(Interpreter(model, cfg).initial_states()))
        results = run(path, "explicit", ids=ids, config=cfg)
        # errors and unfinished explorations are compared elsewhere
        given_that(not any(r.status == "error" or r.bound != "exhaustive" for r in results.values()))
        explicit.append((cfg, results))
    depth = max(next(iter(r.values())).depth for _, r in explicit)
    sym = run(path, "symbolic", depth=depth + 1, ids=ids, free_constants=True, free_readings=True)
    out = []
    for pid, s in sym.items():
        kind = s.prop.kind
        found = "holds" if kind == "reachable" else "fails"
        hits = [(cfg, r[pid]) for cfg, r in explicit if r[pid].status == found]
        if s.status == "error":
            out.append(f"{pid}: symbolic error ({s.detail}) though no configuration raises")
        elif kind == "reachable":
            if (symbolic_verdict(s) == "holds") != bool(hits):
                out.append(f"{pid}: symbolic {s.status}, explicit holds under {len(hits)} of {len(explicit)} configurations")
        elif bool(hits) != (s.status == "fails"):
            out.append(f"{pid}: symbolic {s.status} ({s.bound}), explicit fails under {len(hits)} of {len(explicit)} configurations")
        elif hits:
            if (s.config.constants, s.config.readings) not in [(cfg.constants, cfg.readings) for cfg, _ in hits]:
                out.append(f"{pid}: symbolic names {s.detail!r}, where the explicit engine finds no counterexample")
            if trace_len(s) != min(trace_len(r) for _, r in hits):
                out.append(f"{pid}: symbolic {trace_len(s)} steps, the shortest explicit {min(trace_len(r) for _, r in hits)}")
    return out


# -- the single-process search against the partitioned one (Dask) -----------------------------
class Distributed:
    """The partitioned search (`--engine distributed`, on a cluster session the suite opens)
    against the single-process Python engine: the same states, transitions and depth, the same
    verdicts and traces of the same (shortest) length; a graph property decided on this machine
    by the explicit engine (labelled so) with the reference's verdict; a modelling error found
    at the same depth."""

    name = "distributed"
    needs = ("distributed",)
    every_reading = False
    extra_props = ""
    examples = 6
    large_examples = 2
    bundled = (
        (f"{HERE}/models/showngo/junior.yaml", {"n_tackle": 1}),  # 10,843 states instead of 50,275
        (f"{HERE}/models/titlebelt/two-player.yaml", {}),
        (f"{HERE}/models/supershow/triple-threat-first-fall.yaml", {}),
        (f"{HERE}/models/sms/support.yaml", {"last_turn": 1}),  # 12,577 states instead of 259,600
    )

    def differences(self, case: Case) -> list[str]:
        reference = run(case.path, "explicit", config=case.config, backend="python")
        spread = run(case.path, "distributed", config=case.config)
        stopped = any(r.status == "error" and r.trace is not None and r.trace.shape == "error" for r in reference.values())
        out = []
        for pid, ref in reference.items():
            got = spread[pid]
            engine = "explicit" if KINDS[ref.prop.kind].klass is KindClass.GRAPH else "distributed"
            if got.engine != engine:
                out.append(f"{pid}: decided by the {got.engine} engine, not the {engine} one")
            if "error" in (ref.status, got.status):
                # A modelling error stops both searches at the first level where one occurs, and
                # which violation or error of a level is shown may differ (the order of a level
                # is not global): the depth at which it is found may not.
                if trace_len(got) != trace_len(ref):
                    out.append(f"{pid}: {got.status} after {trace_len(got)} steps, reference {ref.status} after {trace_len(ref)}")
                continue
            if stopped:
                continue
            mine = (got.status, got.states, got.transitions, got.depth, trace_len(got))
            theirs = (ref.status, ref.states, ref.transitions, ref.depth, trace_len(ref))
            if mine != theirs:
                out.append(f"{pid}: {engine} {mine}, reference {theirs}")
        return out

    def mutant(self) -> AbstractContextManager[None]:
        """The partitioned search counting one state more than its partitions found."""
        from checker.engines.distributed import PartitionedSearch

        return changed(PartitionedSearch, "explore", lambda outcome: dataclasses.replace(outcome, states=outcome.states + 1))


# -- the analyses' Python loops against their compiled kernels --------------------------------
class Space:
    """The impact analysis's state space in the bytecode interpreter (`explore_space_natively`)
    against the Python loop: the same states in the same order, parents, moves, instances,
    movers, weights, terminal flags, depth and reason to stop, with budgets that stop them; the
    native states packed when read, one by one or together, in the order asked."""

    name = "space"
    needs = ("numba",)
    every_reading = True
    extra_props = ""
    examples = 3 * EXAMPLES
    large_examples = 0
    bundled = EVERY_BUNDLED[1::3]
    FIELDS = ("states", "index", "parent", "starts", "targets", "instances", "movers", "weights", "terminal", "depth", "complete", "stopped_by", "error")

    def differences(self, case: Case) -> list[str]:
        compiled = CompiledModel(case.model, case.config)
        return [d for budget in ((30_000,) if case.scale == "bundled" else (200_000, 7, 3)) for d in self.agree(compiled, budget)]

    @classmethod
    def agree(cls, compiled: CompiledModel, max_states: int) -> list[str]:
        from checker.engines import statespace
        from checker.engines.native import engine

        python = statespace.explore_space_in_python(compiled, max_states, 600.0)
        try:
            native = statespace.explore_space_natively(compiled, max_states, 600.0)
        except engine.NativeDeferred:
            return [] if python.error is not None else ["the interpreter stopped where the Python loop met no error"]
        out = fields_differ(f"space of {max_states}", python, native, cls.FIELDS)
        if native.initial_nodes() != python.initial_nodes():  # numbered first, not looked up
            out.append("initial nodes differ")
        nodes = [0, python.size // 2, python.size - 1, -1] if python.size else []
        picked = list(range(python.size - 1, -1, -3))
        if [native.states[n] for n in nodes] != [python.states[n] for n in nodes] or native.states[1:4] != python.states[1:4]:
            out.append("states read one by one differ")
        if not native.states_at(picked) == python.states_at(picked) == [python.states[n] for n in picked]:
            out.append("states read together differ")
        return out

    def mutant(self) -> AbstractContextManager[None]:
        """The interpreter's space with its first state's terminal flag flipped."""
        from checker.engines import statespace

        def flip(space: Any) -> Any:
            space.terminal = bytearray([1 - space.terminal[0]]) + space.terminal[1:] if space.terminal else bytearray([1])
            return space

        return changed(statespace, "explore_space_natively", flip)


class Evidence:
    """The Readings re-check's exploration in the bytecode interpreter (`decide_natively`)
    against the Python loop: the same verdicts, number of states, completeness and reason to
    stop, for each verdict alone, all and none, with budgets that stop them and `at_least`
    counts that hold them."""

    name = "evidence"
    needs = ("numba",)
    every_reading = True
    extra_props = ""
    examples = 3 * EXAMPLES
    large_examples = 0
    bundled = EVERY_BUNDLED[::3]

    @staticmethod
    def wanted_lists(model: Model) -> list[list[str]]:
        """Each verdict alone, all of them, and none (only `at_least` holds the run)."""
        from checker.analysis.evidence import CAN_END, ENDS_SURELY, OUTCOME, STUCK_REACHABLE

        outcome = model.outcome
        if outcome is None:
            labels = ["finished"]
        elif outcome.type.kind == "enum":
            labels = list(model.scope.domain_of(outcome.type).members)
        else:
            labels = ["True", "False", "0", "1"]
        names = [STUCK_REACHABLE, CAN_END, ENDS_SURELY, *(OUTCOME + label for label in labels)]
        return [[name] for name in names] + [names, []]

    def differences(self, case: Case) -> list[str]:
        from checker.analysis.evidence import CAN_END, STUCK_REACHABLE

        compiled = CompiledModel(case.model, case.config)
        if case.scale == "bundled":
            runs = [(wanted, 30_000, 0) for wanted in self.wanted_lists(case.model)[::2]] + [([STUCK_REACHABLE, CAN_END], 30_000, 20_000)]
        else:
            runs = [(wanted, max_states, at_least) for wanted in self.wanted_lists(case.model) for max_states, at_least in ((200_000, 0), (7, 0), (200_000, 5), (3, 2))]
        return [d for wanted, max_states, at_least in runs for d in self.agree(compiled, wanted, max_states, at_least)]

    @staticmethod
    def agree(compiled: CompiledModel, wanted: list[str], max_states: int, at_least: int) -> list[str]:
        from checker.analysis import evidence
        from checker.engines.native import engine

        python = evidence.decide_in_python(compiled, wanted, max_states, at_least)
        try:
            native = evidence.decide_natively(compiled, wanted, max_states, at_least)
        except engine.NativeDeferred:
            return [] if python.stopped_by.startswith("at a modelling error") else ["the interpreter stopped where the Python loop met no error"]
        return [] if native == python else [f"{wanted} within {max_states} (at least {at_least}): python {python}, native {native}"]

    def mutant(self) -> AbstractContextManager[None]:
        """The interpreter counting one state more than it found."""
        from checker.analysis import evidence

        return changed(evidence, "decide_natively", lambda v: dataclasses.replace(v, states=v.states + 1))


class Divergence:
    """The divergence search in the bytecode interpreter (`search_in_interpreter`) against the
    Python search: the same kind, play, number of states, depth and reason to stop, for every
    pair of reading combinations that share their constants (a bundled model: each of its first
    two readings against its first other option), with budgets that stop the search."""

    name = "divergence"
    needs = ("numba",)
    every_reading = True
    extra_props = ""
    examples = EXAMPLES
    large_examples = 0
    bundled = EVERY_BUNDLED[::4]
    FIELDS = ("kind", "path", "states", "depth", "complete", "stopped_by")

    def differences(self, case: Case) -> list[str]:
        if case.scale == "bundled":
            base = case.config
            others = [base.with_readings({name: next(o for o in case.model.scope.readings[name].members if o != base.readings[name])})
                      for name in sorted(case.model.readings)[:2]]
            return [d for other in others for d in self.agree(case.model, base, other, 20_000)]
        every = configs(case.model)
        later = every[every.index(case.config) + 1:] if case.config in every else []
        return [d for other in later if other.constants == case.config.constants and Interpreter(case.model, other).initial_states()
                for max_states in (200_000, 6) for d in self.agree(case.model, case.config, other, max_states)]

    @classmethod
    def agree(cls, model: Model, baseline: Config, alternative: Config, max_states: int) -> list[str]:
        from checker.analysis import divergence

        a, b = CompiledModel(model, baseline), CompiledModel(model, alternative)
        with_actor = divergence._actor_consults_readings(model)
        python = divergence.search_in_python(a, b, with_actor, max_states, 600.0)
        native = divergence.search_in_interpreter(a, b, with_actor, max_states, 600.0)
        return fields_differ(f"{baseline.readings} against {alternative.readings} within {max_states}", python, native, cls.FIELDS)

    def mutant(self) -> AbstractContextManager[None]:
        """The interpreter's search one level shallower than it went."""
        from checker.analysis import divergence

        return changed(divergence, "search_in_interpreter", lambda s: dataclasses.replace(s, depth=s.depth - 1))


class Witness:
    """The Readings re-check's seeded witness walks in the bytecode interpreter against the
    Python walks (`witness._walked`): the same witness (its states) after the same number of
    states, or none within the same budget, for every verdict sought (a stuck state, each
    outcome, a state from which no play ends, with and without stuck states as ends); a walk
    meeting an error is left to Python, which no bundled model's does."""

    name = "witness"
    needs = ("numba",)
    every_reading = True
    extra_props = ""
    examples = 2 * EXAMPLES
    large_examples = 0
    bundled = EVERY_BUNDLED

    @staticmethod
    def verdicts(model: Model) -> list[str]:
        """Every verdict `find_verdict` is asked for: a stuck state, each outcome the model can
        name (an integer outcome: a few values), no end (two ways)."""
        from checker.analysis.evidence import CAN_END, ENDS_SURELY, OUTCOME, STUCK_REACHABLE

        outcome = model.outcome
        if outcome is None:
            labels = ["finished"]
        elif outcome.type.kind == "enum":
            labels = list(model.scope.domain_of(outcome.type).members)
        elif outcome.type.kind == "bool":
            labels = ["True", "False"]
        else:
            labels = ["0", "1", "2", "-1", "x"]
        return [STUCK_REACHABLE, CAN_END, ENDS_SURELY, *(OUTCOME + label for label in labels)]

    def differences(self, case: Case) -> list[str]:
        from checker.analysis import witness

        if case.scale == "bundled":
            runs = [(budget, witness.walk_length(depth), witness.SEED) for budget, depth in ((3_000, 5), (40_000, 20))]
        else:
            runs = [(budget, length, case.seed) for budget, length in ((400, 50), (60, 3), (5, 1))]
        out = []
        for name in self.verdicts(case.model):
            for budget, length, seed in runs:
                _, python_path, python_spent = witness._walked(case.model, case.config, name, budget, length, seed)
                native = witness._walked_natively(case.model, case.config, name, budget, length, seed)
                if native is None:
                    if case.scale == "bundled":
                        out.append(f"{name}: the interpreter left a bundled model's walk to Python")
                elif (native[1], native[2]) != (python_path, python_spent):
                    out.append(f"{name} within {budget} (walks of {length}, seed {seed}): python {python_spent} states, native {native[2]}")
        return out

    def mutant(self) -> AbstractContextManager[None]:
        """The interpreter's walks spending one state more than they did."""
        from checker.analysis import witness

        return changed(witness, "_walked_natively", lambda found: found if found is None else (found[0], found[1], found[2] + 1))


class Simulation:
    """Seeded random play in the bytecode interpreter (`simulate_natively`) against the Python
    loop: the same games for a seed, so the same report (finished games, their lengths in
    order, outcomes in the order met, rules fired, stuck games, modelling errors in the Python
    engine's words, moves), with plays cut short; a modelling error the Python loop raises is
    left to it (`NativeDeferred`)."""

    name = "simulation"
    needs = ("numba",)
    every_reading = True
    extra_props = ""
    examples = 3 * EXAMPLES
    large_examples = 0
    bundled = EVERY_BUNDLED[::2]
    FIELDS = ("games", "finished", "lengths", "outcomes", "fired", "stuck", "errors", "moves")

    def differences(self, case: Case) -> list[str]:
        compiled = CompiledModel(case.model, case.config)
        if case.scale == "bundled":  # 300 games of the Readings re-check's length
            out, report = self.agree(compiled, 300, 20_240, 1000)
            return out + ([] if report is not None and report.moves > 300 else ["a bundled model's games did not run natively"])
        return [d for max_steps in (60, 3, 0) for d in self.agree(compiled, 40, case.seed, max_steps)[0]]

    @classmethod
    def agree(cls, compiled: CompiledModel, games: int, seed: int, max_steps: int) -> tuple[list[str], Any]:
        """The differences, and the interpreter's report (None: the Python loop raised a
        modelling error, and the interpreter left the games to it)."""
        from checker.engines import simulate
        from checker.engines.native import engine

        try:
            python = simulate.simulate_in_python(compiled, games, seed, max_steps)
        except ModellingError:
            try:
                simulate.simulate_natively(compiled, games, seed, max_steps)
            except engine.NativeDeferred:
                return [], None
            return ["the interpreter played games the Python loop raised in"], None
        native = simulate.simulate_natively(compiled, games, seed, max_steps)
        out = fields_differ(f"{games} games of seed {seed} up to {max_steps} steps", python, native, cls.FIELDS)
        if list(native.outcomes) != list(python.outcomes):
            out.append("outcomes met in another order")
        return out, native

    def mutant(self) -> AbstractContextManager[None]:
        """The interpreter's games one move longer in total."""
        from checker.engines import simulate

        def longer(report: Any) -> Any:
            report.moves += 1
            return report

        return changed(simulate, "simulate_natively", longer)


def loaded_case(path: str, config: Config | None = None, scale: str = "fixed", seed: int = 0) -> Case:
    """A case of the model file at `path` with its suite, in `config` (default: its default)."""
    model, props = bound_props(path)
    return Case(model, config or model.default_config(), props, path, scale, seed)


def generated_cases(pair: Pair, case: tuple[str, str], seed: int = 0) -> Iterator[Case]:
    """The cases a generated model gives `pair`: each configuration with initial states, or the
    default only (when it has some), with the pair's extra properties."""
    from tests.conformance.generated import generated_configs

    for model, config, props, path in generated_configs(case, pair.extra_props):
        if pair.every_reading or config == model.default_config():
            yield Case(model, config, props, path, "generated", seed)


def large_case(root: str, model_yaml: str, props_yaml: str) -> Case | None:
    """A large generated model written under `root` (None when the checker refuses it)."""
    from tests.symbolic_support import write_game

    path = write_game(root, "large", model_yaml, props_yaml)
    try:
        return loaded_case(path, scale="large")
    except RulecheckError:
        return None


PAIRS: tuple[Pair, ...] = (Successors(), Stepper(), NativeExplicit(), NativeStopping(), CompiledPasses(), Symbolic(), Distributed(),
                           Space(), Evidence(), Divergence(), Witness(), Simulation())
