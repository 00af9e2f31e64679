"""A configuration's bounds one step larger (`grow`), and the budgets the larger runs get.

The growth re-checks of findings (`checker.pipeline.growth`) and of the Readings section's lines
(`checker.analysis.reading_growth`) both ask which configuration is "one card more": every
constant a model marks `bound: true`, one step larger within its declared range, a step being a
cell with the cells it `grows_with`. This module computes that and nothing else.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from checker.evidence.growth_check import NO_BOUND
from checker.lang.model import Config, Model

GROWTH_FACTOR = 4  # states allowed to the larger run, per state of the representative's exploration
MIN_STATES = 50_000  # and never fewer: small explorations grow fastest in proportion
GROWTH_TIMEOUT = 600.0  # seconds per larger run: a safety net only; the state budget decides first
SINGLES_ALLOWANCE = 4  # the one-at-a-time runs of one finding together explore at most this many runs' state budgets


@dataclass(frozen=True)
class Growth:
    """A configuration's marked bounds one step larger."""

    constants: dict[str, Any]
    grown: tuple[str, ...]
    at_max: tuple[str, ...]
    marked: int  # how many constants the model marks as bounds
    singles: tuple[tuple[str, dict[str, Any]], ...] = ()  # each step alone (a bound with what it grows with): (its label, the constants)
    fixed: tuple[tuple[str, str], ...] = ()  # counts an assumption fixes (not bounds): (constant, assumption)
    cells: tuple[str, ...] = ()  # every bound at once: each raised cell once ("hand_size 2->3", "n_passing 1->2"), the steps' partners not repeated

    def nothing_to_grow(self) -> str:
        """Why no bound grows (`grown` is empty): naming the assumptions that fix the counts a
        reader might expect to grow ("every card is dealt")."""
        rest = NO_BOUND if not self.marked else "every bound is at the top of its declared range or left out"
        if not self.fixed:
            return rest
        by: dict[str, list[str]] = {}
        for name, assumption in self.fixed:
            by.setdefault(assumption, []).append(name)
        fixed = "; ".join(f"{', '.join(names)} fixed by assumption {assumption}" for assumption, names in by.items())
        other = "; every other bound is at the top of its declared range or left out" if self.marked else ""
        return f"no bound to grow: {fixed}{other}"


def grow(model: Model, config: Config) -> Growth:
    """Every marked bound of `config` one step larger, within its declared range.

    A step is one cell with the cells it `grows_with` (a hand one card larger with the two cards
    more it deals, one player's deck with the other's): grown alone, the larger game would be a
    smaller one, which says nothing. Steps naming the same cells are one step (two cells that
    name each other); every bound at once raises each cell once."""
    steps: list[tuple[tuple[str, tuple], ...]] = []
    for const in (c for c in model.constants.values() if c.bound):
        value = config.constants[const.name]
        for key, cell in (value.items() if const.is_table else [((), value)]):
            if cell == 0:
                continue  # left out of this variant: stays out
            step = ((const.name, key), *const.grows_with.get(key, ()))
            if not any(set(step) == set(seen) for seen in steps):
                steps.append(step)
    constants = dict(config.constants)
    grown: list[str] = []
    at_max: list[str] = []
    singles: list[tuple[str, dict[str, Any]]] = []
    raised: dict[tuple[str, tuple], str] = {}  # each raised cell once, with its words
    for step in steps:
        cells = [(name, key, _cell_value(config.constants[name], key)) for name, key in step]
        blocked = [f"{_label(name, key)} {v} at the top of its range" for name, key, v in cells if v >= _top(model, name, v)]
        blocked += [f"{_label(name, key)} left out" for name, key, v in cells[1:] if v == 0]
        if blocked:
            # the outcome's words add "already at the top of its range"
            at_max.append(f"{_label(*step[0])} {cells[0][2]}" if len(step) == 1 else f"{_label(*step[0])} {cells[0][2]} (its step: {', '.join(blocked)})")
            continue
        partners = ", ".join(f"{_label(name, key)} {v}\u2192{v + 1}" for name, key, v in cells[1:])
        label = f"{_label(*step[0])} {cells[0][2]}\u2192{cells[0][2] + 1}" + (f" (with {partners})" if partners else "")
        grown.append(label)
        alone = dict(config.constants)
        for name, key, _ in cells:
            alone[name] = _raised(alone[name], key)
            if (name, key) not in raised:
                raised[(name, key)] = f"{_label(name, key)} {_cell_value(config.constants[name], key)}\u2192{_cell_value(config.constants[name], key) + 1}"
                constants[name] = _raised(constants[name], key)
        singles.append((label, alone))
    fixed = tuple((c.name, c.fixed_by) for c in model.constants.values() if c.fixed_by)
    order = {(c.name, key): n for n, c in enumerate(model.constants.values()) for key in (c.default if c.is_table else {(): None})}
    named = tuple(words for _, words in sorted(raised.items(), key=lambda item: order.get(item[0], len(order))))
    return Growth(constants, tuple(grown), tuple(at_max), sum(1 for c in model.constants.values() if c.bound), tuple(singles), fixed, named)


def _label(name: str, key: tuple) -> str:
    return name + "".join(f"[{k}]" for k in key)


def _cell_value(value: Any, key: tuple) -> int:
    return value[key] if key else value


def _top(model: Model, name: str, value: int) -> int:
    hi = model.constants[name].elem.hi
    return hi if hi is not None else value


def _raised(value: Any, key: tuple) -> Any:
    """`value` (a scalar, or a table as a dict by index) with the cell `key` one larger."""
    return {**value, key: value[key] + 1} if key else value + 1
