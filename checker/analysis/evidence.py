"""The facts that make a reading option game-breaking or change who can win, decided by an
exploration that stops as soon as they are decided.

A Readings line is game-breaking because one of three verdicts differs between the default and
the option (the game can always still end; a state where no rule applies is reachable; the game
ends with probability 1), and it changes who can win because an outcome is reachable under one
reading only. Re-checking such a line with larger bounds (`checker.analysis.reading_growth`)
needs only those verdicts, not the whole impact analysis (odds, forced wins, longest game), and
some of them are decided long before the state space is: a reachable stuck state or outcome is
found by the breadth-first search the moment it is reached (and a stuck state also means the
game cannot always end). Only a "never" (no stuck state, an outcome unreachable, the game can
always end) needs the whole space, which may overrun its budget; the verdict then stays
undecided (None) and the re-check says so.

The exploration stores only each state's successors (no movers, weights or instances: the
probabilities are not computed), and counts its budget in states, so what it decides does not
depend on the machine.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from checker.analysis.classify import TOLERANCE
from checker.analysis.outcomes import NEVER, Impact
from checker.engines.graph import CSRGraph, reaches
from checker.errors import ModellingError
from checker.lang.compile import CompiledModel

# The verdicts, by name; an outcome's reachability is named `OUTCOME + label`.
STUCK_REACHABLE = "stuck"
CAN_END = "can end"
ENDS_SURELY = "ends surely"
OUTCOME = "outcome "
WORDS = {
    STUCK_REACHABLE: ("a state where no rule applies is reachable", "no state where no rule applies is reachable"),
    CAN_END: ("the game can always still end", "the game cannot always still end"),
    ENDS_SURELY: ("the game ends with probability 1", "the game may never end"),
}


def checked_verdicts(impact: Impact) -> dict[str, bool]:
    """The verdicts of an exact impact analysis (the checked bounds), by name."""
    out = {STUCK_REACHABLE: impact.stuck_states > 0, CAN_END: bool(impact.can_end),
           ENDS_SURELY: (impact.probabilities or {}).get(NEVER, 0.0) <= TOLERANCE}
    out.update({OUTCOME + name: True for name in impact.outcomes})
    return out


def differing(base: Impact, alt: Impact) -> list[str]:
    """The verdicts that differ between two exact analyses: the evidence of a game-breaking or
    who-can-win line (empty when only the odds or the forced wins differ)."""
    a, b = checked_verdicts(base), checked_verdicts(alt)
    names = [STUCK_REACHABLE, CAN_END, ENDS_SURELY] + sorted(n for n in set(a) | set(b) if n.startswith(OUTCOME))
    return [n for n in names if a.get(n, False) != b.get(n, False)]


def says(name: str, value: bool) -> str:
    """A verdict in words: "the game can always still end", "home_win is reachable"."""
    if name.startswith(OUTCOME):
        return f"{name[len(OUTCOME):]} is {'reachable' if value else 'unreachable'}"
    yes, no = WORDS[name]
    return yes if value else no


@dataclass(frozen=True)
class Verdicts:
    """What one exploration decided: each wanted verdict True, False or None (not decided)."""

    values: dict[str, bool | None]
    states: int
    complete: bool
    stopped_by: str = ""  # why an incomplete exploration stopped

    def get(self, name: str) -> bool | None:
        return self.values.get(name)


def decide(compiled: CompiledModel, wanted: list[str], max_states: int, at_least: int = 0) -> Verdicts:
    """The `wanted` verdicts of one configuration: breadth first, stopping when every one is
    decided and `at_least` states are found (or the space is), when the next state would pass
    `max_states`, or at a modelling error. `at_least` tells a larger game that is smaller than
    the checked one (a bound whose growth breaks the deal, say) from one that is not.

    In the bytecode interpreter (`decide_natively`, the same loop state for state) when numba is
    installed: no Python successor code is generated for the configuration. The Python loop runs
    without numba, at a modelling error (it says where) and for a model the interpreter cannot
    run."""
    from checker.engines.native import unavailable_reason

    if unavailable_reason() is None:
        from checker.engines.native import engine

        try:
            return decide_natively(compiled, wanted, max_states, at_least)
        except (engine.NativeDeferred, engine.NativeUnsupported):
            pass  # a modelling error (the Python loop reports where) or a model it cannot run
    return decide_in_python(compiled, wanted, max_states, at_least)


def settled_by(wanted: list[str], stuck: bool, seen: set[str]) -> bool:
    """Every wanted verdict is decided before the exploration ends."""
    return all((n == STUCK_REACHABLE and stuck) or (n == CAN_END and stuck) or (n.startswith(OUTCOME) and n[len(OUTCOME):] in seen)
               for n in wanted)


def verdict_values(wanted: list[str], stuck: bool, seen: set[str], complete: bool, all_reach: Callable[[tuple[int, ...]], bool]) -> dict[str, bool | None]:
    """The wanted verdicts, from what an exploration found: a stuck state, the outcomes seen,
    whether it is complete, and whether every state reaches an end of the given kinds (1
    terminal, 2 stuck)."""
    values: dict[str, bool | None] = {}
    for name in wanted:
        if name == STUCK_REACHABLE:
            values[name] = True if stuck else (False if complete else None)
        elif name.startswith(OUTCOME):
            values[name] = True if name[len(OUTCOME):] in seen else (False if complete else None)
        elif name == CAN_END:
            values[name] = False if stuck else (all_reach((1,)) if complete else None)
        elif name == ENDS_SURELY:
            values[name] = all_reach((1, 2)) if complete else None
    return values


def decide_in_python(compiled: CompiledModel, wanted: list[str], max_states: int, at_least: int = 0) -> Verdicts:
    """`decide` in the Python engine: the reference the bytecode interpreter's loop is held to."""
    outcome_of = compiled.evaluator(compiled.model.outcome) if compiled.model.outcome is not None else None
    successors, terminal = compiled.successors, compiled.terminal
    index: dict[int, int] = {}
    states: list[int] = []
    ends = bytearray()  # per node: 1 terminal, 2 stuck
    graph = CSRGraph()
    seen: set[str] = set()
    stuck = False

    def add(s: int) -> int:
        """A newly found state's node; a terminal one's outcome is seen at once."""
        node = index[s] = len(states)
        states.append(s)
        ends.append(1 if terminal(s) else 0)
        if ends[node]:
            seen.add(str(outcome_of(s)) if outcome_of is not None else "finished")
        return node

    for s in compiled.initial:
        if s not in index:
            add(s)

    stopped_by = ""
    i = 0
    asked = None  # (stuck, outcomes seen) when `settled` last answered: it reads nothing else, so it is asked again only when they change
    answer = False
    edges = graph.edges
    add_edge, add_start = edges.append, graph.starts.append  # bound once: called for every move and state
    while i < len(states):
        s = states[i]
        if ends[i]:
            add_start(len(edges))
        else:
            try:
                moves = successors(s)
            except ModellingError as exc:
                stopped_by = f"at a modelling error ({exc.message})"
                break
            if not moves:
                ends[i] = 2
                stuck = True
            elif len(states) + len(moves) > max_states and any(t not in index for _, t in moves):
                stopped_by = f"past its budget of {max_states:,} states"
                break
            for _, t in moves:
                node = index.get(t)
                add_edge(add(t) if node is None else node)
            add_start(len(edges))
        i += 1
        if (wanted or at_least) and len(states) >= at_least:
            if asked != (stuck, len(seen)):
                asked, answer = (stuck, len(seen)), settled_by(wanted, stuck, seen)
            if answer:
                break
    complete = i == len(states) and not stopped_by  # every found state expanded
    values = verdict_values(wanted, stuck, seen, complete, lambda kinds: _all_reach(graph, ends, kinds))
    return Verdicts(values, len(states), complete, stopped_by)


