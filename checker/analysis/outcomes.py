"""Outcome impact of one configuration, computed on its explicit graph.

- the reachable outcomes (the model's `outcome:` on terminal states; `stuck` for a state where
  no rule applies and the game is not over);
- whether the game can always still end (AG EF terminal: backward reachability from the
  terminal states);
- the longest game (a reachable cycle of non-terminal states makes it infinite);
- outcome probabilities under a stated policy, by a sparse linear solve of the absorbing Markov
  chain (not by simulation): at each state every mover (chance, the rules, each player) that has
  an enabled move is equally likely to go first; chance then picks by its weights, the rules and
  a player uniformly among their moves. This is the policy `rulecheck simulate` samples, so the
  two can be held to each other;
- for two sides, whether each side can force a win from the start with chance adversarial and
  with chance cooperative (attractor computation).

When the state space exceeds the budget, the probabilities are estimated by seeded simulation
with 95% Wilson intervals and labelled as estimates; nothing else is claimed beyond the bound.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from types import ModuleType

import numpy as np
from scipy.sparse import csr_matrix, identity
from scipy.sparse.csgraph import connected_components
from scipy.sparse.linalg import splu

from checker.engines.game_graph import STUCK, MoveArrays, outcome_labels, win_labels, won_nodes
from checker.engines.graph import is_cyclic, reaches, strongly_connected
from checker.engines.simulate import SimulationReport, simulate
from checker.engines.statespace import CHANCE, StateSpace

NEVER = "never ends"
UNFINISHED = "unfinished after"  # an estimate's games the simulation cut short: "unfinished after 1000 steps"
ERRORED = "stopped by a modelling error"  # an estimate's games that met one (counted, so the shares add up to 1)


@dataclass
class ForcedWin:
    """Whether `side` can force a win from the initial states, chance against it and with it."""

    side: str
    chance_adversarial: str  # "yes" | "no" | "from k of n starts"
    chance_cooperative: str


@dataclass
class Impact:
    complete: bool
    bound: str
    states: int
    outcomes: dict[str, int] = field(default_factory=dict)  # outcome -> terminal states showing it
    stuck_states: int = 0
    can_end: bool | None = None
    trap: list[int] | None = None  # path to a shallowest reachable state from which the game cannot end
    longest: int | None = None  # steps of the longest play; None with `endless`
    endless: bool | None = None  # some play never ends
    probabilities: dict[str, float] | None = None
    intervals: dict[str, tuple[float, float]] | None = None  # estimates only
    method: str = ""
    forced: list[ForcedWin] = field(default_factory=list)
    forced_note: str = ""
    never_help: list[str] = field(default_factory=list)  # the players' choices that never help them (`dominated`), in words
    never_help_note: str = ""  # why they were not looked for
    # the outcome probabilities under the other policies (`POLICIES`), exact like `probabilities`:
    # players who take a winning move when they have one, or who avoid moves that leave them no win
    by_policy: dict[str, dict[str, float]] = field(default_factory=dict)

    def to_json(self) -> dict:
        return {
            "complete": self.complete, "bound": self.bound, "states": self.states,
            "outcomes": dict(sorted(self.outcomes.items())), "stuck_states": self.stuck_states,
            "can_end": self.can_end, "trap_depth": len(self.trap) - 1 if self.trap else None,
            "longest": "infinite" if self.endless else self.longest,
            "probabilities": {k: round(v, 9) for k, v in sorted(self.probabilities.items())} if self.probabilities is not None else None,
            "intervals": {k: [round(lo, 6), round(hi, 6)] for k, (lo, hi) in sorted(self.intervals.items())} if self.intervals else None,
            "method": self.method,
            "forced_wins": [{"side": f.side, "chance_adversarial": f.chance_adversarial, "chance_cooperative": f.chance_cooperative} for f in self.forced],
            "forced_note": self.forced_note,
            "by_policy": {policy: {k: round(v, 9) for k, v in sorted(odds.items())} for policy, odds in self.by_policy.items()},
        }


def analyse(space: StateSpace, simulate_games: int = 2000, seed: int = 0) -> Impact:
    """The outcome impact of one configuration (exact when the exploration was complete)."""
    labels = _Coded.of(outcome_labels(space))
    impact = Impact(space.complete, space.bound_text(), space.size)
    for name, count in zip(labels.names, np.bincount(labels.codes[labels.codes >= 0], minlength=len(labels.names)).tolist()):
        if name == STUCK:
            impact.stuck_states = count
        else:
            impact.outcomes[name] = count  # in the order first met, node by node
    if not space.complete:
        estimate(space, impact, simulate_games, seed)
        return impact
    terminal_nodes = np.flatnonzero(np.frombuffer(bytes(space.terminal), dtype=np.uint8))
    can_reach = _reaches(space, terminal_nodes)
    trapped = np.flatnonzero(~can_reach)
    impact.can_end = trapped.size == 0
    if trapped.size:
        impact.trap = space.path_to(int(trapped.min()))  # nodes are numbered breadth first
    impact.longest, impact.endless = longest_play(space)
    impact.probabilities = probabilities(space, labels)
    impact.method = "exact: absorbing Markov chain, sparse LU solve (every mover equally likely, chance by weight, players uniform)"
    impact.forced, impact.forced_note = forced_wins(space, labels)
    for policy, prefer in policy_preferences(space, labels).items():
        impact.by_policy[policy] = probabilities(space, labels, prefer)
    return impact


# The sensible players the odds are also computed for, beside the uniform one: at each of their
# turns they choose uniformly among the moves they prefer, or among all when they prefer none.
POLICIES = {
    "greedy": "takes a move that wins the game at once when there is one",
    "cautious": "avoids a move after which no play leads to their win, while another move keeps one",
}


def policy_preferences(space: StateSpace, labels: _Coded) -> dict[str, np.ndarray]:
    """Per policy, a boolean per stored move: the moves its players prefer (`POLICIES`), from
    the recorded graph alone. Empty where the outcome names no winning player."""
    model = space.compiled.model
    players = list(model.domains["player"].members or ()) if "player" in model.domains else []
    wins = win_labels(players, set(labels.names))
    if not any(wins.values()):
        return {}
    edges = space.starts[space.expanded]
    movers = np.frombuffer(space.movers, dtype=np.int32)[:edges].astype(np.int64)
    target = np.frombuffer(space.targets, dtype=np.int32)[:edges].astype(np.int64)
    goal = np.array([labels.per_node([name in wins[p] for name in labels.names], False).astype(bool) for p in players])
    can_win = np.array([reaches_goal(space, row) for row in goal])
    player_move = movers >= 0
    mover = np.where(player_move, movers, 0)
    return {"greedy": player_move & goal[mover, target], "cautious": player_move & can_win[mover, target]}


def _reaches(space: StateSpace, goals: np.ndarray) -> np.ndarray:
    """Boolean per node: some path leads from it to a goal node."""
    return np.frombuffer(bytes(reaches(space.graph(), [int(g) for g in goals])), dtype=np.uint8).astype(bool)


def reaches_goal(space: StateSpace, goal: np.ndarray) -> np.ndarray:
    """Boolean per node: some play leads from it to a node where `goal` (a boolean per node) holds."""
    return _reaches(space, np.flatnonzero(goal))


def longest_play(space: StateSpace) -> tuple[int | None, bool]:
    """(steps of the longest play from an initial state, whether some play never ends)."""
    from checker.engines.explicit import compiled_passes

    passes = compiled_passes(space.size) if space.expanded == space.size else None
    if passes is not None:
        starts, edges = passes.csr_arrays(space.starts, space.targets)
        return passes.longest_play(starts, edges, np.frombuffer(space.terminal, np.uint8), space.initial_nodes())
    graph = space.graph()
    live = bytearray(0 if t else 1 for t in space.terminal)
    longest = [0] * space.size
    for component in strongly_connected(graph, live.__getitem__):
        if is_cyclic(graph, component):
            return None, True
        node = component[0]
        longest[node] = max((longest[t] + 1 for t in graph.successors(node)), default=0)
    starts = space.initial_nodes()
    return (max(longest[n] for n in starts) if starts else 0), False


def edge_probabilities(space: StateSpace, prefer: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Every stored move's probability under the stated policy (each mover present at the node
    equally likely to go first; chance by weight, the rules and players uniformly), and the
    order the solve adds them in: node by node, movers in order of first appearance, then edge
    order. Vectorised (a Python loop per node cost seconds per configuration); the order keeps
    the floating-point sums, hence the published odds, as the node-by-node loop had them.
    `prefer` (a boolean per move, `policy_preferences`): a player with a preferred move at a node
    chooses uniformly among those only."""
    edges = space.starts[space.expanded]
    counts = np.diff(np.frombuffer(space.starts, dtype=np.int32)[: space.expanded + 1])
    source = np.repeat(np.arange(space.expanded, dtype=np.int64), counts)
    movers = np.frombuffer(space.movers, dtype=np.int32)[:edges].astype(np.int64)
    weights = np.frombuffer(space.weights, dtype=np.int64)[:edges]
    # one group per (node, mover); `first` is the group's first edge, which orders the groups
    _, first, group = np.unique(source * (1 << 32) + (movers - CHANCE), return_index=True, return_inverse=True)
    group = group.reshape(-1)
    movers_here = np.bincount(source[first], minlength=space.expanded)
    share = 1.0 / movers_here[source]
    chance = movers == CHANCE
    kept = np.ones(edges, dtype=bool)
    if prefer is not None:  # a player with a preferred move here keeps only those
        kept = ~(np.bincount(group, weights=prefer.astype(np.float64))[group] > 0) | prefer | chance
    in_group = np.bincount(group, weights=kept.astype(np.float64))[group]
    total = np.bincount(group, weights=np.where(chance, weights, 0).astype(np.float64))[group]  # exact: integer sums
    p = np.where(chance, share * weights / np.where(chance, total, 1.0), np.where(kept, share / np.maximum(in_group, 1.0), 0.0))
    return p, np.lexsort((np.arange(edges), first[group]))


