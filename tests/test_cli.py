"""The command line as a user runs it: exit statuses, output formats, files written."""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys

import pytest

from checker.engines.explicit import Budget
from checker.engines.verdict import Path
from checker.evidence.confirm import build_trace
from checker.evidence.trace import ReplayMismatch
from checker.lang.build import load_model
from checker.lang.properties import bind, load_suite
from checker.pipeline.runner import CheckOptions, check_paths
from tests.conftest import rulecheck

HERE = os.path.dirname(__file__)



def test_check_exits_0_when_every_result_matches_and_writes_evidence(project):
    run = rulecheck("check", cwd=str(project))
    assert run.returncode == 0, run.stdout + run.stderr
    lines = run.stdout.splitlines()
    assert lines[0].startswith("duel: 1 model(s), 2 combinations, 8 properties; 1 finding(s) (1 outcome-changing); 0 unexpected;")
    assert len(lines) == 2 and "16 as expected, 0 unexpected" in lines[1]
    written = sorted(os.listdir(project / "counterexamples" / "duel"))
    assert written[1] == "shared.json" and len(written) == 2
    assert re.fullmatch(r"scores-bounded\.[0-9a-f]{12}\.json", written[0])
    doc = json.loads((project / "counterexamples" / "duel" / written[0]).read_text())
    assert doc["format"] == "rulecheck-evidence" and doc["witnesses"] == [{"variant": "duel", "reading": "tie=defender"}]
    assert (project / "docs" / "errata" / "duel.md").read_text().startswith("# Errata: High-card duel")


def test_the_full_table_is_printed_on_request(project):
    for args in (("--verbose",), ("--format", "table")):
        run = rulecheck("check", "--no-write", *args, cwd=str(project))
        assert run.returncode == 0 and "scores-bounded" in run.stdout and "16 results, 16 as expected, 0 unexpected" in run.stdout


def test_check_exits_1_when_a_result_differs_from_its_expect(project):
    suite = project / "properties" / "duel.yaml"
    suite.write_text(suite.read_text().replace('expect: {default: holds, "tie=defender": fails}', "expect: holds"))
    run = rulecheck("check", "--no-write", cwd=str(project))
    assert run.returncode == 1
    assert "unexpected duel/duel scores-bounded [tie=defender]: fails, expected holds" in run.stdout


def test_output_is_byte_identical_across_runs(project):
    rulecheck("check", "--itf", cwd=str(project))
    first = {p: (project / "counterexamples" / "duel" / p).read_bytes() for p in os.listdir(project / "counterexamples" / "duel")}
    errata = (project / "docs" / "errata" / "duel.md").read_bytes()
    rulecheck("check", "--itf", cwd=str(project))
    second = {p: (project / "counterexamples" / "duel" / p).read_bytes() for p in os.listdir(project / "counterexamples" / "duel")}
    assert first == second and len(first) == 3 and any(p.endswith(".itf.json") for p in first)
    assert errata == (project / "docs" / "errata" / "duel.md").read_bytes()


def test_stale_traces_are_pruned_on_a_full_run(project):
    folder = project / "counterexamples" / "duel"
    folder.mkdir(parents=True)
    (folder / "duel.old-property.default.json").write_text("{}")  # the former one-file-per-combination layout
    (folder / "old-property.0123456789ab.json").write_text("{}")
    (folder / "clauses.json").write_text("{}")  # version 1's clause table
    (folder / "notes.txt").write_text("mine")  # not a file the checker writes: kept
    rulecheck("check", cwd=str(project))
    assert not (folder / "duel.old-property.default.json").exists() and not (folder / "old-property.0123456789ab.json").exists()
    assert not (folder / "clauses.json").exists() and (folder / "shared.json").exists()
    assert (folder / "notes.txt").read_text() == "mine"


def test_json_format(project):
    run = rulecheck("check", "--format", "json", "--no-write", cwd=str(project))
    doc = json.loads(run.stdout)
    assert doc["format"] == "rulecheck-results" and doc["unexpected"] == 0
    failing = [r for r in doc["results"] if r["verdict"] == "fails"]
    assert len(failing) == 1 and failing[0]["trace"]["steps"][-1]["action"] == "tie_break"
    assert {r["engine"] for r in doc["results"]} == {"explicit"}


