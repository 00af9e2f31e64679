"""The on-disk caches kept to a size (`checker.lang.cache_bounds`): past the limit the least
recently used files go first, a hit counts as a use, and a pruned entry is only made again."""

from __future__ import annotations

import os
import time

from checker.engines.native import engine, program_cache
from checker.lang import cache_bounds
from checker.lang.build import load_model
from checker.lang.compile import CompiledModel
from checker.lang.model import Config
from tests.native_support import as_another_process

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TITLEBELT = os.path.join(HERE, "models", "titlebelt", "two-player.yaml")


def files(folder, sizes_and_ages: dict[str, tuple[int, float]]) -> None:
    now = time.time()
    for name, (size, age) in sizes_and_ages.items():
        path = os.path.join(folder, name)
        with open(path, "wb") as handle:
            handle.write(b"x" * size)
        os.utime(path, (now - age, now - age))


def test_past_the_limit_the_least_recently_used_go_until_a_quarter_is_free(tmp_path):
    files(tmp_path, {"old": (400, 300), "older": (400, 400), "recent": (400, 10), "newest": (400, 1)})
    assert cache_bounds.prune(str(tmp_path), 2000) == 0  # 1,600 bytes: within the limit
    assert cache_bounds.prune(str(tmp_path), 1500) == 2  # down to 1,125 or less: the two oldest go
    assert sorted(os.listdir(tmp_path)) == ["newest", "recent"]


def test_a_hit_counts_as_a_use(tmp_path):
    files(tmp_path, {"a": (400, 400), "b": (400, 300), "c": (400, 200)})
    cache_bounds.used(str(tmp_path / "a"))
    cache_bounds.prune(str(tmp_path), 1100)  # 1,200 bytes down to 825 or less: one file goes
    assert sorted(os.listdir(tmp_path)) == ["a", "c"]
    cache_bounds.used(str(tmp_path / "gone"))  # a file removed meanwhile: nothing to do
    assert cache_bounds.prune(str(tmp_path / "missing"), 10) == 0


def test_the_program_cache_stays_under_its_limit_and_makes_a_pruned_program_again(tmp_path, monkeypatch):
    """Three programs where they no longer fit: the one least recently used goes (the first
    stored was read since, so the second goes), and is assembled and stored again when needed."""
    monkeypatch.setenv("RULECHECK_CACHE", str(tmp_path))
    as_another_process(monkeypatch)
    model = load_model(TITLEBELT)
    folder = tmp_path / "vm"
    configs = [Config({**model.default_config().constants, "n_foreign": n}, model.default_config().readings) for n in (1, 2, 3)]

    def build(config: Config) -> None:
        monkeypatch.setattr(cache_bounds, "_PRUNED", set())  # a process each
        engine.build_vm(CompiledModel(model, config, lazy=True), [], checks=False)

    build(configs[0])
    build(configs[1])
    for config, age in ((configs[0], 200), (configs[1], 100)):  # stored in that order (file times are coarse: set them apart)
        path = program_cache._path(program_cache._key(model, config, []))
        os.utime(path, (time.time() - age, time.time() - age))
    assert program_cache.stored(model, configs[0], []) is not None  # a hit: used after the second was stored
    build(configs[2])
    total = sum(f.stat().st_size for f in folder.iterdir())
    monkeypatch.setattr(cache_bounds, "LIMIT_BYTES", total - 1)  # three programs no longer fit
    monkeypatch.setattr(cache_bounds, "_PRUNED", set())
    cache_bounds.written(str(folder))
    assert sum(f.stat().st_size for f in folder.iterdir()) <= (total - 1) * 3 // 4
    assert [program_cache.stored(model, config, []) is not None for config in configs] == [True, False, True]
    as_another_process(monkeypatch)
    build(configs[1])
    assert program_cache.stored(model, configs[1], []) is not None  # made and stored again
    folders: list[str] = []
    monkeypatch.setattr(cache_bounds, "written", folders.append)
    engine.build_vm(CompiledModel(model, Config({**configs[0].constants, "n_foreign": 4}, configs[0].readings), lazy=True), [], checks=False)
    assert folders == [str(folder)]  # each program stored prunes its folder (once per process)


def test_the_python_code_cache_is_bounded_and_its_hits_count(tmp_path, monkeypatch):
    """Writing generated code prunes the `python/` folder; reading it back marks it used."""
    monkeypatch.setenv("RULECHECK_CACHE", str(tmp_path))
    from checker.lang import compile_cache

    monkeypatch.setattr(compile_cache, "_MEMORY", {})
    monkeypatch.setattr(compile_cache, "_ENTRIES", {})
    written, used = [], []
    monkeypatch.setattr(cache_bounds, "written", written.append)
    monkeypatch.setattr(cache_bounds, "used", used.append)
    model = load_model(TITLEBELT)
    assert callable(CompiledModel(model, model.default_config()).successors)  # generated, compiled, stored
    assert written and all(folder == str(tmp_path / "python") for folder in written)
    monkeypatch.setattr(compile_cache, "_MEMORY", {})
    monkeypatch.setattr(compile_cache, "_ENTRIES", {})
    assert callable(CompiledModel(model, model.default_config()).successors)  # read back from the disk
    assert {os.path.dirname(path) for path in used} == {str(tmp_path / "python")} and len(used) == 2
