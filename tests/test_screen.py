"""The explicit engine's screen (`CompiledModel.any_decides`): emitted once, assembled for any
subset of its tests, and the bracket-nesting measure that decides when generated code is hoisted."""

from __future__ import annotations

import tempfile

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from checker.errors import Loc, ModellingError, RulecheckError
from checker.lang.build import load_model
from checker.lang.compile import CompiledModel, _nesting
from checker.lang.interp import Interpreter
from checker.lang.typecheck import check_expr
from checker.lang.types import BOOL
from tests.conformance.generated import models
from tests.conftest import write
from tests.symbolic_support import bound_props, run, write_game

MINI = """\
game: Mini
id: mini
players: [ann, bob]
domains:
  kind: [low, high]
state:
  deck: {type: "int[0..4]", of: kind}
  turn: player
  over: bool
init:
  deck: 2
  turn: ann
  over: false
terminal: over
actions:
  take:
    by: turn
    for: {k: kind}
    when: deck[k] > 0
    do:
      deck[k]: deck[k] - 1
      turn: succ(turn)
    rule: m-1
  stop:
    by: rules
    when: deck[low] == 0 and deck[high] == 0
    do: {over: true}
    rule: m-2
clauses:
  m-1: {at: "1", says: "Take a card."}
  m-2: {at: "2", says: "Stop when the deck is empty."}
"""


def _reference_nesting(text: str) -> int:
    depth = deepest = 0
    for char in text:
        if char in "([":
            depth += 1
            deepest = max(deepest, depth)
        elif char in ")]":
            depth -= 1
    return deepest


@given(st.text(alphabet="()[]{}ab 1\u00e9\u20ac\x01\x02", max_size=60))
def test_nesting_counts_brackets_like_a_scan_per_character(text):
    assert _nesting(text) == _reference_nesting(text)


def test_screen_assembled_for_a_subset_answers_for_that_subset_only(tmp_path):
    model = load_model(write(tmp_path, MINI))
    compiled = CompiledModel(model, model.default_config())
    exprs = ["deck[low] == 2", "deck[high] == 4", "deck[low] + deck[high] == 4"]
    tests = [(check_expr(model.scope, e, Loc("t", 1, 1), BOOL), True) for e in exprs]
    source = compiled.screen_source(tests)
    start = compiled.initial[0]
    assert source.function([0])(start) is True
    assert source.function([1])(start) is False
    assert source.function([1, 2])(start) is True
    assert source.function([])(start) is False
    assert compiled.any_decides(tests)(start) is True
    assert compiled.any_decides(tests[1:2])(start) is False


def test_screens_and_predicates_are_compiled_once_per_text(tmp_path):
    """An exploration assembles its screen again whenever a property is decided, and each
    reading combination emits the same screens and predicates where no reading is involved:
    the same text is compiled once (`compile.define`), and the functions share its code."""
    model = load_model(write(tmp_path, MINI))
    first, second = (CompiledModel(model, model.default_config()) for _ in range(2))
    exprs = ["deck[low] == 2", "deck[high] == 4"]
    tests = [(check_expr(model.scope, e, Loc("t", 1, 1), BOOL), True) for e in exprs]
    screens = [c.screen_source(tests).function([0, 1]) for c in (first, second)]
    assert screens[0].__code__ is screens[1].__code__
    assert first.screen_source(tests).function([1]).__code__ is not screens[0].__code__  # another subset, another text
    predicates = [c.predicate(tests[0][0]) for c in (first, second)]
    assert predicates[0].__code__ is predicates[1].__code__
    start = first.initial[0]
    assert screens[1](start) is True and predicates[1](start) is True


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(models())
def test_a_stale_screen_finds_what_one_built_again_at_every_decision_does(case):
    """The explicit engine keeps a screen that still tests decided properties until keeping it
    has cost what building it again would (`explicit.STALE_SCREEN_FACTOR`): which screen runs
    must never change a verdict, a trace or a count. Compared at the two extremes, built again
    at every decision (0) and never (infinity), on random models."""
    from checker.engines import explicit

    model_yaml, props_yaml = case
    with tempfile.TemporaryDirectory() as root:
        path = write_game(root, "random", model_yaml, props_yaml)
        try:
            model, _ = bound_props(path)
        except RulecheckError:
            assume(False)
        assume(bool(Interpreter(model, model.default_config()).initial_states()))  # else nothing to explore
        outcomes = []
        for factor in (0.0, float("inf")):
            with pytest.MonkeyPatch.context() as patch:
                patch.setattr(explicit, "STALE_SCREEN_FACTOR", factor)
                try:
                    results = run(path, "explicit")
                except ModellingError as exc:  # a trace the interpreter does not replay: the same either way
                    outcomes.append(repr(exc))
                    continue
            outcomes.append({pid: (r.status, r.states, r.detail, [repr(step) for step in r.trace.steps] if r.trace is not None else None) for pid, r in results.items()})
        assert outcomes[0] == outcomes[1]
