"""A suite's `scenarios:`: named plays that must be possible, like Quint's `run`.

A scenario is a sequence of moves (an action and, optionally, some of its parameters) from an
initial state, and an expression the state it ends in must satisfy. It pins down what a rule
allows in one concrete situation, where a property speaks about every state: a regression test
a designer writes from an example in the rule book. Loading checks the shape; `bind` checks
each name against a model (the action exists, its parameters exist and take those values, the
expressions are boolean), so a misspelt step is a located error before anything runs.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from checker.errors import Loc, RulecheckError, did_you_mean
from checker.lang.expr import Expr
from checker.lang.model import Model
from checker.lang.typecheck import check_expr
from checker.lang.types import BOOL
from checker.lang.yamlsrc import YList, YMap, load_yaml, present

REQUIRED = ("id", "steps", "reaches")
OPTIONAL = ("says", "clauses", "variants", "readings", "start")
KEYS = frozenset(REQUIRED + OPTIONAL)


@dataclass(frozen=True)
class ScenarioStep:
    action: str
    params: dict[str, Any]  # the parameters the step fixes; the others may take any value
    loc: Loc

    def label(self) -> str:
        return f"{self.action}({', '.join(f'{k}={v}' for k, v in self.params.items())})"


@dataclass(frozen=True)
class Scenario:
    id: str
    says: str
    clauses: tuple[str, ...]
    variants: tuple[str, ...] | None
    readings: dict[str, str]
    start: tuple[object, Loc] | None  # which initial states it starts from (default: any)
    steps: tuple[ScenarioStep, ...]
    reaches: tuple[object, Loc]
    loc: Loc

    def applies_to(self, model: Model) -> bool:
        return self.variants is None or model.id in self.variants


@dataclass(frozen=True)
class BoundScenario:
    """A scenario checked against one model: its expressions typed."""

    scenario: Scenario
    start: Expr | None
    reaches: Expr


def load_scenarios(path: str) -> list[Scenario]:
    """The `scenarios:` of a suite file (empty when the file or the section is absent)."""
    if not present(path):
        return []
    doc = load_yaml(path)
    if not isinstance(doc, YMap) or "scenarios" not in doc:
        return []
    items = doc["scenarios"]
    if not isinstance(items, YList):
        raise RulecheckError("`scenarios` must be a list", doc.value_loc("scenarios"))
    out: list[Scenario] = []
    seen: dict[str, Loc] = {}
    for i, item in enumerate(items):
        scenario = parse_scenario(item, items.item_loc(i))
        if scenario.id in seen:
            raise RulecheckError(f"scenario id `{scenario.id}` is used twice (first at line {seen[scenario.id].line})", scenario.loc, scenario.id)
        seen[scenario.id] = scenario.loc
        out.append(scenario)
    return out


def parse_scenario(item: object, loc: Loc) -> Scenario:
    if not isinstance(item, YMap):
        raise RulecheckError("a scenario is a mapping with `id`, `steps` and `reaches`", loc)
    for key in item:
        if key not in KEYS:
            raise RulecheckError(f"unknown key `{key}` in a scenario", item.key_loc(key), str(key), did_you_mean(str(key), KEYS))
    for key in REQUIRED:
        if key not in item:
            raise RulecheckError(f"scenario is missing `{key}`", item.loc, None, "a scenario has an id, its steps and the state it reaches")
    steps = item["steps"]
    if not isinstance(steps, YList):
        raise RulecheckError("`steps` is a list of moves: `action` or `action: {param: value}`", item.value_loc("steps"))
    readings = item.get("readings", {})
    if not isinstance(readings, dict) or not all(isinstance(v, str) for v in readings.values()):
        raise RulecheckError("`readings` maps reading names to options", item.value_loc("readings") if "readings" in item else item.loc)
    clauses = item.get("clauses", [])
    variants = item.get("variants")
    return Scenario(
        id=str(item["id"]), says=str(item.get("says", "")),
        clauses=(clauses,) if isinstance(clauses, str) else tuple(str(c) for c in clauses),
        variants=None if variants is None else ((variants,) if isinstance(variants, str) else tuple(str(v) for v in variants)),
        readings={str(k): str(v) for k, v in readings.items()},
        start=(item["start"], item.value_loc("start")) if "start" in item else None,
        steps=tuple(_step(step, steps.item_loc(i)) for i, step in enumerate(steps)),
        reaches=(item["reaches"], item.value_loc("reaches")), loc=item.loc,
    )


def _step(raw: object, loc: Loc) -> ScenarioStep:
    if isinstance(raw, str):
        return ScenarioStep(raw, {}, loc)
    if isinstance(raw, YMap) and len(raw) == 1:
        (action, params), = raw.items()
        if params is None:
            params = {}
        if isinstance(params, dict):
            return ScenarioStep(str(action), {str(k): v for k, v in params.items()}, loc)
    raise RulecheckError("a step is an action's name, or `action: {param: value, ...}`", loc, repr(raw)[:60])


def bind_scenario(scenario: Scenario, model: Model) -> BoundScenario:
    """Check a scenario's names and expressions against one model."""
    for name, option in scenario.readings.items():
        if name not in model.readings:
            raise RulecheckError(f"scenario `{scenario.id}` names an unknown reading `{name}`", scenario.loc, name, did_you_mean(name, model.readings))
        if option not in model.readings[name].options:
            raise RulecheckError(f"scenario `{scenario.id}`: `{option}` is not an option of reading `{name}`", scenario.loc, option, f"options: {', '.join(model.readings[name].options)}")
    for cid in scenario.clauses:
        if cid not in model.clauses:
            raise RulecheckError(f"scenario `{scenario.id}` cites an unknown clause `{cid}`", scenario.loc, cid, did_you_mean(cid, model.clauses))
    for step in scenario.steps:
        action = model.actions.get(step.action)
        if action is None:
            raise RulecheckError(f"scenario `{scenario.id}`: unknown action `{step.action}` (model `{model.id}`)", step.loc, step.action, did_you_mean(step.action, model.actions))
        domains = dict(action.params)
        for name, value in step.params.items():
            if name not in domains:
                raise RulecheckError(f"scenario `{scenario.id}`: action `{step.action}` has no parameter `{name}`", step.loc, name, did_you_mean(name, domains) or f"parameters: {', '.join(domains) or 'none'}")
            if not domains[name].contains(value):
                raise RulecheckError(f"scenario `{scenario.id}`: `{value}` is not a value of `{name}` ({domains[name].name})", step.loc, str(value))
    start = check_expr(model.scope, *scenario.start, BOOL) if scenario.start is not None else None
    return BoundScenario(scenario, start, check_expr(model.scope, *scenario.reaches, BOOL))
