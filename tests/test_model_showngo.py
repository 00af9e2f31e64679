"""The Show'n'Go models: clause coverage, and a few rule-level facts checked on the compiled model.

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
FOLDER = os.path.join(ROOT, "models", "showngo")
SUITE = os.path.join(ROOT, "properties", "showngo.yaml")


def _citations() -> set[str]:
    with open(SUITE, encoding="utf-8") as fh:
        props = yaml.safe_load(fh)["properties"]
    return {c for p in props for c in p.get("clauses", [])}


def test_every_clause_is_formalised_or_out_of_scope():
    cited = _citations()
    for name in ("base.yaml", "junior.yaml"):
        model = load_model(os.path.join(FOLDER, name))
        cov = coverage(model, cited)
        assert not cov.unhandled, f"{name}: clauses not handled: {cov.unhandled}"
        assert cov.accounted_percent >= 95.0


def test_every_reading_names_clauses_and_a_default():
    model = load_model(os.path.join(FOLDER, "base.yaml"))
    for name, reading in model.readings.items():
        assert reading.clauses, name
        assert reading.default in reading.options, name
        assert all(c in model.clauses for c in reading.clauses), name


def test_first_moves_follow_the_setup():
    """The coin toss gives two initial deals; after the deal the receiving team acts at 5 m."""
    model = load_model(os.path.join(FOLDER, "base.yaml"))
    compiled = CompiledModel(model, model.default_config())
    layout = compiled.layout
    frontier = list(compiled.initial)
    seen = set(frontier)
    acting = []
    while frontier and not acting:
        nxt = []
        for s in frontier:
            for _, t in compiled.successors(s):
                if t in seen:
                    continue
                seen.add(t)
                state = layout.unpack(t)
                if state["stage"] == "acting":
                    acting.append(state)
                nxt.append(t)
        frontier = nxt
    assert acting
    for state in acting:
        assert state["fp"] == 5
        assert state["turn"] == state["attacker"] == state["receiver1"]
        assert all(sum(v for (p, _), v in state["hand"].items() if p == team) == 2 for team in ("home", "away"))


def test_junior_drops_the_interrupt_readings():
    """Readings about Penalties and interrupts have nothing to act on without those cards."""
    base = load_model(os.path.join(FOLDER, "base.yaml"))
    junior = load_model(os.path.join(FOLDER, "junior.yaml"))
    dropped = {"penalty_set", "pk_empty", "uncovered", "penalty_on_interrupt"}
    assert dropped <= set(base.readings)
    assert not dropped & set(junior.readings)
    assert set(junior.readings) == set(base.readings) - dropped


def test_silences_are_readings_not_constants():
    """The Penalty-on-interrupt question lives in a reading, not in the `applicable` table."""
    model = load_model(os.path.join(FOLDER, "base.yaml"))
    table = model.default_config().constants["applicable"]
    interrupts = ("penalty", "handling_error", "mistackle", "special")
    flat = {}
    for key, value in (table.items() if isinstance(table, dict) else []):
        if isinstance(value, dict):
            for inner, v in value.items():
                flat[(key, inner)] = v
        else:
            flat[tuple(key) if not isinstance(key, str) else key] = value
    assert flat, "applicable table not readable"
    assert not any(flat.get(("penalty", t)) for t in interrupts)
    for name in ("conversion_taken", "penalty_on_interrupt", "et_deal", "conversion_half_end"):
        reading = model.readings[name]
        assert reading.clauses and len(reading.options) >= 2
