"""Seeded random play in the bytecode interpreter: `simulate.simulate`'s games, draw for draw.

The Readings re-check estimates the odds of larger games by seeded simulation (thousands of
games a configuration), and each needed the configuration's generated Python successor code,
then a Python loop grouping every state's moves by mover. `loops.py`'s `play_games`
plays the same games in the interpreter: the same successors in the same order, and the draws
of Python's own generator, its Mersenne Twister and the ways `random.choice` and
`random.choices` consume it, started from `random.Random(seed).getstate()`. So every game takes
the moves the Python loop takes and the report is the same; `tests/test_simulate_native.py`
holds the two to it. A modelling error in a state's successors is worded by the Python engine
(the game then counts as an error, as there); any other error (a terminal condition, outcome,
mover or weight that cannot be evaluated, weights summing to nothing) is left to the Python
loop, which raises it.
"""

from __future__ import annotations

import random

import numpy as np

from checker.engines.native import engine
from checker.engines.simulate import SimulationReport
from checker.errors import ModellingError
from checker.lang.compile import CompiledModel

PLAYED, SUCCESSOR_ERROR = 0, 1  # play_games's status (anything else: left to the Python loop)
FINISHED, UNFINISHED, STUCK, ERROR = 0, 1, 2, 3  # a game's result


def simulate(compiled: CompiledModel, games: int, seed: int, max_steps: int) -> SimulationReport:
    """`simulate.simulate`, natively. Raises `engine.NativeDeferred` where the Python loop is to
    run (an error it raises, a successor error it does not meet) and `engine.NativeUnsupported`
    for a model the interpreter cannot assemble."""
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
    """Each player's place among the movers `simulate.choose_move` sorts ("chance", then
    "player:<name>" by name, then "rules"): 1 + ranks[player number] its key, `rules_key` the
    rules', 0 chance's."""
    scope = compiled.model.scope
    members = scope.domains["player"].members if "player" in scope.domains else []
    order = sorted(f"player:{m}" for m in members)
    return np.array([order.index(f"player:{m}") for m in members] or [0], np.int64), len(members) + 1


def _successor_error(compiled: CompiledModel, state: int) -> str:
    """The Python engine's words for the modelling error the interpreter met in a state's
    successors (it must meet it too: else the Python loop runs)."""
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
