"""The native back-end of the explicit engine: the whole exploration compiled with numba.

`explore_and_decide` is what the runner calls: the native engine when the back-end is available
and can compile the model configuration, the pure-Python engine (the reference) otherwise, with
a one-line notice on standard error when a model cannot be compiled (`auto` without numba
installed is quietly the Python engine).

Compiling a model takes seconds to minutes (numba and LLVM, once per model and machine: the
result is cached on disk), and even loading compiled code costs about a second, more than the
Python engine needs for a small state space. So `auto` starts every exploration in the Python
engine and switches to the native one (from the start) only when it passes `AUTO_CACHED_STATES`
states for a model already compiled, `AUTO_PYTHON_STATES` for one that must be compiled first;
`native` always compiles. `auto` compiles a model only once the Python engine has spent, in this
process, as much CPU time on the model's explorations past `AUTO_PYTHON_STATES` as compiling it is
expected to cost (`COMPILE_SECONDS_PER_CHAR` times the length of its generated source; numba's
time grows with it), and never one whose source is longer than `AUTO_COMPILE_CHARS`: such a model
is explored natively only when it is already compiled.
Once a model's module is loaded in the process (an earlier reading combination switched to it),
`auto` explores the model's other combinations natively from the start.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import Any

from checker.engines import explicit
from checker.engines.explicit import Budget, Finding, Progress
from checker.lang.compile import CompiledModel
from checker.lang.model import Config, Model
from checker.lang.properties import BoundProperty
from checker.lang.property_kinds import KINDS
from checker.lang.symmetry import Symmetry
from checker.limits import OutOfBudget, WorkLimit
from checker.verdict import EngineName, Verdict

BACKENDS = ("auto", "native", "python")
AUTO_PYTHON_STATES = 200_000  # auto: states the Python engine explores before a model is compiled
AUTO_CACHED_STATES = 20_000  # ... before an already compiled model switches to it (loading numba costs about a second)
# auto: what compiling a model is expected to cost, per character of its generated module: numba
# took 0.3 to 0.4 CPU seconds per thousand characters on the 2-core benchmark machine
# (benchmarks/README.md, issue 17).
COMPILE_SECONDS_PER_CHAR = 0.0004
# auto: the largest generated module it compiles (about 2.5 CPU minutes; Show'n'Go's base model,
# the largest bundled one at 394,000 characters, took 176 CPU s); larger models go native only
# once compiled (`--backend native`, or an earlier run).
AUTO_COMPILE_CHARS = 400_000
# auto, per model (source key) in this process: CPU seconds the Python engine spent on explorations
# past AUTO_PYTHON_STATES states, and what compiling the model would cost.
_SPENT: dict[tuple, float] = {}
_COST: dict[tuple, float] = {}
# The property kinds the compiled loop and passes decide; any other kind runs in the Python engine.
NATIVE_KINDS = frozenset(name for name, k in KINDS.items() if k.native)
_NOTICES: set[str] = set()


def unavailable_reason() -> str | None:
    """Why the native back-end cannot run on this installation (None when it can)."""
    from importlib.util import find_spec

    if find_spec("numba") is None or find_spec("numpy") is None:  # found, not imported: importing numba takes a while
        return "numba is not installed (pip install 'rulecheck[fast]')"
    return None


def _loaded(compiled: CompiledModel, props: list[BoundProperty]) -> bool:
    """Whether `auto` goes native from the start: the model's module is already loaded in this
    process (an earlier reading combination switched to it), so nothing is left to pay for."""
    if "checker.engines.native.engine" not in sys.modules:
        return False  # nothing native has run yet (and importing numba is what costs)
    from checker.engines.native import engine

    return engine.is_loaded(compiled, props)


def notice(message: str) -> None:
    if message not in _NOTICES:
        _NOTICES.add(message)
        print(f"rulecheck: {message}; using the Python engine", file=sys.stderr)


def explore_and_decide(compiled: CompiledModel, props: list[BoundProperty], budget: Budget, on_progress: Callable[[Progress], None] | None, need_graph: bool, backend: str = "auto",
                       symmetry: Symmetry | None = None) -> tuple[explicit.Exploration, dict[str, Finding]]:
    """Explore one configuration and decide every property, natively when possible (the native
    back-end does not reduce by symmetry: a symmetric exploration runs in Python)."""
    if symmetry is not None:
        exp, found = explicit.explore(compiled, props, budget, on_progress, need_graph, symmetry)
        return exp, explicit.decide(exp, props, found)
    unknown = sorted({p.kind for p in props} - NATIVE_KINDS)
    if unknown and backend != "python":
        if backend == "native":
            notice(f"{compiled.model.id}: no native check for property kind {', '.join(unknown)}")
        backend = "python"
    if backend == "auto" and unavailable_reason() is None and not _loaded(compiled, props):
        from checker.engines.native import engine

        cached = engine.is_compiled_cheaply(compiled, props)
        key = engine.source_key(compiled, props)
        if not cached and _SPENT.get(key, 0.0) < _COST.get(key, float("inf")):
            # Not worth compiling yet: the Python engine explores. Its large explorations are what
            # compiling would speed up, so their time is counted, and the model is compiled once
            # they have cost as much as compiling it would (so `auto` spends at most about twice
            # what the better choice in hindsight would have).
            started = time.process_time()
            exp, found = explicit.explore(compiled, props, budget, on_progress, need_graph)
            if len(exp.states) > AUTO_PYTHON_STATES:
                _SPENT[key] = _SPENT.get(key, 0.0) + time.process_time() - started
                if key not in _COST:
                    chars = engine.source_chars(compiled, props)
                    _COST[key] = chars * COMPILE_SECONDS_PER_CHAR if chars <= AUTO_COMPILE_CHARS else float("inf")
            return exp, explicit.decide(exp, props, found)
        # Small explorations never pay for loading or compiling native code, so the Python engine
        # tries first; a trial that ends the exploration is the result.
        threshold = AUTO_CACHED_STATES if cached else AUTO_PYTHON_STATES
        small = Budget(min(threshold, budget.max_states), budget.timeout, budget.stop_when_decided)
        exp, found = explicit.explore(compiled, props, small, on_progress, need_graph)
        if exp.complete or not exp.stopped_by.startswith("state budget") or budget.max_states <= threshold:
            return exp, explicit.decide(exp, props, found)
        budget = Budget(budget.max_states, max(budget.timeout - exp.seconds, 0.1), budget.stop_when_decided)  # the same deadline overall
    if backend != "python":
        reason = unavailable_reason()
        if reason is None:
            from checker.engines.native import engine

            try:
                exp, found = engine.explore(compiled, props, budget, on_progress, need_graph)
            except engine.NativeUnsupported as exc:
                notice(f"{compiled.model.id}: {exc}")
            except engine.NativeDeferred:
                pass  # a modelling error: the reference engine reports it, with its message
            else:
                return exp, engine.decide(exp, props, found)
        elif backend == "native":
            notice(reason)  # `auto` without numba is simply the Python engine
    exp, found = explicit.explore(compiled, props, budget, on_progress, need_graph)
    return exp, explicit.decide(exp, props, found)


class ExplicitEngine:
    """The engine protocol (`checker.verdict.Engine`) for the explicit engine, on the back-end
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
            # `native` explores with its own module: the Python successor code is built only if
            # the Python engine runs after all (a fallback), which then counts as compiling.
            compiled = CompiledModel(model, config, WorkLimit(options.budget.max_states, started + options.budget.timeout), lazy=options.backend == "native")
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
