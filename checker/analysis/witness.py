"""A seeded search for one violation of a failing property, where breadth first ran out of budget.

A finding survives a growth of its bounds as soon as one violation is shown in the larger game,
and any search may find it; breadth first is needed only for the shortest trace and for a
finding that vanishes (which takes the whole larger game). The growth re-check's breadth-first
run often overruns its budget before it meets a violation lying deep in the larger game, so
`checker.pipeline.growth` then asks this search, under the same state budget, for one:

- a property decided at one state or move (`invariant`, `unreachable`, `after`, `deadlock-free`,
  `deterministic`): the state or move, met on a walk;
- `terminates`: a walk that comes back to a state it has been in is an endless play (a lasso);
  with `within`, a walk longer than it;
- `leads-to`: a walk that meets `from` and then avoids `to` up to the end of the game, a stuck
  state or a return to a state after `from` (a lasso);
- `can-end`: a walk that gets stuck, comes back to a state or runs long gives a candidate state;
  a few short walks from it (together at most a quarter of what is left of the budget) that
  reach no end are followed by the exhaustive exploration of every state reachable from it
  (within half of what is then left): none terminal means no play from there ends.

Kinds whose failure only the whole larger game shows (a `reachable` nothing reaches, coverage,
`value`) are not searched. The walks are random plays as `rulecheck simulate` samples them (each
mover equally likely, chance by weight, a player's options uniform), seeded, so the search finds
the same witness every time. Each walk drops a loop it closes (it continues from the state it
came back to), so a witness is a play with no repeated state before its loop. Every state a walk
visits and every state of a candidate's exploration counts against the budget; a candidate's
exploration is counted twice, since the interpreter repeats it to confirm the trace.

The Readings section's growth re-check (`checker.analysis.reading_growth`) asks the same walks
for the witness of an existential verdict (`find_verdict`): a reachable stuck state (as
`deadlock-free`), a reachable outcome (a terminal state showing it, as `unreachable`), a state
from which the game cannot end (as `can-end`), or one from which no play ends at all, terminal or
stuck (as `can-end`, a stuck state counting as an end). There a candidate is only a walk's last
state: a play of a game that still ends often comes back to a state it has been in, and testing
each such return spent the budget near the start of the game. A walk whose last state is refuted
ran shorter than the game's plays, so the walks after it go twice as far.

A witness counts only once it is replayed and confirmed in the reference interpreter
(`checker.evidence.confirm.build_trace`; a verdict's by replaying it and testing its last state, or
exploring everything reachable from it, there); one that is not is refused and the search stops
there, saying so. What the search returns is never evidence of the shortest violation, nor of
exhaustiveness.
"""

from __future__ import annotations

import random
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from checker.analysis.evidence import ENDS_SURELY, OUTCOME, STUCK_REACHABLE
from checker.engines.backend import stepping
from checker.engines.finding import trapped_finding
from checker.engines.native import unavailable_reason
from checker.engines.simulate import choose_move, weight_functions
from checker.engines.verdict import evidence_of
from checker.errors import ModellingError
from checker.evidence.confirm import build_trace, closed_set, reaches_terminal
from checker.evidence.trace import ReplayMismatch, Trace, replay_path
from checker.lang.compile import CompiledModel
from checker.lang.interp import shared_interpreter
from checker.lang.model import Config, Model
from checker.lang.properties import BoundProperty
from checker.lang.property_kinds import KINDS

SEED = 14  # the walks' seed: fixed, so what the growth re-check publishes is the same every run
MIN_WALK = 50  # steps a walk takes at least before it stops (`walk_length`)
CANDIDATE_WALKS = 8  # walks from a `can-end` candidate that must all fail to end before its closure is explored
SEARCHED = frozenset({"invariant", "unreachable", "after", "deadlock-free", "deterministic", "terminates", "leads-to", "can-end"})


def searchable(prop: BoundProperty) -> bool:
    """A failure of this property is shown by a finite play, which a search may meet."""
    return prop.kind in SEARCHED


def walk_length(depth: int) -> int:
    """How many steps a walk takes before it stops (and, for `can-end`, offers its last state as
    a candidate): four times the checked game's breadth-first depth, at least `MIN_WALK`. The
    larger game is about as deep, and a random play wanders longer than a shortest one."""
    return max(MIN_WALK, 4 * depth)


