"""Estimated odds: a seeded simulation's 95% intervals, compared with an exact side or another
estimate, and the growth re-check of an odds-shifting line decided by estimate where the whole
larger game is over budget.
"""

from __future__ import annotations

from checker.analysis.classify import classify
from checker.analysis.divergence import Divergence
from checker.analysis.outcomes import Impact


def impact(exact: dict[str, float] | None = None, intervals: dict[str, tuple[float, float]] | None = None) -> Impact:
    if exact is not None:
        return Impact(True, "exhaustive", 10, {k: 1 for k in exact}, probabilities=exact, can_end=True)
    assert intervals is not None
    return Impact(False, "state budget of 5 reached", 5, probabilities={k: (lo + hi) / 2 for k, (lo, hi) in intervals.items()}, intervals=intervals)


FOUND = Divergence(None, None, None, found=True, states=3)  # type: ignore[arg-type]  # classify reads only `found`


def test_an_exact_side_is_a_point_not_an_empty_interval():
    """SMS showdown's default fits the budget and its options do not: the default's exact odds
    (heroes_win 0.9747) lie inside the option's interval, so nothing is shown to shift; read as
    [0, 0], its missing interval made every such line "odds-shifting"."""
    base = impact(exact={"heroes_win": 0.9747, "villains_win": 0.0253})
    alt = impact(intervals={"heroes_win": (0.971, 0.984), "villains_win": (0.016, 0.029)})
    cls, reasons = classify(FOUND, base, alt)
    assert cls == "rules-visible" and "do not separate" in reasons[0]
    moved = impact(intervals={"heroes_win": (0.90, 0.93), "villains_win": (0.07, 0.10)})
    cls, reasons = classify(FOUND, base, moved)
    assert cls == "odds-shifting"
    assert reasons[0] == ("estimated (seeded simulation, 95% intervals do not overlap): heroes_win 0.9747 (exact) \u2192 [0.900, 0.930], "
                          "villains_win 0.0253 (exact) \u2192 [0.070, 0.100]")


def test_games_cut_short_are_compared_only_between_estimates():
    base = impact(exact={"heroes_win": 0.5, "villains_win": 0.5})
    alt = impact(intervals={"heroes_win": (0.45, 0.55), "villains_win": (0.40, 0.50), "unfinished after 1000 steps": (0.04, 0.06)})
    assert classify(FOUND, base, alt)[0] == "rules-visible"
    other = impact(intervals={"heroes_win": (0.45, 0.55), "villains_win": (0.45, 0.55)})
    cls, reasons = classify(FOUND, other, alt)
    assert cls == "odds-shifting" and "unfinished after 1000 steps [0.000, 0.000] \u2192 [0.040, 0.060]" in reasons[0]


def test_an_odds_line_over_budget_at_the_larger_bounds_is_decided_by_estimate(monkeypatch):
    """The toy `odds` game with a budget (6 states) that holds the checked game (5) but not the
    larger default: the seeded simulation of both larger configurations decides the line,
    labelled as an estimate; with too few games to separate, it is "not shown", never
    "vanishes"; with no allowance of simulated moves, the exact re-check's reason stands."""
    from checker.analysis import reading_growth
    from checker.analysis.impact import Settings
    from checker.analysis.reading_growth import recheck_readings
    from checker.evidence.growth_check import Outcome
    from checker.lang.build import load_model
    from checker.pipeline.readings import analyse_model
    from tests.test_reading_growth import ODDS

    settings = Settings(max_states=6)
    impact = analyse_model(load_model(ODDS), settings)
    check = recheck_readings([impact], settings)[("odds", "shade", "dark")]
    assert check.outcome == Outcome.SURVIVES and check.estimated and not check.artefact
    words = check.words()
    assert words.startswith("survives (estimated with cards 1\u21922: 2,000 seeded games each (seed 0), 95% intervals do not overlap: all_black [")
    assert words.endswith("; not decided exactly: the default passes 6 states)")
    assert recheck_readings([analyse_model(load_model(ODDS), settings)], settings)[("odds", "shade", "dark")].words() == words  # byte-stable
    few = Settings(max_states=6, games=10)
    shown = recheck_readings([analyse_model(load_model(ODDS), few)], few)[("odds", "shade", "dark")]
    assert shown.outcome == Outcome.NOT_RECHECKED and shown.estimated
    assert shown.words() == ("not shown at the larger bounds (estimated with cards 1\u21922: 10 seeded games each (seed 0), 95% intervals overlap; "
                             "not decided exactly: the default passes 6 states)")
    monkeypatch.setattr(reading_growth, "ESTIMATE_MOVES", 0)
    assert recheck_readings([impact], settings)[("odds", "shade", "dark")].words() == "not re-checked (the default passes 6 states)"
