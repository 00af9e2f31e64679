"""The Readings section's growth re-check decides by a seeded search what breadth first cannot:
a witness of an existential verdict (a state from which the game never ends, an outcome reached)
met in the larger game and confirmed in the interpreter (`checker.analysis.witness.find_verdict`).

The toy games walk down a track of `length` steps while marking a tally of `rounds` (to widen
the game); both are marked bounds. The analysis's budget holds every checked configuration and
the larger ones below it only where said, so breadth first overruns where the search decides.
"""

from __future__ import annotations

import textwrap

from checker.analysis import reading_growth
from checker.analysis.evidence import CAN_END, ENDS_SURELY, OUTCOME
from checker.analysis.impact import Settings
from checker.analysis.witness import Witnessed, find_verdict
from checker.evidence.growth_check import Outcome
from checker.lang.build import load_model
from checker.lang.model import Config
from checker.pipeline.readings import analyse_model

TRACK = """\
game: {game}
id: {game}
players: [ann]
constants:
  length: {{type: int, range: [1, 60], default: 3, bound: true, doc: "steps of the track"}}
  rounds: {{type: int, range: [0, 60], default: 30, bound: true, doc: "marks on the tally"}}
readings:
{readings}
state:
  pos: "int[0..60]"
  tally: "int[0..60]"
  pit: "int[0..2]"
  result: [pending, finished, jumped]
init: {{pos: 0, tally: 0, pit: 0, result: pending}}
terminal: result != pending
outcome: result
actions:
  step:
    by: ann
    when: pos < length and pit == 0 and result == pending
    do: {{pos: pos + 1}}
    rule: t-1
  mark:
    by: ann
    when: tally < rounds and pit == 0 and result == pending
    do: {{tally: tally + 1}}
    rule: t-1
{actions}
clauses:
  t-1: {{at: "1", says: "Step along the track or mark the tally."}}
  t-2: {{at: "2", says: "At the end, finish; or fall, or jump."}}
"""

def _actions(text: str) -> str:
    return textwrap.indent(textwrap.dedent(text), "  ")


# `pit=open`: at the end of the track the player may also fall into a pit where play spins for
# ever, whatever the bounds: a change that survives. 155 and 217 states checked; 192 and 256
# with every bound one step larger, so a budget of 230 holds the larger default only.
PIT = TRACK.format(game="pit", readings=textwrap.indent(textwrap.dedent("""\
    pit:
      clause: t-2
      question: May the player fall into the pit?
      options: {closed: no, open: yes}
      default: closed"""), "  "), actions=_actions("""\
      finish:
        by: ann
        when: pos == length and pit == 0 and result == pending
        do: {result: finished}
        rule: t-2
      fall:
        by: ann
        when: pos == length and pit == 0 and result == pending
        do: {pit: 1}
        rule: t-2
        only: {pit: open}
      spin:
        by: ann
        when: pit > 0
        do: {pit: 3 - pit}
        rule: t-2"""))

# `ledge=low`: at the end of the track, with the tally full, the player may jump off the ledge;
# from the high ledge only when the track is 4 steps or longer. With the checked 3 steps only the
# low ledge jumps (outcome-changing); one step more and both do: a bound artefact. The jump is
# the last state breadth first meets: 125 and 126 states checked, 162 each one step larger, so a
# budget of 150 holds neither larger game.
LEDGE = TRACK.format(game="ledge", readings=textwrap.indent(textwrap.dedent("""\
    ledge:
      clause: t-2
      question: From which ledge may the player jump?
      options: {high: only from a track of 4 steps or more, low: from any}
      default: high"""), "  "), actions=_actions("""\
      finish:
        by: ann
        when: pos == length and tally == rounds and result == pending
        do: {result: finished}
        rule: t-2
      jump_low:
        by: ann
        when: pos == length and tally == rounds and result == pending
        do: {result: jumped}
        rule: t-2
        only: {ledge: low}
      jump_high:
        by: ann
        when: pos == length and tally == rounds and length >= 4 and result == pending
        do: {result: jumped}
        rule: t-2
        only: {ledge: high}"""))


def _impact(tmp_path, text: str, max_states: int):
    name = text.split("\n")[0].split(": ")[1]
    path = tmp_path / f"{name}.yaml"
    path.write_text(text)
    return analyse_model(load_model(str(path)), Settings(max_states=max_states))


