"""The title-belt models: review questions answered, clause coverage, and the double knock-out
that leaves a third player standing (reading dko_third), checked on the three-player Jobber deck.

The full property suite runs in the bundled-evidence test; these are quick checks of what the
audit of the model against the cold reading added.
"""

from __future__ import annotations

import os

from checker.lang.build import load_model
from checker.lang.properties import load_suite
from checker.lint.checks import coverage, question_coverage
from checker.pipeline.runner import CheckOptions, check_paths

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FOLDER = os.path.join(ROOT, "models", "titlebelt")
SUITE = os.path.join(ROOT, "properties", "titlebelt.yaml")
JOBBER = os.path.join(FOLDER, "three-player-jobber.yaml")
VARIANTS = ("two-player.yaml", "two-player-officials.yaml", "two-player-probe.yaml", "three-player.yaml", "three-player-jobber.yaml", "four-player.yaml")


def test_every_cold_reading_question_is_answered_in_every_variant():
    suite = load_suite(SUITE)
    for name in VARIANTS:
        model = load_model(os.path.join(FOLDER, name))
        # the 37 questions of the first cold reading, 24 of the later ones (q-cr-*: items nothing
        # covered before; the last four: a prevented turn, the belt last in the pile, a prevented
        # card's reshuffle, a Referee's timing), and the 6 the modeller's reread raised
        assert sum(q.raised_by == "cold-reading" for q in model.questions) == 67
        assert sum(q.id.startswith("q-cr-") for q in model.questions) == 30
        assert sum(q.raised_by == "modeller" for q in model.questions) == 6
        cov = question_coverage(model, suite)
        assert not cov.open, f"{name}: open questions {cov.open}"


def test_every_clause_is_formalised_read_assumed_or_out_of_scope_in_every_variant():
    """No clause of the index is settled silently (issue 14): each is cited by a rule, reading or
    property, settled by an assumption, or marked out of scope with its reason."""
    suite = load_suite(SUITE)
    cited = {c for p in suite for c in p.clauses}
    for name in VARIANTS:
        model = load_model(os.path.join(FOLDER, name))
        cov = coverage(model, cited)
        assert not cov.unhandled, f"{name}: clauses not handled: {cov.unhandled}"
        assert all(model.clauses[c].why for c in cov.out_of_scope)


def _results(reading: str, prop: str):
    options = CheckOptions(readings="default", pinned=dict([reading.split("=")]), only_properties={prop})
    (result,) = check_paths([JOBBER], options)
    return result


def test_double_knockout_with_a_third_standing_is_reachable():
    assert _results("dko_third=last_standing", "double-ko-third-standing").status == "holds"


def test_survivor_wins_by_default():
    assert _results("dko_third=last_standing", "survivor-wins").status == "holds"


def test_belt_holder_reading_takes_the_win_from_the_player_standing():
    """Under dko_third=belt_holder a game ends with one player still in who is not the winner:
    a knocked-out belt holder wins (or nobody does)."""
    result = _results("dko_third=belt_holder", "survivor-wins")
    assert result.status == "fails"
    last = result.trace.states()[-1]
    still_in = [p for p, active in last["active"].items() if active]
    assert len(still_in) == 1
    assert last["end_kind"] == "double_ko"
    assert not last["won"][still_in[0]]


def _turn_start_with_tag_team(readings: dict[str, str]) -> dict:
    """Player 1's turn starts with their Tag Team in front of them and only the belt in the draw
    pile (two-player-officials, so draw_card exists); the start of turn and its draw are played
    out, the belt revealed on the draw."""
    from checker.lang.compile import CompiledModel

    model = load_model(os.path.join(ROOT, "models", "titlebelt", "two-player-officials.yaml"))
    compiled = CompiledModel(model, model.default_config().with_readings(readings))
    state = compiled.layout.unpack(compiled.initial[0])
    state["hand"] = {key: 0 for key in state["hand"]}
    state["hand"][("p1", "foreign")] = 1
    state["hand"][("p2", "foreign")] = 1
    state["pile"] = {key: 0 for key in state["pile"]}
    state["discard"] = {key: 0 for key in state["discard"]}
    state["discard"][("heel",)] = 1
    state.update(phase="start", turn="p1", belt="in_pile")
    state["tag"][("p1",)] = True
    packed = compiled.layout.pack(state)
    for name in ("begin_turn", "reveal_belt", "draw_card", "draw_end"):
        moves = [post for i, post in compiled.successors(packed) if compiled.instances[i].action.name == name]
        if name == "draw_card" and not moves:
            continue  # the reshuffled pile may hold nothing to draw in the belt's place
        assert moves, f"{name} is not enabled in {compiled.layout.unpack(packed)}"
        packed = moves[0]
    return compiled.layout.unpack(packed)


def test_the_tag_team_misses_the_belts_reshuffle_only_if_the_draw_comes_first():
    """Reading tag_order: discarded before the draw, the Tag Team is shuffled back into the draw
    pile with the discard pile when the draw reveals the belt; discarded after it, it stays out."""
    first = _turn_start_with_tag_team({})
    assert not first["tag"][("p1",)] and first["pile"][("tagteam",)] + first["hand"][("p1", "tagteam")] == 1
    after = _turn_start_with_tag_team({"tag_order": "draw_first"})
    assert not after["tag"][("p1",)] and after["discard"][("tagteam",)] == 1 and after["pile"][("tagteam",)] == 0
