"""The explicit search spread over a Dask cluster: one exploration, its states partitioned.

For a state space larger than one machine's memory. Each worker holds one `Partition`
(`checker.engines.partition`): the visited states it owns, by a stable hash of the packed state,
with their parent links. The search goes level by level with a barrier: every partition absorbs
the successors sent to it and expands its new states, and the batches it produces go to their
owners as Dask futures (worker to worker, not through this process); this process only adds up
each level's small reports. Breadth first with a barrier, the first level where a property is
decided gives a shortest path, and the path is rebuilt by asking each owner for its part of the
parent chain; like every path it is then replayed in the interpreter by the runner.

Decided here: every property of a state or a transition (invariant, reachable, unreachable,
after) and the generic deadlock-free, deterministic and coverage. The graph properties
(terminates, leads-to, can-end, value) need the whole graph in one place (cycles, backward
reachability, retrograde analysis): the runner does not send them here but to the explicit
engine on this machine (`graph_notice` says so once per run), whose verdicts they keep.

Partitions live in their workers' memory, so a worker lost during a search loses part of the
visited set: the search stops with an error (run it again) instead of returning a wrong count.
"""

from __future__ import annotations

import operator
import time
import uuid
from dataclasses import dataclass, field
from typing import Any

from checker.engines import explicit
from checker.engines.explicit import Budget, Finding
from checker.engines.partition import ROOT, Batch, Hit, LevelReport, Partition, owner_of
from checker.engines.verdict import EngineName, Status, Verdict, evidence_of
from checker.errors import RulecheckError
from checker.lang.compile import CompiledModel
from checker.lang.model import Config, Model
from checker.lang.properties import BoundProperty
from checker.lang.property_kinds import KINDS, KindClass
from checker.limits import OutOfBudget, WorkLimit

POLL_SECONDS = 2.0  # how often a level's barrier checks that the partitions' workers are alive
_PARTITIONS: dict[tuple[str, int], Partition] = {}  # in each worker process: the partitions it holds


def searched(prop: BoundProperty) -> bool:
    """Whether the partitioned search decides this property's kind (graph kinds need the
    whole graph on one machine)."""
    return KINDS[prop.kind].klass is not KindClass.GRAPH


def graph_notice(props: list[tuple[str, BoundProperty]]) -> str | None:
    """The one line a run with `--engine distributed` prints about the properties it decides on
    this machine (`props`: each with the game it belongs to), or None when there are none: the
    results say `explicit`, and a user who asked for a cluster should know why before reading
    them."""
    local = {(game, prop.id): prop.kind for game, prop in props if not searched(prop)}
    if not local:
        return None
    kinds = ", ".join(sorted(set(local.values())))
    count = f"{len(local)} propert{'y needs' if len(local) == 1 else 'ies need'}"
    return f"{count} the whole state graph ({kinds}): decided on this machine by the explicit engine"


# --- run in the workers -------------------------------------------------------------------------


def _open(run: str, index: int, parts: int, model: Model, config: Config, props: list[BoundProperty], max_states: int, seconds: float) -> None:
    compiled = CompiledModel(model, config, WorkLimit(max_states, time.perf_counter() + seconds))
    _PARTITIONS[(run, index)] = Partition(compiled, props, index, parts)


def _partition(run: str, index: int) -> Partition:
    try:
        return _PARTITIONS[(run, index)]
    except KeyError:
        raise RulecheckError(f"partition {index} of the distributed search is gone (its worker restarted)", hint="run the check again") from None


def _step(run: str, index: int, decided: frozenset[str], *incoming: Batch) -> tuple[Any, ...]:
    outgoing, report = _partition(run, index).step(decided, list(incoming))
    return (*outgoing, report)


def _path_part(run: str, index: int, state: int) -> list[int]:
    return _partition(run, index).path_to(state)


def _fired(run: str, index: int) -> bytes:
    return bytes(_partition(run, index).fired)


def _close(run: str) -> None:
    for key in [key for key in _PARTITIONS if key[0] == run]:
        del _PARTITIONS[key]


# --- run in the client --------------------------------------------------------------------------


@dataclass
class SearchOutcome:
    """What the partitioned search found, in the terms the verdicts need."""

    states: int = 0
    transitions: int = 0
    depth: int = 0
    complete: bool = False
    stopped_by: str = ""
    seconds: float = 0.0
    hits: dict[str, Hit] = field(default_factory=dict)  # property id: the first level's first hit
    paths: dict[str, list[int]] = field(default_factory=dict)  # property id: packed states from an initial state
    error: tuple[list[int], str] | None = None  # (path, message) of a modelling error
    fired: bytearray = field(default_factory=bytearray)
    levels: int = 0  # levels submitted and read (the last one finds nothing new)
    cpu: float = 0.0  # CPU seconds of every partition's steps, added up
    critical: float = 0.0  # the slowest partition's step CPU seconds, added up over the levels


