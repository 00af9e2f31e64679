"""Findings played at the document's own size: how often they arise in seeded random games, a
rare one found by a walk guided by the small game's counterexample, and one that the miniature
alone shows labelled so."""

from __future__ import annotations

import os

from checker.lang.build import load_model
from checker.pipeline.errata import errata_pages
from checker.pipeline.full_size import document_constants, invented_sizes, size_checks
from checker.pipeline.runner import CheckOptions, check_paths
from tests.symbolic_support import write_game

# A climber steps up one rung at a time and any of three slips sends them back to the ground;
# the ladder has 3 rungs in the model and 12 in the document. Reaching the top takes that many
# steps up in a row: at 12, about one chance in 17 million from the ground in random play.
LADDER = """\
game: Ladder
id: m
players: [a]
constants:
  top: {type: int, range: [1, 20], default: 3, document: 12}
state: {n: "int[0..20]"}
init: {n: 0}
terminal: "false"
actions:
  up: {by: a, when: "n < top", do: {n: n + 1}, rule: r-1}
  slip_a: {by: a, when: "n > 0", do: {n: 0}, rule: r-1}
  slip_b: {by: a, when: "n > 0", do: {n: 0}, rule: r-1}
  slip_c: {by: a, when: "n > 0", do: {n: 0}, rule: r-1}
  rest: {by: a, when: "n == top", do: {n: 0}, rule: r-1}
"""

PROPERTIES = """\
- id: top-never-reached
  kind: invariant
  says: Nobody reaches the top of the ladder.
  expr: n < top
  expect: fails
- id: short-ladder-top
  kind: invariant
  says: On a short ladder nobody reaches the top (true of a ladder of more than five rungs).
  expr: top > 5 or n < top
  expect: fails
- id: first-rung
  kind: invariant
  says: Nobody stands on the first rung.
  expr: n != 1
  expect: fails
"""

FINDINGS = """\
findings:
  - {id: top, title: The top can be reached, class: gap, scenario: Climb., proposed: Say so., properties: [top-never-reached]}
  - {id: short, title: A short ladder's top can be reached, class: gap, scenario: Climb a short one., proposed: Say so., properties: [short-ladder-top]}
  - {id: first, title: The first rung is used, class: gap, scenario: Step up., proposed: Say so., properties: [first-rung]}
"""


def checked(tmp_path):
    write_game(str(tmp_path), "ladder", LADDER, PROPERTIES)
    with open(os.path.join(str(tmp_path), "properties", "ladder.yaml"), "a") as handle:
        handle.write(FINDINGS)
    results = check_paths([os.path.join(str(tmp_path), "models")], CheckOptions())
    return results, {c.finding: c for c in size_checks(results, cache_dir=None, games=40, max_states=40_000)}


def test_the_document_constants_are_the_scaled_ones(tmp_path):
    model = load_model(write_game(str(tmp_path), "ladder", LADDER))
    assert document_constants(model) == {"top": 12}


def test_an_invented_size_is_played_at_the_middle_of_its_plausible_range(tmp_path):
    """A deck the document leaves to the designer is played at a plausible size, not the miniature's."""
    invented = LADDER.replace("default: 3, document: 12}", "default: 3, bound: true, document: none, plausible: [10, 14]}")
    model = load_model(write_game(str(tmp_path), "ladder", invented))
    assert document_constants(model) == {} and invented_sizes(model) == {"top": 12}
    write_game(str(tmp_path), "ladder", invented, PROPERTIES)
    with open(os.path.join(str(tmp_path), "properties", "ladder.yaml"), "a") as handle:
        handle.write(FINDINGS)
    results = check_paths([os.path.join(str(tmp_path), "models")], CheckOptions())
    first = {c.finding: c for c in size_checks(results, cache_dir=None, games=10, max_states=10_000)}["first"]
    assert first.sizes == () and first.invented == ("top 12",) and first.trace is not None
    assert first.trace.config.constants["top"] == 12
    assert first.words().startswith("At the document's size (sizes the document does not print at the middle of their plausible range: top 12): happens")


def test_a_common_violation_is_counted_a_rare_one_found_by_the_guided_walk_and_a_miniature_one_labelled(tmp_path):
    results, checks = checked(tmp_path)
    common, rare, miniature = checks["first"], checks["top"], checks["short"]
    assert common.sizes == ("top 12",) and common.games == 40 and common.hits == 40 and common.trace is not None
    assert rare.hits == 0 and rare.guided and rare.trace is not None and rare.trace.config.constants["top"] == 12
    assert [s.action for s in rare.trace.steps][-12:] == ["up"] * 12
    # the ladder never ends: each game is stopped at the length cap, so the budget plays fewer than asked
    assert miniature.trace is None and 0 < miniature.games < 40 and not miniature.guided
    assert "happens in about 1 game in 1 of seeded random play" not in common.words()
    assert common.words().startswith("At the document's size (top 12): happens in 40 of 40 games of seeded random play")
    assert "a walk guided by the small game's counterexample shows it" in rare.words() and "rare in random play" in rare.words()
    assert "seen only in the scaled-down game so far" in miniature.words()
    page, details = errata_pages("ladder", results)
    # the main page names the values played once, above the findings, and not on each finding's line
    assert "Every finding is also played at the document's size" in page
    assert "At the document's size: happens in 40 of 40 games" in page and "At the document's size (top 12)" not in page
    assert "1 filed finding(s) were not met at the document's size (seen only in the scaled-down game so far): not counted as defects" in page
    assert f"\nAt the document's size (top 12): not found in {miniature.games} seeded random games" in details


PIT = """\
game: Pit
id: m
players: [a]
constants:
  top: {type: int, range: [1, 20], default: 2, document: 5}
state: {n: "int[0..20]", done: bool}
init: {n: 0, done: false}
terminal: done
actions:
  up: {by: a, when: "not done and n < top", do: {n: n + 1}, rule: r-1}
  stop: {by: a, when: "not done and n < top", do: {done: true}, rule: r-1}
  sway: {by: a, when: "n == top", do: {n: top}, rule: r-1}
"""


def test_a_full_size_dead_end_is_explored_again_from_the_interpreter_and_its_note_says_how_big(tmp_path):
    """A `can-end` violation at the document's size: the trace's last state is a closed set
    with no end, counted again when it is confirmed, as every saved can-end trace says."""
    import re

    write_game(str(tmp_path), "pit", PIT, "- {id: can-end, kind: can-end, says: The climb can always still end., expect: fails}\n")
    with open(os.path.join(str(tmp_path), "properties", "pit.yaml"), "a") as handle:
        handle.write("findings:\n  - {id: pit, title: The top is a pit, class: gap, scenario: Climb., proposed: Say so., properties: [can-end]}\n")
    results = check_paths([os.path.join(str(tmp_path), "models")], CheckOptions())
    pit = size_checks(results, cache_dir=None, games=200, max_states=40_000)[0]
    assert pit.trace is not None and pit.trace.steps[-1].state["n"] == 5
    assert re.search(r"the 1 state\(s\) reachable from it \(itself included\) are none of them terminal", pit.trace.note), pit.trace.note
