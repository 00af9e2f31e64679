"""One partition of a breadth-first search split across workers by a hash of the packed state.

Every state has one owner, `owner_of(state, parts)`: a stable hash (the same in every process
and on every machine; Python's `hash()` is not something to rely on across processes, and on
an `int` it is the value itself, whose low bits are often one constant field). A `Partition`
keeps what it owns: the parent link of each of its states (the packed parent, which may live
in another partition) and the states new in the current level. One `step` per level absorbs the
successors other partitions sent (those never seen become this level's states, and the state
properties are tested on them), then expands those states, checking deadlock, determinism and
`after` on the way, and returns the successors grouped by owner for the next level.

Nothing here knows about Dask (`checker.engines.distributed` moves the batches): the same
partitions run in one process in the tests, where they must agree with the reference engine.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from checker.engines.explicit import Finding, StateChecks, property_error
from checker.errors import ModellingError
from checker.lang.compile import CompiledModel
from checker.lang.properties import BoundProperty
from checker.lang.property_kinds import KINDS

ROOT = -1  # the parent link of an initial state
_MASK = (1 << 64) - 1


def owner_of(state: int, parts: int) -> int:
    """The partition owning a packed state: a 64-bit mix (splitmix64's finaliser) of the state
    folded 64 bits at a time, so every field moves every partition bit."""
    h = 0
    while True:
        h = ((h ^ (state & _MASK)) * 0xBF58476D1CE4E5B9) & _MASK
        h = ((h ^ (h >> 27)) * 0x94D049BB133111EB) & _MASK
        h ^= h >> 31
        state >>= 64
        if not state:
            return h % parts


@dataclass(slots=True)
class Batch:
    """(successor, parent) pairs for one owner, flattened. An object, not a bare list, on
    purpose: Dask serialises a list element by element (moving 100,000 integers between two
    local workers took 12 s as a list, 0.1 s inside an object)."""

    pairs: list[int] = field(default_factory=list)


@dataclass
class Hit:
    """A property decided in this level at one of this partition's states: the finding (its
    path still to be rebuilt from `end`'s parent links) and, for a transition, the successor."""

    prop_id: str
    finding: Finding
    end: int
    then: int | None = None


@dataclass
class LevelReport:
    """What one partition did in one level: the driver's barrier adds these up."""

    new_states: int = 0
    transitions: int = 0
    hits: list[Hit] = field(default_factory=list)
    error: tuple[int, str] | None = None  # (state, message): a modelling error expanding the state
    seconds: float = 0.0  # CPU seconds of the step's thread (the level's work apart from moving batches)


class Partition:
    """The states one worker owns, with their parent links, and the level being explored."""

    def __init__(self, compiled: CompiledModel, props: list[BoundProperty], index: int, parts: int) -> None:
        self.compiled = compiled
        self.index, self.parts = index, parts
        self.checks = StateChecks(compiled, props)
        self.parent: dict[int, int] = {}
        self.fired = bytearray(len(compiled.instances))
        self.forced = [inst.forced for inst in compiled.instances]

    def step(self, decided: frozenset[str], incoming: list[Batch]) -> tuple[list[Batch], LevelReport]:
        """Absorb one level's incoming (successor, parent) pairs, flattened, in the senders'
        order, and expand the states new to this partition; `decided` are the properties some
        partition already decided in an earlier level (they are not checked again)."""
        started = time.thread_time()
        report = LevelReport()
        fresh = self._absorb(incoming)
        report.new_states = len(fresh)
        self._check_states(fresh, decided, report)
        outgoing = [Batch() for _ in range(self.parts)]
        self._expand(fresh, decided, report, outgoing)
        report.seconds = time.thread_time() - started
        return outgoing, report

    def path_to(self, state: int) -> list[int]:
        """This partition's part of the path back to an initial state: `state` and the links it
        owns, ending at the first link owned elsewhere (or ROOT)."""
        chain = []
        while state != ROOT and owner_of(state, self.parts) == self.index:
            chain.append(state)
            state = self.parent[state]
        chain.append(state)
        return chain

    def _absorb(self, incoming: list[Batch]) -> list[int]:
        parent = self.parent
        fresh = []
        for batch in incoming:
            pairs = batch.pairs
            for i in range(0, len(pairs), 2):
                state = pairs[i]
                if state not in parent:
                    parent[state] = pairs[i + 1]
                    fresh.append(state)
        return fresh

    def _check_states(self, fresh: list[int], decided: frozenset[str], report: LevelReport) -> None:
        preds = [p for p in self.checks.state_preds if p[0].id not in decided]
        screen = self.checks.screen(preds)
        if screen is None:
            return
        found = {hit.prop_id for hit in report.hits}
        for state in fresh:
            try:
                if not screen(state):
                    continue
            except ModellingError:
                pass  # the predicates one by one say which property and what error
            for prop, fn, deciding, verdict in preds:
                if prop.id in found:
                    continue
                try:
                    hit = bool(fn(state)) == deciding
                except ModellingError as exc:
                    report.hits.append(Hit(prop.id, property_error([], exc), state))
                    found.add(prop.id)
                    continue
                if hit:
                    note = KINDS[prop.kind].violation.format(expr=prop.prop.texts["expr"][0])
                    report.hits.append(Hit(prop.id, Finding(verdict, note=note), state))
                    found.add(prop.id)

    def _expand(self, fresh: list[int], decided: frozenset[str], report: LevelReport, outgoing: list[Batch]) -> None:
        checks, parts, fired, forced = self.checks, self.parts, self.fired, self.forced
        successors, terminal = self.compiled.successors, self.compiled.terminal
        found = {hit.prop_id for hit in report.hits} | decided
        deadlock = [p for p in checks.deadlock if p.id not in found]
        determinism = [p for p in checks.determinism if p.id not in found]
        after = checks.after
        lists = [batch.pairs for batch in outgoing]
        for s in fresh:
            if terminal(s):
                continue
            try:
                moves = successors(s)
            except ModellingError as exc:
                report.error = (s, exc.message)
                return
            if not moves:
                for prop in deadlock:
                    report.hits.append(Hit(prop.id, Finding("fails", shape="deadlock", note="No rule applies and the game is not over: the game is stuck."), s))
                    found.add(prop.id)
                deadlock = []
                continue
            report.transitions += len(moves)
            if determinism and len(moves) > 1 and forced[moves[0][0]]:
                first = moves[0]
                other = next((m for m in moves[1:] if m[1] != first[1]), None)
                if other is not None:
                    for prop in determinism:
                        finding = Finding("fails", shape="branch", branch_instances=(first[0], other[0]), note="Two forced rules apply at once and prescribe different outcomes.")
                        report.hits.append(Hit(prop.id, finding, s))
                        found.add(prop.id)
                    determinism = []
            for inst_id, t in moves:
                fired[inst_id] = 1
                batch = lists[owner_of(t, parts)]
                batch.append(t)
                batch.append(s)
                for prop, fn in after.get(inst_id, ()):
                    if prop.id in found:
                        continue
                    try:
                        holds = fn(t, s)
                    except ModellingError as exc:
                        report.hits.append(Hit(prop.id, property_error([], exc, inst_id), s, t))
                        found.add(prop.id)
                        continue
                    if not holds:
                        finding = Finding("fails", last_instance=inst_id, note=f"After `{prop.action}`, the property no longer holds.")
                        report.hits.append(Hit(prop.id, finding, s, t))
                        found.add(prop.id)
