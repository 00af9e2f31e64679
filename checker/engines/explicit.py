"""The explicit-state engine: breadth-first exploration of every reachable state.

One exploration per model configuration decides every property at once. States are packed
integers (see `checker.lang.layout`); the visited set maps each to its discovery number, parent
links live in an `array`, so every counterexample is rebuilt as a shortest path. State
properties (invariant, reachable, unreachable, after, deadlock, determinism, coverage) are
checked as states are discovered, which in breadth-first order means the first violation found
is a shortest one. Graph properties (termination, leads-to) run on the stored edge lists after
the exploration is complete (a run that stops once decided, the growth re-check's, also looks for
a cycle among the states it has expanded: `expanded_cycle`).
"""

from __future__ import annotations

import time
from array import array
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from types import ModuleType
from typing import cast

from checker.engines.finding import Budget, Finding, Progress, trapped_finding
from checker.engines.graph import (
    CSRGraph,
    is_cyclic,
    longest_paths,
    postorder_if_acyclic,
    reaches,
    shortest_path_within,
    strongly_connected,
)
from checker.engines.verdict import EngineName, Status, Verdict, evidence_of
from checker.errors import ModellingError
from checker.lang.compile import CompiledModel, ScreenSource
from checker.lang.properties import BoundProperty
from checker.lang.property_kinds import KINDS
from checker.lang.symmetry import Symmetry, concretise


@dataclass
class Exploration:
    compiled: CompiledModel
    states: list[int] = field(default_factory=list)
    index: dict[int, int] = field(default_factory=dict)
    parent: array = field(default_factory=lambda: array("i"))
    layer_ends: list[int] = field(default_factory=list)
    graph: CSRGraph | None = None
    transitions: int = 0
    complete: bool = False
    stopped_by: str = ""
    seconds: float = 0.0
    fired: bytearray = field(default_factory=bytearray)
    error: tuple[int, str] | None = None  # (state number, message) of a modelling error
    symmetry: Symmetry | None = None  # states are representatives of their classes under renaming
    terminal: bytearray = field(default_factory=bytearray)  # per expanded node, 1 when its state is terminal (the graph passes read it)

    @property
    def depth(self) -> int:
        return max(len(self.layer_ends) - 1, 0)

    def path_to(self, node: int) -> list[int]:
        path = [node]
        while self.parent[path[-1]] >= 0:
            path.append(self.parent[path[-1]])
        return path[::-1]

    def depth_of(self, node: int) -> int:
        from bisect import bisect_right

        return bisect_right(self.layer_ends, node)


class StateChecks:
    """The per-state and per-transition property checks, compiled for one configuration."""

    def __init__(self, compiled: CompiledModel, props: list[BoundProperty]) -> None:
        self.compiled = compiled
        self.found: dict[str, Finding] = {}
        # (prop, predicate, the predicate value that decides the property, the verdict it decides)
        self.state_preds: list[tuple[BoundProperty, Callable[[int], object], bool, str]] = []
        self.after: dict[int, list[tuple[BoundProperty, Callable]]] = {}
        self.deadlock = [p for p in props if p.kind == "deadlock-free"]
        self.determinism = [p for p in props if p.kind == "deterministic"]
        self._screen_source: ScreenSource | None = None
        for prop in props:
            if prop.kind == "invariant":
                assert prop.expr is not None  # the state kinds require `expr` (property_kinds), which `bind` types
                self.state_preds.append((prop, compiled.predicate(prop.expr), False, "fails"))
            elif prop.kind == "unreachable":
                assert prop.expr is not None  # as above
                self.state_preds.append((prop, compiled.predicate(prop.expr), True, "fails"))
            elif prop.kind == "reachable":
                assert prop.expr is not None  # as above
                self.state_preds.append((prop, compiled.predicate(prop.expr), True, "holds"))
            elif prop.kind == "after":
                assert prop.expr is not None  # `after` requires `expr`
                for inst in compiled.instances:
                    if inst.action.name == prop.action:
                        fn = compiled.function(prop.expr, compiled.encoded_params(inst), with_old=True)
                        self.after.setdefault(inst.id, []).append((prop, fn))

    def open_state_preds(self) -> list[tuple[BoundProperty, Callable, bool, str]]:
        return [t for t in self.state_preds if t[0].id not in self.found]

    def screen(self, preds: list[tuple[BoundProperty, Callable, bool, str]]) -> Callable[[int], bool] | None:
        """One function telling whether any of `preds` (some of `state_preds`) is decided at a
        state (or raises), so that most states cost one call instead of one per property (None:
        nothing to check). The source of every state predicate's test is emitted once, on the
        first call; each later call (with fewer open properties) only assembles and compiles."""
        if not preds:
            return None
        if self._screen_source is None:
            self._screen_source = self.compiled.screen_source([(prop.expr, deciding) for prop, _, deciding, _ in self.state_preds])  # type: ignore[misc]  # only state kinds, each with its `expr`, are in `state_preds`
        numbers = {id(prop): i for i, (prop, _, _, _) in enumerate(self.state_preds)}
        return self._screen_source.function(numbers[id(prop)] for prop, _, _, _ in preds)


