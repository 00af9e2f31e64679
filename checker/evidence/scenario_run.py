"""Playing a suite's scenarios in the reference interpreter.

A scenario passes when, from some initial state (those satisfying its `start`), its steps can be
taken one after another and the last state satisfies `reaches`. A step that fixes only some of
an action's parameters may be any of the moves that agree with it, so the play is followed as a
set of states, which stays small: a scenario names its moves. When a step is enabled in none of
them, the failure names that step (its file, line and column), the steps before it, and what
the rules do allow there.
"""

from __future__ import annotations

from dataclasses import dataclass

from checker.errors import Loc, ModellingError
from checker.lang.interp import Interpreter, State, Transition, freeze
from checker.lang.model import Config, Model
from checker.lang.scenarios import BoundScenario, ScenarioStep


@dataclass
class ScenarioResult:
    model: Model
    config: Config
    scenario: BoundScenario
    passed: bool
    message: str = ""  # why it failed, in words
    loc: Loc | None = None  # where the failure is written: the step not enabled, or `reaches`

    @property
    def id(self) -> str:
        return self.scenario.scenario.id

    def located(self) -> str:
        where = f"{self.loc}: " if self.loc else ""
        label = f"{self.model.folder}/{self.model.id} [{self.config.reading_label(self.model)}]"
        return f"{where}scenario `{self.id}` fails ({label}): {self.message}"

    def to_json(self) -> dict[str, object]:
        return {"game": self.model.folder, "variant": self.model.id, "reading": self.config.reading_label(self.model),
                "scenario": self.id, "passed": self.passed, "message": self.message, "at": str(self.loc) if self.loc else None}


def matches(move: Transition, step: ScenarioStep) -> bool:
    params = dict(move.params)
    return move.action == step.action and all(str(params[k]) == str(v) for k, v in step.params.items())


def run_scenario(model: Model, config: Config, bound: BoundScenario) -> ScenarioResult:
    """Play the scenario under `config`; the result says whether it passes and, if not, why."""
    interp = Interpreter(model, config)
    scenario = bound.scenario
    states: list[State] = [s for s in interp.initial_states() if bound.start is None or interp.eval(bound.start, s)]
    if not states:
        return ScenarioResult(model, config, bound, False, "no initial state satisfies its `start`", scenario.start[1] if scenario.start else scenario.loc)
    for number, step in enumerate(scenario.steps, start=1):
        following: dict[tuple, State] = {}
        for state in states:
            try:
                moves = interp.transitions(state)
            except ModellingError as exc:
                return ScenarioResult(model, config, bound, False, f"step {number}: the model raises a modelling error before it: {exc.message}", step.loc)
            for move in moves:
                if matches(move, step):
                    following.setdefault(freeze(move.post), move.post)
        if not following:
            return ScenarioResult(model, config, bound, False, not_enabled(interp, scenario.steps[: number - 1], step, number, states[0]), step.loc)
        states = list(following.values())
    if any(interp.eval(bound.reaches, s) for s in states):
        return ScenarioResult(model, config, bound, True)
    text = scenario.reaches[0]
    return ScenarioResult(model, config, bound, False, f"after its {len(scenario.steps)} step(s), `reaches` is false (`{text}`) in every state the play can end in", scenario.reaches[1])


def not_enabled(interp: Interpreter, before: tuple[ScenarioStep, ...], step: ScenarioStep, number: int, state: State) -> str:
    """The words for a step no state of the play allows: what came before and what is allowed."""
    if interp.terminal(state):
        allowed = "none: the game is over"
    else:
        moves = interp.transitions(state)
        allowed = ", ".join(dict.fromkeys(f"{m.action}({', '.join(f'{k}={v}' for k, v in m.params)})" for m in moves)) or "none: the game is stuck"
    after = "from the initial state" if not before else "after " + " -> ".join(s.label() for s in before)
    return f"step {number}, `{step.label()}`, is not enabled {after}; the rules allow: {allowed}"


def scenario_results(model: Model, config: Config, scenarios: list[BoundScenario]) -> list[ScenarioResult]:
    return [run_scenario(model, config.with_readings(b.scenario.readings), b) for b in scenarios]
