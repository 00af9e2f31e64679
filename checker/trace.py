"""Counterexample traces: building, replaying, and writing them.

An engine hands over a path of states. Here it becomes a `Trace` (initial state and steps: the
action, who took it, its parameters, the clauses it cites, what changed), and is *replayed* in
the reference interpreter: the initial state must be initial, every step must be an enabled
transition (forced rules first) producing exactly the next state, and the final situation must
really break the property. A trace that fails replay is an engine bug and raises
`ReplayMismatch`; it is never reported as evidence.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from checker.lang.interp import Interpreter, State, Transition
from checker.lang.model import Config, Model
from checker.lang.template import fill

TRACE_FORMAT = "rulecheck-trace"
TRACE_VERSION = 1


class ReplayMismatch(Exception):
    """An engine produced a trace that the reference interpreter does not reproduce."""


@dataclass
class Step:
    action: str
    params: dict[str, Any]
    actor: str
    clauses: tuple[tuple[str, str], ...]  # (clause id, its short quote)
    changes: list[tuple[str, Any, Any]]  # (element, before, after)
    state: State  # the state after the step
    text: str  # what happened, in words


@dataclass
class Trace:
    game: str
    model: str
    property_id: str
    property_kind: str
    says: str
    config: Config
    reading_label: str
    initial: State
    steps: list[Step]
    shape: str  # path | lasso | deadlock | branch | terminal
    loop_start: int | None = None  # index into states (0 = initial) where the loop starts
    note: str = ""
    branches: list[Step] = field(default_factory=list)  # deterministic: the disagreeing moves
    outcome: Any = None
    error: Exception | None = None  # shapes error/property-error: the modelling error, as replayed

    def states(self) -> list[State]:
        return [self.initial, *(s.state for s in self.steps)]


def element_name(slot: str, index: tuple) -> str:
    return slot + "".join(f"[{i}]" for i in index)


def changes(before: State, after: State) -> list[tuple[str, Any, Any]]:
    out = []
    for name, value in after.items():
        if isinstance(value, dict):
            for index, new in value.items():
                old = before[name][index]
                if old != new:
                    out.append((element_name(name, index), old, new))
        elif before[name] != value:
            out.append((name, before[name], value))
    return out


def _matching(moves: list[Transition], post: State, action: str | None = None) -> Transition | None:
    for move in moves:
        if move.post == post and (action is None or move.action == action):
            return move
    return None


def replay_path(model: Model, config: Config, states: list[State], actions: list[str | None] | None = None) -> list[Step]:
    """Steps along a path of readable states, each checked by the interpreter."""
    interp = Interpreter(model, config)
    if not interp.is_initial(states[0]):
        raise ReplayMismatch("the trace's first state is not an initial state of the model")
    steps = []
    for i, (pre, post) in enumerate(zip(states, states[1:])):
        moves = interp.transitions(pre)
        wanted = actions[i] if actions else None
        move = _matching(moves, post, wanted)
        if move is None:
            raise ReplayMismatch(f"step {i + 1}: no enabled transition leads from the previous state to the next (action {wanted or '?'})")
        steps.append(make_step(model, move, pre))
    return steps


def make_step(model: Model, move: Transition, pre: State) -> Step:
    action = model.actions[move.action]
    clauses = tuple((cid, model.clauses[cid].says) for cid in action.rule if cid in model.clauses)
    step = Step(move.action, dict(move.params), move.actor, clauses, changes(pre, move.post), move.post, "")
    step.text = step_text(action.text, step, pre)
    return step


def step_text(template: str, step: Step, pre: State) -> str:
    """The action's `text` template filled in, or a plain description."""
    if template:
        scalars = {k: v for k, v in pre.items() if not isinstance(v, dict)}
        return fill(template, {**scalars, **step.params, "by": step.actor})
    params = ", ".join(f"{k}={v}" for k, v in step.params.items())
    who = {"chance": "Chance", "rules": "The rules"}.get(step.actor, step.actor)
    return f"{who}: {step.action}" + (f" ({params})" if params else "")


def narrative(doc: dict[str, Any]) -> str:
    """The Markdown play-by-play of a trace, from its JSON form (so saved traces explain alone)."""
    prop = doc["property"]
    lines = [f"# {prop['id']} ({prop['kind']}): {doc['game']}, model `{doc['model']}`", ""]
    readings = ", ".join(f"{k}={v}" for k, v in doc["readings"].items()) or "none"
    lines += [f"Readings: {readings}.", ""]
    if prop.get("says"):
        lines += [f"> {prop['says']}", ""]
    lines.append(f"0. Start: {_describe_json_state(doc['initial'])}")
    loop = doc.get("loop_start")
    for i, step in enumerate(doc["steps"], start=1):
        marker = f" \u21bb *(the loop starts after state {loop})*" if loop is not None and i == loop + 1 else ""
        lines.append(f"{i}. {_narrate_json_step(step)}{marker}")
    if loop is not None:
        lines.append(f"   \u21ba back to the state after step {loop}: the loop repeats forever.")
    for j, alt in enumerate(doc.get("branches", []), start=1):
        lines.append(f"   - forced rule {j}: {_narrate_json_step(alt)}")
    if doc.get("outcome") is not None:
        lines.append(f"\nOutcome: {doc['outcome']}.")
    if doc.get("note"):
        lines += ["", f"**Why this breaks it:** {doc['note']}"]
    return "\n".join(lines) + "\n"


