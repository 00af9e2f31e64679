"""The successor-code cache: a configuration's code comes back from disk the same as generated,
a change to what it is generated from (a model file, the configuration) is never served stale
code, and a budget too small to generate it is never served it."""

from __future__ import annotations

import os
import shutil

import pytest

from checker.lang import compile_cache, emit_memo
from checker.lang.build import load_model
from checker.lang.compile import CompiledModel
from checker.lang.compile_cache import GeneratedSource
from checker.lang.model import Config
from checker.limits import OutOfBudget, WorkLimit
from tests.conftest import mini_with_a_large_aggregate, write

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def forget_in_memory() -> None:
    """What a new process starts with: nothing compiled or emitted in memory."""
    compile_cache._MEMORY.clear()
    compile_cache._ENTRIES.clear()
    emit_memo.forget()


def successors_everywhere(compiled: CompiledModel) -> list:
    """Every reachable state's successor list, breadth first: the behaviour to compare."""
    seen = dict.fromkeys(compiled.initial)
    order = list(seen)
    out = []
    for s in order:
        moves = [] if compiled.terminal(s) else compiled.successors(s)
        out.append(moves)
        for _, t in moves:
            if t not in seen:
                seen[t] = None
                order.append(t)
    return out


def test_cached_code_behaves_as_generated_and_misses_on_change(tmp_path, monkeypatch):
    monkeypatch.setenv("RULECHECK_CACHE", str(tmp_path / "cache"))
    forget_in_memory()
    folder = tmp_path / "duel"
    shutil.copytree(os.path.join(HERE, "tests", "models", "duel"), folder)
    path = str(folder / "duel.yaml")
    model = load_model(path)
    config = model.default_config()
    fresh = CompiledModel(model, config)
    stored = sorted(name.rpartition(".")[2] for name in os.listdir(tmp_path / "cache" / "python"))
    assert stored == ["bin", "entry"]  # the code, under its source's key, and the configuration's entry naming it
    forget_in_memory()  # a new process: the code comes from disk
    generated = []
    monkeypatch.setattr(CompiledModel, "_successor_source", lambda self: generated.append(1) or GeneratedSource("", 0))
    from_disk = CompiledModel(model, config)
    assert not generated and successors_everywhere(from_disk) == successors_everywhere(fresh)
    key = compile_cache.cache_key(model, config)
    others = [model.default_config().with_readings({name: option}) for name, reading in model.readings.items() for option in reading.options if option != config.readings[name]]
    assert others and all(compile_cache.cache_key(model, other) != key for other in others)
    with open(path, "a") as handle:
        handle.write("\n# an edit\n")
    assert compile_cache.cache_key(load_model(path), config) != key  # the key is of what the loader read


def test_code_is_served_to_every_budget_its_generation_fits_and_a_smaller_one_refuses_as_before(tmp_path, monkeypatch):
    """The budget only refuses (an aggregate of more terms than it), so the code is cached once
    per configuration with the most terms it unrolled, whatever budget it was generated under:
    a check whose budget allows that (or that has none) takes it, in memory and from disk; one
    whose budget does not generates again and refuses with the words of an empty cache."""
    monkeypatch.setenv("RULECHECK_CACHE", str(tmp_path / "cache"))
    forget_in_memory()
    model = load_model(write(tmp_path, mini_with_a_large_aggregate()))
    config = model.default_config()
    with pytest.raises(OutOfBudget) as empty_cache:
        CompiledModel(model, config, WorkLimit(143, float("inf")))
    assert "(144)" in empty_cache.value.reason  # refused by the 12 x 12 terms, not by anything enumerated before
    unbounded = CompiledModel(model, config)
    generated = []
    real = CompiledModel._successor_source
    monkeypatch.setattr(CompiledModel, "_successor_source", lambda self: generated.append(1) or real(self))
    in_memory = CompiledModel(model, config, WorkLimit(144, float("inf")))
    forget_in_memory()  # a new process: the code comes from disk
    from_disk = CompiledModel(model, config, WorkLimit(10_000, float("inf")))
    assert not generated
    assert successors_everywhere(in_memory) == successors_everywhere(from_disk) == successors_everywhere(unbounded)
    with pytest.raises(OutOfBudget) as cached:
        CompiledModel(model, config, WorkLimit(143, float("inf")))
    assert generated == [1] and cached.value.reason == empty_cache.value.reason


def test_configurations_whose_source_is_the_same_compile_it_once(tmp_path, monkeypatch):
    """A reading that nothing in the successor function reads gives the same source: it is
    compiled once, in this process and from disk in another; a different source is compiled."""
    monkeypatch.setenv("RULECHECK_CACHE", str(tmp_path / "cache"))
    forget_in_memory()
    model = load_model(os.path.join(HERE, "tests", "models", "duel", "duel.yaml"))
    first = model.default_config()
    second = first.with_readings({"tie": "defender"})
    compiled: list[str] = []
    monkeypatch.setattr(compile_cache, "compile", lambda source, name, mode: compiled.append(source) or compile(source, name, mode), raising=False)
    monkeypatch.setattr(CompiledModel, "_successor_source", lambda self: GeneratedSource("def successors(s):\n    return []\n", 0))
    CompiledModel(model, first)
    CompiledModel(model, second)
    assert len(compiled) == 1
    forget_in_memory()  # a new process: the source's code is on disk, under its text
    CompiledModel(model, Config({**first.constants, "target": 5}, first.readings))
    assert len(compiled) == 1
    monkeypatch.setattr(CompiledModel, "_successor_source", lambda self: GeneratedSource("def successors(s):\n    return [(0, s)]\n", 0))
    CompiledModel(model, Config({**first.constants, "target": 4}, first.readings))
    assert len(compiled) == 2