@dataclass(frozen=True)
class Search:
    """What one search found: a confirmed trace (None: no violation met), the states it spent,
    and why it stopped without one."""

    trace: Trace | None
    states: int
    refused: str = ""  # a witness that did not replay in the interpreter: why

    def words(self) -> str:
        if self.trace is not None:
            return f"a violation found by a seeded search after {self.states:,} states"
        if self.refused:
            return f"the seeded search's witness was refused: {self.refused}"
        return f"a seeded search met no violation in {self.states:,} states"


@dataclass
class _Candidate:
    """A violation met on a walk, before the interpreter confirms it."""

    path: list[int]
    shape: str = "path"
    loop_start: int | None = None
    last_instance: int | None = None
    branch_instances: tuple[int, ...] = ()


class _Walker:
    """The tests a walk applies at each state and move, and the walks. `for_property` sets them
    from a property; `find_verdict` from a verdict of the Readings section's growth re-check."""

    def __init__(self, compiled: CompiledModel, kind: str, max_states: int, seed: int, length: int) -> None:
        self.compiled = compiled
        self.kind = kind
        self.budget = max_states
        self.spent = 0
        self.rng = random.Random(seed)
        self.length = length
        self.weights = weight_functions(compiled)
        self.forced = [inst.forced for inst in compiled.instances]
        self.bad_state: Callable[[int], object] | None = None
        self.after: dict[int, Any] = {}
        self.within: int | None = None  # terminates: a play longer than this is a violation
        self.source: Callable[[int], object] = _nowhere  # leads-to: from
        self.target: Callable[[int], object] = _nowhere  # leads-to: to
        self.loop_candidates = True  # can-end: a return to a state of the walk offers it as a candidate (else only a walk's last state)
        self.stuck_ends = False  # can-end: a state where no rule applies is an end too (the game may never end: no end of either kind)
        self.guide: tuple[str, ...] = ()  # a guided walk's n-th step takes the guide's n-th action (cyclically) where it can (`sample_violation`)
        self.errors = 0  # `sample`: walks stopped by a modelling error, and the first one's words
        self.error = ""

    @classmethod
    def for_property(cls, compiled: CompiledModel, prop: BoundProperty, max_states: int, seed: int, length: int) -> _Walker:
        walker = cls(compiled, prop.kind, max_states, seed, length)
        if prop.kind in ("invariant", "unreachable"):
            assert prop.expr is not None, "bound for every kind with `expr`"
            test = compiled.predicate(prop.expr)
            walker.bad_state = (lambda s: not test(s)) if prop.kind == "invariant" else test
        if prop.kind == "after":
            assert prop.expr is not None
            for inst in compiled.instances:
                if inst.action.name == prop.action:
                    walker.after[inst.id] = compiled.function(prop.expr, compiled.encoded_params(inst), with_old=True)
        if prop.kind == "leads-to":
            assert prop.source is not None and prop.target is not None
            walker.source = compiled.predicate(prop.source)
            walker.target = compiled.predicate(prop.target)
        if prop.kind == "terminates":
            walker.within = prop.prop.within
        return walker

    def search(self) -> _Candidate | None:
        """Walk until a violation is met or the budget is spent."""
        initial = self.compiled.initial
        while self.spent < self.budget and initial:
            try:
                found = self._walk(self.rng.choice(initial))
            except ModellingError:
                continue  # an error is another verdict than the one the finding shows: next walk
            if found is not None:
                return found
        return None

    def sample(self, games: int, guided: int) -> tuple[int, int, _Candidate | None]:
        """(walks made, walks that met a violation, the first violation met): `games` seeded
        walks (within three quarters of the budget when there is a guide), then, if none met
        one, up to `guided` walks that follow `guide` where they can; a guided hit is not
        counted among the games (it is not random play)."""
        initial, hits, made, first = self.compiled.initial, 0, 0, None
        guide, self.guide = self.guide, ()
        random_budget = self.budget * 3 // 4 if guide and guided else self.budget  # a quarter is kept for the guided walks
        while made < games and self.spent < random_budget and initial:
            made += 1
            try:
                found = self._walk(self.rng.choice(initial))
            except ModellingError as exc:
                self.errors += 1
                self.error = self.error or exc.message
                continue
            if found is not None:
                hits += 1
                first = first or found
        self.guide = guide
        for _ in range(guided if first is None and guide else 0):
            if self.spent >= self.budget:
                break
            try:
                first = self._walk(self.rng.choice(initial))
            except ModellingError:
                continue
            if first is not None:
                break
        return made, hits, first

    def _walk(self, start: int) -> _Candidate | None:
        compiled, kind = self.compiled, self.kind
        path = [start]
        at = {start: 0}
        marks: list[tuple[bool, bool]] = []  # leads-to: (from, to) per state of `path`
        self.spent += 1
        for steps in range(self.length + 1):
            state = path[-1]
            if kind == "leads-to" and len(marks) < len(path):
                marks.append((bool(self.source(state)), bool(self.target(state))))
            if self.bad_state is not None and self.bad_state(state):
                return _Candidate(path)
            if compiled.terminal(state):
                return _Candidate(path) if kind == "leads-to" and _avoids_from(marks, len(path) - 1) else None
            moves = compiled.successors(state)
            if not moves:
                if kind == "can-end" and self.stuck_ends:
                    return None  # an end of the play: not the witness sought
                if kind in ("deadlock-free", "can-end"):
                    return _Candidate(path, "deadlock" if kind == "deadlock-free" else "closed")
                return _Candidate(path) if kind == "leads-to" and _avoids_from(marks, len(path) - 1) else None
            found = self._at_moves(path, moves)
            if found is not None:
                return found
            if self.within is not None and len(path) - 1 > self.within:
                return _Candidate(path)
            if steps == self.length or self.spent >= self.budget:
                if kind != "can-end":
                    return None
                trapped = self._dead_end(path, path[-1])
                if trapped is None and not self.loop_candidates:
                    self.length *= 2  # plays run longer than the walks: the next ones go twice as far
                return trapped
            if self.guide:  # a guided walk: the guide's next action (cyclically) where it is legal
                wanted = [m for m in moves if compiled.instances[m[0]].action.name == self.guide[steps % len(self.guide)]]
                moves = wanted or moves
            _, post = choose_move(self.rng, compiled, moves, state, self.weights)
            self.spent += 1
            back = at.get(post)
            if back is None:
                at[post] = len(path)
                path.append(post)
                continue
            # A return to a state of the walk: a loop.
            if kind == "terminates":  # an endless play is also longer than any `within`
                return _Candidate(path + [post], "lasso", back)
            if kind == "leads-to" and _avoids_from(marks, back):
                return _Candidate(path + [post], "lasso", back)
            if kind == "can-end" and self.loop_candidates:
                return self._dead_end(path[: back + 1], post)
            for dropped in path[back + 1:]:  # drop the loop: the walk goes on from the state it came back to
                del at[dropped]
            del path[back + 1:]
            del marks[back + 1:]
        return None

    def _at_moves(self, path: list[int], moves: list[tuple[int, int]]) -> _Candidate | None:
        """A violation shown by the moves of the walk's last state."""
        if self.kind == "deterministic" and len(moves) > 1 and self.forced[moves[0][0]]:
            first = moves[0]
            other = next((m for m in moves[1:] if m[1] != first[1]), None)
            if other is not None:
                return _Candidate(list(path), "branch", branch_instances=(first[0], other[0]))
        if self.after:
            state = path[-1]
            for inst, post in moves:
                test = self.after.get(inst)
                if test is not None and not test(post, state):
                    return _Candidate(path + [post], last_instance=inst)
        return None

    def _dead_end(self, path: list[int], candidate: int) -> _Candidate | None:
        """`can-end`: the candidate state's play, if nothing reachable from it is terminal."""
        if candidate != path[-1]:
            path = path + [candidate]
        steps = min(self.length, (self.budget - self.spent) // (4 * CANDIDATE_WALKS))  # the walks: at most a quarter of what is left
        for _ in range(CANDIDATE_WALKS):  # a cheap refutation first: a walk from it that ends
            if self._ends_from(candidate, steps):
                return None
        closed = self._closure_has_no_end(candidate)
        return _Candidate(path, "closed") if closed else None

    def _ends_from(self, start: int, steps: int) -> bool:
        """A walk of at most `steps` steps from `start` reaches a terminal state."""
        state = start
        for _ in range(steps):
            if self.compiled.terminal(state) or self.spent >= self.budget:
                return self.compiled.terminal(state)
            moves = self.compiled.successors(state)
            if not moves:
                return self.stuck_ends
            _, state = choose_move(self.rng, self.compiled, moves, state, self.weights)
            self.spent += 1
        return self.compiled.terminal(state)

    def _closure_has_no_end(self, start: int) -> bool:
        """Every state reachable from `start` explored (breadth first, stopping at the first
        terminal one, or stuck one with `stuck_ends`): True when it is complete with none, within
        half of what is left of the budget (the interpreter's confirmation explores it again)."""
        allowed = (self.budget - self.spent) // 2
        seen = {start}
        queue = deque([start])
        while queue:
            state = queue.popleft()
            moves = [] if self.compiled.terminal(state) else self.compiled.successors(state)
            if not moves and (self.stuck_ends or self.compiled.terminal(state)):
                self.spent += len(seen)
                return False
            for _, post in moves:
                if post not in seen:
                    if len(seen) >= allowed:
                        self.spent += len(seen)
                        return False
                    seen.add(post)
                    queue.append(post)
        self.spent += 2 * len(seen)
        return True


def _nowhere(_state: int) -> bool:
    return False


def _avoids_from(marks: list[tuple[bool, bool]], first: int) -> bool:
    """`leads-to`: some state where `from` holds lies in the play, and `to` holds at none of the
    states from it (or from `first`, where the loop starts, if that is earlier) to the end."""
    last_to = max((i for i, (_, to) in enumerate(marks) if to), default=-1)
    start = next((i for i, (source, _) in enumerate(marks) if source and i > last_to), None)
    return start is not None and min(start, first) > last_to


def find_violation(model: Model, config: Config, prop: BoundProperty, max_states: int, depth: int, seed: int = SEED) -> Search:
    """A violation of `prop` in `config`, found by seeded walks within `max_states` states and
    confirmed in the interpreter (see the module's docstring)."""
    compiled = stepping(model, config)  # the walks step through states: the interpreter's functions when it can
    walker = _Walker.for_property(compiled, prop, max_states, seed, walk_length(depth))
    found = walker.search()
    if found is None:
        return Search(None, min(walker.spent, max_states))
    return _confirmed(model, config, prop, compiled, found, walker.spent)


@dataclass(frozen=True)
class Sampled:
    """Seeded random games at some configuration: how many met a violation, and the first
    violation met (by them, or else by a guided walk) as data (`confirm` makes it a trace)."""

    games: int
    hits: int
    states: int
    found: dict[str, Any] | None  # the violation's packed states and shape: JSON, kept by the caller's cache
    guided: bool  # the violation was met by a guided walk, not by the random games
    errors: int = 0  # games stopped by a modelling error
    error: str = ""  # the first such error


def sample_violation(model: Model, config: Config, prop: BoundProperty, games: int, max_states: int, length: int,
                     guide: tuple[str, ...] = (), seed: int = SEED) -> Sampled:
    """`games` seeded random plays of `config` (each stopped after `length` steps), counting
    those that meet a violation of `prop`, and, where none does, up to `games` walks guided by
    `guide` (the actions of the violation in a smaller game, in order); within `max_states`."""
    compiled = stepping(model, config)
    walker = _Walker.for_property(compiled, prop, max_states, seed, length)
    walker.guide = guide
    made, hits, found = walker.sample(games, games)
    spent = min(walker.spent, max_states)
    doc = None if found is None else {"path": found.path, "shape": found.shape, "loop_start": found.loop_start,
                                      "last_instance": found.last_instance, "branch_instances": list(found.branch_instances)}
    return Sampled(made, hits, spent, doc, found is not None and hits == 0, walker.errors, walker.error)


def confirm(model: Model, config: Config, prop: BoundProperty, found: dict[str, Any], spent: int) -> Search:
    """A violation `sample_violation` met, as a trace once the interpreter replays it."""
    candidate = _Candidate([int(s) for s in found["path"]], str(found["shape"]), found["loop_start"], found["last_instance"],
                           tuple(int(i) for i in found["branch_instances"]))
    return _confirmed(model, config, prop, stepping(model, config), candidate, spent)


def _confirmed(model: Model, config: Config, prop: BoundProperty, compiled: CompiledModel, found: _Candidate, spent: int) -> Search:
    """A violation met on a walk as a trace, once the interpreter replays it."""
    unpack = compiled.layout.unpack
    instances = compiled.instances
    last = instances[found.last_instance].action.name if found.last_instance is not None else None
    branches = tuple((instances[i].action.name, dict(instances[i].params)) for i in found.branch_instances)
    states = [unpack(s) for s in found.path]
    note = KINDS[prop.kind].violation.format(expr=(prop.prop.texts.get("expr") or [""])[0])
    try:
        if found.shape == "closed":  # `can-end`: the closed set explored again from the interpreter's last state
            interp = shared_interpreter(model, config)
            stuck = not interp.terminal(states[-1]) and not interp.transitions(states[-1])
            closed = closed_set(interp, states[-1])
            if closed is None:
                return Search(None, spent, refused="a play from its last state ends in the interpreter")
            note = trapped_finding([], closed, stuck).note
        evidence = evidence_of(found.shape, states, loop_start=found.loop_start, last_action=last, moves=branches)
        assert evidence is not None, "a walk's violation is a play"
        trace = build_trace(model, config, prop, evidence, note, classify_loop=False)
    except ReplayMismatch as exc:
        return Search(None, spent, refused=f"it did not replay in the interpreter ({exc})")
    return Search(trace, spent)


@dataclass(frozen=True)
class Witnessed:
    """What one search for a verdict's witness found (`find_verdict`): whether one was met and
    confirmed, the states it spent, and why a witness met was refused."""

    found: bool
    states: int
    refused: str = ""


def find_verdict(model: Model, config: Config, name: str, max_states: int, depth: int, seed: int = SEED) -> Witnessed:
    """A witness of one existential verdict of the Readings section's growth re-check
    (`checker.analysis.evidence`), met by seeded walks within `max_states` states and confirmed
    in the interpreter: `STUCK_REACHABLE` a reachable state where no rule applies; `OUTCOME`
    + label a reachable end with that outcome; `CAN_END` a reachable state from which no play
    reaches a terminal state (the game cannot always still end); `ENDS_SURELY` one from which no
    play ends at all, terminal or stuck (the game may never end, and cannot always still end).
    The walks and the candidate closures are those of `can-end` and `deadlock-free`."""
    walked = _walked_natively(model, config, name, max_states, walk_length(depth), seed)
    compiled, path, spent = walked if walked is not None else _walked(model, config, name, max_states, walk_length(depth), seed)
    if path is None:
        return Witnessed(False, min(spent, max_states))
    states = [compiled.layout.unpack(s) for s in path]
    try:
        replay_path(model, config, states)
        interp = shared_interpreter(model, config)
        last = states[-1]
        if name == STUCK_REACHABLE:
            shown = not interp.terminal(last) and not interp.transitions(last)
        elif name.startswith(OUTCOME):
            shown = interp.terminal(last) and (str(interp.eval(model.outcome, last)) if model.outcome is not None else "finished") == name[len(OUTCOME):]
        else:
            shown = not reaches_terminal(interp, last, stuck_ends=name == ENDS_SURELY)
    except ReplayMismatch as exc:
        return Witnessed(False, spent, f"it did not replay in the interpreter ({exc})")
    if not shown:
        return Witnessed(False, spent, "the interpreter does not show the verdict at its last state")
    return Witnessed(True, spent)


def _walked(model: Model, config: Config, name: str, max_states: int, length: int, seed: int) -> tuple[CompiledModel, list[int] | None, int]:
    """`find_verdict`'s walks from Python: the configuration, the witness's packed states (None:
    none met within the budget) and the states spent."""
    compiled = stepping(model, config)  # the walks step through states: the interpreter's functions when it can
    if name == STUCK_REACHABLE:
        walker = _Walker(compiled, "deadlock-free", max_states, seed, length)
    elif name.startswith(OUTCOME):
        walker = _Walker(compiled, "unreachable", max_states, seed, length)
        label = name[len(OUTCOME):]
        outcome = compiled.evaluator(model.outcome) if model.outcome is not None else None
        walker.bad_state = lambda s: compiled.terminal(s) and (str(outcome(s)) if outcome is not None else "finished") == label
    else:
        walker = _Walker(compiled, "can-end", max_states, seed, length)
        walker.stuck_ends = name == ENDS_SURELY
        walker.loop_candidates = False  # a return to a state is common in a play that still ends: only a walk's last state is a candidate
    found = walker.search()
    return compiled, found.path if found is not None else None, walker.spent


def _walked_natively(model: Model, config: Config, name: str, max_states: int, length: int, seed: int) -> tuple[CompiledModel, list[int] | None, int] | None:
    """The same walks in the bytecode interpreter (`witness_native`), where it runs them: None
    where the Python walks are to run (no numba, a model it cannot assemble, an initial value
    out of its range, an error met on the way)."""
    if unavailable_reason() is not None:
        return None
    from checker.analysis import witness_native
    from checker.engines.native import engine

    compiled = CompiledModel(model, config, lazy=True)
    try:
        path, spent = witness_native.walk(compiled, name, max_states, length, seed, name == ENDS_SURELY)
    except (engine.NativeDeferred, engine.NativeUnsupported):
        return None
    return compiled, path, spent
