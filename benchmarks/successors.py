"""The Python engine's generated code, model by model: microseconds of CPU per state.

    python3 benchmarks/successors.py [models/GAME ...] [--states N] [--games N]

For each concrete bundled model (default configuration), explores up to N states breadth first
(default 100,000), then times the generated successor function over every state found and a
seeded random play of `--games` games (default 300; moves per CPU second). The successor
function is most of every Python exploration of the check, the growth re-check and the Readings
analysis (benchmarks/README.md, "Where a cold check's time goes"); random play is the Readings
re-check's seeded estimates. Figures are CPU time, the same states and games each run, so two
commits compare on one machine.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
sys.path.insert(0, ROOT)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="*", default=["models/showngo", "models/sms", "models/titlebelt", "models/supershow", "models/ultimate"])
    parser.add_argument("--states", type=int, default=100_000)
    parser.add_argument("--games", type=int, default=300)
    args = parser.parse_args()
    from checker.engines.explicit import Budget, explore
    from checker.engines.simulate import simulate
    from checker.lang.compile import CompiledModel
    from checker.runner import load_games

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


if __name__ == "__main__":
    main()
