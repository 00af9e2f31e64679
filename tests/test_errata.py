"""The generated errata page: defects, where they fail, and which reading changes what."""

from __future__ import annotations

from checker.report.errata import errata_page
from tests.test_property_kinds import COUNTER, run

TWO_READINGS = COUNTER.replace("readings:\n", "readings:\n  extra:\n    clause: c-2\n    question: Does anything else change?\n    options: {same: no, other: yes}\n    default: same\n")
SUITE = """
- {id: three, kind: reachable, expr: "x == 3", says: Three can be reached., expect: {default: holds, step=two: fails}, clarify: Say whether a move may overshoot.}
- {id: small, kind: invariant, expr: "x <= 4"}
"""


def page(tmp_path) -> str:
    results = run(tmp_path, TWO_READINGS, SUITE)
    return errata_page("g", list(results.values()))


def test_only_the_reading_that_changes_a_verdict_is_named(tmp_path):
    text = page(tmp_path)
    extra_block = text.split("- **extra**")[1].split("- **step**")[0]
    step_block = text.split("- **step**")[1].split("## Defects")[0]
    assert "Outcome-changing: `two` breaks three." in step_block
    assert "Outcome-changing" not in extra_block
    assert "`same` *(default)*: no" in extra_block  # YAML 1.2 booleans: `no` stays a word


def test_a_defect_entry_has_its_table_evidence_and_clarification(tmp_path):
    text = page(tmp_path)
    assert "| [three](#defect-three) | reachable | fails under `counter` with `step=two` |" in text
    assert "| small | invariant | holds everywhere |" in text
    entry = text.split("### 1. Three can be reached.")[1]
    assert "| counter | step=two | fails | fails |" in entry
    assert "**Proposed clarification:** Say whether a move may overshoot." in entry
    assert "Unreachable situation" in entry
