"""The growth re-check of the Readings section: an option's evidence re-checked with the
model's marked bounds one step larger (`checker.analysis.reading_growth`).

The toy `lastcard` game marks its deck size as a bound: `claim=opening` changes who can win only
with a one-card deck (it vanishes with two), `claim=last` with any deck (it survives); only the
reachability of `claimed` is re-checked for them. The toy `odds` game's `shade=dark` moves the
odds only, so its whole impact analysis is re-checked.
"""

from __future__ import annotations

import dataclasses
import os

from checker.analysis.impact import Settings
from checker.analysis.outcomes import Impact
from checker.analysis.reading_growth import SPENT, ReadingGrowth, _Allowance, _ModelRuns, _recheck, _whole_run, recheck_readings
from checker.evidence.growth_check import NO_BOUND, Outcome
from checker.lang.build import load_model
from checker.pipeline.readings import analyse_model, readings_section

MODELS = os.path.join(os.path.dirname(__file__), "impact", "models")
LASTCARD = os.path.join(MODELS, "lastcard", "lastcard.yaml")
COIN = os.path.join(MODELS, "coin", "coin.yaml")
ODDS = os.path.join(MODELS, "odds", "odds.yaml")


def test_an_option_that_needs_the_small_deck_vanishes_and_one_that_does_not_survives():
    impact = analyse_model(load_model(LASTCARD), Settings())
    assert {o.option: o.classification for r in impact.readings for o in r.options} == {"opening": "outcome-changing", "last": "outcome-changing"}
    checks = recheck_readings([impact], Settings())
    opening, last = checks[("lastcard", "claim", "opening")], checks[("lastcard", "claim", "last")]
    assert (opening.outcome, opening.grown) == (Outcome.VANISHES, "cards 1\u21922") and opening.artefact
    assert (last.outcome, last.grown, last.classification) == (Outcome.SURVIVES, "cards 1\u21922", "outcome-changing")
    assert last.evidence == "the default: claimed is unreachable, the option: claimed is reachable (a seeded search after 3 states)"
    assert opening.evidence == "under both readings claimed is unreachable"


def test_an_odds_only_option_is_rechecked_on_the_whole_analysis():
    impact = analyse_model(load_model(ODDS), Settings())
    dark = impact.readings[0].options[0]
    assert dark.classification == "odds-shifting"
    assert dark.reasons == ["outcome odds change (largest shift 17 percentage points (all_black, some_red)): all_black 0.5 \u2192 0.6667, some_red 0.5 \u2192 0.3333"]
    check = recheck_readings([impact], Settings())[("odds", "shade", "dark")]
    assert (check.outcome, check.grown, check.classification) == (Outcome.SURVIVES, "cards 1\u21922", "odds-shifting")
    assert check.words() == "survives with cards 1\u21922 (odds-shifting there)"


def test_an_option_moot_only_with_the_small_deck_is_found_out():
    """`pair=yes` is consulted only once two red cards are drawn, which one card never allows."""
    impact = analyse_model(load_model(ODDS), Settings())
    pair = impact.readings[1].options[0]
    assert pair.classification == "moot" and pair.reasons == ["exhaustive: no reachable state of the 5 tells them apart"]
    check = recheck_readings([impact], Settings())[("odds", "pair", "yes")]
    assert (check.outcome, check.grown, check.moot) == (Outcome.VANISHES, "cards 1\u21922", True)
    line = next(line for line in readings_section([load_model(ODDS)], [], [impact]) if line.startswith("- **moot"))
    assert line.startswith("- **moot with the checked bounds only**: exhaustive: no reachable state of the 5 tells them apart; growth re-check: with cards 1\u21922 "
                           "the readings part ways (After 2 steps legal under both, the enabled moves differ")


