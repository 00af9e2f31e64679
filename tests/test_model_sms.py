"""The Saturday Morning Showdown models: clause and question coverage, and rule-level facts
checked on the compiled model (the Combat that never ends, the Table Rule, the first Turn).

The full property suite runs in the bundled-evidence test; these are quick checks that the
model keeps its promises to the clause index and that single steps follow the text.
"""

from __future__ import annotations

import os

import yaml

from checker.lang.build import load_model
from checker.lang.compile import CompiledModel
from checker.lint.checks import coverage

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FOLDER = os.path.join(ROOT, "models", "sms")
SUITE = os.path.join(ROOT, "properties", "sms.yaml")
COLD_READING_IDS = 74  # 66 from the first audit, 8 (q-cr-*) from the re-audit's cold reading


def _suite() -> list[dict]:
    with open(SUITE, encoding="utf-8") as fh:
        return yaml.safe_load(fh)["properties"]


def _citations() -> set[str]:
    return {c for p in _suite() for c in p.get("clauses", [])}


def _compiled(name: str = "showdown.yaml", **readings: str) -> CompiledModel:
    model = load_model(os.path.join(FOLDER, name))
    config = model.default_config()
    if readings:
        config = config.with_readings(readings)
    return CompiledModel(model, config)


def _first(compiled: CompiledModel, wanted, limit: int = 200_000) -> dict:
    """Breadth-first search for the first state whose unpacked form satisfies `wanted`."""
    layout = compiled.layout
    frontier = list(compiled.initial)
    seen = set(frontier)
    while frontier and len(seen) < limit:
        nxt = []
        for s in frontier:
            state = layout.unpack(s)
            if wanted(state):
                return {"packed": s, "state": state}
            for _, t in compiled.successors(s):
                if t not in seen:
                    seen.add(t)
                    nxt.append(t)
        frontier = nxt
    raise AssertionError("no such state within the limit")


def _label(compiled: CompiledModel, instance_id: int) -> str:
    """`action p=.. s=..` for a transition: the action's name and its parameter values."""
    instance = compiled.instances[int(instance_id)]
    return " ".join([instance.action.name] + [f"{k}={v}" for k, v in instance.params])


def _moves(compiled: CompiledModel, packed) -> dict[str, list]:
    """The successors of a state, grouped by action name and parameters."""
    out: dict[str, list] = {}
    for instance_id, t in compiled.successors(packed):
        out.setdefault(_label(compiled, instance_id), []).append(t)
    return out


def _empty_stack(label: str, decision: str) -> bool:
    return label.startswith("stack ") and "s=hold" in label and "m=hold" in label and "b=hold" in label and label.endswith(f"e={decision}")


def test_every_clause_is_accounted_for():
    cited = _citations()
    for name in ("showdown.yaml", "support.yaml"):
        model = load_model(os.path.join(FOLDER, name))
        cov = coverage(model, cited)
        assert not cov.unhandled, f"{name}: clauses not handled: {cov.unhandled}"
        assert cov.accounted_percent == 100.0


def test_every_cold_reading_question_is_answered_once():
    model = load_model(os.path.join(FOLDER, "showdown.yaml"))
    questions = {q.id: q for q in model.questions}
    cold = [q for q in questions.values() if q.raised_by == "cold-reading"]
    assert len(cold) == COLD_READING_IDS
    answers: dict[str, int] = {}
    for reading in model.readings.values():
        for qid in reading.answers:
            answers[qid] = answers.get(qid, 0) + 1
    for assumption in model.assumptions:
        for qid in assumption.answers:
            answers[qid] = answers.get(qid, 0) + 1
    for prop in _suite():
        for qid in prop.get("answers", []):
            answers[qid] = answers.get(qid, 0) + 1
    for qid, question in questions.items():
        n = answers.get(qid, 0) + (1 if question.out_of_scope else 0)
        assert n == 1, f"{qid} is answered {n} times"


def test_the_decks_are_dealt_and_the_first_turn_starts():
    """Each deck is dealt whole; the Heroes' Action Phase opens with their Actions and a Leader Action."""
    compiled = _compiled()
    found = _first(compiled, lambda s: s["phase"] == "h_act")
    state = found["state"]
    assert state["turn"] == 1
    assert state["acts"] == 2
    assert state["la"][("heroes",)]
    hand = state["hand"]
    assert sum(v for (p, _), v in hand.items() if p == "heroes") == 3
    assert sum(v for (p, _), v in hand.items() if p == "villains") == 5


