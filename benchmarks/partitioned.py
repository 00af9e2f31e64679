"""The partitioned search and the check matrix on a Dask LocalCluster, against one process.

    python3 benchmarks/partitioned.py [--cards 6 8] [--workers 2] [--matrix GAME_PATH ...]

For each War size (benchmarks/models/war/warN.yaml, the invariant `cards-kept` only, so no
edges are kept): the Python engine in this process (wall and CPU seconds, states, depth), then
the partitioned search on a LocalCluster of `--workers` single-threaded worker processes: wall
seconds, levels, the partitions' step CPU seconds added up (`cpu`) and along the critical path
(`critical`: the slowest partition per level), and what is left, the cost of the levels'
barriers and of moving batches, per level. Those figures are what docs/distributed.md
extrapolates from.

--matrix times `rulecheck check --no-write PATH` with --jobs 1, --jobs W and --cluster local
--jobs W (wall seconds of the whole command, cluster start included).
"""

from __future__ import annotations

import argparse
import logging
import os
import subprocess
import sys
import time

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
sys.path.insert(0, ROOT)

WAR = os.path.join(ROOT, "benchmarks", "models", "war", "war{n}.yaml")
WAR_PROPS = os.path.join(ROOT, "benchmarks", "properties", "war.yaml")


def war(cards: int):
    from checker.lang.build import load_model
    from checker.lang.compile import CompiledModel
    from checker.lang.properties import bind, load_suite, properties_for

    model = load_model(WAR.format(n=cards))
    props = [bind(p, model) for p in properties_for(model, load_suite(WAR_PROPS)) if p.id == "cards-kept"]
    return CompiledModel(model, model.default_config()), props


def one_process(cards: int) -> None:
    from checker.engines.explicit import Budget, explore

    compiled, props = war(cards)
    wall, cpu = time.perf_counter(), time.process_time()
    exp, _ = explore(compiled, props, Budget(50_000_000, 3600.0), need_graph=False)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    print(f"war{cards} one process (Python engine): {len(exp.states):,} states, {exp.transitions:,} transitions, depth {exp.depth}, "
          f"{wall:.2f} s wall, {cpu:.2f} s CPU ({len(exp.states) / cpu:,.0f} states per CPU second)")


def partitioned(cards: int, client, workers: list[str]) -> None:
    from checker.engines.distributed import PartitionedSearch
    from checker.engines.explicit import Budget

    compiled, props = war(cards)
    wall = time.perf_counter()
    outcome = PartitionedSearch(client, workers).explore(compiled, props, Budget(50_000_000, 3600.0))
    wall = time.perf_counter() - wall
    rest = wall - outcome.critical
    print(f"war{cards} partitioned over {len(workers)} workers: {outcome.states:,} states, depth {outcome.depth}, {outcome.levels} levels, "
          f"{wall:.2f} s wall; step CPU {outcome.cpu:.2f} s in all ({outcome.states / outcome.cpu:,.0f} states per CPU second), "
          f"{outcome.critical:.2f} s on the critical path; the rest {rest:.2f} s ({rest / outcome.levels * 1000:.0f} ms per level)")


def matrix(paths: list[str], workers: int) -> None:
    env = {**os.environ, "PYTHONPATH": ROOT}
    for path in paths:
        for args in (("--jobs", "1"), ("--jobs", str(workers)), ("--cluster", "local", "--jobs", str(workers))):
            started = time.perf_counter()
            subprocess.run([sys.executable, "-m", "checker.cli", "check", "--no-write", *args, path], capture_output=True, env=env, cwd=ROOT)
            print(f"check {path} {' '.join(args)}: {time.perf_counter() - started:.1f} s wall")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cards", type=int, nargs="+", default=[6, 8])
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--matrix", nargs="*", default=[])
    args = parser.parse_args()
    from distributed import Client, LocalCluster

    from checker.engines.cluster import worker_addresses
    from checker.limits import allow_deep_expressions

    allow_deep_expressions()
    for cards in args.cards:
        one_process(cards)
    with LocalCluster(n_workers=args.workers, threads_per_worker=1, processes=True, dashboard_address=None, silence_logs=logging.ERROR) as local, Client(local) as client:
        for cards in args.cards:
            partitioned(cards, client, worker_addresses(client))
    matrix(args.matrix, args.workers)


if __name__ == "__main__":
    main()