def test_the_page_does_not_publish_a_vanishing_option_as_an_outcome_change():
    page = readings_section([load_model(LASTCARD)], [])
    opening = next(line for line in page if line.startswith("- ") and "the odds move by about 50 points (claimed, drawn_out)" in line and "vanishes" in line)
    assert opening.startswith("- **bound artefact (outcome-changing with the checked bounds only)**")
    assert "growth re-check: vanishes with cards 1\u21922" in opening
    last = next(line for line in page if line.startswith("- ") and "survives" in line)
    assert last.startswith("- **outcome-changing (changes who can win)**")
    assert sum("**outcome-changing (changes who can win)**" in line for line in page) == 1
    assert page == readings_section([load_model(LASTCARD)], [])  # the same bytes again


def test_lines_that_cannot_be_rechecked_say_why():
    coin = readings_section([load_model(COIN)], [])
    changed = [line for line in coin if line.startswith("- **outcome-changing")]
    assert changed and all(f"growth re-check: not re-checked ({NO_BOUND})" in line for line in changed)
    # a budget that cannot hold 4 times the checked analysis (5 states) still holds the larger
    # game (7 states): each configuration is tried within its own budget, not skipped for the
    # model's largest (which left every Ultimate three-player odds line undecided)
    impact = analyse_model(load_model(ODDS), Settings(max_states=15))
    check = recheck_readings([impact], Settings(max_states=15))[("odds", "shade", "dark")]
    assert check.words() == "survives with cards 1\u21922 (odds-shifting there)"
    # with a budget below the larger default, the line says so (and is decided by estimate:
    # tests/test_estimated_odds.py)
    impact = analyse_model(load_model(ODDS), Settings(max_states=6))
    check = recheck_readings([impact], Settings(max_states=6))[("odds", "shade", "dark")]
    assert check.reason == "the default passes 6 states" and check.estimated
    # the verdicts of `lastcard` need no whole analysis: the same budget decides them
    impact = analyse_model(load_model(LASTCARD), Settings(max_states=15))
    assert {c.outcome for c in recheck_readings([impact], Settings(max_states=15)).values()} == {Outcome.VANISHES, Outcome.SURVIVES}


def test_the_allowance_stops_the_rechecks_of_one_game():
    """One game's verdict re-checks share VERDICT_ALLOWANCE x max_states states (256 here; one
    pass over the model explores 27: the seeded search of `opening` for `claimed`, which spends
    its whole budget of 16 (there is none), the larger default and option breadth first, 4 each,
    and the search that meets `claimed` under `last`, 3): past it, lines are not run, and say so."""
    impact = analyse_model(load_model(LASTCARD), Settings(max_states=16))
    assert recheck_readings([impact] * 9, Settings(max_states=16))[("lastcard", "claim", "opening")].outcome == Outcome.VANISHES
    spent = recheck_readings([impact] * 11, Settings(max_states=16))  # the eleventh pass finds the allowance spent
    assert {(c.outcome, c.reason) for c in spent.values()} == {(Outcome.NOT_RECHECKED, SPENT)}


def test_the_cheap_rechecks_do_not_starve_the_whole_analyses():
    """The early-stopping re-checks and the odds-shifting lines' whole analyses have allowances
    of their own: twelve passes over `lastcard` spend the first (320 states here), and the odds
    game's whole analysis, which comes after them, is still re-checked."""
    settings = Settings(max_states=20)
    lastcard, odds = analyse_model(load_model(LASTCARD), settings), analyse_model(load_model(ODDS), settings)
    checks = recheck_readings([lastcard] * 12 + [odds], settings)
    assert checks[("lastcard", "claim", "opening")].reason == SPENT
    assert checks[("odds", "shade", "dark")].outcome == Outcome.SURVIVES


def test_a_line_kept_by_some_one_bound_growths_says_so_without_a_contradiction():
    """Every bound at once and one single growth decide nothing, the other single keeps the
    line: it is neither "survives" nor a bare "not re-checked (survives ...)"."""
    model = load_model(ODDS)
    model.constants["jokers"] = dataclasses.replace(model.constants["cards"], name="jokers")
    impact = analyse_model(model, Settings())
    dark = impact.readings[0].options[0]

    def run(label: str, constants: dict) -> ReadingGrowth:
        if label == "cards 1\u21922":
            return ReadingGrowth(Outcome.SURVIVES, label, classification="odds-shifting")
        return ReadingGrowth(Outcome.NOT_RECHECKED, label, "over its budget")

    check = _recheck(_ModelRuns(impact, _Allowance(0), 100), dark, run)
    assert check.outcome == Outcome.NOT_RECHECKED and not check.artefact
    assert check.words() == ("survives each one-bound growth that was decided (1 of 2: cards 1\u21922; not a re-check of every bound); "
                             "not decided: jokers: over its budget; every bound at once: over its budget")


