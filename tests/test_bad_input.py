"""Every kind of bad model gets one clear, located message (issue: the model language).

Each test breaks the small valid model in tests/conftest.py in one way and asserts the line,
the column and the gist of the message; the CLI tests assert exit status 2 and no traceback.
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from checker.errors import RulecheckError
from checker.lang.build import load_model
from tests.conftest import MINI, write


def error_for(tmp_path, text: str, name: str = "model.yaml") -> RulecheckError:
    path = write(tmp_path, text, name)
    with pytest.raises(RulecheckError) as info:
        load_model(path)
    return info.value


def line_of(text: str, needle: str) -> int:
    """1-based number of the first line containing needle."""
    for number, line in enumerate(text.splitlines(), start=1):
        if needle in line:
            return number
    raise AssertionError(f"{needle!r} not in text")


def col_of(text: str, needle: str) -> int:
    line = text.splitlines()[line_of(text, needle) - 1]
    return line.index(needle) + 1


def test_the_fixture_is_valid(tmp_path):
    model = load_model(write(tmp_path, MINI))
    assert model.id == "mini" and set(model.actions) == {"take", "stop"}


def test_malformed_yaml(tmp_path):
    text = MINI.replace("  kind: [low, high]", "  kind: [low, high")
    err = error_for(tmp_path, text)
    assert "malformed YAML" in err.message
    assert err.loc.line >= line_of(text, "kind: [low, high")


def test_duplicate_key(tmp_path):
    text = MINI.replace("  over: bool\n", "  over: bool\n  turn: bool\n")
    err = error_for(tmp_path, text)
    assert "duplicate key `turn`" in err.message
    assert (err.loc.line, err.loc.col) == (line_of(text, "  turn: bool"), 3)
    assert f"line {line_of(text, '  turn: player')}" in err.message


def test_missing_required_section(tmp_path):
    text = MINI.replace("terminal: over\n", "")
    err = error_for(tmp_path, text)
    assert "missing required section `terminal`" in err.message
    assert err.loc.line == 1


def test_missing_required_action_field(tmp_path):
    text = MINI.replace("    rule: m-1\n", "")
    err = error_for(tmp_path, text)
    assert "action `take` is missing `rule`" in err.message


def test_unknown_name_with_suggestion(tmp_path):
    text = MINI.replace("when: deck[k] > 0", "when: dekc[k] > 0")
    err = error_for(tmp_path, text)
    assert "unknown name `dekc`" in err.message
    assert err.hint == "did you mean `deck`?"
    assert (err.loc.line, err.loc.col) == (line_of(text, "dekc"), col_of(text, "dekc"))


def test_unknown_enum_member(tmp_path):
    text = MINI.replace("  turn: ann\n", "  turn: anne\n")
    err = error_for(tmp_path, text)
    assert "unknown name `anne`" in err.message
    assert err.hint == "did you mean `ann`?"
    assert err.loc.line == line_of(text, "turn: anne")


def test_unknown_member_of_qualified_domain(tmp_path):
    text = MINI.replace("deck[low] == 0", "deck[kind.lo] == 0")
    err = error_for(tmp_path, text)
    assert "`lo` is not a member of kind" in err.message
    assert "low" in err.hint


@pytest.mark.parametrize(
    ("old", "new", "gist"),
    [
        ("when: deck[k] > 0", "when: deck[k]", "expected bool, found int"),
        ("turn: succ(turn)", "turn: deck[k]", "expected player, found int"),
        ("do: {over: true}", "do: {over: 1}", "expected bool, found int"),
        ("deck[low] == 0 and", "deck[low] == ann and", "cannot compare int with player"),
    ],
)
def test_type_mismatch(tmp_path, old, new, gist):
    text = MINI.replace(old, new)
    err = error_for(tmp_path, text)
    assert gist in err.message
    assert err.loc.line == line_of(text, new)


def test_literal_outside_slot_range(tmp_path):
    text = MINI.replace("deck[k]: deck[k] - 1", "deck[k]: 5")
    err = error_for(tmp_path, text)
    assert "5 is outside the range of `deck` (0..4)" in err.message
    assert err.loc.line == line_of(text, "deck[k]: 5")


def test_init_literal_outside_slot_range(tmp_path):
    text = MINI.replace("  deck: cards\n", "  deck: 9\n")
    err = error_for(tmp_path, text)
    assert "9 is outside the range of `deck`" in err.message


def test_index_from_wrong_domain(tmp_path):
    text = MINI.replace("when: deck[k] > 0", "when: deck[turn] > 0")
    err = error_for(tmp_path, text)
    assert "index from the wrong domain" in err.message and "indexed by kind, found player" in err.message
    assert (err.loc.line, err.loc.col) == (line_of(text, "deck[turn]"), col_of(text, "turn]"))


def test_constant_out_of_its_own_range(tmp_path):
    text = MINI.replace("default: 2}", "default: 7}")
    err = error_for(tmp_path, text)
    assert "constant `cards`: 7 is out of its range 0..4" in err.message
    assert err.loc.line == line_of(text, "default: 7")


def test_action_cites_unknown_clause(tmp_path):
    text = MINI.replace("    rule: m-1\n", "    rule: m-9\n")
    err = error_for(tmp_path, text)
    assert "unknown clause `m-9`" in err.message
    assert err.loc.line == line_of(text, "rule: m-9")


def test_only_names_unknown_reading(tmp_path):
    text = MINI.replace("    rule: m-2\n", "    rule: m-2\n    only: {ordr: ann_first}\n")
    err = error_for(tmp_path, text)
    assert "unknown reading `ordr`" in err.message
    assert err.hint == "did you mean `order`?"


def test_only_names_unknown_option(tmp_path):
    text = MINI.replace("    rule: m-2\n", "    rule: m-2\n    only: {order: carl_first}\n")
    err = error_for(tmp_path, text)
    assert "`carl_first` is not an option of reading `order`" in err.message
    assert err.loc.line == line_of(text, "only: {order")


def test_missing_extends(tmp_path):
    err = error_for(tmp_path, "extends: nowhere.yaml\nid: v\n", "variant.yaml")
    assert "does not exist" in err.message
    assert (err.loc.line, err.loc.col) == (1, 10)


def test_cyclic_extends(tmp_path):
    write(tmp_path, "extends: b.yaml\nid: a\n", "a.yaml")
    write(tmp_path, "extends: a.yaml\nid: b\n", "b.yaml")
    with pytest.raises(RulecheckError) as info:
        load_model(str(tmp_path / "models" / "game" / "a.yaml"))
    assert "cyclic `extends`" in info.value.message
    assert info.value.loc.line == 1


@pytest.mark.parametrize(
    ("expr", "gist"),
    [
        ("(lambda x: x)(1) > 0", "a lambda is not part of the model language"),
        ("deck.count(1) > 0", "calling a method or attribute is not part of the model language"),
        ("len([k for k in kind]) > 0", "a list comprehension is not part of the model language"),
        ("deck[k] > 0.5", "float literals are not part of the model language"),
        ("k in kind", "`in` tests membership of a listed set of values"),
    ],
)
def test_disallowed_python_construct(tmp_path, expr, gist):
    text = MINI.replace("when: deck[k] > 0", f'when: "{expr}"')
    err = error_for(tmp_path, text)
    assert gist in err.message
    assert err.loc.line == line_of(text, expr)


def test_same_slot_assigned_twice(tmp_path):
    text = MINI.replace("      turn: succ(turn)\n", "      turn: succ(turn)\n      deck[ k ]: 0\n")
    err = error_for(tmp_path, text)
    assert "assigns `deck` twice" in err.message
    assert err.loc.line == line_of(text, "deck[ k ]: 0")


def test_broadcast_and_element_assignment_clash(tmp_path):
    text = MINI.replace("      turn: succ(turn)\n", "      turn: succ(turn)\n      deck: 0\n")
    err = error_for(tmp_path, text)
    assert "assigns `deck` twice" in err.message


def test_unknown_top_level_key_suggests(tmp_path):
    text = MINI.replace("terminal: over", "terminl: over\nterminal: over")
    err = error_for(tmp_path, text)
    assert "unknown key `terminl`" in err.message and err.hint == "did you mean `terminal`?"


def test_recursive_definition(tmp_path):
    text = MINI.replace("readings:", "define:\n  a: b > 0\n  b: 1 if a else 0\nreadings:").replace("when: deck[k] > 0", "when: a")
    err = error_for(tmp_path, text)
    assert "may not be recursive" in err.message


@pytest.mark.parametrize(
    ("text", "gist"),
    [
        (MINI.replace("kind: [low, high]", "kind: [low, high"), "malformed YAML"),
        (MINI.replace("when: deck[k] > 0", "when: dekc[k] > 0"), "unknown name `dekc`"),
    ],
)
def test_cli_reports_one_located_error_with_status_2(tmp_path, text, gist):
    path = write(tmp_path, text)
    run = subprocess.run([sys.executable, "-m", "checker.cli", "lint", path], capture_output=True, text=True)
    assert run.returncode == 2
    assert gist in run.stderr
    assert f"{path}:" in run.stderr
    assert "Traceback" not in run.stderr
    check = subprocess.run([sys.executable, "-m", "checker.cli", "check", path, "--out", str(tmp_path / "cx")], capture_output=True, text=True)
    assert check.returncode == 2 and "Traceback" not in check.stderr
    assert not (tmp_path / "cx").exists(), "nothing may be written when the model is bad"


def test_definition_named_like_an_enum_member(tmp_path):
    text = MINI.replace("readings:", "define:\n  low: deck[high] == 0\nreadings:")
    err = error_for(tmp_path, text)
    assert "definition `low` has the name of a member of kind" in err.message
    assert err.loc.line == line_of(text, "  low: deck")


def test_writes_that_meet_only_for_excluded_parameters_are_fine(tmp_path):
    """`hand[p]` and `hand[q]` coincide when p == q; a guard excluding that is enough."""
    from checker.lang.compile import CompiledModel

    text = MINI.replace("  over: bool\n", "  over: bool\n  got: {type: \"int[0..4]\", of: player}\n").replace("  over: false\n", "  over: false\n  got: 0\n")
    text = text.replace("actions:\n", "actions:\n  swap:\n    by: p\n    for: {p: player, q: player}\n    when: p != q and got[p] < 4\n    do:\n      got[p]: got[p] + 1\n      got[q]: got[q]\n    rule: m-1\n")
    model = load_model(write(tmp_path, text))
    compiled = CompiledModel(model, model.default_config())
    moves = [compiled.instances[i].action.name for i, _ in compiled.successors(compiled.initial[0])]
    assert moves.count("swap") == 2


def test_a_reading_option_named_like_a_slot_resolves_by_context(tmp_path):
    text = MINI.replace("options: {ann_first: Ann, bob_first: Bob}\n    default: ann_first", "options: {over: the game ends first, ann_first: Ann}\n    default: ann_first")
    text = text.replace("when: deck[low] == 0 and deck[high] == 0", "when: deck[low] == 0 and deck[high] == 0 and reading.order != over and not over")
    model = load_model(write(tmp_path, text))
    from checker.lang.expr import Lit, SlotRef, walk

    nodes = list(walk(model.actions["stop"].guard))
    assert any(isinstance(n, Lit) and n.value == "over" and n.type.domain == "reading.order" for n in nodes)
    assert any(isinstance(n, SlotRef) and n.name == "over" for n in nodes)


def test_an_integer_of_thousands_of_digits_is_a_located_error(tmp_path):
    """Python refuses to read more than 4,300 digits (an internal error once); a model is told
    where, in its YAML and in an expression."""
    big = "7" * 5000
    text = MINI.replace("range: [0, 4], default: 2", f"range: [0, {big}], default: 2")
    err = error_for(tmp_path, text)
    assert "5,000 digits" in err.message and err.loc.line == line_of(text, "cards: {type")
    text = MINI.replace("when: deck[k] > 0", f"when: deck[k] > 0 and deck[k] < {big}")
    err = error_for(tmp_path, text)
    assert "5,000 digits" in err.message and (err.loc.line, err.loc.col) == (line_of(text, "when: deck[k] > 0 and"), col_of(text, big))


def test_a_fullwidth_letter_in_an_expression_is_refused_not_read_as_its_ascii_twin(tmp_path):
    text = MINI.replace("when: deck[k] > 0", "when: ｄeck[k] > 0")
    err = error_for(tmp_path, text)
    assert "U+FF44" in err.message and "read it as `d`" in err.message and err.hint == "write `d`"
    assert (err.loc.line, err.loc.col) == (line_of(text, "ｄeck[k] > 0"), col_of(text, "ｄeck"))


def test_a_fifo_named_like_a_model_is_refused_without_blocking(tmp_path):
    import os

    write(tmp_path, MINI)
    os.mkfifo(tmp_path / "models" / "game" / "pipe.yaml")
    run = subprocess.run([sys.executable, "-m", "checker.cli", "lint", str(tmp_path / "models" / "game")], capture_output=True, text=True, timeout=60)
    assert run.returncode == 2 and "not a regular file" in run.stdout + run.stderr and "Traceback" not in run.stderr


def test_a_suite_naming_another_game_is_refused(tmp_path):
    from checker.lang.properties import load_suite

    (tmp_path / "properties").mkdir()
    suite = tmp_path / "properties" / "game.yaml"
    suite.write_text("game: other\nproperties: []\n")
    with pytest.raises(RulecheckError) as info:
        load_suite(str(suite))
    assert "names 'other'" in info.value.message and (info.value.loc.line, info.value.loc.col) == (1, 7)


def test_every_message_names_a_file_below_the_working_directory_relatively(tmp_path, monkeypatch):
    """A property file is found from its model's folder and read by its absolute path; its
    errors, JUnit texts and pytest failures once named it so while model errors were relative."""
    from checker.errors import Loc

    (tmp_path / "properties").mkdir()
    inside = str(tmp_path / "properties" / "g.yaml")
    monkeypatch.chdir(tmp_path)
    assert str(Loc(inside, 2, 5)) == os.path.join("properties", "g.yaml") + ":2:5"
    assert str(Loc("models/g/m.yaml", 1, 1)) == "models/g/m.yaml:1:1"
    outside = os.path.join(os.path.dirname(str(tmp_path)), "elsewhere.yaml")
    assert str(Loc(outside, 1, 1)) == outside + ":1:1"  # above the working directory: as given
