"""`rulecheck lint FILE`: one model file lints that model (with its extends chain and clause
index); a clause index, question file or property suite lints its whole game."""

from __future__ import annotations

from tests.conftest import rulecheck, write


def _game(tmp_path, mini_text: str) -> None:
    """A valid model, a variant of it, and an unrelated broken model in the same folder."""
    write(tmp_path, mini_text, "mini.yaml")
    write(tmp_path, "extends: mini.yaml\nid: mini-three\nconstants:\n  cards: {default: 3}\n", "three.yaml")
    write(tmp_path, mini_text.replace("id: mini", "id: broken").replace("deck[k] > 0", "deck[k] > nothing"), "broken.yaml")


def test_a_model_file_lints_that_model_alone(tmp_path, mini_text):
    _game(tmp_path, mini_text)
    run = rulecheck("lint", "models/game/three.yaml", cwd=str(tmp_path))
    assert run.returncode == 0, run.stderr
    assert "1 model(s) valid" in run.stdout
    assert "mini-three" in run.stdout and "broken" not in run.stdout


def test_the_folder_and_its_clause_index_lint_every_model(tmp_path, mini_text):
    _game(tmp_path, mini_text)
    (tmp_path / "models" / "game" / "clauses.yaml").write_text("clauses:\n  m-3: {at: '3', says: Extra.}\n")
    for target in ("models/game", "models/game/clauses.yaml"):
        run = rulecheck("lint", target, cwd=str(tmp_path))
        assert run.returncode == 2, target
        assert "broken.yaml" in run.stderr and "nothing" in run.stderr


def test_a_property_suite_lints_its_game(tmp_path, mini_text):
    _game(tmp_path, mini_text)
    (tmp_path / "properties").mkdir()
    (tmp_path / "properties" / "game.yaml").write_text("properties: []\n")
    run = rulecheck("lint", "properties/game.yaml", cwd=str(tmp_path))
    assert run.returncode == 2 and "broken.yaml" in run.stderr


def test_a_broken_base_fails_its_variant(tmp_path, mini_text):
    write(tmp_path, mini_text.replace("turn: succ(turn)", "turn: succ(turm)"), "mini.yaml")
    write(tmp_path, "extends: mini.yaml\nid: mini-three\n", "three.yaml")
    run = rulecheck("lint", "models/game/three.yaml", cwd=str(tmp_path))
    assert run.returncode == 2 and "mini.yaml" in run.stderr and "turm" in run.stderr


def test_a_sibling_that_is_not_even_yaml_does_not_fail_another_models_lint(tmp_path, mini_text):
    """The README promises one model and its extends chain: a sibling whose YAML is broken (it
    cannot be known to extend this model) is that sibling's own lint's business."""
    _game(tmp_path, mini_text)
    write(tmp_path, "game: [\n", "torn.yaml")
    run = rulecheck("lint", "models/game/mini.yaml", cwd=str(tmp_path))
    assert run.returncode == 0, run.stderr
    assert "1 model(s) valid" in run.stdout and "torn" not in run.stdout + run.stderr
    run = rulecheck("lint", "models/game", cwd=str(tmp_path))
    assert run.returncode == 2 and "torn.yaml" in run.stderr  # the whole game still reads every file
