"""Progress in a log: when stderr is not a terminal, a long run prints its stage and latest count
every few seconds (a CI log was silent for the minutes of the findings' re-checks)."""

from __future__ import annotations

import time

from checker.commands.progress import Heartbeat, progress_display
from checker.engines.finding import Progress


def test_a_heartbeat_prints_the_stage_and_the_latest_count_every_interval(capsys):
    with Heartbeat(interval=0.05) as beat:
        beat.enter("checking the properties")
        with progress_display(beat) as (on_progress, on_jobs):
            assert on_progress is not None and on_jobs is not None
            on_progress("duel/duel", Progress(1234, 5000, 7, 10, 1.0))
            time.sleep(0.3)
            on_jobs(3, 8)
            time.sleep(0.3)
        beat.enter("writing the traces and pages")
        time.sleep(0.3)
    lines = capsys.readouterr().err.splitlines()
    assert any(line.startswith("rulecheck: checking the properties: duel/duel: 1,234 states, depth 7 (0 min 00 s so far)") for line in lines), lines
    assert any("checking the properties: 3/8 explorations finished" in line for line in lines)
    assert lines[-1].startswith("rulecheck: writing the traces and pages (")
    time.sleep(0.2)
    assert capsys.readouterr().err == ""  # stopped with the run


def test_a_short_run_prints_nothing_and_a_check_names_its_stages(capsys, monkeypatch, tmp_path):
    with Heartbeat() as beat:
        beat.enter("checking the properties")
    assert capsys.readouterr().err == ""
    from click.testing import CliRunner

    from checker.cli import main
    from tests.conftest import DUEL

    seen: list[str] = []
    original = Heartbeat.enter
    monkeypatch.setattr(Heartbeat, "enter", lambda self, stage: (seen.append(stage), original(self, stage))[1])
    run = CliRunner().invoke(main, ["check", DUEL, "--no-write", "--out", str(tmp_path)])
    assert run.exit_code in (0, 1), run.output
    assert seen[:3] == ["loading the models", "checking the properties", "playing the scenarios"]
