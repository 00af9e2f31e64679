"""Counterexample traces: building, replaying, and writing them.

An engine hands over a path of states. Here it becomes a `Trace` (initial state and steps: the
action, who took it, its parameters, the clauses it cites, what changed), and is *replayed* in
the reference interpreter: the initial state must be initial, every step must be an enabled
transition (forced rules first) producing exactly the next state, and the final situation must
really break the property. A trace that fails replay is an engine bug and raises
`ReplayMismatch`; it is never reported as evidence.
"""

from __future__ import annotations

import string
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from checker.errors import RulecheckError
from checker.lang.expr import SlotRef, walk
from checker.lang.interp import Interpreter, State, Transition, shared_interpreter
from checker.lang.model import Action, Config, Model, Narration, Pile
from checker.lang.piles import fold, lengths_of, unfold
from checker.lang.property_kinds import KINDS

TRACE_FORMAT = "rulecheck-trace"
TRACE_VERSION = 1
QUOTED_PER_STEP = 4  # clauses a narrative's step cites in full at most; the others by id


class ReplayMismatch(Exception):
    """An engine produced a trace that the reference interpreter does not reproduce."""


class NarrationMismatch(RulecheckError):
    """An action's text says a slot changes in a step where it did not: the text would lie."""


@dataclass
class Step:
    action: str
    params: dict[str, Any]
    actor: str
    clauses: tuple[tuple[str, str], ...]  # (clause id, its short quote): the fired branch's
    changes: list[tuple[str, Any, Any]]  # (element, before, after)
    state: State  # the state after the step
    text: str  # what happened, in words
    assumptions: tuple[tuple[str, str], ...] = ()  # (id, says) of the model's assumptions the step rests on
    places: dict[str, str] = field(default_factory=dict)  # clause id -> where it is in the document (`at`)
    decided_by: tuple[str, ...] = ()  # a step that changes nothing shown: the shown slots its rule read (`deciding_slots`)


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
    display: dict[str, Any] = field(default_factory=dict)  # how to show slots and values (see display_info)
    loop_deciders: frozenset[str] | None = None  # a classified endless loop: who chooses to go round it
    loop_left: bool = False  # ... only chance keeps it going, and chance leaves it with probability 1 (checker.evidence.confirm.loop_left_surely)
    game_ends_surely: bool | None = None  # ... only chance keeps it going: whether the game ends with probability 1 (checker.engines.sure_end)

    def states(self) -> list[State]:
        return [self.initial, *(s.state for s in self.steps)]


def element_name(slot: str, index: tuple) -> str:
    return slot + "".join(f"[{i}]" for i in index)


def changes(before: State, after: State, piles: dict[str, str] | None = None) -> list[tuple[str, Any, Any]]:
    """What a step changed, element by element; a pile (`piles`: name -> length slot) changes
    as a whole, its list of cards top first."""
    if piles:
        before, after = fold(piles, before), fold(piles, after)
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


def replay_path(model: Model, config: Config, states: list[State], actions: list[str | None] | None = None) -> list[Step]:
    """Steps along a path of readable states, each checked by the interpreter."""
    interp = shared_interpreter(model, config)
    if not interp.is_initial(states[0]):
        raise ReplayMismatch("the trace's first state is not an initial state of the model")
    steps = []
    for i, (pre, post) in enumerate(zip(states, states[1:])):
        wanted = actions[i] if actions else None
        move = interp.move_to(pre, post, wanted)
        if move is None:
            raise ReplayMismatch(f"step {i + 1}: no enabled transition leads from the previous state to the next (action {wanted or '?'})")
        steps.append(make_step(interp, move, pre))
    return steps


def fired_clauses(interp: Interpreter, action: Action, params: dict[str, Any], pre: State) -> tuple[str, ...]:
    """The clauses a step of `action` cites: its `rule`, and each `cite` entry whose condition
    holds in the state it fires from (the branch that actually fired)."""
    cited = list(action.rule)
    for citation in action.cite:
        if interp.eval(citation.when, pre, params):
            cited.extend(citation.rule)
    return tuple(dict.fromkeys(interp.model.cited(cid) for cid in cited))


