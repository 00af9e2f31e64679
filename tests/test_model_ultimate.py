"""The Ultimate Showdown models: clause and question coverage, and single steps checked against
the text on the compiled model (the wild card, going bust, the losing line).

The full property suite runs in the bundled-evidence test; these are quick checks that the
model keeps its promises to the clause index and that single steps follow the text.
"""

from __future__ import annotations

import os

import yaml

from checker.lang.build import load_model
from checker.lang.compile import CompiledModel
from checker.lint import coverage

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FOLDER = os.path.join(ROOT, "models", "ultimate")
SUITE = os.path.join(ROOT, "properties", "ultimate.yaml")
COLD_READING_IDS = 65


def _suite() -> list[dict]:
    with open(SUITE, encoding="utf-8") as fh:
        return yaml.safe_load(fh)["properties"]


def _compiled(name: str = "two-player.yaml", **readings: str) -> CompiledModel:
    model = load_model(os.path.join(FOLDER, name))
    config = model.default_config()
    if readings:
        config = config.with_readings(readings)
    return CompiledModel(model, config)


def _reachable(compiled: CompiledModel, limit: int = 100_000):
    """Every reachable state (packed), breadth first."""
    frontier = list(compiled.initial)
    seen = set(frontier)
    while frontier and len(seen) < limit:
        nxt = []
        for s in frontier:
            yield s
            for _, t in compiled.successors(s):
                if t not in seen:
                    seen.add(t)
                    nxt.append(t)
        frontier = nxt


def _steps(compiled: CompiledModel, packed) -> list[tuple[str, object]]:
    out = []
    for instance_id, t in compiled.successors(packed):
        instance = compiled.instances[int(instance_id)]
        out.append((" ".join([instance.action.name] + [f"{k}={v}" for k, v in instance.params]), t))
    return out


def test_every_clause_and_question_is_accounted_for():
    cited = {c for p in _suite() for c in p.get("clauses", [])}
    for name in ("two-player.yaml", "three-player.yaml"):
        model = load_model(os.path.join(FOLDER, name))
        cov = coverage(model, cited)
        assert not cov.unhandled, f"{name}: clauses not handled: {cov.unhandled}"
        assert cov.accounted_percent == 100.0


def test_every_cold_reading_question_is_answered_once():
    suite = _suite()
    for name in ("two-player.yaml", "three-player.yaml"):
        model = load_model(os.path.join(FOLDER, name))
        questions = {q.id: q for q in model.questions}
        assert len([q for q in questions.values() if q.raised_by == "cold-reading"]) == COLD_READING_IDS
        answers: dict[str, int] = {}
        for reading in model.readings.values():
            for qid in reading.answers:
                answers[qid] = answers.get(qid, 0) + 1
        for assumption in model.assumptions:
            for qid in assumption.answers:
                answers[qid] = answers.get(qid, 0) + 1
        for prop in suite:
            for qid in prop.get("answers", []):
                answers[qid] = answers.get(qid, 0) + 1
        for qid, question in questions.items():
            n = answers.get(qid, 0) + (1 if question.out_of_scope else 0)
            assert n == 1, f"{name}: {qid} is answered {n} times"


def test_a_wild_techie_defeats_a_defender():
    """A wild card written as a Techie of 150 beats a Defender of 130 (Techie defeats Defender,
    US-SUI-5, and its value exceeds, US-VAL-2): after the tally the Defender is defeated."""
    compiled = _compiled()
    layout = compiled.layout
    for packed in _reachable(compiled):
        state = layout.unpack(packed)
        if state["phase"] != "write" or state["field_on"]:
            continue
        p = state["picker"]
        other = "b" if p == "a" else "a"
        steps = dict(_steps(compiled, packed))
        written = steps.get("write_wild s=techie w=1")
        if written is None:
            continue
        # follow the forced and the other player's steps until the tally is done, and look for a
        # line where the other player lays a Defender
        frontier = [written]
        while frontier:
            nxt = []
            for s in frontier:
                st = layout.unpack(s)
                if st["phase"] == "claim":
                    if st["hand"][(other, 1)] > 0:
                        assert st["dfd"][(other, 1)], "the Defender should be defeated by the wild Techie"
                        assert not st["dfw"][(p,)] or any(
                            st["hand"][(other, k)] + st["boosted"][(other, k)] > 0 for k in (0, 2)
                        )
                        return
                    continue
                nxt.extend(t for _, t in _steps(compiled, s))
            frontier = nxt
    raise AssertionError("no line where a wild Techie meets a Defender")


def test_the_player_with_fewer_cards_goes_bust():
    """After the cap is drawn, a player with fewer cards who cannot lay a hand within it loses
    (US-VAL-7): the only step is `bust`, and that player is marked as lost."""
    compiled = _compiled()
    layout = compiled.layout
    for packed in _reachable(compiled):
        state = layout.unpack(packed)
        if state["phase"] != "bustcheck":
            continue
        steps = _steps(compiled, packed)
        if [label for label, _ in steps] == ["bust"]:
            after = layout.unpack(steps[0][1])
            losers = [p for p in ("a", "b") if after["out"][(p,)]]
            assert len(losers) == 1
            chars = {p: sum(v for (q, _), v in state["hold"].items() if q == p) for p in ("a", "b")}
            assert chars[losers[0]] < min(c for p, c in chars.items() if p != losers[0])
            return
    raise AssertionError("no bust reachable")


def test_equal_counts_and_no_hand_is_a_dead_end():
    """The finding stuck-without-bust: when both players hold as many cards and one cannot lay a
    hand within the cap, nobody goes bust and the round cannot go on (a state without moves)."""
    compiled = _compiled()
    layout = compiled.layout
    for packed in _reachable(compiled):
        state = layout.unpack(packed)
        if state["phase"] == "lay" and not compiled.successors(packed):
            chars = {p: sum(v for (q, _), v in state["hold"].items() if q == p) for p in ("a", "b")}
            assert chars["a"] == chars["b"] or chars[state["picker"]] > min(chars.values())
            return
    raise AssertionError("no dead end reachable")
