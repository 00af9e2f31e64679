"""What the growth re-check adds to a check, game by game (CPU seconds, in this process).

    python3 benchmarks/growth.py models/GAME [...]

runs the check as `rulecheck check models/GAME --jobs 1 --no-write` does, then the growth
re-check of its filed findings with no cache (what a first run pays), and prints the check's and
the re-check's CPU seconds, their ratio, each finding's outcome with its own CPU seconds, and
the summary lines `rulecheck check` prints. Run one game at a time on a shared machine.
"""

from __future__ import annotations

import os
import sys
import time

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
sys.path.insert(0, ROOT)


def main(paths: list[str]) -> None:
    from checker.engines.explicit import Budget
    from checker.limits import allow_deep_expressions
    from checker.pipeline import growth
    from checker.pipeline.runner import CheckOptions, check_paths
    from checker.report.summary import summary_lines

    allow_deep_expressions()
    options = CheckOptions(jobs=1, budget=Budget(2_000_000, 600.0))
    for path in paths:
        started = time.process_time()
        results = check_paths([path], options)
        checked = time.process_time() - started
        spent: dict[str, float] = {}
        recheck = growth.recheck

        def timed(finding, *args, recheck=recheck, spent=spent, **kwargs):
            begun = time.process_time()
            try:
                return recheck(finding, *args, **kwargs)
            finally:
                spent[finding] = time.process_time() - begun

        growth.recheck = timed
        try:
            begun = time.process_time()
            checks = growth.growth_checks(results, options.budget.max_states, options.budget.timeout, cache_dir=None)
            grown = time.process_time() - begun
        finally:
            growth.recheck = recheck
        print(f"{path}: check {checked:.1f} CPU s, growth re-check {grown:.1f} CPU s (+{100 * grown / checked:.0f} %), {len(checks)} finding(s)")
        for check in checks:
            print(f"  {spent[check.finding]:6.1f} s  {check.finding}: {check.words()}")
        for line in summary_lines(results, None):
            print("  | " + line)


if __name__ == "__main__":
    main(sys.argv[1:])
