"""Reading impact: divergence scenarios, outcome impact, classification, on toy models whose
answers are known by hand (tests/impact/models/coin and trap)."""

from __future__ import annotations

import json
import math
import os
import re

import pytest
from click.testing import CliRunner

from checker.analysis.divergence import find_divergence
from checker.analysis.impact import Settings
from checker.analysis.outcomes import NEVER, analyse
from checker.cli import main
from checker.engines.simulate import simulate
from checker.engines.statespace import explore_space
from checker.lang.build import load_model
from checker.lang.compile import CompiledModel
from checker.pipeline.readings import analyse_model, readings_section
from checker.report.impact_json import impacts_json
from checker.report.reading_impact import scenario_lines

MODELS = os.path.join(os.path.dirname(__file__), "impact", "models")
COIN = os.path.join(MODELS, "coin/coin.yaml")
TRAP = os.path.join(MODELS, "trap/trap.yaml")
DUEL = os.path.join(os.path.dirname(__file__), "models", "duel", "duel.yaml")



def impact(path: str, **readings: str):
    model = load_model(path)
    return analyse(explore_space(CompiledModel(model, model.default_config().with_readings(readings))))


def option(result, reading: str, name: str):
    return next(o for r in result.readings if r.reading.name == reading for o in r.options if o.option == name)


def test_coin_probabilities_by_hand():
    draw = impact(COIN)
    assert draw.probabilities == pytest.approx({"ann_win": 0.25, "bob_win": 0.25, "draw": 0.5})
    assert draw.can_end and not draw.endless and draw.longest == 3
    reflip = impact(COIN, tie="reflip")
    assert reflip.probabilities == pytest.approx({"ann_win": 0.5, "bob_win": 0.5})
    assert set(reflip.outcomes) == {"ann_win", "bob_win"}
    assert reflip.can_end and reflip.endless  # endless ties are possible, with probability 0


def test_coin_divergence_after_two_tied_flips():
    model = load_model(COIN)
    base = model.default_config()
    found = find_divergence(model, base, base.with_readings({"tie": "reflip"}))
    assert found.found and found.kind == "moves" and found.steps == 2
    last = found.trace.states()[-1]
    assert last["phase"] == "judge" and last["ca"] == last["cb"]
    default_side, option_side = found.sides
    assert [s.action for s in default_side.steps] == ["tie_draw"]
    assert [s.action for s in option_side.steps] == ["tie_reflip"]


def test_coin_classes_and_forced_wins():
    result = analyse_model(load_model(COIN), Settings())
    reflip = option(result, "tie", "reflip")
    assert reflip.classification == "outcome-changing"
    assert any("draw" in reason for reason in reflip.reasons)
    silent = option(result, "call", "silent")
    assert silent.classification == "moot" and silent.divergence is None
    sides = {f.side: (f.chance_adversarial, f.chance_cooperative) for f in result.impact.forced}
    assert sides == {"ann": ("no", "yes"), "bob": ("no", "yes")}


def test_forced_wins_count_the_starts_they_are_forced_from():
    """A side that forces a win from some starts and not others (tests/impact/models/starts)."""
    result = analyse_model(load_model(os.path.join(MODELS, "starts/starts.yaml")), Settings())
    sides = {f.side: (f.chance_adversarial, f.chance_cooperative) for f in result.impact.forced}
    assert sides == {"ann": ("from 2 of 3 starts",) * 2, "bob": ("from 1 of 3 starts",) * 2}


def test_trap_reading_is_game_breaking():
    model = load_model(TRAP)
    result = analyse_model(model, Settings())
    stuck = option(result, "pit", "stuck")
    assert stuck.classification == "game-breaking"
    assert stuck.divergence.steps == 1 and stuck.divergence.kind == "moves"
    assert stuck.impact.can_end is False and result.impact.can_end is True
    assert stuck.impact.probabilities == pytest.approx({"finished": 0.5, NEVER: 0.5})
    trap_state = explore_space(CompiledModel(model, stuck.config)).states[stuck.impact.trap[-1]]
    assert CompiledModel(model, stuck.config).layout.unpack(trap_state)["pos"] == 1


def test_moot_by_exploration_states_its_bound(tmp_path):
    # the reading is consulted, but only where no reachable state goes
    text = open(TRAP, encoding="utf-8").read().replace("(pos != 1 or reading.pit == climb)", "(pos != 1 or reading.pit == climb or pos == 1)")
    path = tmp_path / "trap.yaml"
    path.write_text(text, encoding="utf-8")
    result = analyse_model(load_model(str(path)), Settings())
    stuck = option(result, "pit", "stuck")
    assert stuck.classification == "moot"
    assert stuck.reasons[0].startswith("exhaustive: no reachable state of the 7")
    # on the page: moot within the checked bounds, not "in the model" (a larger bound may show it)
    page = "\n".join(readings_section([result.model], [], [result]))
    assert "- **moot (no difference within the checked bounds)**: exhaustive: no reachable state of the 7" in page


