"""The reachable state graph of a small model as an inline SVG, with a trace's path on it.

A designer sees the whole game at once: every state the rules can reach under the trace's
configuration (a dot), every move between two of them (a line), and the trace's play as a red
path through them. It is drawn only when the configuration reaches at most `STATE_GRAPH_LIMIT`
states: past that the dots merge into a blur and the exploration would cost as much as a check,
so the page says why there is no picture instead.

The layout is layered and computed here, in plain Python, so the page stays self-contained and
byte-stable (no Graphviz, no random seed): a state's column is its breadth-first distance from
the initial states, and within a column states are ordered by the mean row of the states that
lead to them (the barycentre heuristic, which keeps most lines short and few crossing), ties by
the order of discovery.
"""

from __future__ import annotations

from dataclasses import dataclass

from checker.engines.statespace import StateSpace
from checker.evidence.results import Result
from checker.evidence.trace import Trace, _jsonable_state, _View, display_info
from checker.lang.model import Config, Model
from checker.report.html.page import esc

STATE_GRAPH_LIMIT = 200  # reachable states; also in docs/report.md
EXPLORE_SECONDS = 10.0  # per configuration (the pipeline explores)
EXPLORE_STATES = 4 * STATE_GRAPH_LIMIT  # enough to tell a small configuration from a large one
COLUMN, ROW, MARGIN = 90, 18, 24


@dataclass
class Drawn:
    """A configuration's explored graph, or why it is not drawn."""

    space: StateSpace | None
    why_not: str = ""


def config_key(model: Model, config: Config) -> tuple[str, str, str]:
    return model.id, repr(sorted(config.readings.items())), repr(sorted((k, repr(v)) for k, v in config.constants.items()))


@dataclass
class PlayLink:
    """Where a trace's position is played without a server: the page of its configuration's
    whole game, the address naming the trace's start, and the trace's moves as the page names them."""

    page: str
    query: dict[str, str]
    moves: list[str]


class StateGraphs:
    """The state graphs of one page, drawn from the explorations the pipeline made
    (`checker.pipeline.html`) for the configurations `to_explore` names; and, for the
    configurations small enough, their whole games to play without a server (`pages`, by file
    name) with each trace's place in one (`plays`, by the trace's identity)."""

    def __init__(self, drawn: dict[tuple[str, str, str], Drawn], plays: dict[int, PlayLink] | None = None, pages: dict[str, dict] | None = None) -> None:
        self._drawn = drawn
        self.plays = plays or {}
        self.pages = pages or {}

    def play_link(self, result: Result) -> PlayLink | None:
        return self.plays.get(id(result.trace))

    def figure(self, result: Result, element_id: str) -> str:
        """The graph with `result`'s trace on it, a sentence saying why there is none, or nothing
        when its configuration was not explored (a page written without graphs draws none)."""
        trace = result.trace
        assert trace is not None
        drawn = self._drawn.get(config_key(result.model, result.config))
        if drawn is None:
            return ""
        if drawn.space is None:
            return f'<p class="muted state-graph-none">No state graph: {esc(drawn.why_not)}</p>'
        return state_graph_svg(drawn.space, trace, element_id)


def to_explore(results: list[Result], drawn_for: list[Result]) -> tuple[dict[tuple[str, str, str], Drawn], list[tuple[Model, Config]]]:
    """What a page's graphs need, for the results it draws a graph for (`drawn_for`): the
    configurations a check already counted past the limit, settled without exploring, and the
    others, each once, to explore."""
    counted: dict[tuple[str, str, str], int] = {}
    for r in results:
        key = config_key(r.model, r.config)
        counted[key] = max(counted.get(key, 0), r.states)
    settled: dict[tuple[str, str, str], Drawn] = {}
    wanted: dict[tuple[str, str, str], tuple[Model, Config]] = {}
    for r in drawn_for:
        key = config_key(r.model, r.config)
        if counted.get(key, 0) > STATE_GRAPH_LIMIT:
            settled[key] = Drawn(None, too_many(f"at least {counted[key]:,}"))  # a check may stop early: a lower bound
        else:
            wanted.setdefault(key, (r.model, r.config))
    return settled, list(wanted.values())


def too_many(count: str) -> str:
    return f"this configuration reaches {count} states; the graph is drawn only up to {STATE_GRAPH_LIMIT}, past which it would show nothing readable."


def drawn_from(space: StateSpace) -> Drawn:
    """A configuration's exploration (at most `EXPLORE_STATES` states), as drawn or why not."""
    if space.error is not None:
        return Drawn(None, f"exploring it stops at a modelling error ({space.error[1]}).")
    if not space.complete or space.size > STATE_GRAPH_LIMIT:
        return Drawn(None, too_many(f"more than {STATE_GRAPH_LIMIT}" if not space.complete else f"{space.size:,}"))
    return Drawn(space)


def layers(space: StateSpace) -> list[list[int]]:
    """Columns of nodes by breadth-first distance from the initial states, each ordered by the
    barycentre of its predecessors in the column before (two sweeps), ties by node number."""
    depth = [0] * space.size
    for node in range(space.size):  # nodes are numbered in breadth-first order: a parent comes first
        parent = space.parent[node]
        depth[node] = depth[parent] + 1 if parent >= 0 else 0
    columns: list[list[int]] = [[] for _ in range(max(depth) + 1)]
    for node in range(space.size):
        columns[depth[node]].append(node)
    preds: dict[int, list[int]] = {}
    for node in range(space.size):
        for move in space.moves(node):
            target = space.targets[move]
            if depth[target] == depth[node] + 1:
                preds.setdefault(target, []).append(node)
    row = {node: i for column in columns for i, node in enumerate(column)}

    def centre(node: int) -> float:
        before = preds.get(node, [])
        return sum(row[p] for p in before) / len(before) if before else row[node]

    for _ in range(2):
        for number in range(1, len(columns)):
            columns[number].sort(key=lambda node: (centre(node), node))
            row.update({node: i for i, node in enumerate(columns[number])})
    return columns


