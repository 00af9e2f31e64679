"""A finding that rests on a number the document never prints is re-checked at the other
plausible values of that number, and the page says it depends on the assumed value."""

from __future__ import annotations

import os

from checker.evidence.growth_check import Outcome
from checker.lang.build import load_model
from checker.pipeline.errata import errata_pages
from checker.pipeline.growth import growth_checks
from checker.pipeline.invented import value_checks, values_to_try
from checker.pipeline.runner import CheckOptions, check_paths
from tests.symbolic_support import write_game

# A hand of three may only be laid under the cap; the document prints no cap, and the modeller
# chose 2, at which nobody can ever lay it (a stuck game). At the plausible 4 or 6 it can always be
# laid. The second rule (a hand of seven) is stuck at every plausible cap: that finding stands.
CAP = """\
game: Cap
id: m
players: [a]
constants:
  cap: {type: int, range: [0, 9], default: 2, document: none, plausible: [2, 6]}
state: {size: "int[0..7]", laid: bool}
init: {size: {choose: [3, 7]}, laid: false}
terminal: laid
actions:
  lay: {by: a, when: "not laid and size <= cap", do: {laid: true}, rule: r-1}
"""

PROPERTIES = """\
- id: small-hand-laid
  kind: invariant
  says: A hand of three can always be laid.
  expr: "laid or size != 3 or size <= cap"
  expect: fails
- id: big-hand-laid
  kind: invariant
  says: A hand of seven can always be laid.
  expr: "laid or size != 7 or size <= cap"
  expect: fails
"""

FINDINGS = """\
findings:
  - id: small-cap
    title: A hand of three can never be laid
    class: gap
    scenario: The cap is two and the hand is three.
    proposed: Print the cap.
    properties: [small-hand-laid]
  - id: big-hand
    title: A hand of seven can never be laid
    class: gap
    scenario: The hand is seven.
    proposed: Let a hand be split.
    properties: [big-hand-laid]
"""


def test_the_values_tried_are_the_ends_and_middle_of_the_plausible_range_but_the_checked_one(tmp_path):
    model = load_model(write_game(str(tmp_path), "cap", CAP))
    assert values_to_try(model.constants["cap"], 2) == (4, 6)
    assert values_to_try(model.constants["cap"], 4) == (2, 6)


def test_a_finding_that_vanishes_at_a_plausible_value_is_published_as_depending_on_it(tmp_path):
    write_game(str(tmp_path), "cap", CAP, PROPERTIES)
    with open(os.path.join(str(tmp_path), "properties", "cap.yaml"), "a") as handle:
        handle.write(FINDINGS)
    results = check_paths([os.path.join(str(tmp_path), "models")], CheckOptions())
    growth_checks(results, 100_000, 60.0, cache_dir=None)
    checks = {c.finding: c for c in value_checks(results, 100_000, 60.0, cache_dir=None)}
    small, big = checks["small-cap"], checks["big-hand"]
    assert [(t.value, t.outcome) for t in small.tried] == [(4, Outcome.VANISHES), (6, Outcome.VANISHES)]
    assert small.depends and small.vanishes_at == (4, 6)
    assert [(t.value, t.outcome) for t in big.tried] == [(4, Outcome.SURVIVES), (6, Outcome.SURVIVES)] and not big.depends
    main, details = errata_pages("cap", results)
    table = main.split("## Findings", 1)[1].split("###", 1)[0]
    small_row = next(line for line in table.splitlines() if "three can never" in line)
    big_row = next(line for line in table.splitlines() if "seven can never" in line)
    assert "depends on the assumed value of `cap` (not in the document; it vanishes at 4, 6)" in small_row
    assert "depends on the assumed value" not in big_row
    assert "**Invented number re-checked** (`small-hand-laid` on m [default]): `cap` (not in the document; checked at 2, plausible 2 to 6)" in details


