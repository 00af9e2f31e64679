"""Where the bundled check's time goes, phase by phase (CPU seconds, in this process).

    python3 benchmarks/phases.py [models/GAME ...] [--backend auto|native|python] [--impact]

runs `rulecheck check --jobs 1 --no-write` on the given folders (default: every bundled game)
in-process and attributes the CPU time to phases by wrapping the functions that do them:
loading models and suites, compiling a configuration (Python code generation: `CompiledModel`),
exploring (Python engine or native), native code generation and loading (numba compiles here on
a cold cache), deciding graph properties (termination, leads-to, can-end, value), and replaying
counterexamples into traces. Time spent inside a nested phase is counted once, in the innermost
one. `--impact` also times the errata page's reading-impact analysis (what `check` runs after
the check on a full run when its cache misses). Figures are CPU time, so a loaded machine
inflates them less than wall time, but they stay noisy.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections import defaultdict

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
sys.path.insert(0, ROOT)

SPENT: dict[str, float] = defaultdict(float)
CALLS: dict[str, int] = defaultdict(int)
_STACK: list[list] = []  # [phase, started, time spent in nested phases]


def timed(phase: str, fn):
    def wrapper(*args, **kwargs):
        _STACK.append([phase, time.process_time(), 0.0])
        try:
            return fn(*args, **kwargs)
        finally:
            name, started, nested = _STACK.pop()
            total = time.process_time() - started
            SPENT[name] += total - nested
            CALLS[name] += 1
            if _STACK:
                _STACK[-1][2] += total
    return wrapper


def patch(module, attr: str, phase: str) -> None:
    setattr(module, attr, timed(phase, getattr(module, attr)))


def instrument() -> None:
    from checker.engines import explicit
    from checker.engines.native import engine
    from checker.evidence import confirm as evidence
    from checker.lang.compile import CompiledModel
    from checker.pipeline import runner

    patch(runner, "load_games", "load models and suites")
    patch(CompiledModel, "_build", "compile (Python successor code per configuration)")  # a method: every caller's class
    patch(explicit, "explore", "explore (Python engine)")
    patch(engine, "build_vm", "native: assemble the program, load the interpreter")
    patch(engine, "explore", "explore (native)")
    for kind in ("terminates", "leads_to", "can_end"):
        patch(explicit, kind, "graph properties (Python)")
    for kind in ("terminates", "leads_to", "can_end"):
        if hasattr(engine, kind):
            patch(engine, kind, "graph properties (native)")
    engine.GRAPH_CHECKS.update({name.replace("_", "-"): getattr(engine, name) for name in ("terminates", "leads_to", "can_end") if hasattr(engine, name)})
    runner.build_trace = timed("replay traces (interpreter)", evidence.build_trace)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="*", default=["models"])
    parser.add_argument("--backend", choices=["auto", "native", "python"], default="auto")
    parser.add_argument("--impact", action="store_true", help="also time the errata page's reading-impact analysis")
    args = parser.parse_args()
    instrument()
    from checker.pipeline.runner import CheckOptions, check_paths

    options = CheckOptions(backend=args.backend)
    cpu, wall = time.process_time(), time.perf_counter()
    results = check_paths(args.paths, options)
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    print(f"check {' '.join(args.paths)} --backend {args.backend}: {len(results)} results, {cpu:.1f} CPU s ({wall:.1f} s wall)")
    for phase, spent in sorted(SPENT.items(), key=lambda kv: -kv[1]):
        print(f"  {phase:<50} {spent:8.1f} s  {100 * spent / max(cpu, 1e-9):5.1f} %  ({CALLS[phase]} calls)")
    accounted = sum(SPENT.values())
    print(f"  {'other (reports, expectations, planning)':<50} {cpu - accounted:8.1f} s  {100 * (cpu - accounted) / max(cpu, 1e-9):5.1f} %")
    if args.impact:
        from checker.pipeline.readings import readings_section

        models = sorted({r.model.path: r.model for r in results}.items())
        by_game: dict[str, list] = defaultdict(list)
        for _, model in models:
            by_game[model.game].append(model)
        for game, game_models in sorted(by_game.items()):
            started = time.process_time()
            readings_section(game_models, [r for r in results if r.model.game == game])
            print(f"reading impact ({game}): {time.process_time() - started:.1f} CPU s")


if __name__ == "__main__":
    main()
