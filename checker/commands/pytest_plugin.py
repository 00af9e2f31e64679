"""The pytest plugin (entry point `pytest11`): a game's property suite as pytest tests.

With `pytest --rulecheck` (or `addopts = --rulecheck`), every property suite pytest collects,
`properties/GAME.yaml` beside `models/GAME/`, becomes one test per (variant, property, reading
combination), with the node id `properties/GAME.yaml::PROPERTY[VARIANT-READING]`. A test passes
when the verdict is the suite's `expect` (an expected `fails`, a filed finding, passes), and
fails with what was expected and found, the property, the evidence path and the play-by-play
otherwise. Opt-in, so that installing rulecheck never turns a repository's own test run into a
model check.

Collecting plans the checks without running them (models are loaded and the reading matrix
computed); the properties of one reading combination are decided by one exploration, which runs
when the first of its selected tests runs, for the selected properties only, so `-k`, `-m` and
node ids choose what is explored.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:  # the checker is imported only when a suite is collected: pytest loads this plugin in every run
    from _pytest._code.code import TerminalRepr

    from checker.evidence.results import Result


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("rulecheck", "rulecheck: game rules as tests")
    group.addoption("--rulecheck", action="store_true", help="Collect properties/GAME.yaml suites as tests (one per variant, property and reading).")
    group.addoption("--rulecheck-game", action="append", default=[], metavar="GAME", help="Only these games (repeat).")
    group.addoption("--rulecheck-property", action="append", default=[], metavar="ID", help="Only these properties (repeat).")
    group.addoption("--rulecheck-readings", choices=["deviations", "all", "default"], default="deviations",
                    help="Reading combinations: the default and each single deviation (default), all, or the default only.")
    group.addoption("--rulecheck-max-states", type=int, default=2_000_000, help="States per exploration.")
    group.addoption("--rulecheck-out", default="counterexamples", help="Where evidence traces are written (default: counterexamples).")
    group.addoption("--rulecheck-no-write", action="store_true", help="Write no evidence traces.")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "rulecheck: a property of a game's rules, checked by rulecheck")


def pytest_collect_file(file_path: Any, parent: pytest.Collector) -> pytest.Collector | None:
    config = parent.config
    if not config.getoption("rulecheck") or file_path.suffix not in (".yaml", ".yml") or file_path.parent.name != "properties":
        return None
    game = file_path.stem
    if not (file_path.parent.parent / "models" / game).is_dir():
        return None
    wanted = config.getoption("rulecheck_game")
    if wanted and game not in wanted:
        return None
    return SuiteFile.from_parent(parent, path=file_path)


class SuiteFile(pytest.File):
    """A property suite: its game's models are loaded and their checks planned."""

    def collect(self) -> Iterator[pytest.Item]:
        from checker.engines.explicit import Budget
        from checker.errors import RulecheckError
        from checker.limits import allow_deep_expressions
        from checker.pipeline.runner import CheckOptions, check_selection, load_games, plan_model

        allow_deep_expressions()
        config = self.config
        only = set(config.getoption("rulecheck_property")) or None
        options = CheckOptions(budget=Budget(config.getoption("rulecheck_max_states")), readings=config.getoption("rulecheck_readings"),
                               only_properties=only)
        folder = self.path.parent.parent / "models" / self.path.stem
        try:
            games = load_games([os.path.relpath(folder)])  # messages name files as the designer does
            if only:
                check_selection(games, options)
        except RulecheckError as exc:
            raise SuiteError(exc.render()) from None
        for game in games:
            for model in game.models:
                if model.abstract:
                    continue
                for job in plan_model(model, game.suite, options):
                    shared = Exploration(job)
                    for _, conf in job.configs:
                        for prop in job.props:
                            label = conf.reading_label(model)
                            yield PropertyItem.from_parent(self, name=f"{prop.prop.id}[{model.id}-{label}]", exploration=shared,
                                                           prop_id=prop.prop.id, reading=label)

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> Any:
        if isinstance(excinfo.value, SuiteError):
            return str(excinfo.value)
        return super().repr_failure(excinfo)


