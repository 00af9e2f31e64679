"""The successor-code cache: a configuration's code comes back from disk the same as generated,
and a change to what it is generated from (a model file, the configuration, the budget) is never
served stale code."""

from __future__ import annotations

import os
import shutil

from checker.lang import compile_cache
from checker.lang.build import load_model
from checker.lang.compile import CompiledModel
from checker.lang.model import Config

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


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
    monkeypatch.setattr(compile_cache, "_MEMORY", {})
    folder = tmp_path / "duel"
    shutil.copytree(os.path.join(HERE, "tests", "models", "duel"), folder)
    path = str(folder / "duel.yaml")
    model = load_model(path)
    config = model.default_config()
    fresh = CompiledModel(model, config)
    stored = os.listdir(tmp_path / "cache" / "python")
    assert len({os.stat(tmp_path / "cache" / "python" / name).st_ino for name in stored}) == 1  # one code, under its source's and its configuration's names
    compile_cache._MEMORY.clear()  # a new process: the code comes from disk
    generated = []
    monkeypatch.setattr(CompiledModel, "_successor_source", lambda self: generated.append(1) or "")
    from_disk = CompiledModel(model, config)
    assert not generated and successors_everywhere(from_disk) == successors_everywhere(fresh)
    key = compile_cache.cache_key(model, config, None)
    assert compile_cache.cache_key(model, config, 1000) != key  # the budget bounds generation
    others = [model.default_config().with_readings({name: option}) for name, reading in model.readings.items() for option in reading.options if option != config.readings[name]]
    assert others and all(compile_cache.cache_key(model, other, None) != key for other in others)
    with open(path, "a") as handle:
        handle.write("\n# an edit\n")
    assert compile_cache.cache_key(model, config, None) != key


def test_code_generated_within_a_budget_serves_the_budget_free_model(tmp_path, monkeypatch):
    """The budget only refuses, so a configuration's code generated under one (the check's) is
    the code without one (trace confirmation's `reaches_terminal`, `ends_surely`): found in
    memory and on disk, not generated again. The other way round it is not: code generated
    without a budget is not served to a check whose budget might refuse to generate it."""
    from checker.limits import WorkLimit

    monkeypatch.setenv("RULECHECK_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(compile_cache, "_MEMORY", {})
    model = load_model(os.path.join(HERE, "tests", "models", "duel", "duel.yaml"))
    config = model.default_config()
    bounded = CompiledModel(model, config, WorkLimit(1000, float("inf")))
    generated = []
    real = CompiledModel._successor_source
    monkeypatch.setattr(CompiledModel, "_successor_source", lambda self: generated.append(1) or real(self))
    in_memory = CompiledModel(model, config)
    compile_cache._MEMORY.clear()  # a new process: the code comes from disk
    from_disk = CompiledModel(model, config)
    assert not generated
    assert successors_everywhere(in_memory) == successors_everywhere(from_disk) == successors_everywhere(bounded)
    compile_cache._MEMORY.clear()
    CompiledModel(model, config, WorkLimit(999, float("inf")))
    assert generated == [1]


def test_extends_is_read_once_per_text_and_an_edit_is_seen(tmp_path, monkeypatch):
    """Every cache key asks for the model file's `extends` chain; the file's values are built
    once per process and text (building them for every key was 8 ms a call), and an edit of
    the file is read again."""
    from checker.lang import yamlsrc

    monkeypatch.setattr(compile_cache, "_EXTENDS", {})
    folder = tmp_path / "duel"
    shutil.copytree(os.path.join(HERE, "tests", "models", "duel"), folder)
    path = str(folder / "duel.yaml")
    built = []
    real = yamlsrc.load_yaml
    monkeypatch.setattr(yamlsrc, "load_yaml", lambda *args: built.append(1) or real(*args))
    first = compile_cache.source_digest(path)
    assert compile_cache.source_digest(path) == first and len(built) == 1
    with open(path, "a") as handle:
        handle.write("\n# an edit\n")
    assert compile_cache.source_digest(path) != first and len(built) == 2


def test_configurations_whose_source_is_the_same_compile_it_once(tmp_path, monkeypatch):
    """A reading that nothing in the successor function reads gives the same source: it is
    compiled once, in this process and from disk in another; a different source is compiled."""
    monkeypatch.setenv("RULECHECK_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(compile_cache, "_MEMORY", {})
    model = load_model(os.path.join(HERE, "tests", "models", "duel", "duel.yaml"))
    first = model.default_config()
    second = first.with_readings({"tie": "defender"})
    compiled: list[str] = []
    monkeypatch.setattr(compile_cache, "compile", lambda source, name, mode: compiled.append(source) or compile(source, name, mode), raising=False)
    monkeypatch.setattr(CompiledModel, "_successor_source", lambda self: "def successors(s):\n    return []\n")
    CompiledModel(model, first)
    CompiledModel(model, second)
    assert len(compiled) == 1
    compile_cache._MEMORY.clear()  # a new process: the source's code is on disk, under its text
    CompiledModel(model, Config({**first.constants, "target": 5}, first.readings))
    assert len(compiled) == 1
    monkeypatch.setattr(CompiledModel, "_successor_source", lambda self: "def successors(s):\n    return [(0, s)]\n")
    CompiledModel(model, Config({**first.constants, "target": 4}, first.readings))
    assert len(compiled) == 2