def explore(compiled: CompiledModel, props: list[BoundProperty], budget: Budget, on_progress: Callable[[Progress], None] | None = None, need_graph: bool = True,
            symmetry: Symmetry | None = None) -> tuple[Exploration, dict[str, Finding]]:
    """Explore breadth first and decide every property; returns the exploration and findings.
    With `symmetry`, each state found is replaced by its class's representative."""
    exp = Exploration(compiled, symmetry=symmetry)
    canonical = symmetry.canonical if symmetry is not None else None
    exp.fired = bytearray(len(compiled.instances))
    checks = StateChecks(compiled, props)
    graph = CSRGraph() if need_graph else None
    exp.graph = graph
    states, index, parent = exp.states, exp.index, exp.parent
    successors, terminal = compiled.successors, compiled.terminal
    term_append = exp.terminal.append
    instances = compiled.instances
    forced = [inst.forced for inst in instances]
    after, fired = checks.after, exp.fired
    found = checks.found
    preds = checks.open_state_preds()
    started = time.perf_counter()
    last_report = started

    # The screen is built again for fewer properties once keeping the stale one (which still
    # passes the states where decided properties' tests hold, each then tested one by one for
    # nothing) has cost `STALE_SCREEN_FACTOR` times the time building it did: building a large
    # model's screen (share and compile) cost as much as the rest of a small exploration, at
    # every property decided. Which screen runs never changes what is found, only how fast.
    screen: Callable[[int], bool] | None = None
    rebuild_seconds = stale_seconds = 0.0  # what building the screen cost; what keeping it stale has cost since
    narrowed = False  # the screen tests properties decided since it was built

    def renew_screen(whatever: bool = False) -> None:
        """The screen of the open properties, when they have narrowed and the stale one has
        cost enough (or `whatever`)."""
        nonlocal screen, rebuild_seconds, stale_seconds, narrowed
        if whatever or (narrowed and (not preds or stale_seconds >= STALE_SCREEN_FACTOR * rebuild_seconds)):
            building = time.perf_counter()
            screen = checks.screen(preds)
            rebuild_seconds, stale_seconds, narrowed = time.perf_counter() - building, 0.0, False

    renew_screen(whatever=True)

    def discover(s: int, from_node: int) -> int:
        nonlocal stale_seconds
        node = len(states)
        index[s] = node
        states.append(s)
        parent.append(from_node)
        if screen is None:
            return node  # no open property
        try:
            if not screen(s):
                return node  # no open property is decided here, and none raises
        except ModellingError:
            pass  # the predicates one by one say which property and what error
        testing, known = time.perf_counter(), len(found)
        for prop, fn, deciding, verdict in preds:
            if prop.id in found:
                continue
            try:
                decided = bool(fn(s)) == deciding
            except ModellingError as exc:
                found[prop.id] = property_error(exp.path_to(node), exc)
                continue
            if decided:
                found[prop.id] = Finding(verdict, exp.path_to(node), note=KINDS[prop.kind].violation.format(expr=prop.prop.texts["expr"][0]))
        if len(found) == known:
            stale_seconds += time.perf_counter() - testing
        return node

    for s in compiled.initial:
        if canonical is not None:
            s = canonical(s)
        if s not in index:
            discover(s, -1)
    exp.layer_ends.append(len(states))
    i = 0
    max_states = budget.max_states
    deadline = started + budget.timeout
    check_determinism = bool(checks.determinism)
    check_deadlock = bool(checks.deadlock)
    # Only a run that asks for it stops once every property is decided: a normal check explores
    # everything, since its graph passes, coverage and reports need the whole state space.
    decided_all = len(props) if budget.stop_when_decided else -1
    # Such a run also decides `terminates` before it is complete where it can: a cycle among the
    # nodes already expanded (every move of theirs is stored) is a cycle of the whole graph, so
    # the game can go on forever whatever the unexplored rest holds (`expanded_cycle`). Looked
    # for at the end of a layer once the states have doubled since the last look (the passes
    # then cost at most about twice one pass over the final graph), and where the run stops.
    cycle_props = [p for p in props if p.kind == "terminates" and p.prop.within is None] if decided_all >= 0 and graph is not None else []
    next_cycle_look = CYCLE_LOOK_STATES
    try:
        while i < len(states):
            if len(found) == decided_all:
                exp.stopped_by = "every property decided"
                break
            if i == exp.layer_ends[-1]:
                exp.layer_ends.append(len(states))
                still_open = checks.open_state_preds()
                if len(still_open) != len(preds):
                    preds, narrowed = still_open, True
                renew_screen()
                if decided_all >= 0:  # coverage is decided once every action has fired
                    for prop in props:
                        if prop.kind == "coverage" and prop.id not in found and coverage(exp).status == "holds":
                            found[prop.id] = Finding("holds")
                    if len(states) >= next_cycle_look and any(p.id not in found for p in cycle_props):
                        next_cycle_look = 2 * len(states)
                        _decide_by_cycle(exp, cycle_props, found)
                    if len(found) == decided_all:
                        exp.stopped_by = "every property decided"
                        break
            if (i & 1023) == 0:
                renew_screen()
                now = time.perf_counter()
                if now > deadline:
                    exp.stopped_by = f"timeout after {budget.timeout:g} s"
                    break
                if on_progress is not None and now - last_report > 0.5:
                    last_report = now
                    on_progress(Progress(len(states), exp.transitions, len(exp.layer_ends) - 1, len(states) - i, now - started))
            s = states[i]
            if terminal(s):
                term_append(1)
                if graph is not None:
                    graph.close_node()
                i += 1
                continue
            try:
                moves = successors(s)
            except ModellingError as exc:
                exp.error = (i, exc.message)
                break
            term_append(0)
            if not moves:
                if check_deadlock:
                    for prop in checks.deadlock:
                        if prop.id not in found:
                            found[prop.id] = Finding("fails", exp.path_to(i), shape="deadlock", note="No rule applies and the game is not over: the game is stuck.")
                    check_deadlock = False
                if graph is not None:
                    graph.close_node()
                i += 1
                continue
            exp.transitions += len(moves)
            if check_determinism and len(moves) > 1 and forced[moves[0][0]]:
                first = moves[0]
                for other in moves[1:]:
                    if other[1] != first[1]:
                        for prop in checks.determinism:
                            found.setdefault(prop.id, Finding("fails", exp.path_to(i), shape="branch", branch_instances=(first[0], other[0]), note="Two forced rules apply at once and prescribe different outcomes."))
                        check_determinism = False
                        break
            for inst_id, t in moves:
                fired[inst_id] = 1
                key = t if canonical is None else canonical(t)
                node = index.get(key)
                if node is None:
                    if len(states) >= max_states:
                        exp.stopped_by = f"state budget of {max_states:,} reached"
                        raise _BudgetSpent
                    node = discover(key, i)
                if graph is not None:
                    graph.edges.append(node)
                checks_here = after.get(inst_id)
                if checks_here:
                    for prop, fn in checks_here:
                        if prop.id in found:
                            continue
                        try:
                            holds = fn(t, s)
                        except ModellingError as exc:
                            found[prop.id] = property_error(exp.path_to(i) + [node], exc, inst_id)
                            continue
                        if not holds:
                            found[prop.id] = Finding("fails", exp.path_to(i) + [node], last_instance=inst_id, note=f"After `{prop.action}`, the property no longer holds.")
            if graph is not None:
                graph.close_node()
            i += 1
        else:
            exp.complete = True
    except _BudgetSpent:
        pass
    except MemoryError:
        exp.stopped_by = "out of memory"  # what was explored stands; the rest is undecided
    if not exp.complete and exp.error is None and exp.stopped_by != "out of memory" and any(p.id not in found for p in cycle_props):
        _decide_by_cycle(exp, cycle_props, found)
    exp.seconds = time.perf_counter() - started
    if exp.complete and exp.layer_ends[-1] != len(states):
        exp.layer_ends.append(len(states))
    return exp, found