@dataclass(frozen=True)
class _Coded:
    """Each node's label as a number, its place in `names` (the labels in the order first met,
    node by node; -1: no label): what the analyses ask of every node is then a lookup (each
    asked it of every label in Python, seconds per configuration)."""

    codes: np.ndarray
    names: list[str]

    @classmethod
    def of(cls, labels: list[str | None]) -> _Coded:
        numbers: dict[str, int] = {}
        codes = np.fromiter((-1 if label is None else numbers.setdefault(label, len(numbers)) for label in labels), dtype=np.int64, count=len(labels))
        return cls(codes, list(numbers))

    def per_node(self, per_name: list, unlabelled: object) -> np.ndarray:
        """`per_name[i]` at each node labelled `names[i]`, `unlabelled` at the others."""
        return np.array([*per_name, unlabelled])[self.codes]  # -1 picks the last

    def __getitem__(self, node: int) -> str | None:
        code = int(self.codes[node])
        return self.names[code] if code >= 0 else None


def probabilities(space: StateSpace, labels: _Coded, prefer: np.ndarray | None = None) -> dict[str, float]:
    """Probability of each outcome (and of never ending) from a uniformly chosen initial state
    (with `prefer`, under that policy: `edge_probabilities`)."""
    ends = labels.codes >= 0
    p, order = edge_probabilities(space, prefer)
    counts = np.diff(np.frombuffer(space.starts, dtype=np.int32)[: space.expanded + 1])
    if prefer is None:
        reaches_end = _reaches(space, np.flatnonzero(ends))
    else:  # along the moves the policy takes only: a policy may keep a state from ever ending
        taken = p > 0
        edge_source = np.repeat(np.arange(space.expanded, dtype=np.int64), counts)
        edge_target = np.frombuffer(space.targets, dtype=np.int32)[: p.size].astype(np.int64)
        reaches_end = _reaches_along(space.size, edge_source[taken], edge_target[taken], np.flatnonzero(ends))
    transient = np.flatnonzero(reaches_end & ~ends)
    position = np.full(space.size, -1, dtype=np.int64)
    position[transient] = np.arange(transient.size)
    names = sorted(labels.names)
    column = {name: i for i, name in enumerate(names)}
    label_column = labels.per_node([column[name] for name in labels.names], -1).astype(np.int64)
    source = np.repeat(np.arange(space.expanded, dtype=np.int64), counts)[order]
    target = np.frombuffer(space.targets, dtype=np.int32)[: order.size].astype(np.int64)[order]
    p = p[order]
    from_transient = position[source] >= 0
    to_end = from_transient & (label_column[target] >= 0)
    inner = from_transient & ~to_end & (position[target] >= 0)
    absorb = np.zeros((transient.size, len(names)))
    np.add.at(absorb, (position[source[to_end]], label_column[target[to_end]]), p[to_end])
    rows, cols, vals = position[source[inner]], position[target[inner]], p[inner]
    out = {name: 0.0 for name in names}
    starts = space.initial_nodes()
    if transient.size:
        q = csr_matrix((vals, (rows, cols)), shape=(transient.size, transient.size))
        solved = absorbed(q, absorb).reshape(transient.size, len(names))
    for node in starts:
        label = labels[node]
        if label is not None:
            out[label] += 1.0 / len(starts)
        elif position[node] >= 0:
            for name, i in column.items():
                out[name] += float(solved[position[node], i]) / len(starts)
    never = 1.0 - sum(out.values())
    if never > 1e-12:
        out[NEVER] = never
    return {name: p for name, p in out.items() if p > 1e-12}


