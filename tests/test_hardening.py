"""Adversarial input: every case ends in a verdict, a located error (exit 2), a stale-evidence
report (exit 1) or a one-line internal error (exit 3), never a traceback or a silent pass."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from checker.errors import RulecheckError
from checker.lang.build import load_model
from checker.lang.yamlsrc import load_yaml
from checker.limits import allow_deep_expressions
from checker.pipeline.runner import CheckOptions, check_paths
from tests.conftest import MINI, write

HERE = os.path.dirname(__file__)
PROPS = "game: mini\nproperties:\n  - id: p\n    kind: invariant\n    expr: \"{expr}\"\n    expect: holds\n"


def rulecheck(*args: str, cwd: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "checker.cli", *args], capture_output=True, text=True, cwd=cwd)


def no_traceback(run: subprocess.CompletedProcess) -> None:
    assert "Traceback" not in run.stdout + run.stderr


def mini_project(tmp_path, model: str = MINI, expr: str | None = "deck[low] <= 4") -> str:
    write(tmp_path, model, "mini.yaml", folder="mini")
    if expr is not None:
        (tmp_path / "properties").mkdir(exist_ok=True)
        (tmp_path / "properties" / "mini.yaml").write_text(PROPS.format(expr=expr))
    return str(tmp_path)


@pytest.fixture
def duel(project):
    return project


# -- 4. saved traces re-checked against the model ----------------------------------------------
def evidence_file(duel):
    """The one evidence file the duel project's check writes, and its steps as mappings."""
    (path,) = (duel / "counterexamples" / "duel").glob("scores-bounded.*.json")
    doc = json.loads(path.read_text())
    return path, doc, doc["trace"]["step_fields"]


@pytest.mark.slow
def test_verify_confirms_fresh_traces_and_reports_an_edited_step(duel):
    assert rulecheck("check", "--jobs", "1", cwd=str(duel)).returncode == 0
    run = rulecheck("verify", cwd=str(duel))
    assert run.returncode == 0 and "1 trace(s), 1 confirmed" in run.stdout, run.stdout + run.stderr
    path, doc, fields = evidence_file(duel)
    change = doc["trace"]["steps"][-1][fields.index("changes")][0]
    change[2] = change[1]  # a hand edit: the step no longer does what the model does
    path.write_text(json.dumps(doc))
    for command in ("verify", "explain"):
        run = rulecheck(command, str(path), cwd=str(duel))
        assert run.returncode == 1, run.stdout + run.stderr
        assert "stale or edited trace" in run.stderr and f"step {len(doc['trace']['steps'])}" in run.stderr
        no_traceback(run)


def test_verify_reports_a_wrong_final_state(duel):
    rulecheck("check", "--jobs", "1", cwd=str(duel))
    path, doc, _ = evidence_file(duel)
    doc["trace"]["steps"] = doc["trace"]["steps"][:-1]  # the invariant is not yet broken there
    path.write_text(json.dumps(doc))
    run = rulecheck("verify", str(path), cwd=str(duel))
    assert run.returncode == 1 and "invariant is false" in run.stderr, run.stderr


def test_verify_reports_a_changed_clause_text_in_the_shared_table(duel):
    rulecheck("check", "--jobs", "1", cwd=str(duel))
    table = duel / "counterexamples" / "duel" / "shared.json"
    shared = json.loads(table.read_text())
    shared["clauses"]["duel-3"]["says"] = "Ties go to nobody."  # the text a step quotes, edited
    table.write_text(json.dumps(shared))
    run = rulecheck("verify", cwd=str(duel))
    assert run.returncode == 1 and "recorded clauses" in run.stderr and "Ties go to nobody." in run.stderr, run.stdout + run.stderr
    no_traceback(run)


def test_verify_reports_an_edited_list_of_what_decided_a_step(duel):
    rulecheck("check", "--jobs", "1", cwd=str(duel))
    path, doc, fields = evidence_file(duel)
    doc["trace"]["steps"][0][fields.index("decided_by")] = ["deck"]  # the narrative would print values the rule never read
    path.write_text(json.dumps(doc))
    run = rulecheck("verify", str(path), cwd=str(duel))
    assert run.returncode == 1 and "recorded decided_by" in run.stderr, run.stdout + run.stderr
    no_traceback(run)


