"""Re-checking saved traces against the current model (`rulecheck verify`, `rulecheck explain`).

A trace file is evidence only while the model still produces it. Each saved trace is rebuilt
from what it records (initial state, each step's action and parameters, the configuration),
replayed in the reference interpreter, and every recorded step is compared with what the model
does now (its changes, its narration, the clauses and assumptions it cites and their texts): a
hand-edited step, a changed rule or clause text, or a stale file shows up as a named difference.
The final situation is then confirmed by the same per-kind check the checker runs before it
reports any trace (`evidence.confirm`).
"""

from __future__ import annotations

import functools
import glob
import os
from typing import Any

from checker.commands.trace_io import load_trace
from checker.errors import Loc, ModellingError, RulecheckError
from checker.evidence.confirm import confirm
from checker.evidence.trace import ReplayMismatch, Step, Trace, changes, make_step, step_json
from checker.lang.build import load_model
from checker.lang.interp import Interpreter, State, Transition
from checker.lang.loader import model_files
from checker.lang.model import Config, Model
from checker.lang.piles import lengths_of, unfold
from checker.lang.properties import bind, load_suite, properties_for, suite_path
from checker.report.evidence_files import SHARED_FILE


class StaleTrace(Exception):
    """The saved trace does not match what the current model does."""


class NoModelFolder(RulecheckError):
    """The trace's game folder is not under the models directory (nothing to verify against)."""


def trace_files(paths: list[str]) -> list[str]:
    """The trace files (`*.json`, not ITF) under the given files or folders."""
    found: list[str] = []
    for path in paths:
        if os.path.isdir(path):
            found += [p for p in glob.glob(os.path.join(path, "**", "*.json"), recursive=True) if not p.endswith(".itf.json") and os.path.basename(p) != SHARED_FILE]
        elif os.path.isfile(path):
            found.append(path)
        else:
            raise RulecheckError(f"no such file or folder: {path}")
    return sorted(found)


def verify_trace(path: str, models_dir: str) -> str:
    """Check one saved trace; returns a one-line summary, raises StaleTrace if it is not
    what the model does now, RulecheckError if the file is not a readable trace."""
    doc = load_trace(path)
    where = Loc(path, 1, 1)
    try:
        model = _find_model(doc, path, models_dir)
        config = _config(model, doc)
        prop = _property(model, doc["property"]["id"])
        interp = Interpreter(model, config)
        initial = _state(model, doc["initial"])
        steps_doc = doc["steps"]
        branches_doc = doc.get("branches", [])
        shape, loop_start = doc["shape"], doc.get("loop_start")
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise RulecheckError(f"not a valid rulecheck trace: {type(exc).__name__} {exc}", where) from None
    if not interp.is_initial(initial):
        raise StaleTrace("its initial state is not an initial state of the model")
    steps = []
    state = initial
    for number, step in enumerate(steps_doc, start=1):
        move = _replay_step(interp, state, step, number)
        steps.append(make_step(interp, move, state))
        _check_citations(step, steps[-1], number)
        state = move.post
    trace = Trace(
        game=model.game, model=model.id, property_id=prop.id, property_kind=prop.kind, says=prop.prop.says,
        config=config, reading_label=config.reading_label(model), initial=initial, steps=steps, shape=shape,
        loop_start=loop_start, note=str(doc.get("note", "")),
    )
    branches = tuple((str(b["action"]), dict(b["params"])) for b in branches_doc)
    try:
        confirm(interp, prop, trace, branches)
    except ReplayMismatch as exc:
        raise StaleTrace(str(exc)) from None
    except ModellingError as exc:
        raise StaleTrace(f"the model raises a modelling error where the trace records none: {exc.message}") from None
    return f"{prop.id} ({prop.kind}, {shape}, {len(steps)} steps): confirmed"


