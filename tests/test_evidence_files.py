"""Evidence files: one per distinct trace, naming every combination it witnesses, in few bytes."""

from __future__ import annotations

import json
import os
from types import SimpleNamespace

from checker.report.evidence_files import evidence_document, evidence_name, trace_document, write_evidence
from checker.runner import CheckOptions, check_paths
from checker.trace import to_json
from checker.trace_io import load_trace
from tests.test_errata import project


def test_a_trace_found_under_several_combinations_is_written_once(tmp_path):
    results = check_paths([project(tmp_path)], CheckOptions())
    out = tmp_path / "out"
    write_evidence(results, str(out))
    names = sorted(n for n in os.listdir(out / "g") if n != "clauses.json")
    below3 = [n for n in names if n.startswith("below3.")]
    assert len(below3) == 2  # 0-1-2-3 (also found when waiting is allowed) and 0-2-4
    witnessed = {n: [w["reading"] for w in json.loads((out / "g" / n).read_text())["witnesses"]] for n in below3}
    assert sorted(witnessed.values()) == [["default", "extra=other"], ["step=two"]]
    failing = [r for r in results if r.trace is not None]
    assert sorted(names) == sorted({evidence_name(r) for r in failing})


def test_the_packed_file_gives_back_the_trace_exactly(tmp_path):
    results = check_paths([project(tmp_path)], CheckOptions())
    write_evidence(results, str(tmp_path / "out"))
    for r in results:
        if r.trace is not None:
            doc = load_trace(str(tmp_path / "out" / "g" / evidence_name(r)))
            mine = to_json(r.trace)
            ignore = ("model", "readings", "constants")  # those of the file's first witness
            assert {k: v for k, v in doc.items() if k not in ignore} == json.loads(json.dumps({k: v for k, v in mine.items() if k not in ignore}))


def test_a_partial_run_adds_its_witnesses_to_those_already_recorded(tmp_path):
    path = project(tmp_path)
    out = str(tmp_path / "out")
    write_evidence(check_paths([path], CheckOptions()), out)
    name = next(n for n in os.listdir(os.path.join(out, "g")) if n.startswith("below3.") and "extra=other" in open(os.path.join(out, "g", n)).read())
    before = open(os.path.join(out, "g", name)).read()
    only_default = check_paths([path], CheckOptions(readings="default"))
    write_evidence(only_default, out, prune=False)
    assert open(os.path.join(out, "g", name)).read() == before
    write_evidence(only_default, out, prune=True)  # a run that prunes records what it saw
    assert [w["reading"] for w in json.loads(open(os.path.join(out, "g", name)).read())["witnesses"]] == ["default"]
    assert trace_document(json.loads(open(os.path.join(out, "g", name)).read()), {})["format"] == "rulecheck-trace"


def test_citations_move_to_the_game_table_unless_their_text_differs():
    def step(cite):
        return {"action": "a", "by": "rules", "params": {}, "text": "t", "clauses": [cite], "changes": [{"element": "x", "before": 0, "after": 1}]}
    first, second = {"id": "c-1", "at": "Turns", "says": "Move."}, {"id": "c-1", "at": "Elsewhere", "says": "Move."}
    doc = {"format": "rulecheck-trace", "property": {}, "steps": [step(first), step(second)], "branches": []}
    quotes: dict = {}
    packed = evidence_document(SimpleNamespace(model=SimpleNamespace(folder="g")), doc, [], quotes)
    assert quotes == {"c-1": {"at": "Turns", "says": "Move."}}
    assert packed["trace"]["step_fields"] == ["action", "by", "params", "text", "clauses", "changes"]
    assert packed["trace"]["steps"][0][4] == ["c-1"] and packed["trace"]["steps"][1][4] == [second]
    assert trace_document(packed, quotes) == doc
