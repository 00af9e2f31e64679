"""Readings played at the document's size: an option that cannot act in the miniature but moves
the odds in the printed game, an option that moves nothing beyond the games' noise, and a model
that meets a modelling error only at the printed size, each said so on the page."""

from __future__ import annotations

from checker.analysis.impact import Settings
from checker.lang.build import load_model
from checker.pipeline.reading_size import plan, sized_options
from checker.pipeline.readings import analyse_model, readings_section
from checker.report.reading_impact import size_words
from tests.symbolic_support import write_game

# Ann and Bob take cards from a pile by fair coin flips; whoever holds more when the pile is
# empty wins (Bob on a tie). `streak=two_win`: two cards in a row win at once. With the
# model's single card nobody can take two in a row, so the reading is moot in the miniature;
# with the document's 8 cards the streak takes many of the games Bob wins on a tie.
RACE = """\
game: Race
id: race
players: [ann, bob]
constants:
  cards: {type: int, range: [1, 9], default: 1, document: 8}
readings:
  streak:
    clause: r-2
    question: Do two cards in a row win at once?
    options: {no_streak: only the count at the end decides, two_win: two in a row win at once}
    default: no_streak
  colour:
    clause: r-3
    question: Is the pile face up?
    options: {face_down: it is face down, face_up: it is face up}
    default: face_down
state:
  left: "int[0..9]"
  ann: "int[0..9]"
  bob: "int[0..9]"
  run: "int[0..9]"
  last: player
  winner: [none, ann_wins, bob_wins]
init: {left: cards, ann: 0, bob: 0, run: 0, last: bob, winner: none}
terminal: "winner != none"
outcome: winner
actions:
  take:
    by: chance
    for: {p: player}
    when: "left > 0 and winner == none"
    weight: 1
    do:
      left: left - 1
      ann: "ann + 1 if p == ann else ann"
      bob: "bob + 1 if p == bob else bob"
      run: "run + 1 if last == p else 1"
      last: p
      winner: "(ann_wins if p == ann else bob_wins) if reading.streak == two_win and (run + 1 if last == p else 1) >= 2 and colour_seen >= 0 else none"
    rule: r-1
  count:
    by: rules
    when: "left == 0 and winner == none"
    do: {winner: "ann_wins if ann > bob else bob_wins"}
    rule: r-2
define:
  colour_seen: "1 if reading.colour == face_up else 0"
clauses:
  r-1: {at: "1", says: "Flip a coin: its winner takes the top card."}
  r-2: {at: "2", says: "When the pile is empty, whoever holds more cards wins."}
  r-3: {at: "3", says: "The pile is placed in the middle."}
"""


def _impact(tmp_path, text: str = RACE):
    model = load_model(write_game(str(tmp_path), "race", text))
    return model, analyse_model(model, Settings())


def test_an_option_moot_in_the_miniature_moves_the_odds_at_the_documents_size(tmp_path):
    model, impact = _impact(tmp_path)
    streak = next(o for r in impact.readings for o in r.options if o.option == "two_win")
    assert streak.classification == "moot"  # one card: no streak of two can happen
    sized = sized_options([impact], games=400)[("streak", "two_win")]
    assert sized.sizes == ("cards 8",) and not sized.error
    moved = dict((name, (a, b)) for name, a, b in sized.shifts())
    assert set(moved) == {"ann_wins", "bob_wins"}  # a streak on 7 cards gives Ann some of Bob's ties
    assert moved["ann_wins"][1] > moved["ann_wins"][0] + 0.05
    words = size_words(sized, [model])
    assert words.startswith("At the document's size (cards 8), ann_wins ") and "(400 seeded random games each, 95% intervals apart)" in words


def test_an_option_with_no_effect_at_any_size_says_how_wide_the_noise_is(tmp_path):
    model, impact = _impact(tmp_path)
    sized = sized_options([impact], games=400)[("colour", "face_up")]
    assert sized.shifts() == [] and sized.length_change() is None
    assert size_words(sized, [model], short=True) == "At the document's size, no shift of a point or more beyond the noise of 400 seeded random games each (about \u00b15 points)"


