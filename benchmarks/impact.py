"""Reading-impact benchmark: what the analysis costs next to a plain check of the same models.

Runs, in one process and one after the other, `rulecheck check` (explicit engine, one job, every
property under the default and every single deviation) and `rulecheck readings` (divergence
scenario, impact and class per option) on the models given (default: Show'n'Go's junior model),
and prints CPU seconds for each, their ratio, and what the analysis found.

    python3 benchmarks/impact.py [PATHS ...]

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

from checker.analysis.impact import Settings, analyse_model  # noqa: E402
from checker.runner import CheckOptions, check_paths, load_games  # noqa: E402

DEFAULT = os.path.join(os.path.dirname(__file__), "..", "models", "showngo", "junior.yaml")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="*", default=[DEFAULT])
    args = parser.parse_args()
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


if __name__ == "__main__":
    main()
