"""Explicit-engine benchmark: states per second and bytes per stored state.

One model (default: the card-race benchmark model, 1,266,184 reachable states):

    python3 benchmarks/explicit.py [MODEL] [--graph] [--set NAME=VALUE ...] [--backend native|python]

prints states, transitions, wall and CPU seconds, states per CPU second (one core's work, much
less affected by whatever else the machine runs) and bytes per stored state (the growth of the
process's peak resident memory during exploration, divided by the states stored; a native run
that compiles the model peaks while compiling, which hides the growth: run it again, or use
--spin, which compiles in a run of its own), and for the native back-end the visited store's own
bytes per state. --graph also
stores the edge lists that termination and leads-to checks need.

Side by side with SPIN (War with 6, 8 and 10 cards, every deal, exhaustive):

    python3 benchmarks/explicit.py --spin [--cards 6 8 10] [--runs 3] [--python]

runs the rulecheck model (benchmarks/models/war/warN.yaml) and the same game in Promela
(benchmarks/promela/war.pml, compiled by `spin -a` and a C compiler with -DSAFETY -DNOREDUCE),
alternating, each run in its own process, and prints the medians and the ratios of states per CPU
second and of bytes per state, with the load average before and after. Bytes per state two ways:
the peak resident memory (rulecheck: the growth of the process's peak during exploration; SPIN:
the pan process's peak, from wait4) and the visited store's own size (rulecheck: the states,
parent and hash-table arrays; SPIN: its own "total actual memory usage"), each divided by the
states stored. --python adds the Python engine (slow at 10 cards).

The bundled check, game by game:

    python3 benchmarks/explicit.py --check [--runs 1] [--games titlebelt ...]

times `rulecheck check models/<game> --jobs 1 --no-write` with the Python engine and with the
native back-end (CPU seconds of the child process), each run in a fresh working directory (an
empty results cache). The native back-end's first run compiles each model into a cache of the
benchmark's own, which the later native runs use; the compile runs are reported separately, and
so is a run with the default `--backend auto` and an empty native cache.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
sys.path.insert(0, ROOT)

DEFAULT_MODEL = os.path.join(ROOT, "benchmarks", "models", "race", "race.yaml")
WAR = os.path.join(ROOT, "benchmarks", "models", "war", "war{n}.yaml")
PROMELA = os.path.join(ROOT, "benchmarks", "promela", "war.pml")
GAMES = ("showngo", "titlebelt", "supershow")


def peak_rss_bytes() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # Linux reports KiB


def child_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


# -- one model, in this process -------------------------------------------------------------------
def run_one(path: str, graph: bool, sets: list[str], backend: str) -> dict:
    from checker.engines.explicit import Budget, explore
    from checker.lang.build import load_model
    from checker.lang.compile import CompiledModel
    from checker.pipeline.runner import parse_constants

    model = load_model(path)
    overrides = parse_constants(model, dict(item.split("=", 1) for item in sets))
    config = model.default_config()
    config = type(config)({**config.constants, **overrides}, config.readings)
    compiled = CompiledModel(model, config)
    budget = Budget(max_states=50_000_000, timeout=3600)
    if backend == "native":
        from checker.engines.native import engine

        engine.explore(compiled, [], Budget(max_states=10, timeout=60), need_graph=graph)  # compiles or loads the module, untimed
        explore_fn = engine.explore
    else:
        explore_fn = explore
    baseline = peak_rss_bytes()
    wall, cpu = time.perf_counter(), time.process_time()
    exp, _ = explore_fn(compiled, [], budget, need_graph=graph)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    grown = peak_rss_bytes() - baseline
    return {
        "model": model.id, "path": os.path.relpath(path), "bits": compiled.layout.bits, "graph": graph, "backend": backend,
        "states": len(exp.states), "complete": exp.complete, "stopped_by": exp.stopped_by, "transitions": exp.transitions,
        "depth": exp.depth, "wall": wall, "cpu": cpu, "bytes": grown, "store": getattr(exp, "store_bytes", None),
    }


def print_one(r: dict) -> None:
    print(f"model            {r['model']} ({r['path']}), {r['bits']} state bits, graph {'on' if r['graph'] else 'off'}, {r['backend']} back-end")
    print(f"states           {r['states']:,} ({'complete' if r['complete'] else r['stopped_by']})")
    print(f"transitions      {r['transitions']:,}")
    print(f"depth            {r['depth']}")
    print(f"wall seconds     {r['wall']:.2f}")
    print(f"cpu seconds      {r['cpu']:.2f}")
    print(f"states/s (cpu)   {r['states'] / max(r['cpu'], 1e-9):,.0f}")
    print(f"states/s (wall)  {r['states'] / max(r['wall'], 1e-9):,.0f}")
    print(f"bytes/state      {r['bytes'] / r['states']:.0f}  (peak RSS growth {r['bytes'] / 2**20:.0f} MiB)")
    if r["store"]:
        print(f"store bytes/state {r['store'] / r['states']:.0f}  (states, parents and hash table: {r['store'] / 2**20:.0f} MiB)")


def run_child(path: str, backend: str, graph: bool = False) -> dict:
    args = [sys.executable, os.path.abspath(__file__), path, "--backend", backend, "--json"] + (["--graph"] if graph else [])
    out = subprocess.run(args, check=True, capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


# -- SPIN ----------------------------------------------------------------------------------------
def spin_ready() -> str | None:
    """Why SPIN cannot run here (None when it can)."""
    for tool in ("spin", "cc"):
        if shutil.which(tool) is None:
            return f"`{tool}` is not installed"
    return None


def build_pan(cards: int, folder: str) -> str:
    subprocess.run(["spin", "-a", f"-DN={cards}", PROMELA], cwd=folder, check=True, capture_output=True)
    subprocess.run(["cc", "-O2", "-DSAFETY", "-DNOREDUCE", "-DMEMLIM=16000", "-o", "pan", "pan.c"], cwd=folder, check=True, capture_output=True)
    return os.path.join(folder, "pan")


HASH_BITS = {6: 12, 8: 18, 10: 24}  # SPIN's -w: a hash table about the size of the state space


def run_pan(pan: str, cards: int) -> dict:
    """One verification run; CPU and peak resident memory are the pan process's own (wait4)."""
    with tempfile.TemporaryFile("w+") as out_file:
        child = subprocess.Popen([pan, "-m100000", f"-w{HASH_BITS[cards]}"], cwd=os.path.dirname(pan), stdout=out_file, stderr=subprocess.DEVNULL)
        _, status, usage = os.wait4(child.pid, 0)
        child.returncode = os.waitstatus_to_exitcode(status)
        out_file.seek(0)
        out = out_file.read()
    if child.returncode != 0 or "errors: 0" not in out:
        raise RuntimeError(f"pan failed:\n{out}")
    states = int(re.search(r"(\d+) states, stored", out).group(1))
    memory = float(re.search(r"([\d.]+)\s+total actual memory usage", out).group(1)) * 2**20
    return {"states": states, "cpu": usage.ru_utime + usage.ru_stime, "bytes": memory, "rss": usage.ru_maxrss * 1024}


