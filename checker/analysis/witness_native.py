"""`witness.find_verdict`'s seeded walks in the bytecode interpreter: the same walks, draw for draw.

The Readings re-check asks a seeded search for a witness of a verdict in a larger game (a stuck
state, an outcome, a state from which the game cannot end) before exploring it. Walking it from
Python stepped through the interpreter one state at a time (its successors turned into Python
integers, the mover of every move asked, the draw made in Python): about a fifth of the
re-check's time, all of it on the check's critical path. `loops.py`'s `walk_witness` takes
the same walks: the same successors in the same order, the same draws of Python's own generator
(started from `random.Random(seed).getstate()`, consumed as `random.choice` and
`random.choices` consume it, `simulate.choose_move`'s order of movers), the same loops dropped,
the same candidates refuted by the same walks and closures, the same states counted against the
budget. So it meets the same witness after the same number of states, which `find_verdict` then
replays and confirms in the reference interpreter as before; the conformance suite's `witness`
pair holds the two searches to it. An error met on the way (a modelling error, a mover or weight that
cannot be evaluated) is left to the Python walks, which run from the start and meet it.
"""

from __future__ import annotations

import random

import numpy as np

from checker.analysis.evidence import OUTCOME, STUCK_REACHABLE
from checker.engines.native import engine
from checker.engines.simulate import _mover_ranks
from checker.lang.compile import CompiledModel

WALK_NONE, WALK_FOUND = 0, 1  # walk_witness's status (anything else: left to the Python walks)
STUCK, AN_OUTCOME, NO_END = 0, 1, 2  # walk_witness's kinds


def walk(compiled: CompiledModel, name: str, max_states: int, length: int, seed: int, stuck_ends: bool) -> tuple[list[int] | None, int]:
    """The witness `_Walker.search` meets for verdict `name` (its packed states, None when the
    budget is spent first) and the states spent. Raises `engine.NativeDeferred` where the Python
    walks are to run and `engine.NativeUnsupported` for a model the interpreter cannot assemble."""
    if not compiled.initial:
        raise engine.NativeDeferred("no initial state")  # the Python search makes no walk
    kind, matches, match_lo = _kind(compiled, name)
    source, module, ctx = engine.build_vm(compiled, [], checks=False)
    initial = engine.initial_rows(compiled, source.words)
    ranks, rules_key = _mover_ranks(compiled)
    meta = np.array([0, length, max_states, int(stuck_ends), 0], np.int64)
    mt = np.array(random.Random(seed).getstate()[1], np.int64)
    try:
        with engine.compiling(module.__name__, "walks"):
            status, path = module.walk_witness(meta, mt, initial, kind, matches, match_lo, ranks, rules_key, ctx)
    except engine.RUNTIME_ERRORS as exc:
        raise engine.NativeDeferred(str(exc)) from exc
    if status == WALK_NONE:
        return None, int(meta[0])
    if status != WALK_FOUND:
        raise engine.NativeDeferred("an error the Python walks meet")
    return [engine.from_words(row) for row in path[: int(meta[4])]], int(meta[0])


def _kind(compiled: CompiledModel, name: str) -> tuple[int, np.ndarray, int]:
    """The walks' kind and, for an outcome, the outcome codes that show it (from the third
    value on): those whose readable value is written as the label sought."""
    nothing = np.zeros(1, np.int64)
    if name == STUCK_REACHABLE:
        return STUCK, nothing, 0
    if not name.startswith(OUTCOME):
        return NO_END, nothing, 0
    label = name[len(OUTCOME):]
    outcome = compiled.model.outcome
    if outcome is None:
        return AN_OUTCOME, np.array([int(label == "finished")], np.int64), 0
    decode = compiled.decoder(outcome)
    if outcome.type.kind == "int":
        try:
            code = int(label)
        except ValueError:
            return AN_OUTCOME, nothing, 0
        return AN_OUTCOME, np.array([int(str(decode(code)) == label)], np.int64), code
    codes = range(2) if outcome.type.kind == "bool" else range(len(compiled.model.scope.domain_of(outcome.type).members))
    return AN_OUTCOME, np.array([int(str(decode(code)) == label) for code in codes], np.int64), 0
