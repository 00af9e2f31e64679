"""`grows_with`: a bound that the growth re-check raises together with other bounds, as one step.

A hand one card larger dealt from a deck that did not grow leaves less to draw, and one player's
deck one card larger against lines scaled for the old decks ends the game sooner: grown alone,
such a bound gives a smaller game, and a re-check in a smaller game establishes nothing. The
tests check the steps `grow` makes, that the bundled pairings give larger games, and that a bad
`grows_with` is refused with its place.
"""

from __future__ import annotations

import textwrap

import pytest

from checker.analysis.bounds import grow
from checker.engines.statespace import explore_space
from checker.lang.build import load_model
from checker.lang.compile import CompiledModel
from checker.lang.model import Config
from tests.conftest import rulecheck

# A hand of `hand` cards is dealt from a deck of `cards`; the rest is drawn one by one.
MODEL = textwrap.dedent(
    """\
    game: Toy
    id: toy
    players: [ann]
    constants:
      hand: {type: int, range: [1, 6], default: 2, bound: true, GROWS doc: "cards dealt"}
      cards: {type: int, range: [1, 9], default: 3, bound: true, doc: "cards in the deck"}
      spare: {type: int, range: [0, 2], default: 0, bound: true, doc: "spare cards, left out of this game"}
    state:
      deck: "int[0..11]"
      held: "int[0..11]"
      played: "int[0..11]"
    init:
      deck: cards + spare - hand
      held: hand
      played: 0
    terminal: deck == 0 and held == 0
    actions:
      draw:
        by: ann
        when: deck > 0
        do:
          deck: deck - 1
          held: held + 1
        rule: t-1
      play:
        by: ann
        when: held > 0
        do:
          held: held - 1
          played: played + 1
        rule: t-1
    clauses:
      t-1: {at: "1", says: "Draw a card or play one."}
    """
)


def toy(tmp_path, grows: str):
    path = tmp_path / "toy.yaml"
    path.write_text(MODEL.replace("GROWS", grows))
    return str(path)


def states(model, constants) -> int:
    space = explore_space(CompiledModel(model, Config(constants, model.default_config().readings)), 100_000)
    assert space.complete
    return space.size


def test_a_hand_grown_alone_gives_a_smaller_game_and_with_its_deck_a_larger_one(tmp_path):
    alone = load_model(toy(tmp_path, ""))
    paired = load_model(toy(tmp_path, "grows_with: [cards],"))
    checked = alone.default_config().constants
    singles = dict(grow(alone, alone.default_config()).singles)
    assert states(alone, singles["hand 2\u21923"]) < states(alone, checked)  # the artefact `grows_with` is for
    growth = grow(paired, paired.default_config())
    assert growth.grown == ("hand 2\u21923 (with cards 3\u21924)", "cards 3\u21924")
    step = dict(growth.singles)["hand 2\u21923 (with cards 3\u21924)"]
    assert step["hand"] == 3 and step["cards"] == 4 and step["spare"] == 0  # a left-out card stays out
    assert states(paired, step) > states(paired, checked)
    assert growth.constants["cards"] == 4  # every bound at once raises a shared cell once
    assert growth.cells == ("hand 2\u21923", "cards 3\u21924")  # and names it once


def test_cells_that_name_each_other_are_one_step(tmp_path):
    path = toy(tmp_path, "grows_with: [cards],")
    with open(path, "r+", encoding="utf-8") as handle:
        text = handle.read().replace('doc: "cards in the deck"', 'grows_with: [hand], doc: "cards in the deck"')
        handle.seek(0)
        handle.write(text)
    model = load_model(path)
    assert grow(model, model.default_config()).grown == ("hand 2\u21923 (with cards 3\u21924)",)


def test_a_step_with_a_cell_at_the_top_of_its_range_is_named_and_not_grown(tmp_path):
    model = load_model(toy(tmp_path, "grows_with: [cards],"))
    growth = grow(model, Config({**model.default_config().constants, "cards": 9}, {}))
    assert growth.grown == ()
    assert growth.at_max == ("hand 2 (its step: cards 9 at the top of its range)", "cards 9")


@pytest.mark.parametrize("grows, message, column", [
    ("grows_with: [cardz],", "unknown constant `cardz`", 74),
    ("grows_with: [played],", "unknown constant `played`", 74),
    ("grows_with: [\"cards[ann]\"],", "`cards` takes 0 index(es)", 75),
    ("grows_with: [hand],", "cannot grow with itself", 73),
    ("grows_with: cards,", "takes a list of the cells", 73),
])
def test_a_bad_grows_with_is_refused_with_its_place(tmp_path, grows, message, column):
    run = rulecheck("lint", toy(tmp_path, grows), cwd=str(tmp_path))
    assert run.returncode == 2 and message in run.stderr, run.stderr
    assert f"toy.yaml:5:{column}:" in run.stderr


