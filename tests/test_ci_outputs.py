"""CI outputs of `rulecheck check`: JUnit XML, SARIF 2.1.0 and baselines, read back by real consumers."""

from __future__ import annotations

import json
import os
import shutil
import subprocess

import pytest

from tests.conftest import rulecheck

HERE = os.path.dirname(__file__)



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
    assert expected_fail._elem.get("file") == "properties/duel.yaml"
    assert expected_fail._elem.get("line") == str(line_of(project / "properties" / "duel.yaml", "id: scores-bounded"))


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


SARIF_SCHEMA = os.path.join(HERE, "schemas", "sarif-2.1.0-rtm.5.json")


def sarif_of(project, *args: str) -> tuple[subprocess.CompletedProcess, dict]:
    jsonschema = pytest.importorskip("jsonschema")
    run = rulecheck("check", "--jobs", "1", "--sarif", "out.sarif", *args, cwd=str(project))
    with open(project / "out.sarif", encoding="utf-8") as handle:
        log = json.load(handle)
    with open(SARIF_SCHEMA, encoding="utf-8") as handle:
        jsonschema.Draft4Validator(json.load(handle)).validate(log)  # raises on any schema violation
    return run, log


def line_of(path, text: str) -> int:
    return next(n for n, line in enumerate(path.read_text().splitlines(), 1) if text in line)


def test_sarif_locates_a_finding_at_its_property_its_clauses_and_its_trace_steps(project):
    run, log = sarif_of(project)
    assert run.returncode == 0, run.stderr
    (sarif_run,) = log["runs"]
    (finding,) = sarif_run["results"]  # the filed finding; no result is unexpected
    assert finding["ruleId"] == "duel/scores-bounded" and finding["level"] == "error"  # outcome-changing
    assert finding["message"]["text"].startswith("The tie bonus can carry a player past the target")
    assert finding["properties"]["finding"] == "tie-bonus-overshoots"
    rule = sarif_run["tool"]["driver"]["rules"][finding["ruleIndex"]]
    assert rule["id"] == "duel/scores-bounded" and rule["shortDescription"]["text"].startswith("Nobody overshoots the target")
    model = project / "models" / "duel" / "duel.yaml"
    where = [(loc["physicalLocation"]["artifactLocation"]["uri"], loc["physicalLocation"]["region"]["startLine"]) for loc in finding["locations"]]
    assert where == [("properties/duel.yaml", line_of(project / "properties" / "duel.yaml", "id: scores-bounded")), ("models/duel/duel.yaml", line_of(model, "duel-3: {at:"))]
    steps = finding["codeFlows"][0]["threadFlows"][0]["locations"]
    lines = model.read_text().splitlines()
    assert len(steps) == 8 and all(lines[s["location"]["physicalLocation"]["region"]["startLine"] - 1].strip().startswith("rule: duel-") for s in steps)
    assert steps[-1]["location"]["message"]["text"].startswith("The rules: tie_break")
    assert (project / finding["properties"]["evidence"]).is_file()
    assert finding["suppressions"] == [{"kind": "inSource", "justification": "filed as finding `tie-bonus-overshoots` in properties/duel.yaml, its failures expected"}]


def test_sarif_reports_unexpected_results_with_fingerprints_that_survive_edits(project):
    break_expectation(project)
    run, log = sarif_of(project, "--no-write")
    assert run.returncode == 1
    results = log["runs"][0]["results"]
    unexpected = [r for r in results if "expected" in r["properties"]]
    assert len(unexpected) == 1 and unexpected[0]["level"] == "error"
    assert not [r for r in results if "suppressions" in r]  # an unexpected result, and the finding it leaves unfiled, stay open alerts
    assert unexpected[0]["message"]["text"].startswith("expected holds, found fails")
    assert unexpected[0]["properties"]["reading"] == "tie=defender"
    before = {r["partialFingerprints"]["rulecheck/v1"] for r in results}
    assert len(before) == len(results) == 2  # the finding (now unfiled) and the unexpected result
    suite = project / "properties" / "duel.yaml"
    suite.write_text("# a comment that moves every line\n\n" + suite.read_text())
    _, again = sarif_of(project, "--no-write")
    assert {r["partialFingerprints"]["rulecheck/v1"] for r in again["runs"][0]["results"]} == before
    assert again["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"]["startLine"] == results[0]["locations"][0]["physicalLocation"]["region"]["startLine"] + 2


