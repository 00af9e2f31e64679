"""Which clauses and state slots a reading touches, to find readings that may interact.

A reading touches the clauses it interprets, the clauses of every action that consults it (in
an expression or through `only`), and every slot those actions read or write. Two readings that
share a clause or a slot are checked together by `--readings pairs`; readings with disjoint
footprints act on separate parts of the game, and pairing them would only multiply runs.
"""

from __future__ import annotations

import itertools

from checker.lang.expr import Expr, ReadingRef, SlotRef, walk
from checker.lang.model import Action, Model


def _action_exprs(action: Action) -> list[Expr]:
    exprs = [action.guard, *(e for e in (action.weight, action.actor) if e is not None)]
    for assign in action.assigns:
        exprs += [assign.value, *assign.indices]
    return exprs


def footprint(model: Model, reading: str) -> tuple[set[str], set[str]]:
    """(clauses, slots) the reading touches in this model."""
    clauses = set(model.readings[reading].clauses)
    slots: set[str] = set()
    for action in model.actions.values():
        exprs = _action_exprs(action)
        consults = reading in action.only or any(isinstance(n, ReadingRef) and n.name == reading for e in exprs for n in walk(e))
        if not consults:
            continue
        clauses.update(action.rule)
        slots.update(a.slot for a in action.assigns)
        slots.update(n.name for e in exprs for n in walk(e) if isinstance(n, SlotRef))
    for expr in [model.terminal, *(e for e in (model.outcome,) if e is not None)]:
        if any(isinstance(n, ReadingRef) and n.name == reading for n in walk(expr)):
            slots.update(n.name for n in walk(expr) if isinstance(n, SlotRef))
    return clauses, slots


def related_pairs(model: Model) -> list[tuple[str, str]]:
    """Pairs of readings that share a clause or a slot, in declaration order."""
    prints = {name: footprint(model, name) for name in model.readings}
    return [(a, b) for a, b in itertools.combinations(model.readings, 2) if prints[a][0] & prints[b][0] or prints[a][1] & prints[b][1]]


def gating_partners(model: Model, reading: str) -> list[str]:
    """The readings that may decide whether `reading` matters at all: those that interpret a
    clause it interprets, or that an action consulting it consults too (a count-out rule the
    other reading switches on). An option of `reading` that changes nothing may change something
    once one of these is at another option; slot sharing alone (`related_pairs`) would pair
    nearly every reading of a game through its phase."""
    def consulting(name: str) -> set[str]:
        return {a.name for a in model.actions.values() if name in a.only or any(isinstance(n, ReadingRef) and n.name == name for e in _action_exprs(a) for n in walk(e))}

    mine, actions = set(model.readings[reading].clauses), consulting(reading)
    return [other for other in model.readings if other != reading
            and (mine & set(model.readings[other].clauses) or actions & consulting(other))]
