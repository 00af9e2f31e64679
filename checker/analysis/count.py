"""`rulecheck count`: how many reachable states satisfy an expression, grouped by a value.

A question the properties cannot ask: not whether some state satisfies an expression, but how
many do, and how they split (terminal positions by winner, stuck states by phase). The explicit
engine explores the model under one configuration; the expression and the grouping are compiled
like a property's and evaluated on every state found. A count over an exploration the budget
stopped is marked incomplete: it covers the states explored, never the game.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from checker.engines.explicit import Budget, explore
from checker.errors import Loc, ModellingError, RulecheckError
from checker.lang.compile import CompiledModel, Emitter
from checker.lang.expr import Expr
from checker.lang.model import Config, Model
from checker.lang.typecheck import check_expr
from checker.lang.types import BOOL

EXPR_LOC = Loc("<count EXPR>", 1, 1)
BY_LOC = Loc("<count --by>", 1, 1)


@dataclass
class Count:
    """The states of one model configuration that satisfy an expression, by group."""

    model: Model
    config: Config
    expr: str
    by: str | None
    states: int  # reachable states explored
    matching: int
    groups: list[tuple[Any, int]] = field(default_factory=list)  # (value, states), in the value's order
    complete: bool = True
    bound: str = "exhaustive"
    terminal_only: bool = False

    def to_json(self) -> dict[str, Any]:
        return {
            "game": self.model.folder, "variant": self.model.id, "reading": self.config.reading_label(self.model),
            "expr": self.expr, "by": self.by, "states": self.states, "matching": self.matching,
            "terminal_only": self.terminal_only, "groups": [{"value": value, "states": n} for value, n in self.groups],
            "complete": self.complete, "bound": self.bound,
        }


def grouping(model: Model, by: str) -> Expr:
    """`--by`: an expression of the state; the bare name `outcome` is the model's outcome when
    the model names nothing else so."""
    if by.strip() == "outcome" and model.outcome is not None and "outcome" not in model.scope.all_names():
        return model.outcome
    return check_expr(model.scope, by, BY_LOC)


def count_states(model: Model, config: Config, expr: str, by: str | None, budget: Budget, terminal_only: bool = False) -> Count:
    """Explore `model` under `config` and count the states satisfying `expr` (of those, only the
    terminal ones with `terminal_only`), grouped by the value of `by`."""
    condition = check_expr(model.scope, expr, EXPR_LOC, BOOL)
    group = grouping(model, by) if by is not None else None
    compiled = CompiledModel(model, config)
    exp, _ = explore(compiled, [], budget, need_graph=False)
    if exp.error is not None:
        raise RulecheckError(f"model `{model.id}`: a modelling error stops the exploration: {exp.error[1]}", hint="`rulecheck check` reports it with the play that reaches it")
    satisfies = compiled.predicate(condition)
    value_of = compiled.function(group) if group is not None else None
    tally: dict[Any, int] = {}
    matching = 0
    for state in exp.states:
        try:
            if (terminal_only and not compiled.terminal(state)) or not satisfies(state):
                continue
            key = value_of(state) if value_of is not None else None
        except ModellingError as exc:
            raise RulecheckError(f"model `{model.id}`: the expression cannot be evaluated in a reachable state: {exc.message}", exc.loc) from None
        matching += 1
        tally[key] = tally.get(key, 0) + 1
    decode = Emitter(model, config, compiled.layout).decode
    groups = [(decode(key, group), n) for key, n in sorted(tally.items())] if group is not None else []
    bound = "exhaustive" if exp.complete else f"{exp.stopped_by or 'stopped'}; explored to depth {exp.depth}"
    return Count(model, config, expr, by, len(exp.states), matching, groups, exp.complete, bound, terminal_only)


def count_lines(count: Count) -> list[str]:
    """The terminal report of one count."""
    head = f"{count.model.folder}/{count.model.id} [{count.config.reading_label(count.model)}]"
    scope = "" if count.complete else f" (incomplete: {count.bound}; the counts cover only the states explored)"
    which = "terminal states" if count.terminal_only else "states"
    lines = [f"{head}: {count.matching:,} {which} of {count.states:,} reachable states satisfy `{count.expr}`{scope}"]
    width = max((len(str(value)) for value, _ in count.groups), default=0)
    for value, n in count.groups:
        lines.append(f"  {str(value).ljust(width)}  {n:,}")
    return lines
