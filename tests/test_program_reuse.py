"""`program_reuse`: a configuration whose constants differ only where the program never reads
them takes the program already made, and that program is the one its own assembly makes."""

from __future__ import annotations

import os

import numpy as np
import pytest

pytest.importorskip("numba")

from checker.analysis.bounds import grow  # noqa: E402
from checker.engines.native import engine, program_cache, program_reuse, vm_code  # noqa: E402
from checker.engines.native.program_reuse import ReadRecorder  # noqa: E402
from checker.lang.compile import CompiledModel  # noqa: E402
from checker.lang.model import Config  # noqa: E402
from tests.native_support import as_another_process  # noqa: E402
from tests.symbolic_support import bound_props  # noqa: E402

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _grown(model) -> list[Config]:
    """The checked configuration and the larger ones the growth re-checks explore."""
    base = model.default_config()
    growth = grow(model, base)
    return [base, *(Config(c, base.readings) for _, c in growth.singles), Config(growth.constants, base.readings)]


def _arrays(program: vm_code.Bytecode) -> tuple:
    return (program.code, program.tables, program.entries, program.depth, program.registers, program.words, program.terms, program.writes)


def _built(compiled: CompiledModel, props) -> vm_code.Bytecode:
    """The program `build_vm` takes for `compiled`: its moves alone without `props`."""
    engine.build_vm(compiled, props, checks=bool(props))
    return engine._PROGRAMS[engine.source_key(compiled, props) if props else engine._key(compiled.model, compiled.config, [])]


def _fresh(monkeypatch, compiled: CompiledModel, props) -> vm_code.Bytecode:
    """The program of `compiled` as a new process without a disk cache assembles it."""
    with monkeypatch.context() as patch:
        as_another_process(patch)
        return _built(compiled, props)


@pytest.mark.parametrize("name", ["ultimate/two-player", "titlebelt/two-player"])
@pytest.mark.slow
def test_a_program_is_reused_only_where_it_is_the_same_program(monkeypatch, name):
    """Every larger configuration a growth re-check explores, moves alone and with the suite:
    fewer assemblies of the moves than configurations (their deals differ in constants the
    moves never read), and each program taken, moves or suite, is array for array the one its
    own assembly makes."""
    monkeypatch.setattr(program_cache, "bytecode", lambda model, config, ids, assemble: assemble())
    as_another_process(monkeypatch)
    made: list[bool] = []
    real = vm_code.Program.__init__
    monkeypatch.setattr(vm_code.Program, "__init__", lambda self, source, limit=None, moves=None: made.append(moves is None) or real(self, source, limit, moves))
    model, props = bound_props(os.path.join(HERE, "models", f"{name}.yaml"))
    configs = _grown(model)
    for with_props in ([], props):
        taken = {}
        for config in configs:
            compiled = CompiledModel(model, config, lazy=True)
            taken[repr(sorted(config.constants.items()))] = (compiled, _built(compiled, with_props))
        assembled = made.count(not with_props)
        if not with_props:  # the suites read the counts of cards the growths raise
            assert 1 <= assembled < len(taken), (name, assembled, len(taken))
        for compiled, program in taken.values():
            assert all(np.array_equal(a, b) for a, b in zip(_arrays(program), _arrays(_fresh(monkeypatch, compiled, with_props))))


def test_a_program_is_assembled_again_for_a_constant_it_reads(monkeypatch):
    """A constant the moves read (the size of the starting hand), changed: another assembly and
    another program."""
    monkeypatch.setattr(program_cache, "bytecode", lambda model, config, ids, assemble: assemble())
    as_another_process(monkeypatch)
    model, _ = bound_props(os.path.join(HERE, "models", "titlebelt", "two-player.yaml"))
    base = model.default_config()
    first = engine._moves_program(CompiledModel(model, base, lazy=True))
    read = program_reuse._KEPT[(model.path, model.id, ())][0].read
    assert read and set(read) < set(base.constants)  # some constants, not all
    name = next(n for n, v in read.items() if type(v) is int)
    other = Config({**base.constants, name: read[name] + 1}, base.readings)
    second = engine._moves_program(CompiledModel(model, other, lazy=True))
    assert second is not first and len(program_reuse._KEPT[(model.path, model.id, ())]) == 2


def test_the_recorder_records_every_way_a_constant_is_read():
    """Indexing, `get` (also of a name not there), `in` and iterating (every name)."""
    values = {"a": 1, "b": {(0,): 2}, "c": 3}
    recorder = ReadRecorder(values)
    assert recorder["a"] == 1 and recorder.get("zz") is None and "b" in recorder
    assert recorder.read == {"a": 1, "zz": program_reuse._ABSENT, "b": {(0,): 2}}
    with pytest.raises(KeyError):
        recorder["missing"]
    assert "missing" in recorder.read
    assert sorted(recorder) == ["a", "b", "c"] and recorder.read["c"] == 3
    kept = program_reuse._Kept({"a": 1, "zz": program_reuse._ABSENT}, None, None)  # type: ignore[arg-type]
    assert kept.serves({"a": 1, "c": 9}, None)
    assert not kept.serves({"a": 2}, None) and not kept.serves({"a": 1, "zz": 0}, None)
    assert not kept.serves({"a": 1}, object())  # another program of the moves
