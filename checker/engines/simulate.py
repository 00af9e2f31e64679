"""Seeded random play: statistics for models too large to explore.

Each game starts from a random initial state and repeatedly takes one enabled move: a chance
move with probability proportional to its weight (among the chance moves), a player's move
uniformly among that player's options. When chance moves and players' moves are enabled at once,
each mover is equally likely to go first. Forced rules always go first, as in every engine.
Nothing here proves anything: it estimates game length, outcomes and how often each rule fires.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from weakref import WeakKeyDictionary

from checker.errors import ModellingError
from checker.lang.compile import CompiledModel


@dataclass
class SimulationReport:
    games: int
    finished: int
    lengths: list[int] = field(default_factory=list)
    outcomes: Counter = field(default_factory=Counter)
    fired: Counter = field(default_factory=Counter)  # action name -> games in which it fired
    stuck: int = 0
    errors: Counter = field(default_factory=Counter)
    moves: int = 0  # moves played in all the games: a simulation's cost, counted, not timed

    @property
    def mean_length(self) -> float:
        return sum(self.lengths) / len(self.lengths) if self.lengths else 0.0


def simulate(compiled: CompiledModel, games: int, seed: int, max_steps: int) -> SimulationReport:
    """`games` seeded games of at most `max_steps` steps each. In the bytecode interpreter when
    numba is installed (`simulate_native`: the same games, draw for draw, with no successor
    code generated for the configuration), else, or where the interpreter leaves a model to it,
    in the Python engine."""
    from checker.engines.native import unavailable_reason

    if unavailable_reason() is None:
        from checker.engines import simulate_native
        from checker.engines.native import engine

        try:
            return simulate_native.simulate(compiled, games, seed, max_steps)
        except (engine.NativeDeferred, engine.NativeUnsupported):
            pass  # an error the Python loop raises or words, or a model the interpreter cannot run
    return simulate_in_python(compiled, games, seed, max_steps)


def simulate_in_python(compiled: CompiledModel, games: int, seed: int, max_steps: int) -> SimulationReport:
    """Random play in the Python engine: the reference the interpreter's games are held to."""
    rng = random.Random(seed)
    report = SimulationReport(games=games, finished=0)
    weights = weight_functions(compiled)
    outcome = compiled.evaluator(compiled.model.outcome) if compiled.model.outcome is not None else None
    terminal, successors = compiled.terminal, compiled.successors  # bound once: called at every step
    names = [inst.action.name for inst in compiled.instances]
    for _ in range(games):
        state = rng.choice(compiled.initial)
        fired: set[str] = set()
        for step in range(max_steps + 1):
            if terminal(state):
                report.finished += 1
                report.lengths.append(step)
                report.outcomes[str(outcome(state)) if outcome else "finished"] += 1
                break
            if step == max_steps:
                report.outcomes[f"unfinished after {max_steps} steps"] += 1
                break
            try:
                moves = successors(state)
            except ModellingError as exc:
                report.errors[exc.message] += 1
                break
            if not moves:
                report.stuck += 1
                report.outcomes["stuck (no rule applies)"] += 1
                break
            inst_id, state = choose_move(rng, compiled, moves, state, weights)
            report.moves += 1
            fired.add(names[inst_id])
        report.fired.update(fired)
    return report


def weight_functions(compiled: CompiledModel) -> dict[int, Callable[..., Any]]:
    """Each weighted chance instance's weight, as a function of the packed state."""
    out = {}
    for inst in compiled.instances:
        if inst.action.weight is not None:
            out[inst.id] = compiled.function(inst.action.weight, compiled.encoded_params(inst))
    return out


_ACTORS: WeakKeyDictionary[CompiledModel, dict[int, Callable[[int], Any]]] = WeakKeyDictionary()


def actor_of(compiled: CompiledModel, inst_id: int) -> Callable[[int], Any]:
    """The player who makes instance `inst_id`'s move, as a function of the packed state: the
    readable value the interpreter's `actor` gives (a member name), from generated code built
    once per configuration and instance. Unpacking the whole state into the interpreter's
    dictionaries for every player's move was a sixth of the Readings re-check's seeded
    simulations (benchmarks/README.md)."""
    per_instance = _ACTORS.setdefault(compiled, {})
    actor = per_instance.get(inst_id)
    if actor is None:
        inst = compiled.instances[inst_id]
        action = inst.action
        if action.actor is None:
            by = action.by
            actor = per_instance[inst_id] = lambda _state: by
        else:
            raw, decode = compiled.function(action.actor, compiled.encoded_params(inst)), compiled.decoder(action.actor)
            actor = per_instance[inst_id] = lambda state: decode(raw(state))
    return actor


def choose_move(rng: random.Random, compiled: CompiledModel, moves: list[tuple[int, int]], state: int, weights: dict) -> tuple[int, int]:
    """One move of `moves` as random play takes it (also the growth re-check's witness search)."""
    by_mover: dict[str, list[tuple[int, int]]] = {}
    for move in moves:
        by = compiled.instances[move[0]].action.by
        mover = by if by in ("chance", "rules") else f"player:{actor_of(compiled, move[0])(state)}"
        by_mover.setdefault(mover, []).append(move)
    mover = rng.choice(sorted(by_mover))
    options = by_mover[mover]
    if mover == "chance":
        chosen_weights = [weights[i](state) if i in weights else 1 for i, _ in options]
        return rng.choices(options, weights=chosen_weights, k=1)[0]
    return rng.choice(options)
