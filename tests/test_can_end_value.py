"""The `can-end` and `value` property kinds: verdicts both ways, evidence replayed and
confirmed in the interpreter, bad input located, the symbolic engine's honest "not supported"."""

from __future__ import annotations

import os

import pytest

from checker.engines.statespace import explore_space
from checker.engines.value import game_value
from checker.errors import RulecheckError
from checker.evidence.confirm import reaches_terminal
from checker.lang.build import load_model
from checker.lang.compile import CompiledModel
from checker.lang.interp import Interpreter
from checker.pipeline.runner import CheckOptions, check_paths, load_games

MODELS = os.path.join(os.path.dirname(__file__), "impact", "models")


def results(path: str, engine: str = "explicit") -> dict:
    return {(r.prop.id, r.reading_label): r for r in check_paths([path], CheckOptions(engine=engine))}


def test_can_end_holds_and_fails_with_a_closed_set():
    found = results(os.path.join(MODELS, "trap"))
    assert found[("can-always-end", "default")].status == "holds"
    broken = found[("can-always-end", "pit=stuck")]
    assert broken.status == "fails" and broken.trace.shape == "closed"
    last = broken.trace.states()[-1]
    assert last["pos"] == 1 and len(broken.trace.steps) == 1
    assert "closed set of 2" in broken.detail
    interp = Interpreter(broken.model, broken.config)
    assert not reaches_terminal(interp, last)
    assert reaches_terminal(Interpreter(broken.model, broken.model.default_config()), last)


def test_can_end_is_not_deadlock_freedom():
    found = results(os.path.join(MODELS, "trap"))
    assert found[("deadlock-free", "pit=stuck")].status == "holds"  # the trap is a loop, not a dead end


def test_tic_tac_toe_perfect_play_is_a_draw():
    found = results(os.path.join(MODELS, "tictactoe"))
    draw = found[("perfect-play-draws", "default")]
    assert draw.status == "holds" and draw.detail == "value: draw (expected draw)"
    assert draw.trace is not None and draw.trace.outcome == "draw" and len(draw.trace.steps) == 10
    assert found[("cross-cannot-force", "default")].status == "fails"


def test_value_with_chance():
    model = load_model(os.path.join(MODELS, "coin/coin.yaml"))
    space = explore_space(CompiledModel(model, model.default_config()))
    assert game_value(space, "adversary").value == "bob"
    assert game_value(space, "expectation").value == pytest.approx(0.5)  # 1/4 + 1/2 * 1/2
    cyclic = explore_space(CompiledModel(model, model.default_config().with_readings({"tie": "reflip"})))
    undecided = game_value(cyclic, "expectation")
    assert undecided.value is None and "cycles" in undecided.reason
    assert results(os.path.join(MODELS, "coin"))[("chance-decides", "tie=reflip")].status == "holds"


def test_value_with_a_forced_win(tmp_path):
    text = open(os.path.join(MODELS, "tictactoe/tictactoe.yaml"), encoding="utf-8").read()
    text = text.replace("init:\n  board: 0", "init:\n  board: {0: 1, 1: 1, 2: 0, 3: 0, 4: 0, 5: 0, 6: 0, 7: 0, 8: 0}")
    model_path = tmp_path / "models" / "tictactoe" / "tictactoe.yaml"
    model_path.parent.mkdir(parents=True)
    model_path.write_text(text, encoding="utf-8")
    model = load_model(str(model_path))
    found = game_value(explore_space(CompiledModel(model, model.default_config())), "adversary")
    assert found.value == "x"  # two crosses in the top row and x to move


def test_symbolic_engine_says_not_supported():
    found = results(os.path.join(MODELS, "trap"), engine="symbolic")
    result = found[("can-always-end", "default")]
    assert result.status == "undecided" and "not supported" in result.bound


@pytest.mark.parametrize("line, message", [
    ("    value: nobody\n", "`value` is a side, an outcome or `endless`"),
    ("    value: 2\n    chance: expectation\n", "a number from 0 to 1"),
    ("    value: draw\n    chance: sometimes\n", "`chance` is `adversary` or `expectation`"),
])
def test_value_bad_input_is_located(tmp_path, line, message):
    models = tmp_path / "models" / "tictactoe"
    models.mkdir(parents=True)
    models.joinpath("tictactoe.yaml").write_text(open(os.path.join(MODELS, "tictactoe/tictactoe.yaml"), encoding="utf-8").read(), encoding="utf-8")
    props = tmp_path / "properties"
    props.mkdir()
    props.joinpath("tictactoe.yaml").write_text("game: tictactoe\nproperties:\n  - id: v\n    kind: value\n" + line, encoding="utf-8")
    with pytest.raises(RulecheckError) as caught:
        load_games([str(models)])
    assert message in str(caught.value)
    assert caught.value.loc is not None and caught.value.loc.line >= 5


