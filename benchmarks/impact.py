"""Reading-impact benchmark: what the analysis costs next to a plain check of the same models.

Runs, in one process and one after the other, `rulecheck check` (explicit engine, one job, every
property under the default and every single deviation) and `rulecheck readings` (divergence
scenario, impact and class per option) on the models given (default: Show'n'Go's junior model),
and prints CPU seconds for each, their ratio, and what the analysis found.

    python3 benchmarks/impact.py [PATHS ...]
    python3 benchmarks/impact.py --odds [PATHS ...]

With `--odds`, only the outcome odds' linear solve, per model (default configuration, its
whole space): the layered solve the analysis uses (`outcomes.absorbed`) against one sparse LU of
the whole chain, the least of three runs each, and the largest difference between their odds.

CPU time (`time.process_time`) is one core's work, unaffected by other processes; wall time on a
loaded machine is not comparable between runs.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections import Counter

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from checker.analysis.impact import Settings  # noqa: E402
from checker.pipeline.readings import analyse_model
from checker.pipeline.runner import CheckOptions, check_paths, load_games  # noqa: E402

DEFAULT = os.path.join(os.path.dirname(__file__), "..", "models", "showngo", "junior.yaml")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="*", default=[DEFAULT])
    parser.add_argument("--odds", action="store_true", help="time the odds' solve alone, layered against one whole LU")
    args = parser.parse_args()
    if args.odds:
        odds(args.paths)
        return
    cpu = time.process_time()
    results = check_paths(args.paths, CheckOptions(jobs=1))
    check_cpu = time.process_time() - cpu
    cpu = time.process_time()
    impacts = [analyse_model(m, Settings()) for g in load_games(args.paths) for m in g.models if not m.abstract]
    impact_cpu = time.process_time() - cpu
    options = [o for mi in impacts for r in mi.readings for o in r.options]
    classes = Counter(o.classification for o in options)
    print(f"models            {', '.join(sorted({mi.model.id for mi in impacts}))}")
    print(f"check             {len(results)} results, {check_cpu:.1f} CPU s")
    print(f"readings          {len(options)} options: " + ", ".join(f"{n} {c}" for c, n in sorted(classes.items())) + f"; {impact_cpu:.1f} CPU s")
    print(f"analysis / check  {impact_cpu / check_cpu:.2f}")


def odds(paths: list[str]) -> None:
    """`outcomes.probabilities` per model with the layered solve and with one LU of the whole
    chain (what the analysis did before): CPU s (least of three) and the largest difference."""
    from scipy.sparse import identity
    from scipy.sparse.linalg import splu

    from checker.analysis import outcomes
    from checker.engines.statespace import explore_space
    from checker.lang.compile import CompiledModel

    layered = outcomes.absorbed

    def whole(q, absorb):
        return splu((identity(q.shape[0], format="csc") - q).tocsc()).solve(absorb)

    print(f"{'model':<45} {'states':>8} {'whole LU s':>10} {'layered s':>10} {'difference':>10}")
    totals = [0.0, 0.0]
    for game in load_games(paths):
        for model in game.models:
            if model.abstract:
                continue
            space = explore_space(CompiledModel(model, model.default_config()))
            if not space.complete:
                continue
            labels = outcomes.outcome_labels(space)
            found, seconds = [], []
            for k, solve in enumerate((whole, layered)):
                outcomes.absorbed = solve
                times = []
                for _ in range(3):
                    started = time.process_time()
                    result = outcomes.probabilities(space, labels)
                    times.append(time.process_time() - started)
                found.append(result)
                seconds.append(min(times))
                totals[k] += min(times)
            outcomes.absorbed = layered
            difference = max(abs(found[0].get(n, 0.0) - found[1].get(n, 0.0)) for n in set(found[0]) | set(found[1]))
            print(f"{model.path:<45} {space.size:>8,} {seconds[0]:>10.3f} {seconds[1]:>10.3f} {difference:>10.1e}")
    print(f"{'total':<45} {'':>8} {totals[0]:>10.2f} {totals[1]:>10.2f}")


if __name__ == "__main__":
    main()