def change_one_rule(project) -> None:
    """Playing a card now scores one point more than the card is worth (clause duel-2's action)."""
    model = project / "models" / "duel" / "duel.yaml"
    text = model.read_text()
    assert "min(score[turn] + points[k], 9)" in text
    model.write_text(text.replace("min(score[turn] + points[k], 9)", "min(score[turn] + points[k] + 1, 9)"))


def baseline_json(project) -> dict:
    run = rulecheck("check", "--jobs", "1", "--no-write", "--format", "json", cwd=str(project))
    (project / "base.json").write_text(run.stdout)
    return json.loads(run.stdout)


def test_the_json_output_lists_its_findings_with_fingerprints(project):
    doc = baseline_json(project)
    assert [(f["id"], f["severity"], f["filed"]) for f in doc["findings"]] == [("tie-bonus-overshoots", "outcome-changing", True)]
    _, log = sarif_of(project, "--no-write")
    assert doc["findings"][0]["fingerprint"] == log["runs"][0]["results"][0]["partialFingerprints"]["rulecheck/v1"]


@pytest.mark.slow
def test_a_baseline_run_after_changing_one_rule_reports_exactly_the_new_findings(project):
    baseline_json(project)
    same = rulecheck("check", "--jobs", "1", "--no-write", "--baseline", "base.json", "--fail-on", "new", cwd=str(project))
    assert same.returncode == 0, same.stdout + same.stderr
    assert "baseline: 0 new, 0 fixed, 1 unchanged finding(s); 0 new unexpected result(s)" in same.stdout
    change_one_rule(project)
    run = rulecheck("check", "--jobs", "1", "--no-write", "--baseline", "base.json", "--fail-on", "new", "--format", "json", cwd=str(project))
    assert run.returncode == 1, run.stderr
    compared = json.loads(run.stdout)["baseline"]
    # the extra point breaks the promise about what a card scores, and lets a score overshoot by default
    assert sorted(f["id"] for f in compared["new"]) == ["unfiled-play-scores", "unfiled-scores-bounded"]
    assert [f["id"] for f in compared["unchanged"]] == ["tie-bonus-overshoots"] and compared["fixed"] == []
    assert sorted((u["property"], u["reading"]) for u in compared["new_unexpected"]) == [("play-scores", "default"), ("play-scores", "tie=defender"), ("scores-bounded", "default")]
    text = rulecheck("check", "--jobs", "1", "--no-write", "--baseline", "base.json", cwd=str(project))
    assert "  new: duel: unfiled-play-scores (outcome-changing):" in text.stdout
    _, log = sarif_of(project, "--no-write", "--baseline", "base.json")
    states = sorted((r["properties"].get("finding", "unexpected"), r["baselineState"]) for r in log["runs"][0]["results"])
    assert states == [("tie-bonus-overshoots", "unchanged"), ("unexpected", "new"), ("unexpected", "new"), ("unexpected", "new"), ("unfiled-play-scores", "new"), ("unfiled-scores-bounded", "new")]


@pytest.mark.slow
def test_a_baseline_reports_fixed_findings_and_fail_on_new_ignores_known_ones(project):
    change_one_rule(project)
    baseline_json(project)  # the broken text is the baseline
    shutil.copy(os.path.join(HERE, "models", "duel", "duel.yaml"), project / "models" / "duel" / "duel.yaml")
    run = rulecheck("check", "--jobs", "1", "--no-write", "--baseline", "base.json", "--fail-on", "new", "--format", "json", cwd=str(project))
    assert run.returncode == 0, run.stderr
    compared = json.loads(run.stdout)["baseline"]
    assert sorted(f["id"] for f in compared["fixed"]) == ["unfiled-play-scores", "unfiled-scores-bounded"] and compared["new"] == []
    change_one_rule(project)
    known = rulecheck("check", "--jobs", "1", "--no-write", "--baseline", "base.json", "--fail-on", "new", cwd=str(project))
    assert known.returncode == 0 and "3 already in the baseline" in known.stdout  # known problems do not fail a --fail-on new run
    assert rulecheck("check", "--jobs", "1", "--no-write", "--baseline", "base.json", cwd=str(project)).returncode == 1  # --fail-on unexpected


