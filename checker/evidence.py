"""From an engine's finding to evidence a designer can trust.

Whatever engine found a failure, its path is replayed step by step in the reference interpreter
and the final situation is checked against the property's meaning (the invariant really is
false there, the loop really returns to its start, the two forced rules really disagree). Only
then does it become a `Trace`. Any disagreement raises `ReplayMismatch`: an engine bug must not
be able to produce a false counterexample.
"""

from __future__ import annotations

from typing import Any

from checker.errors import ModellingError
from checker.lang.interp import Interpreter, State, freeze
from checker.lang.model import Config, Model
from checker.lang.properties import BoundProperty
from checker.trace import ReplayMismatch, Trace, display_info, make_step, replay_path


def build_trace(
    model: Model,
    config: Config,
    prop: BoundProperty,
    states: list[State],
    shape: str,
    note: str,
    loop_start: int | None = None,
    last_action: str | None = None,
    branch_actions: tuple[tuple[str, dict[str, Any]], ...] = (),
) -> Trace:
    """Replay `states` and confirm that they break `prop`; returns the trace."""
    actions: list[str | None] | None = None
    if last_action is not None and len(states) > 1:
        actions = [None] * (len(states) - 2) + [last_action]
    steps = replay_path(model, config, states, actions)
    interp = Interpreter(model, config)
    trace = Trace(
        game=model.game, model=model.id, property_id=prop.id, property_kind=prop.kind, says=prop.prop.says,
        config=config, reading_label=config.reading_label(model), initial=states[0], steps=steps,
        shape=shape, loop_start=loop_start, note=note, display=display_info(model),
    )
    confirm(interp, prop, trace, branch_actions)
    final = trace.states()[-1]
    if model.outcome is not None and interp.terminal(final):
        trace.outcome = interp.eval(model.outcome, final)
    return trace


def reaches_terminal(interp: Interpreter, start: State) -> bool:
    """Whether some play from `start` reaches a terminal state: the whole closed set of states
    reachable from it is explored, so a `False` is the proof that the game cannot end."""
    seen = {freeze(start)}
    stack = [start]
    while stack:
        state = stack.pop()
        if interp.terminal(state):
            return True
        for move in interp.transitions(state):
            key = freeze(move.post)
            if key not in seen:
                seen.add(key)
                stack.append(move.post)
    return False


def confirm(interp: Interpreter, prop: BoundProperty, trace: Trace, branch_actions: tuple[tuple[str, dict[str, Any]], ...]) -> None:
    """Check, in the interpreter, that the trace's last situation really breaks the property."""
    states = trace.states()
    last = states[-1]
    kind = prop.kind

    def require(condition: bool, what: str) -> None:
        if not condition:
            raise ReplayMismatch(f"{prop.id}: the replayed trace does not show {what}")

    if trace.shape == "property-error":
        params = trace.steps[-1].params if trace.steps and kind == "after" else {}
        old = states[-2] if kind == "after" and len(states) > 1 else None
        exprs = [e for e in (prop.expr, prop.source, prop.target) if e is not None]
        for expr in exprs:
            try:
                interp.eval(expr, last, params, old=old)
            except ModellingError as exc:
                trace.error = exc
                return
        raise ReplayMismatch(f"{prop.id}: the property's expression evaluates without error in the interpreter")
    if trace.shape == "error":
        try:
            interp.transitions(last)
        except ModellingError as exc:
            trace.error = exc
            return
        raise ReplayMismatch(f"{prop.id}: the modelling error does not recur in the interpreter")
    if trace.shape == "lasso":
        # the loop must have at least one step: a "loop" starting at the last state is no loop
        loop = trace.loop_start
        require(loop is not None and 0 <= loop < len(states) - 1 and states[loop] == last, "a loop of at least one step back to an earlier state")
    if kind == "invariant":
        require(not interp.eval(prop.expr, last), "a state where the invariant is false")
    elif kind in ("unreachable", "reachable"):
        require(bool(interp.eval(prop.expr, last)), "a state satisfying the expression")
    elif kind == "after":
        step = trace.steps[-1]
        require(step.action == prop.action, f"a final `{prop.action}` step")
        require(not interp.eval(prop.expr, last, step.params, old=states[-2]), "a transition after which the expression is false")
    elif kind == "deadlock-free":
        require(not interp.terminal(last) and not interp.transitions(last), "a non-terminal state with no enabled action")
    elif kind == "deterministic":
        moves = interp.transitions(last)
        chosen = []
        for name, params in branch_actions:
            match = next((m for m in moves if m.action == name and dict(m.params) == params), None)
            require(match is not None and interp.model.actions[name].by == "rules", f"forced action `{name}` enabled at the end")
            chosen.append(match)
        require(len(chosen) == 2 and chosen[0].post != chosen[1].post, "two forced rules with different outcomes")
        trace.branches = [make_step(interp, m, last) for m in chosen]
    elif kind == "terminates" and trace.shape == "lasso":
        require(trace.loop_start is not None and states[trace.loop_start] == last, "a loop back to an earlier state")
        require(not any(interp.terminal(s) for s in states), "a loop of non-terminal states")
    elif kind == "terminates":
        require(prop.prop.within is not None and len(trace.steps) > prop.prop.within, f"a play longer than {prop.prop.within} steps")
    elif kind == "value":
        ends = interp.terminal(last) or not interp.transitions(last)
        require(ends or (trace.loop_start is not None and states[trace.loop_start] == last), "a line of play that ends or returns to an earlier state")
    elif kind == "can-end":
        require(not reaches_terminal(interp, last), "a state from which no play reaches a terminal state")
    elif kind == "leads-to":
        # some state where `from` holds, after which (and round the loop) `to` never holds; it
        # need not be the first state where `from` holds (`to` may hold at an earlier one)
        def avoids(i: int) -> bool:
            first = min(i, trace.loop_start) if trace.shape == "lasso" and trace.loop_start is not None else i
            return not any(interp.eval(prop.target, s) for s in states[first:])

        require(any(interp.eval(prop.source, s) for s in states), "a state where `from` holds")
        require(any(interp.eval(prop.source, s) and avoids(i) for i, s in enumerate(states)), "a play from `from` that avoids `to`")
        if trace.shape == "lasso":
            require(trace.loop_start is not None and states[trace.loop_start] == last, "a loop back to an earlier state")
        else:
            require(not interp.transitions(last), "a play that ends (or sticks) without `to`")
