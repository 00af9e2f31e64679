"""What `rulecheck play` shows at a position: the state in players' words, the legal moves with
their clauses and chances, the properties the position breaks, where the readings part, and a
suggested move.

A position is named by what led to it, never stored: the model, the readings, the initial state
(its number among the model's initial states) and the moves taken, each by its action and
parameters. Every request replays that path in the reference interpreter, so the server holds
no game state, undo and redo are the page's own, a position is a link that can be shared, and
a path that a changed reading no longer allows is cut at the first move it forbids, with the
reason. The interpreter is the semantics every engine is held to: what the page offers is what
the checker explores.
"""

from __future__ import annotations

import json
import random
import time
from dataclasses import dataclass, field
from typing import Any

from checker.engines.game_graph import attractor, outcome_labels, win_labels
from checker.engines.statespace import StateSpace, explore_space
from checker.errors import ModellingError, RulecheckError
from checker.evidence.trace import (
    Step,
    config_from_json,
    display_info,
    jsonable_constants,
    make_step,
    shown_changes,
    shown_state,
    state_from_json,
)
from checker.lang.compile import CompiledModel
from checker.lang.interp import Interpreter, State, Transition, freeze
from checker.lang.model import Config, Model
from checker.lang.properties import Property, bind, properties_for

SUGGEST_STATES = 200_000  # the largest game whose whole graph is explored for perfect play
SUGGEST_SECONDS = 60.0
DIFFERS_SHOWN = 6  # moves listed per side where two options of a reading part
WATCHED = ("invariant", "unreachable", "reachable", "after", "deadlock-free", "deterministic", "terminates")  # what one play can show
OFFLINE_STATES = 5_000  # the largest game a report page embeds to play without a server
OFFLINE_SECONDS = 30.0
KEPT_SETUPS = 32  # interpreters (and their initial states) kept, by model and configuration


@dataclass(frozen=True)
class Request:
    """A position: the model, the readings and constants that differ from its defaults (the
    constants as canonical JSON, tables keyed `a/b` as traces write them), the initial state's
    number and the moves taken (`move_key` of each)."""

    model: str
    readings: tuple[tuple[str, str], ...] = ()
    constants: str = "{}"
    init: int = 0
    moves: tuple[str, ...] = ()

    @staticmethod
    def parse(query: dict[str, list[str]]) -> Request:
        """From a page's query string: `model`, `init`, `r.NAME=OPTION` per reading, `c` (the
        constants, JSON) and `moves` (JSON, a list of move keys)."""
        try:
            moves = tuple(json.loads(query.get("moves", ["[]"])[0]))
            constants = json.loads(query.get("c", ["{}"])[0])
            init = int(query.get("init", ["0"])[0])
        except (ValueError, TypeError) as exc:
            raise RulecheckError(f"a malformed position: {exc}") from exc
        if not all(isinstance(m, str) for m in moves) or not isinstance(constants, dict):
            raise RulecheckError("a malformed position: `moves` must be a list of move keys and `c` an object of constants")
        readings = tuple(sorted((k[2:], v[0]) for k, v in query.items() if k.startswith("r.")))
        return Request(query.get("model", [""])[0], readings, _canonical(constants), init, moves)

    def query(self) -> dict[str, str]:
        """The query string that names this position (the inverse of `parse`)."""
        out = {"model": self.model, "init": str(self.init), "moves": json.dumps(list(self.moves), separators=(",", ":"))}
        if self.constants != "{}":
            out["c"] = self.constants
        out.update({f"r.{name}": option for name, option in self.readings})
        return out


def _canonical(constants: dict[str, Any]) -> str:
    return json.dumps(constants, sort_keys=True, separators=(",", ":"))


def move_key(move: Transition) -> str:
    """A move's name across readings and replays: its action and parameter values."""
    return json.dumps([move.action, {k: v for k, v in move.params}], sort_keys=True, separators=(",", ":"))


@dataclass
class _Setup:
    model: Model
    config: Config
    interp: Interpreter
    initial: list[State]
    space: StateSpace | None = None  # the whole game, explored on the first `suggest`
    won: dict[int, Any] = field(default_factory=dict)  # per side: the attractor order of its wins


