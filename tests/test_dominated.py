"""Rules nobody would use: an offered choice that never improves its taker's standing under
perfect play, and somewhere worsens it, is reported with where it is offered."""

from __future__ import annotations

import os

from checker.analysis.dominated import CAN, FORCED, LOST, dominated_choices
from checker.engines.game_graph import outcome_labels
from checker.engines.statespace import explore_space
from checker.lang.build import load_model
from checker.lang.compile import CompiledModel
from tests.symbolic_support import write_game

RACE = """\
game: Race to exactly four (past four loses)
id: m
players: [a, b]
state: {n: "int[0..5]", turn: player, over: bool, winner: player}
init: {n: 0, turn: a, over: false, winner: a}
terminal: over
outcome: winner
actions:
  take1: {by: turn, when: not over, do: {n: "min(n + 1, 5)", turn: succ(turn), over: "n + 1 >= 4", winner: "turn if n + 1 == 4 else succ(turn)"}, rule: r-1}
  take2: {by: turn, when: not over, do: {n: "min(n + 2, 5)", turn: succ(turn), over: "n + 2 >= 4", winner: "turn if n + 2 == 4 else succ(turn)"}, rule: r-1}
  resign: {by: turn, when: not over, do: {over: true, winner: succ(turn)}, rule: r-1}
"""


def choices(tmp_path, text: str):
    model = load_model(write_game(str(tmp_path), "race", text))
    space = explore_space(CompiledModel(model, model.default_config()))
    return dominated_choices(space, outcome_labels(space)), space


def test_a_choice_that_can_only_cost_its_taker_is_reported(tmp_path):
    found, space = choices(tmp_path, RACE)
    assert found.note == ""
    by_action = {(d.player, d.action): d for d in found.dominated}
    assert set(by_action) == {("a", "resign"), ("b", "resign")}  # taking one or two each help somewhere
    resign = by_action[("a", "resign")]
    assert resign.worse >= 1 and resign.offered >= resign.worse and (resign.taken, resign.instead) == (LOST, FORCED)
    assert "`resign` never helps a" in resign.words() and "can force a win" in resign.words()
    assert space.path_to(resign.example)[0] in space.initial_nodes()


def test_no_choice_is_reported_where_each_helps_somewhere_or_the_outcome_names_no_winner(tmp_path):
    found, _ = choices(tmp_path, RACE.replace("  resign: {by: turn, when: not over, do: {over: true, winner: succ(turn)}, rule: r-1}\n", ""))
    assert found.dominated == [] and found.note == ""
    anonymous = RACE.replace("outcome: winner", "outcome: \"n >= 3\"")
    found, _ = choices(tmp_path / "anon", anonymous)
    assert found.dominated == [] and "names no winning player" in found.note
    assert {FORCED, CAN, LOST} == {2, 1, 0}


def test_the_page_lists_the_choices_that_never_help(tmp_path):
    from checker.pipeline.errata import errata_pages
    from checker.pipeline.runner import CheckOptions, check_paths

    write_game(str(tmp_path), "race", RACE)
    results = check_paths([os.path.join(str(tmp_path), "models")], CheckOptions())
    main, _ = errata_pages("race", results)
    section = main.split("## Choices that never help", 1)[1].split("\n## ", 1)[0]
    assert "- in `m`: `resign` never helps a:" in section and "- in `m`: `resign` never helps b:" in section
