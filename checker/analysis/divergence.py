"""Divergence scenarios: the shortest play after which two readings of the text part ways.

Both configurations are compiled from the same model, so they share one state layout and a
packed state means the same position under either. Breadth first from the common initial
states, each state is compared under both: a different set of enabled moves (or another player
making one), a different result of the same move, terminal under one only, a different outcome, or a modelling error under one
only is a divergence. While nothing differs the two have the same successors, so the product
exploration stays on its diagonal and needs one visited set. The first divergence found is at
the end of a shortest play legal under both.

The play is then replayed in the reference interpreter under both configurations (it must be
legal under each) and the divergence itself is confirmed there, as every other piece of evidence
is; an engine bug raises `ReplayMismatch` rather than producing a false scenario.
"""

from __future__ import annotations

import time
from collections import deque
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from checker.engines.statespace import mover_functions
from checker.errors import ModellingError
from checker.evidence.trace import ReplayMismatch, Step, Trace, display_info, make_step, replay_path
from checker.lang.compile import CompiledModel
from checker.lang.expr import ReadingRef, walk
from checker.lang.interp import Interpreter, State, Transition
from checker.lang.model import Config, Model

SHOWN_MOVES = 6  # moves listed per side at the divergent step (the rest are counted)


@dataclass
class Side:
    """What one configuration does at the divergent position."""

    label: str  # the configuration's reading label
    terminal: bool = False
    outcome: Any = None
    steps: list[Step] = field(default_factory=list)  # the moves that differ (or, when the other side ended, its moves)
    more: int = 0  # moves not listed
    error: str = ""


@dataclass
class Divergence:
    model: Model
    baseline: Config
    alternative: Config
    found: bool
    kind: str = ""  # start | moves | result | terminal | outcome | error
    summary: str = ""
    trace: Trace | None = None  # the common play, replayed under both configurations
    sides: tuple[Side, Side] | None = None
    states: int = 0
    depth: int = 0
    complete: bool = False
    stopped_by: str = ""
    seconds: float = 0.0

    @property
    def bound(self) -> str:
        if self.complete:
            return f"exhaustive: no reachable state of the {self.states:,} tells them apart"
        return f"{self.stopped_by}: {self.states:,} states to depth {self.depth}"

    @property
    def steps(self) -> int:
        return len(self.trace.steps) if self.trace is not None else 0


def _actor_consults_readings(model: Model) -> bool:
    return any(isinstance(n, ReadingRef) for a in model.actions.values() if a.actor is not None for n in walk(a.actor))


def _keyer(compiled: CompiledModel, with_actor: bool):
    """A move's identity: its action and parameters, and who makes it when a reading can change that."""
    movers = mover_functions(compiled) if with_actor else None

    def key(inst_id: int, s: int) -> tuple:
        inst = compiled.instances[inst_id]
        if movers is None:
            return inst.action.name, inst.params
        mover = movers[inst_id]
        return inst.action.name, inst.params, mover if isinstance(mover, int) else mover(s)

    return key


def _compare(a: CompiledModel, b: CompiledModel, s: int, outcome_a, outcome_b, keys) -> tuple[str, list[int]]:
    """(kind of divergence or "", the common successors when there is none)."""
    try:
        ta, tb = a.terminal(s), b.terminal(s)
    except ModellingError:
        return "", []
    if ta != tb:
        return "terminal", []
    if ta:
        if outcome_a is not None and outcome_a(s) != outcome_b(s):
            return "outcome", []
        return "", []
    errors: list[str | None] = []
    moves = []
    for compiled, key in zip((a, b), keys):
        try:
            moves.append({key(i, s): t for i, t in compiled.successors(s)})
            errors.append(None)
        except ModellingError as exc:
            moves.append({})
            errors.append(exc.message)
    if (errors[0] is None) != (errors[1] is None):
        return "error", []
    if errors[0] is not None:
        return "", []
    if moves[0].keys() != moves[1].keys():
        return "moves", []
    if any(moves[0][k] != moves[1][k] for k in moves[0]):
        return "result", []
    return "", list(moves[0].values())


@dataclass
class Search:
    """Where a search stopped: the divergent play (packed states, from an initial one) and its
    kind, or none; the states found, the deepest compared, and why it stopped short."""

    kind: str
    path: list[int]
    states: int
    depth: int
    complete: bool
    stopped_by: str


