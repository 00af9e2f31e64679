"""The odds with sensible players beside uniform ones, and a reading that changes who can force a
win while every outcome stays reachable: both computed from the recorded graph."""

from __future__ import annotations

import pytest

from checker.analysis.classify import classify
from checker.analysis.divergence import find_divergence
from checker.analysis.outcomes import analyse
from checker.engines.statespace import explore_space
from checker.lang.build import load_model
from checker.lang.compile import CompiledModel
from checker.pipeline.readings import analyse_for_errata, analysed
from checker.report.reading_impact import readings
from tests.symbolic_support import write_game

# Take-away from four counters, whoever takes the last one wins; the text is unclear whether a
# player may take up to two or up to three. Either way both players can win; with two the first
# player can force a win (take one), with three the second can (take what makes four).
NIM = """\
game: Take-away
id: m
players: [a, b]
domains: {take: {range: [1, 3]}}
readings:
  max_take:
    clause: r-1
    question: "May a player take up to two counters, or up to three?"
    options: {two: "up to two", three: "up to three"}
    default: two
state: {n: "int[0..4]", turn: player, over: bool, winner: player}
init: {n: 4, turn: a, over: false, winner: a}
terminal: over
outcome: winner
actions:
  take:
    by: turn
    for: {k: take}
    when: "not over and k <= n and (k <= 2 or reading.max_take == three)"
    do: {n: n - k, turn: succ(turn), over: "n - k == 0", winner: turn}
    rule: r-1
"""


def impact_of(tmp_path, reading: str):
    model = load_model(write_game(str(tmp_path), "nim", NIM))
    config = model.default_config().with_readings({"max_take": reading})
    return model, config, analyse(explore_space(CompiledModel(model, config)))


def test_the_odds_are_computed_for_uniform_greedy_and_cautious_players(tmp_path):
    # by hand, a to move from n counters (take one or two): uniform W(1)=1, W(2)=1/2, W(3)=1/4, W(4)=5/8;
    # greedy (takes the last counters when it can) W(2)=1, W(3)=0, W(4)=1/2; cautious (never leaves the
    # other a sure win) W(3)=0 (it takes one, and the other then takes two), W(4)=1/2
    _, _, impact = impact_of(tmp_path, "two")
    assert impact.probabilities == pytest.approx({"a": 0.625, "b": 0.375})
    assert impact.by_policy["greedy"] == pytest.approx({"a": 0.5, "b": 0.5})
    assert impact.by_policy["cautious"] == pytest.approx({"a": 0.5, "b": 0.5})


def test_a_reading_that_changes_who_can_force_a_win_but_not_who_can_win_is_reported_so(tmp_path):
    model, two, base = impact_of(tmp_path, "two")
    _, three, alt = impact_of(tmp_path, "three")
    assert set(base.outcomes) == set(alt.outcomes) == {"a", "b"}
    assert [(f.side, f.chance_adversarial) for f in base.forced] == [("a", "yes"), ("b", "no")]
    assert [(f.side, f.chance_adversarial) for f in alt.forced] == [("a", "no"), ("b", "yes")]
    label, reasons = classify(find_divergence(model, two, three), base, alt)
    assert label == "outcome-changing" and reasons[0] == "which side can force a win changes"
    assert any(r.startswith("with greedy players, outcome odds change") for r in reasons)
    _, rows = readings([model], [], *analysed([model], impacts=analyse_for_errata([model])))
    assert rows[0].consequences == ("`three`: changes who can force a win",)