def make_step(interp: Interpreter, move: Transition, pre: State) -> Step:
    model = interp.model
    action = model.actions[move.action]
    params = dict(move.params)
    fired = fired_clauses(interp, action, params, pre)
    clauses = tuple((cid, model.clauses[cid].says) for cid in fired)
    step = Step(move.action, params, move.actor, clauses, changes(pre, move.post, lengths_of(model.piles)), move.post, "")
    step.places = {cid: model.clauses[cid].at for cid in fired}
    step.text = step_text(interp, action, step, pre)
    said = {a.id: a.says for a in model.assumptions}
    step.assumptions = tuple((aid, said[aid]) for aid in action.assumes)
    step.decided_by = deciding_slots(model, action, step.changes)
    return step


def deciding_slots(model: Model, action: Action, changed: list[tuple[str, Any, Any]]) -> tuple[str, ...]:
    """The shown slots a step's rule reads (its guard, and the values and indices it writes),
    when the step changes nothing players see; otherwise none. Such a step is a decision (the
    turn rolls compared, a play passed up while a card could be played): what it read is its
    point, and a narrative prints those values where it would have nothing to show."""
    hidden = {name for name, slot in model.slots.items() if slot.internal} | set(lengths_of(model.piles).values())
    if any(element.partition("[")[0] not in hidden for element, _, _ in changed):
        return ()
    exprs = [action.guard, *(assign.value for assign in action.assigns), *(index for assign in action.assigns for index in assign.indices)]
    read = {node.name for expr in exprs for node in walk(expr) if isinstance(node, SlotRef)}
    return tuple(name for name in model.slots if name in read and name not in hidden)


def step_text(interp: Interpreter, action: Action, step: Step, pre: State) -> str:
    """The first of the action's `text` cases whose condition holds, filled in; or a plain
    description. A template's `{@slot}` fields claim that the slot changed in this step: if it
    did not, the text would lie, and `NarrationMismatch` is raised."""
    model = interp.model
    domains = dict(action.params)
    values = {name: model.display(dom.name, step.params[name]) for name, dom in domains.items()}
    values["by"] = model.display("player", step.actor) if step.actor not in ("chance", "rules") else step.actor
    changed = {element.split("[", 1)[0] for element, _, _ in step.changes}
    for narration in action.narrations:
        if narration.when is not None and not interp.eval(narration.when, pre, step.params):
            continue
        return _fill(model, action, narration, values, changed, pre)
    params = ", ".join(f"{k}={values[k]}" for k in step.params)
    who = {"chance": "Chance", "rules": "The rules"}.get(step.actor, values["by"])
    return f"{who}: {step.action}" + (f" ({params})" if params else "")


def _fill(model: Model, action: Action, narration: Narration, values: dict[str, str], changed: set[str], pre: State) -> str:
    """One template filled in: `{@slot}` by the slot's label (checked against `changed`), `by`
    and parameters by their display names, `{slot}` by its value before the step."""
    out = []
    for literal, name, _, _ in string.Formatter().parse(narration.say):
        out.append(literal)
        if name is None:
            continue
        if name.startswith("@"):
            slot = model.slots[name[1:]]
            if slot.name not in changed:
                raise NarrationMismatch(f"the text of action `{action.name}` says {slot.shown_name} ({slot.name}) changes, but in this step it does not", narration.loc, narration.say, "give the text a `when` case for the branch that changes it, or reword it")
            out.append(slot.shown_name)
        elif name in values:
            out.append(values[name])
        else:
            slot = model.slots[name]
            out.append(model.display(slot.elem.type.domain or "", pre[name]) if slot.elem.type.kind == "enum" else str(pre[name]))
    return "".join(out)


def display_info(model: Model) -> dict[str, Any]:
    """What a narrative needs to show a saved trace in players' terms: per slot its label,
    whether it is internal, and the domains of its value and indices; display names of members.
    A pile shows as one slot indexed by its outer domains; `piles` names each one's length slot."""
    slots = {}
    lengths = lengths_of(model.piles)
    for name, slot in model.slots.items():
        if name in lengths.values():
            continue
        entry: dict[str, Any] = {}
        if slot.label:
            entry["label"] = slot.label
        if slot.internal:
            entry["internal"] = True
        if slot.elem.type.kind == "enum":
            entry["value"] = slot.elem.type.domain
        dims = slot.dims[:-1] if name in lengths else slot.dims
        if dims:
            entry["index"] = [d.name for d in dims]
        slots[name] = entry
    info: dict[str, Any] = {"slots": slots, "names": {d: dict(m) for d, m in model.names.items() if m}}
    if lengths:
        info["piles"] = lengths
    return info


