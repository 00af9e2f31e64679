"""The cyclic garbage collector's thresholds for a checking process.

Assembling programs, replaying traces and the reference interpreter allocate millions of small
objects (tuples, lists, dicts, `Ops`), almost none of them in reference cycles. With CPython's
default thresholds (700, 10, 10) the collector ran a young collection every 700 allocations and
a full one, over every long-lived object (the models, the results), every 70,000: about a fifth
of the time of assembling a program, measured on the bundled models. A first threshold of
50,000 makes young collections rarer and full ones rarer with them; cycles are still collected,
and the objects waiting for it are a few megabytes at most.
"""

from __future__ import annotations

import gc

YOUNG_THRESHOLD = 50_000  # allocations (less deallocations) between young collections


def tune_collector() -> None:
    """Raise the collector's first threshold to `YOUNG_THRESHOLD` (never lower it), in this
    process; worker processes call it when they start (`dispatch.process_pool`)."""
    young, middle, old = gc.get_threshold()
    if 0 < young < YOUNG_THRESHOLD:
        gc.set_threshold(YOUNG_THRESHOLD, middle, old)