def property_error(path: list[int], exc: ModellingError, last_instance: int | None = None) -> Finding:
    """The property's own expression cannot be evaluated in the last state of `path`."""
    return Finding("error", path, shape="property-error", last_instance=last_instance, note=f"The property's expression cannot be evaluated in the last state: {exc.message}.", detail=f"property expression: {exc.message}")


class _BudgetSpent(Exception):
    pass


STALE_SCREEN_FACTOR = 1.0  # a stale screen is built again once keeping it has cost this many times what building it did (`explore`)
CYCLE_LOOK_STATES = 4096  # a run that stops when decided first looks for a cycle at this many states


def expanded_cycle(exp: Exploration, prop: BoundProperty) -> Finding | None:
    """`terminates`'s lasso where the exploration is not complete, if the nodes it has expanded
    already hold a cycle of non-terminal states (None if not: that decides nothing). Every move
    of an expanded node is stored, so such a cycle is one of the whole graph; the nodes not yet
    expanded are passed as terminal, so no cycle goes through them."""
    graph = exp.graph
    assert graph is not None
    expanded = len(graph.starts) - 1  # a node is closed once all its moves are stored
    unexpanded = len(exp.states) - expanded
    part = CSRGraph()
    part.edges = graph.edges[: graph.starts[expanded]]
    part.starts = graph.starts[: expanded + 1] + array("i", [graph.starts[expanded]]) * unexpanded
    view = replace(exp, graph=part, terminal=exp.terminal[:expanded] + b"\x01" * unexpanded)
    finding = terminates(view, prop)
    return finding if finding.status == "fails" else None