def is_witness(kind: str, shape: str | None) -> bool:
    """A trace of this property kind and shape shows that the property holds (a `reachable`
    state), not that it fails."""
    row = KINDS.get(kind)
    return row is not None and row.keeps_witness and shape == "path"


def narrative(doc: dict[str, Any], assumption_link: Callable[[str], str] | None = None) -> str:
    """The Markdown play-by-play of a trace, from its JSON form (so saved traces explain alone).

    Internal slots are never shown; slots appear under their labels and members under their
    display names; a step lists only what changed, or, when it changes nothing players see,
    the values its rule read to decide it; a run of steps that neither change nor read anything
    shown is one line. Each clause is quoted once, later steps refer to it by where it is in the
    document. A model's assumption is cited by its name, never pasted into a step: linked by
    `assumption_link` (a page that lists the assumptions), else its text follows the steps."""
    view = _View(doc.get("display") or {})
    prop = doc["property"]
    lines = [f"# {prop['id']} ({prop['kind']}): {doc['game']}, model `{doc['model']}`", ""]
    readings = ", ".join(f"{k}={v}" for k, v in doc["readings"].items()) or "none"
    lines += [f"Readings: {readings}.", ""]
    if doc.get("display", {}).get("piles"):
        lines += ["Piles are listed top card first.", ""]
    if prop.get("says"):
        lines += [f"> {prop['says']}", ""]
    lines.append(f"0. Start: {view.state(doc['initial'])}")
    loop = doc.get("loop_start")
    quoted: set[str] = set()
    cited: dict[str, str] = {}
    link = assumption_link or (lambda aid: f"`{aid}`")
    states = doc_states(doc)
    steps: list[dict[str, Any]] = doc["steps"]
    i = 1
    while i <= len(steps):
        marker = f" \u21bb *(the loop starts after state {loop})*" if loop is not None and i == loop + 1 else ""
        run = i
        while not marker and run < len(steps) and _bookkeeping(view, steps[run - 1]) and _bookkeeping(view, steps[run]) and not (loop is not None and run + 1 == loop + 1):
            run += 1
        if run > i:
            parts = [view.cited_text(steps[k - 1], quoted, link, cited) for k in range(i, run + 1)]
            lines.append(f"{i}\u2013{run}. " + "; ".join(parts) + ". Players see no change.")
        else:
            lines.append(f"{i}. {view.step(steps[i - 1], quoted, link, cited, states[i - 1])}{marker}")
        i = run + 1
    if loop is not None:
        lines.append(f"   \u21ba back to the state after step {loop}: the loop repeats forever.")
    for j, alt in enumerate(doc.get("branches", []), start=1):
        lines.append(f"   - forced rule {j}: {view.step(alt, quoted, link, cited, states[-1])}")
    if doc.get("outcome") is not None:
        lines.append(f"\nOutcome: {view.name(None, doc['outcome'])}.")
    if doc.get("note"):
        lines += ["", f"**{_note_heading(prop['kind'], doc.get('shape'))}:** {doc['note']}"]
    if cited and assumption_link is None:
        lines += ["", "The model's assumptions these steps rest on (not the text):", ""]
        lines += [f"- `{aid}`: {says}" for aid, says in cited.items()]
    return "\n".join(lines) + "\n"


def _note_heading(kind: str, shape: str | None) -> str:
    """What a trace's note explains: a witness what it shows, a `value` line of perfect play what
    perfect play does (whether the value matched or not: the verdict says), else the violation."""
    if shape == "strategy":
        return "Perfect play"
    return "What it shows" if is_witness(kind, shape) else "Why this breaks it"


def plays_what(kind: str, shape: str | None) -> str:
    """What the same play does in every combination an evidence file lists."""
    if shape == "strategy":
        return "is the line of perfect play"
    return "shows it reachable" if is_witness(kind, shape) else "breaks the property"


def _bookkeeping(view: _View, step: dict[str, Any]) -> bool:
    """A step that neither changes nor reads anything players see (the model's own bookkeeping)."""
    return not view.changes(step["changes"]) and not step.get("decided_by")