def test_a_reading_the_model_never_consults_is_moot_in_the_model():
    result = analyse_model(load_model(COIN), Settings())
    page = "\n".join(readings_section([result.model], [], [result]))
    assert "**moot (no difference in the model)**: no expression or `only` of the model consults this reading" in page


def test_moot_with_a_small_budget_is_bounded():
    model = load_model(COIN)
    base = model.default_config()
    found = find_divergence(model, base, base.with_readings({"tie": "reflip"}), max_states=3)
    assert not found.found and not found.complete and "state budget" in found.bound


@pytest.mark.parametrize("path, readings", [(DUEL, {}), (DUEL, {"tie": "defender"}), (COIN, {"tie": "reflip"}), (TRAP, {"pit": "stuck"})])
def test_exact_probabilities_agree_with_long_seeded_simulation(path, readings):
    """The linear solve and 20,000 seeded games of the same policy agree within 4.5 standard
    errors (a game still running after 500 steps counts as never ending)."""
    model = load_model(path)
    compiled = CompiledModel(model, model.default_config().with_readings(readings))
    exact = analyse(explore_space(compiled)).probabilities
    games = 20000
    report = simulate(compiled, games, seed=7, max_steps=500)
    assert set(exact) == {NEVER if o.startswith("unfinished") else o for o in report.outcomes}
    for outcome, p in exact.items():
        label = "unfinished after 500 steps" if outcome == NEVER else outcome
        seen = report.outcomes.get(label, 0) / games
        assert abs(seen - p) < 4.5 * math.sqrt(p * (1 - p) / games) + 1e-9, (path, outcome, p, seen)


def test_cli_json_and_markdown():
    runner = CliRunner()
    out = runner.invoke(main, ["readings", COIN, "--format", "json"])
    assert out.exit_code == 0, out.output
    doc = json.loads(out.output)
    options = doc["models"][0]["readings"][0]["options"]
    assert options[0]["classification"] == "outcome-changing"
    assert options[0]["divergence"]["at_divergence"]["option"]["moves"][0]["action"] == "tie_reflip"
    assert options[0]["impact"]["probabilities"]["ann_win"] == 0.5
    result = analyse_model(load_model(COIN), Settings())
    page = "\n".join(readings_section([result.model], [], [result]))
    assert "| odds | ann_win 25 %, bob_win 25 %, draw 50 % | ann_win 50 %, bob_win 50 %, draw 0 % |" in page  # whole percent: in full from `--format json`
    assert "`rulecheck readings models/coin/coin.yaml --between tie=reflip` prints it step by step): (1) Ann's coin shows 0. (2) Bob's coin shows 0." in page
    assert "| at the divergent step | under `default` | under `tie=reflip` |" in page
    assert page == "\n".join(readings_section([result.model], []))  # computes the same analysis itself
    assert impacts_json([result])["models"][0]["variant"] == "coin"


def test_cli_between_and_bad_input():
    runner = CliRunner()
    out = runner.invoke(main, ["readings", COIN, "--between", "tie=reflip", "--format", "json"])
    assert out.exit_code == 0, out.output
    found = json.loads(out.output)["divergences"][0]
    assert found["kind"] == "moves" and found["steps"] == 2
    bad = runner.invoke(main, ["readings", COIN, "--between", "tie=nope"])
    assert bad.exit_code == 2 and "--between tie=nope" in bad.output
    missing = runner.invoke(main, ["readings", "tests/models/no-such-game"])
    assert missing.exit_code == 2


def test_beyond_the_budget_probabilities_are_labelled_estimates():
    model = load_model(DUEL)
    compiled = CompiledModel(model, model.default_config())
    exact = analyse(explore_space(compiled)).probabilities
    bounded = analyse(explore_space(compiled, max_states=20), simulate_games=4000, seed=3)
    assert not bounded.complete and bounded.can_end is None and bounded.endless is None
    assert bounded.method.startswith("estimate: 4000 seeded random games (seed 3)")
    for outcome, p in exact.items():
        lo, hi = bounded.intervals[outcome]
        assert lo <= p <= hi  # 95% intervals; seed fixed, so this is deterministic
    again = analyse(explore_space(compiled, max_states=20), simulate_games=4000, seed=3)
    assert again.probabilities == bounded.probabilities