def _all_reach(graph: CSRGraph, ends: bytearray, kinds: tuple[int, ...]) -> bool:
    """Every explored state has a path to a state of the given end kinds (1 terminal, 2 stuck)."""
    reached = reaches(graph, [n for n, kind in enumerate(ends) if kind in kinds])
    return all(reached)


# -- the same exploration in the bytecode interpreter ------------------------------------------
# `loops.py`'s `seed_ends` and `expand_ends` run `decide_in_python`'s loop state for state;
# `decide_natively` asks, between their chunks, whether the wanted verdicts are settled (only when
# a stuck state or an outcome is new, as the Python loop does), and reads the verdicts off the
# arrays (the conformance suite's `evidence` pair holds the two to the same verdicts, state counts and
# reasons).

CHUNK = 1 << 16  # states expanded between two returns to Python
COMPLETE, PAST_BUDGET, ASK, FULL = 1, 2, 3, 4


def decide_natively(compiled: CompiledModel, wanted: list[str], max_states: int, at_least: int = 0) -> Verdicts:
    """`decide`, in the interpreter. Raises `engine.NativeDeferred` at a modelling error (the
    Python loop then stops there with its words) and `engine.NativeUnsupported` for a model the
    interpreter cannot assemble."""
    from checker.engines.native import engine

    module, ctx, ni, initial, states, table = engine.vm_loop(compiled, max_states)[1:]
    capacity = states.shape[0]
    ends = np.zeros(capacity, np.uint8)
    starts = np.zeros(capacity + 1, np.int64)
    edges = np.empty(1 << 16, np.int32)
    seen = np.zeros(256, np.int64)
    meta = np.zeros(10, np.int64)
    meta[5] = max_states
    meta[6] = at_least
    meta[7] = 1 if (wanted or at_least) else 0
    meta[8] = meta[9] = -1
    outcome = compiled.decoder(compiled.model.outcome) if compiled.model.outcome is not None else None
    try:
        with engine.compiling(module.__name__, "ends"):  # the first calls compile: the loop's with no state to expand
            module.seed_ends(meta, states, table, initial, ends, seen, ctx)
            module.expand_ends(meta, states, table, starts, edges, ends, seen, ctx, 0)
        code = 0
        while True:
            code = module.expand_ends(meta, states, table, starts, edges, ends, seen, ctx, CHUNK)
            if code == FULL:
                n, ne = int(meta[0]), int(meta[2])
                if n + ni > states.shape[0]:
                    states, ends = engine._grown(states, n), engine._grown(ends, n)
                    starts = engine._grown(starts, int(meta[1]) + 1)
                table = engine.fitted_table(table, n + ni)
                if ne + ni > edges.shape[0]:
                    edges = engine._grown(edges, ne, ne + ni)
                continue
            if code == ASK:
                meta[8], meta[9] = meta[3], meta[4]
                if settled_by(wanted, bool(meta[3]), _seen(seen, int(meta[4]), outcome)):
                    break
                continue
            if code in (COMPLETE, PAST_BUDGET):
                break
    except engine.RUNTIME_ERRORS as exc:
        raise engine.NativeDeferred(str(exc)) from exc
    n, i, ne = int(meta[0]), int(meta[1]), int(meta[2])
    stuck = bool(meta[3])
    seen_words = _seen(seen, int(meta[4]), outcome)
    stopped_by = f"past its budget of {max_states:,} states" if code == PAST_BUDGET else ""
    complete = i == n and not stopped_by
    values = verdict_values(wanted, stuck, seen_words, complete, lambda kinds: _all_reach_natively(starts, edges, ends, i, ne, kinds))
    return Verdicts(values, n, complete, stopped_by)


def _seen(seen: np.ndarray, count: int, outcome) -> set[str]:
    """The outcomes seen, in the Python loop's words (the decoded value as text)."""
    return {str(outcome(int(code))) if outcome is not None else "finished" for code in seen[:count]}


def _all_reach_natively(starts: np.ndarray, edges: np.ndarray, ends: np.ndarray, expanded: int, ne: int, kinds: tuple[int, ...]) -> bool:
    """`_all_reach` over the arrays, with the compiled backward search."""
    from checker.engines.native import engine

    goal = np.isin(ends[:expanded], kinds).astype(np.uint8)
    return bool(engine._runtime().can_reach(starts[: expanded + 1], edges[:ne], goal).all())