class PlayGame:
    """The models of one game folder, their properties, and the positions asked of them."""

    def __init__(self, folder: str, models: list[Model], suite: list[Property]) -> None:
        self.folder = folder
        self.models = {m.id: m for m in models if not m.abstract}
        if not self.models:
            raise RulecheckError(f"no playable model in {folder} (every model found is abstract)")
        self.properties = {mid: [b for b in (bind(p, m) for p in properties_for(m, suite)) if b.kind in WATCHED] for mid, m in self.models.items()}
        self._setups: dict[tuple, _Setup] = {}

    # -- the game ------------------------------------------------------------------------------
    def describe(self) -> dict[str, Any]:
        """The models and their readings, for the page's choices."""
        return {"game": self.folder, "models": [{
            "id": mid, "game": model.game,
            "readings": [{"name": r.name, "question": r.question, "default": r.default, "options": r.options} for r in model.readings.values()],
            "initial": len(self.setup(mid, ()).initial),
        } for mid, model in self.models.items()]}

    def setup(self, model_id: str, readings: tuple[tuple[str, str], ...], constants: str = "{}") -> _Setup:
        model = self.models.get(model_id)
        if model is None:
            raise RulecheckError(f"no model `{model_id}` in {self.folder}", hint=f"models: {', '.join(self.models)}")
        for name, option in readings:
            if name not in model.readings:
                raise RulecheckError(f"model `{model_id}` has no reading `{name}`", hint=f"readings: {', '.join(model.readings) or 'none'}")
            if option not in model.readings[name].options:
                raise RulecheckError(f"`{option}` is not an option of `{name}`", hint=f"options: {', '.join(model.readings[name].options)}")
        readings = tuple(sorted((name, option) for name, option in readings if option != model.readings[name].default))
        key = (model_id, readings, constants)
        setup = self._setups.pop(key, None)
        if setup is None:
            config = _config(model, readings, constants)
            interp = Interpreter(model, config)
            setup = _Setup(model, config, interp, interp.initial_states())
        self._setups[key] = setup  # the most recent last
        while len(self._setups) > KEPT_SETUPS:
            del self._setups[next(iter(self._setups))]
        return setup

    # -- a position ----------------------------------------------------------------------------
    def _replay(self, request: Request) -> tuple[_Setup, list[State], list[Step], dict[str, Any] | None]:
        """The states and steps of the request's path, and where the path stopped short (the
        first move the readings do not allow there), if it did."""
        setup = self.setup(request.model, request.readings, request.constants)
        if not 0 <= request.init < len(setup.initial):
            raise RulecheckError(f"initial state {request.init} does not exist: the model has {len(setup.initial)}")
        states: list[State] = [setup.initial[request.init]]
        steps: list[Step] = []
        for number, key in enumerate(request.moves, start=1):
            move = next((m for m in setup.interp.transitions(states[-1]) if move_key(m) == key), None)
            if move is None:
                action = json.loads(key)[0] if key.startswith("[") else key
                return setup, states, steps, {"step": number, "action": action, "why": f"move {number} (`{action}`) is not a legal move there under these readings"}
            steps.append(make_step(setup.interp, move, states[-1]))
            states.append(move.post)
        return setup, states, steps, None

    def position(self, request: Request) -> dict[str, Any]:
        """Everything the page shows at a position (JSON-ready)."""
        setup, states, steps, cut = self._replay(request)
        model, interp, state = setup.model, setup.interp, states[-1]
        display = display_info(model)
        terminal = interp.terminal(state)
        error = None
        try:
            moves = [] if terminal else interp.transitions(state)
        except ModellingError as exc:
            moves, error = [], exc.located()
        history = [{"key": request.moves[i], "text": s.text, "by": _mover(model, s.actor), "after": self._after(setup, states[i], s)}
                   for i, s in enumerate(steps)]
        shows = [self._shows(setup, s, None if i < len(states) - 1 else moves) for i, s in enumerate(states)]
        frozen = [freeze(s) for s in states]
        return {
            "model": model.id, "readings": dict(setup.config.readings), "constants": request.constants, "init": request.init, "initial": len(setup.initial),
            "moves_taken": [h["key"] for h in history], "history": history, "cut": cut,
            "state": shown_state(display, model.piles, state),
            "changed": [c[0] for c in shown_changes(display, steps[-1].changes)] if steps else [],
            "terminal": terminal,
            "outcome": str(interp.eval(model.outcome, state)) if terminal and model.outcome is not None else None,
            "moves": self._moves(setup, state, moves),
            "error": error,
            "properties": self.watched(model.id), "shows": shows, "same_as": [frozen.index(f) for f in frozen],
        }

    def watched(self, model_id: str) -> list[dict[str, str]]:
        """The properties a play can show at a position, in the suite's order."""
        return [{"id": p.id, "kind": p.kind, "says": p.prop.says} for p in self.properties[model_id]]

    def _shows(self, setup: _Setup, state: State, moves: list[Transition] | None) -> list[str]:
        """The properties `state` itself shows: an invariant it breaks, an `unreachable` or
        `reachable` it satisfies, no legal move though the game is not over, forced rules that
        disagree. (The page works out what a whole play shows from these, per state, and from
        each step's `_after`: a break earlier in the play, a return to an earlier position.)"""
        interp = setup.interp
        terminal = interp.terminal(state)
        if moves is None:
            try:
                moves = [] if terminal else interp.transitions(state)
            except ModellingError:
                moves = []
        out = []
        for prop in self.properties[setup.model.id]:
            if prop.kind in ("invariant", "unreachable", "reachable"):
                assert prop.expr is not None  # a state property has its expression
                hit = bool(interp.eval(prop.expr, state)) == (prop.kind != "invariant")
            elif prop.kind == "deadlock-free":
                hit = not terminal and not moves
            elif prop.kind == "deterministic":
                hit = len({freeze(m.post) for m in moves if m.actor == "rules"}) > 1
            else:
                continue
            if hit:
                out.append(prop.id)
        return out

    def _after(self, setup: _Setup, pre: State, step: Step) -> list[str]:
        """The `after` properties a step breaks (each reads the step's parameters and `old`)."""
        interp = setup.interp
        return [p.id for p in self.properties[setup.model.id] if p.kind == "after" and p.action == step.action and p.expr is not None
                and not interp.eval(p.expr, step.state, step.params, pre)]

    def _moves(self, setup: _Setup, state: State, moves: list[Transition]) -> list[dict[str, Any]]:
        model, interp = setup.model, setup.interp
        chance = [m for m in moves if m.actor == "chance"]
        weights = {id(m): _weight(interp, m, state) for m in chance}
        total = sum(weights.values())
        out = []
        for move in moves:
            step = make_step(interp, move, state)
            entry: dict[str, Any] = {
                "key": move_key(move), "by": _mover(model, move.actor), "actor": move.actor, "text": step.text,
                "clauses": [{"id": cid, "at": step.places.get(cid, ""), "says": says} for cid, says in step.clauses],
                "changes": shown_changes(display_info(model), step.changes), "after": self._after(setup, state, step),
            }
            if move.actor == "chance":
                entry["probability"] = weights[id(move)] / total if total else 1 / len(chance)
            out.append(entry)
        return out

    # -- a whole game, for a page without a server ----------------------------------------------
    def whole_game(self, request: Request, max_states: int = OFFLINE_STATES, seconds: float = OFFLINE_SECONDS) -> dict[str, Any] | None:
        """Every reachable position of the request's configuration with its moves, as the server
        would answer for it (None past `max_states` states or `seconds`, or at a modelling
        error): the HTML report embeds it so that the same page plays without a server. The
        state tables share one list of names and one of values."""
        setup = self.setup(request.model, request.readings, request.constants)
        model, interp = setup.model, setup.interp
        display = display_info(model)
        index = {freeze(s): i for i, s in reversed(list(enumerate(setup.initial)))}
        states = list(setup.initial)
        names: dict[str, int] = {}
        values: dict[str, int] = {}
        nodes = []
        deadline = time.monotonic() + seconds
        for state in states:  # grows as new states are met: breadth first
            if len(states) > max_states or time.monotonic() > deadline:
                return None
            terminal = interp.terminal(state)
            try:
                moves = [] if terminal else interp.transitions(state)
            except ModellingError:
                return None
            entries = self._moves(setup, state, moves)
            for entry, move in zip(entries, moves):
                entry["to"] = index.setdefault(freeze(move.post), len(states))
                if entry["to"] == len(states):
                    states.append(move.post)
            shown = shown_state(display, model.piles, state)
            nodes.append({
                "state": [[names.setdefault(k, len(names)), values.setdefault(v, len(values))] for k, v in shown.items()],
                "shows": self._shows(setup, state, moves), "terminal": terminal, "moves": entries,
                "outcome": str(interp.eval(model.outcome, state)) if terminal and model.outcome is not None else None,
            })
        described = next(m for m in self.describe()["models"] if m["id"] == model.id)
        return {"game": {"game": self.folder, "models": [described]}, "model": model.id, "readings": dict(setup.config.readings),
                "constants": request.constants, "initial": [index[freeze(s)] for s in setup.initial], "names": list(names),
                "values": list(values), "nodes": nodes, "properties": self.watched(model.id)}

    # -- the readings --------------------------------------------------------------------------
    def differs(self, request: Request) -> list[dict[str, Any]]:
        """Per option of each reading (other than the position's own): the moves from this
        position that only one of the two readings allows (or whose result differs)."""
        setup, states, _, _ = self._replay(request)
        state, here = states[-1], setup.config.readings
        mine = self._move_set(setup, state)
        out = []
        for reading in setup.model.readings.values():
            for option, says in reading.options.items():
                if option == here[reading.name]:
                    continue
                chosen = {**dict(request.readings), reading.name: option}
                other = self.setup(request.model, tuple(sorted(chosen.items())), request.constants)
                theirs = self._move_set(other, state)
                only_here = [text for key, text in mine.items() if key not in theirs]
                only_there = [text for key, text in theirs.items() if key not in mine]
                if only_here or only_there:
                    out.append({"reading": reading.name, "option": option, "says": says,
                                "only_here": only_here[:DIFFERS_SHOWN], "only_there": only_there[:DIFFERS_SHOWN],
                                "more": max(0, len(only_here) - DIFFERS_SHOWN) + max(0, len(only_there) - DIFFERS_SHOWN)})
        return out

    @staticmethod
    def _move_set(setup: _Setup, state: State) -> dict[tuple, str]:
        """The moves from `state` by key and result, with their texts (a modelling error is a
        move of its own: the position breaks under that reading)."""
        interp = setup.interp
        try:
            if interp.terminal(state):
                return {("the game is over",): "the game is over"}
            return {(move_key(m), freeze(m.post)): make_step(interp, m, state).text for m in interp.transitions(state)}
        except ModellingError as exc:
            return {("error", exc.message): f"a modelling error: {exc.message}"}

    # -- a suggestion --------------------------------------------------------------------------
    def suggest(self, request: Request, seed: int = 0) -> dict[str, Any]:
        """The move perfect play makes here, where the whole game fits in `SUGGEST_STATES` and a
        side can force a win from the position; otherwise a random legal move, saying why."""
        setup, states, _, _ = self._replay(request)
        state, interp = states[-1], setup.interp
        moves = [] if interp.terminal(state) else interp.transitions(state)
        if not moves:
            return {"key": None, "why": "no move to suggest: nothing is legal here"}
        space = self._space(setup)
        if space is not None and space.complete:
            node = space.index.get(space.compiled.layout.pack(state))
            if node is not None:
                found = self._perfect(setup, space, node, moves)
                if found is not None:
                    return found
        pick = random.Random(f"{seed}:{request}").choice(moves)
        why = (f"a random legal move: the whole game was not explored for perfect play ({space.bound_text() if space else 'not explorable'})"
               if space is None or not space.complete else "a random legal move: no side can force a win from here")
        return {"key": move_key(pick), "why": why}

    def _space(self, setup: _Setup) -> StateSpace | None:
        if setup.space is None:
            try:
                setup.space = explore_space(CompiledModel(setup.model, setup.config, lazy=True), max_states=SUGGEST_STATES, timeout=SUGGEST_SECONDS)
            except (RulecheckError, ModellingError):
                return None
        return setup.space

    def _perfect(self, setup: _Setup, space: StateSpace, node: int, moves: list[Transition]) -> dict[str, Any] | None:
        """The winning move of a side that can force a win from `node` and moves here, or the
        move that holds out longest against a side that can."""
        players = list(setup.model.domains["player"].members or ()) if "player" in setup.model.domains else []
        if not players:
            return None
        if not setup.won:
            labels = outcome_labels(space)
            wins = win_labels(players, {label for label in labels if label is not None})
            for side, player in enumerate(players):
                goal = {n for n, label in enumerate(labels) if label in wins.get(player, set())}
                setup.won[side] = attractor(space, goal, side, chance_cooperative=False)
        after = {freeze(m.post): m for m in moves}
        targets = {}
        for edge in space.moves(node):
            target = space.targets[edge]
            move = after.get(freeze(space.compiled.layout.unpack(space.states_at([target])[0])))
            if move is not None:
                targets[move_key(move)] = (move, target)
        for side, player in enumerate(players):
            order = setup.won[side]
            if order[node] < 0:
                continue
            shown = setup.model.display("player", player)
            mine = [(order[t], key) for key, (m, t) in targets.items() if m.actor == player and order[t] >= 0]
            if mine:
                return {"key": min(mine)[1], "why": f"perfect play: {shown} can force a win from here, and this move keeps it"}
            resisting = [(order[t], key) for key, (m, t) in targets.items() if m.actor in players and m.actor != player]
            if resisting:
                return {"key": max(resisting)[1], "why": f"{shown} can force a win from here whatever is played; this move holds out longest"}
        return None


