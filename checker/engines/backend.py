"""The explicit engine on the back-end the options choose: compiled when it can, else Python.

`explore_and_decide` is what the runner calls: the native engine when the back-end is available
and can run the model configuration, the pure-Python engine (the reference) otherwise, with
a one-line notice on standard error when a model cannot be run natively (`auto` without numba
installed is the Python engine throughout, which `check` says once, before it starts).

The Python engine explores what the native back-end does not: symmetry reduction, a property
kind it has no check for, a run that stops once every property is decided with kinds it decides
only at the end, a model whose integers may leave 64 bits (`lang/int_bounds`), and a modelling
error (reported in the reference engine's words). This module sits above both back-ends, so
neither imports the other's chooser.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from checker.engines import explicit, native
from checker.engines.explicit import Budget, Finding, Progress
from checker.engines.native import NATIVE_KINDS, Backend, notice
from checker.engines.value import value_finding
from checker.engines.verdict import EngineName, Verdict
from checker.lang.compile import CompiledModel
from checker.lang.model import Config, Model
from checker.lang.properties import BoundProperty
from checker.lang.property_kinds import KINDS
from checker.lang.symmetry import Symmetry
from checker.limits import OutOfBudget, WorkLimit

# The graph check the Python engine does not hold itself: the game value is an analysis.
AFTER_EXPLORING = {"value": value_finding}


def stepping(model: Model, config: Config) -> CompiledModel:
    """A configuration for a search that steps through states from Python: its successor and
    terminal functions run in the bytecode interpreter when numba is installed (no Python
    successor code generated, `stepper`), else the Python engine's."""
    if native.unavailable_reason() is not None:
        return CompiledModel(model, config)
    from checker.engines.native import stepper

    return stepper.attach(CompiledModel(model, config, lazy=True))


def explore_and_decide(compiled: CompiledModel, props: list[BoundProperty], budget: Budget, on_progress: Callable[[Progress], None] | None, need_graph: bool, backend: Backend | str = Backend.AUTO,
                       symmetry: Symmetry | None = None) -> tuple[explicit.Exploration, dict[str, Finding]]:
    """Explore one configuration and decide every property, natively when possible (the native
    back-end does not reduce by symmetry: a symmetric exploration runs in Python)."""
    if symmetry is not None:
        exp, found = explicit.explore(compiled, props, budget, on_progress, need_graph, symmetry)
        return exp, explicit.decide(exp, props, found, AFTER_EXPLORING)
    unknown = sorted({p.kind for p in props} - NATIVE_KINDS)
    backend = Backend(backend)
    if unknown and backend != Backend.PYTHON:
        if backend == Backend.NATIVE:
            notice(f"{compiled.model.id}: no native check for property kind {', '.join(unknown)}")
        backend = Backend.PYTHON
    if backend != Backend.PYTHON:
        reason = native.unavailable_reason()
        if reason is None:
            from checker.engines.native import engine

            try:
                exp, found = engine.explore(compiled, props, budget, on_progress, need_graph)
            except engine.NativeUnsupported as exc:
                notice(f"{compiled.model.id}: {exc}")
            except engine.NativeDeferred:
                pass  # a modelling error: the reference engine reports it, with its message
            except OutOfBudget:
                pass  # an aggregate past the budget, or the deadline, while assembling: the reference engine refuses it in its words
            else:
                return exp, engine.decide(exp, props, found)
        elif backend == Backend.NATIVE:
            notice(reason)  # `auto` without numba is the Python engine (the command said so once)
    exp, found = explicit.explore(compiled, props, budget, on_progress, need_graph)
    return exp, explicit.decide(exp, props, found, AFTER_EXPLORING)


class ExplicitEngine:
    """The engine protocol (`checker.engines.verdict.Engine`) for the explicit engine, on the back-end
    `options.backend` chooses. `decide` raises `OutOfBudget` when compiling the model or a
    property's expression is over the budget (`compile_over_budget` says it was the model, which
    `auto` hands to the symbolic engine), and `MemoryError` (`compiling` says whether it came
    while compiling the model); a model without initial states sets `initial_empty`."""

    name = EngineName.EXPLICIT

    def __init__(self, on_progress: Callable[[Progress], None] | None = None) -> None:
        self.on_progress = on_progress
        self.compile_over_budget = False
        self.compiling = False
        self.initial_empty = False
        self.complete = False

    def decide(self, model: Model, config: Config, props: list[BoundProperty], options: Any) -> dict[str, Verdict]:
        started = time.perf_counter()
        self.compiling = True
        try:
            # Native explorations need no Python successor code: it is built only if the Python
            # engine runs after all (a fallback), which then counts as compiling.
            compiled_natively = options.backend != Backend.PYTHON and native.unavailable_reason() is None
            compiled = CompiledModel(model, config, WorkLimit(options.budget.max_states, started + options.budget.timeout), lazy=compiled_natively)
        except OutOfBudget:
            self.compile_over_budget = True
            raise
        self.compiling = False
        if not compiled.initial:
            self.initial_empty = True
            return {}
        need_graph = any(KINDS[p.kind].needs_edges for p in props)
        remaining = Budget(options.budget.max_states, max(options.budget.timeout - (time.perf_counter() - started), 0.001), options.budget.stop_when_decided)
        symmetry = Symmetry(model, config, compiled.layout) if model.symmetric and options.symmetry else None
        try:
            exp, findings = explore_and_decide(compiled, props, remaining, self.on_progress, need_graph, options.backend, symmetry)
        except (OutOfBudget, MemoryError) as exc:
            if compiled.building:  # building the Python successor code on first use
                self.compiling = True
                self.compile_over_budget = isinstance(exc, OutOfBudget)
            raise
        self.complete = exp.complete
        explicit.add_witnesses(exp, props, findings, options.witnesses)
        return {prop.id: explicit.verdict_of(findings[prop.id], exp) for prop in props}