def test_a_line_of_perfect_play_is_explained_as_one():
    """`explain` on a `value` trace speaks of perfect play, not of a violation, whatever the
    verdict (tic-tac-toe's holds: a draw)."""
    from checker.evidence.trace import narrative, plays_what, to_json

    draw = results(os.path.join(MODELS, "tictactoe"))[("perfect-play-draws", "default")]
    text = narrative(to_json(draw.trace))
    assert "**Perfect play:**" in text and "Why this breaks it" not in text
    assert plays_what("value", draw.trace.shape) == "is the line of perfect play"


def test_a_forced_win_without_chance_does_not_speak_of_chance(tmp_path):
    from tests.symbolic_support import write_game

    game = """\
game: Pick
id: m
players: [ann, bob]
state: {done: bool, winner: [none, ann, bob]}
init: {done: false, winner: none}
terminal: done
outcome: winner
actions:
  take: {by: ann, when: "not done", do: {done: true, winner: ann}, rule: r-1}
  give: {by: ann, when: "not done", do: {done: true, winner: bob}, rule: r-1}
"""
    model = load_model(write_game(str(tmp_path), "pick", game))
    value = game_value(explore_space(CompiledModel(model, model.default_config())), "adversary")
    assert value.value == "ann" and value.reason == "ann can force a win"


NIM = """\
game: Nim
id: m
players: [ann, bob]
domains:
  heap: [h1, h2, h3]
  take: {range: [1, 3]}
constants:
  start: {type: int, of: heap, value: {h1: 1, h2: 2, h3: 3}, range: [0, 3]}
state:
  left: {type: "int[0..3]", of: heap}
  turn: player
init: {left: start, turn: ann}
terminal: "sum(left[h] for h in heap) == 0"
outcome: "bob if turn == ann else ann"
actions:
  remove:
    by: turn
    for: {h: heap, n: take}
    when: "left[h] >= n"
    do: {"left[h]": "left[h] - n", turn: succ(turn)}
    rule: r-1
"""


@pytest.mark.parametrize("heaps", [(a, b, c) for a in range(4) for b in range(4) for c in range(4) if a + b + c > 0])
def test_nims_value_is_decided_at_every_start(tmp_path, heaps):
    """Normal-play Nim: the first player wins exactly where the heaps' xor is not 0 (Bouton). A
    `value` run decides every start position of a fully explored game (the graph's second
    exploration once stopped at a budget of the first one's states plus one: 20 of 63 undecided)."""
    from tests.symbolic_support import write_game

    path = write_game(str(tmp_path), "nim", NIM, "- {id: first-wins, kind: value, value: ann}\n")
    options = CheckOptions(constants={f"start[h{i + 1}]": str(n) for i, n in enumerate(heaps)})
    (result,) = [r for r in check_paths([path], options) if r.prop.id == "first-wins"]
    wins = heaps[0] ^ heaps[1] ^ heaps[2] != 0
    assert result.status == ("holds" if wins else "fails"), result.detail


@pytest.mark.parametrize("written, status", [('"1/2"', "holds"), ('"0.5"', "holds"), ('"3/4"', "fails"), ("1", "fails")])
def test_an_expected_score_is_written_whole_or_as_a_fraction_string(tmp_path, written, status):
    """The docs' `value: "1/2"` with `chance: expectation` is read (the coin duel's first side
    scores 1/4 + 1/2 * 1/2); a YAML float is refused, located, with the string form as the hint."""
    from tests.symbolic_support import write_game

    with open(os.path.join(MODELS, "coin", "coin.yaml"), encoding="utf-8") as handle:
        coin = handle.read()
    path = write_game(str(tmp_path), "coin", coin, f"- {{id: edge, kind: value, value: {written}, chance: expectation}}\n")
    (result,) = [r for r in check_paths([path], CheckOptions()) if r.prop.id == "edge" and r.reading_label == "default"]
    assert result.status == status, result.detail


def test_a_yaml_float_as_an_expected_score_is_refused_with_the_string_form(tmp_path):
    from tests.symbolic_support import write_game

    with open(os.path.join(MODELS, "coin", "coin.yaml"), encoding="utf-8") as handle:
        coin = handle.read()
    path = write_game(str(tmp_path), "coin", coin, "- {id: edge, kind: value, value: 0.5, chance: expectation}\n")
    with pytest.raises(RulecheckError) as caught:
        check_paths([path], CheckOptions())
    assert caught.value.loc is not None and caught.value.loc.line >= 1 and 'value: "1/2"' in (caught.value.hint or "")