def test_an_option_predicted_past_its_budget_is_not_explored():
    """The larger option grows, roughly, as the shared larger default did: one predicted past
    its budget costs nothing (a prediction saves an exploration; it is never evidence)."""
    impact = analyse_model(load_model(ODDS), Settings())
    dark = impact.readings[0].options[0]
    allowance = _Allowance(1000)
    runs = _ModelRuns(impact, allowance, 100)
    runs.defaults["cards 1\u21922"] = Impact(True, "exhaustive", 200)  # as if the larger default had 40 times the checked 5 states
    check = _whole_run(runs, dark)("cards 1\u21922", {"cards": 2})
    assert check.reason == "the option would pass 100 states (about 200: the default grows from 5 to 200)"
    assert allowance.left == 1000


def test_a_larger_default_explored_whole_for_a_verdict_is_not_explored_again_for_its_size(monkeypatch):
    """The larger default's whole analysis first needs its size; a verdict run that explored it
    whole has counted it. The allowance is spent as if it ran again (what is published stays
    the same), and the analysis is the one a fresh size run leads to."""
    from checker.analysis import reading_growth
    from checker.analysis.evidence import CAN_END

    impact = analyse_model(load_model(ODDS), Settings())
    label, constants = "cards 1\u21922", {"cards": 2}
    fresh = _ModelRuns(impact, _Allowance(10_000), 1_000)
    expected = fresh.default(label, constants)
    runs = _ModelRuns(impact, _Allowance(10_000), 1_000)
    side = runs.default_side(label)
    runs.explore(side, constants, [CAN_END], label)
    assert side.last is not None and side.last.complete
    sizes: list[int] = []
    real = reading_growth.decide
    monkeypatch.setattr(reading_growth, "decide", lambda *args, **kwargs: sizes.append(args[2]) or real(*args, **kwargs))
    assert runs.default(label, constants) == expected
    assert sizes == []
    assert runs.allowance.left == fresh.allowance.left - side.last.states  # the verdict run, then what the fresh one spent


def test_a_larger_default_a_verdict_run_found_past_the_budget_is_not_explored_again_for_its_size(monkeypatch):
    """A verdict run of the larger default that stopped past the analysis's budget counted the
    states the size run would count before stopping there too: the size run is not made again,
    and the allowance and the analysis (none: past the budget) are what the fresh run gives, at
    every budget the larger game passes."""
    from checker.analysis import reading_growth
    from checker.analysis.evidence import CAN_END

    impact = analyse_model(load_model(ODDS), Settings())
    label, constants = "cards 1\u21922", {"cards": 2}
    whole = _ModelRuns(impact, _Allowance(10_000), 1_000)
    whole.explore(whole.default_side(label), constants, [CAN_END], label)
    size = whole.default_side(label).last.states
    real = reading_growth.decide
    sizes: list[int] = []  # the budgets of the size runs made
    monkeypatch.setattr(reading_growth, "decide", lambda *args, **kwargs: sizes.append(args[2]) or real(*args, **kwargs))
    checked = 0
    for budget in range(1, size):
        fresh = _ModelRuns(impact, _Allowance(10_000), budget)
        assert fresh.default(label, constants) is None
        runs = _ModelRuns(impact, _Allowance(10_000), budget)
        side = runs.default_side(label)
        runs.explore(side, constants, [CAN_END], label)
        if side.last.stopped_by != f"past its budget of {budget:,} states":
            continue  # decided before the budget: a size run is needed
        sizes.clear()
        assert runs.default(label, constants) is None
        assert sizes == []
        assert runs.allowance.left == fresh.allowance.left - side.last.states
        checked += 1
    assert checked > 0