def side_by_side(cards: list[int], runs: int, with_python: bool) -> None:
    reason = spin_ready()
    if reason:
        print(f"SPIN side by side skipped: {reason} (Debian: apt-get install spin gcc)")
    load = os.getloadavg()
    print(f"(CPU seconds, user+sys, of the exploration; SPIN's are its pan process's, start included. Load average at the start: {load[0]:.1f} {load[1]:.1f} {load[2]:.1f}.")
    print(" Bytes per state, two ways: `rss` is the peak resident memory the exploration added (rulecheck: the process's peak growth")
    print(" during exploration; SPIN: the pan process's whole peak); `store` is what the visited store itself holds (rulecheck: the")
    print(" states, parent and hash-table arrays; SPIN: its own `total actual memory usage`). Below a few million states fixed costs")
    print(" dominate every figure: the 10-card row is the comparison.)")
    print(f"{'cards':>5} {'engine':>8} {'states':>12} {'cpu s':>8} {'states/s':>12} {'B/st rss':>9} {'B/st store':>11}")
    for n in cards:
        path = WAR.format(n=n)
        rows: dict[str, list[dict]] = {"native": [], "spin": [], "python": []}
        with tempfile.TemporaryDirectory() as folder:
            pan = build_pan(n, folder) if reason is None else None
            run_child(path, "native")  # the first run compiles and caches; not counted
            for _ in range(runs):
                rows["native"].append(run_child(path, "native"))
                if pan:
                    spin = run_pan(pan, n)
                    rows["spin"].append({**spin, "bytes": spin["rss"], "store": spin["bytes"]})
                if with_python:
                    rows["python"].append(run_child(path, "python"))
        medians = {}
        for name, results in rows.items():
            if not results:
                continue
            cpu = statistics.median(r["cpu"] for r in results)
            states = results[0]["states"]
            rss = statistics.median(r["bytes"] for r in results) / states
            store = statistics.median(r["store"] for r in results) / states if results[0].get("store") else None
            medians[name] = (states / cpu, rss, store)
            cpus = " ".join(f"{r['cpu']:.2f}" for r in results)
            print(f"{n:>5} {name:>8} {states:>12,} {cpu:>8.2f} {states / cpu:>12,.0f} {rss:>9.0f} {'-' if store is None else f'{store:.0f}':>11}   (runs: {cpus} cpu s)")
        if "spin" in medians:
            speed = medians["native"][0] / medians["spin"][0]
            print(f"{n:>5} native/SPIN: {speed:.2f}x the states per CPU second, {medians['native'][1] / medians['spin'][1]:.2f}x the peak bytes per state,"
                  f" {medians['native'][2] / medians['spin'][2]:.2f}x the store's bytes per state")
        if "python" in medians:
            print(f"{n:>5} native/Python: {medians['native'][0] / medians['python'][0]:.1f}x the states per CPU second")
    load = os.getloadavg()
    print(f"(load average at the end: {load[0]:.1f} {load[1]:.1f} {load[2]:.1f})")


