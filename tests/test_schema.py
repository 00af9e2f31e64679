"""The JSON Schemas printed by `rulecheck schema`: every bundled file satisfies them, the loader
and the schema refuse the same broken files, and every key the loader accepts is in the schema."""

from __future__ import annotations

import glob
import json
import os

import jsonschema
import pytest

from checker.errors import RulecheckError
from checker.evidence import findings
from checker.evidence.findings import load_findings
from checker.lang import build, properties, questions, scenarios
from checker.lang.build import load_model
from checker.lang.loader import FRAGMENT_KEY
from checker.lang.properties import load_suite
from checker.lang.scenarios import load_scenarios
from checker.lang.yamlsrc import load_yaml
from checker.report.schema import SCHEMAS, schema_files, schema_text
from tests.conftest import MINI, rulecheck

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def file_kind(path: str) -> str:
    if os.path.basename(os.path.dirname(path)) == "properties":
        return "properties"
    return {"clauses.yaml": "clauses", "questions.yaml": "questions"}.get(os.path.basename(path), "model")


def validator(kind: str) -> jsonschema.Draft7Validator:
    return jsonschema.Draft7Validator(SCHEMAS[kind]())


SHIPPED = sorted(glob.glob(os.path.join(ROOT, "models", "*", "*.yaml")) + glob.glob(os.path.join(ROOT, "models", "*", "fragments", "*.yaml"))
                 + glob.glob(os.path.join(ROOT, "properties", "*.yaml")))
BUNDLED = sorted(SHIPPED + glob.glob(os.path.join(ROOT, "tests", "models", "*", "*.yaml")) + glob.glob(os.path.join(ROOT, "tests", "properties", "*.yaml")))


@pytest.mark.parametrize("kind", sorted(SCHEMAS))
def test_schemas_are_valid_draft7(kind):
    jsonschema.Draft7Validator.check_schema(SCHEMAS[kind]())


def test_every_bundled_file_satisfies_its_schema():
    assert {file_kind(p) for p in BUNDLED} == set(SCHEMAS) and len(BUNDLED) > 30
    for path in BUNDLED:
        errors = [f"{list(e.absolute_path)}: {e.message}" for e in validator(file_kind(path)).iter_errors(load_yaml(path))]
        assert not errors, (os.path.relpath(path, ROOT), errors[:3])


def _keys(schema: dict) -> set[str]:
    assert schema["additionalProperties"] is False
    return set(schema["properties"])


def test_the_schema_takes_exactly_the_keys_the_loader_takes():
    model = SCHEMAS["model"]()
    top = model["properties"]
    assert _keys(model) == build.TOP_KEYS | {FRAGMENT_KEY}  # the loader reads `fragment` before the model keys
    assert _keys(top["actions"]["additionalProperties"]) == build.ACTION_KEYS
    assert _keys(top["constants"]["additionalProperties"]) == build.CONSTANT_KEYS
    assert _keys(top["readings"]["additionalProperties"]) == build.READING_KEYS | build.READING_OPTIONAL
    assert _keys(top["assumptions"]["items"]) == build.ASSUMPTION_KEYS
    assert _keys(top["state"]["additionalProperties"]["anyOf"][1]) == build.SLOT_KEYS
    assert _keys(top["state"]["additionalProperties"]["anyOf"][2]) == build.SLOT_KEYS | build.PILE_KEYS
    assert _keys(top["clauses"]["additionalProperties"]) == build.CLAUSE_KEYS
    assert set(model["else"]["required"]) == set(build.REQUIRED_KEYS)
    suite = SCHEMAS["properties"]()
    prop = suite["properties"]["properties"]["items"]
    assert _keys(prop) == properties.OPTIONAL.union(*(k.fields | k.optional for k in properties.KINDS.values()))
    assert set(prop["properties"]["kind"]["enum"]) == set(properties.KINDS)
    finding = suite["properties"]["findings"]["items"]
    assert _keys(finding) == set(findings.REQUIRED) | set(findings.OPTIONAL)
    assert set(finding["properties"]["class"]["enum"]) == set(findings.CLASSES)
    assert _keys(suite["properties"]["scenarios"]["items"]) == scenarios.KEYS
    assert _keys(suite) == {"game", "properties", "findings", "scenarios"}
    question = SCHEMAS["questions"]()["properties"]["questions"]["items"]
    assert _keys(question) == set(questions.REQUIRED) | set(questions.OPTIONAL)
    assert _keys(SCHEMAS["clauses"]()["properties"]["clauses"]["additionalProperties"]) == build.CLAUSE_KEYS


