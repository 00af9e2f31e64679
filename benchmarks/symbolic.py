"""Benchmark: explicit vs symbolic engine as the deck grows (benchmarks/models/deckrace).

For each deck size (an equal number of attack, defend and blank cards) it times
  - the counterexample to `hand-limit` (a hand can exceed hand_max: 13 steps), and
  - the proof of `cards-conserved` (every card is in the deck, a hand or played),
with both engines. The explicit engine explores every reachable state within its budget; the
symbolic engine deepens a BMC unrolling for the counterexample and proves the invariant by
k-induction, whose cost does not depend on the deck size. A last row leaves the deck
composition free (every n_attack, n_defend, n_blank in 0..40 at once).

    python3 benchmarks/symbolic.py                  # sizes 6 12 24 48 120, explicit budget 2M states / 120 s
    python3 benchmarks/symbolic.py --sizes 6 12 --max-states 200000 --timeout 20
"""

from __future__ import annotations

import argparse
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

from checker.engines.explicit import Budget  # noqa: E402
from checker.engines.symbolic import check_symbolic  # noqa: E402
from checker.lang.build import load_model  # noqa: E402
from checker.properties import bind, load_suite  # noqa: E402
from checker.runner import CheckOptions, check_config  # noqa: E402

MODEL = os.path.join(HERE, "models", "deckrace", "deckrace.yaml")
SUITE = os.path.join(HERE, "properties", "deckrace.yaml")


def props_by_id(model):
    return {p.id: bind(p, model) for p in load_suite(SUITE)}


def config_for(model, size: int):
    each = size // 3
    cfg = model.default_config()
    return type(cfg)({**cfg.constants, "n_attack": each, "n_defend": each, "n_blank": size - 2 * each}, cfg.readings)


def explicit(model, cfg, props, budget: Budget):
    started = time.perf_counter()
    results = {r.prop.id: r for r in check_config(model, cfg, props, CheckOptions(engine="explicit", budget=budget))}
    return results, time.perf_counter() - started


def symbolic(model, cfg, props, depth: int, timeout: float, free: bool = False):
    """The first property's result (the others serve as its strengthening), and the seconds."""
    options = CheckOptions(engine="symbolic", depth=depth, budget=Budget(timeout=timeout), free_constants=free)
    started = time.perf_counter()
    results = check_symbolic(model, cfg, props, options)
    return results[0], time.perf_counter() - started


def verdict(result) -> str:
    text = result.verdict_text
    if result.trace is not None:
        text += f" ({len(result.trace.steps)} steps)"
    return text


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=[6, 12, 24, 48, 120])
    parser.add_argument("--max-states", type=int, default=2_000_000)
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds per engine run")
    parser.add_argument("--depth", type=int, default=16)
    parser.add_argument("--no-free", action="store_true", help="skip the free-composition row")
    args = parser.parse_args()

    model = load_model(MODEL)
    props = props_by_id(model)
    cex, proof = props["hand-limit"], props["cards-conserved"]
    proofs = [proof, props["hits-accounted"]]  # proved together: each helps exclude modelling errors
    budget = Budget(args.max_states, args.timeout)
    header = f"{'deck':>5} | {'explicit states':>15} | {'explicit s':>10} | {'explicit hand-limit':>22} | {'explicit cards-conserved':>28} | {'symbolic cex s':>14} | {'symbolic proof s':>16} | symbolic proof"
    print(header)
    print("-" * len(header))
    for size in args.sizes:
        cfg = config_for(model, size)
        exp, exp_s = explicit(model, cfg, [cex, proof], budget)
        e_cex, e_proof = exp["hand-limit"], exp["cards-conserved"]
        states = f"{e_proof.states:,}" + ("" if e_proof.bound == "exhaustive" else "+")
        s_cex, s_cex_s = symbolic(model, cfg, [cex], args.depth, args.timeout)
        s_proof, s_proof_s = symbolic(model, cfg, proofs, args.depth, args.timeout)
        print(f"{size:>5} | {states:>15} | {exp_s:>10.2f} | {verdict(e_cex):>22} | {verdict(e_proof):>28} | {s_cex_s:>14.2f} | {s_proof_s:>16.2f} | {s_proof.verdict_text}, {s_proof.bound} (cex: {verdict(s_cex)})")
        sys.stdout.flush()
    if not args.no_free:
        cfg = model.default_config()
        s_cex, s_cex_s = symbolic(model, cfg, [cex], args.depth, args.timeout, free=True)
        s_proof, s_proof_s = symbolic(model, cfg, proofs, args.depth, args.timeout, free=True)
        print(f"{'any':>5} | {'-':>15} | {'-':>10} | {'-':>22} | {'-':>28} | {s_cex_s:>14.2f} | {s_proof_s:>16.2f} | {s_proof.verdict_text}, {s_proof.bound} (cex: {verdict(s_cex)}; {s_cex.detail})")
    print("\nexplicit: one exploration decides both properties (states with + : the budget stopped it);")
    print("symbolic: the counterexample by BMC (shortest), the proof (cards-conserved with hits-accounted) by k-induction; 'any' leaves every deck composition (0..40 of each kind) free.")


if __name__ == "__main__":
    main()