def test_evidence_of_another_format_version_is_refused(duel):
    rulecheck("check", "--jobs", "1", cwd=str(duel))
    path, doc, _ = evidence_file(duel)
    doc["version"] = 1
    path.write_text(json.dumps(doc))
    for command in ("verify", "explain"):
        run = rulecheck(command, str(path), cwd=str(duel))
        assert run.returncode == 2 and "version 1 is not supported" in run.stderr and "rulecheck check" in run.stderr
        no_traceback(run)


def test_a_lasso_without_a_loop_is_not_evidence(tmp_path):
    from checker.evidence.confirm import confirm
    from checker.evidence.trace import ReplayMismatch, Trace
    from checker.lang.interp import Interpreter
    from checker.lang.properties import bind, load_suite

    model = load_model(write(tmp_path, MINI))
    (tmp_path / "suite.yaml").write_text("properties:\n  - {id: ends, kind: terminates}\n")
    prop = bind(load_suite(str(tmp_path / "suite.yaml"))[0], model)
    config = model.default_config()
    interp = Interpreter(model, config)
    start = interp.initial_states()[0]
    trace = Trace(model.game, model.id, "ends", "terminates", "", config, "default", start, [], shape="lasso", loop_start=0)
    with pytest.raises(ReplayMismatch, match="a loop of at least one step"):
        confirm(interp, prop, trace, ())


def test_explain_without_the_models_warns_and_narrates(duel, tmp_path_factory):
    rulecheck("check", "--jobs", "1", cwd=str(duel))
    path, _, _ = evidence_file(duel)
    run = rulecheck("explain", str(path), cwd=str(tmp_path_factory.mktemp("elsewhere")))
    assert run.returncode == 0 and "warning: not verified" in run.stderr and run.stdout.startswith("# scores-bounded")


def test_malformed_trace_json_is_a_located_error(duel):
    path = duel / "bad.json"
    path.write_text('{"format": "rulecheck-trace",\n  "steps": [}')
    for command in ("verify", "explain"):
        run = rulecheck(command, str(path), cwd=str(duel))
        assert run.returncode == 2 and run.stderr.startswith("bad.json:2:")  # named relative to the working directory
        no_traceback(run)


# -- 6. internal errors ---------------------------------------------------------------------
def test_internal_error_exits_3_with_one_line(monkeypatch, tmp_path):
    from checker import cli
    from checker.pipeline import runner

    def broken(*args, **kwargs):
        raise ValueError("something impossible")

    monkeypatch.setattr(runner, "load_games", broken)
    result = CliRunner().invoke(cli.main, ["check", "--no-write", mini_project(tmp_path)])
    assert result.exit_code == 3
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("internal error: ValueError") and "--debug" in lines[0]


def test_a_check_without_numba_says_once_that_it_runs_in_the_python_engine(monkeypatch, tmp_path):
    """The default back-end falls back to the Python engine without numba (every result the
    same), and says so once on standard error with the install that fixes it; `--backend python`
    asked for it and hears nothing; `--backend native` cannot run and stops with exit status 2."""
    from checker import cli
    from checker.engines import native

    def results(run) -> list[tuple]:
        assert run.exit_code == 0, run.output
        return [(r["variant"], r["property"], r["reading"], r["verdict"], r["states"], r["depth"], r["trace"]) for r in json.loads(run.stdout)["results"]]

    check = ["check", "--no-write", "--jobs", "1", "--fresh", "--format", "json"]
    monkeypatch.chdir(mini_project(tmp_path))
    native_run = CliRunner().invoke(cli.main, check)
    monkeypatch.setattr(native, "unavailable_reason", lambda: "numba is not installed (the `fast` extra: pip install -e '.[fast]' in a checkout, or pip install 'numba>=0.59')")
    fallback = CliRunner().invoke(cli.main, check)
    assert results(fallback) == results(native_run)
    assert fallback.stderr.count("the compiled back-end is unavailable") == 1 and "pip install -e '.[fast]'" in fallback.stderr
    assert "unavailable" not in native_run.stderr
    asked = CliRunner().invoke(cli.main, [*check, "--backend", "python"])
    assert results(asked) == results(native_run) and "unavailable" not in asked.stderr
    refused = CliRunner().invoke(cli.main, [*check, "--backend", "native"])
    assert refused.exit_code == 2 and "--backend native: numba is not installed" in refused.output