# -- the bundled check -------------------------------------------------------------------------------
def time_check(game: str, backend: str, native_cache: str) -> float:
    """CPU seconds of one `rulecheck check` of a game, in a fresh working directory (so the
    results cache `.rulecheck-cache/` starts empty and no errata page is written in the
    repository), native modules compiled into `native_cache`."""
    before = child_cpu()
    env = {**os.environ, "PYTHONPATH": ROOT, "RULECHECK_CACHE": native_cache}
    with tempfile.TemporaryDirectory() as work:
        args = ["check", os.path.join(ROOT, "models", game), "--jobs", "1", "--no-write", "--errata-dir", work, "--backend", backend]
        subprocess.run([sys.executable, "-m", "checker.cli", *args], cwd=work, env=env, capture_output=True)
    return child_cpu() - before


def bundled(runs: int, games: list[str]) -> None:
    """Per game: `auto` with an empty native cache (what a first check on a machine costs), the
    first native run (compiling every model into an empty cache), then the median of `runs`
    native runs (compiled) and of `runs` Python runs."""
    print(f"{'game':>10} {'python cpu s':>13} {'native cpu s':>13} {'ratio':>7} {'native compile run':>19} {'auto, cold cache':>17}")
    for game in games:
        with tempfile.TemporaryDirectory() as cold:
            auto = time_check(game, "auto", cold)
        with tempfile.TemporaryDirectory() as native_cache:
            first = time_check(game, "native", native_cache)
            native = statistics.median(time_check(game, "native", native_cache) for _ in range(runs))
        with tempfile.TemporaryDirectory() as python_cache:  # the Python engine's successor-code cache, empty at first as the others'
            python = statistics.median(time_check(game, "python", python_cache) for _ in range(runs))
        print(f"{game:>10} {python:>13.1f} {native:>13.1f} {python / native:>6.1f}x {first:>19.1f} {auto:>17.1f}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("model", nargs="?", default=DEFAULT_MODEL)
    parser.add_argument("--graph", action="store_true", help="also store edges (as termination checks do)")
    parser.add_argument("--set", action="append", default=[], metavar="NAME=VALUE")
    parser.add_argument("--backend", choices=["native", "python"], default="native")
    parser.add_argument("--json", action="store_true", help="one line of JSON (used by the side-by-side runs)")
    parser.add_argument("--spin", action="store_true", help="War side by side with SPIN")
    parser.add_argument("--cards", type=int, nargs="+", default=[6, 8, 10], choices=[6, 8, 10])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--python", action="store_true", help="--spin: also run the Python engine")
    parser.add_argument("--check", action="store_true", help="time `rulecheck check` per bundled game, Python vs native")
    parser.add_argument("--games", nargs="+", default=list(GAMES), help="--check: the games to time")
    args = parser.parse_args()
    if args.spin:
        side_by_side(args.cards, args.runs, args.python)
    elif args.check:
        bundled(args.runs, args.games)
    else:
        result = run_one(args.model, args.graph, args.set, args.backend)
        if args.json:
            print(json.dumps(result))
        else:
            print_one(result)


if __name__ == "__main__":
    main()
