"""Evidence files: one per distinct trace, naming every combination it witnesses, in few bytes."""

from __future__ import annotations

import json
import os
from types import SimpleNamespace

import pytest

from checker.commands.trace_io import load_trace
from checker.errors import RulecheckError
from checker.evidence.trace import to_json
from checker.lang.model import Config
from checker.pipeline.runner import CheckOptions, check_paths
from checker.report.evidence_files import evidence_document, evidence_name, trace_document, write_evidence
from tests.test_errata import project


def test_a_trace_found_under_several_combinations_is_written_once(tmp_path):
    results = check_paths([project(tmp_path)], CheckOptions())
    out = tmp_path / "out"
    write_evidence(results, str(out))
    names = sorted(n for n in os.listdir(out / "g") if n != "shared.json")
    below3 = [n for n in names if n.startswith("below3.")]
    assert len(below3) == 2  # 0-1-2-3 (also found when waiting is allowed) and 0-2-4
    witnessed = {n: [w["reading"] for w in json.loads((out / "g" / n).read_text())["witnesses"]] for n in below3}
    assert sorted(witnessed.values()) == [["default", "extra=other"], ["step=two"]]
    failing = [r for r in results if r.trace is not None]
    assert sorted(names) == sorted({evidence_name(r) for r in failing})


def test_the_packed_file_gives_back_the_trace_exactly(tmp_path):
    """Unpacked with the game's shared.json, a file is the trace of its first witness, field for
    field: the clause and assumption texts, the model's readings, constants, initial state and
    display included."""
    results = check_paths([project(tmp_path)], CheckOptions())
    write_evidence(results, str(tmp_path / "out"))
    checked = 0
    for r in results:
        if r.trace is not None:
            path = str(tmp_path / "out" / "g" / evidence_name(r))
            if json.loads(open(path).read())["witnesses"][0] == {"variant": r.model.id, "reading": r.reading_label}:
                assert load_trace(path) == json.loads(json.dumps(to_json(r.trace)))
                checked += 1
    assert checked == len({evidence_name(r) for r in results if r.trace is not None})
    shared = json.loads((tmp_path / "out" / "g" / "shared.json").read_text())
    assert shared["clauses"] and set(shared["models"]) == {"counter"}
    for name in os.listdir(tmp_path / "out" / "g"):
        trace = json.loads((tmp_path / "out" / "g" / name).read_text()).get("trace", {})
        assert "initial" not in trace and "display" not in trace  # all the model's: written once


def test_a_partial_run_adds_its_witnesses_to_those_already_recorded(tmp_path):
    path = project(tmp_path)
    out = str(tmp_path / "out")
    write_evidence(check_paths([path], CheckOptions()), out)
    name = next(n for n in os.listdir(os.path.join(out, "g")) if n.startswith("below3.") and "extra=other" in open(os.path.join(out, "g", n)).read())
    before = open(os.path.join(out, "g", name)).read()
    only_default = check_paths([path], CheckOptions(readings="default"))
    write_evidence(only_default, out, prune=False)
    assert open(os.path.join(out, "g", name)).read() == before
    for other in os.listdir(os.path.join(out, "g")):  # the partial run kept what the others share
        if other != "shared.json":
            assert load_trace(os.path.join(out, "g", other))["steps"]
    write_evidence(only_default, out, prune=True)  # a run that prunes records what it saw
    assert [w["reading"] for w in json.loads(open(os.path.join(out, "g", name)).read())["witnesses"]] == ["default"]
    assert load_trace(os.path.join(out, "g", name))["format"] == "rulecheck-trace"


def fake_result(readings: dict, constants: dict) -> SimpleNamespace:
    return SimpleNamespace(model=SimpleNamespace(folder="g", default_config=lambda: Config(constants, readings)))


def test_what_traces_share_moves_to_the_game_table_unless_it_differs():
    def step(cite, assumption):
        return {"action": "a", "by": "rules", "params": {}, "text": "t", "clauses": [cite], "changes": [{"element": "x", "before": 0, "after": 1}], "assumptions": [assumption]}

    first, second = {"id": "c-1", "at": "Turns", "says": "Move."}, {"id": "c-1", "at": "Elsewhere", "says": "Move."}
    assumed = {"id": "a-1", "says": "No one skips."}

    def trace(initial, readings):
        return {"format": "rulecheck-trace", "model": "m", "property": {}, "readings": readings, "constants": {"n": 3, "t": {"a/b": 1}}, "initial": initial, "steps": [step(first, assumed), step(second, assumed)], "branches": [], "display": {"slots": {}}}

    shared: dict = {}
    result = fake_result({"r": "a", "s": "x"}, {"n": 3, "t": {("a", "b"): 1}})
    one, two = trace({"x": 0}, {"r": "a", "s": "x"}), trace({"x": 5}, {"r": "b", "s": "x"})
    packed = [evidence_document(result, doc, [], shared) for doc in (one, two)]  # type: ignore[arg-type]
    assert shared["clauses"] == {"c-1": {"at": "Turns", "says": "Move."}} and shared["assumptions"] == {"a-1": {"says": "No one skips."}}
    assert shared["models"] == {"m": {"readings": {"r": "a", "s": "x"}, "constants": {"n": 3, "t": {"a/b": 1}}, "initial": {"x": 0}, "display": {"slots": {}}}}
    assert packed[0]["trace"]["step_fields"] == ["action", "by", "params", "text", "clauses", "changes", "assumptions"]
    assert packed[0]["trace"]["steps"][0][4] == ["c-1"] and packed[0]["trace"]["steps"][1][4] == [second] and packed[0]["trace"]["steps"][0][6] == ["a-1"]
    assert "initial" not in packed[0]["trace"] and packed[1]["trace"]["initial"] == {"x": 5}  # another start stays whole
    assert packed[0]["trace"]["readings"] == {} and packed[1]["trace"]["readings"] == {"r": "b"} and packed[1]["trace"]["constants"] == {}
    assert [trace_document(p, shared) for p in packed] == [one, two]


def test_a_trace_cannot_be_read_without_what_it_shares(tmp_path):
    results = check_paths([project(tmp_path)], CheckOptions())
    out = tmp_path / "out"
    write_evidence(results, str(out))
    name = evidence_name(next(r for r in results if r.trace is not None))
    shared = json.loads((out / "g" / "shared.json").read_text())
    cited = next(iter(shared["clauses"]))
    del shared["clauses"][cited]
    (out / "g" / "shared.json").write_text(json.dumps(shared))
    files = [n for n in os.listdir(out / "g") if n != "shared.json"]
    refused = []
    for n in files:
        try:
            load_trace(str(out / "g" / n))
        except RulecheckError as exc:
            assert f"no clause `{cited}`" in exc.message and exc.loc is not None and exc.loc.file.endswith(n)
            refused.append(n)
    assert refused  # a clause text that is not found is an error, never a silent blank
    (out / "g" / "shared.json").unlink()
    with pytest.raises(RulecheckError, match="has no model `counter`'s initial"):
        load_trace(str(out / "g" / name))