def _decide_by_cycle(exp: Exploration, props: list[BoundProperty], found: dict[str, Finding]) -> None:
    """Decide the open `terminates` properties (none with `within`: one lasso decides them all)
    if the expanded nodes hold a cycle."""
    finding = expanded_cycle(exp, props[0])
    if finding is not None:
        for prop in props:
            found.setdefault(prop.id, finding)


# The kinds decided over the whole graph once it is explored; every other kind not found failing
# while exploring holds.
GRAPH_KINDS = frozenset({"terminates", "leads-to", "can-end", "value"})


def decide(exp: Exploration, props: list[BoundProperty], found: dict[str, Finding], graph_checks: dict[str, Callable] | None = None) -> dict[str, Finding]:
    """Turn the exploration into a finding for every property. `graph_checks` adds or replaces
    the checks of graph properties by kind: the native back-end passes its compiled ones, and
    the caller the `value` kind's, a retrograde analysis this engine does not import."""
    checks = {"terminates": terminates, "leads-to": leads_to, "can-end": lambda e, _p: can_end(e), **(graph_checks or {})}
    out: dict[str, Finding] = {}
    for prop in props:
        if exp.error is not None and prop.id not in found:
            node, message = exp.error
            out[prop.id] = Finding("error", exp.path_to(node), shape="error", note=f"Modelling error in the next step: {message}", detail=message)
            continue
        if prop.kind == "reachable":
            out[prop.id] = found.get(prop.id) or Finding("fails" if exp.complete else "undecided", note="No reachable state satisfies the expression.")
        elif prop.id in found:
            out[prop.id] = found[prop.id]
        elif prop.kind == "coverage":
            out[prop.id] = coverage(exp)
        elif not exp.complete:
            out[prop.id] = Finding("undecided")
        elif prop.kind in GRAPH_KINDS:
            out[prop.id] = checks[prop.kind](exp, prop)  # `value` is given by the caller (`checker.engines.value`): missing, it stops here
        else:
            out[prop.id] = Finding("holds")
    return out


