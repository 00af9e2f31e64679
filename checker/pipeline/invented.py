"""Findings re-checked with the numbers the modeller invented at other plausible values.

A finding is about the rules only if it does not rest on a number the document never prints.
For every filed finding (not those filed as bound artefacts) this re-checks its representative
failure (`growth.representative`) once per invented constant (`plausible: [LO, HI]`) at LO, the
middle and HI (those the check did not already use), with every other constant and reading as
in the representative, and attaches the outcomes to the finding's failures (`Result.values`).
The runs use the growth re-check's budget and its seeded search for a run that overruns
(`growth.recheck_at`); their outcomes are cached like it (`caches.content_key`).
"""

from __future__ import annotations

import os

from checker.analysis.bounds import GROWTH_FACTOR, GROWTH_TIMEOUT, MIN_STATES
from checker.engines.explicit import Budget
from checker.evidence.results import Result
from checker.evidence.value_check import ValueCheck, ValueTried
from checker.lang import caches
from checker.lang.model import Config, Constant
from checker.pipeline.dispatch import Pool, SerialPool, run_in_order
from checker.pipeline.growth import filed_entries, recheck_at, representative

CACHE_DIR = caches.PROJECT_DIR


def values_to_try(const: Constant, checked: int) -> tuple[int, ...]:
    """The ends and the middle of the plausible range, without the value already checked."""
    assert const.plausible is not None
    lo, hi = const.plausible
    return tuple(v for v in dict.fromkeys((lo, (lo + hi) // 2, hi)) if v != checked)


def value_checks(results: list[Result], max_states: int, timeout: float, cache_dir: str | None = CACHE_DIR, pool: Pool | None = None) -> list[ValueCheck]:
    """Re-check every filed finding with each invented constant of its representative's model
    at other plausible values, in `pool`'s workers when given; attach the outcomes. A count an
    assumption fixes (`fixed_by`: a variant's deck is exactly the cards it deals) is left as it
    is: another value would put cards in a draw pile that variant does not have."""
    items: list[tuple[str, Result, str, int, float, str | None]] = []
    entries = []
    for entry in filed_entries(results):
        chosen = representative(entry)
        for const in chosen.model.constants.values():
            if const.invented and not const.fixed_by:  # a count an assumption fixes (the cards dealt) is no number to vary
                items.append((entry.id, chosen, const.name, max_states, timeout, cache_dir))
                entries.append(entry)
    if not items:
        return []
    out = run_in_order(_check_one, items, pool if pool is not None else SerialPool())
    for entry, check in zip(entries, out, strict=True):
        for r in entry.results:
            r.values = (*r.values, check)
    return out


def _check_one(item: tuple[str, Result, str, int, float, str | None]) -> ValueCheck:
    """One finding and one invented constant, as a job of a pool (module level: it is pickled)."""
    finding, result, name, max_states, timeout, cache_dir = item
    const = result.model.constants[name]
    assert const.plausible is not None
    checked = int(result.config.constants[name])
    budget = Budget(min(max_states, max(MIN_STATES, GROWTH_FACTOR * result.states)), min(timeout, GROWTH_TIMEOUT), stop_when_decided=True)
    path = _cache_path(cache_dir, finding, result, name, budget)
    cached = _read(path)
    if cached is not None:
        return cached
    tried = []
    for value in values_to_try(const, checked):
        outcome, reason, states = recheck_at(result, Config({**result.config.constants, name: value}, result.config.readings), budget)
        tried.append(ValueTried(value, outcome, reason, states))
    check = ValueCheck(finding, name, checked, const.plausible, result.model.id, result.prop.id, result.reading_label, tuple(tried))
    if not any("timeout" in t.reason for t in tried):  # a time limit depends on the machine's load: not kept
        caches.write_json(path, check.to_json())
    return check


def _cache_path(cache_dir: str | None, finding: str, result: Result, name: str, budget: Budget) -> str | None:
    if cache_dir is None or not caches.cacheable(result.model):
        return None
    key = caches.content_key("values-1", result.model, finding, caches.digest_of(result.prop), result.status, sorted(result.config.readings.items()),
                             sorted((k, repr(v)) for k, v in result.config.constants.items()), name, budget.max_states, budget.timeout, length=24)
    return os.path.join(cache_dir, f"values-{key}.json")


def _read(path: str | None) -> ValueCheck | None:
    doc = caches.read_json(path)
    try:
        return ValueCheck.from_json(doc) if doc is not None else None
    except (ValueError, KeyError, TypeError):
        return None  # an unreadable cache entry is recomputed