class PartitionedSearch:
    """One breadth-first search over the workers of `client`, a partition per worker."""

    def __init__(self, client: Any, workers: list[str]) -> None:
        self.client = client
        self.workers = workers
        self.parts = len(workers)
        self.run = uuid.uuid4().hex

    def explore(self, compiled: CompiledModel, props: list[BoundProperty], budget: Budget) -> SearchOutcome:
        started = time.perf_counter()
        outcome = SearchOutcome(fired=bytearray(len(compiled.instances)))
        self._all(_open, self.parts, compiled.model, compiled.config, props, budget.max_states, budget.timeout)
        try:
            self._levels(compiled.initial, budget, started, outcome)
            for prop_id, hit in outcome.hits.items():
                outcome.paths[prop_id] = self.path_to(hit.end) + ([hit.then] if hit.then is not None else [])
            for fired in self._all(_fired):
                outcome.fired = bytearray(a | b for a, b in zip(outcome.fired, fired))
        finally:
            self._release()
        outcome.seconds = time.perf_counter() - started
        return outcome

    def _levels(self, initial: list[int], budget: Budget, started: float, outcome: SearchOutcome) -> None:
        """Level by level until no partition has a new state. The next level is submitted
        before this one's reports are read (its tasks wait for this level's batches on the
        workers, not for this process), so the round trip to the client is off the critical
        path; a level submitted and not wanted is cancelled. The properties it skips as decided
        lag one level behind, which only means a few more checks."""
        seeds = [Batch() for _ in range(self.parts)]
        for state in dict.fromkeys(initial):
            seeds[owner_of(state, self.parts)].pairs.extend((state, ROOT))
        level = self._submit_level([[batch] for batch in seeds], frozenset())
        levels = 0
        try:
            while True:
                ahead = self._submit_level([[level[q][p] for q in range(self.parts)] for p in range(self.parts)], frozenset(outcome.hits))
                reports: list[LevelReport] = self._gather([level[p][self.parts] for p in range(self.parts)])
                level = ahead
                outcome.levels += 1
                outcome.cpu += sum(r.seconds for r in reports)
                outcome.critical += max(r.seconds for r in reports)
                fresh = sum(r.new_states for r in reports)
                outcome.states += fresh
                outcome.transitions += sum(r.transitions for r in reports)
                levels += 1 if fresh else 0
                for report in reports:
                    for hit in report.hits:
                        outcome.hits.setdefault(hit.prop_id, hit)
                error = next((r.error for r in reports if r.error is not None), None)
                if error is not None:
                    outcome.error = (self.path_to(error[0]), error[1])
                    break
                if not fresh:
                    outcome.complete = True
                    break
                if outcome.states >= budget.max_states:
                    outcome.stopped_by = f"state budget of {budget.max_states:,} reached (at the end of a level: {outcome.states:,} states)"
                    break
                if time.perf_counter() - started > budget.timeout:
                    outcome.stopped_by = f"timeout after {budget.timeout:g} s"
                    break
        finally:
            self.client.cancel([piece for pieces in level for piece in pieces])
        outcome.depth = max(levels - 1, 0)

    def _submit_level(self, incoming: list[list[Any]], decided: frozenset[str]) -> list[list[Any]]:
        """One level's steps; for each partition, futures of its batch for each owner and,
        last, of its report."""
        steps = [self._submit(p, _step, self.run, p, decided, *incoming[p]) for p in range(self.parts)]
        return [[self._submit(p, operator.getitem, steps[p], q) for q in range(self.parts + 1)] for p in range(self.parts)]

    def path_to(self, state: int) -> list[int]:
        """The packed states from an initial state to `state`, from the owners' parent links."""
        chain: list[int] = []
        while state != ROOT:
            part = self._gather([self._submit(owner_of(state, self.parts), _path_part, self.run, owner_of(state, self.parts), state)])[0]
            chain.extend(part[:-1])
            state = part[-1]
        return chain[::-1]

    def _submit(self, part: int, fn: Any, *args: Any) -> Any:
        return self.client.submit(fn, *args, workers=[self.workers[part]], allow_other_workers=False, pure=False)

    def _all(self, fn: Any, *args: Any) -> list[Any]:
        return self._gather([self._submit(p, fn, self.run, p, *args) for p in range(self.parts)])

    def _gather(self, futures: list[Any]) -> list[Any]:
        """The futures' results. A partition's worker gone stops the search with an error: its
        pinned tasks would wait for it for ever (or be cancelled). A task can also finish and
        lose its result with its worker before the result is read: the scheduler then runs it
        again on a worker that is gone, so every read is bounded too, and the workers checked
        between reads."""
        from concurrent.futures import CancelledError

        from distributed import wait

        while True:
            try:
                wait(futures, timeout=POLL_SECONDS)
                return [future.result(timeout=POLL_SECONDS) for future in futures]  # raises a task's error, if any
            except TimeoutError:
                self._stop_if_lost()
            except CancelledError:
                self._stop_if_lost(cancelled=True)

    def _stop_if_lost(self, cancelled: bool = False) -> None:
        lost = self._lost()
        if lost or cancelled:
            raise RulecheckError(f"--engine distributed: worker(s) {', '.join(lost) or 'of the cluster'} holding part of the search left it",
                                 hint="a partitioned search cannot resume without them; run the check again")

    def _lost(self) -> list[str]:
        alive = set(self.client.scheduler_info()["workers"])
        return [w for w in self.workers if w not in alive]

    def _release(self) -> None:
        """Drop the partitions on the workers still there (directly, not as tasks that could
        wait for a lost worker)."""
        alive = [w for w in self.workers if w not in self._lost()]
        if alive:
            self.client.run(_close, self.run, workers=alive, on_error="ignore")