def test_a_combat_can_go_on_for_ever():
    """The finding combat-never-ends: from the first Tic, both Leaders going on with nothing to play
    comes back to a Tic already seen (a cycle), while both stopping reaches the End of Combat."""
    compiled = _compiled()
    found = _first(compiled, lambda s: s["phase"] == "compose_v" and s["tic"] == 1)
    layout = compiled.layout
    # go on twice with nothing played, from the late Tic on the state repeats
    state = found["packed"]
    seen = []
    for _ in range(6):
        moves = _moves(compiled, state)
        step = [t for label, ts in moves.items() for t in ts if _empty_stack(label, "go_on")]
        assert step, f"no empty Stack with go_on in {list(moves)}"
        state = step[0]
        # the forced Resolution of an empty Tic
        while layout.unpack(state)["phase"] == "resolve":
            state = next(iter(compiled.successors(state)))[1]
        seen.append(state)
    assert seen[-1] in seen[:-1], "going on with empty Stacks should cycle"
    # both Leaders stopping ends the Tics
    moves = _moves(compiled, found["packed"])
    stop = [t for label, ts in moves.items() for t in ts if _empty_stack(label, "stop")]
    assert stop
    after_villains = stop[0]
    moves = _moves(compiled, after_villains)
    stop = [t for label, ts in moves.items() for t in ts if _empty_stack(label, "stop")]
    assert stop
    resolved = next(iter(compiled.successors(stop[0])))[1]
    assert layout.unpack(resolved)["phase"] == "end_combat"


def test_quiet_tic_reading_ends_an_empty_tic():
    compiled = _compiled(tic_end="quiet_tic")
    found = _first(compiled, lambda s: s["phase"] == "compose_v")
    moves = _moves(compiled, found["packed"])
    assert any(_empty_stack(label, "go_on") for label in moves)
    assert not any(label.endswith("e=stop") for label in moves)


def test_table_rule_second_copy_replaces_the_first():
    """Putting a second copy of the named Ally on the Table leaves one copy there (SMS-TBL-2)."""
    compiled = _compiled()
    found = _first(compiled, lambda s: s["phase"] == "v_act" and s["at"][("villains",)] == 1
                   and s["hand"][("villains", "ally")] > 0 and s["acts"] > 0 and s["pend"] == 0)
    layout = compiled.layout
    moves = _moves(compiled, found["packed"])
    put = [t for label, ts in moves.items() for t in ts if label == "put_ally p=villains"]
    assert put
    after = layout.unpack(put[0])
    assert after["at"][("villains",)] == 1
    assert after["hand"][("villains", "ally")] == found["state"]["hand"][("villains", "ally")] - 1


def test_the_game_can_always_still_end_though_a_combat_need_not():
    """`can-end` holds where `game-ends` fails: a Combat may go on for ever, but from every
    reachable situation the Leaders can still bring the game to its end.

    Checked on the support decks with one Turn (`last_turn=1`, 14,338 states): that Turn holds
    every step of the default game (the Mulligans, both Action and Mission Phases, one Combat with
    its Tics), and the endless play is a cycle of Tics inside a Combat, which a second Turn only
    repeats. At this size the check stays in the Python engine; with both Turns the first run on
    a machine compiled a native module for these two properties alone (351 s in CI). The full
    configurations are decided by the bundled check (test_bundled_evidence: every `expect` of
    properties/sms.yaml, in every reading combination of both models)."""
    from checker.pipeline.runner import CheckOptions, check_paths

    results = check_paths(
        [os.path.join(FOLDER, "support.yaml")],
        CheckOptions(readings="default", constants={"last_turn": "1"}, only_properties={"can-end", "game-ends"}),
    )
    found = {r.prop.id: r for r in results}
    assert {k: r.status for k, r in found.items()} == {"can-end": "holds", "game-ends": "fails"}
    assert all(r.bound == "exhaustive" for r in found.values())
    trace = found["game-ends"].trace
    assert trace is not None and trace.shape == "lasso" and trace.loop_start is not None
    # the endless play goes round the Tics of a Combat
    loop_phases = {state["phase"] for state in trace.states()[trace.loop_start:]}
    assert loop_phases <= {"compose_v", "compose_h", "resolve"}, loop_phases
