"""The Supershow multiplayer models: clause coverage, readings, and a few rule-level facts.

The full property suite runs in the bundled-evidence test; these are quick checks that every
match-type model keeps its promises to the clause index and that single steps follow the text.
"""

from __future__ import annotations

import os

import yaml

from checker.lang.build import load_model
from checker.lang.compile import CompiledModel
from checker.lang.interp import Interpreter
from checker.lang.model import Config
from checker.lang.properties import load_suite
from checker.lint.checks import coverage, question_coverage

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FOLDER = os.path.join(ROOT, "models", "supershow")
SUITE = os.path.join(ROOT, "properties", "supershow.yaml")
VARIANTS = sorted(f for f in os.listdir(FOLDER) if f.endswith(".yaml") and f not in ("clauses.yaml", "questions.yaml"))
COLD_READING = "/work/coldread/supershow.yaml"


def _citations() -> set[str]:
    with open(SUITE, encoding="utf-8") as fh:
        props = yaml.safe_load(fh)["properties"]
    return {c for p in props for c in p.get("clauses", [])}


def _states(name: str, keep=lambda s: True, limit: int = 200_000, **constants):
    """Breadth-first over the default configuration (with `constants` overridden), yielding
    (state, successor) pairs."""
    model = load_model(os.path.join(FOLDER, name))
    default = model.default_config()
    compiled = CompiledModel(model, Config({**default.constants, **constants}, default.readings))
    unpack = compiled.layout.unpack
    frontier, seen = list(compiled.initial), set(compiled.initial)
    while frontier and len(seen) < limit:
        nxt = []
        for s in frontier:
            before = unpack(s)
            if not keep(before):
                continue
            for _, t in compiled.successors(s):
                yield before, unpack(t)
                if t not in seen:
                    seen.add(t)
                    nxt.append(t)
        frontier = nxt


def test_every_clause_is_formalised_or_out_of_scope():
    cited = _citations()
    for name in VARIANTS:
        cov = coverage(load_model(os.path.join(FOLDER, name)), cited)
        assert not cov.unhandled, f"{name}: clauses not handled: {cov.unhandled}"
        assert cov.accounted_percent >= 95.0


def test_each_variant_sets_its_players():
    counts = {}
    for name in VARIANTS:
        model = load_model(os.path.join(FOLDER, name))
        if not model.abstract:
            counts[model.id] = len(model.domains["player"].members)
    assert counts["triple-threat-elimination"] == counts["handicap"] == counts["tag-team-3"] == 3
    assert counts["tornado-tag"] == counts["fatal-four-way-elimination"] == counts["fatal-four-way-first-fall"] == 4
    assert counts["birdcage"] == 6


def _play(name: str, moves: list[tuple[str, dict]], **readings: str):
    """Plays an exact sequence of moves from the first initial state; a step the sequence does not
    name is taken when it is the only move enabled. Returns the interpreter and the last state."""
    model = load_model(os.path.join(FOLDER, name))
    config = model.default_config()
    if readings:
        config = config.with_readings(readings)
    interp = Interpreter(model, config)
    state = interp.initial_states()[0]
    for action, params in moves:
        while True:
            moves_now = interp.transitions(state)
            wanted = [t for t in moves_now if t.action == action and all(dict(t.params).get(k) == v for k, v in params.items())]
            if wanted:
                state = wanted[0].post
                break
            assert len(moves_now) == 1, f"{action} {params} is not enabled; moves: {[(t.action, t.params) for t in moves_now]}"
            state = moves_now[0].post
    return interp, state


def test_every_cold_reading_question_is_listed_and_every_question_answered():
    """Each question of the independent cold reading keeps its id; lint finds an answer for all."""
    model = load_model(os.path.join(FOLDER, "base.yaml"))
    by_id = {q.id: q for q in model.questions}
    if os.path.isfile(COLD_READING):
        with open(COLD_READING, encoding="utf-8") as fh:
            cold = yaml.safe_load(fh)["questions"]
        assert {q["id"] for q in cold} <= set(by_id)
        assert all(by_id[q["id"]].raised_by == "cold-reading" for q in cold)
    suite = load_suite(SUITE)
    for name in VARIANTS:
        found = question_coverage(load_model(os.path.join(FOLDER, name)), suite)
        assert not found.open, f"{name}: open questions {found.open}"


TT_OPENING = [("draw", {"p": "p1"}), ("draw", {"p": "p2"}), ("draw", {"p": "p3", "k": "lead"})]


def test_a_same_skill_pair_with_different_numbers_has_a_highest_roller():
    """SS-TTE-17 can act: 1/A and 2/A lose to 3/B and double team; the 2 plays first."""
    _, state = _play("triple-threat-elimination.yaml", TT_OPENING + [
        ("turn_roll", {"p": "p1", "f": 1}), ("turn_roll", {"p": "p2", "f": 2}), ("turn_roll", {"p": "p3", "f": 4}),
        ("double_team", {"p": "p1", "q": "p2"}),
    ])
    assert state["phase"] == "play" and state["actor"] == "p2"
    assert state["foe"][("p3",)] and not state["foe"][("p1",)]


def test_the_same_number_of_different_skills_is_no_double_team():
    """2/A and 2/B are the same number but not the same SKILL: no double team against 3/B."""
    interp, state = _play("triple-threat-elimination.yaml", TT_OPENING + [
        ("turn_roll", {"p": "p1", "f": 2}), ("turn_roll", {"p": "p2", "f": 3}), ("turn_roll", {"p": "p3", "f": 4}),
        ("tally", {}), ("offer", {}),
    ])
    assert state["phase"] == "resolved"
    assert [t.action for t in interp.transitions(state)] == ["win_turn"]