class DistributedEngine:
    """The engine protocol (`checker.engines.verdict.Engine`) for the partitioned search, with the same
    flags as `ExplicitEngine` so the runner treats both alike."""

    name = EngineName.DISTRIBUTED

    def __init__(self, client: Any) -> None:
        self.client = client
        self.compile_over_budget = False
        self.compiling = False
        self.initial_empty = False
        self.complete = False

    def decide(self, model: Model, config: Config, props: list[BoundProperty], options: Any) -> dict[str, Verdict]:
        """The verdicts of `props`, which must all be `searched` (the runner sends the graph
        properties to the explicit engine)."""
        from checker.engines.cluster import worker_addresses

        unsearched = [p.id for p in props if not searched(p)]
        if unsearched:
            raise RulecheckError(f"the distributed engine cannot decide {', '.join(unsearched)}: a graph property needs the whole state graph on one machine")

        started = time.perf_counter()
        self.compiling = True
        try:
            compiled = CompiledModel(model, config, WorkLimit(options.budget.max_states, started + options.budget.timeout))
        except OutOfBudget:
            self.compile_over_budget = True
            raise
        self.compiling = False
        if not compiled.initial:
            self.initial_empty = True
            return {}
        remaining = Budget(options.budget.max_states, max(options.budget.timeout - (time.perf_counter() - started), 0.001))
        outcome = PartitionedSearch(self.client, worker_addresses(self.client)).explore(compiled, props, remaining)
        self.complete = outcome.complete
        return {prop.id: self._verdict(compiled, prop, outcome) for prop in props}

    def _verdict(self, compiled: CompiledModel, prop: BoundProperty, outcome: SearchOutcome) -> Verdict:
        bound = "exhaustive" if outcome.complete else f"{outcome.stopped_by or 'stopped'}; explored to depth {outcome.depth}"
        finding, path = self._finding(compiled, prop, outcome)
        evidence = None
        if path:
            instances = compiled.instances
            last_action = instances[finding.last_instance].action.name if finding.last_instance is not None else None
            moves = tuple((instances[i].action.name, dict(instances[i].params)) for i in finding.branch_instances)
            evidence = evidence_of(finding.shape, [compiled.layout.unpack(s) for s in path], last_action=last_action, moves=moves)
        return Verdict(
            Status(finding.status), EngineName.DISTRIBUTED, bound, states=outcome.states, transitions=outcome.transitions,
            depth=outcome.depth, seconds=outcome.seconds, detail=finding.detail or finding.note if finding.status == "fails" and not path else finding.detail,
            evidence=evidence, note=finding.note,
        )

    @staticmethod
    def _finding(compiled: CompiledModel, prop: BoundProperty, outcome: SearchOutcome) -> tuple[Finding, list[int]]:
        """As `explicit.decide` words it, from the search's hits (a finding and its path)."""
        if outcome.error is not None and prop.id not in outcome.hits:
            path, message = outcome.error
            return Finding("error", shape="error", note=f"Modelling error in the next step: {message}", detail=message), path
        if prop.id in outcome.hits:
            return outcome.hits[prop.id].finding, outcome.paths[prop.id]
        if prop.kind == "reachable":
            return Finding("fails" if outcome.complete else "undecided", note="No reachable state satisfies the expression."), []
        if prop.kind == "coverage":
            return explicit.coverage(explicit.Exploration(compiled, complete=outcome.complete, fired=outcome.fired)), []
        return Finding("holds" if outcome.complete else "undecided"), []