class SuiteError(Exception):
    """A suite or model that does not load: reported as the file's collection error."""


class Exploration:
    """One planned exploration (a model and the reading combinations that share it), run once
    for the properties whose tests were selected."""

    def __init__(self, job: Any) -> None:
        self.job = job
        self.selected: set[str] = set()
        self.results: dict[tuple[str, str], Result] | None = None
        self.failure: str | None = None

    def result(self, prop_id: str, reading: str, config: pytest.Config) -> Result:
        if self.results is None:
            self._run(config)
        if self.failure is not None:
            raise RulecheckFailure(self.failure)
        assert self.results is not None
        return self.results[(prop_id, reading)]

    def _run(self, config: pytest.Config) -> None:
        from checker.errors import ModellingError, RulecheckError
        from checker.pipeline.runner import run_job

        job = self.job
        job.props = [p for p in job.props if p.prop.id in self.selected]
        self.results = {}
        try:
            batches = run_job(job)
        except (RulecheckError, ModellingError) as exc:
            self.failure = exc.render() if isinstance(exc, RulecheckError) else exc.located()
            return
        results = [r for _, batch in batches for r in batch]
        if not config.getoption("rulecheck_no_write"):
            from checker.report.evidence_files import write_evidence

            write_evidence(results, _out_dir(config), prune=False)
        self.results = {(r.prop.id, r.reading_label): r for r in results}


def _out_dir(config: pytest.Config) -> str:
    out = config.getoption("rulecheck_out")
    return out if os.path.isabs(out) else os.path.join(str(config.rootpath), out)


class RulecheckFailure(Exception):
    """An unexpected verdict, or a modelling error met while checking."""


class PropertyItem(pytest.Item):
    def __init__(self, *, exploration: Exploration, prop_id: str, reading: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.exploration = exploration
        self.prop_id = prop_id
        self.reading = reading
        exploration.selected.add(prop_id)  # narrowed to the selected tests after deselection
        self.add_marker(pytest.mark.rulecheck)
        self.user_properties.append(("property", prop_id))

    def runtest(self) -> None:
        result = self.exploration.result(self.prop_id, self.reading, self.config)
        self.user_properties += [("verdict", result.verdict_text), ("expected", result.expected)]
        if not result.matches:
            raise RulecheckFailure(failure_text(result, None if self.config.getoption("rulecheck_no_write") else _out_dir(self.config)))

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> str | TerminalRepr:
        if isinstance(excinfo.value, RulecheckFailure):
            return str(excinfo.value)
        return super().repr_failure(excinfo)

    def reportinfo(self) -> tuple[Any, int | None, str]:
        model = self.exploration.job.model
        return self.path, None, f"{model.folder}/{model.id} {self.prop_id} [{self.reading}]"


def failure_text(result: Result, out: str | None) -> str:
    """What was expected and found, the property, the evidence file and the play-by-play."""
    from checker.report.junit import unexpected_message

    lines = [unexpected_message(result), f"{result.prop.id} ({result.prop.kind}): {result.prop.says}".rstrip(": "),
             f"property at {result.prop.loc}"]
    if result.detail:
        lines.append(result.detail)
    if result.trace is not None:
        from checker.evidence.trace import narrative, to_json

        if out is not None:
            from checker.report.evidence_files import evidence_path

            lines.append(f"evidence: {os.path.relpath(evidence_path(out, result))} (rulecheck explain narrates it)")
        lines += ["", narrative(to_json(result.trace)).rstrip()]
    return "\n".join(lines)


def pytest_collection_finish(session: pytest.Session) -> None:
    """Explore only for the tests left after -k, -m and node-id selection."""
    explorations: dict[int, Exploration] = {}
    selected: dict[int, set[str]] = {}
    for item in session.items:
        if isinstance(item, PropertyItem):
            explorations[id(item.exploration)] = item.exploration
            selected.setdefault(id(item.exploration), set()).add(item.prop_id)
    for key, exploration in explorations.items():
        exploration.selected = selected[key]
