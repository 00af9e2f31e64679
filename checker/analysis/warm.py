"""The Readings re-check's compiled loops, compiled before it needs them.

A whole check's Readings re-check (`checker.pipeline.readings.ReadingsAhead`) starts in a
thread of the main process by waiting for the impact analysis's explorations, which the workers
run first; from an empty cache its own loops (the breadth-first verdict runs, the seeded witness
walks, the simulations) were then compiled in the main process while every process was busy. Run
once each on a budget of one state while the thread would only wait, they are compiled (or
loaded from numba's cache) on the core the workers leave free at the start.
"""

from __future__ import annotations

from checker.analysis.evidence import CAN_END, decide
from checker.analysis.witness import find_verdict
from checker.engines.simulate import simulate
from checker.errors import ModellingError, RulecheckError
from checker.lang.compile import CompiledModel
from checker.lang.model import Config, Model


def warm_loops(model: Model, config: Config) -> None:
    """Each loop the Readings re-check runs, once on `config` within one state; what they find is
    thrown away, and what they leave behind (programs, orders, compiled code) is kept by what it
    is made of, so nothing the check publishes depends on it. A configuration the loops cannot
    run is left for the re-check itself to meet and report."""
    from checker.engines.native import unavailable_reason

    if unavailable_reason() is not None:
        return
    try:
        decide(CompiledModel(model, config, lazy=True), [CAN_END], 1)
        find_verdict(model, config, CAN_END, 1, 1)
        simulate(CompiledModel(model, config, lazy=True), 1, 0, 1)
    except (RulecheckError, ModellingError):
        return