# Broken files: (file kind, text). The loader refuses each (exit 2) and so does the schema.
QUESTION_OK = "questions:\n  - {id: q-1, clauses: [m-1], kind: gap, raised_by: designer, question: Who starts}\n"
BROKEN = {
    "unknown section": ("model", MINI.replace("state:", "stat:", 1)),
    "missing terminal": ("model", MINI.replace("terminal: over\n", "")),
    "unknown action key": ("model", MINI.replace("    rule: m-1\n", "    rules: m-1\n")),
    "unknown slot key": ("model", MINI.replace('deck: {type: "int[0..4]", of: kind}', 'deck: {type: "int[0..4]", over: kind}')),
    "bad model id": ("model", MINI.replace("id: mini", "id: mini.v2")),
    "clause without says": ("clauses", "clauses:\n  m-9: {at: '9'}\n"),
    "unknown clause status": ("clauses", "clauses:\n  m-9: {at: '9', says: More., status: outofscope, why: x}\n"),
    "clause file without clauses": ("clauses", "clause:\n  m-1: {at: '1', says: Take.}\n"),
    "unknown property kind": ("properties", "properties:\n  - {id: p, kind: invariants, expr: 'true'}\n"),
    "invariant without expr": ("properties", "properties:\n  - {id: p, kind: invariant}\n"),
    "key of another kind": ("properties", "properties:\n  - {id: p, kind: invariant, expr: 'true', action: take}\n"),
    "witness on an invariant": ("properties", "properties:\n  - {id: p, kind: invariant, expr: 'true', witness: true}\n"),
    "witness not a boolean": ("properties", "properties:\n  - {id: p, kind: reachable, expr: 'true', witness: 'yes'}\n"),
    "bad expect": ("properties", "properties:\n  - {id: p, kind: invariant, expr: 'true', expect: maybe}\n"),
    "unknown suite key": ("properties", "properties: []\nfinding: []\n"),
    "scenario without reaches": ("properties", "properties: []\nscenarios:\n  - {id: s, steps: [take]}\n"),
    "scenario step of two actions": ("properties", "properties: []\nscenarios:\n  - {id: s, steps: [{take: {k: low}, stop: null}], reaches: over}\n"),
    "unknown finding class": ("properties", "properties: []\nfindings:\n  - {id: f, title: T, class: typo, scenario: S, proposed: P}\n"),
    "unknown raised_by": ("questions", QUESTION_OK.replace("designer", "me")),
    "question without question": ("questions", QUESTION_OK.replace(", question: Who starts", "")),
}


def _load(tmp_path, kind: str, text: str) -> None:
    folder = tmp_path / "models" / "game"
    folder.mkdir(parents=True)
    (tmp_path / "properties").mkdir()
    model = folder / "mini.yaml"
    model.write_text(MINI if kind != "model" else text)
    if kind == "clauses":
        (folder / "clauses.yaml").write_text(text)
    if kind == "questions":
        (folder / "questions.yaml").write_text(text)
    if kind == "properties":
        suite = tmp_path / "properties" / "game.yaml"
        suite.write_text(text)
        load_suite(str(suite))
        load_findings(str(suite))
        load_scenarios(str(suite))
        return
    load_model(str(model))


@pytest.mark.parametrize("name", sorted(BROKEN))
def test_loader_and_schema_refuse_the_same_broken_files(tmp_path, name):
    kind, text = BROKEN[name]
    path = tmp_path / "doc.yaml"
    path.write_text(text)
    assert list(validator(kind).iter_errors(load_yaml(str(path)))), f"the schema accepts: {name}"
    with pytest.raises(RulecheckError):
        _load(tmp_path, kind, text)


def test_the_unbroken_fixtures_load_and_validate(tmp_path):
    """The broken files above differ from files both accept, so each refusal is about its break."""
    for kind, text in (("model", MINI), ("questions", QUESTION_OK), ("clauses", "clauses:\n  m-9: {at: '9', says: More.}\n"),
                       ("properties", "properties:\n  - {id: p, kind: invariant, expr: 'true', expect: holds}\n")):
        path = tmp_path / f"{kind}.yaml"
        path.write_text(text)
        assert not list(validator(kind).iter_errors(load_yaml(str(path)))), kind
        _load(tmp_path / kind, kind, text)


@pytest.mark.parametrize("kind", sorted(SCHEMAS))
def test_the_command_prints_the_schema(tmp_path, kind):
    run = rulecheck("schema", kind, cwd=str(tmp_path))
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout) == SCHEMAS[kind]()
    assert run.stdout == next(iter(v for p, v in schema_files("x").items() if p.endswith(f"{kind}.json")))


def test_an_unknown_kind_is_a_usage_error(tmp_path):
    run = rulecheck("schema", "modle", cwd=str(tmp_path))
    assert run.returncode == 2 and "modle" in run.stderr


def test_the_committed_schemas_are_the_ones_the_checker_prints():
    """docs/schemas/ is what editors read; a schema change without regenerating it fails here
    (`rulecheck schema KIND > docs/schemas/KIND.json`)."""
    for kind in SCHEMAS:
        with open(os.path.join(ROOT, "docs", "schemas", f"{kind}.json"), encoding="utf-8") as handle:
            assert handle.read() == schema_text(kind), kind


def test_every_shipped_file_points_editors_at_the_schema_of_its_kind():
    assert len(SHIPPED) > 40
    for path in SHIPPED:
        with open(path, encoding="utf-8") as handle:
            first = handle.readline().rstrip("\n")
        expected = os.path.relpath(os.path.join(ROOT, "docs", "schemas", f"{file_kind(path)}.json"), os.path.dirname(path))
        assert first == f"# yaml-language-server: $schema={expected}", os.path.relpath(path, ROOT)


def _plain(value):
    """`load_yaml`'s located mappings and lists as plain ones, to compare with PyYAML's."""
    if isinstance(value, dict):
        return {_plain(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: os.path.relpath(p, ROOT))
def test_a_yaml_1_1_reader_reads_every_shipped_file_as_rulecheck_does(path):
    """rulecheck reads YAML 1.2 (`yes`, `no`, `on`, `off` are words); a designer who validates a
    bundled file against the published schema from Python reads it with PyYAML, YAML 1.1, where
    a bare `no` is `false` and the schema then reports a false error. No shipped file may hold a
    value the two versions read differently (quote such a word)."""
    import yaml

    with open(path, encoding="utf-8") as handle:
        assert yaml.safe_load(handle) == _plain(load_yaml(path))



@pytest.mark.parametrize("kind", sorted(SCHEMAS))
def test_the_schemas_say_which_yaml_they_expect(kind):
    """A user validating with the schema from Python reads YAML 1.1 by default; the schema says
    that its values are read as YAML 1.2, and what that changes."""
    description = SCHEMAS[kind]()["description"]
    assert "YAML 1.2" in description and "YAML 1.1" in description and "quote" in description
