"""The Ultimate Showdown models: clause and question coverage, and single steps checked against
the text on the compiled model (the wild card, going bust, the losing line).

The full property suite runs in the bundled-evidence test; these are quick checks that the
model keeps its promises to the clause index and that single steps follow the text.
"""

from __future__ import annotations

import itertools
import os

import pytest
import yaml

from checker.engines.explicit import Budget
from checker.lang.build import load_model
from checker.lang.compile import CompiledModel
from checker.lang.model import Config
from checker.lang.properties import bind, load_suite
from checker.lint.checks import coverage
from checker.pipeline.runner import CheckOptions, check_config

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FOLDER = os.path.join(ROOT, "models", "ultimate")
SUITE = os.path.join(ROOT, "properties", "ultimate.yaml")
COLD_READING_IDS = 71


def _suite() -> list[dict]:
    with open(SUITE, encoding="utf-8") as fh:
        return yaml.safe_load(fh)["properties"]


def _compiled(name: str = "two-player.yaml", **readings: str) -> CompiledModel:
    model = load_model(os.path.join(FOLDER, name))
    config = model.default_config()
    if readings:
        config = config.with_readings(readings)
    return CompiledModel(model, config)


def _reachable(compiled: CompiledModel, limit: int = 100_000):
    """Every reachable state (packed), breadth first."""
    frontier = list(compiled.initial)
    seen = set(frontier)
    while frontier and len(seen) < limit:
        nxt = []
        for s in frontier:
            yield s
            for _, t in compiled.successors(s):
                if t not in seen:
                    seen.add(t)
                    nxt.append(t)
        frontier = nxt


def _steps(compiled: CompiledModel, packed) -> list[tuple[str, object]]:
    out = []
    for instance_id, t in compiled.successors(packed):
        instance = compiled.instances[int(instance_id)]
        out.append((" ".join([instance.action.name] + [f"{k}={v}" for k, v in instance.params]), t))
    return out


def test_every_clause_and_question_is_accounted_for():
    cited = {c for p in _suite() for c in p.get("clauses", [])}
    for name in ("two-player.yaml", "three-player.yaml"):
        model = load_model(os.path.join(FOLDER, name))
        cov = coverage(model, cited)
        assert not cov.unhandled, f"{name}: clauses not handled: {cov.unhandled}"
        assert cov.accounted_percent == 100.0


def test_every_cold_reading_question_is_answered_once():
    suite = _suite()
    for name in ("two-player.yaml", "three-player.yaml"):
        model = load_model(os.path.join(FOLDER, name))
        questions = {q.id: q for q in model.questions}
        assert len([q for q in questions.values() if q.raised_by == "cold-reading"]) == COLD_READING_IDS
        answers: dict[str, int] = {}
        for reading in model.readings.values():
            for qid in reading.answers:
                answers[qid] = answers.get(qid, 0) + 1
        for assumption in model.assumptions:
            for qid in assumption.answers:
                answers[qid] = answers.get(qid, 0) + 1
        for prop in suite:
            for qid in prop.get("answers", []):
                answers[qid] = answers.get(qid, 0) + 1
        for qid, question in questions.items():
            n = answers.get(qid, 0) + (1 if question.out_of_scope else 0)
            assert n == 1, f"{name}: {qid} is answered {n} times"


def test_a_wild_techie_defeats_a_defender():
    """A wild card written as a Techie of 150 beats a Defender of 130 (Techie defeats Defender,
    US-SUI-5, and its value exceeds, US-VAL-2): after the tally the Defender is defeated."""
    compiled = _compiled()
    layout = compiled.layout
    for packed in _reachable(compiled):
        state = layout.unpack(packed)
        if state["phase"] != "write" or state["field_on"]:
            continue
        p = state["picker"]
        other = "b" if p == "a" else "a"
        steps = dict(_steps(compiled, packed))
        written = steps.get("write_wild s=techie w=1")
        if written is None:
            continue
        # follow the forced and the other player's steps until the tally is done, and look for a
        # line where the other player lays a Defender
        frontier = [written]
        while frontier:
            nxt = []
            for s in frontier:
                st = layout.unpack(s)
                if st["phase"] == "claim":
                    if st["hand"][(other, 1)] > 0:
                        assert st["dfd"][(other, 1)], "the Defender should be defeated by the wild Techie"
                        assert not st["dfw"][(p,)] or any(
                            st["hand"][(other, k)] + st["boosted"][(other, k)] > 0 for k in (0, 2)
                        )
                        return
                    continue
                nxt.extend(t for _, t in _steps(compiled, s))
            frontier = nxt
    raise AssertionError("no line where a wild Techie meets a Defender")


