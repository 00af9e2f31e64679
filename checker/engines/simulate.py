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

import numpy as np

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
    numba is installed (`simulate_natively`: the same games, draw for draw, with no successor
    code generated for the configuration), else, or where the interpreter leaves a model to it,
    in the Python engine."""
    from checker.engines.native import unavailable_reason

    if unavailable_reason() is None:
        from checker.engines.native import engine

        try:
            return simulate_natively(compiled, games, seed, max_steps)
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


# -- the same games in the bytecode interpreter ------------------------------------------------
# `loops.py`'s `play_games` plays the games above in the interpreter: the same successors in the
# same order, and the draws of Python's own generator, its Mersenne Twister and the ways
# `random.choice` and `random.choices` consume it, started from `random.Random(seed).getstate()`.
# So every game takes the moves the Python loop takes and the report is the same
# (the conformance suite's `simulation` pair, `tests/conformance`, holds the two to it). A modelling error in a state's
# successors is worded by the Python engine (the game then counts as an error, as there); any
# other error (a terminal condition, outcome, mover or weight that cannot be evaluated, weights
# summing to nothing) is left to the Python loop, which raises it.

PLAYED, SUCCESSOR_ERROR = 0, 1  # play_games's status (anything else: left to the Python loop)
FINISHED, UNFINISHED, STUCK, ERROR = 0, 1, 2, 3  # a game's result


def simulate_natively(compiled: CompiledModel, games: int, seed: int, max_steps: int) -> SimulationReport:
    """`simulate`, in the interpreter. Raises `engine.NativeDeferred` where the Python loop is to
    run (an error it raises, a successor error it does not meet) and `engine.NativeUnsupported`
    for a model the interpreter cannot assemble."""
    from checker.engines.native import engine

    if not compiled.initial:
        raise engine.NativeDeferred("no initial state")  # random.choice raises: the Python loop says so
    source, module, ctx = engine.build_vm(compiled, [], checks=False)
    initial = engine.initial_rows(compiled, source.words)
    names = sorted({inst.action.name for inst in source.instances})
    name_of = np.array([names.index(inst.action.name) for inst in source.instances] or [0], np.int64)
    ranks, rules_key = _mover_ranks(compiled)
    mt = np.array(random.Random(seed).getstate()[1], np.int64)
    meta = np.zeros(2, np.int64)
    results = np.zeros(games, np.int64)
    codes = np.zeros(games, np.int64)
    lengths = np.zeros(games, np.int64)
    fired = np.zeros(len(names) or 1, np.int64)
    stamp = np.zeros(len(names) or 1, np.int64)
    at = np.zeros(source.words, np.int64)
    errors: list[str] = []
    try:
        with engine.compiling(module.__name__, "simulate"):
            while True:
                status = module.play_games(meta, mt, initial, games, max_steps, ranks, rules_key, name_of, results, codes, lengths, fired, stamp, at, ctx)
                if status == PLAYED:
                    break
                if status != SUCCESSOR_ERROR:
                    raise engine.NativeDeferred("an error the Python loop raises")
                errors.append(_successor_error(compiled, engine.from_words(at)))
    except engine.RUNTIME_ERRORS as exc:
        raise engine.NativeDeferred(str(exc)) from exc
    return _report(compiled, games, max_steps, results, codes, lengths, errors, int(meta[1]), {name: int(n) for name, n in zip(names, fired) if n})


def _mover_ranks(compiled: CompiledModel) -> tuple[np.ndarray, int]:
    """Each player's place among the movers `choose_move` sorts ("chance", then
    "player:<name>" by name, then "rules"): 1 + ranks[player number] its key, `rules_key` the
    rules', 0 chance's."""
    scope = compiled.model.scope
    members = scope.domains["player"].members if "player" in scope.domains else []
    order = sorted(f"player:{m}" for m in members)
    return np.array([order.index(f"player:{m}") for m in members] or [0], np.int64), len(members) + 1


def _successor_error(compiled: CompiledModel, state: int) -> str:
    """The Python engine's words for the modelling error the interpreter met in a state's
    successors (it must meet it too: else the Python loop runs)."""
    from checker.engines.native import engine

    try:
        compiled.successors(state)
    except ModellingError as exc:
        return exc.message
    raise engine.NativeDeferred("the interpreter met an error the Python engine does not")


def _report(compiled: CompiledModel, games: int, max_steps: int, results: np.ndarray, codes: np.ndarray, lengths: np.ndarray, errors: list[str], moves: int,
            fired: dict[str, int]) -> SimulationReport:
    """The report the Python loop builds, game by game in order (so its counters list their
    keys in the same order)."""
    report = SimulationReport(games=games, finished=0, moves=moves)
    outcome = compiled.decoder(compiled.model.outcome) if compiled.model.outcome is not None else None
    worded = iter(errors)
    for result, code, length in zip(results.tolist(), codes.tolist(), lengths.tolist()):
        if result == FINISHED:
            report.finished += 1
            report.lengths.append(length)
            report.outcomes[str(outcome(code)) if outcome is not None else "finished"] += 1
        elif result == UNFINISHED:
            report.outcomes[f"unfinished after {max_steps} steps"] += 1
        elif result == STUCK:
            report.stuck += 1
            report.outcomes["stuck (no rule applies)"] += 1
        else:
            report.errors[next(worded)] += 1
    report.fired.update(fired)
    return report