def test_a_state_that_never_ends_met_by_a_search_keeps_a_game_breaking_line(tmp_path, monkeypatch):
    impact = _impact(tmp_path, PIT, 230)
    option = impact.readings[0].options[0]
    assert (option.classification, impact.impact.states, option.impact.states) == ("game-breaking", 155, 217)
    check = reading_growth.recheck_readings([impact], Settings(max_states=230))[("pit", "pit", "open")]
    assert check.outcome == Outcome.SURVIVES and check.grown == "length 3\u21924, rounds 30\u219231"
    searched = int(check.evidence.split("a seeded search after ")[1].split(" ")[0])
    assert check.evidence == (f"the default: the game can always still end, the option: the game cannot always still end (a seeded search after {searched} states); "
                              f"the default: the game ends with probability 1, the option: the game may never end (a seeded search after {searched} states)")
    assert reading_growth.recheck_readings([impact], Settings(max_states=230))[("pit", "pit", "open")] == check  # seeded: the same every run
    # Without the search, breadth first cannot have the larger option (256 states): it is not even
    # explored, predicted past the budget from the larger default's growth.
    monkeypatch.setattr(reading_growth, "find_verdict", lambda *_args: Witnessed(False, 0))
    undecided = reading_growth.recheck_readings([impact], Settings(max_states=230))[("pit", "pit", "open")]
    assert undecided.outcome == Outcome.NOT_RECHECKED and "the option: would pass 230 states (about 268: the default grows from 155 to 192)" in undecided.reason


def test_an_outcome_met_by_searches_under_both_readings_makes_the_line_vanish(tmp_path, monkeypatch):
    impact = _impact(tmp_path, LEDGE, 150)
    option = impact.readings[0].options[0]
    assert (option.classification, impact.impact.states, option.impact.states) == ("outcome-changing", 125, 126)
    check = reading_growth.recheck_readings([impact], Settings(max_states=150))[("ledge", "ledge", "low")]
    assert check.outcome == Outcome.VANISHES and check.artefact and check.grown == "length 3\u21924, rounds 30\u219231"
    assert check.evidence.startswith("under both readings jumped is reachable (seeded searches after ")
    # Without the search neither larger game (162 states each) fits breadth first: nothing is decided.
    monkeypatch.setattr(reading_growth, "find_verdict", lambda *_args: Witnessed(False, 0))
    undecided = reading_growth.recheck_readings([impact], Settings(max_states=150))[("ledge", "ledge", "low")]
    assert undecided.outcome == Outcome.NOT_RECHECKED
    assert ("the default: undecided past its budget of 150 states; the option: would pass 150 states, as the larger default does "
            "(125 states with the checked bounds)") in undecided.reason


def test_a_verdict_witness_is_confirmed_in_the_interpreter(tmp_path):
    """The pit is found from the walks' last states; a budget too small finds nothing; the
    closed default has no such state, nor a jump with the checked bounds."""
    model = _impact(tmp_path, PIT, 230).model
    larger = {"length": 4, "rounds": 31}
    assert find_verdict(model, Config(larger, {"pit": "open"}), ENDS_SURELY, 230, 34).found
    assert find_verdict(model, Config(larger, {"pit": "open"}), CAN_END, 230, 34).found
    assert find_verdict(model, Config(larger, {"pit": "open"}), ENDS_SURELY, 3, 34) == Witnessed(False, 3)
    assert not find_verdict(model, Config(larger, {"pit": "closed"}), CAN_END, 230, 34).found
    ledge = _impact(tmp_path, LEDGE, 150).model
    assert not find_verdict(ledge, Config({"length": 3, "rounds": 30}, {"ledge": "high"}), OUTCOME + "jumped", 150, 34).found
    assert find_verdict(ledge, Config(larger, {"ledge": "high"}), OUTCOME + "jumped", 150, 34).found


def test_one_bound_growths_kept_by_searches_of_different_cost_say_their_evidence_once(tmp_path):
    impact = _impact(tmp_path, PIT, 230)
    option = impact.readings[0].options[0]

    def run(label: str, constants: dict) -> reading_growth.ReadingGrowth:
        if "," in label:  # every bound at once: undecided
            return reading_growth.ReadingGrowth(Outcome.NOT_RECHECKED, label, "over its budget")
        cost = 12 if label.startswith("length") else 1_204
        return reading_growth.ReadingGrowth(Outcome.SURVIVES, label, classification="game-breaking",
                                            evidence=f"the default: the game can always still end, the option: the game cannot always still end (a seeded search after {cost:,} states)")

    check = reading_growth._recheck(reading_growth._ModelRuns(impact, reading_growth._Allowance(0), 230), option, run)
    assert check.words() == ("survives with each bound one step larger on its own (length 3\u21924, rounds 30\u219231) (the default: the game can always "
                             "still end, the option: the game cannot always still end (seeded searches))")