def _narrate_json_step(step: dict[str, Any]) -> str:
    clauses = "; ".join(f"{c['id']}: \u201c{c['says']}\u201d" for c in step["clauses"])
    changed = ", ".join(f"{c['element']} {c['before']}\u2192{c['after']}" for c in step["changes"]) or "nothing changes"
    cite = f" ({clauses})" if clauses else ""
    return f"{step['text']}{cite}. {changed}."


def _describe_json_state(state: dict[str, Any]) -> str:
    parts = []
    for name, value in state.items():
        if isinstance(value, dict):
            parts.append(f"{name} {{{', '.join(f'{k}={v}' for k, v in value.items())}}}")
        else:
            parts.append(f"{name}={value}")
    return "; ".join(parts)


def describe_state(state: State) -> str:
    parts = []
    for name, value in state.items():
        if isinstance(value, dict):
            inner = ", ".join(f"{'/'.join(map(str, k))}={v}" for k, v in value.items())
            parts.append(f"{name} {{{inner}}}")
        else:
            parts.append(f"{name}={value}")
    return "; ".join(parts)


# -- serialisation ----------------------------------------------------------------------------
def _jsonable_state(state: State) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name, value in state.items():
        if isinstance(value, dict):
            out[name] = {"/".join(map(str, k)): v for k, v in value.items()}
        else:
            out[name] = value
    return out


def to_json(trace: Trace) -> dict[str, Any]:
    """The project's own trace format (documented in docs/traces.md)."""
    return {
        "format": TRACE_FORMAT,
        "version": TRACE_VERSION,
        "game": trace.game,
        "model": trace.model,
        "property": {"id": trace.property_id, "kind": trace.property_kind, "says": trace.says},
        "readings": dict(sorted(trace.config.readings.items())),
        "constants": {k: (v if not isinstance(v, dict) else {"/".join(map(str, key)): x for key, x in v.items()}) for k, v in sorted(trace.config.constants.items())},
        "shape": trace.shape,
        "loop_start": trace.loop_start,
        "note": trace.note,
        "outcome": trace.outcome,
        "initial": _jsonable_state(trace.initial),
        "steps": [_step_json(step) for step in trace.steps],
        "branches": [_step_json(step) for step in trace.branches],
    }


def _step_json(step: Step) -> dict[str, Any]:
    return {
        "action": step.action,
        "by": step.actor,
        "params": step.params,
        "text": step.text,
        "clauses": [{"id": cid, "says": says} for cid, says in step.clauses],
        "changes": [{"element": n, "before": b, "after": a} for n, b, a in step.changes],
    }


def to_itf(trace: Trace) -> dict[str, Any]:
    """The Informal Trace Format (Apalache/Quint): states as records, arrays as maps.

    Integers are written as {"#bigint": "n"} as ITF requires; arrays become `#map` entries keyed
    by their index (a tuple becomes `#tup`). The action taken to reach a state is recorded in
    the state's `action_taken` field, a common ITF convention."""

    def value(v: Any) -> Any:
        if isinstance(v, bool) or isinstance(v, str):
            return v
        if isinstance(v, int):
            return {"#bigint": str(v)}
        return v

    def key(k: tuple) -> Any:
        return value(k[0]) if len(k) == 1 else {"#tup": [value(x) for x in k]}

    def state(s: State, index: int, action: str) -> dict[str, Any]:
        out: dict[str, Any] = {"#meta": {"index": index}, "action_taken": action}
        for name, v in s.items():
            out[name] = {"#map": [[key(k), value(x)] for k, x in v.items()]} if isinstance(v, dict) else value(v)
        return out

    states = [state(trace.initial, 0, "init")]
    states += [state(step.state, i, step.action) for i, step in enumerate(trace.steps, start=1)]
    variables = ["action_taken", *trace.initial.keys()]
    doc: dict[str, Any] = {
        "#meta": {"format": "ITF", "source": trace.model, "description": f"rulecheck counterexample for {trace.property_id}"},
        "vars": variables,
        "states": states,
    }
    if trace.loop_start is not None:
        doc["loop"] = trace.loop_start
    return doc