# Three steps end the game; the document prints no step size, the modeller chose 1. At the
# plausible 3 no step can be taken at all: every play is stuck at the start, so the invariant
# below holds, but in a game that no longer plays. That says nothing about the finding.
STEPS = """\
game: Steps
id: m
players: [a]
constants:
  stride: {type: int, range: [0, 9], default: 1, document: none, plausible: [1, 3]}
state: {n: "int[0..3]"}
init: {n: 0}
terminal: n == 3
actions:
  step: {by: a, when: "n < 3 and stride < 3", do: {n: n + 1}, rule: r-1}
"""

STEPS_PROPERTIES = """\
- id: stays-low
  kind: invariant
  says: The count never passes one.
  expr: "n <= 1"
  expect: fails
"""

STEPS_FINDINGS = """\
findings:
  - id: passes-one
    title: The count passes one
    class: gap
    scenario: Two steps.
    proposed: Stop at one.
    properties: [stays-low]
"""


def test_a_value_at_which_no_play_ends_decides_nothing(tmp_path):
    write_game(str(tmp_path), "steps", STEPS, STEPS_PROPERTIES)
    with open(os.path.join(str(tmp_path), "properties", "steps.yaml"), "a") as handle:
        handle.write(STEPS_FINDINGS)
    results = check_paths([os.path.join(str(tmp_path), "models")], CheckOptions())
    check = value_checks(results, 100_000, 60.0, cache_dir=None)[0]
    tried = {t.value: t for t in check.tried}
    assert tried[2].outcome == Outcome.SURVIVES
    assert tried[3].outcome == Outcome.NOT_RECHECKED and "no play reaches the end of the game at this value" in tried[3].reason
    assert not check.depends


def test_a_count_an_assumption_fixes_is_not_varied(tmp_path):
    """A variant whose deck is exactly the cards it deals (`fixed_by`) keeps that count: another
    plausible value would deal into a draw pile the variant does not model."""
    fixed = CAP.replace("cap: {type: int, range: [0, 9], default: 2, document: none, plausible: [2, 6]}",
                        "cap: {type: int, range: [0, 9], default: 2, document: none, plausible: [2, 6], fixed_by: dealt}")
    fixed += "assumptions:\n  - {id: dealt, clauses: [r-1], says: The cap is what is dealt., why: The text is silent.}\nclauses:\n  r-1: {at: '1', says: Lay a hand under the cap.}\n"
    write_game(str(tmp_path), "cap", fixed, PROPERTIES)
    with open(os.path.join(str(tmp_path), "properties", "cap.yaml"), "a") as handle:
        handle.write(FINDINGS)
    results = check_paths([os.path.join(str(tmp_path), "models")], CheckOptions())
    assert value_checks(results, 100_000, 60.0, cache_dir=None) == []


def test_a_finding_s_invented_numbers_are_one_paragraph_per_failure_re_checked():
    """Six deck sizes re-checked for one failure are one paragraph naming it once, not six."""
    from types import SimpleNamespace

    from checker.evidence.value_check import ValueCheck, ValueTried
    from checker.report.errata_details import _value_checks

    def check(constant: str, prop: str) -> ValueCheck:
        return ValueCheck("f", constant, 1, (2, 8), "two-player", prop, "default", (ValueTried(2, Outcome.SURVIVES, states=10),))

    entry = SimpleNamespace(values=[check("n_face", "ends"), check("n_rival", "ends"), check("n_face", "other")])
    lines = _value_checks(entry)  # type: ignore[arg-type]
    assert lines == [
        "**Invented numbers re-checked** (`ends` on two-player [default]): `n_face` (not in the document; checked at 1, plausible 2 to 8): "
        "at 2: still fails (10 states). `n_rival` (not in the document; checked at 1, plausible 2 to 8): at 2: still fails (10 states).", "",
        "**Invented number re-checked** (`other` on two-player [default]): `n_face` (not in the document; checked at 1, plausible 2 to 8): at 2: still fails (10 states).", ""]
