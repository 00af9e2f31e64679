"""Generated code kept across a model's configurations (`checker.lang.emit_memo`): the successor
source is the same bytes as generated from scratch, whatever configurations came before and in
whatever order, and a later configuration does reuse what an earlier one made."""

from __future__ import annotations

import os

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from checker.lang import compile as compile_module
from checker.lang import emit_memo
from checker.lang.build import load_model
from checker.lang.compile import CompiledModel
from checker.lang.compile_cache import GeneratedSource
from checker.lang.model import Config, Model
from checker.limits import OutOfBudget, WorkLimit
from tests.conftest import MINI, mini_with_a_large_aggregate, write

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _nested(depth: int) -> str:
    """An expression whose generated code nests deeper than the emitter allows, so it is
    hoisted into a helper (whose name depends on what was emitted before it)."""
    text = "deck[k]"
    for level in range(depth):
        text = f"(deck[low] * (cards + {text}))" if level % 2 == 0 else f"(deck[high] + (2 * {text}))"
    return text


def _hoisting() -> str:
    """The mini game (`tests/conftest.py`) with guards that nest deep enough to hoist, and an
    action that exists under one reading only."""
    text = MINI.replace("when: deck[k] > 0\n", f"when: deck[k] > 0 and {_nested(30)} >= 0\n")
    text = text.replace("turn: succ(turn)\n    rule: m-1", "turn: succ(turn) if reading.order == ann_first else turn\n    rule: m-1")
    text = text.replace("  stop:\n", f"""  peek:
    by: turn
    for: {{k: kind}}
    when: deck[k] > cards and {_nested(12)} > 3
    do: {{turn: succ(turn)}}
    rule: m-1
  hand_over:
    by: turn
    when: turn == ann and turn != bob
    do: {{turn: succ(turn)}}
    only: {{order: bob_first}}
    rule: m-1
  stop:
""")
    text = text.replace("do: {over: true}", "do: {over: true, turn: succ(turn), 'deck[low]': cards if cards > 1 else 0}")
    assert text.count("_first") == 5 and "deck[k] > 0 and" in text and "peek" in text and "over: true, turn" in text, "the mini game changed: rewrite this test's model"
    return text


# `hand_over` exists under one reading only, and its guard reads `turn` twice: the read-counting
# pass then names `turn` (`s_N`) under that reading only, so `stop`'s effect is spelled
# differently under the two, and kept code must not be reused across them. `stop`'s conditional
# on `cards` reads no field: only the constant's value tells its kept code apart.


def _configs(model: Model) -> list[Config]:
    """Every reading option, each with every value of the first two ranged constants that
    the model's ranges allow near their defaults."""
    base = model.default_config()
    readings = [base.readings] + [{**base.readings, name: option} for name, reading in model.readings.items() for option in reading.options if option != base.readings[name]]
    ranged = [c for c in model.constants.values() if not c.is_table and c.elem.lo is not None][:2]
    constants = [base.constants] + [{**base.constants, c.name: v} for c in ranged for v in range(c.elem.lo, c.elem.hi + 1) if v != base.constants[c.name]][:4]
    return [Config(values, chosen) for chosen in readings for values in constants]


def _fresh(model: Model, config: Config) -> GeneratedSource:
    emit_memo.forget()
    return CompiledModel(model, config, lazy=True)._successor_source()


def _models(tmp_path_factory) -> list[Model]:
    folder = tmp_path_factory.mktemp("hoisting")
    return [load_model(os.path.join(HERE, "tests", "models", "duel", "duel.yaml")), load_model(write(folder, _hoisting()))]


def _everything(model: Model, config: Config) -> tuple:
    """Everything generated for `config` with the memo: the successor source, each guard, the
    terminal condition and the outcome as a standalone function's source, and a screen of the
    unparameterised ones."""
    compiled = CompiledModel(model, config, lazy=True)
    tests = [model.terminal, *(a.guard for a in model.actions.values() if not a.params), *(e for e in (model.outcome,) if e is not None)]
    defined: list[str] = []
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(compile_module, "define", lambda source, filename, name: defined.append(source))
        for instance in compiled.instances:
            compiled.function(instance.action.guard, compiled.encoded_params(instance))
        for expr in tests:
            compiled.function(expr)
    return compiled._successor_source(), defined, compiled.screen_source([(expr, True) for expr in tests])


@settings(max_examples=12, deadline=None)
@given(st.data())
def test_the_source_is_the_same_bytes_after_any_configurations_in_any_order(tmp_path_factory, data):
    for model in _models(tmp_path_factory):
        configs = _configs(model)
        expected = {}
        for config in configs:
            emit_memo.forget()
            expected[repr(config)] = _everything(model, config)
        emit_memo.forget()
        for config in data.draw(st.permutations(configs)):
            assert _everything(model, config) == expected[repr(config)]


def test_a_later_configuration_reuses_what_an_earlier_one_made(tmp_path_factory, monkeypatch):
    found = []
    real = emit_memo.ModelMemo.find
    monkeypatch.setattr(emit_memo.ModelMemo, "find", lambda self, key, cached: found.append(real(self, key, cached)) or found[-1])
    for model in _models(tmp_path_factory)[:1]:  # the duel: every construct of the language
        first = model.default_config()
        deviation = next(c for c in _configs(model) if c.readings != first.readings and c.constants == first.constants)
        emit_memo.forget()
        CompiledModel(model, first, lazy=True)._successor_source()
        found.clear()
        CompiledModel(model, deviation, lazy=True)._successor_source()
        assert any(kept is not None for kept in found), model.id
        assert any(kept is None for kept in found), model.id  # what the changed value reaches is made again


def test_code_that_hoisted_a_helper_is_not_kept(tmp_path_factory):
    model = _models(tmp_path_factory)[1]
    source = _fresh(model, model.default_config()).text
    assert "def _e0(" in source  # the model does hoist
    kept = [k for entries in emit_memo.memo_of(model).kept.values() for k in entries]
    assert kept and not any("_e" in repr(k.made) for k in kept)


def test_kept_code_carries_the_budget_it_needs(tmp_path):
    """Kept code is reused under any budget (the budget only refuses), but records the most
    terms its aggregates unrolled: a later configuration's source that reuses it (here in a
    block made again) says it needs them, and a budget below them refuses as generating from
    scratch does."""
    model = load_model(write(tmp_path, mini_with_a_large_aggregate()))
    first = model.default_config()
    deviation = first.with_readings({"order": "bob_first"})  # `stop` is made again, its aggregate is kept
    expected = _fresh(model, deviation)
    assert expected.terms == 144
    emit_memo.forget()
    CompiledModel(model, first, lazy=True)._successor_source()
    assert CompiledModel(model, deviation, lazy=True)._successor_source() == expected
    with pytest.raises(OutOfBudget, match=r"\(144\)"):
        CompiledModel(model, deviation, WorkLimit(143, float("inf")), lazy=True)._successor_source()
    assert CompiledModel(model, deviation, WorkLimit(144, float("inf")), lazy=True)._successor_source() == expected