def doc_states(doc: dict[str, Any]) -> list[dict[str, Any]]:
    """Every state of a trace in its JSON form (arrays keyed `a/b`, piles whole): the initial
    one, then each step's changes applied; the rendering's counterpart of `states_from_json`,
    which needs the model."""
    states = [doc["initial"]]
    for step in doc["steps"]:
        state = {k: (dict(v) if isinstance(v, dict) else v) for k, v in states[-1].items()}
        for change in step["changes"]:
            slot, _, rest = change["element"].partition("[")
            if rest:
                state[slot]["/".join(rest.rstrip("]").split("]["))] = change["after"]
            else:
                state[slot] = change["after"]
        states.append(state)
    return states


class _View:
    """Shows slots, elements and values of a saved trace in players' terms (its `display`)."""

    def __init__(self, display: dict[str, Any]) -> None:
        self.slots: dict[str, dict[str, Any]] = display.get("slots", {})
        self.names: dict[str, dict[str, str]] = display.get("names", {})

    def hidden(self, slot: str) -> bool:
        return bool(self.slots.get(slot, {}).get("internal"))

    def name(self, domain: str | None, value: Any) -> str:
        if domain is None:  # a value of unknown type: any display name that matches
            return next((names[str(value)] for names in self.names.values() if str(value) in names), str(value))
        return self.names.get(domain, {}).get(str(value), str(value))

    def element(self, slot: str, index: list[str]) -> str:
        info = self.slots.get(slot, {})
        shown = info.get("label", slot)
        domains = info.get("index", [None] * len(index))
        return shown + "".join(f"[{self.name(d, i)}]" for d, i in zip(domains, index))

    def value(self, slot: str, value: Any) -> str:
        if isinstance(value, list):  # a pile, top first
            return "[" + ", ".join(self.value(slot, card) for card in value) + "]" if value else "empty"
        if isinstance(value, bool):
            return "yes" if value else "no"
        return self.name(self.slots.get(slot, {}).get("value"), value)

    def state(self, state: dict[str, Any]) -> str:
        """Every shown slot; of an array only the elements that are not 0 or false."""
        parts = []
        for name, value in state.items():
            if self.hidden(name):
                continue
            shown = self.slots.get(name, {}).get("label", name)
            if isinstance(value, dict):
                kept = [(k, v) for k, v in value.items() if v not in (0, False)]
                inner = ", ".join(self._key(name, k) if v is True else f"{self._key(name, k)}={self.value(name, v)}" for k, v in kept)
                parts.append(f"{shown}: {inner or 'none'}")
            else:
                parts.append(f"{shown}: {self.value(name, value)}")
        return "; ".join(parts)

    def _key(self, slot: str, key: str) -> str:
        domains = self.slots.get(slot, {}).get("index", [])
        parts = key.split("/")
        return "/".join(self.name(domains[i] if i < len(domains) else None, p) for i, p in enumerate(parts))

    def step(self, step: dict[str, Any], quoted: set[str], link: Callable[[str], str], cited: dict[str, str], before: dict[str, Any]) -> str:
        """One step: its text, its citations (a clause quoted the first time), and what it
        changed, or else what it read (`before`: the state it was taken in)."""
        shown = self.outcome_of(step, before)
        return f"{self.cited_text(step, quoted, link, cited)}. {shown if self.changes(step['changes']) else shown[:1].upper() + shown[1:]}."

    def cited_text(self, step: dict[str, Any], quoted: set[str], link: Callable[[str], str], cited: dict[str, str]) -> str:
        """A step's text and its citations: a clause quoted the first time (`quoted` records
        which were), an assumption by name (`cited` collects their texts). An action that cites
        many clauses (a whole procedure's) has its first `QUOTED_PER_STEP` cited in full and the
        others by id only, so that one step does not carry a page of quotes."""
        cites = []
        clauses = step["clauses"]
        for clause in clauses[:QUOTED_PER_STEP]:
            where = f"{clause['at']} ({clause['id']})" if clause.get("at") else clause["id"]
            if clause["id"] in quoted:
                cites.append(f"see {where}")
            else:
                quoted.add(clause["id"])
                cites.append(f"{where}: \u201c{clause['says']}\u201d")
        if len(clauses) > QUOTED_PER_STEP:
            cites.append("also " + ", ".join(clause["id"] for clause in clauses[QUOTED_PER_STEP:]))
        for assumption in step.get("assumptions", []):
            cited.setdefault(assumption["id"], assumption["says"])
            cites.append(f"the model's assumption {link(assumption['id'])}")
        cite = f" ({'; '.join(cites)})" if cites else ""
        return f"{step['text']}{cite}"

    def outcome_of(self, step: dict[str, Any], before: dict[str, Any]) -> str:
        """What a step changed that players see; for a step that changes nothing shown, the
        values its rule read ("decided by ..."); for one that reads nothing shown either, that
        players see no change."""
        changed = self.changes(step["changes"])
        if changed:
            return changed
        read = [slot for slot in step.get("decided_by", []) if slot in before]
        if read:
            return "decided by " + self.state({slot: before[slot] for slot in read})
        return "players see no change"

    def changes(self, changes: list[dict[str, Any]]) -> str:
        """What a step changed that players see, in their terms ("" when nothing shown changed)."""
        shown = []
        for change in changes:
            slot, _, rest = change["element"].partition("[")
            if self.hidden(slot):
                continue
            index = rest.rstrip("]").split("][") if rest else []
            shown.append(f"{self.element(slot, index)} {self.value(slot, change['before'])}\u2192{self.value(slot, change['after'])}")
        return ", ".join(shown)


