"""rulecheck as a library: load a game's model, check it against its property suite, count states.

The command line is the main interface; this is the same machinery for a notebook or a script,
kept small on purpose: what it returns are the checker's own objects (`Result`, `Model`,
`Count`), whose fields the JSON output documents (docs/traces.md). Paths are those of the
project layout (`models/<game>/<model>.yaml`, `properties/<game>.yaml`); the examples run from
the project root.

>>> import rulecheck
>>> model = rulecheck.load_model("tests/models/duel/duel.yaml")
>>> model.id, list(model.readings)
('duel', ['tie'])
>>> results = rulecheck.check(model)
>>> all(r.matches for r in results)
True

Errors in a model or in what is asked are `RulecheckError`s, located in the file:

>>> rulecheck.check(model, properties=["no-such-property"])
Traceback (most recent call last):
...
checker.errors.RulecheckError: error: --property no-such-property: no model checked has a property `no-such-property`
...
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from typing import Any

from checker import __version__
from checker.analysis.count import Count
from checker.engines.explicit import Budget
from checker.engines.verdict import Status
from checker.errors import RulecheckError
from checker.evidence.results import Result
from checker.lang.build import load_model as _load_model
from checker.lang.model import Config, Model

__all__ = ["Config", "Count", "Model", "Result", "RulecheckError", "Status", "__version__", "check", "count", "load_model"]

PathLike = str | os.PathLike[str]


def load_model(path: PathLike) -> Model:
    """Load and validate one model file (with the models it `extends` and its game's clauses).

    >>> model = load_model("tests/impact/models/tictactoe/tictactoe.yaml")
    >>> model.game, sorted(model.actions)
    ('Tic-tac-toe', ['judge', 'mark'])
    >>> load_model("tests/models/duel/no-such-model.yaml")
    Traceback (most recent call last):
    ...
    checker.errors.RulecheckError: error: no such file or folder: tests/models/duel/no-such-model.yaml
    """
    if not os.path.isfile(path):
        raise RulecheckError(f"no such file or folder: {os.fspath(path)}")
    return _load_model(os.fspath(path))


def check(
    target: Model | PathLike | Iterable[PathLike],
    *,
    properties: Iterable[str] | None = None,
    readings: str = "deviations",
    reading: dict[str, str] | None = None,
    constants: dict[str, Any] | None = None,
    engine: str = "explicit",
    max_states: int = 2_000_000,
    timeout: float = 600.0,
    witnesses: int = 1,
    symmetry: bool = True,
    jobs: int = 1,
) -> list[Result]:
    """Check a model (or the models under paths) against its game's property suite.

    One `Result` per model, reading combination and property, in the order `rulecheck check`
    reports them: `status` (`holds`, `fails`, `undecided`, `error`), `expected`, `matches`,
    `trace` (the replayed counterexample of a failure), `witnesses` (of a `reachable` that
    holds). The arguments are those of `rulecheck check`: `readings` is the reading matrix
    (`deviations`, `pairs`, `all`, `default`), `reading` pins options, `constants` sets values
    (`{"target": 4}` or `{"points[high]": 3}`), `engine` is `explicit`, `symbolic` or `auto`;
    `symmetry=False` explores every state of a model that declares `symmetric` domains.
    Nothing is written.

    >>> results = check("tests/models/duel/duel.yaml", reading={"tie": "defender"})
    >>> [f"{r.prop.id}: {r.status}" for r in results]
    ['game-ends: holds', 'scores-bounded: fails', 'play-scores: holds', 'high-score-possible: holds', 'deck-empty-ends: holds', 'deadlock-free: holds', 'deterministic: holds', 'coverage: holds']
    >>> failed = results[1]
    >>> failed.expected, failed.trace.shape, len(failed.trace.steps)
    ('fails', 'path', 8)
    >>> found = check("tests/models/duel/duel.yaml", properties=["high-score-possible"], readings="default", witnesses=2)
    >>> [len(w.steps) for w in found[0].witnesses]
    [6, 6]
    """
    from checker.lang.properties import load_suite, suite_path
    from checker.pipeline.runner import CheckOptions, GameModels, check_model, check_paths, check_selection

    options = CheckOptions(
        engine=engine, budget=Budget(max_states, timeout), readings=readings, pinned=dict(reading or {}),
        constants={k: str(v).lower() if isinstance(v, bool) else str(v) for k, v in (constants or {}).items()},
        only_properties=set(properties) if properties is not None else None, witnesses=witnesses, symmetry=symmetry, jobs=jobs,
    )
    if isinstance(target, Model):
        if target.abstract:
            raise RulecheckError(f"model `{target.id}` is abstract: it is validated, not checked")
        suite = load_suite(suite_path(target.path))
        check_selection([GameModels(target.folder, [target], suite)], options)
        return check_model(target, suite, options)
    paths = [os.fspath(target)] if isinstance(target, (str, os.PathLike)) else [os.fspath(p) for p in target]
    return check_paths(paths, options)


def count(
    target: Model | PathLike,
    expr: str,
    *,
    by: str | Sequence[str] = (),
    terminal: bool = False,
    reading: dict[str, str] | None = None,
    max_states: int = 2_000_000,
    timeout: float = 600.0,
) -> Count:
    """The reachable states of one model satisfying `expr`, grouped by the value of `by` (an
    expression, or `outcome`), as `rulecheck count` reports them; `terminal` keeps only the
    positions where the game is over. Several `by` values group by all of them at once (each
    group's key is then a tuple).

    >>> ends = count("tests/impact/models/tictactoe/tictactoe.yaml", "true", by="outcome", terminal=True)
    >>> ends.matching, ends.groups
    (958, [('x_win', 626), ('o_win', 316), ('draw', 16)])
    """
    from checker.analysis.count import count_states
    from checker.pipeline.runner import reading_configs

    model = target if isinstance(target, Model) else load_model(target)
    config = reading_configs(model, "default", dict(reading or {}), {})[0]
    groupings = (by,) if isinstance(by, str) else tuple(by)
    return count_states(model, config, expr, groupings, Budget(max_states, timeout), terminal)
