"""Checked fixes: a finding's proposed wording, run as a reading option, is printed only when
under it the finding's properties hold, nothing that held breaks, and the suite's worked
examples still play; otherwise the page withholds it and says what went wrong."""

from __future__ import annotations

import os

from checker.pipeline.errata import errata_pages
from checker.pipeline.fix_check import fix_checks
from checker.pipeline.runner import CheckOptions, check_games, load_games
from tests.symbolic_support import write_game

# The printed rules stop a climber on two with no move: a stuck game. Two candidate wordings:
# `end` (the game ends on two) removes the stall and keeps the worked example (two steps reach
# two); `skip` (from one, step straight to three) removes the stall too but breaks the example
# and makes two unreachable.
CLIMB = """\
game: Climb
id: m
players: [a]
state: {n: "int[0..3]", over: bool}
init: {n: 0, over: false}
terminal: over
readings:
  at_two:
    clause: r-1
    question: "What may the climber do on two?"
    options:
      stuck: "nothing: the text names no move"
      end: "the game ends on two"
      skip: "from one, the climber steps straight to three"
    default: stuck
actions:
  step: {by: a, when: "not over and n < 2", do: {n: "n + 2 if n == 1 and reading.at_two == skip else n + 1"}, rule: r-1}
  finish: {by: a, when: "not over and (n == 3 or n == 2 and reading.at_two == end)", do: {over: true}, rule: r-1}
"""

PROPERTIES = """\
- id: deadlock-free
  kind: deadlock-free
  expect: {default: fails, "at_two=end": holds, "at_two=skip": holds}
- id: two-reached
  kind: reachable
  says: The climber can stand on two.
  expr: n == 2
  expect: {default: holds, "at_two=skip": fails}
"""

SUITE_TAIL = """\
findings:
  - id: stuck-on-two
    title: The climber on two has no move
    class: gap
    clauses: [r-1]
    scenario: The climber steps twice and stands on two with nothing to do.
    proposed: "\\"{wording}\\""
    properties: [deadlock-free]
    fix: at_two={fix}
scenarios:
  - id: two-steps-reach-two
    says: The rule book's example, two steps from the start stand on two.
    clauses: [r-1]
    steps: [{{step: {{}}}}, {{step: {{}}}}]
    reaches: n == 2
"""


def checked(tmp_path, fix: str, wording: str):
    write_game(str(tmp_path), "climb", CLIMB, PROPERTIES)
    with open(os.path.join(str(tmp_path), "properties", "climb.yaml"), "a") as handle:
        handle.write(SUITE_TAIL.format(fix=fix, wording=wording))
    games = load_games([os.path.join(str(tmp_path), "models")])
    options = CheckOptions()
    results = check_games(games, options)
    mine = [r for r in results if r.prop.id in ("deadlock-free", "two-reached")]  # `finish` never fires as printed: coverage fails too
    assert len(mine) == 6 and all(r.matches for r in mine), [(r.prop.id, r.reading_label, r.status) for r in mine if not r.matches]
    fixes = fix_checks(games, results, options)
    return fixes[("climb", "stuck-on-two")], errata_pages("climb", results, fixes={k[1]: v for k, v in fixes.items()})[0]


def test_a_wording_that_removes_the_finding_and_keeps_the_example_is_printed_with_its_check(tmp_path):
    check, page = checked(tmp_path, "end", "On two, the game ends.")
    assert check.passed and check.combinations == 1 and check.examples == 1
    assert "checked as `at_two=end` in 1 combination(s)" in page and "On two, the game ends." in page


def test_a_wording_that_breaks_a_worked_example_and_a_property_is_withheld(tmp_path):
    check, page = checked(tmp_path, "skip", "From one, step to three.")
    assert not check.passed and check.still_failing == ()
    assert check.failed_examples == ("two-steps-reach-two",)
    assert check.broken == ("`two-reached` on `m` [at_two=skip]",)
    assert "**Proposed wording withheld**" in page and "From one, step to three." not in page
    assert "`two-steps-reach-two` no longer play" in page


def test_a_wording_that_leaves_the_finding_standing_is_withheld(tmp_path):
    # `stuck` is the printed reading itself: proposing it changes nothing
    check, page = checked(tmp_path, "stuck", "Nothing changes.")
    assert not check.passed and check.still_failing == ("`deadlock-free` on `m` [default]",)
    assert "still fail" in page and "Nothing changes." not in page