def shown_changes(display: dict[str, Any], changes: list[tuple[str, Any, Any]]) -> list[list[str]]:
    """A step's changes (element, before, after) in players' words, internal slots left out."""
    view = _View(display)
    out = []
    for element, before, after in changes:
        slot = element.partition("[")[0]
        if not view.hidden(slot):
            out.append([_shown_element(view, slot, element), view.value(slot, before), view.value(slot, after)])
    return out


def shown_state(display: dict[str, Any], piles: dict[str, Pile], state: State) -> dict[str, str]:
    """A state in players' words (element -> value), each ordered pile as one list, top first."""
    return _shown_state(_View(display), fold(lengths_of(piles), state))


def _shown_element(view: _View, slot: str, element: str) -> str:
    index = [part.rstrip("]") for part in element[len(slot):].split("[")[1:]]
    return view.element(slot, index)


def _shown_state(view: _View, state: dict[str, Any]) -> dict[str, str]:
    out: dict[str, str] = {}
    for slot, value in state.items():
        if view.hidden(slot):
            continue
        if isinstance(value, dict):
            for index, item in value.items():
                out[_shown_element(view, slot, element_name(slot, index))] = view.value(slot, item)
        else:
            out[view.element(slot, [])] = view.value(slot, value)
    return out


def outcomes_after(trace: Trace, steps: list[Step]) -> list[str]:
    """What each of `steps`, taken from the trace's last state, shows as a narrative would (its
    changes in players' terms, or what decided it): the two sides of a divergence, one step at
    a time outside a whole trace."""
    view, before = _View(trace.display), doc_states(to_json(trace))[-1]
    return [view.outcome_of(step_json(step), before) for step in steps]


# -- reading saved traces back -----------------------------------------------------------------
def _index(domains: tuple, key: str) -> tuple:
    parts = key.split("/")
    return tuple(p if d.is_enum else int(p) for d, p in zip(domains, parts))


def _shown_from_json(model: Model, data: dict[str, Any]) -> dict[str, Any]:
    """A saved state with its keys read back (arrays keyed `a/b`), piles still as lists."""
    shown: dict[str, Any] = {}
    lengths = lengths_of(model.piles)
    for name, slot in model.slots.items():
        if name in lengths.values():
            continue
        dims = slot.dims[:-1] if name in lengths else slot.dims
        value = data[name]
        shown[name] = {_index(dims, k): v for k, v in value.items()} if dims else value
    return shown


def state_from_json(model: Model, data: dict[str, Any]) -> State:
    """A saved state (arrays keyed `a/b`, piles as lists top first) as the interpreter's state."""
    return unfold(model.piles, _shown_from_json(model, data))