def test_the_player_with_fewer_cards_goes_bust():
    """After the cap is drawn, a player with fewer cards who cannot lay a hand within it loses
    (US-VAL-7): the only step is `bust`, and that player is marked as lost."""
    compiled = _compiled()
    layout = compiled.layout
    for packed in _reachable(compiled):
        state = layout.unpack(packed)
        if state["phase"] != "bustcheck":
            continue
        steps = _steps(compiled, packed)
        if [label for label, _ in steps] == ["bust"]:
            after = layout.unpack(steps[0][1])
            losers = [p for p in ("a", "b") if after["out"][(p,)]]
            assert len(losers) == 1
            chars = {p: sum(v for (q, _), v in state["hold"].items() if q == p) for p in ("a", "b")}
            assert chars[losers[0]] < min(c for p, c in chars.items() if p != losers[0])
            return
    raise AssertionError("no bust reachable")


def test_equal_counts_and_no_hand_is_a_dead_end():
    """The finding stuck-without-bust: when both players hold as many cards and one cannot lay a
    hand within the cap, nobody goes bust and the round cannot go on (a state without moves)."""
    compiled = _compiled()
    layout = compiled.layout
    for packed in _reachable(compiled):
        state = layout.unpack(packed)
        if state["phase"] == "lay" and not compiled.successors(packed):
            chars = {p: sum(v for (q, _), v in state["hold"].items() if q == p) for p in ("a", "b")}
            assert chars["a"] == chars["b"] or chars[state["picker"]] > min(chars.values())
            return
    raise AssertionError("no dead end reachable")


SUITS = ["attacker", "defender", "techie", "sage", "mage"]
LISTED = {("attacker", "mage"), ("defender", "attacker"), ("techie", "defender"), ("sage", "techie"), ("mage", "sage")}


def _matchup_verdicts() -> dict[tuple[str, str], tuple[str, bool, dict]]:
    """`matchup-decided` under the symbolic engine for each of the 15 pairs of suits: kinds 0
    and 2 get the first suit, kind 1 the second, and value_of is left free (every value 0..750).
    Returns each pair's verdict, whether it is proved, and the values of a counterexample."""
    model = load_model(os.path.join(FOLDER, "two-player.yaml"))
    props = [bind(p, model) for p in load_suite(SUITE) if p.id == "matchup-decided"]
    base = model.default_config()
    # no lemma exploration (max_states=1): the property reads constants only
    options = CheckOptions(engine="symbolic", depth=2, budget=Budget(max_states=1, timeout=120), free_constants={"value_of"})
    out = {}
    for s1, s2 in itertools.combinations_with_replacement(SUITS, 2):
        config = Config({**base.constants, "suit_of": {(0,): s1, (1,): s2, (2,): s1}}, base.readings)
        result = check_config(model, config, props, options)[0]
        values = dict(result.trace.config.constants["value_of"]) if result.trace is not None else {}
        out[(s1, s2)] = (result.status, result.proof, values)
    return out


@pytest.mark.slow
def test_matchups_quantified_over_every_value_symbolically():
    """The symbolic engine with the card values free (US-VAL-1: 0 to 750) reports the pairs of
    suits the text leaves undecided: the same suit is decided for every value (a proof), a
    listed pair only when the dominant card exceeds the other (the counterexample's dominant
    card does not), and the five unlisted pairs at no value (finding unlisted-suit-pairs)."""
    verdicts = _matchup_verdicts()
    undecided = sorted(pair for pair, (status, _, _) in verdicts.items() if status == "fails" and pair[0] != pair[1]
                       and pair not in LISTED and pair[::-1] not in LISTED)
    assert undecided == [("attacker", "sage"), ("attacker", "techie"), ("defender", "mage"), ("defender", "sage"), ("techie", "mage")]
    for (s1, s2), (status, proof, values) in verdicts.items():
        if s1 == s2:
            assert status == "holds" and proof, (s1, s2)
            continue
        assert status == "fails", (s1, s2)
        if (s1, s2) in LISTED or (s2, s1) in LISTED:
            dominant, inferior = ((0, 1) if (s1, s2) in LISTED else (1, 0))
            # kind 2 shares kind 0's suit: some card of the dominant suit fails to exceed kind 1 or kind 1 fails
            pairs = [(dominant, inferior)] + ([(2, 1)] if dominant == 0 else [(1, 2)])
            assert any(values[(d,)] <= values[(i,)] for d, i in pairs), (s1, s2, values)


