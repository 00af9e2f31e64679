"""One worker pool for a whole `rulecheck check`: the Readings analysis queued ahead of the check
matrix and finished in the main process while the matrix runs, then the growth re-checks
(`checker.pipeline.runner.check_pool`, `ReadingsAhead`). Whatever runs where and when, the results,
pages and traces are the serial run's."""

from __future__ import annotations

import os
import shutil
import threading

import pytest

from checker.errors import RulecheckError
from checker.pipeline import readings as reading_impact
from checker.pipeline.dispatch import process_pool
from checker.pipeline.readings import ReadingsAhead, _content_key, readings_section
from checker.pipeline.runner import CheckOptions, check_paths, load_games
from checker.report.reading_impact import readings
from tests.conftest import rulecheck

HERE = os.path.dirname(__file__)
COIN = os.path.join(HERE, "impact", "models", "coin", "coin.yaml")
TRAP = os.path.join(HERE, "impact", "models", "trap", "trap.yaml")
DUEL = os.path.join(HERE, "models", "duel", "duel.yaml")


def summary(results: list) -> list[tuple]:
    return [(r.model.path, r.prop.id, r.reading_label, r.status, r.states, r.bound) for r in results]


class Recorder:
    """A side work that records when it is called."""

    def __init__(self) -> None:
        self.calls: list[tuple] = []

    def queue(self, games, pool) -> None:
        self.calls.append(("queue", [g.folder for g in games]))

    def start(self) -> None:
        self.calls.append(("start",))


def test_the_matrix_on_a_shared_pool_gives_the_serial_results_around_its_side_work():
    serial = check_paths([COIN, TRAP, DUEL], CheckOptions())
    side = Recorder()
    with process_pool(2) as pool:
        parallel = check_paths([COIN, TRAP, DUEL], CheckOptions(jobs=2, reuse=False), pool, side)  # explored again, not the cached verdicts
    assert summary(parallel) == summary(serial) and len(serial) > 10
    assert side.calls == [("queue", ["coin", "trap", "duel"]), ("start",)]  # once each, every game (by folder path)


def ahead_of(paths: list[str], cache_dir: str) -> ReadingsAhead:
    ahead = ReadingsAhead(cache_dir)
    with process_pool(2) as pool:
        ahead.queue(load_games(paths), pool)
        ahead.start()
        ahead.wait()
    return ahead


def test_readings_analysed_ahead_give_the_serial_sections(tmp_path):
    games = load_games([COIN, TRAP, DUEL])
    results = check_paths([COIN, TRAP, DUEL], CheckOptions())
    prepared = ahead_of([COIN, TRAP, DUEL], str(tmp_path)).prepared
    assert sorted(prepared) == ["coin", "duel", "trap"]
    for game in games:
        paths, (impacts, rechecks, sized) = prepared[game.folder]
        assert paths == [m.path for m in game.models if not m.abstract] == [mi.model.path for mi in impacts]
        mine = [r for r in results if r.model.folder == game.folder]
        assert readings(game.models, mine, impacts, rechecks, sized)[0] == readings_section(game.models, mine)


def test_the_readings_recheck_runs_beside_the_caller_until_waited_for(monkeypatch):
    """`start` returns while the re-check runs (the caller collects the matrix and starts the
    findings' re-checks meanwhile); `wait` returns what it made."""
    release = threading.Event()

    def held(impacts, settings):
        return {"released": release.wait(timeout=30)}  # False had `start` waited for it

    monkeypatch.setattr(reading_impact, "recheck_readings", held)
    ahead = ReadingsAhead()
    with process_pool(2) as pool:
        ahead.queue(load_games([COIN]), pool)
        ahead.start()
        release.set()
        prepared = ahead.wait()
    assert prepared["coin"][1][1] == {"released": True}


def test_an_error_in_the_readings_recheck_is_raised_by_wait(monkeypatch):
    def failing(impacts, settings):
        raise RulecheckError("the re-check failed")

    monkeypatch.setattr(reading_impact, "recheck_readings", failing)
    ahead = ReadingsAhead()
    with process_pool(2) as pool:
        ahead.queue(load_games([COIN]), pool)
        ahead.start()
        with pytest.raises(RulecheckError, match="the re-check failed"):
            ahead.wait()


def test_a_game_whose_section_is_cached_is_not_analysed_ahead(tmp_path):
    coin = next(g for g in load_games([COIN]) if g.folder == "coin")
    (tmp_path / f"readings-{_content_key(coin.models)}-0123.json").write_text("cached under other verdicts")
    assert sorted(ahead_of([COIN, TRAP], str(tmp_path)).prepared) == ["trap"]


@pytest.mark.slow
def test_check_with_one_worker_and_with_two_writes_the_same_bytes(tmp_path):
    """Each run in its own folder (its own results cache), so the two-worker run analyses the
    Readings on the shared pool rather than reading the first run's section."""
    outputs = []
    for jobs in ("1", "2"):
        work = tmp_path / jobs
        for folder in ("models", "properties"):
            shutil.copytree(os.path.join(HERE, folder), work / folder)
        run = rulecheck("check", "--fresh", "--jobs", jobs, cwd=str(work))  # explored by each, not reused
        assert run.returncode in (0, 1), run.stdout + run.stderr
        assert any(name.startswith("readings-") for name in os.listdir(work / ".rulecheck-cache"))
        outputs.append({p.relative_to(work).as_posix(): p.read_bytes() for folder in ("docs", "counterexamples") for p in (work / folder).rglob("*") if p.is_file()})
    assert outputs[0] and outputs[0] == outputs[1]
