"""CI outputs of `rulecheck check`: JUnit XML, SARIF 2.1.0 and baselines, read back by real consumers."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest

HERE = os.path.dirname(__file__)


def rulecheck(*args: str, cwd: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "checker.cli", *args], capture_output=True, text=True, cwd=cwd)


@pytest.fixture
def project(tmp_path):
    """A copy of the test project (models/ and properties/) to run the CLI in."""
    shutil.copytree(os.path.join(HERE, "models"), tmp_path / "models")
    shutil.copytree(os.path.join(HERE, "properties"), tmp_path / "properties")
    return tmp_path


def break_expectation(project) -> None:
    """Make `scores-bounded` expected to hold everywhere: the `tie=defender` result becomes unexpected."""
    suite = project / "properties" / "duel.yaml"
    suite.write_text(suite.read_text().replace('expect: {default: holds, "tie=defender": fails}', "expect: holds"))


def test_junit_has_one_case_per_property_and_reading_and_passes_when_all_match(project):
    junitparser = pytest.importorskip("junitparser")
    run = rulecheck("check", "--jobs", "1", "--no-write", "--junit", "out.xml", cwd=str(project))
    assert run.returncode == 0, run.stderr
    xml = junitparser.JUnitXml.fromfile(str(project / "out.xml"))
    cases = [(suite.name, case.name, case) for suite in xml for case in suite]
    assert len(cases) == 16 and {name for name, _, _ in cases} == {"duel.duel"}
    names = {name for _, name, _ in cases}
    assert "scores-bounded[default]" in names and "scores-bounded[tie=defender]" in names
    assert all(case.is_passed for _, _, case in cases)
    assert xml.tests == 16 and xml.failures == 0 and xml.errors == 0
    expected_fail = next(case for _, name, case in cases if name == "scores-bounded[tie=defender]")
    props = {p.get("name"): p.get("value") for p in expected_fail._elem.iterfind("properties/property")}
    assert props["verdict"] == "fails" and props["expected"] == "fails" and props["kind"] == "invariant"
    assert float(expected_fail.time) >= 0


def test_junit_reports_an_unexpected_result_as_a_failure_with_the_evidence_path(project):
    junitparser = pytest.importorskip("junitparser")
    break_expectation(project)
    run = rulecheck("check", "--jobs", "1", "--junit", "out.xml", cwd=str(project))
    assert run.returncode == 1
    xml = junitparser.JUnitXml.fromfile(str(project / "out.xml"))
    assert xml.failures == 1
    failed = [case for suite in xml for case in suite if not case.is_passed]
    assert [case.name for case in failed] == ["scores-bounded[tie=defender]"]
    failure = failed[0].result[0]
    assert isinstance(failure, junitparser.Failure)
    assert failure.message.startswith("expected holds, found fails")
    evidence = next(line for line in failure.text.splitlines() if line.startswith("evidence: "))
    path = evidence.split()[1]
    assert path.startswith(os.path.join("counterexamples", "duel", "scores-bounded.")) and (project / path).is_file()