def find_divergence(model: Model, baseline: Config, alternative: Config, max_states: int = 500_000, timeout: float = 300.0) -> Divergence:
    """The shortest play legal under both configurations after which they differ.

    The search runs in the bytecode interpreter when numba is installed (`search_in_interpreter`:
    one program for both readings, no successor code generated per configuration) and in the
    Python engine otherwise, or for a model the interpreter leaves to it; the same search state
    for state (the conformance suite's `divergence` pair)."""
    started = time.perf_counter()
    a, b = CompiledModel(model, baseline, lazy=True), CompiledModel(model, alternative, lazy=True)
    result = Divergence(model, baseline, alternative, found=False)
    only_a = [s for s in a.initial if s not in set(b.initial)]
    only_b = [s for s in b.initial if s not in set(a.initial)]
    if only_a or only_b:
        result.found, result.kind, result.states = True, "start", 1
        _start_evidence(result, a, b, only_a, only_b)
        result.seconds = time.perf_counter() - started
        return result
    with_actor = _actor_consults_readings(model)
    found = _search_natively(a, b, with_actor, max_states, timeout)
    if found is None:
        found = search_in_python(a, b, with_actor, max_states, max(timeout - (time.perf_counter() - started), 0.1))
    result.states, result.depth, result.complete, result.stopped_by = found.states, found.depth, found.complete, found.stopped_by
    if found.kind:
        result.found, result.kind = True, found.kind
        _evidence(result, a, b, found.path)
    result.seconds = time.perf_counter() - started
    return result


def _search_natively(a: CompiledModel, b: CompiledModel, with_actor: bool, max_states: int, timeout: float) -> Search | None:
    """The interpreter's search, or None where the Python search is to run: numba missing, the
    constants differ, or a model the interpreter cannot run (or that raises a modelling error the
    Python search reports in its words)."""
    from checker.engines.native import unavailable_reason

    if unavailable_reason() is not None or a.config.constants != b.config.constants:
        return None
    from checker.engines.native import engine

    try:
        return search_in_interpreter(a, b, with_actor, max_states, timeout)
    except (engine.NativeDeferred, engine.NativeUnsupported):
        return None


def search_in_python(a: CompiledModel, b: CompiledModel, with_actor: bool, max_states: int, timeout: float) -> Search:
    """Breadth first along the product's diagonal in the Python engine: the reference the
    interpreter's search is held to."""
    deadline = time.perf_counter() + timeout
    model = a.model
    outcome_a = a.evaluator(model.outcome) if model.outcome is not None else None
    outcome_b = b.evaluator(model.outcome) if model.outcome is not None else None
    parent: dict[int, int | None] = {}
    depth_of: dict[int, int] = {}
    queue: deque[int] = deque()
    for s in a.initial:
        if s not in parent:
            parent[s], depth_of[s] = None, 0
            queue.append(s)
    keys = (_keyer(a, with_actor), _keyer(b, with_actor))
    found = Search("", [], 0, 0, False, "")
    count = 0
    while queue:
        s = queue.popleft()
        count += 1
        found.depth = max(found.depth, depth_of[s])
        if (count & 1023) == 0 and time.perf_counter() > deadline:
            found.stopped_by = f"timeout after {timeout:g} s"
            break
        kind, successors = _compare(a, b, s, outcome_a, outcome_b, keys)
        if kind:
            path = [s]
            while (before := parent[path[-1]]) is not None:
                path.append(before)
            found.kind, found.path, found.states = kind, path[::-1], len(parent)
            return found
        for t in successors:
            if t not in parent:
                if len(parent) >= max_states:
                    found.stopped_by = f"state budget of {max_states:,} reached"
                    queue.clear()
                    break
                parent[t], depth_of[t] = s, depth_of[s] + 1
                queue.append(t)
    else:
        found.complete = not found.stopped_by
    found.states = len(parent)
    return found


def _label(model: Model, config: Config) -> str:
    return config.reading_label(model)


