"""Findings played again at the document's own size.

Every bundled model is a miniature: its scaled constants (`document:` beside a smaller
default) are what exhaustive exploration can afford. A finding is about the rules only if it
also happens in the game the document describes. For every filed finding (not those filed as
bound artefacts) this plays its representative failure's property (`growth.representative`)
with every scaled constant at the document's value and every invented size (a `bound` the
document prints no number for, `plausible: [lo, hi]`) at the middle of its plausible range
(an 80-card deck whose composition the document leaves to the designer is played at a
composition of that size, not at the miniature's), everything else as in the representative:

- `GAMES` seeded random games (`witness.sample_violation`: each mover equally likely, chance by
  weight, a player's options uniform; loops closed as lassos, a stuck region explored from its
  candidate state), counting those that meet a violation: how often the finding arises in play;
- where none does, walks guided by the small game's counterexample (each step takes the next
  action of that trace, over again from its first once it is used up, where it is legal), to
  show a rare violation exists at full size;
- every violation shown is replayed in the reference interpreter (`witness.confirm`).

Kinds whose failure needs the whole game (`reachable`, coverage, `value`) are not played. The
outcomes are attached to the finding's failures (`Result.sizes`) and cached like the growth
re-check's (`caches.content_key`; the violation as its packed states, replayed again on read).
"""

from __future__ import annotations

import os
from dataclasses import replace
from typing import Any

from checker.analysis.witness import SEED, Sampled, confirm, sample_violation, searchable
from checker.errors import RulecheckError
from checker.evidence.results import Result
from checker.evidence.size_check import SizeCheck
from checker.lang import caches
from checker.lang.model import Config, Model
from checker.lang.properties import bind
from checker.pipeline.dispatch import Pool, SerialPool, run_in_order
from checker.pipeline.growth import filed_entries, representative

GAMES = 200  # seeded random games per finding at the document's size
MAX_STATES = 100_000  # states the games and guided walks of one finding step through at most
MIN_LENGTH = 2_000  # steps a full-size game is played for at most (at least this; 20 x the small game's depth)
CACHE_DIR = caches.PROJECT_DIR


def document_constants(model: Model) -> dict[str, Any]:
    """The scaled constants at the values the document prints (`Constant.scaled`)."""
    return {name: const.document for name, const in model.constants.items() if const.scaled}


def invented_sizes(model: Model) -> dict[str, int]:
    """The invented scalar sizes at the middle of their plausible range, where that differs
    from the default (`Constant.invented`, `bound`)."""
    middle = {}
    for name, const in model.constants.items():
        if const.bound and const.invented and not const.is_table and const.document is None:
            assert const.plausible is not None
            value = (const.plausible[0] + const.plausible[1]) // 2
            if value != const.default:
                middle[name] = value
    return middle


def sizes_in_words(constants: dict[str, Any]) -> tuple[str, ...]:
    """Constants as a page names them: "hand_size 8", a table's cells one by one."""
    shown = []
    for name, value in constants.items():
        if isinstance(value, dict):
            shown += [f"{name}[{']['.join(map(str, key))}] {cell}" for key, cell in value.items()]
        else:
            shown.append(f"{name} {value}")
    return tuple(shown)


def size_checks(results: list[Result], cache_dir: str | None = CACHE_DIR, pool: Pool | None = None, games: int = GAMES,
                max_states: int = MAX_STATES) -> list[SizeCheck]:
    """Play every filed finding at the document's size (`games` seeded games, `max_states` in
    all per finding), in `pool`'s workers when given; attach the outcomes to the finding's failures."""
    items: list[tuple[str, Result, str | None, int, int]] = []
    entries = filed_entries(results)
    items += [(entry.id, representative(entry), cache_dir, games, max_states) for entry in entries]
    if not items:
        return []
    out = run_in_order(_check_one, items, pool if pool is not None else SerialPool())
    for entry, check in zip(entries, out, strict=True):
        for r in entry.results:
            r.sizes = (*r.sizes, check)
    return out


def _check_one(item: tuple[str, Result, str | None, int, int]) -> SizeCheck:
    """One finding at full size, as a job of a pool (module level: it is pickled)."""
    finding, result, cache_dir, games, max_states = item
    model = result.model
    printed, middle = document_constants(model), invented_sizes(model)
    constants = {**printed, **middle}
    base = SizeCheck(finding, model.id, result.prop.id, result.reading_label, sizes_in_words(printed), invented=sizes_in_words(middle))
    prop = bind(result.prop, model)
    if not constants:
        silent = [name for name, const in model.constants.items() if const.bound and const.document is None and not const.invented]
        if silent:
            return replace(base, reason=f"the model gives no document value (`document:`) for its bounds {', '.join(silent)}")
        return replace(base, reason="the checked game is the document's size: no constant is scaled down")
    if not searchable(prop):
        return replace(base, reason=f"a `{prop.kind}` failure needs the whole game explored, which the document's size does not allow")
    config = Config({**result.config.constants, **constants}, result.config.readings)
    guide = tuple(step.action for step in result.trace.steps) if result.trace is not None else ()
    length = max(MIN_LENGTH, 20 * result.depth)
    path = _cache_path(cache_dir, finding, result, config, games, max_states)
    doc = caches.read_json(path)
    try:
        sampled = _from_json(doc) if doc is not None else sample_violation(model, config, prop, games, max_states, length, guide, SEED)
    except RulecheckError as exc:
        return replace(base, reason=f"the model cannot be played at the document's size: {exc.message}")
    except (KeyError, TypeError, ValueError):  # an unreadable cache entry
        sampled = sample_violation(model, config, prop, games, max_states, length, guide, SEED)
    if doc is None:
        caches.write_json(path, _to_json(sampled))
    if sampled.errors and sampled.errors == sampled.games:
        return replace(base, reason=f"every full-size game stops at a modelling error: {sampled.error}")
    trace = None
    if sampled.found is not None:
        search = confirm(model, config, prop, sampled.found, sampled.states)
        if search.trace is None:
            return replace(base, reason=f"the full-size violation was refused: {search.refused}")
        trace = search.trace
    return replace(base, games=sampled.games, hits=sampled.hits, states=sampled.states, trace=trace, guided=sampled.guided)


def _to_json(sampled: Sampled) -> dict[str, Any]:
    return {"games": sampled.games, "hits": sampled.hits, "states": sampled.states, "found": sampled.found, "guided": sampled.guided,
            "errors": sampled.errors, "error": sampled.error}


def _from_json(doc: dict[str, Any]) -> Sampled:
    return Sampled(int(doc["games"]), int(doc["hits"]), int(doc["states"]), doc["found"], bool(doc["guided"]), int(doc["errors"]), str(doc["error"]))


def _cache_path(cache_dir: str | None, finding: str, result: Result, config: Config, games: int, max_states: int) -> str | None:
    if cache_dir is None or not caches.cacheable(result.model):
        return None
    key = caches.content_key("size-1", result.model, finding, caches.digest_of(result.prop), sorted(config.readings.items()),
                             sorted((k, repr(v)) for k, v in config.constants.items()), games, max_states, MIN_LENGTH, SEED,
                             result.depth, [s.action for s in result.trace.steps] if result.trace else [], length=24)
    return os.path.join(cache_dir, f"size-{key}.json")