def _reaches_along(size: int, source: np.ndarray, target: np.ndarray, goals: np.ndarray) -> np.ndarray:
    """Boolean per node: some path of the given moves leads from it to a goal node."""
    into = csr_matrix((np.ones(source.size, dtype=np.int8), (target, source)), shape=(size, size))
    seen = np.zeros(size, dtype=bool)
    seen[goals] = True
    frontier = goals
    while frontier.size:
        before = into[frontier].indices
        frontier = np.unique(before[~seen[before]])
        seen[frontier] = True
    return seen


def absorbed(q: csr_matrix, absorb: np.ndarray) -> np.ndarray:
    """X with (I - Q) X = absorb: each transient state's chance of ending in each outcome.

    Solved a layer at a time instead of factoring I - Q whole (a sparse LU of a game's few
    hundred thousand states took seconds, and most of a game's states lie on no cycle): the
    strongly connected components of Q's moves, and each component's layer, the longest way to
    a state whose moves all leave Q. A layer's states depend only on lower layers, so once
    those are known its values are the absorbing moves plus the moves to solved states, divided
    by one minus its self-loops, or, for a layer holding a cycle, solved by one LU of its own
    (its components' blocks). The same values with or without the compiled back-end, so the
    odds do not depend on it: runs of layers without a cycle are solved compiled where the
    graph passes are (`native.passes.acyclic_layers`, summing as SciPy's product does; a
    layer at a time in numpy cost about 5 CPU s of a cold check), the cycles by SciPy either way;
    the layering too (`native.passes.component_layers`: integers, the same layers).
    """
    count, component = connected_components(q, directed=True, connection="strong")
    coo = q.tocoo()
    across = component[coo.row] != component[coo.col]
    # the components' graph as predecessor lists: a component is ready once its successors are
    pred = csr_matrix((np.ones(int(across.sum()), np.int32), (component[coo.col[across]], component[coo.row[across]])), shape=(count, count))
    pred.sum_duplicates()
    left = np.bincount(pred.indices, minlength=count).astype(np.int64)  # each component's successors not yet in a layer
    from checker.engines.explicit import compiled_passes

    passes = compiled_passes(q.shape[0])
    layer, depth = component_layers(pred, left, passes)
    node_layer = layer[component]
    order = np.argsort(node_layer, kind="stable")
    bounds = np.searchsorted(node_layer[order], np.arange(depth + 1))
    cyclic = np.zeros(depth, bool)
    cyclic[node_layer[np.bincount(component, minlength=count)[component] > 1]] = True
    self_loops = q.diagonal()
    absorb = np.ascontiguousarray(absorb, dtype=np.float64)
    x = np.zeros_like(absorb)
    d = 0
    while d < depth:
        if passes is not None and not cyclic[d]:  # a run of layers without a cycle, compiled: the same values
            last = d + 1
            while last < depth and not cyclic[last]:
                last += 1
            passes.acyclic_layers(q, absorb, x, self_loops, order, bounds, d, last)
            d = last
            continue
        nodes = order[bounds[d] : bounds[d + 1]]
        rhs = absorb[nodes] + q[nodes] @ x  # moves inside the layer meet zeros: not solved yet
        if cyclic[d]:
            x[nodes] = splu((identity(nodes.size, format="csc") - q[nodes][:, nodes]).tocsc()).solve(rhs)
        else:
            x[nodes] = rhs / (1.0 - self_loops[nodes])[:, None]
        d += 1
    return x


