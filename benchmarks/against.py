"""This checkout against another commit, alternating on this machine, in CPU seconds to a verdict.

    python3 benchmarks/against.py REV [--runs 3] [--bundled]

War with 10 distinct cards (`rulecheck check benchmarks/models/war/war10.yaml --backend native`:
every deal explored to the end, 16.9 million states, its properties decided), and with `--bundled` the
whole bundled check from empty caches (`rulecheck check` over models/, pages and traces written
to a temporary folder). The other commit is checked out in a git worktree beside this one. Each
run is its own process, the two commits alternating; a run's CPU is its process tree's user and
system time (`getrusage` of the children). Before the measured War runs each commit compiles its
bytecode interpreter once into its own cache folder (numba's, kept for its runs), so they time
the check, not the compilation; a `--bundled` run starts with that cache empty, as a first run does.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
WAR = os.path.join(HERE, "models", "war", "war10.yaml")


def worktree(rev: str) -> str:
    """A checkout of `rev` (made once, kept under the system's temporary folder)."""
    sha = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", rev], capture_output=True, text=True, check=True).stdout.strip()
    path = os.path.join(tempfile.gettempdir(), f"rulecheck-against-{sha}")
    if not os.path.isdir(path):
        subprocess.run(["git", "-C", ROOT, "worktree", "add", "--detach", path, sha], check=True, capture_output=True)
    return path


def cpu_of(tree: str, args: list[str], cache: str) -> tuple[float, int]:
    """CPU seconds of one `rulecheck` run of the code in `tree` (in a fresh working folder, so
    no verdict of an earlier run is reused), and its exit status."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    with tempfile.TemporaryDirectory() as work:
        env = {**os.environ, "PYTHONPATH": tree, "RULECHECK_CACHE": cache}
        done = subprocess.run([sys.executable, "-m", "checker.cli", *args], cwd=work, env=env, capture_output=True, text=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode not in (0, 1):
        sys.exit(f"{tree}: rulecheck {' '.join(args)} exited {done.returncode}:\n{done.stderr[-2000:]}")
    return after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime, done.returncode


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("rev", help="the commit to compare with (for example the previous main)")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--bundled", action="store_true", help="also the whole bundled check from empty caches (minutes a run)")
    args = parser.parse_args()
    trees = {"this checkout": ROOT, args.rev: worktree(args.rev)}
    caches = {name: tempfile.mkdtemp(prefix="rulecheck-cache-") for name in trees}
    war = ["check", WAR, "--backend", "native", "--no-write", "--max-states", "20000000"]
    for name, tree in trees.items():
        cpu_of(tree, war, caches[name])  # the interpreter compiled into this commit's cache, not timed
    timed: dict[tuple[str, str], list[float]] = {}
    for _ in range(args.runs):
        for name, tree in trees.items():
            timed.setdefault(("War-10 check", name), []).append(cpu_of(tree, war, caches[name])[0])
            if args.bundled:
                empty = tempfile.mkdtemp(prefix="rulecheck-cold-")
                out = tempfile.mkdtemp(prefix="rulecheck-out-")
                bundled = ["check", os.path.join(tree, "models"), "--fresh", "--out", out, "--errata-dir", out]
                timed.setdefault(("bundled check, cold", name), []).append(cpu_of(tree, bundled, empty)[0])
                shutil.rmtree(empty, ignore_errors=True)
                shutil.rmtree(out, ignore_errors=True)
    print(f"| what | {' | '.join(trees)} | ratio |")
    print("|---|" + "---:|" * (len(trees) + 1))
    for what in dict.fromkeys(w for w, _ in timed):
        medians = [statistics.median(timed[(what, name)]) for name in trees]
        runs = ["{:.1f} ({})".format(m, ", ".join(f"{t:.1f}" for t in timed[(what, name)])) for m, name in zip(medians, trees)]
        print(f"| {what} | {' | '.join(runs)} | {medians[0] / medians[1]:.2f} |")
    for cache in caches.values():
        shutil.rmtree(cache, ignore_errors=True)


if __name__ == "__main__":
    main()