def test_itf_export_follows_the_format(project):
    rulecheck("check", "--itf", cwd=str(project))
    [name] = [n for n in os.listdir(project / "counterexamples" / "duel") if n.endswith(".itf.json")]
    doc = json.loads((project / "counterexamples" / "duel" / name).read_text())
    assert doc["#meta"]["format"] == "ITF"
    assert doc["vars"][0] == "action_taken" and "score" in doc["vars"]
    states = doc["states"]
    assert states[0]["action_taken"] == "init" and states[-1]["action_taken"] == "tie_break"
    assert states[-1]["score"]["#map"][0] == ["alice", {"#bigint": "5"}]


def test_explain_prints_the_narrative_of_a_saved_trace(project):
    rulecheck("check", cwd=str(project))
    [name] = [n for n in os.listdir(project / "counterexamples" / "duel") if n != "shared.json"]
    run = rulecheck("explain", f"counterexamples/duel/{name}", cwd=str(project))
    assert run.returncode == 0
    assert "8. The rules: tie_break (Ties (duel-3): \u201cIf both players" in run.stdout
    assert "3. chance deals bob a low card (see Turns, 1 (duel-1))" in run.stdout  # quoted once
    assert "**Why this breaks it:**" in run.stdout
    assert "breaks the property in 1 combination(s): `duel` with `tie=defender`" in run.stdout


def test_explain_rejects_a_file_that_is_not_a_trace(project):
    (project / "x.json").write_text('{"hello": 1}')
    run = rulecheck("explain", "x.json", cwd=str(project))
    assert run.returncode == 2 and "not a rulecheck trace" in run.stderr


@pytest.mark.parametrize(("args", "gist"), [(("check", "--reading", "tie"), "takes NAME=VALUE"), (("check", "--reading", "tie=sideways"), "not an option of `tie`"), (("check", "--set", "target=99"), "out of its range 1..9"), (("check", "nowhere"), "no such file or folder")])
def test_bad_command_line_values_exit_2(project, args, gist):
    run = rulecheck(*args, cwd=str(project))
    assert run.returncode == 2 and gist in run.stderr and "Traceback" not in run.stderr


def test_lint_reports_coverage(project):
    run = rulecheck("lint", cwd=str(project))
    assert run.returncode == 0
    row = next(line for line in run.stdout.splitlines() if "duel" in line and "│" in line)
    cells = [c.strip() for c in row.split("│") if c.strip()]
    # game, model, slots, bits (deck 2x3 + hand 4x3 + turn 1 + score 2x4 + phase 2), actions, readings,
    # assumptions, clauses, formalised, assumed, out of scope, unhandled, %, questions, answered
    # (no questions file: "-"), then the heuristic's count of unexplained tests (not asserted)
    assert cells[2:-1] == ["5", "29", "5", "1", "0", "5", "4", "0", "1", "0", "100%", "-", "-"]


def test_a_trace_the_interpreter_does_not_reproduce_is_refused(tmp_path):
    model = load_model(os.path.join(HERE, "models", "duel", "duel.yaml"))
    prop = bind(load_suite(os.path.join(HERE, "properties", "duel.yaml"))[1], model)
    config = model.default_config().with_readings({"tie": "defender"})
    result = next(r for r in check_paths([model.path], CheckOptions(budget=Budget())) if r.trace is not None)
    states = result.trace.states()
    forged = [dict(s) for s in states]
    forged[2] = {**forged[2], "phase": "done"}  # a step no rule allows
    with pytest.raises(ReplayMismatch):
        build_trace(model, config, prop, Path(forged), "")
    truncated = states[:-1]  # a path that does not end in a violation
    with pytest.raises(ReplayMismatch):
        build_trace(model, config, prop, Path(truncated), "")