def component_layers(pred: csr_matrix, left: np.ndarray, passes: ModuleType | None) -> tuple[np.ndarray, int]:
    """Each component's layer in `absorbed` (`pred`: the components' predecessor lists; `left`:
    each one's successors, consumed), sinks first, and the number of layers: compiled where the
    graph passes are, else a layer at a time in numpy."""
    count = left.shape[0]
    layer = np.zeros(count, np.int64)
    if passes is not None:
        depth, placed = passes.component_layers(pred, left, layer)
    else:
        ready, depth, placed = np.flatnonzero(left == 0), 0, 0
        while ready.size:
            layer[ready] = depth
            placed += ready.size
            candidates, times = np.unique(pred[ready].indices, return_counts=True)
            left[candidates] -= times
            ready, depth = candidates[left[candidates] == 0], depth + 1
    assert placed == count, "the components' graph has a cycle"
    return layer, depth


def forced_wins(space: StateSpace, labels: _Coded) -> tuple[list[ForcedWin], str]:
    model = space.compiled.model
    players = list(model.domains["player"].members or ()) if "player" in model.domains else []
    if len(players) != 2:
        return [], f"forced wins are computed for two sides; this model has {len(players)} player(s)"
    wins = win_labels(players, set(labels.names))
    if not any(wins.values()):
        return [], "forced wins need an outcome naming the winning side (a player's name, or `<player>_win`)"
    starts = np.array(space.initial_nodes(), dtype=np.int64)
    moves = MoveArrays(space)
    out = []
    for number, side in enumerate(players):
        verdicts = []
        goal = labels.per_node([name in wins[side] for name in labels.names], False).astype(bool)
        for cooperative in (False, True):
            won = won_nodes(moves, goal, number, cooperative)
            hits = int(np.count_nonzero(won[starts]))
            verdicts.append("yes" if hits == len(starts) else ("no" if hits == 0 else f"from {hits} of {len(starts)} starts"))
        out.append(ForcedWin(side, *verdicts))
    return out, ""


