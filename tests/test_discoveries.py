"""Known counterexamples, action by action (as Stateright's `assert_discovery` checks them).

A verdict alone can stay right while the evidence behind it goes wrong (a longer play, another
branch of the rules, a different card). These tests pin the exact shortest play the explicit
engine finds for findings the errata pages report, so a change in the semantics, the exploration
order or the trace builder that alters them is seen at once.
"""

from __future__ import annotations

import os

from checker.engines.explicit import Budget
from checker.lang.build import load_model
from checker.lang.properties import bind, load_suite, properties_for, suite_path
from checker.pipeline.runner import CheckOptions, check_config

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def assert_discovery(model_file: str, readings: dict[str, str], prop_id: str, status: str, play: list[tuple[str, dict]], shape: str = "path", loop_start: int | None = None) -> None:
    """Check one property of a bundled model under `readings`: the verdict is `status` and the
    trace is exactly `play` (action names with their parameters, in order), of the given shape
    (a `lasso` returns to the state after `loop_start` steps)."""
    model = load_model(os.path.join(ROOT, "models", model_file))
    props = [bind(p, model) for p in properties_for(model, load_suite(suite_path(model.path))) if p.id == prop_id]
    assert props, f"{model_file} has no property {prop_id}"
    config = model.default_config().with_readings(readings)
    [result] = check_config(model, config, props, CheckOptions(engine="explicit", backend="python", budget=Budget(2_000_000, 600.0)))
    assert result.status == status, (result.status, result.detail)
    assert result.trace is not None
    got = [(step.action, dict(step.params)) for step in result.trace.steps]
    assert got == play, f"{prop_id} under {readings}: the engine found\n{got}"
    assert (result.trace.shape, result.trace.loop_start) == (shape, loop_start)


def test_supershow_a_banner_can_be_bumped_out_when_it_counts_competitors():
    assert_discovery("supershow/triple-threat-elimination.yaml", {"banner_scope": "competitors"}, "no-bump-out", "fails", [
        ("draw", {"p": "p1", "k": "lead"}),
        ("draw", {"p": "p2", "k": "lead"}),
        ("draw", {"p": "p3", "k": "lead"}),
        ("turn_roll", {"p": "p1", "f": 1}),
        ("turn_roll", {"p": "p2", "f": 1}),
        ("turn_roll", {"p": "p3", "f": 1}),
    ])


def test_supershow_a_special_guest_referee_match_need_not_end():
    assert_discovery("supershow/special-guest-referee.yaml", {}, "match-ends", "fails", [
        ("draw", {"p": "p1", "k": "lead"}),
        ("draw", {"p": "p2", "k": "lead"}),
        ("draw", {"p": "p3", "k": "lead"}),
        ("turn_roll", {"p": "p1", "f": 4}),
        ("turn_roll", {"p": "p2", "f": 1}),
        ("turn_roll", {"p": "p3", "f": 3}),
        ("tally", {}),
        ("offer", {}),
        ("win_turn", {"w": "p1"}),
        ("draw_empty", {"p": "p1"}),
        ("end_play", {}),
        ("end_turn", {}),
    ], shape="lasso", loop_start=3)


def test_supershow_a_turn_winner_may_pass_for_ever():
    """The evidence of the missing singles rules: the loop is a winner with a lead passing, each
    time (never a run of tied rolls, which `winner-plays` counts as reaching its `to`)."""
    assert_discovery("supershow/triple-threat-first-fall.yaml", {}, "winner-plays", "fails", [
        ("draw", {"p": "p1", "k": "lead"}),
        ("draw", {"p": "p2", "k": "lead"}),
        ("draw", {"p": "p3", "k": "lead"}),
        ("turn_roll", {"p": "p1", "f": 1}),
        ("turn_roll", {"p": "p2", "f": 3}),
        ("turn_roll", {"p": "p3", "f": 4}),
        ("tally", {}),
        ("offer", {}),
        ("win_turn", {"w": "p3"}),
        ("draw", {"p": "p3", "k": "stop"}),
        ("end_play", {}),
        ("end_turn", {}),
        ("turn_roll", {"p": "p1", "f": 1}),
        ("turn_roll", {"p": "p2", "f": 3}),
        ("turn_roll", {"p": "p3", "f": 4}),
        ("tally", {}),
        ("offer", {}),
        ("win_turn", {"w": "p3"}),
        ("draw_empty", {"p": "p3"}),
    ], shape="lasso", loop_start=10)


def test_supershow_a_tied_turn_roll_can_repeat_for_ever():
    """The evidence of bump-no-limit (the shortest `match-ends` trace on the page): a tie for the
    highest roll with every deck empty, bumped again and again."""
    assert_discovery("supershow/handicap.yaml", {"top_tie": "tied"}, "match-ends", "fails", [
        ("draw", {"p": "p1", "k": "lead"}),
        ("draw", {"p": "p2", "k": "lead"}),
        ("draw", {"p": "p3", "k": "lead"}),
        ("turn_roll", {"p": "p1", "f": 2}),
        ("turn_roll", {"p": "p2", "f": 1}),
        ("turn_roll", {"p": "p3", "f": 2}),
        ("tally", {}),
        ("offer", {}),
        ("bump", {}),
        ("draw_empty", {"p": "p1"}),
        ("draw_empty", {"p": "p3"}),
    ], shape="lasso", loop_start=3)