# -- 7. expressions of any size ----------------------------------------------------------------
BIG = MINI.replace("domains:\n", "domains:\n  big: {range: [1, 200]}\n")


@pytest.mark.parametrize("expr", [
    " and ".join(["deck[low] >= 0"] * 300),
    " or ".join(["deck[low] > 9"] * 300) + " or true",
    "not " * 500 + "over or true",
    " + ".join(["deck[low]"] * 1000) + " >= 0",
    "(" + " ".join(f"{i} if deck[low] == {i} else" for i in range(300)) + " 0) >= 0",
    "sum(deck[low] for i in big) >= 0 and count(deck[k] > 0 for i in big for k in kind) >= 0",
])
@pytest.mark.slow
def test_large_expressions_check(tmp_path, expr):
    run = rulecheck("check", "--jobs", "1", "--no-write", "--property", "p", cwd=mini_project(tmp_path, BIG, expr))
    assert run.returncode == 0, run.stdout + run.stderr
    no_traceback(run)


def test_too_deep_nesting_is_a_located_error(tmp_path):
    run = rulecheck("check", "--no-write", cwd=mini_project(tmp_path, expr="not " * 2000 + "over"))
    assert run.returncode == 2 and "properties/mini.yaml:5:" in run.stderr and "nested more than" in run.stderr
    no_traceback(run)


def test_definitions_that_use_the_previous_twice_lint_in_linear_time(tmp_path):
    defines = "define:\n  d0: deck[low]\n" + "".join(f"  d{i}: d{i - 1} + d{i - 1}\n" for i in range(1, 40))
    path = write(tmp_path, MINI.replace("state:\n", defines + "state:\n").replace("terminal: over", "terminal: over or d39 < 0"))
    started = time.process_time()
    load_model(path)
    assert time.process_time() - started < 5


# expressions of growing size and depth: each checks or fails with a located error
_leaf = st.sampled_from(["deck[low]", "deck[high]", "1", "cards"])
_int = st.recursive(_leaf, lambda inner: st.one_of(
    st.tuples(inner, st.sampled_from([" + ", " - ", " * ", " // ", " % "]), inner).map(lambda t: f"({t[0]}{t[1]}{t[2]})"),
    st.tuples(st.lists(inner, min_size=2, max_size=60)).map(lambda t: "(" + " + ".join(t[0]) + ")"),
    st.tuples(inner, inner, inner).map(lambda t: f"({t[0]} if {t[1]} > 0 else {t[2]})"),
    inner.map(lambda e: f"abs({e})"),
), max_leaves=400)
_bool = st.recursive(_int.map(lambda e: f"{e} >= 0"), lambda inner: st.one_of(
    st.lists(inner, min_size=2, max_size=80).map(lambda xs: "(" + " and ".join(xs) + ")"),
    st.lists(inner, min_size=2, max_size=80).map(lambda xs: "(" + " or ".join(xs) + ")"),
    st.tuples(st.integers(1, 300), inner).map(lambda t: "not " * t[0] + f"({t[1]})"),
), max_leaves=200)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(expr=_bool)
@pytest.mark.slow
def test_generated_expressions_check_or_fail_located(tmp_path_factory, expr):
    allow_deep_expressions()
    root = mini_project(tmp_path_factory.mktemp("gen"), expr=expr.replace('"', ""))
    try:
        results = check_paths([os.path.join(root, "models")], CheckOptions(only_properties={"p"}))
    except RulecheckError as exc:
        assert exc.loc is not None and exc.loc.line >= 1
        return
    assert [r.status for r in results] and all(r.status in ("holds", "fails", "error") for r in results)