def estimate(space: StateSpace, impact: Impact, games: int, seed: int) -> None:
    """Outcome frequencies from seeded random play (the same policy), with 95% Wilson intervals."""
    report = simulate(space.compiled, games, seed, max_steps=max(1000, 4 * space.depth))
    impact.probabilities, impact.intervals = shares(report)
    impact.method = f"estimate: {games} seeded random games (seed {seed}), 95% Wilson intervals; the state space exceeds the budget ({space.bound_text()})"


def shares(report: SimulationReport) -> tuple[dict[str, float], dict[str, tuple[float, float]]]:
    """Each outcome's share of a simulation's games and its 95% Wilson interval; games stopped
    by a modelling error are a share of their own, so that the shares add up to 1."""
    counts: dict[str, int] = {}
    for outcome, count in report.outcomes.items():
        label = STUCK if outcome.startswith("stuck") else outcome
        counts[label] = counts.get(label, 0) + count
    errored = sum(report.errors.values())
    if errored:
        counts[ERRORED] = errored
    return {k: n / report.games for k, n in counts.items()}, {k: wilson(n, report.games) for k, n in counts.items()}


def wilson(hits: int, trials: int, z: float = 1.96) -> tuple[float, float]:
    if trials == 0:
        return 0.0, 1.0
    p = hits / trials
    centre = (p + z * z / (2 * trials)) / (1 + z * z / trials)
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / (1 + z * z / trials)
    return max(0.0, centre - half), min(1.0, centre + half)