def test_the_internal_error_is_loud_at_the_command_line(project, monkeypatch):
    code = (
        "import sys; from checker.evidence.trace import ReplayMismatch\n"
        "def broken(*a, **k): raise ReplayMismatch('forged')\n"
        "import checker.pipeline.runner as r; r.build_trace = broken\n"
        "from checker.cli import main; sys.argv=['rulecheck','check']; main()\n"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=str(project))
    assert run.returncode == 3 and "internal error" in run.stderr
    assert not (project / "counterexamples").exists()


@pytest.mark.slow
def test_parallel_and_serial_runs_write_the_same_bytes(project):
    serial = rulecheck("check", "--jobs", "1", "--out", "serial", "--errata-dir", "serial-errata", "--format", "json", cwd=str(project))
    # --fresh: the parallel run must explore, not reuse the serial run's cached verdicts.
    parallel = rulecheck("check", "--fresh", "--jobs", "2", "--out", "parallel", "--errata-dir", "parallel-errata", "--format", "json", cwd=str(project))
    assert serial.returncode == parallel.returncode == 0
    strip = lambda doc: [{k: v for k, v in r.items() if k != "seconds"} for r in json.loads(doc)["results"]]  # noqa: E731
    assert strip(serial.stdout) == strip(parallel.stdout)
    for name in os.listdir(project / "serial" / "duel"):
        assert (project / "serial" / "duel" / name).read_bytes() == (project / "parallel" / "duel" / name).read_bytes()
    assert (project / "serial-errata" / "duel.md").read_bytes() == (project / "parallel-errata" / "duel.md").read_bytes()


def test_checking_some_variants_of_a_game_leaves_its_page_and_other_traces_alone(project):
    """A page written from a few variants' results would drop what the others showed."""
    variant = project / "models" / "duel" / "short.yaml"
    variant.write_text("extends: duel.yaml\nid: short\n")
    whole = rulecheck("check", "--jobs", "1", cwd=str(project))
    assert whole.returncode == 0, whole.stdout + whole.stderr
    page = project / "docs" / "errata" / "duel.md"
    traces = sorted(p.name for p in (project / "counterexamples" / "duel").iterdir())
    page.write_text("kept\n")
    partial = rulecheck("check", "--jobs", "1", "models/duel/short.yaml", cwd=str(project))
    assert partial.returncode == 0, partial.stdout + partial.stderr
    assert page.read_text() == "kept\n"
    assert sorted(p.name for p in (project / "counterexamples" / "duel").iterdir()) == traces


def test_a_wide_table_in_an_80_column_terminal_keeps_every_name_and_value_whole():
    """`rulecheck lint`'s 16 columns in 80 columns truncated every header to a letter: a terminal
    too narrow for a table gets a block of lines per row, each no wider than the terminal; a wide
    one (and output that is not a terminal, 200 columns) still gets the table."""
    from rich.console import Console

    from checker.lint.scope import lint_scopes
    from checker.lint.table import lint_table
    from checker.report.terminal import print_table

    table, _ = lint_table(lint_scopes(["models/titlebelt"]), False)
    narrow = Console(width=80, record=True, file=io.StringIO())
    print_table(narrow, table)
    lines = narrow.export_text().splitlines()
    assert lines[0] == "rulecheck lint" and "titlebelt/base (abstract)" in lines
    assert max(map(len, lines)) <= 80
    text = "\n".join(lines)
    for header in ("state bits", "out of scope 2", "not yet handled 0", "unexplained tests 28"):
        assert header in text
    assert "┃" not in text
    wide = Console(width=200, record=True, file=io.StringIO())
    print_table(wide, table)
    assert "┃ game" in wide.export_text()


def test_a_row_block_drops_the_cells_markup_and_wraps_long_text():
    from rich.console import Console
    from rich.table import Table

    from checker.report.terminal import print_table

    table = Table(title="rulecheck")
    for column in ("game", "variant", "verdict", "why"):
        table.add_column(column)
    table.add_row("nim", "base", "[green]holds[/]", "word " * 40)
    out = Console(width=60, record=True, file=io.StringIO())
    print_table(out, table)
    lines = out.export_text().splitlines()
    assert lines[:3] == ["rulecheck", "nim/base", "  verdict holds"]
    assert len(lines) > 4 and all(len(line) <= 60 for line in lines) and lines[3].startswith("  why: word")
