"""Citations by the clause in effect: a variant declares the sections of the document that
apply to it, a step cites the clause of its branch in such a section (through `same_as`, the
clause stating the same rule there), and lint refuses a citation that has no such clause."""

from __future__ import annotations

import glob
import os

import pytest

from checker.errors import RulecheckError
from checker.lang.build import load_model
from checker.lang.model import Model
from checker.pipeline.runner import CheckOptions, check_paths
from tests.conftest import rulecheck

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

BASE = """\
game: Two matches
id: base
abstract: true
players: [a, b]
state: {n: "int[0..2]", turn: player}
init: {n: 0, turn: a}
terminal: n == 2
actions:
  move:
    by: turn
    when: n < 2
    do: {n: n + 1, turn: succ(turn)}
    rule: [COM-1, A-1]
"""
CLAUSES = """\
clauses:
  COM-1: {at: "Common rules, 1", says: "Players take turns."}
  A-1: {at: "Match A, 1", says: "Each turn adds one."}
  B-1: {at: "Match B, 1", says: "Each turn adds one here too."%s}
"""


def game(tmp_path, same_as: bool) -> str:
    folder = tmp_path / "models" / "g"
    folder.mkdir(parents=True)
    (folder / "base.yaml").write_text(BASE)
    (folder / "a.yaml").write_text("extends: base.yaml\nid: a\nsections: [COM, A]\n")
    (folder / "b.yaml").write_text("extends: base.yaml\nid: b\nsections: [COM, B]\n")
    (folder / "clauses.yaml").write_text(CLAUSES % (", same_as: [A-1]" if same_as else ""))
    (tmp_path / "properties").mkdir()
    (tmp_path / "properties" / "g.yaml").write_text("game: g\nproperties:\n  - {id: short, kind: invariant, expr: \"n < 2\", expect: fails}\n")
    return str(tmp_path)


def test_a_step_cites_the_clause_of_the_section_in_effect(tmp_path):
    root = game(tmp_path, same_as=True)
    results = {r.model.id: r for r in check_paths([os.path.join(root, "models")], CheckOptions()) if r.prop.id == "short"}
    cited = {mid: [c[0] for step in r.trace.steps for c in step.clauses] for mid, r in results.items()}
    assert set(cited["a"]) == {"COM-1", "A-1"} and set(cited["b"]) == {"COM-1", "B-1"}
    model = load_model(os.path.join(root, "models", "g", "b.yaml"))
    assert model.clauses["A-1"].same_as == ("B-1",) and model.clauses["B-1"].same_as == ("A-1",)


def test_lint_refuses_a_citation_out_of_the_sections_in_effect(tmp_path):
    run = rulecheck("lint", "models/g", cwd=game(tmp_path, same_as=False))
    assert run.returncode == 2 and "cites A-1, of section A, which is not in effect in `b` (sections: COM, B)" in run.stdout + run.stderr
    assert rulecheck("lint", "models/g", cwd=game(tmp_path / "twin", same_as=True)).returncode == 0


def test_unknown_sections_and_twins_are_located_errors(tmp_path):
    root = game(tmp_path, same_as=True)
    (tmp_path / "models" / "g" / "b.yaml").write_text("extends: base.yaml\nid: b\nsections: [COM, C]\n")
    with pytest.raises(RulecheckError, match="`sections` names `C`, the prefix of no clause"):
        load_model(os.path.join(root, "models", "g", "b.yaml"))
    (tmp_path / "models" / "g" / "clauses.yaml").write_text(CLAUSES % ", same_as: [Z-9]")
    with pytest.raises(RulecheckError, match="`same_as` names an unknown clause `Z-9`"):
        load_model(os.path.join(root, "models", "g", "a.yaml"))


@pytest.mark.slow
def test_every_saved_trace_cites_only_clauses_in_effect_in_its_variant():
    """The bundled evidence: each step of each saved trace cites clauses of the sections its
    variant declares in effect (a variant that declares none has every clause in effect)."""
    from checker.commands.trace_io import load_trace

    checked = 0
    models: dict[str, Model] = {}
    for path in sorted(glob.glob(os.path.join(ROOT, "counterexamples", "*", "*.json"))):
        if os.path.basename(path) == "shared.json":
            continue
        doc = load_trace(path)
        source = os.path.join(ROOT, "models", os.path.basename(os.path.dirname(path)), f"{doc['model']}.yaml")
        if source not in models:
            models[source] = load_model(source)
        model = models[source]
        for step in doc["steps"]:
            for clause in step["clauses"]:
                assert model.in_effect(clause["id"]), f"{os.path.relpath(path, ROOT)}: `{doc['model']}` cites {clause['id']}, not in effect there"
                checked += 1
    assert checked > 0