def add_witnesses(exp: Exploration, props: list[BoundProperty], findings: dict[str, Finding], count: int) -> None:
    """Give each `reachable` property that holds up to `count` witnesses in all: the first
    `count` states satisfying it in discovery order, each with its parent path. Discovery is
    breadth first, so each path is a shortest play to its own state, and the first is the
    witness the exploration found."""
    if count <= 1:
        return
    for prop in props:
        finding = findings.get(prop.id)
        if not KINDS[prop.kind].keeps_witness or finding is None or finding.status != "holds" or not finding.path:
            continue
        assert prop.expr is not None  # a kind that keeps witnesses (`reachable`) requires `expr`
        satisfies = exp.compiled.predicate(prop.expr)
        nodes: list[int] = []
        for node in range(len(exp.states)):
            try:
                if satisfies(int(exp.states[node])):
                    nodes.append(node)
            except ModellingError:
                continue  # the witness found first is evaluated without error; others need not be
            if len(nodes) == count:
                break
        finding.more_paths = [exp.path_to(node) for node in nodes if node != finding.path[-1]][: count - 1]


def coverage(exp: Exploration) -> Finding:
    fired_actions = {inst.action.name for inst, hit in zip(exp.compiled.instances, exp.fired) if hit}
    active = [a.name for a in exp.compiled.interpreter.active_actions()]
    never = [name for name in active if name not in fired_actions]
    if not never:
        return Finding("holds")
    if not exp.complete:
        return Finding("undecided", detail=f"not yet fired: {', '.join(never)}")
    return Finding("fails", shape="list", detail=f"never fire: {', '.join(never)}", note=f"These actions never fire in any reachable state: {', '.join(never)}.")


# The graph passes run compiled (`checker.engines.native.passes`, the same findings) on graphs
# of at least this many states when numba is installed: below it, importing numba and loading
# the compiled passes costs more than the Python passes take.
COMPILED_PASSES_FROM = 20_000


def compiled_passes(states: int) -> ModuleType | None:
    """The compiled graph passes when they pay for a graph of `states` nodes, else None (the
    passes below, in Python, are the reference and the fallback without numba)."""
    if states < COMPILED_PASSES_FROM:
        return None
    from checker.engines.native import unavailable_reason

    if unavailable_reason() is not None:
        return None
    from checker.engines.native import passes

    return passes


def terminal_mask(exp: Exploration) -> bytearray:
    """Per node, 1 when its state is terminal: as the exploration recorded it when it expanded
    every node, else asked of the compiled model."""
    if len(exp.terminal) == len(exp.states):
        return exp.terminal
    terminal = exp.compiled.terminal
    return bytearray(1 if terminal(s) else 0 for s in exp.states)