def test_an_exact_side_is_compared_by_its_probabilities_not_as_no_data():
    # A default explored whole has exact probabilities and no intervals; against an option only
    # estimated, each exact probability is its own interval (it used to count as [0, 0], so an
    # exact default that always ends showed no outcome at all).
    from checker.analysis.classify import classify
    from checker.analysis.divergence import Divergence

    model = load_model(DUEL)
    compiled = CompiledModel(model, model.default_config())
    exact = analyse(explore_space(compiled))
    estimated = analyse(explore_space(compiled, max_states=20), simulate_games=4000, seed=3)
    assert exact.complete and exact.intervals is None and not estimated.complete
    divergence = Divergence(model, model.default_config(), model.default_config(), found=True)
    label, reasons = classify(divergence, exact, estimated)
    assert label == "rules-visible", reasons  # the same game: the exact odds fall inside the estimate's intervals
    shifted = analyse(explore_space(compiled, max_states=20), simulate_games=4000, seed=3)
    shifted.intervals = {name: (0.0, 0.0) for name in exact.probabilities}
    label, reasons = classify(divergence, exact, shifted)
    name, p = sorted(exact.probabilities.items())[0]
    assert label == "odds-shifting" and f"{name} {p:.4g} (exact) \u2192 [0.000, 0.000]" in reasons[0]  # an exact side shown as its point


def test_section_names_the_verdicts_an_option_changes():
    from checker.pipeline.runner import CheckOptions, check_paths

    results = check_paths([TRAP], CheckOptions())
    model = results[0].model
    page = "\n".join(readings_section([model], results))
    assert "**game-breaking (changes whether the game can end or get stuck)**" in page
    assert "- property verdicts: breaks `can-always-end`" in page
    assert "| ending | can always still end: yes; stuck states: 0; longest game: " in page and "| can always still end: **no**; stuck states: 0; longest game: " in page


def test_cached_section_is_reused_and_keyed_on_content(tmp_path, monkeypatch):
    from checker.pipeline import readings as reading_impact

    model = load_model(COIN)
    first = reading_impact.cached_readings([model], [], str(tmp_path))
    assert len(list(tmp_path.iterdir())) == 1

    def no_analysis(*args, **kwargs):
        raise AssertionError("the cached section should have been used")

    monkeypatch.setattr(reading_impact, "analyse_for_errata", no_analysis)
    assert reading_impact.cached_readings([model], [], str(tmp_path)) == first
    other = load_model(TRAP)
    with pytest.raises(AssertionError):
        reading_impact.cached_readings([other], [], str(tmp_path))


def test_divergence_scenarios_show_the_state_as_narratives_do(tmp_path):
    """The scenario and its side-by-side cells hide internal slots and use labels, as the
    evidence traces do (a scenario once showed every internal slot under its model name)."""
    with open(COIN, encoding="utf-8") as handle:
        text = handle.read()
    text = text.replace("  phase: [flip_a, flip_b, judge, over]", "  phase: {type: [flip_a, flip_b, judge, over], internal: true}")
    text = text.replace('  ca: "int[0..1]"', '  ca: {type: "int[0..1]", label: "Ann\'s coin"}')
    path = tmp_path / "coin.yaml"
    path.write_text(text)
    model = load_model(str(path))
    base = model.default_config()
    lines = "\n".join(scenario_lines(find_divergence(model, base, base.with_readings({"tie": "reflip"}))))
    assert "0. Start: Ann's coin: 0; cb: 0; result: pending" in lines
    assert not re.search(r"(?<![\w-])(phase|ca)(: | \S+\u2192)", lines), lines
    draw_cell, reflip_cell = lines.splitlines()[-1].split(" | ")[1:3]
    assert "result pending\u2192draw" in draw_cell and "decided by Ann's coin: 0; cb: 0" in reflip_cell  # a reflip changes nothing shown: the tied coins decide it


def test_worker_processes_give_the_serial_section():
    # Each configuration explored in a worker process: the same options, classes and section.
    from checker.pipeline.runner import CheckOptions, check_paths

    results = check_paths([COIN, TRAP], CheckOptions())
    models = sorted({r.model.path: r.model for r in results}.values(), key=lambda m: m.path)
    for model in models:
        serial, parallel = analyse_model(model, Settings()), analyse_model(model, Settings(), jobs=2)
        assert [(o.option, o.classification, o.impact and o.impact.to_json()) for r in parallel.readings for o in r.options] == \
            [(o.option, o.classification, o.impact and o.impact.to_json()) for r in serial.readings for o in r.options]
        assert parallel.impact.to_json() == serial.impact.to_json()
        mine = [r for r in results if r.model.path == model.path]
        assert readings_section([model], mine, jobs=2) == readings_section([model], mine)
