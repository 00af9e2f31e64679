"""The Python engine's generated code, model by model: microseconds of CPU per state.

    python3 benchmarks/successors.py [models/GAME ...] [--states N] [--games N]
    python3 benchmarks/successors.py --bytecode [models/GAME ...] [--states N] [--runs N]

For each concrete bundled model (default configuration), explores up to N states breadth first
(default 100,000), then times the generated successor function over every state found and a
seeded random play of `--games` games (default 300; moves per CPU second). The successor
function is most of every Python exploration of the check, the growth re-check and the Readings
analysis (benchmarks/README.md, "Where a cold check's time goes"); random play is the Readings
re-check's seeded estimates. Figures are CPU time, the same states and games each run, so two
commits compare on one machine.

With `--bytecode`, the native back-end's bytecode interpreter instead (numba needed): per model,
the successor program over every state found (from a compiled loop, so no call from Python is
timed), the exploration without properties and with the model's whole suite; the least of
`--runs` runs (default 5) of each, in nanoseconds a state.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from functools import partial

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
sys.path.insert(0, ROOT)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="*", default=["models/showngo", "models/sms", "models/titlebelt", "models/supershow", "models/ultimate"])
    parser.add_argument("--states", type=int, default=100_000)
    parser.add_argument("--games", type=int, default=300)
    parser.add_argument("--bytecode", action="store_true", help="the bytecode interpreter's successor program and loop instead")
    parser.add_argument("--runs", type=int, default=5, help="--bytecode: runs of each measure; the least is shown")
    args = parser.parse_args()
    if args.bytecode:
        bytecode(args.paths, args.states, args.runs)
        return
    from checker.engines.explicit import Budget, explore
    from checker.engines.simulate import simulate
    from checker.lang.compile import CompiledModel
    from checker.pipeline.runner import load_games

    print(f"{'model':<45} {'states':>8} {'us/state':>9} {'moves/s':>9}")
    for game in load_games(args.paths):
        for model in game.models:
            if model.abstract:
                continue  # a base model the variants extend
            compiled = CompiledModel(model, model.default_config())
            exp, _ = explore(compiled, [], Budget(max_states=args.states), need_graph=False)
            successors = compiled.successors
            started = time.process_time()
            for state in exp.states:
                successors(state)
            per_state = (time.process_time() - started) / len(exp.states)
            started = time.process_time()
            report = simulate(compiled, args.games, 1, 2_000)
            played = time.process_time() - started
            print(f"{model.path:<45} {len(exp.states):>8,} {1e6 * per_state:>9.2f} {report.moves / max(played, 1e-9):>9,.0f}")


def bytecode(paths: list[str], max_states: int, runs: int) -> None:
    """The interpreter's successor program and whole loop per bundled model (default
    configuration): nanoseconds of CPU a state, the least of `runs`."""
    import numpy as np
    from numba import njit

    from checker.engines.explicit import Budget
    from checker.engines.native import engine
    from checker.lang.compile import CompiledModel
    from checker.lang.properties import bind, load_suite, properties_for, suite_path
    from checker.pipeline.runner import load_games

    print(f"{'model':<45} {'states':>8} {'moves ns':>9} {'loop ns':>8} {'suite ns':>9}")
    for game in load_games(paths):
        for model in game.models:
            if model.abstract:
                continue
            compiled = CompiledModel(model, model.default_config())
            suite = load_suite(suite_path(model.path)) if os.path.isfile(suite_path(model.path)) else []
            props = [bind(p, model) for p in properties_for(model, suite)]
            budget = Budget(max_states=max_states)
            exp, _ = engine.explore(compiled, [], budget, need_graph=True)
            rows = exp.rows
            _, module, ctx = engine.build_vm(compiled, [], checks=False)
            every = _every_state(njit, module.moves)
            out_i = np.zeros(4096, np.int64)
            out = np.zeros((4096, rows.shape[1]), np.int64)
            every(rows[:1], out_i, out, ctx)
            moves = _least(partial(every, rows, out_i, out, ctx), runs, len(rows))
            loop = _least(partial(engine.explore, compiled, [], budget, need_graph=True), runs, len(rows))
            with_suite = _least(partial(engine.explore, compiled, props, budget, need_graph=True), runs, len(rows))
            print(f"{model.path:<45} {len(rows):>8,} {moves:>9.0f} {loop:>8.0f} {with_suite:>9.0f}")


def _least(measure, runs: int, states: int) -> float:
    """The least CPU time of `runs` calls of `measure`, in nanoseconds a state."""
    times = []
    for _ in range(runs):
        started = time.process_time()
        measure()
        times.append(time.process_time() - started)
    return 1e9 * min(times) / states


def _every_state(njit, moves):
    """A compiled loop running `moves` on every row (the successor program alone)."""

    @njit
    def every(rows, out_i, out, ctx):
        total = 0
        for i in range(rows.shape[0]):
            total += moves(rows[i], out_i, out, ctx)
        return total

    return every


if __name__ == "__main__":
    main()
