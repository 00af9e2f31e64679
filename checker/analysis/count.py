"""`rulecheck count`: how many reachable states satisfy an expression, grouped by a value.

A question the properties cannot ask: not whether some state satisfies an expression, but how
many do, and how they split (terminal positions by winner, stuck states by phase). The explicit
engine explores the model under one configuration; the expression and the groupings are compiled
like a property's and evaluated on every state found. A grouping may be `value`, the game value
from each state under perfect play (`checker.engines.value.state_values`, over the recorded
graph): grouped with the slots that make a position, it gives the value of every position of a
game in one run. A count over an exploration the budget stopped is marked incomplete: it covers
the states explored, never the game.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from checker.engines.explicit import Budget, explore
from checker.engines.statespace import explore_space
from checker.engines.value import GameValue, state_values
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
    by: tuple[str, ...]  # the groupings, in the order given
    states: int  # reachable states explored
    matching: int
    groups: list[tuple[Any, int]] = field(default_factory=list)  # (value, or a tuple of one per grouping; states), in the values' order
    complete: bool = True
    bound: str = "exhaustive"
    terminal_only: bool = False
    swept: dict[str, str] = field(default_factory=dict)  # the `--set` values of a sweep this count is one of

    def to_json(self) -> dict[str, Any]:
        return {
            "game": self.model.folder, "variant": self.model.id, "reading": self.config.reading_label(self.model),
            "expr": self.expr, "by": ", ".join(self.by) or None, "states": self.states, "matching": self.matching,
            "terminal_only": self.terminal_only, "groups": [{"value": list(value) if isinstance(value, tuple) else value, "states": n} for value, n in self.groups],
            "complete": self.complete, "bound": self.bound, **({"set": self.swept} if self.swept else {}),
        }


VALUE = "value"  # the grouping by game value under perfect play, where the model names nothing so


def grouping(model: Model, by: str) -> Expr | None:
    """`--by`: an expression of the state; the bare name `outcome` is the model's outcome and
    `value` the game value (None) when the model names nothing else so."""
    name = by.strip()
    if name == "outcome" and model.outcome is not None and "outcome" not in model.scope.all_names():
        return model.outcome
    if name == VALUE and VALUE not in model.scope.all_names():
        return None
    return check_expr(model.scope, by, BY_LOC)


def count_states(model: Model, config: Config, expr: str, by: Sequence[str], budget: Budget, terminal_only: bool = False,
                 chance: str = "adversary") -> Count:
    """Explore `model` under `config` and count the states satisfying `expr` (of those, only the
    terminal ones with `terminal_only`), grouped by the values of `by` (a value each, or a tuple
    of them for several groupings); `value` groups by the game value from the state, with chance
    as `chance` says (as a `value` property's `chance:`)."""
    condition = check_expr(model.scope, expr, EXPR_LOC, BOOL)
    groups = [grouping(model, b) for b in by]
    compiled = CompiledModel(model, config)
    values: list[str | float] | None = None
    if any(group is None for group in groups):
        space = explore_space(compiled, budget.max_states, budget.timeout)
        error = None if space.error is None else space.error[1]
        states, complete, stopped_by, depth = space.states, space.complete, space.stopped_by, space.depth
        if error is None:
            found = state_values(space, chance)
            if isinstance(found, GameValue):
                raise RulecheckError(f"model `{model.id}`: --by value: no game value: {found.reason}", hint="a game value needs two sides and the whole state graph (raise --max-states)")
            values = found
    else:
        exp, _ = explore(compiled, [], budget, need_graph=False)
        error = None if exp.error is None else exp.error[1]
        states, complete, stopped_by, depth = exp.states, exp.complete, exp.stopped_by, exp.depth
    if error is not None:
        raise RulecheckError(f"model `{model.id}`: a modelling error stops the exploration: {error}", hint="`rulecheck check` reports it with the play that reaches it")
    satisfies = compiled.predicate(condition)
    value_of = [compiled.function(group) if group is not None else None for group in groups]
    decode = Emitter(model, config, compiled.layout).decode
    tally: dict[tuple, int] = {}
    matching = 0
    for node, state in enumerate(states):
        try:
            if (terminal_only and not compiled.terminal(state)) or not satisfies(state):
                continue
            key = tuple(f(state) if f is not None else values[node] for f in value_of)  # type: ignore[index]
        except ModellingError as exc:
            raise RulecheckError(f"model `{model.id}`: the expression cannot be evaluated in a reachable state: {exc.message}", exc.loc) from None
        matching += 1
        tally[key] = tally.get(key, 0) + 1
    shown = [(tuple(part if group is None else decode(part, group) for part, group in zip(key, groups)), n) for key, n in sorted(tally.items())]
    grouped = [(key[0] if len(key) == 1 else key, n) for key, n in shown] if groups else []
    bound = "exhaustive" if complete else f"{stopped_by or 'stopped'}; explored to depth {depth}"
    return Count(model, config, expr, tuple(by), len(states), matching, grouped, complete, bound, terminal_only)


def count_lines(count: Count) -> list[str]:
    """The terminal report of one count."""
    head = f"{count.model.folder}/{count.model.id} [{count.config.reading_label(count.model)}]" + "".join(f" {name}={value}" for name, value in count.swept.items())
    scope = "" if count.complete else f" (incomplete: {count.bound}; the counts cover only the states explored)"
    which = "terminal states" if count.terminal_only else "states"
    lines = [f"{head}: {count.matching:,} {which} of {count.states:,} reachable states satisfy `{count.expr}`{scope}"]
    shown = [(", ".join(map(str, value)) if isinstance(value, tuple) else str(value), n) for value, n in count.groups]
    width = max((len(text) for text, _ in shown), default=0)
    if len(count.by) > 1:
        lines.append(f"  {', '.join(count.by).ljust(width)}  states")
    for text, n in shown:
        lines.append(f"  {text.ljust(width)}  {n:,}")
    return lines