# -- 8. run-time modelling errors --------------------------------------------------------------
def test_write_outside_a_range_is_located_with_action_parameters_and_the_play_alone(tmp_path):
    """Errors before noise: the located error and the play that reaches it are all the run
    prints; no summary, no trace file, no page is written for a model that does not run."""
    model = MINI.replace("deck[k]: deck[k] - 1", "deck[k]: deck[k] - 3")
    project = mini_project(tmp_path, model)
    run = rulecheck("check", "--jobs", "1", cwd=project)
    assert run.returncode == 2, run.stdout + run.stderr
    line = next(n for n, text in enumerate(model.splitlines(), 1) if "deck[k] - 3" in text)
    assert run.stderr.startswith(f"models/mini/mini.yaml:{line}:")
    assert "writes -1 to `deck`" in run.stderr and "action `take` with k=low" in run.stderr and "reached by: the initial state" in run.stderr
    assert run.stdout == "" and not os.path.exists(os.path.join(project, "counterexamples")) and not os.path.exists(os.path.join(project, "docs"))
    no_traceback(run)


def test_a_modelling_error_in_the_initial_states_is_located(tmp_path):
    model = MINI.replace("terminal: over", "init_where: deck[low] // (deck[low] - 2) == 0\nterminal: over")
    run = rulecheck("check", "--no-write", "--jobs", "1", cwd=mini_project(tmp_path, model))
    assert run.returncode == 2 and "models/mini/mini.yaml:22:" in run.stderr and "division by zero" in run.stderr
    no_traceback(run)


def test_division_by_a_literal_zero_is_a_lint_error(tmp_path):
    with pytest.raises(RulecheckError, match="division by zero") as info:
        load_model(write(tmp_path, MINI.replace("when: deck[k] > 0", "when: deck[k] // 0 > 0")))
    assert info.value.loc.line == next(n for n, t in enumerate(MINI.splitlines(), 1) if "when: deck[k] > 0" in t)


# -- 9. nothing accepted silently ------------------------------------------------------------
@pytest.mark.parametrize("args, gist", [
    (("--set", "nothing=3"), "no model checked has a constant `nothing`"),
    (("--reading", "nothing=x"), "no model checked has a reading `nothing`"),
    (("--property", "nothing"), "no model checked has a property `nothing`"),
])
def test_selections_naming_nothing_are_errors(tmp_path, args, gist):
    run = rulecheck("check", "--no-write", *args, cwd=mini_project(tmp_path))
    assert run.returncode == 2 and gist in run.stderr
    no_traceback(run)


def test_a_folder_without_models_is_an_error_and_a_missing_suite_a_warning(tmp_path):
    (tmp_path / "empty").mkdir()
    run = rulecheck("check", "empty", cwd=str(tmp_path))
    assert run.returncode == 2 and "no model files" in run.stderr
    run = rulecheck("check", "--jobs", "1", "--no-write", cwd=mini_project(tmp_path, expr=None))
    assert run.returncode == 0 and "warning: no property suite" in run.stderr


def test_no_initial_state_is_an_error(tmp_path):
    model = MINI.replace("terminal: over", "init_where: deck[low] == 3\nterminal: over")
    run = rulecheck("check", "--no-write", cwd=mini_project(tmp_path, model))
    assert run.returncode == 2 and "has no initial state" in run.stderr and "mini.yaml:" in run.stderr
    no_traceback(run)


@pytest.mark.parametrize("old, new, gist", [
    ("      turn: succ(turn)\n", "      turn: succ(turn)\n    text: \"{who} takes\"\n", "neither `by`"),
    ("      turn: succ(turn)\n", "      turn: succ(turn)\n    text: \"{k.__class__}\"\n", "neither `by`"),
    ("  over: false\n", "  over: yes\n", "write true"),
    ("default: 2}", "default: 010}", "leading zero"),
    ("default: 2}", "default: 1:30}", "base-60"),
    ("id: mini\n", "id: \"mini\\n\"\n", "`id` is a name"),
    ("id: mini\n", "id: ../../etc/x\n", "`id` is a name"),
])
def test_yaml_and_template_surprises_are_located_errors(tmp_path, old, new, gist):
    assert old in MINI
    text = MINI.replace(old, new)
    with pytest.raises(RulecheckError) as info:
        load_model(write(tmp_path, text))
    assert gist in info.value.render() and info.value.loc is not None and info.value.loc.line > 1