def _weight(interp: Interpreter, move: Transition, state: State) -> float:
    action = interp.model.actions[move.action]
    return 1.0 if action.weight is None else float(interp.eval(action.weight, state, dict(move.params)))


def _mover(model: Model, actor: str) -> str:
    return {"chance": "Chance", "rules": "The rules"}.get(actor) or model.display("player", actor)


def _config(model: Model, readings: tuple[tuple[str, str], ...], constants: str) -> Config:
    """The configuration a position is played under: the model's defaults, the readings and the
    constants given (named as the model names them, typed as it types them)."""
    given = json.loads(constants)
    for name, value in given.items():
        const = model.constants.get(name)
        if const is None:
            raise RulecheckError(f"model `{model.id}` has no constant `{name}`", hint=f"constants: {', '.join(model.constants) or 'none'}")
        if isinstance(value, dict) != bool(const.dims) or not all(isinstance(v, int) for v in (value.values() if isinstance(value, dict) else [value])):
            raise RulecheckError(f"constant `{name}` must be {'a table of integers keyed a/b' if const.dims else 'an integer'}, not {json.dumps(value)}")
    full = jsonable_constants(model.default_config().constants)
    for name, value in given.items():
        full[name] = {**full[name], **value} if isinstance(value, dict) else value
    try:
        return config_from_json(model, {"constants": full, "readings": dict(readings)})
    except (KeyError, ValueError, IndexError) as exc:
        raise RulecheckError(f"the constants do not fit model `{model.id}`: {exc}") from exc


