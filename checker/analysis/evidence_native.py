"""`evidence.decide` in the bytecode interpreter: the same exploration, natively.

The Readings growth re-checks explore larger games than the check does, with their own loop
(`checker.analysis.evidence.decide`: outcomes seen as terminal states are found, stuck states,
a budget counted in whole states). `loops.py`'s `seed_ends` and `expand_ends` run that
loop state for state; this module asks, between their chunks, whether the wanted verdicts are
settled (only when a stuck state or an outcome is new, as the Python loop does), and reads the
verdicts off the arrays. `tests/test_evidence_native.py` holds the two to the same verdicts,
state counts and reasons.
"""

from __future__ import annotations

import numpy as np

from checker.analysis.evidence import Verdicts, settled_by, verdict_values
from checker.engines.native import engine
from checker.lang.compile import CompiledModel

CHUNK = 1 << 16  # states expanded between two returns to Python
COMPLETE, PAST_BUDGET, ASK, FULL = 1, 2, 3, 4


def decide(compiled: CompiledModel, wanted: list[str], max_states: int, at_least: int = 0) -> Verdicts:
    """`evidence.decide`, natively. Raises `engine.NativeDeferred` at a modelling error (the
    Python loop then stops there with its words) and `engine.NativeUnsupported` for a model the
    interpreter cannot assemble."""
    module, ctx, ni, initial, states, table = engine.vm_loop(compiled, max_states)[1:]
    capacity = states.shape[0]
    ends = np.zeros(capacity, np.uint8)
    starts = np.zeros(capacity + 1, np.int64)
    edges = np.empty(1 << 16, np.int32)
    seen = np.zeros(256, np.int64)
    meta = np.zeros(10, np.int64)
    meta[5] = max_states
    meta[6] = at_least
    meta[7] = 1 if (wanted or at_least) else 0
    meta[8] = meta[9] = -1
    outcome = compiled.decoder(compiled.model.outcome) if compiled.model.outcome is not None else None
    try:
        with engine.compiling(module.__name__, "ends"):  # the first calls compile: the loop's with no state to expand
            module.seed_ends(meta, states, table, initial, ends, seen, ctx)
            module.expand_ends(meta, states, table, starts, edges, ends, seen, ctx, 0)
        code = 0
        while True:
            code = module.expand_ends(meta, states, table, starts, edges, ends, seen, ctx, CHUNK)
            if code == FULL:
                n, ne = int(meta[0]), int(meta[2])
                if n + ni > states.shape[0]:
                    states, ends = engine._grown(states, n), engine._grown(ends, n)
                    starts = engine._grown(starts, int(meta[1]) + 1)
                table = engine.fitted_table(table, n + ni)
                if ne + ni > edges.shape[0]:
                    edges = engine._grown(edges, ne, ne + ni)
                continue
            if code == ASK:
                meta[8], meta[9] = meta[3], meta[4]
                if settled_by(wanted, bool(meta[3]), _seen(seen, int(meta[4]), outcome)):
                    break
                continue
            if code in (COMPLETE, PAST_BUDGET):
                break
    except engine.RUNTIME_ERRORS as exc:
        raise engine.NativeDeferred(str(exc)) from exc
    n, i, ne = int(meta[0]), int(meta[1]), int(meta[2])
    stuck = bool(meta[3])
    seen_words = _seen(seen, int(meta[4]), outcome)
    stopped_by = f"past its budget of {max_states:,} states" if code == PAST_BUDGET else ""
    complete = i == n and not stopped_by
    values = verdict_values(wanted, stuck, seen_words, complete, lambda kinds: _all_reach(starts, edges, ends, i, ne, kinds))
    return Verdicts(values, n, complete, stopped_by)


def _seen(seen: np.ndarray, count: int, outcome) -> set[str]:
    """The outcomes seen, in the Python loop's words (the decoded value as text)."""
    return {str(outcome(int(code))) if outcome is not None else "finished" for code in seen[:count]}


def _all_reach(starts: np.ndarray, edges: np.ndarray, ends: np.ndarray, expanded: int, ne: int, kinds: tuple[int, ...]) -> bool:
    """`evidence._all_reach` over the arrays, with the compiled backward search."""
    goal = np.isin(ends[:expanded], kinds).astype(np.uint8)
    return bool(engine._runtime().can_reach(starts[: expanded + 1], edges[:ne], goal).all())