def test_property_id_with_a_path_is_refused(tmp_path):
    root = mini_project(tmp_path)
    (tmp_path / "properties" / "mini.yaml").write_text(PROPS.format(expr="true").replace("id: p", "id: ../../escape"))
    run = rulecheck("check", cwd=root)
    assert run.returncode == 2 and "properties/mini.yaml:3:" in run.stderr and "a property `id` is a name" in run.stderr
    assert not (tmp_path.parent / "escape").exists()


# -- 10. hostile files ---------------------------------------------------------------------
BOMB = "a: &a [x, x, x, x, x, x, x, x, x]\n" + "".join(
    f"{n}: &{n} [{', '.join([f'*{p}'] * 9)}]\n" for p, n in zip("abcdefgh", "bcdefghi")
)


@pytest.mark.parametrize("data, gist", [
    (BOMB.encode(), "expands to more than"),
    (b"a: !!python/name:os.system x\n", "YAML tag"),
    (b"a: !!python/object/apply:os.system [ls]\n", "YAML tag"),
    (b"\x89PNG\r\n\x1a\n\x00\x00", "binary"),
    (b"a: caf\xe9\n", "not UTF-8"),
    ("a: 1\n".encode("utf-16"), "UTF-16"),
    (b"a: b\x00c\n", "binary"),
    (b"a: " + b"[" * 5000 + b"]" * 5000 + b"\n", "nested more than"),
    (b"a: 1\n" + b"#" * (5 * 1024 * 1024), "larger than"),
])
def test_hostile_files_are_refused_located_and_quickly(tmp_path, data, gist):
    path = tmp_path / "hostile.yaml"
    path.write_bytes(data)
    started = time.process_time()
    with pytest.raises(RulecheckError) as info:
        load_yaml(str(path))
    assert time.process_time() - started < 5
    assert gist in info.value.message and info.value.loc.file == str(path)


def test_hostile_model_file_on_the_command_line(tmp_path):
    path = write(tmp_path, BOMB)
    run = rulecheck("lint", path, cwd=str(tmp_path))
    assert run.returncode == 2 and run.stderr.startswith(os.path.relpath(path, tmp_path) + ":")
    no_traceback(run)


# -- 11. budgets cover the work before exploration ----------------------------------------------
MANY = MINI.replace("state:\n", "state:\n" + "".join(f"  b{i}: bool\n" for i in range(40))).replace(
    "init:\n", "init:\n" + "".join(f"  b{i}: {{choose: any}}\n" for i in range(40)))
HUGE_PARAMS = MINI.replace("domains:\n", "domains:\n  big: {range: [1, 10000000]}\n").replace("for: {k: kind}", "for: {k: kind, j: big}")


@pytest.mark.parametrize("model, expr, args, gist", [
    (MANY, "true", (), "enumerating candidate initial states"),
    (HUGE_PARAMS, "true", (), "enumerating action instances"),
    (BIG, "sum(1 for a in big for b in big for c in big) > 0", (), "the terms of an aggregate"),
    (BIG.replace("[1, 200]", "[1, 100]"), "sum(deck[low] for a in big for b in big for c in big) >= 0", ("--timeout", "1"), "timeout while enumerating aggregate terms"),
])
def test_budgets_bound_the_work_before_exploration(tmp_path, model, expr, args, gist):
    started = time.time()
    run = rulecheck("check", "--jobs", "1", "--no-write", "--readings", "default", "--property", "p", *args, cwd=mini_project(tmp_path, model, expr))
    assert time.time() - started < 180  # unbudgeted, each would run for hours; generous for a loaded machine
    assert run.returncode == 1 and "undecided" in run.stdout and gist in run.stdout, run.stdout + run.stderr
    no_traceback(run)