def test_a_partner_must_be_a_bound_and_so_must_its_owner(tmp_path):
    (tmp_path / "toy.yaml").write_text(MODEL.replace("GROWS", "grows_with: [cards],").replace("default: 3, bound: true", "default: 3"))
    run = rulecheck("lint", str(tmp_path / "toy.yaml"), cwd=str(tmp_path))
    assert run.returncode == 2 and "`cards` is not a bound" in run.stderr
    owner = MODEL.replace("bound: true, GROWS", "grows_with: [cards],")
    (tmp_path / "toy.yaml").write_text(owner)
    run = rulecheck("lint", str(tmp_path / "toy.yaml"), cwd=str(tmp_path))
    assert run.returncode == 2 and "needs `bound: true`" in run.stderr and "toy.yaml:5:" in run.stderr


def test_bundled_steps_give_larger_games():
    """Ultimate's 2-player decks: one card more for one player alone shrinks the game (the
    lines are scaled for the old decks); each step gives both players one more card."""
    model = load_model("models/ultimate/two-player.yaml")
    checked = states(model, model.default_config().constants)
    growth = grow(model, model.default_config())
    paired = [label for label in growth.grown if label.startswith("start[")]
    assert paired == ["start[a][0] 2\u21923 (with start[b][2] 2\u21923)", "start[a][1] 1\u21922 (with start[b][1] 1\u21922)"]
    for label, constants in growth.singles:
        if label in paired:
            assert states(model, constants) > checked, label
    alone = {**model.default_config().constants, "start": {**model.default_config().constants["start"], ("a", 0): 3}}
    assert states(model, alone) < checked
    showngo = load_model("models/showngo/junior.yaml")
    assert grow(showngo, showngo.default_config()).grown[0] == "hand_size 2\u21923 (with n_passing 1\u21922, n_tackle 2\u21923)"
    sms = load_model("models/sms/showdown.yaml")
    assert not sms.constants["hand_base"].bound  # a rule value scaled down, not a card: see models/sms/base.yaml


FIXED = MODEL.replace("bound: true, GROWS", "fixed_by: dealt,").replace(
    "cards: {type: int, range: [1, 9], default: 3, bound: true,", "cards: {type: int, range: [1, 9], default: 3, fixed_by: dealt,"
).replace("\nclauses:\n", "\nassumptions:\n  - {id: dealt, clauses: [t-1], says: \"Every card is dealt.\", why: \"The text gives no deck list.\"}\nclauses:\n")


def test_a_growth_an_assumption_rules_out_names_the_assumption(tmp_path, monkeypatch):
    """A count an assumption fixes (`fixed_by`) is not a bound; where nothing is left to grow,
    the re-check (findings and Readings lines alike, `Growth.nothing_to_grow`) says which
    assumption, not only that no bound grows."""
    from checker.evidence.results import Result
    from checker.pipeline import growth as growth_module

    (tmp_path / "toy.yaml").write_text(FIXED)
    model = load_model(str(tmp_path / "toy.yaml"))
    reason = grow(model, model.default_config()).nothing_to_grow()
    assert reason == "no bound to grow: hand, cards fixed by assumption dealt; every other bound is at the top of its declared range or left out"
    titlebelt = load_model("models/titlebelt/three-player.yaml")
    assert "n_tagteam, n_foreign, n_loosecannon fixed by assumption dealt-deck" in grow(titlebelt, titlebelt.default_config()).nothing_to_grow()
    monkeypatch.setattr(growth_module, "_run", lambda *_a, **_k: (_ for _ in ()).throw(AssertionError("nothing to run")))
    result = Result.__new__(Result)
    result.model, result.config, result.states = model, model.default_config(), 10
    result.prop = type("P", (), {"id": "p"})()
    assert growth_module.recheck("f", result, 1000, 10.0, None).reason == reason


def test_fixed_by_must_name_an_assumption_and_not_a_bound(tmp_path):
    (tmp_path / "toy.yaml").write_text(FIXED.replace("fixed_by: dealt,", "fixed_by: delt,", 1))
    run = rulecheck("lint", str(tmp_path / "toy.yaml"), cwd=str(tmp_path))
    assert run.returncode == 2 and "`fixed_by` names no assumption" in run.stderr and "toy.yaml:5:" in run.stderr and "dealt" in run.stderr
    (tmp_path / "toy.yaml").write_text(FIXED.replace("fixed_by: dealt,", "bound: true, fixed_by: dealt,", 1))
    run = rulecheck("lint", str(tmp_path / "toy.yaml"), cwd=str(tmp_path))
    assert run.returncode == 2 and "is not a bound" in run.stderr and "toy.yaml:5:" in run.stderr
