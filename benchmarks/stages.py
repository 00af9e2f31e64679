"""What each stage after the check adds to `rulecheck check`, game by game (issue 52).

    python3 benchmarks/stages.py [models/GAME ...] [--jobs N]

For each game folder (default: every bundled game) this runs the check (`check_paths`), then
each stage the full run adds before writing the page, in the order `rulecheck check` runs them
(`checker/cli.py`), with no cache read or written (`cache_dir=None`), so each figure is the
stage's cold cost: the growth re-check (`growth_checks`), the invented numbers at other
plausible values (`value_checks`), the findings at the document's size (`size_checks`), the
proposed wordings run (`fix_checks`) and the Readings section's analysis with its paired
re-check (`analyse_for_errata`). Printed per game and stage: CPU seconds of this process and
wall seconds (stages given a pool also spend CPU in its workers, counted in the wall time
only), and, for the document-size stage, the states it stepped through and the states per
second. Figures are noisy on a loaded machine: compare runs made back to back.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
sys.path.insert(0, ROOT)


def timed(label: str, fn, *args, **kwargs):
    """(what `fn` returns, its line, its CPU seconds in this process)."""
    cpu, wall = time.process_time(), time.perf_counter()
    out = fn(*args, **kwargs)
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    return out, f"{label:<34} {cpu:8.1f} CPU s {wall:8.1f} s wall", cpu


def main() -> None:
    from checker.pipeline.fix_check import fix_checks
    from checker.pipeline.full_size import size_checks
    from checker.pipeline.growth import growth_checks
    from checker.pipeline.invented import value_checks
    from checker.pipeline.readings import analyse_for_errata
    from checker.pipeline.runner import CheckOptions, check_paths, load_games

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    folders = sorted(os.path.join("models", g) for g in os.listdir(os.path.join(ROOT, "models")) if os.path.isdir(os.path.join(ROOT, "models", g)))
    parser.add_argument("paths", nargs="*", default=folders)
    parser.add_argument("--jobs", type=int, default=1)
    args = parser.parse_args()
    options = CheckOptions(jobs=args.jobs, reuse=False)  # no verdict cache either
    max_states, timeout = 2_000_000, 600.0  # `rulecheck check`'s defaults (--max-states, --timeout)
    for path in args.paths:
        results, line, _ = timed("check", check_paths, [path], options)
        print(f"{path}: {len(results)} results")
        print(f"  {line}")
        _, line, _ = timed("growth re-check", growth_checks, results, max_states, timeout, cache_dir=None, jobs=args.jobs)
        print(f"  {line}")
        _, line, _ = timed("invented numbers", value_checks, results, max_states, timeout, cache_dir=None)
        print(f"  {line}")
        checks, line, cpu = timed("document size", size_checks, results, cache_dir=None)
        states = sum(c.states for c in checks)
        played = sum(1 for c in checks if not c.reason)
        print(f"  {line}   {played} of {len(checks)} findings played, {states:,} states, {states / max(cpu, 1e-9):,.0f} states/CPU s")
        _, line, _ = timed("proposed wordings run", fix_checks, load_games([path]), results, options)
        print(f"  {line}")
        models = list({r.model.path: r.model for r in results}.values())
        _, line, _ = timed("readings (with pairs)", analyse_for_errata, models, None, args.jobs)
        print(f"  {line}")


if __name__ == "__main__":
    main()