def test_a_modelling_error_met_only_at_the_documents_size_is_said(tmp_path):
    narrow = RACE.replace('  ann: "int[0..9]"', '  ann: "int[0..5]"')  # room for the miniature's card, not for the document's 8
    model, impact = _impact(tmp_path, narrow)
    sized = sized_options([impact], games=400)[("colour", "face_up")]
    assert sized.base is not None and sized.base.error and "outside its range" in sized.base.error
    assert "some games stop at a modelling error (action `take` writes 6 to `ann`" in size_words(sized, [model])


def test_a_model_already_at_the_documents_size_is_not_played_again_and_says_so(tmp_path):
    unscaled = RACE.replace("default: 1, document: 8}", "default: 8, document: 8}")
    model, impact = _impact(tmp_path, unscaled)
    options, jobs = plan([impact])
    assert jobs == [] and [(name, option) for name, option, *_ in options] == [("streak", "two_win"), ("colour", "face_up")]
    line = size_words(sized_options([impact])[("streak", "two_win")], [model])
    assert line == "At the document's size, not played: the reading is only in `race`, already at the document's numbers: the exact analysis above is the answer"


def test_a_model_that_says_nothing_of_the_documents_numbers_gets_no_line(tmp_path):
    """A model whose constants declare no document value, invention or assumption is not known
    to be at the document's numbers, so no line claims it is (the moot-pair fixtures)."""
    silent = RACE.replace("default: 1, document: 8}", "default: 1}")
    _, impact = _impact(tmp_path, silent)
    options, jobs = plan([impact])
    assert jobs == [] and options == []


def test_an_option_only_in_a_fixed_deal_says_there_is_no_larger_game(tmp_path):
    """The title belt's dealt-deck variants: the counts are one deal's, fixed by an assumption,
    not bounds scaled down from the document; their options had no line and no reason."""
    dealt = RACE.replace("  cards: {type: int, range: [1, 9], default: 1, document: 8}",
                         "  cards: {type: int, range: [1, 9], default: 1, bound: false, fixed_by: one-deal, document: none, plausible: [1, 9]}")
    dealt = dealt.replace("state:\n", "assumptions:\n  - {id: one-deal, clauses: [r-1], says: The pile is one card., why: The text prints no pile.}\nstate:\n", 1)
    model, impact = _impact(tmp_path, dealt)
    line = size_words(sized_options([impact])[("streak", "two_win")], [model])
    assert "not played: the reading is only in `race`, whose counts are fixed by the assumption `one-deal`" in line
    assert "so there is no larger game to play" in line


def test_the_readings_section_carries_the_line_for_each_option(tmp_path):
    model, impact = _impact(tmp_path)
    section = "\n".join(readings_section([model], [], [impact]))
    assert "- At the document's size (cards 8), ann_wins " in section


def test_the_options_played_on_the_checks_pool_give_the_serial_section(tmp_path):
    """`rulecheck check` plays the options on its worker processes while it re-checks the lines
    (`ReadingsAhead`); the section is the one the serial path writes."""
    from checker.pipeline.dispatch import process_pool
    from checker.pipeline.readings import ReadingsAhead
    from checker.pipeline.runner import load_games
    from checker.report.reading_impact import readings

    path = write_game(str(tmp_path), "race", RACE)
    ahead = ReadingsAhead(str(tmp_path / "cache"))
    with process_pool(2) as pool:
        ahead.queue(load_games([path]), pool)
        ahead.start()
        (_, (impacts, rechecks, sized)), = ahead.wait().values()
    assert set(sized) == {("streak", "two_win"), ("colour", "face_up")}
    model = impacts[0].model
    assert readings([model], [], impacts, rechecks, sized)[0] == readings_section([model], [])


def test_the_option_is_played_in_a_model_that_has_a_documents_size(tmp_path):
    """The most severe consequence may be in a model already at the document's values (nothing
    left to play there): the option is then played in the most severe of the others."""
    unscaled = RACE.replace("id: race", "id: race-full").replace("default: 1, document: 8}", "default: 8, document: 8}")
    _, small = _impact(tmp_path / "small")
    _, full = _impact(tmp_path / "full", unscaled)
    streak = next(o for r in full.readings for o in r.options if o.option == "two_win")
    assert streak.classification != "moot"  # at 8 cards the streak acts: there it is most severe
    options, _ = plan([full, small])
    assert [(name, option, model.id) for name, option, model, _, _ in options] == [("streak", "two_win", "race"), ("colour", "face_up", "race")]