def _start_evidence(result: Divergence, a: CompiledModel, b: CompiledModel, only_a: list[int], only_b: list[int]) -> None:
    model = result.model
    packed, config, other = (only_a[0], result.baseline, result.alternative) if only_a else (only_b[0], result.alternative, result.baseline)
    state = a.layout.unpack(packed)
    interp, other_interp = Interpreter(model, config), Interpreter(model, other)
    if not interp.is_initial(state) or other_interp.is_initial(state):
        raise ReplayMismatch("divergence: the starting position is not a start under exactly one of the two readings")
    result.trace = _trace(model, result, state, [])
    result.sides = (Side(_label(model, result.baseline)), Side(_label(model, result.alternative)))
    result.summary = f"The game can start in this position under `{_label(model, config)}` only."


def _trace(model: Model, result: Divergence, initial: State, steps: list[Step]) -> Trace:
    alt = _label(model, result.alternative)
    return Trace(
        game=model.game, model=model.id, property_id=f"divergence {alt}", property_kind="divergence",
        says=f"Where `{_label(model, result.baseline)}` and `{alt}` part ways.", config=result.baseline,
        reading_label=_label(model, result.baseline), initial=initial, steps=steps, shape="path", note=result.summary,
        display=display_info(model),
    )


def _moves(interp: Interpreter, state: State) -> tuple[list[Transition], str]:
    try:
        return interp.transitions(state), ""
    except ModellingError as exc:
        return [], exc.message


def _evidence(result: Divergence, a: CompiledModel, b: CompiledModel, path: list[int]) -> None:
    """Replay the common play under both configurations, confirm the divergence in the
    interpreter, and describe the divergent step under each."""
    model = result.model
    states = [a.layout.unpack(s) for s in path]
    steps = replay_path(model, result.baseline, states)
    again = replay_path(model, result.alternative, states)
    if [(s.action, s.params) for s in steps] != [(s.action, s.params) for s in again]:
        raise ReplayMismatch("divergence: the common play takes different moves under the two readings")
    last = states[-1]
    sides = []
    found: list[tuple[bool, Any, list[Transition], str]] = []
    interps = (Interpreter(model, result.baseline), Interpreter(model, result.alternative))
    for interp, config in zip(interps, (result.baseline, result.alternative)):
        terminal = interp.terminal(last)
        outcome = interp.eval(model.outcome, last) if terminal and model.outcome is not None else None
        moves, error = _moves(interp, last)
        found.append((terminal, outcome, moves, error))
        sides.append(Side(_label(model, config), terminal, outcome, error=error))
    (ta, oa, ma, ea), (tb, ob, mb, eb) = found
    keyed_a = {(m.action, m.params, m.actor): m for m in ma}
    keyed_b = {(m.action, m.params, m.actor): m for m in mb}
    kind = result.kind
    if kind == "terminal":
        _require(ta != tb, "terminal under one reading only")
        for side, interp, moves in zip(sides, interps, (ma, mb)):
            _show(side, interp, moves, last)
    elif kind == "outcome":
        _require(ta and tb and oa != ob, "two different outcomes")
    elif kind == "error":
        _require(bool(ea) != bool(eb), "a modelling error under one reading only")
    elif kind == "moves":
        _require(keyed_a.keys() != keyed_b.keys(), "different enabled moves")
        _show(sides[0], interps[0], [m for k, m in keyed_a.items() if k not in keyed_b], last)
        _show(sides[1], interps[1], [m for k, m in keyed_b.items() if k not in keyed_a], last)
    else:
        differing = [k for k in keyed_a if k in keyed_b and keyed_a[k].post != keyed_b[k].post]
        _require(bool(differing), "one move with two different results")
        _show(sides[0], interps[0], [keyed_a[k] for k in differing], last)
        _show(sides[1], interps[1], [keyed_b[k] for k in differing], last)
    result.sides = (sides[0], sides[1])
    result.trace = _trace(model, result, states[0], steps)
    result.summary = result.trace.note = _summary(result)


def _require(condition: bool, what: str) -> None:
    if not condition:
        raise ReplayMismatch(f"divergence: the interpreter does not show {what} at the end of the common play")


def _show(side: Side, interp: Interpreter, moves: list[Transition], pre: State) -> None:
    side.steps = [make_step(interp, m, pre) for m in moves[:SHOWN_MOVES]]
    side.more = max(0, len(moves) - SHOWN_MOVES)


