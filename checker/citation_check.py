"""Lint of citations by branch: every clause an action cites can be the cited one somewhere.

For each `cite` entry of an action, the solver looks for one state (any values within the slots'
ranges, not necessarily reachable), one binding of the action's parameters and one choice of
readings (within the action's `only`) where the action's guard and the entry's `when` hold
together: otherwise the entry can never be cited. It also reports entries whose `when` holds
whenever the guard does (they belong in `rule`), and clauses given both in `rule` and in a
`cite` entry (the condition would make no difference). Constants keep their default values.
Reachability is not checked: a branch that only unreachable states take still passes here, and
the replay test of saved traces (tests) checks the citations of real steps.
"""

from __future__ import annotations

from dataclasses import dataclass

import z3

from checker.engines.symbolic.encoding import NOT, Encoder, zv
from checker.errors import Loc
from checker.lang.model import Action, Model


@dataclass(frozen=True)
class CitationProblem:
    action: str
    loc: Loc
    message: str
    fatal: bool  # never citable, or cited both ways: an error; `when` always true: a warning


def check_citations(model: Model) -> list[CitationProblem]:
    problems: list[CitationProblem] = []
    actions = [a for a in model.actions.values() if a.cite]
    if not actions:
        return problems
    enc = Encoder(model, model.default_config(), free_readings=True)
    state = enc.new_state("lint")
    base = [*enc.range_constraints(state), *enc.parameter_constraints()]
    for action in actions:
        problems.extend(_check_action(enc, state, base, action))
    return problems


def _check_action(enc: Encoder, state: dict, base: list, action: Action) -> list[CitationProblem]:
    out = []
    for citation in action.cite:
        twice = sorted(set(citation.rule) & set(action.rule))
        if twice:
            out.append(CitationProblem(action.name, citation.loc, f"action `{action.name}` cites {', '.join(twice)} both always (`rule`) and under a condition (`cite`)", True))
        can_hold = can_fail = False
        for inst in (i for i in enc.instances if i.action is action):
            guard, gerr = enc.term(action.guard, state, inst.env)
            when, werr = enc.term(citation.when, state, inst.env)
            firing = [*base, zv(enc.exists(action)), zv(guard), zv(NOT(gerr)), zv(NOT(werr))]
            can_hold = can_hold or _sat([*firing, zv(when)])
            can_fail = can_fail or _sat([*firing, zv(NOT(when))])
            if can_hold and can_fail:
                break
        ids = ", ".join(citation.rule)
        if not can_hold:
            out.append(CitationProblem(action.name, citation.loc, f"action `{action.name}` can never cite {ids}: its `when` never holds where the action fires", True))
        elif not can_fail:
            out.append(CitationProblem(action.name, citation.loc, f"action `{action.name}` always cites {ids}: its `when` holds whenever the action fires (move it to `rule`)", False))
    return out


def _sat(constraints: list) -> bool:
    solver = z3.Solver()
    solver.set("timeout", 5000)
    solver.add(*constraints)
    return solver.check() != z3.unsat
