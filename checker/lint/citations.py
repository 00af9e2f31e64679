"""Lint of citations by branch: every clause an action cites can be the cited one somewhere.

For each `cite` entry of an action, the solver (z3) looks for one state (any values within the slots'
ranges, not necessarily reachable), one binding of the action's parameters and one choice of
readings (within the action's `only`) where the action's guard and the entry's `when` hold
together: otherwise the entry can never be cited. It also reports entries whose `when` holds
whenever the guard does (they belong in `rule`), and clauses given both in `rule` and in a
`cite` entry (the condition would make no difference). Constants keep their default values.

A model that declares the sections of the document in effect for it (`sections:`, a match type's
own section and the common rules) may cite only their clauses: a step cites a clause of another
section only through the clause stating the same rule in one that applies (`same_as`), and a
clause cited by a rule or a branch that can fire there with no such twin is an error ("cites
the Handicap rule in a Birdcage").
Reachability is not checked: a branch that only unreachable states take still passes here, and
the replay test of saved traces (tests) checks the citations of real steps.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import cast

import z3

from checker.engines.symbolic.encoding import NOT, Encoder, zv
from checker.errors import Loc
from checker.lang.model import Action, Model


@dataclass(frozen=True)
class CitationProblem:
    action: str
    loc: Loc  # of the `cite` entry
    message: str
    kind: str  # "never" | "always" | "twice" | "section"


def game_citation_problems(models: list[Model]) -> tuple[list[CitationProblem], list[CitationProblem]]:
    """Errors and warnings over a game's models. A variant inherits its base's actions, and a
    branch may exist only in some variants (a handicap bonus, partners), so an entry is an
    error when it can be cited in none of the (non-abstract) models that have it, a warning when
    its condition holds in every one of them; a clause both in `rule` and `cite` is an error."""
    concrete = [m for m in models if not m.abstract] or models
    seen: dict[Loc, list[CitationProblem | None]] = {}
    errors: dict[tuple[Loc, str], CitationProblem] = {}
    for model in concrete:
        problems = check_citations(model)
        found = {p.loc: p for p in problems if p.kind != "twice"}
        errors.update({(p.loc, p.message): p for p in problems if p.kind == "twice"})
        errors.update({(p.loc, p.message): p for p in section_problems(model, {loc for loc, p in found.items() if p.kind == "never"})})
        for action in model.actions.values():
            for citation in action.cite:
                seen.setdefault(citation.loc, []).append(found.get(citation.loc))
    for loc, outcomes in seen.items():
        if all(o is not None and o.kind == "never" for o in outcomes):
            errors[(loc, "never")] = cast(CitationProblem, outcomes[0])  # every outcome is a problem (tested above)
    warnings = [cast(CitationProblem, outcomes[0]) for outcomes in seen.values() if all(o is not None and o.kind == "always" for o in outcomes)]  # as above
    return list(errors.values()), warnings


def section_problems(model: Model, never: set[Loc]) -> list[CitationProblem]:
    """The clauses a model's rules and branches cite (those that can fire: not in `never`)
    that are in no section the model declares in effect and have no twin there."""
    if not model.sections:
        return []
    out = []
    for action in model.actions.values():
        cited = [(cid, action.loc) for cid in action.rule]
        cited += [(cid, c.loc) for c in action.cite if c.loc not in never for cid in c.rule]
        for cid, loc in cited:
            if model.cited(cid) == cid and not model.in_effect(cid):
                out.append(CitationProblem(action.name, loc, f"action `{action.name}` cites {cid}, of section {model.clauses[cid].section()}, which is not in effect in "
                                           f"`{model.id}` (sections: {', '.join(model.sections)}): name the clause of a section in effect that states the same rule "
                                           f"(`same_as` in clauses.yaml), or cite it only where it applies", "section"))
    return out


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
            out.append(CitationProblem(action.name, citation.loc, f"action `{action.name}` cites {', '.join(twice)} both always (`rule`) and under a condition (`cite`)", "twice"))
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
            out.append(CitationProblem(action.name, citation.loc, f"action `{action.name}` can never cite {ids}: its `when` never holds where the action fires", "never"))
        elif not can_fail:
            out.append(CitationProblem(action.name, citation.loc, f"action `{action.name}` always cites {ids}: its `when` holds whenever the action fires (move it to `rule`)", "always"))
    return out


def _sat(constraints: list) -> bool:
    solver = z3.Solver()
    solver.set("timeout", 5000)
    solver.add(*constraints)
    return solver.check() != z3.unsat