def terminates(exp: Exploration, prop: BoundProperty) -> Finding:
    graph = exp.graph
    assert graph is not None
    term = terminal_mask(exp)
    passes = compiled_passes(len(exp.states))
    if passes is not None:
        import numpy as np

        starts, edges = passes.csr_arrays(graph.starts, graph.edges)
        return passes.terminates(starts, edges, np.frombuffer(term, np.uint8), exp.layer_ends, exp.path_to, prop.prop.within)
    states = exp.states
    non_terminal = bytearray(1 - t for t in term)
    keep = cast(Callable[[int], bool], non_terminal.__getitem__)  # its 0/1 bytes serve as truth values
    best: tuple[int, list[int]] | None = None
    acyclic = postorder_if_acyclic(graph, keep)
    longest = longest_paths(graph, acyclic) if acyclic is not None else array("i", [0]) * len(states)
    for component in strongly_connected(graph, keep) if acyclic is None else ():
        if is_cyclic(graph, component):
            entry = min(component)
            if best is None or exp.depth_of(entry) < exp.depth_of(best[0]):
                best = (entry, component)
            continue
        node = component[0]
        longest[node] = max((longest[succ] + 1 for succ in graph.successors(node)), default=0)
    if best is not None:
        entry, component = best
        members = set(component)
        cycle = shortest_path_within(graph, entry, lambda n: n == entry, members.__contains__)
        assert cycle is not None
        prefix = exp.path_to(entry)
        exits = any(succ not in members for node in members for succ in graph.successors(node))
        return Finding("fails", prefix + cycle[1:], shape="lasso", loop_start=len(prefix) - 1, loop_exits=exits)
    starts = range(exp.layer_ends[0])
    if not starts:
        return Finding("holds", detail="no initial state")
    if prop.prop.within is not None:
        worst = max(starts, key=lambda n: longest[n])
        if longest[worst] > prop.prop.within:
            path = [worst]
            while len(path) <= prop.prop.within + 1:
                node = path[-1]
                path.append(max(graph.successors(node), key=lambda n: longest[n]))
            return Finding("fails", path, note=f"A play lasts longer than {prop.prop.within} steps (the longest lasts {longest[worst]}).")
    return Finding("holds", detail=f"longest play: {max(longest[n] for n in starts)} steps")


def can_end(exp: Exploration) -> Finding:
    """AG EF terminal: from every reachable state some play still reaches a terminal state.

    Backward reachability from the terminal states; the counterexample is a shallowest state
    that cannot reach one (nodes are numbered breadth first), with the size of its closed set
    of successors, none of them terminal (the evidence replays that closure in the interpreter)."""
    graph = exp.graph
    assert graph is not None
    term = terminal_mask(exp)
    passes = compiled_passes(len(exp.states))
    if passes is not None:
        import numpy as np

        starts, edges = passes.csr_arrays(graph.starts, graph.edges)
        return passes.can_end(starts, edges, np.frombuffer(term, np.uint8), exp.path_to)
    ends = reaches(graph, [n for n, t in enumerate(term) if t])
    trapped = next((n for n in range(len(exp.states)) if not ends[n]), None)
    if trapped is None:
        return Finding("holds")
    return trapped_finding(exp.path_to(trapped), reachable_count(graph, trapped), graph.out_degree(trapped) == 0)


def reachable_count(graph: CSRGraph, source: int) -> int:
    """How many nodes are reachable from `source` (itself included)."""
    seen = {source}
    stack = [source]
    while stack:
        for succ in graph.successors(stack.pop()):
            if succ not in seen:
                seen.add(succ)
                stack.append(succ)
    return len(seen)