def config_from_json(model: Model, doc: dict[str, Any]) -> Config:
    """The constants and readings a saved trace was found under."""
    constants = {}
    for name, const in model.constants.items():
        value = doc["constants"].get(name, const.default)
        constants[name] = {_index(const.dims, k): v for k, v in value.items()} if const.dims and isinstance(value, dict) else value
    return Config(constants, {**model.default_config().readings, **doc["readings"]})


def states_from_json(model: Model, doc: dict[str, Any]) -> list[State]:
    """Every state of a saved trace: the initial one, then each step's changes applied."""
    shown = [_shown_from_json(model, doc["initial"])]
    lengths = lengths_of(model.piles)
    for step in doc["steps"]:
        state = {k: (dict(v) if isinstance(v, dict) else v) for k, v in shown[-1].items()}
        for change in step["changes"]:
            slot, _, rest = change["element"].partition("[")
            if rest:
                dims = model.slots[slot].dims[:-1] if slot in lengths else model.slots[slot].dims
                state[slot][_index(dims, "/".join(rest.rstrip("]").split("][")))] = change["after"]
            else:
                state[slot] = change["after"]
        shown.append(state)
    return [unfold(model.piles, state) for state in shown]


# -- serialisation ----------------------------------------------------------------------------
def _jsonable_state(state: State) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name, value in state.items():
        if isinstance(value, dict):
            out[name] = {"/".join(map(str, k)): v for k, v in value.items()}
        else:
            out[name] = value
    return out


def jsonable_constants(constants: dict[str, Any]) -> dict[str, Any]:
    """Constants as a trace records them: sorted by name, a table keyed `a/b`."""
    return {k: (v if not isinstance(v, dict) else {"/".join(map(str, key)): x for key, x in v.items()}) for k, v in sorted(constants.items())}


def to_json(trace: Trace) -> dict[str, Any]:
    """The project's own trace format (documented in docs/traces.md)."""
    return {
        "format": TRACE_FORMAT,
        "version": TRACE_VERSION,
        "game": trace.game,
        "model": trace.model,
        "property": {"id": trace.property_id, "kind": trace.property_kind, "says": trace.says},
        "readings": dict(sorted(trace.config.readings.items())),
        "constants": jsonable_constants(trace.config.constants),
        "shape": trace.shape,
        "loop_start": trace.loop_start,
        "note": trace.note,
        "outcome": trace.outcome,
        "initial": _jsonable_state(fold(trace.display.get("piles", {}), trace.initial)),
        "steps": [step_json(step) for step in trace.steps],
        "branches": [step_json(step) for step in trace.branches],
        "display": trace.display,
    }


def step_json(step: Step) -> dict[str, Any]:
    """A step in the trace format (also what `rulecheck verify` compares a saved step with)."""
    return {
        "action": step.action,
        "by": step.actor,
        "params": step.params,
        "text": step.text,
        "clauses": [{"id": cid, "at": step.places.get(cid, ""), "says": says} for cid, says in step.clauses],
        "changes": [{"element": n, "before": b, "after": a} for n, b, a in step.changes],
        "assumptions": [{"id": aid, "says": says} for aid, says in step.assumptions],
        "decided_by": list(step.decided_by),
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
        if isinstance(v, list):  # a pile, top first: an ITF list
            return [value(x) for x in v]
        return v

    def key(k: tuple) -> Any:
        return value(k[0]) if len(k) == 1 else {"#tup": [value(x) for x in k]}

    def state(s: State, index: int, action: str) -> dict[str, Any]:
        out: dict[str, Any] = {"#meta": {"index": index}, "action_taken": action}
        for name, v in s.items():
            out[name] = {"#map": [[key(k), value(x)] for k, x in v.items()]} if isinstance(v, dict) else value(v)
        return out

    piles = trace.display.get("piles", {})
    states = [state(fold(piles, trace.initial), 0, "init")]
    states += [state(fold(piles, step.state), i, step.action) for i, step in enumerate(trace.steps, start=1)]
    variables = ["action_taken", *fold(piles, trace.initial).keys()]
    doc: dict[str, Any] = {
        "#meta": {"format": "ITF", "source": trace.model, "description": f"rulecheck {'witness' if is_witness(trace.property_kind, trace.shape) else 'counterexample'} for {trace.property_id}"},
        "vars": variables,
        "states": states,
    }
    if trace.loop_start is not None:
        doc["loop"] = trace.loop_start
    return doc
