"""The play-by-play of a trace shows what decides each step: a step that changes nothing players
see prints the values its rule read, a run of pure bookkeeping is one line, and an assumption is
cited by name, never pasted into a step."""

from __future__ import annotations

import os

from checker.evidence.trace import narrative, replay_path, to_json
from checker.lang.build import load_model
from checker.report.evidence_files import trace_identity

HERE = os.path.dirname(os.path.abspath(__file__))
COIN = os.path.join(HERE, "impact", "models", "coin", "coin.yaml")


def _coin(tmp_path, assumption: bool = False):
    """The coin duel with its phase internal and Ann's coin labelled; optionally the reflip
    resting on an assumption."""
    with open(COIN, encoding="utf-8") as handle:
        text = handle.read()
    text = text.replace("  phase: [flip_a, flip_b, judge, over]", "  phase: {type: [flip_a, flip_b, judge, over], internal: true}")
    text = text.replace('  ca: "int[0..1]"', '  ca: {type: "int[0..1]", label: "Ann\'s coin"}')
    if assumption:
        text = text.replace("    only: {tie: reflip}\n", "    only: {tie: reflip}\n    assumes: [reflip-both]\n")
        text += "assumptions:\n  - {id: reflip-both, clauses: [coin-3], says: 'Both coins are flipped again, Ann first.', why: 'The text is silent.'}\n"
    path = tmp_path / "coin.yaml"
    path.write_text(text)
    return load_model(str(path))


def _tied_then_reflipped(model):
    """Both coins show 0 (nothing shown changes: they were 0), the tie is judged and reflipped,
    then Ann's coin shows 1."""
    config = model.default_config().with_readings({"tie": "reflip"})
    start = {"phase": "flip_a", "ca": 0, "cb": 0, "result": "pending"}
    states = [start, {**start, "phase": "flip_b"}, {**start, "phase": "judge"}, start, {**start, "phase": "flip_b", "ca": 1}]
    return config, replay_path(model, config, states)


def test_a_step_that_changes_nothing_shown_prints_what_its_rule_read(tmp_path):
    model = _coin(tmp_path)
    _, steps = _tied_then_reflipped(model)
    assert [s.decided_by for s in steps] == [(), (), ("ca", "cb"), ()]  # the flips read only the hidden phase; the reflip compares both coins
    doc = _doc(model, steps)
    lines = narrative(doc).splitlines()
    reflip = next(line for line in lines if line.startswith("3."))
    assert reflip.endswith("Decided by Ann's coin: 0; cb: 0."), reflip
    assert lines[-1].startswith("4. Ann's coin shows 1") and lines[-1].endswith("Ann's coin 0\u21921.")


def test_a_run_of_bookkeeping_steps_is_one_line(tmp_path):
    model = _coin(tmp_path)
    _, steps = _tied_then_reflipped(model)
    lines = narrative(_doc(model, steps)).splitlines()
    (run,) = [line for line in lines if line.startswith("1\u20132. ")]
    assert run.startswith("1\u20132. Ann's coin shows 0 (Play, 1 (coin-1): \u201cEach player flips a coin.\u201d); Bob's coin shows 0 (see Play, 1 (coin-1))")
    assert run.endswith("Players see no change.")
    assert not [line for line in lines if line.startswith(("1. ", "2. "))]
    assert "nothing visible changes" not in "\n".join(lines)


def test_the_loop_start_is_never_folded_away(tmp_path):
    model = _coin(tmp_path)
    _, steps = _tied_then_reflipped(model)
    doc = _doc(model, steps)
    doc["loop_start"] = 1  # the loop starts after state 1: step 2 carries the mark
    lines = narrative(doc).splitlines()
    assert any(line.startswith("1. Ann's coin shows 0") for line in lines)
    assert any(line.startswith("2. Bob's coin shows 0") and "the loop starts after state 1" in line for line in lines)


def test_an_assumption_is_cited_by_name_and_its_text_given_once(tmp_path):
    model = _coin(tmp_path, assumption=True)
    _, steps = _tied_then_reflipped(model)
    doc = _doc(model, steps)
    plain = narrative(doc)
    said = "Both coins are flipped again, Ann first."
    assert plain.count(said) == 1 and plain.rstrip().endswith(f"- `reflip-both`: {said}")
    assert "the model's assumption `reflip-both`" in plain.split("The model's assumptions these steps rest on")[0]
    linked = narrative(doc, lambda aid: f"[`{aid}`](#assumption-{aid})")
    assert said not in linked and "the model's assumption [`reflip-both`](#assumption-reflip-both)" in linked


def test_what_decided_a_step_leaves_the_plays_name_as_it_was(tmp_path):
    model = _coin(tmp_path)
    _, steps = _tied_then_reflipped(model)
    doc = _doc(model, steps)
    without = {**doc, "steps": [{k: v for k, v in step.items() if k != "decided_by"} for step in doc["steps"]]}
    assert trace_identity(doc) == trace_identity(without)


def _doc(model, steps):
    from checker.evidence.trace import Trace, display_info

    config = model.default_config().with_readings({"tie": "reflip"})
    initial = {"phase": "flip_a", "ca": 0, "cb": 0, "result": "pending"}
    trace = Trace(game=model.game, model=model.id, property_id="p", property_kind="invariant", says="", config=config, reading_label="tie=reflip",
                  initial=initial, steps=steps, shape="path", display=display_info(model))
    return to_json(trace)


def test_a_step_citing_a_whole_procedure_quotes_a_few_and_names_the_rest():
    from checker.evidence.trace import QUOTED_PER_STEP

    clauses = [{"id": f"c-{i}", "at": f"{i}", "says": f"Rule {i}."} for i in range(1, 8)]
    doc = {"game": "G", "model": "m", "property": {"id": "p", "kind": "invariant", "says": ""}, "readings": {}, "initial": {"n": 0},
           "steps": [{"text": "the procedure runs", "clauses": clauses, "changes": [{"element": "n", "before": 0, "after": 1}]}], "display": {}}
    (step,) = [line for line in narrative(doc).splitlines() if line.startswith("1. ")]
    assert step.count("\u201c") == QUOTED_PER_STEP == 4 and "\u201cRule 4.\u201d" in step and "Rule 5." not in step
    assert "; also c-5, c-6, c-7)" in step
