"""The Supershow multiplayer models: clause coverage, readings, and a few rule-level facts.

The full property suite runs in the bundled-evidence test; these are quick checks that every
match-type model keeps its promises to the clause index and that single steps follow the text.
"""

from __future__ import annotations

import os

import yaml

from checker.lang.build import load_model
from checker.lang.compile import CompiledModel
from checker.lint import coverage

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FOLDER = os.path.join(ROOT, "models", "supershow")
SUITE = os.path.join(ROOT, "properties", "supershow.yaml")
VARIANTS = sorted(f for f in os.listdir(FOLDER) if f.endswith(".yaml") and f != "clauses.yaml")


def _citations() -> set[str]:
    with open(SUITE, encoding="utf-8") as fh:
        props = yaml.safe_load(fh)["properties"]
    return {c for p in props for c in p.get("clauses", [])}


def _states(name: str, keep=lambda s: True, limit: int = 200_000):
    """Breadth-first over the default configuration, yielding (state, successor) pairs."""
    model = load_model(os.path.join(FOLDER, name))
    compiled = CompiledModel(model, model.default_config())
    unpack = compiled.layout.unpack
    frontier, seen = list(compiled.initial), set(compiled.initial)
    while frontier and len(seen) < limit:
        nxt = []
        for s in frontier:
            before = unpack(s)
            if not keep(before):
                continue
            for _, t in compiled.successors(s):
                yield before, unpack(t)
                if t not in seen:
                    seen.add(t)
                    nxt.append(t)
        frontier = nxt


def test_every_clause_is_formalised_or_out_of_scope():
    cited = _citations()
    for name in VARIANTS:
        cov = coverage(load_model(os.path.join(FOLDER, name)), cited)
        assert not cov.unhandled, f"{name}: clauses not handled: {cov.unhandled}"
        assert cov.accounted_percent >= 95.0


def test_every_reading_names_clauses_and_a_default():
    for name in VARIANTS:
        model = load_model(os.path.join(FOLDER, name))
        for rname, reading in model.readings.items():
            assert reading.clauses, (name, rname)
            assert reading.default in reading.options, (name, rname)
            assert all(c in model.clauses for c in reading.clauses), (name, rname)


def test_each_variant_sets_its_players():
    counts = {}
    for name in VARIANTS:
        model = load_model(os.path.join(FOLDER, name))
        if not model.abstract:
            counts[model.id] = len(model.domains["player"].members)
    assert counts["triple-threat-elimination"] == counts["handicap"] == counts["tag-team-3"] == 3
    assert counts["tornado-tag"] == counts["fatal-four-way-elimination"] == counts["fatal-four-way-first-fall"] == 4
    assert counts["birdcage"] == 6


def test_birdcage_draft_deals_each_of_three_entrants_two_of_every_number():
    """With 3 entrants the piles of 6 go round twice: nobody ends with a 1-30 deck (SS-BC-47)."""
    for before, after in _states("birdcage.yaml", keep=lambda s: s["phase"] in ("draft_comp", "draft_cards")):
        if before["phase"] == "draft_cards" and after["phase"] == "roll":
            assert [after["drafted"][(p,)] for p in ("p1", "p2", "p3")] == [4, 4, 4]  # 2 piles x 2 copies
            return
    raise AssertionError("the draft never ended")


def test_protecting_leaves_the_protector_without_cards_despite_the_referee_gimmick():
    """SS-TTE-25: after protecting, zero cards in hand, even though the referee's gimmick draws one."""
    seen = 0
    for before, after in _states("special-guest-referee.yaml"):
        if before["phase"] == "protecting" and after["phase"] == "play":
            for (p,), v in before["ask"].items():
                if v == 3:
                    assert all(n == 0 for (q, _k), n in after["hand"].items() if q == p)
                    seen += 1
        if seen >= 5:
            return
    assert seen, "no protect found"