def request_from_trace(game: PlayGame, doc: dict[str, Any], step: int) -> Request:
    """The position after `step` steps of a saved trace (the trace format's `model`, `readings`,
    `constants`, `initial` and each step's `action` and `params`), matched against the model as
    it is now."""
    model = game.models.get(str(doc.get("model", "")))
    if model is None:
        raise RulecheckError(f"the trace is of model `{doc.get('model')}`, which this game does not have", hint=f"models: {', '.join(game.models)}")
    readings = tuple(sorted((k, v) for k, v in (doc.get("readings") or {}).items() if k in model.readings))
    defaults = jsonable_constants(model.default_config().constants)
    constants = _canonical({k: v for k, v in (doc.get("constants") or {}).items() if k in model.constants and v != defaults.get(k)})
    setup = game.setup(model.id, readings, constants)
    try:
        initial = state_from_json(model, doc["initial"])
    except (KeyError, TypeError, ValueError) as exc:
        raise RulecheckError(f"the trace's initial state does not fit model `{model.id}`: {exc}") from exc
    init = next((i for i, s in enumerate(setup.initial) if s == initial), None)
    if init is None:
        raise RulecheckError(f"the trace's initial state is not an initial state of model `{model.id}` as it is now")
    keys = [json.dumps([s["action"], s.get("params") or {}], sort_keys=True, separators=(",", ":")) for s in doc.get("steps", [])[:max(0, step)]]
    return Request(model.id, tuple((k, v) for k, v in readings if v != model.readings[k].default), constants, init, tuple(keys))
