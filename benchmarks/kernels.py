"""The interpreter's loops on bundled games, in states per CPU second (the programs assembled
and the loops compiled first, not timed).

    python3 benchmarks/kernels.py [--runs N] [models/GAME/VARIANT.yaml ...]

For each model's default configuration (default: one model per bundled game), the best of N
runs (default 3) of each loop over the whole game (a budget of 500,000 states): the check
matrix's exploration with the model's property suite decided (`engine.explore` and `decide`),
the impact analysis's space (`statespace.explore_space_natively`), and the divergence search
between the configuration and itself (`divergence.search_in_interpreter`, which compares every state
under both and so explores the whole game). Figures are CPU time of this process
(`time.process_time`); run it on an idle machine, or alternate two checkouts, to compare.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
sys.path.insert(0, ROOT)

DEFAULT = ["models/sms/showdown.yaml", "models/supershow/tornado-tag.yaml", "models/showngo/base.yaml", "models/titlebelt/three-player.yaml", "models/ultimate/base.yaml"]
BUDGET = 500_000


def best_of(runs: int, run) -> tuple[float, int]:
    """The least CPU seconds of `runs` calls of `run` (which returns the states it explored)."""
    best, states = float("inf"), 0
    for _ in range(runs):
        started = time.process_time()
        states = run()
        best = min(best, time.process_time() - started)
    return best, states


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="*", default=DEFAULT)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    from checker.analysis import divergence
    from checker.engines import statespace
    from checker.engines.explicit import Budget
    from checker.engines.native import engine
    from checker.lang.build import load_model
    from checker.lang.compile import CompiledModel
    from checker.lang.properties import bind, load_suite, properties_for, suite_path

    def matrix(compiled, props, budget):
        exp, found = engine.explore(compiled, props, Budget(budget, 600.0), need_graph=True)
        engine.decide(exp, props, found)
        return len(exp.states)

    def loops_of(compiled, props) -> dict:
        """Each loop as a function of the state budget, returning the states it explored."""
        return {
            "matrix": lambda budget: matrix(compiled, props, budget),
            "space": lambda budget: len(statespace.explore_space_natively(compiled, budget, 600.0).states),
            "divergence": lambda budget: divergence.search_in_interpreter(compiled, compiled, True, budget, 600.0).states,
        }

    print(f"{'model':40s} {'loop':12s} {'states':>9s} {'CPU s':>7s} {'states/s':>10s}")
    totals: dict[str, float] = {}
    for path in args.paths:
        model = load_model(os.path.join(ROOT, path))
        props = [bind(p, model) for p in properties_for(model, load_suite(suite_path(model.path)))]
        for name, loop in loops_of(CompiledModel(model, model.default_config(), lazy=True), props).items():
            loop(2_000)  # assembled and compiled (or loaded) here, not timed
            seconds, states = best_of(args.runs, lambda loop=loop: loop(BUDGET))
            totals[name] = totals.get(name, 0.0) + seconds
            print(f"{path:40s} {name:12s} {states:9,d} {seconds:7.3f} {states / seconds / 1e6:9.2f}M", flush=True)
    print("total CPU s: " + ", ".join(f"{name} {seconds:.3f}" for name, seconds in totals.items()))


if __name__ == "__main__":
    main()