def _example_played(**readings: str):
    from checker.evidence.scenario_run import run_scenario
    from checker.lang.scenarios import bind_scenario, load_scenarios

    model = load_model(os.path.join(FOLDER, "worked-example.yaml"))
    scenario = next(s for s in load_scenarios(SUITE) if s.id == "the-example-round")
    config = model.default_config()
    if readings:
        config = config.with_readings(readings)
    return run_scenario(model, config, bind_scenario(scenario, model))


def test_the_worked_example_plays_and_higher_wins_breaks_it():
    """The Gameplay example round plays as printed under the default readings and under the
    proposed wording of finding unlisted-suit-pairs (unlisted_pair=stated_draw); 'the higher
    value wins an unlisted pair' (the wording the page no longer proposes) does not: B's Techie
    151 (121 on the battlefield) would beat A's Mage 61."""
    assert _example_played().passed
    assert _example_played(unlisted_pair="stated_draw").passed
    broken = _example_played(unlisted_pair="higher_wins")
    assert not broken.passed, broken.message


def _tallies(config: Config, limit: int = 300_000) -> set:
    """Every reachable tally's defeated cards (per player and kind, with and without an item)."""
    model = load_model(os.path.join(FOLDER, "two-player.yaml"))
    compiled = CompiledModel(model, config)
    out = set()
    for packed in _reachable(compiled, limit):
        state = compiled.layout.unpack(packed)
        if state["phase"] == "claim":
            out.add((tuple(sorted(state["dfd"].items())), tuple(sorted(state["dfb"].items()))))
    return out


@pytest.mark.slow
def test_floor_order_is_moot_because_of_the_deck():
    """floor_order is moot in the checked decks (no card below 30 of a lowered suit carries an
    item), not in the text: with a probe deck where B writes a Mage of 20 and brings a Mage item,
    and A an Attacker of 35, A's battlefield (-30 Mage) makes the Mage with its item 40 (floored
    before the item) or 30 (floored at the end), and A's Attacker 35 defeats it only under the
    second reading."""
    model = load_model(os.path.join(FOLDER, "two-player.yaml"))
    base = model.default_config()
    values = {**base.constants["value_of"], (0,): 35, (2,): 20}
    items = {**base.constants["item_start"], ("b", "mage"): 1}
    probe = {**base.constants, "value_of": values, "item_start": items}
    before = _tallies(Config(probe, {**base.readings, "floor_order": "before_item"}))
    at_end = _tallies(Config(probe, {**base.readings, "floor_order": "at_end"}))
    assert before != at_end
    assert _tallies(Config(base.constants, {**base.readings, "floor_order": "before_item"})) == \
        _tallies(Config(base.constants, {**base.readings, "floor_order": "at_end"}))


def _two_wild_cards_in_a_round(wild_per_round: str, limit: int = 1_000_000) -> tuple[bool, bool]:
    """In 3 players with wild cards for B and C (the checked deck gives C's only): whether a
    tally with both wild cards laid is reachable, and whether the exploration was complete."""
    model = load_model(os.path.join(FOLDER, "three-player.yaml"))
    base = model.default_config()
    config = Config({**base.constants, "wild_cards": {**base.constants["wild_cards"], ("b",): 1}},
                    {**base.readings, "wild_per_round": wild_per_round})
    compiled = CompiledModel(model, config)
    frontier = list(compiled.initial)
    seen = set(frontier)
    while frontier and len(seen) < limit:
        nxt = []
        for s in frontier:
            state = compiled.layout.unpack(s)
            if state["phase"] == "tally" and state["wild_on"][("b",)] and state["wild_on"][("c",)]:
                return True, False
            for _, t in compiled.successors(s):
                if t not in seen:
                    seen.add(t)
                    nxt.append(t)
        frontier = nxt
    return False, not frontier


@pytest.mark.slow
def test_wild_per_round_is_moot_in_three_players_because_of_the_deck():
    """wild_per_round is moot in the checked 3-player game because only Player C brings a wild
    card: with one for Player B too, two wild cards are laid in one round when each player may
    throw one, and never when one is allowed for the table."""
    assert _two_wild_cards_in_a_round("per_player")[0]
    found, complete = _two_wild_cards_in_a_round("per_table")
    assert complete and not found
