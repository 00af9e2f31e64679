"""Explicit-engine benchmark: states per second and bytes per stored state.

Explores the card-race benchmark model (1,266,184 reachable states with its defaults) and
prints states, transitions, wall and CPU seconds, states per CPU second (one core's work,
unaffected by whatever else the machine runs) and bytes per stored state (the growth of the
process's peak resident memory during exploration, divided by the states stored).

    python3 benchmarks/explicit.py [MODEL] [--graph] [--set NAME=VALUE ...]

--graph also stores the edge lists that termination and leads-to checks need.
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from checker.engines.explicit import Budget, explore  # noqa: E402
from checker.lang.build import load_model  # noqa: E402
from checker.lang.compile import CompiledModel  # noqa: E402
from checker.runner import parse_constants  # noqa: E402

DEFAULT_MODEL = os.path.join(os.path.dirname(__file__), "models", "race", "race.yaml")


def peak_rss_bytes() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # Linux reports KiB


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("model", nargs="?", default=DEFAULT_MODEL)
    parser.add_argument("--graph", action="store_true", help="also store edges (as termination checks do)")
    parser.add_argument("--set", action="append", default=[], metavar="NAME=VALUE")
    args = parser.parse_args()
    model = load_model(args.model)
    overrides = parse_constants(model, dict(item.split("=", 1) for item in args.set))
    config = model.default_config()
    config = type(config)({**config.constants, **overrides}, config.readings)
    compiled = CompiledModel(model, config)
    baseline = peak_rss_bytes()
    wall, cpu = time.perf_counter(), time.process_time()
    exp, _ = explore(compiled, [], Budget(max_states=50_000_000, timeout=3600), need_graph=args.graph)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    grown = peak_rss_bytes() - baseline
    states = len(exp.states)
    print(f"model            {model.id} ({os.path.relpath(args.model)}), {compiled.layout.bits} state bits, graph {'on' if args.graph else 'off'}")
    print(f"states           {states:,} ({'complete' if exp.complete else exp.stopped_by})")
    print(f"transitions      {exp.transitions:,}")
    print(f"depth            {exp.depth}")
    print(f"wall seconds     {wall:.2f}")
    print(f"cpu seconds      {cpu:.2f}")
    print(f"states/s (cpu)   {states / cpu:,.0f}")
    print(f"states/s (wall)  {states / wall:,.0f}")
    print(f"bytes/state      {grown / states:.0f}  (peak RSS growth {grown / 2**20:.0f} MiB)")


if __name__ == "__main__":
    main()