def trace_nodes(space: StateSpace, trace: Trace) -> list[int] | None:
    """The node of each of the trace's states (initial first), or None when one is not in the graph."""
    nodes = [space.index.get(space.compiled.layout.pack(state)) for state in trace.states()]
    return None if any(n is None for n in nodes) else [n for n in nodes if n is not None]


def state_graph_svg(space: StateSpace, trace: Trace, element_id: str) -> str:
    path = trace_nodes(space, trace)
    if path is None:
        return '<p class="muted state-graph-none">No state graph: the trace\'s states are not all among the states explored for it.</p>'
    columns = layers(space)
    tallest = max(len(c) for c in columns)
    where: dict[int, tuple[float, float]] = {}
    for number, column in enumerate(columns):
        top = MARGIN + (tallest - len(column)) * ROW / 2
        for i, node in enumerate(column):
            where[node] = (MARGIN + number * COLUMN, top + i * ROW)
    width, height = 2 * MARGIN + (len(columns) - 1) * COLUMN, 2 * MARGIN + (tallest - 1) * ROW
    steps_at: dict[int, list[int]] = {}
    for step, node in enumerate(path):
        steps_at.setdefault(node, []).append(step)
    path_edges: dict[tuple[int, int], list[int]] = {}
    for step in range(1, len(path)):
        path_edges.setdefault((path[step - 1], path[step]), []).append(step)
    edges = sorted({(node, space.targets[m]) for node in range(space.size) for m in space.moves(node)})
    marker = f"sg-arrow-{element_id}"
    parts = [f'<svg class="state-graph" role="img" aria-label="{space.size} reachable states, the trace highlighted" '
             f'viewBox="0 0 {width:.0f} {height:.0f}" width="{min(width, 1100):.0f}">',
             f'<defs><marker id="{esc(marker)}" viewBox="0 0 10 10" refX="9" refY="5" markerUnits="userSpaceOnUse" markerWidth="11" markerHeight="11" orient="auto">'
             '<path d="M0,0 L10,5 L0,10 z" fill="#c62828"/></marker></defs>']
    parts += [_edge(where, a, b, "sg-edge") for a, b in edges if (a, b) not in path_edges]
    for (a, b), steps in sorted(path_edges.items()):
        parts.append(f'<g class="sg-edge on-path" data-steps="{" ".join(map(str, steps))}">'
                     + _edge(where, a, b, "", f' marker-end="url(#{esc(marker)})"') + "</g>")
    view = _View(display_info(space.compiled.model))
    initial = set(space.initial_nodes())
    for node in range(space.size):
        x, y = where[node]
        css = ["sg-node"] + (["initial"] if node in initial else []) + (["terminal"] if space.terminal[node] else [])
        at = steps_at.get(node)
        state = view.state(_jsonable_state(space.compiled.layout.unpack(space.states[node])))
        title = f"<title>{'step ' + ', '.join(map(str, at)) + ': ' if at else ''}{esc(state)}</title>"
        shape = (f'<rect x="{x - 4:.1f}" y="{y - 4:.1f}" width="8" height="8"/>' if space.terminal[node]
                 else f'<circle cx="{x:.1f}" cy="{y:.1f}" r="4"/>')
        if at:
            css.append("on-path")
            label = f'<text x="{x:.1f}" y="{y - 10:.1f}" text-anchor="middle">{esc(",".join(map(str, at)))}</text>'
            parts.append(f'<g class="{" ".join(css)}" data-at="{" ".join(map(str, at))}">{title}{shape}{label}</g>')
        else:
            parts.append(f'<g class="{" ".join(css)}">{title}{shape}</g>')
    parts.append("</svg>")
    moves = len(edges)
    caption = (f"Every state this configuration reaches ({space.size} states, {moves} moves between them), one column per "
               "move from the start: the trace's path in red, numbered by step, the state the player is at in a blue ring; "
               "a square is a finished game, a dot ringed in black a starting state. Hover a state for its values.")
    return f'<figure class="state-graph-box">\n{"".join(parts)}\n<figcaption class="muted">{caption}</figcaption>\n</figure>'


def _edge(where: dict[int, tuple[float, float]], a: int, b: int, css: str, extra: str = "") -> str:
    """A straight line to the next column; a bowed curve otherwise (back, same column, or a loop)."""
    (x1, y1), (x2, y2) = where[a], where[b]
    cls = f' class="{css}"' if css else ""
    if a == b:
        return f'<path{cls} d="M{x1:.1f},{y1 - 4:.1f} C{x1 - 14:.1f},{y1 - 22:.1f} {x1 + 14:.1f},{y1 - 22:.1f} {x1 + 3:.1f},{y1 - 4:.1f}" fill="none"{extra}/>'
    if x2 - x1 == COLUMN:
        return f'<line{cls} x1="{x1 + 4:.1f}" y1="{y1:.1f}" x2="{x2 - 5:.1f}" y2="{y2:.1f}"{extra}/>'
    bow = 0.25 * abs(x2 - x1) + 20
    mx, my = (x1 + x2) / 2, min(y1, y2) - bow
    return f'<path{cls} d="M{x1:.1f},{y1 - 4:.1f} Q{mx:.1f},{my:.1f} {x2:.1f},{y2 - 5:.1f}" fill="none"{extra}/>'
