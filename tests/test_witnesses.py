"""A `reachable` property that holds keeps its witness: the shortest play to a state satisfying it,
replayed like every counterexample; `--witnesses N` keeps up to N, each to a different state and
shortest to it. Witnesses appear in `--format json`, in `rulecheck explain`, and as saved traces
(only when asked: `witness: true` on the property or `--witnesses` on the command line)."""

from __future__ import annotations

import json
import os

import pytest

from checker.engines.explicit import Budget
from checker.lang.build import load_model
from checker.lang.interp import Interpreter, freeze
from checker.lang.properties import bind, load_suite, suite_path
from checker.pipeline.runner import CheckOptions, check_config
from tests.conftest import DUEL, rulecheck


def distances(model, config) -> dict:
    """Every reachable state (frozen) -> (its breadth-first distance from the initial states, the
    state), computed in the interpreter."""
    interp = Interpreter(model, config)
    frontier = interp.initial_states()
    seen = {freeze(s): (0, s) for s in frontier}
    depth = 0
    while frontier:
        depth += 1
        following = []
        for state in frontier:
            if interp.terminal(state):
                continue
            for move in interp.transitions(state):
                key = freeze(move.post)
                if key not in seen:
                    seen[key] = (depth, move.post)
                    following.append(move.post)
        frontier = following
    return seen


def reachable_result(backend: str = "python", engine: str = "explicit", witnesses: int = 1):
    model = load_model(DUEL)
    prop = next(p for p in load_suite(suite_path(DUEL)) if p.id == "high-score-possible")
    options = CheckOptions(engine=engine, backend=backend, witnesses=witnesses, budget=Budget(100_000, 60))
    (result,) = check_config(model, model.default_config(), [bind(prop, model)], options)
    return model, result


def test_a_reachable_that_holds_keeps_its_shortest_witness():
    model, result = reachable_result()
    assert result.status == "holds" and result.trace is None  # not a counterexample: nothing in the errata
    (witness,) = result.witnesses
    interp = Interpreter(model, model.default_config())
    expr = next(bind(p, model) for p in load_suite(suite_path(DUEL)) if p.id == "high-score-possible").expr
    satisfying = [d for d, state in distances(model, model.default_config()).values() if interp.eval(expr, state)]
    assert len(witness.steps) == min(satisfying) == 6
    assert interp.eval(expr, witness.states()[-1])
    assert "witness" in witness.note


def test_several_witnesses_end_in_different_states_each_by_a_shortest_play():
    model, result = reachable_result(witnesses=4)
    assert len(result.witnesses) == 4
    ends = [freeze(w.states()[-1]) for w in result.witnesses]
    assert len(set(ends)) == 4
    depth = distances(model, model.default_config())
    for witness, end in zip(result.witnesses, ends):
        assert len(witness.steps) == depth[end][0]
    assert [len(w.steps) for w in result.witnesses] == sorted(len(w.steps) for w in result.witnesses)  # breadth-first order
    _, one = reachable_result()
    assert one.witnesses[0].steps == result.witnesses[0].steps  # the first is the witness a plain run keeps


def test_the_native_back_end_and_the_symbolic_engine_keep_witnesses_too():
    _, python = reachable_result(witnesses=3)
    pytest.importorskip("numba")
    _, native = reachable_result(backend="native", witnesses=3)
    assert [w.states() for w in native.witnesses] == [w.states() for w in python.witnesses]
    _, symbolic = reachable_result(engine="symbolic")
    (witness,) = symbolic.witnesses
    assert len(witness.steps) == len(python.witnesses[0].steps)  # bounded model checking deepens one step at a time


@pytest.mark.slow
def test_witnesses_are_in_the_json_output_and_saved_only_when_asked(project):
    args = ("check", "models/duel", "--property", "high-score-possible", "--jobs", "1", "--readings", "default")
    run = rulecheck(*args, "--format", "json", "--witnesses", "2", "--no-write", cwd=str(project))
    assert run.returncode == 0, run.stderr
    (result,) = json.loads(run.stdout)["results"]
    assert result["trace"] is None and len(result["witnesses"]) == 2
    assert result["witnesses"][0]["property"]["kind"] == "reachable"

    out = project / "counterexamples" / "duel"

    def saved() -> list[str]:
        return sorted(n for n in os.listdir(out) if n.startswith("high-score-possible")) if out.is_dir() else []

    assert rulecheck(*args, cwd=str(project)).returncode == 0
    assert saved() == []  # not asked: none saved
    assert rulecheck(*args, "--witnesses", "2", cwd=str(project)).returncode == 0
    assert len(saved()) == 2
    explained = rulecheck("explain", str(out / saved()[0]), cwd=str(project))
    assert explained.returncode == 0, explained.stderr
    assert "**What it shows:**" in explained.stdout and "shows it reachable" in explained.stdout

    suite = project / "properties" / "duel.yaml"
    suite.write_text(suite.read_text().replace("    expr: score[alice] >= 3\n", "    expr: score[alice] >= 3\n    witness: true\n"))
    for name in saved():
        os.remove(out / name)
    assert rulecheck(*args, cwd=str(project)).returncode == 0  # the property asks: its one witness is saved
    assert len(saved()) == 1
    verified = rulecheck("verify", str(out), cwd=str(project))
    assert verified.returncode == 0, verified.stderr


def test_witness_takes_a_boolean_and_only_on_reachable(project):
    suite = project / "properties" / "duel.yaml"
    text = suite.read_text()
    suite.write_text(text.replace("    expr: score[alice] >= 3\n", "    expr: score[alice] >= 3\n    witness: yes please\n"))
    run = rulecheck("check", "models/duel", "--no-write", cwd=str(project))
    assert run.returncode == 2 and "`witness` is `true` or `false`" in run.stderr and "duel.yaml:" in run.stderr
    suite.write_text(text.replace("    kind: terminates\n", "    kind: terminates\n    witness: true\n"))
    run = rulecheck("check", "models/duel", "--no-write", cwd=str(project))
    assert run.returncode == 2 and "unknown key `witness`" in run.stderr
