"""Scenarios in a suite (`scenarios:`): a named sequence of moves and the state it must reach,
played in the interpreter by `rulecheck check`. A failing one is a located failure naming the
first step that is not enabled (or the `reaches` that is false), with what the rules allow."""

from __future__ import annotations

import json

import pytest

from tests.conftest import rulecheck

TIE = """\
scenarios:
  - id: tie-bonus-for-the-defender
    says: Under the defender reading, two high cards in play give the defender the tie bonus.
    readings: {tie: defender}
    clauses: [duel-3]
    start: turn == alice
    steps:
      - draw: {k: high}
      - pass
      - draw: {k: high}
      - tie_break
    reaches: score[alice] == 3
"""


def add(project, text: str) -> int:
    """Append a `scenarios:` section to the duel suite; returns the line it starts on."""
    suite = project / "properties" / "duel.yaml"
    before = suite.read_text()
    suite.write_text(before + text)
    return before.count("\n") + 1


def check(project, *extra: str):
    return rulecheck("check", "models/duel", "--no-write", "--jobs", "1", *extra, cwd=str(project))


def test_a_scenario_that_plays_as_written_passes(project):
    add(project, TIE)
    run = check(project)
    assert run.returncode == 0, run.stdout + run.stderr
    assert run.stdout.splitlines()[-1].endswith("; 1 scenario(s), 0 failed")
    run = check(project, "--format", "json")
    (played,) = json.loads(run.stdout)["scenarios"]
    assert played["passed"] and played["reading"] == "tie=defender"


def test_the_first_step_not_enabled_is_named_and_located(project):
    start = add(project, TIE.replace("readings: {tie: defender}", "readings: {tie: nobody}"))
    run = check(project)
    assert run.returncode == 1
    line = run.stdout.replace("\n", "")  # the terminal wraps long lines
    step_line = start + TIE.splitlines().index("      - tie_break")
    assert f"duel.yaml:{step_line}:9: scenario `tie-bonus-for-the-defender` fails (duel/duel [default])" in line
    assert "step 4, `tie_break()`, is not enabled after draw(k=high) -> pass() -> draw(k=high)" in line
    assert "the rules allow: play(k=high), pass()" in line


def test_a_reached_state_that_is_not_the_promised_one_fails_at_reaches(project):
    start = add(project, TIE.replace("score[alice] == 3", "score[bob] == 3"))
    run = check(project)
    assert run.returncode == 1
    reaches_line = start + TIE.splitlines().index("    reaches: score[alice] == 3")
    text = run.stdout.replace("\n", "")
    assert f"duel.yaml:{reaches_line}:14: scenario `tie-bonus-for-the-defender` fails" in text
    assert "`reaches` is false (`score[bob] == 3`)" in text


@pytest.mark.parametrize(("change", "gist"), [
    (("- tie_break", "- tie_brake"), "unknown action `tie_brake`"),
    (("draw: {k: high}\n      - pass", "draw: {kind: high}\n      - pass"), "action `draw` has no parameter `kind`"),
    (("draw: {k: high}\n      - pass", "draw: {k: top}\n      - pass"), "`top` is not a value of `k`"),
    (("readings: {tie: defender}", "readings: {ties: defender}"), "unknown reading `ties`"),
    (("reaches: score[alice] == 3", "reaches: score[carol] == 3"), "carol"),
    (("    steps:\n", "    stepz:\n"), "unknown key `stepz` in a scenario"),
])
def test_bad_scenarios_are_located_errors(project, change, gist):
    assert change[0] in TIE
    add(project, TIE.replace(*change))
    run = check(project)
    assert run.returncode == 2 and gist in run.stderr and "duel.yaml:" in run.stderr, run.stderr


def test_the_bundled_scenario_plays_and_a_changed_step_is_caught():
    import os

    from checker.lang.scenarios import ScenarioStep
    from checker.pipeline.runner import CheckOptions, load_games, play_scenarios

    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    (game,) = load_games([os.path.join(root, "models", "supershow", "triple-threat-first-fall.yaml")])
    (played,) = play_scenarios([game], CheckOptions())
    assert played.passed and played.id == "last-card-stopped-is-a-count-out"
    scenario = game.scenarios[0]
    steps = list(scenario.steps)
    steps[8] = ScenarioStep("win_turn", {"w": "p3"}, steps[8].loc)  # Player 3 rolled lower
    game.scenarios = [type(scenario)(**{**scenario.__dict__, "steps": tuple(steps)})]
    (played,) = play_scenarios([game], CheckOptions())
    assert not played.passed and played.loc == steps[8].loc
    assert "step 9, `win_turn(w=p3)`, is not enabled" in played.message and played.message.endswith("the rules allow: win_turn(w=p2)")