def leads_to(exp: Exploration, prop: BoundProperty) -> Finding:
    graph = exp.graph
    assert graph is not None
    compiled = exp.compiled
    assert prop.source is not None and prop.target is not None  # `leads-to` requires `from` and `to`, which `bind` types
    source_fn = compiled.predicate(prop.source)
    target_fn = compiled.predicate(prop.target)
    states = exp.states
    sources = bytearray(len(states))
    avoid = bytearray(len(states))
    for node, s in enumerate(states):
        try:
            sources[node] = 1 if source_fn(s) else 0
            avoid[node] = 0 if target_fn(s) else 1
        except ModellingError as exc:
            return property_error(exp.path_to(node), exc)
    passes = compiled_passes(len(exp.states))
    if passes is not None:
        import numpy as np

        starts, edges = passes.csr_arrays(graph.starts, graph.edges)
        target = np.frombuffer(avoid, np.uint8) ^ 1
        return passes.leads_to(starts, edges, np.frombuffer(sources, np.uint8), target, np.frombuffer(terminal_mask(exp), np.uint8), exp.path_to)
    keep = cast(Callable[[int], bool], avoid.__getitem__)  # its 0/1 bytes serve as truth values
    bad = bytearray(len(states))  # can reach an end (dead end, terminal or cycle) avoiding the target
    ends = bytearray(len(states))  # an end itself
    acyclic = postorder_if_acyclic(graph, keep)
    if acyclic is not None:  # every component is one node without a loop
        starts, edges = graph.starts, graph.edges
        for node in acyclic:
            if starts[node + 1] == starts[node]:
                ends[node] = bad[node] = 1
            elif any(bad[succ] for succ in edges[starts[node] : starts[node + 1]] if avoid[succ]):
                bad[node] = 1
    for component in strongly_connected(graph, keep) if acyclic is None else ():
        cyclic = is_cyclic(graph, component)
        for node in component:
            if cyclic or graph.out_degree(node) == 0:
                ends[node] = 1
        if cyclic or any(ends[n] for n in component) or any(bad[succ] for n in component for succ in graph.successors(n) if avoid[succ]):
            for node in component:
                bad[node] = 1
    start = next((n for n in range(len(states)) if bad[n] and sources[n]), None)
    if start is None:
        return Finding("holds")
    prefix = exp.path_to(start)
    tail = shortest_path_within(graph, start, lambda n: ends[n] == 1, lambda n: avoid[n] == 1 and bad[n] == 1, include_source=True)
    assert tail is not None
    end = tail[-1]
    path = prefix + tail[1:]
    if graph.out_degree(end) == 0:
        reason = "the game ends" if compiled.terminal(states[end]) else "the game is stuck"
        return Finding("fails", path, shape="path", note=f"From a state where `from` holds, {reason} without `to` ever holding.")
    members = {n for n in range(len(states)) if avoid[n] and bad[n]}
    cycle = shortest_path_within(graph, end, lambda n: n == end, members.__contains__)
    assert cycle is not None
    return Finding("fails", path + cycle[1:], shape="lasso", loop_start=len(path) - 1, note="From a state where `from` holds, play can cycle forever without `to` ever holding.")


def verdict_of(finding: Finding, exp: Exploration) -> Verdict:
    """A finding as the engine protocol's verdict: the path unpacked into readable states."""
    compiled = exp.compiled
    bound = "exhaustive" if exp.complete else f"{exp.stopped_by or 'stopped'}; explored to depth {exp.depth}"
    evidence = None
    if finding.path:
        path, renaming = readable_path(exp, finding.path, finding.last_instance, finding.loop_start)
        last_action = compiled.instances[finding.last_instance].action.name if finding.last_instance is not None else None
        branches = [compiled.instances[i] for i in finding.branch_instances]
        if exp.symmetry is not None:  # the moves were found at the representative: rename them as the play is
            moves = tuple((b.action.name, exp.symmetry.rename_params(renaming, dict(b.params), dict(b.action.params))) for b in branches)
        else:
            moves = tuple((b.action.name, dict(b.params)) for b in branches)
        more = tuple(readable_path(exp, nodes)[0] for nodes in finding.more_paths)
        evidence = evidence_of(finding.shape, path, loop_start=finding.loop_start, last_action=last_action, moves=moves, exits=finding.loop_exits, more=more)
    return Verdict(
        Status(finding.status), EngineName.EXPLICIT, bound, states=len(exp.states), transitions=exp.transitions,
        depth=exp.depth, seconds=exp.seconds, detail=finding.detail or finding.note if finding.status == "fails" and not finding.path else finding.detail,
        evidence=evidence, note=finding.note,
    )


def readable_path(exp: Exploration, nodes: list[int], last_instance: int | None = None, loop_start: int | None = None) -> tuple[list, int]:
    """A path of state numbers as readable states (a play of the model even when the states are
    representatives of symmetry classes), with the renaming in force at its end."""
    unpack = exp.compiled.layout.unpack
    if exp.symmetry is None:
        return [unpack(exp.states[n]) for n in nodes], 0
    play, renaming = concretise(exp.symmetry, exp.states, nodes, exp.compiled.successors, last_instance, loop_start)
    return [unpack(s) for s in play], renaming
