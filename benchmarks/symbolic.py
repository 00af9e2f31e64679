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

`--designer` runs instead the cases designers asked about, on the bundled games, with the
symbolic engine alone (each with its own timeout, default 600 s), and reports for each the
verdict, how far it reaches (the bound and the depth) and the CPU and wall seconds:

    python3 benchmarks/symbolic.py --designer [--timeout 600] [--only junior-game-ends ...]

`--suites` runs each bundled game's property suite with the symbolic engine (every model, the
default readings; `--readings deviations` for the CLI's default matrix), each configuration
with `--timeout` seconds (default 60), and reports the results decided (a proof, a
counterexample or an error), those honestly bounded, and the CPU and wall seconds to the verdict:

    python3 benchmarks/symbolic.py --suites [--timeout 60] [--games showngo ...] [--readings default]
"""

from __future__ import annotations

import argparse
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

from checker.engines.explicit import Budget  # noqa: E402
from checker.lang.build import load_model  # noqa: E402
from checker.lang.properties import bind, load_suite  # noqa: E402
from checker.pipeline.runner import CheckOptions, check_config  # noqa: E402

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
    results = check_config(model, cfg, props, options)
    return results[0], time.perf_counter() - started


def verdict(result) -> str:
    text = result.verdict_text
    if result.trace is not None:
        text += f" ({len(result.trace.steps)} steps)"
    return text


# Show'n'Go's printed deck: 80 cards, 8 dealt to each team (SNG-4.1). The document gives no
# count per card class, so this split is an assumption (every class present; the totals are
# what the text fixes). Supershow's bundled models are an abstract core whose documents give no
# deck sizes: their largest declared decks stand in for "full size".
SNG_FULL = {"hand_size": 8, "n_passing": 12, "n_evasion": 8, "n_kick": 10, "n_field_goal": 4, "n_tackle": 16,
            "n_held_up": 6, "n_penalty": 8, "n_handling_error": 6, "n_mistackle": 5, "n_special": 5}
SS_FULL = {"deck_lead": 3, "deck_stop": 3, "opening": 3}
ROOT = os.path.dirname(HERE)
# (name, model file, properties file, property ids, constants set): the first property is the
# one reported; the others are checked with it because its proof is built from theirs (a
# `leads-to` from a proved termination and deadlock freedom).
DESIGNER_CASES = [
    ("junior-game-ends", "models/showngo/junior.yaml", "properties/showngo.yaml", "game-ends", {}),
    ("junior-cards-conserved", "models/showngo/junior.yaml", "properties/showngo.yaml", "cards-conserved", {}),
    ("full-deck-game-ends", "models/showngo/base.yaml", "properties/showngo.yaml", "game-ends", SNG_FULL),
    ("full-deck-half-ends-once-deck-empty", "models/showngo/base.yaml", "properties/showngo.yaml", ("half-ends-once-deck-empty", "game-ends", "deadlock-free"), SNG_FULL),
    ("supershow-protector-holds-zero", "models/supershow/triple-threat-elimination.yaml", "properties/supershow.yaml", "protect-empties-hand", SS_FULL),
]


def designer(timeout: float, depth: int, only: list[str] | None) -> None:
    """The designer cases, symbolic engine alone: verdict, bound, depth reached, CPU and wall s."""
    from checker.lang.model import Config

    print(f"{'case':<38} | {'verdict':<16} | {'depth':>5} | {'cpu s':>7} | {'wall s':>7} | bound")
    print("-" * 110)
    for name, model_path, suite_path, prop_id, constants in DESIGNER_CASES:
        if only and name not in only:
            continue
        model = load_model(os.path.join(ROOT, model_path))
        ids = (prop_id,) if isinstance(prop_id, str) else prop_id
        by_id = {p.id: p for p in load_suite(os.path.join(ROOT, suite_path))}
        props = [bind(by_id[i], model) for i in ids]
        base = model.default_config()
        cfg = Config({**base.constants, **{k: v for k, v in constants.items() if k in base.constants}}, base.readings)
        options = CheckOptions(engine="symbolic", depth=depth, budget=Budget(timeout=timeout))
        cpu, wall = time.process_time(), time.perf_counter()
        result = check_config(model, cfg, props, options)[0]
        cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
        print(f"{name:<38} | {verdict(result):<16} | {result.depth:>5} | {cpu:>7.1f} | {wall:>7.1f} | {result.bound}")
        sys.stdout.flush()


GAMES = ["showngo", "titlebelt", "supershow", "sms"]


def suites(timeout: float, depth: int, games: list[str], readings: str) -> None:
    """Each game's suite under the symbolic engine: results decided / bounded, CPU and wall s."""
    from checker.pipeline.runner import check_paths

    print(f"{'game':<10} | {'configs':>7} | {'results':>7} | {'decided':>7} | {'bounded':>7} | {'not supported':>13} | {'cpu s':>8} | {'wall s':>8}")
    print("-" * 90)
    for game in games:
        options = CheckOptions(engine="symbolic", depth=depth, budget=Budget(timeout=timeout), readings=readings, jobs=1)
        cpu, wall = time.process_time(), time.perf_counter()
        results = check_paths([os.path.join(ROOT, "models", game)], options)
        cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
        unsupported = sum(1 for r in results if "not supported" in r.bound)
        decided = sum(1 for r in results if r.status in ("fails", "error") or (r.status == "holds" and r.proof))
        configs = len({(r.model.id, r.config.reading_label(r.model)) for r in results})
        print(f"{game:<10} | {configs:>7} | {len(results):>7} | {decided:>7} | {len(results) - decided - unsupported:>7} | {unsupported:>13} | {cpu:>8.1f} | {wall:>8.1f}")
        sys.stdout.flush()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=[6, 12, 24, 48, 120])
    parser.add_argument("--max-states", type=int, default=2_000_000)
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds per engine run")
    parser.add_argument("--depth", type=int, default=16)
    parser.add_argument("--no-free", action="store_true", help="skip the free-composition row")
    parser.add_argument("--designer", action="store_true", help="the designer cases on the bundled games instead (timeout default 600 s each)")
    parser.add_argument("--only", nargs="+", help="with --designer: the cases to run, by name")
    parser.add_argument("--suites", action="store_true", help="each bundled game's suite under the symbolic engine instead (timeout default 60 s per configuration)")
    parser.add_argument("--games", nargs="+", default=GAMES, help="with --suites: the games to run")
    parser.add_argument("--readings", default="default", choices=["default", "deviations"], help="with --suites: the reading combinations")
    args = parser.parse_args()
    if args.suites:
        suites(args.timeout if "--timeout" in sys.argv else 60.0, args.depth if "--depth" in sys.argv else 30, args.games, args.readings)
        return
    if args.designer:
        designer(args.timeout if "--timeout" in sys.argv else 600.0, max(args.depth, 60) if "--depth" not in sys.argv else args.depth, args.only)
        return

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
