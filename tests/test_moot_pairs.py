"""A reading's option that changes nothing with the other readings at their defaults is
re-checked beside each option of the readings that gate it: "no effect" is only published when
it holds there too, and an effect that needs two readings changed together is reported as such."""

from __future__ import annotations

from checker.analysis.footprint import gating_partners
from checker.lang.build import load_model
from checker.pipeline import readings as pipeline
from checker.pipeline.readings import analyse_for_errata
from checker.report.reading_impact import readings
from tests.symbolic_support import write_game

# A lone player who plays their last card is counted out only where count outs are in effect
# (off by default); whether the lone player then wins (`solo_co`) cannot matter while they are
# off. `announce` is consulted by the count-out rule but never changes what it does.
COUNT_OUT = """\
game: Count out
id: m
players: [a, b]
clauses:
  r-1: {at: "1", says: "Count outs are in effect if the GM says so."}
  r-2: {at: "2", says: "A player with no cards is counted out."}
readings:
  count_outs:
    clause: r-1
    question: "Are count outs in effect?"
    options: {off: "no", "on": "yes"}
    default: "off"
  solo_co:
    clause: r-2
    question: "Does the lone player win by count out?"
    options: {singles: "yes, as in singles", team_only: "no, only a team can"}
    default: singles
  announce:
    clause: r-2
    question: "Is the count out announced?"
    options: {loud: "aloud", quiet: "quietly"}
    default: loud
state: {empty: bool, over: bool, winner: player}
init: {empty: false, over: false, winner: b}
terminal: over
outcome: winner
actions:
  play_last: {by: a, when: "not over and not empty", do: {empty: true}, rule: r-2}
  keep: {by: a, when: "not over and not empty", do: {over: true, winner: b}, rule: r-2}
  count_out: {by: rules, when: "not over and empty and reading.count_outs == on and (reading.announce == loud or true)", do: {over: true, winner: "a if reading.solo_co == singles else b"}, rule: r-2}
  fall: {by: rules, when: "not over and empty and reading.count_outs == off", do: {over: true, winner: b}, rule: r-1}
"""


def analysed(tmp_path):
    model = load_model(write_game(str(tmp_path), "co", COUNT_OUT))
    impacts = analyse_for_errata([model])
    options = {(o.reading, o.option): o for r in impacts[0].readings for o in r.options}
    return model, impacts, options


def test_the_readings_that_gate_one_share_its_clause_or_an_action_that_consults_it(tmp_path):
    model = load_model(write_game(str(tmp_path), "co", COUNT_OUT))
    assert gating_partners(model, "solo_co") == ["count_outs", "announce"]  # count_out consults all three; announce shares r-2
    assert gating_partners(model, "count_outs") == ["solo_co", "announce"]


def test_an_effect_that_needs_two_readings_changed_together_is_reported(tmp_path):
    model, impacts, options = analysed(tmp_path)
    solo = options[("solo_co", "team_only")]
    assert solo.classification == "moot" and solo.pairs_checked == 2
    assert [(p.partner, p.classification) for p in solo.paired] == [(("count_outs", "on"), "outcome-changing")]
    assert any("loses a" in reason for reason in solo.paired[0].reasons)
    lines, rows = readings([model], [], *pipeline.analysed([model], impacts=impacts))
    row = next(r for r in rows if r.name == "solo_co")
    assert row.consequences == ("`team_only`: no effect with the other readings at their defaults; with `count_outs=on` it changes who can win",)
    block = "\n".join(lines).split('<a id="solo_co"></a>', 1)[1].split('<a id="announce"></a>', 1)[0]
    assert "with `count_outs=on`: **outcome-changing" in block and "*Divergence scenario* with `count_outs=on`" in block


def test_a_moot_option_is_published_as_moot_only_after_every_gating_combination(tmp_path):
    model, impacts, options = analysed(tmp_path)
    quiet = options[("announce", "quiet")]
    assert quiet.classification == "moot" and quiet.pairs_checked == 2 and quiet.paired == []
    _, rows = readings([model], [], *pipeline.analysed([model], impacts=impacts))
    row = next(r for r in rows if r.name == "announce")
    assert row.consequences == ("`quiet`: no effect on the game (also beside each of the 2 other option(s) of the readings that gate it)",)


def test_odds_are_worded_in_whole_points_with_the_right_number():
    from checker.report.reading_impact import _odds_words

    assert _odds_words(1.2, {}) == "changes the odds by about 1 point"
    assert _odds_words(6.4, {"cautious": 0.3}) == "changes the odds by about 6 points (under a point with cautious players)"
