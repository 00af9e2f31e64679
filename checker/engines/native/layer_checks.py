"""What the Python engine decides at the end of each layer of a run that stops once every
property is decided (`explicit.explore`), for the native loop to decide at the same places.

Such a run (the growth re-checks) decides coverage once every action has fired, and `terminates`
without `within` by a cycle among the states expanded so far (every move of an expanded state is
stored, so such a cycle is one of the whole graph), looked for at a layer's end once the states
have doubled since the last look, and where the run stops. Neither can be decided state by
state inside the loop, so while one of them is open the native loop returns at each layer's end
(`meta[16]`), before expanding the layer's first state, and this module decides them there from
the loop's arrays: the same findings at the same places, so the run stops on the same state with
the same findings as in the Python engine.
"""

from __future__ import annotations

import numpy as np

from checker.engines import explicit
from checker.engines.explicit import Finding
from checker.engines.native import DECIDED_IN_LOOP
from checker.engines.native.source import NativeSource
from checker.lang.compile import CompiledModel
from checker.lang.properties import BoundProperty


class LayerChecks:
    """The coverage and cycle decisions of one stopping run, made where the Python engine makes
    them; `found` holds what they decided."""

    def __init__(self, compiled: CompiledModel, source: NativeSource, props: list[BoundProperty], need_graph: bool) -> None:
        self.compiled = compiled
        self.source = source
        self.coverage = [p for p in props if p.kind == "coverage"]
        self.cycles = [p for p in props if p.kind == "terminates" and p.prop.within is None] if need_graph else []
        self.next_look = explicit.CYCLE_LOOK_STATES
        self.found: dict[str, Finding] = {}
        # once these are decided, the loop itself stops when the rest are (no other kind is decided before the end)
        self.rest_in_loop = all(p.kind in DECIDED_IN_LOOP or p in self.coverage or p in self.cycles for p in props)

    def open(self) -> bool:
        return any(p.id not in self.found for p in [*self.coverage, *self.cycles])

    def at_layer(self, n: int, expanded: int, fired: np.ndarray, graph: tuple[np.ndarray, np.ndarray, np.ndarray], layer_ends: np.ndarray, parent: np.ndarray) -> None:
        """At a layer's end (`n` states stored, the first `expanded` of them expanded): coverage
        if every action has fired, a cycle once the states have doubled since the last look."""
        if self.coverage and self._all_fired(fired):
            for prop in self.coverage:
                self.found.setdefault(prop.id, Finding("holds"))
        if n >= self.next_look and any(p.id not in self.found for p in self.cycles):
            self.next_look = 2 * n
            self.look_for_cycle(n, expanded, graph, layer_ends, parent)

    def look_for_cycle(self, n: int, expanded: int, graph: tuple[np.ndarray, np.ndarray, np.ndarray], layer_ends: np.ndarray, parent: np.ndarray) -> None:
        """`explicit.expanded_cycle` over the loop's arrays: the states not yet expanded passed
        as terminal, so no cycle goes through them."""
        from checker.engines.native import passes

        starts, edges, term = graph
        closed = int(starts[expanded])
        part_starts = np.concatenate([starts[: expanded + 1], np.full(n - expanded, closed, starts.dtype)])
        part_term = np.concatenate([term[:expanded], np.ones(n - expanded, np.uint8)])
        finding = passes.terminates(part_starts, edges[:closed], part_term, [int(x) for x in layer_ends], lambda node: _path(parent, node), None)
        if finding.status == "fails":
            for prop in self.cycles:
                self.found.setdefault(prop.id, finding)

    def _all_fired(self, fired: np.ndarray) -> bool:
        """`explicit.coverage` holds: every active action has fired (in this configuration's
        instances)."""
        fired_actions = {self.source.instances[k].action.name for k in np.flatnonzero(fired) if self.source.python_ids[k] >= 0}
        return all(action.name in fired_actions for action in self.compiled.interpreter.active_actions())


def _path(parent: np.ndarray, node: int) -> list[int]:
    """`Exploration.path_to` over the parent links stored so far."""
    path = [node]
    while parent[path[-1]] >= 0:
        path.append(int(parent[path[-1]]))
    return path[::-1]
