"""The pytest plugin, run by pytest's own `pytester` on a copy of the test project (in a
subprocess: an in-process run would re-import numpy, which cannot be loaded twice)."""

from __future__ import annotations

import importlib.metadata
import os
import shutil
import tomllib

import pytest

from tests.conftest import HERE

pytest_plugins = ["pytester"]

ROOT = os.path.dirname(HERE)


def _plugin_args() -> list[str]:
    """`-p checker.commands.pytest_plugin` unless the installed entry point already loads it."""
    installed = any(ep.value == "checker.commands.pytest_plugin" for ep in importlib.metadata.entry_points(group="pytest11"))
    return [] if installed else ["-p", "checker.commands.pytest_plugin"]


@pytest.fixture
def game(pytester: pytest.Pytester) -> pytest.Pytester:
    shutil.copytree(os.path.join(HERE, "models"), pytester.path / "models")
    shutil.copytree(os.path.join(HERE, "properties"), pytester.path / "properties")
    return pytester


def run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    return pytester.runpytest_subprocess(*_plugin_args(), "--rulecheck", "--rulecheck-readings", "default", *args)


def test_the_entry_point_registers_this_module():
    with open(os.path.join(ROOT, "pyproject.toml"), "rb") as handle:
        entry_points = tomllib.load(handle)["project"]["entry-points"]["pytest11"]
    assert entry_points == {"rulecheck": "checker.commands.pytest_plugin"}


@pytest.mark.slow
def test_each_property_and_reading_is_a_test(game):
    result = run(game, "--collect-only", "-q")
    ids = {line.strip() for line in result.outlines if "::" in line}
    assert "properties/duel.yaml::game-ends[duel-default]" in ids
    assert "properties/duel.yaml::scores-bounded[duel-default]" in ids
    assert "properties/duel.yaml::deadlock-free[duel-default]" in ids  # the generic properties too
    assert all(i.startswith("properties/duel.yaml::") for i in ids)
    everything = game.runpytest_subprocess(*_plugin_args(), "--rulecheck", "--collect-only", "-q")
    assert "properties/duel.yaml::scores-bounded[duel-tie=defender]" in {line.strip() for line in everything.outlines}


@pytest.mark.slow
def test_the_suite_passes_with_its_expected_failures(game):
    result = game.runpytest_subprocess(*_plugin_args(), "--rulecheck", "--rulecheck-no-write")
    outcomes = result.parseoutcomes()
    assert outcomes.get("failed", 0) == 0 and outcomes["passed"] >= 10, result.outlines[-5:]
    assert not (game.path / "counterexamples").exists()


@pytest.mark.slow
def test_an_unexpected_verdict_fails_with_its_evidence(game):
    suite = game.path / "properties" / "duel.yaml"
    suite.write_text(suite.read_text().replace('expect: {default: holds, "tie=defender": fails}', "expect: holds"))
    result = game.runpytest_subprocess(*_plugin_args(), "--rulecheck", "-k", "scores-bounded")
    result.assert_outcomes(passed=1, failed=1)
    text = "\n".join(result.outlines)
    assert "FAILED properties/duel.yaml::scores-bounded[duel-tie=defender]" in text
    assert "expected holds, found fails (explicit, exhaustive)" in text
    evidence = next(line for line in result.outlines if line.startswith("evidence: "))
    assert (game.path / evidence.split()[1]).is_file()
    assert "Readings: tie=defender." in text and "**Why this breaks it:**" in text  # the play-by-play


@pytest.mark.slow
def test_selection_options(game):
    only = run(game, "--rulecheck-property", "game-ends", "--collect-only", "-q")
    assert [line.strip() for line in only.outlines if "::" in line] == ["properties/duel.yaml::game-ends[duel-default]"]
    assert run(game, "--rulecheck-game", "other").ret == pytest.ExitCode.NO_TESTS_COLLECTED
    marked = run(game, "-m", "rulecheck", "-k", "game-ends or coverage")
    marked.assert_outcomes(passed=2)


def test_without_the_option_nothing_is_collected(game):
    assert game.runpytest_subprocess(*_plugin_args()).ret == pytest.ExitCode.NO_TESTS_COLLECTED


def test_a_broken_suite_is_a_located_collection_error(game):
    suite = game.path / "properties" / "duel.yaml"
    suite.write_text(suite.read_text().replace("kind: terminates", "kind: terminate"))
    result = run(game)
    assert result.ret == pytest.ExitCode.INTERRUPTED
    text = "\n".join(result.outlines)
    assert "properties/duel.yaml:4:11" in text and "unknown property kind `terminate`" in text
    assert "Traceback" not in text


@pytest.mark.slow
def test_a_bundled_suite_runs_under_pytest_with_its_filed_findings(pytester: pytest.Pytester):
    """Show'n'Go as shipped (the junior variant, default readings, to keep it short): each
    property is a test, and the findings its suite files as `expect: fails` pass as expected."""
    shutil.copytree(os.path.join(ROOT, "models", "showngo"), pytester.path / "models" / "showngo")
    shutil.copytree(os.path.join(ROOT, "properties"), pytester.path / "properties")
    result = pytester.runpytest_subprocess(*_plugin_args(), "--rulecheck", "--rulecheck-readings", "default",
                                           "--rulecheck-no-write", "-k", "junior", "-rA")
    outcomes = result.parseoutcomes()
    assert outcomes.get("failed", 0) == 0 and outcomes["passed"] >= 30, result.outlines[-5:]
    passed = {line.split()[1] for line in result.outlines if line.startswith("PASSED ")}
    assert "properties/showngo.yaml::game-ends[junior-default]" in passed
    assert all(node.startswith("properties/showngo.yaml::") and node.endswith("[junior-default]") for node in passed)
