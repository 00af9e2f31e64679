"""`rulecheck init`: a new game that lints and checks as written, and never overwrites."""

from __future__ import annotations

import json
import os

import jsonschema

from checker.lang.yamlsrc import load_yaml
from tests.conftest import rulecheck
from tests.test_schema import file_kind, validator


def test_a_new_game_lints_and_checks_straight_away(tmp_path):
    run = rulecheck("init", "--game", "race", cwd=str(tmp_path))
    assert run.returncode == 0, run.stderr
    for path in ("models/race/base.yaml", "models/race/clauses.yaml", "models/race/questions.yaml", "properties/race.yaml",
                 "models/race/README.md", ".rulecheck/model.json"):
        assert (tmp_path / path).is_file(), path
    lint = rulecheck("lint", cwd=str(tmp_path))
    assert lint.returncode == 0, lint.stdout + lint.stderr
    assert "100%" in lint.stdout  # every clause accounted for, every question answered
    check = rulecheck("check", "--jobs", "1", "--format", "json", "--no-write", cwd=str(tmp_path))
    assert check.returncode == 0, check.stdout + check.stderr
    doc = json.loads(check.stdout)
    verdicts = {(r["property"], r["reading"]): r["verdict"] for r in doc["results"]}
    assert verdicts[("total-within-target", "overshoot=allowed")] == "fails"  # the worked finding
    assert verdicts[("game-ends", "default")] == "holds"
    assert all(r["matches"] for r in doc["results"])


def test_the_scaffold_satisfies_the_schemas_it_points_to(tmp_path):
    assert rulecheck("init", "--game", "race", cwd=str(tmp_path)).returncode == 0
    for path in ("models/race/base.yaml", "models/race/clauses.yaml", "models/race/questions.yaml", "properties/race.yaml"):
        full = tmp_path / path
        first = full.read_text().splitlines()[0]
        schema_path = os.path.normpath(os.path.join(full.parent, first.split("$schema=")[1]))
        schema = json.loads(open(schema_path).read())
        assert schema == validator(file_kind(str(full))).schema
        jsonschema.Draft7Validator(schema).validate(load_yaml(str(full)))


def test_init_refuses_to_overwrite(tmp_path):
    assert rulecheck("init", "--game", "race", cwd=str(tmp_path)).returncode == 0
    (tmp_path / "properties" / "race.yaml").write_text("properties: []\n")
    (tmp_path / "models" / "race" / "base.yaml").unlink()
    again = rulecheck("init", "--game", "race", cwd=str(tmp_path))
    assert again.returncode == 2 and "already exists" in again.stderr and "Traceback" not in again.stderr
    assert not (tmp_path / "models" / "race" / "base.yaml").exists()  # nothing half-written
    assert (tmp_path / "properties" / "race.yaml").read_text() == "properties: []\n"


def test_a_second_game_shares_the_schemas(tmp_path):
    assert rulecheck("init", "--game", "race", cwd=str(tmp_path)).returncode == 0
    run = rulecheck("init", "--game", "other", cwd=str(tmp_path))
    assert run.returncode == 0, run.stderr
    assert rulecheck("lint", cwd=str(tmp_path)).returncode == 0


def test_the_game_id_defaults_to_the_folder_and_must_be_a_name(tmp_path):
    folder = tmp_path / "My Game"
    folder.mkdir()
    assert rulecheck("init", "My Game", cwd=str(tmp_path)).returncode == 0
    assert (folder / "models" / "my-game" / "base.yaml").is_file()
    bad = rulecheck("init", "--game", "9 lives", cwd=str(tmp_path))
    assert bad.returncode == 2 and "game id" in bad.stderr