def test_fail_on_any_fails_on_a_filed_finding_that_unexpected_accepts(project):
    assert rulecheck("check", "--jobs", "1", "--no-write", cwd=str(project)).returncode == 0
    assert rulecheck("check", "--jobs", "1", "--no-write", "--fail-on", "any", cwd=str(project)).returncode == 1


@pytest.mark.parametrize(("content", "message"), [
    (None, "--fail-on new needs --baseline FILE"),
    ("{not json", "is not JSON (line 1)"),
    ('{"format": "other"}', "is not a rulecheck results file"),
    ('{"format": "rulecheck-results", "version": 1, "results": []}', "lists no findings"),
])
def test_a_bad_baseline_is_refused_before_checking(project, content, message):
    args = ["check", "--jobs", "1", "--no-write", "--fail-on", "new", "--sarif", "out.sarif"]
    if content is not None:
        (project / "base.json").write_text(content)
        args += ["--baseline", "base.json"]
    run = rulecheck(*args, cwd=str(project))
    assert run.returncode == 2 and message in run.stderr and "Traceback" not in run.stderr
    assert not (project / "out.sarif").exists()  # nothing half-done


@pytest.mark.slow
def test_a_bundled_game_gives_valid_junit_and_sarif_located_in_its_own_files(tmp_path):
    """Show'n'Go as shipped (default readings: one exploration per variant keeps this quick)."""
    junitparser = pytest.importorskip("junitparser")
    root = os.path.dirname(HERE)
    shutil.copytree(os.path.join(root, "models", "showngo"), tmp_path / "models" / "showngo")
    shutil.copytree(os.path.join(root, "properties"), tmp_path / "properties")
    run, log = sarif_of(tmp_path, "--no-write", "--readings", "default", "--junit", "out.xml", "models/showngo")
    assert run.returncode == 0, run.stderr
    xml = junitparser.JUnitXml.fromfile(str(tmp_path / "out.xml"))
    assert {suite.name for suite in xml} == {"showngo.base", "showngo.junior"} and xml.tests > 30 and xml.failures == 0
    results = log["runs"][0]["results"]
    assert results and all(r["ruleId"].startswith("showngo/") for r in results)
    clauses = (tmp_path / "models" / "showngo" / "clauses.yaml").read_text().splitlines()
    for result in results:
        first, *cited = result["locations"]
        assert first["physicalLocation"]["artifactLocation"]["uri"] == "properties/showngo.yaml"
        for loc in cited:
            assert loc["physicalLocation"]["artifactLocation"]["uri"] == "models/showngo/clauses.yaml"
            cid = loc["message"]["text"].split()[1].rstrip(":")
            assert cid in clauses[loc["physicalLocation"]["region"]["startLine"] - 1]
        for step in result["codeFlows"][0]["threadFlows"][0]["locations"]:
            where = step["location"]["physicalLocation"]
            text = (tmp_path / where["artifactLocation"]["uri"]).read_text().splitlines()
            assert text[where["region"]["startLine"] - 1].strip().startswith("rule:")


def test_the_pre_commit_hook_runs_a_real_lint_command():
    import yaml

    with open(os.path.join(os.path.dirname(HERE), ".pre-commit-hooks.yaml"), encoding="utf-8") as handle:
        (hook,) = yaml.safe_load(handle)
    assert hook["id"] == "rulecheck-lint" and hook["language"] == "python" and hook["pass_filenames"] is True  # lint FILE lints what changed (tests/test_lint_scope.py)
    program, *args = hook["entry"].split()
    assert program == "rulecheck" and args == ["lint"]
    from checker.cli import main

    assert "lint" in main.commands