def _summary(result: Divergence) -> str:
    assert result.sides is not None, "a divergence found has its two sides"
    a, b = result.sides
    n = len(result.trace.steps) if result.trace else 0
    after = f"After {n} step{'s' if n != 1 else ''} legal under both" if n else "At the start"
    if result.kind == "terminal":
        over, on = (a, b) if a.terminal else (b, a)
        ending = f" ({over.outcome})" if over.outcome is not None else ""
        return f"{after}, the game is over under `{over.label}`{ending} but goes on under `{on.label}`."
    if result.kind == "outcome":
        return f"{after}, the game ends as {a.outcome} under `{a.label}` but as {b.outcome} under `{b.label}`."
    if result.kind == "error":
        broken = a if a.error else b
        return f"{after}, the rules cannot be applied under `{broken.label}` ({broken.error})."
    if result.kind == "moves":
        parts = [f"only under `{side.label}`: {_texts(side)}" for side in (a, b) if side.steps]
        return f"{after}, the enabled moves differ: " + "; ".join(parts) + "."
    return f"{after}, the same move has different results: {_texts(a)}."


def _texts(side: Side) -> str:
    text = ", ".join(step.text for step in side.steps)
    return text + (f" and {side.more} more" if side.more else "")


# -- the same search in the bytecode interpreter -----------------------------------------------
# The Python search needs each configuration's generated successor code, and generating it was
# most of the search's cost (two configurations a question). The interpreter runs one program for
# every reading combination, so the two configurations are one program with two reading inputs.
# `loops.py`'s `seed_divergence` and `expand_divergence` run the Python loop state for state: the
# same order, the same comparison (terminal, outcome, a modelling error under one side only, the
# enabled moves, their results), the same budget; `search_in_interpreter` turns the state it
# stops at into the same play, which `find_divergence` then replays and confirms in the reference
# interpreter as it does the Python search's (the conformance suite's `divergence` pair holds
# the two searches to the same results).

CHUNK = 1 << 14  # states compared between two looks at the clock
COMPLETE, PAST_BUDGET, FOUND, FULL = 1, 2, 3, 4
KINDS = {1: "terminal", 2: "outcome", 3: "error", 4: "moves", 5: "result"}  # loops.py's DIVERGES codes


def search_in_interpreter(a: CompiledModel, b: CompiledModel, with_actor: bool, max_states: int, timeout: float) -> Search:
    """The search of `find_divergence` between two reading combinations of one model and its
    constants (the initial states are the same under both). Raises `engine.NativeDeferred` at a
    modelling error the Python search raises too (an outcome that cannot be evaluated) and
    `engine.NativeUnsupported` for a model the interpreter cannot assemble."""
    from checker.engines.native import engine

    deadline = time.perf_counter() + timeout
    module, ctx_a, ni, initial, states, table = engine.vm_loop(a, max_states)[1:]
    _, _, ctx_b = engine.build_vm(b, [], checks=False)  # the same program, with b's readings
    parent = np.empty(states.shape[0], np.int32)
    depth = np.empty(states.shape[0], np.int32)
    meta = np.zeros(6, np.int64)
    meta[3] = max_states
    stopped_by = ""
    try:
        with engine.compiling(module.__name__, "divergence"):  # the first calls compile: the loop's with no state to expand
            module.seed_divergence(meta, states, parent, depth, table, initial)
            module.expand_divergence(meta, states, parent, depth, table, ctx_a, ctx_b, with_actor, 0)
        while True:
            code = module.expand_divergence(meta, states, parent, depth, table, ctx_a, ctx_b, with_actor, CHUNK)
            if code == FULL:
                n = int(meta[0])
                if n + ni > states.shape[0]:
                    states, parent, depth = engine._grown(states, n), engine._grown(parent, n), engine._grown(depth, n)
                table = engine.fitted_table(table, n + ni)
                continue
            if code in (COMPLETE, PAST_BUDGET, FOUND):
                break
            if time.perf_counter() > deadline:
                stopped_by = f"timeout after {timeout:g} s"
                break
    except engine.RUNTIME_ERRORS as exc:
        raise engine.NativeDeferred(str(exc)) from exc
    if code == PAST_BUDGET:
        stopped_by = f"state budget of {max_states:,} reached"
    path: list[int] = []
    if code == FOUND:
        node = int(meta[4])
        while node >= 0:
            path.append(engine.from_words(states[node]))
            node = int(parent[node])
        path.reverse()
    return Search(KINDS.get(int(meta[5]), ""), path, int(meta[0]), int(meta[2]), code == COMPLETE, stopped_by)