def test_a_partner_who_won_the_roll_may_double_team_with_the_same_skill():
    """SS-HC-14: tag team partners double team even if one of them would not have lost."""
    _, state = _play("handicap.yaml", TT_OPENING + [
        ("turn_roll", {"p": "p1", "f": 4}), ("turn_roll", {"p": "p2", "f": 3}), ("turn_roll", {"p": "p3", "f": 1}),
        ("double_team", {"p": "p1", "q": "p2"}), ("pick_first", {"f": "p2"}),
    ])
    assert state["actor"] == "p2" and state["att"][("p1",)] and state["att"][("p2",)]
    assert state["foe"][("p3",)] and not state["foe"][("p1",)]


def test_protecting_acts_on_a_card_played_against_another_player():
    """The cards-cross-piles finding: Player 3's stop cancels a lead Player 1 played against Player 2."""
    _, state = _play("triple-threat-elimination.yaml", [
        ("draw", {"p": "p1"}), ("draw", {"p": "p2"}), ("draw", {"p": "p3", "k": "stop"}),
        ("turn_roll", {"p": "p1", "f": 4}), ("turn_roll", {"p": "p2", "f": 1}), ("turn_roll", {"p": "p3", "f": 3}),
        ("play_lead", {"q": "p2"}), ("no_stop", {}), ("protect_yes", {"p": "p3"}), ("rolloff", {"w": "p3"}),
    ])
    assert state["phase"] == "protecting" and state["target"] == "p2"
    assert state["inplay"][("p1", "p2")] == 0


TEAM_UP_OTHER_SKILL = TT_OPENING + [
    ("turn_roll", {"p": "p1", "f": 1}), ("turn_roll", {"p": "p2", "f": 4}), ("turn_roll", {"p": "p3", "f": 3}),
    ("play_lead", {"q": "p3"}), ("no_stop", {}), ("no_call", {}),
    ("turn_roll", {"p": "p1", "f": 4}), ("turn_roll", {"p": "p2", "f": 1}), ("turn_roll", {"p": "p3", "f": 3}),
    ("play_lead", {"q": "p3"}), ("no_stop", {}), ("no_call", {}),
    ("turn_roll", {"p": "p1", "f": 4}), ("turn_roll", {"p": "p2", "f": 1}), ("turn_roll", {"p": "p3", "f": 3}),
    ("play_finish", {"q": "p3"}), ("no_stop", {}), ("finish_roll", {"f": 2}),
    ("team_up_yes", {"p": "p2"}), ("teamup_roll", {"p": "p2", "f": 3}),
]


def test_a_team_up_roll_of_another_skill_costs_the_pile_only_under_the_fatal_four_wording():
    """The team-up-cost finding: Player 2 teams up with Player 1's finish on Player 3 and rolls 2/B
    against the finish roll's 2/A; the Triple Threat wording keeps their pile, the Fatal 4 Way's discards it."""
    _, kept = _play("triple-threat-elimination.yaml", TEAM_UP_OTHER_SKILL)
    assert kept["inplay"][("p2", "p3")] == 1 and kept["frb"] == 0
    _, lost = _play("triple-threat-elimination.yaml", TEAM_UP_OTHER_SKILL, tu_discard="on_team_up")
    assert lost["inplay"][("p2", "p3")] == 0


def test_birdcage_draft_deals_each_of_three_entrants_two_of_every_number():
    """With 3 entrants the piles of 6 go round twice: nobody ends with a 1-30 deck (SS-BC-47)."""
    for before, after in _states("birdcage.yaml", keep=lambda s: s["phase"] in ("draft_comp", "draft_cards")):
        if before["phase"] == "draft_cards" and after["phase"] == "roll":
            assert [after["drafted"][(p,)] for p in ("p1", "p2", "p3")] == [4, 4, 4]  # 2 piles x 2 copies
            return
    raise AssertionError("the draft never ended")


def _drafted_decks(entrants: int, piles: int = 2) -> set[tuple[int, ...]]:
    """Every deck size outcome of the Birdcage draft, one tuple of cards per entrant."""
    out = set()
    in_draft = lambda s: s["phase"] in ("draft_comp", "draft_cards")  # noqa: E731
    for before, after in _states("birdcage.yaml", keep=in_draft, entrants=entrants, piles=piles):
        if before["phase"] == "draft_cards" and after["phase"] == "roll":
            out.add(tuple(after["drafted"][(f"p{i}",)] for i in range(1, entrants + 1)))
    return out


def test_birdcage_draft_for_every_entrant_count_the_stipulation_allows():
    """bc-draft-even is checked at 3 entrants; here every count from 2 to 6: the piles of 6 share
    evenly with 2, 3 and 6 entrants only, and no count yields the promised 1-30 deck (27 numbers)."""
    piles = 2
    decks = {n: _drafted_decks(n, piles) for n in range(2, 7)}
    assert decks[2] == {(6, 6)} and decks[3] == {(4, 4, 4)} and decks[6] == {(2,) * 6}
    for n in (4, 5):
        assert all(len(set(d)) > 1 for d in decks[n]), n  # uneven whoever starts
    assert all(cards != piles + 3 for ds in decks.values() for d in ds for cards in d)
    assert all(cards == piles for d in decks[6] for cards in d)  # 6 entrants: one of each number, no more


def test_protecting_leaves_the_protector_without_cards_despite_the_referee_gimmick():
    """SS-TTE-25: after protecting, zero cards in hand, even though the referee's gimmick draws one."""
    seen = 0
    for before, after in _states("special-guest-referee.yaml"):
        if before["phase"] == "protecting" and after["phase"] == "play":
            for (p,), v in before["ask"].items():
                if v == 3:
                    assert all(n == 0 for (q, _k), n in after["hand"].items() if q == p)
                    seen += 1
        if seen >= 5:
            return
    assert seen, "no protect found"