def _replay_step(interp: Interpreter, pre: State, step: dict[str, Any], number: int) -> Transition:
    """The model's move that the recorded step claims, with exactly the recorded changes."""
    action, params = str(step["action"]), dict(step["params"])
    try:
        moves = interp.transitions(pre)
    except ModellingError as exc:
        raise StaleTrace(f"step {number}: the model raises a modelling error before it: {exc.message}") from None
    move = next((m for m in moves if m.action == action and {k: str(v) for k, v in m.params} == {k: str(v) for k, v in params.items()}), None)
    if move is None:
        raise StaleTrace(f"step {number}: `{action}` with {params or 'no parameters'} is not an enabled move there")
    recorded = [(str(c["element"]), c["before"], c["after"]) for c in step["changes"]]
    actual = [(name, before, after) for name, before, after in changes(pre, move.post, lengths_of(interp.model.piles))]
    if recorded != actual:
        differ = sorted(set(map(str, recorded)) ^ set(map(str, actual)))
        raise StaleTrace(f"step {number} (`{action}`): the recorded changes are not what the model does now ({'; '.join(differ)[:200]})")
    return move


def _check_citations(recorded: dict[str, Any], step: Step, number: int) -> None:
    """The saved step says what the step says now: its narration, the clauses and assumptions
    it cites with their texts (an evidence file keeps those texts in the game's shared.json),
    and the slots it shows as what decided it."""
    now = step_json(step)
    for key in ("text", "clauses", "assumptions", "decided_by"):
        if recorded.get(key, []) != now[key]:
            raise StaleTrace(f"step {number} (`{step.action}`): recorded {key} {str(recorded.get(key))[:100]}, the model gives {str(now[key])[:100]} now")


def _find_model(doc: dict[str, Any], path: str, models_dir: str) -> Model:
    folder = os.path.basename(os.path.dirname(os.path.abspath(path)))
    game_dir = os.path.join(models_dir, folder)
    if not os.path.isdir(game_dir):
        raise NoModelFolder(f"no game folder `{game_dir}` for this trace", Loc(path, 1, 1), hint="run from the project root, or pass --models-dir")
    for model in _models(game_dir):
        if model.id == doc["model"]:
            return model
    raise StaleTrace(f"model `{doc['model']}` no longer exists in {game_dir}")


@functools.cache
def _models(game_dir: str) -> tuple[Model, ...]:
    """The game's models, loaded once for all the traces verified in one run."""
    return tuple(load_model(file) for file in model_files([game_dir]))


@functools.cache
def _suite(model_path: str) -> tuple:
    return tuple(load_suite(suite_path(model_path)))


def _config(model: Model, doc: dict[str, Any]) -> Config:
    base = model.default_config()
    readings = dict(base.readings)
    for name, option in doc["readings"].items():
        if name not in model.readings or option not in model.readings[name].options:
            raise StaleTrace(f"reading {name}={option} no longer exists in the model")
        readings[name] = option
    constants = dict(base.constants)
    for name, value in doc["constants"].items():
        if name not in model.constants:
            raise StaleTrace(f"constant `{name}` no longer exists in the model")
        const = model.constants[name]
        constants[name] = {_key(const.dims, k): v for k, v in value.items()} if const.is_table else value
    return Config(constants, readings)


def _key(dims: tuple, text: str) -> tuple:
    parts = text.split("/")
    if len(parts) != len(dims):
        raise ValueError(f"index `{text}` does not fit {len(dims)} dimension(s)")
    return tuple(part if dom.is_enum else int(part) for part, dom in zip(parts, dims))


def _state(model: Model, raw: dict[str, Any]) -> State:
    """A recorded state as the interpreter's (piles are recorded as lists, top first)."""
    lengths = lengths_of(model.piles)
    shown_slots = [name for name in model.slots if name not in lengths.values()]
    if set(raw) != set(shown_slots):
        raise StaleTrace(f"its state has slots {sorted(set(raw) ^ set(shown_slots))} that the model does not (or the other way round)")
    state: State = {}
    for name in shown_slots:
        slot, value = model.slots[name], raw[name]
        dims = slot.dims[:-1] if name in lengths else slot.dims
        state[name] = {_key(dims, k): v for k, v in value.items()} if dims else value
        if name in lengths:
            for cards in state[name].values() if dims else [value]:
                if not isinstance(cards, list) or len(cards) > model.piles[name].size:
                    raise StaleTrace(f"pile `{name}` is recorded as {str(cards)[:60]}, not a list of at most {model.piles[name].size} cards")
    return unfold(model.piles, state)


def _property(model: Model, pid: str):
    for prop in properties_for(model, list(_suite(model.path))):
        if prop.id == pid:
            return bind(prop, model)
    raise StaleTrace(f"property `{pid}` no longer exists for model `{model.id}`")

