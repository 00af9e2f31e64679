"""The bytecode interpreter (`checker/engines/native/vm.py`): its assembler, its programs and caches.

The instructions the assembler fuses give what the instructions as written give; a program is
assembled once per model and constants, stored for the next process, and continued by a
suite's predicates; every loop lets go of the GIL and counts no references per state. Runs that
stop once every property is decided, readings that add instances, shared subexpressions and
modelling errors are compared with the Python engine (`tests.conformance.backends.compare`);
the general comparison, on random and bundled models, is the conformance suite's.
"""

from __future__ import annotations

import os
import tempfile

import pytest

pytest.importorskip("numba")

from checker.engines import native  # noqa: E402
from checker.engines.backend import explore_and_decide  # noqa: E402
from checker.engines.explicit import Budget  # noqa: E402
from checker.engines.native import engine, vm  # noqa: E402
from checker.engines.native.source import NativeSource  # noqa: E402
from checker.engines.native.vm_code import _TEST_JUMPS, _WITH_CONSTANT, Bytecode, Program, _fused, _placed, stack_depth, whole_program  # noqa: E402
from checker.engines.native.vm_share import Label, Mark  # noqa: E402
from checker.lang.compile import CompiledModel  # noqa: E402
from checker.lang.model import Config  # noqa: E402
from tests.conformance.backends import compare  # noqa: E402
from tests.conformance.generated import HERE, configs  # noqa: E402
from tests.native_support import as_another_process  # noqa: E402
from tests.symbolic_support import bound_props, write_game  # noqa: E402

LOOPS = """game: Loops
id: loops
players: [ann]
state:
  x: "int[0..20]"
  y: "int[0..1]"
init: {x: 0, y: 0}
terminal: "x == 20"
actions:
  up:
    by: ann
    when: "x < 20"
    do: {x: "x + 1"}
    rule: c-1
  toggle:
    by: ann
    when: "x == 5"
    do: {y: "1 - y"}
    rule: c-1
  back:
    by: ann
    when: "x == 10"
    do: {x: 0}
    rule: c-1
clauses:
  c-1: {at: "1", says: "A rule."}
"""


@pytest.mark.parametrize("kinds, look, budget, stops", [
    ("coverage", 4096, 200_000, "every property decided"),  # every action fired by a layer's end: decided there
    ("terminates", 2, 200_000, "every property decided"),  # a cycle found as the states double
    ("terminates", 4096, 9, "state budget of 9 reached"),  # a cycle found where the budget stops the run
    ("coverage terminates invariant", 2, 200_000, "every property decided"),
])
def test_a_stopping_run_decides_coverage_and_cycles_at_layers_ends_natively(tmp_path, monkeypatch, kinds, look, budget, stops):
    """Coverage and an unbounded `terminates` are decided where the Python engine decides them
    in a run that stops once every property is decided (`layer_checks`): at the end of the
    layer where every action has fired, at a layer's end once the states have doubled since
    the last look for a cycle, and where the budget stops the run. The same states, stop and
    findings natively; `auto` runs such a run natively."""
    from checker.engines import explicit

    monkeypatch.setattr(explicit, "CYCLE_LOOK_STATES", look)
    props_yaml = "- {id: fired, kind: coverage}\n- {id: ends, kind: terminates}\n- {id: small, kind: invariant, expr: 'x <= 3'}\n"
    model, props = bound_props(write_game(str(tmp_path), "loops", LOOPS, props_yaml))
    chosen = [p for p in props if p.kind in kinds.split()]
    run = Budget(budget, 60.0, stop_when_decided=True)
    assert compare(model, model.default_config(), chosen, run) == []
    exp, findings = explore_and_decide(CompiledModel(model, model.default_config()), chosen, run, None, True, "auto")
    assert isinstance(exp, engine.NativeExploration) and exp.stopped_by == stops
    assert len(exp.states) < 42  # stopped before the whole game (21 values of x, 2 of y)
    assert all(findings[p.id].status == ("holds" if p.kind == "coverage" else "fails") for p in chosen)


def test_moves_come_in_the_python_engines_order_when_a_reading_adds_instances():
    """`lastcard`'s `claim=opening` adds a second block testing `deck == 1` first, so the
    program (every reading's instances) dispatches on `deck` and tests both claims before the
    draw, where the Python engine under `claim=last` tests the draw first: the moves are put in
    the Python engine's order (`engine.python_order`), so the states are numbered alike."""

    model, props = bound_props(os.path.join(HERE, "tests", "impact", "models", "lastcard", "lastcard.yaml"))
    for option in ("never", "opening", "last"):
        config = Config({**model.default_config().constants, "cards": 3}, {"claim": option})
        assert compare(model, config, props, Budget(10_000, 600.0)) == []
    compiled = CompiledModel(model, Config({**model.default_config().constants, "cards": 3}, {"claim": "last"}), lazy=True)
    source, _, ctx = engine.build_vm(compiled, props)
    assert list(ctx[11]) == engine.python_order(source, compiled) != []


ERRORS = {
    "division by zero": "x + 1 if x < 2 else 4 // (x - 2)",
    "an index outside its domain": "t[x + 1] if x == 2 else x + 1",
    "a write outside the slot's range": "x + 2",
}


@pytest.mark.parametrize("kind", sorted(ERRORS))
def test_modelling_errors_are_left_to_the_reference(kind):
    """Each modelling error stops the interpreter (`NativeDeferred`); under `vm` the Python
    engine then reports it, with its message."""
    text = f"""\
game: Err
id: err
players: [a, b]
domains:
  slot: {{range: [0, 2]}}
constants:
  t: {{type: int, of: slot, value: {{0: 1, 1: 2, 2: 3}}}}
state:
  x: "int[0..3]"
init: {{x: 0}}
terminal: "x == 3"
actions:
  up:
    by: rules
    when: "x < 3"
    do: {{x: "{ERRORS[kind]}"}}
    rule: r-1
"""
    with tempfile.TemporaryDirectory() as root:
        path = write_game(root, "err", text, "- {id: inv, kind: invariant, expr: 'x >= 0'}")
        model, props = bound_props(path)
        compiled = CompiledModel(model, model.default_config())
        with pytest.raises(engine.NativeDeferred):
            engine.explore(compiled, props, Budget())
        exp, findings = explore_and_decide(compiled, props, Budget(), None, False, "native")
        assert exp.error is not None and findings["inv"].status == "error"


def test_stack_depth_follows_every_path():
    """The stack is allocated from `stack_depth`, and `vm.run` checks no bounds: the depth
    counts both sides of a branch, and an assembler that leaves a value behind is refused."""
    code = [vm.PUSH, 1, vm.JUMP_IF_ZERO, 9, vm.PUSH, 2, vm.PUSH, 3, vm.ADD, vm.RETURN]
    code[3] = 10
    code += [vm.PUSH, 5, vm.PUSH, 6, vm.PUSH, 7, vm.ADD, vm.ADD, vm.RETURN]
    assert stack_depth(code, [0]) == 3
    with pytest.raises(AssertionError):
        stack_depth([vm.PUSH, 1, vm.PUSH, 2, vm.RETURN], [0])


def test_stack_depth_counts_a_subroutine_above_its_caller():
    """A subroutine runs above the caller's stack and its return address: its depth adds to
    the caller's, and one that returns with more or less than its value is refused."""
    caller = [vm.PUSH, 1, vm.CALL, 0, 1, 2, 10, vm.ADD, vm.RETURN, vm.JUMP]
    subroutine = [vm.PUSH, 2, vm.PUSH, 3, vm.ADD, vm.KEEP_RETURN, 0, 1, 2]
    assert stack_depth(caller + subroutine, [0]) == 1 + 1 + 2  # the caller's value, the return address, the subroutine's two
    with pytest.raises(AssertionError, match="a subroutine returns at depth"):
        stack_depth(caller + [vm.PUSH, 2, vm.PUSH, 3, vm.KEEP_RETURN, 0, 1, 2], [0])


def _value_of(code: list[int]) -> int:
    """What `vm.run` (its Python source: the same semantics, no compiling) leaves on the stack."""
    np = pytest.importorskip("numpy")
    row = np.zeros(1, np.int64)
    scratch = np.zeros(8, np.int64)
    return vm.run.py_func(np.array(code, np.int64), 0, row, row, scratch, np.zeros((1, 1), np.int64), scratch, scratch, np.zeros(8, np.int64),
                          np.zeros(8, np.int64), np.zeros(1, np.int64), scratch, scratch, 0)


@pytest.mark.parametrize("op", sorted(_WITH_CONSTANT))
def test_a_push_runs_as_one_instruction_with_the_operation_after_it(op):
    """PUSH b then ADD (and each operation with a constant operand) becomes ADD_C b: one
    instruction, the same value, for operands on either side of zero."""
    for a, b in [(7, 3), (3, 7), (-2, 5), (4, 4), (0, -1)]:
        ops = [vm.PUSH, a, vm.PUSH, b, op, vm.RETURN]
        fused = _placed(ops, 0)
        assert fused == [vm.PUSH, a, _WITH_CONSTANT[op], b, vm.RETURN]
        assert _value_of(fused) == _value_of(ops)


def test_a_push_and_store_become_one_set():
    """PUSH 9, STORE r: SET r 9; the register holds the value the pair stored."""
    ops = [vm.PUSH, 9, vm.STORE, 2, vm.LOAD, 2, vm.RETURN]
    fused = _placed(ops, 0)
    assert fused == [vm.SET, 2, 9, vm.LOAD, 2, vm.RETURN]
    assert _value_of(fused) == _value_of(ops) == 9


def test_nothing_is_fused_where_a_jump_lands_between_the_two():
    """A jump may land on the operation after a PUSH (a `Mark` there): the two stay apart, and
    the jump still finds its instruction; a DISPATCH's operands are never read as a PUSH."""
    target = Label()
    ops = [vm.PUSH, 1, vm.JUMP_IF_ZERO, target, vm.PUSH, 5, Mark(target), vm.PUSH, 2, vm.ADD, vm.RETURN]
    assert _fused(ops) == [vm.PUSH, 1, vm.JUMP_IF_ZERO, target, vm.PUSH, 5, Mark(target), vm.ADD_C, 2, vm.RETURN]
    apart = [vm.PUSH, 1, vm.JUMP_IF_ZERO, target, vm.PUSH, 5, vm.PUSH, 2, Mark(target), vm.ADD, vm.RETURN]
    assert _fused(apart) == apart
    after = Label()
    dispatch = [vm.DISPATCH, 0, 1, 1, vm.PUSH, after, vm.STORE, Mark(after), vm.PUSH, 3, vm.RETURN]
    assert _fused(dispatch) == dispatch  # value PUSH (0) and address `after` are operands


def _unfused(ops: list) -> list[int]:
    """`ops` placed at 0 as written: labels replaced by addresses, nothing fused or threaded."""
    at, address = {}, 0
    for item in ops:
        if type(item) is Mark:
            at[id(item.label)] = address
        else:
            address += 1
    return [at[id(item)] if isinstance(item, Label) else item for item in ops if type(item) is not Mark]


def _run_on(code: list[int], word: int) -> tuple[int, list[int]]:
    """`vm.run`'s Python source on a one-word state: its result and the successor it wrote."""
    np = pytest.importorskip("numpy")
    row = np.array([word], np.int64)
    out = np.zeros((2, 1), np.int64)
    scratch = np.zeros(8, np.int64)
    result = vm.run.py_func(np.array(code, np.int64), 0, row, row, scratch, out, scratch, scratch, np.zeros(8, np.int64),
                            np.zeros(8, np.int64), np.zeros(1, np.int64), scratch, scratch, 0)
    return int(result), [int(x) for x in out[0]]


def _field(shift: int, mask: int) -> list:
    return [vm.FIELD, 0, 0, shift, mask]


@pytest.mark.parametrize("compare", [vm.EQ, vm.NE])
def test_a_field_compared_with_a_constant_runs_as_one_instruction(compare):
    """FIELD, PUSH 2, EQ (or NE) is one FIELD_EQ_C (FIELD_NE_C); followed by a guard's
    JUMP_IF_ZERO or an `and`, the equality and the jump are one instruction too. An inequality's
    guard jump takes the constant and the comparison (NE_C_JUMP after the FIELD: two
    instructions, as FIELD_NE_C and the jump were). Every value of the field gives what the
    instructions as written give."""
    other, end = Label(), Label()
    tests = {
        "value": [*_field(2, 3), vm.PUSH, 2, compare, vm.RETURN],
        "guard": [*_field(2, 3), vm.PUSH, 2, compare, vm.JUMP_IF_ZERO, other, vm.PUSH, 7, vm.RETURN, Mark(other), vm.PUSH, 9, vm.RETURN],
        "and": [*_field(2, 3), vm.PUSH, 2, compare, vm.AND_ELSE, end, *_field(0, 1), Mark(end), vm.RETURN],
    }
    fused_ops = {vm.EQ: {"value": vm.FIELD_EQ_C, "guard": vm.FIELD_EQ_JUMP, "and": vm.FIELD_EQ_AND}, vm.NE: {"value": vm.FIELD_NE_C, "guard": vm.FIELD, "and": vm.FIELD_NE_C}}
    for name, ops in tests.items():
        fused = _placed(ops, 0)
        assert fused[0] == fused_ops[compare][name]
        assert len(fused) < len(_unfused(ops))
        for word in range(16):
            assert _run_on(fused, word) == _run_on(_unfused(ops), word), (name, word)


@pytest.mark.parametrize("compare", sorted(_TEST_JUMPS))
def test_a_comparison_with_a_constant_and_its_guards_jump_run_as_one_instruction(compare):
    """A value, PUSH b, a comparison and a guard's JUMP_IF_ZERO: one instruction for the last
    three (GT_C_JUMP b ...), or, for an equality with a field, one for all four
    (FIELD_EQ_JUMP); the same block taken for every value and constant, and a stack the
    assembler's depth check accepts. An `and` after the comparison is left to the threading."""
    for b in (-1, 0, 3, 7):
        other = Label()
        ops = [*_field(0, 15), vm.PUSH, b, compare, vm.JUMP_IF_ZERO, other, vm.PUSH, 7, vm.RETURN, Mark(other), vm.PUSH, 9, vm.RETURN]
        fused = _placed(ops, 0)
        assert fused[:2] == ([vm.FIELD_EQ_JUMP, 0] if compare == vm.EQ else [vm.FIELD, 0])
        assert compare == vm.EQ or fused[5] == _TEST_JUMPS[compare]
        assert vm.JUMP_IF_ZERO not in fused[:9]
        stack_depth(fused, [0])
        for word in range(16):
            assert _run_on(fused, word) == _run_on(_unfused(ops), word), (compare, b, word)
        loaded = [vm.LOAD, 0, vm.PUSH, b, compare, vm.JUMP_IF_ZERO, other, vm.PUSH, 7, vm.RETURN, Mark(other), vm.PUSH, 9, vm.RETURN]
        assert _placed(loaded, 0)[2:5] == [_TEST_JUMPS[compare], b, 8]  # the jump to the block after PUSH 7, RETURN
    end = Label()
    chained = [*_field(0, 15), vm.PUSH, 3, compare, vm.AND_ELSE, end, *_field(0, 1), Mark(end), vm.RETURN]
    assert _TEST_JUMPS[compare] not in _placed(chained, 0)


def _sum_on(code: list[int], s: list[int], o: list[int]) -> int:
    """`vm.run`'s Python source on a two-word state `s` (and old state `o`): the value returned."""
    np = pytest.importorskip("numpy")
    scratch = np.zeros(8, np.int64)
    return int(vm.run.py_func(np.array(code, np.int64), 0, np.array(s, np.int64), np.array(o, np.int64), scratch, np.zeros((2, 2), np.int64), scratch, scratch,
                              np.zeros(8, np.int64), np.zeros(8, np.int64), np.zeros(1, np.int64), scratch, scratch, 0))


def test_fields_added_up_run_as_one_instruction():
    """FIELD, then FIELD and ADD again and again (an unrolled `sum(deck[k] for k in card)`), is
    one FIELD_SUM, fields of the state and of the old state, and one straddling two words
    (FIELD2), alike; the same sum as the instructions as written for every state tried, and a
    stack one value deep. A jump landing inside the chain (a `Mark`) keeps the rest apart, and
    a lone field, or one followed by anything but a field, stays as it is."""
    import random

    straddling = [vm.FIELD2, 0, 0, 62, 15]  # bits 62..65: two of word 0, two of word 1
    chain = [vm.FIELD, 0, 0, 0, 7, vm.FIELD, 1, 0, 3, 7, vm.ADD, *straddling, vm.ADD, vm.FIELD, 0, 1, 4, 3, vm.ADD, vm.RETURN]
    fused = _placed(chain, 0)
    assert fused == [vm.FIELD_SUM, 4, 0, 0, 0, 7, 1, 0, 3, 7, 2, 0, 62, 15, 0, 1, 4, 3, vm.RETURN]
    assert stack_depth(fused, [0]) == 1 and stack_depth(_unfused(chain), [0]) == 2
    rng = random.Random(5)
    for _ in range(200):
        s, o = [rng.getrandbits(63) - rng.getrandbits(1) * (1 << 63) for _ in range(2)], [rng.getrandbits(63) for _ in range(2)]
        assert _sum_on(fused, s, o) == _sum_on(_unfused(chain), s, o)
    landing = Label()
    split = [vm.FIELD, 0, 0, 0, 7, vm.FIELD, 0, 0, 3, 7, vm.ADD, Mark(landing), vm.FIELD, 0, 0, 6, 7, vm.ADD, vm.RETURN]
    assert _fused(split) == [vm.FIELD_SUM, 2, 0, 0, 0, 7, 0, 0, 3, 7, Mark(landing), vm.FIELD, 0, 0, 6, 7, vm.ADD, vm.RETURN]
    lone = [vm.FIELD, 0, 0, 0, 7, vm.PUSH, 3, vm.ADD, vm.FIELD, 0, 0, 3, 7, vm.LOAD, 0, vm.ADD, vm.RETURN]
    assert vm.FIELD_SUM not in _placed(lone, 0)


def test_a_guards_conjunction_jumps_to_the_next_block_at_its_first_false_test():
    """`a and b` (two one-bit fields) tested by a guard: the `and`'s zero lands on the guard's
    JUMP_IF_ZERO, so each test jumps straight to the next block (FIELD_JUMP); an `or`'s
    non-zero goes past the JUMP_IF_ZERO (JUMP_UNLESS_ZERO); a chain ending in another `and`
    jumps on to where that one goes. Same results for every state, one test less run."""
    for op in (vm.AND_ELSE, vm.OR_ELSE):
        end, skip = Label(), Label()
        ops = [*_field(0, 1), op, end, *_field(1, 1), Mark(end), vm.JUMP_IF_ZERO, skip, vm.PUSH, 7, vm.RETURN, Mark(skip), vm.PUSH, 9, vm.RETURN]
        threaded = _placed(ops, 0)
        assert vm.AND_ELSE not in threaded[:7] and vm.OR_ELSE not in threaded[:7] and vm.FIELD_AND not in threaded[:7]
        assert threaded[0] == (vm.FIELD_JUMP if op == vm.AND_ELSE else vm.FIELD)
        for word in range(4):
            assert _run_on(threaded, word) == _run_on(_unfused(ops), word), (op, word)
    inner, outer = Label(), Label()
    nested = [*_field(0, 1), vm.AND_ELSE, inner, *_field(1, 1), Mark(inner), vm.AND_ELSE, outer, *_field(2, 1), Mark(outer), vm.RETURN]
    threaded = _placed(nested, 0)
    assert threaded[5] == len(threaded) - 1  # the first test's zero goes straight to the end
    for word in range(8):
        assert _run_on(threaded, word) == _run_on(_unfused(nested), word)


def test_a_write_at_a_constant_offset_takes_it_as_an_operand():
    """WRITE_K (offset and value constants) and WRITE_AT (constant offset, value in a
    register) write what WRITE does with both in registers."""
    for offset, mask, value in [(0, 3, 2), (4, 15, 9), (56, 255, 171)]:
        plain = [vm.SET, 0, offset, vm.SET, 1, value, vm.BEGIN, vm.WRITE, 0, 1, mask, vm.MOVE, 0, vm.RETURN]
        constant = [vm.BEGIN, vm.WRITE_K, offset, value, mask, vm.MOVE, 0, vm.RETURN]
        at = [vm.SET, 1, value, vm.BEGIN, vm.WRITE_AT, offset, 1, mask, vm.MOVE, 0, vm.RETURN]
        expected = _run_on(plain, 0x5A5A)
        assert _run_on(constant, 0x5A5A) == expected == _run_on(at, 0x5A5A)


def test_one_program_per_model_and_constants():
    """The program is assembled once per model and constants in a process, whatever the
    readings: every reading combination of a model shares it."""
    model, props = bound_props(os.path.join(HERE, "models", "titlebelt", "two-player.yaml"))
    programs = set()
    for config in configs(model)[:3]:
        compiled = CompiledModel(model, config, lazy=True)
        engine.build_vm(compiled, props)
        programs.add(id(engine._PROGRAMS[engine.source_key(compiled, props)]))
    assert len(programs) == 1
    source = NativeSource(model, model.default_config(), CompiledModel(model, model.default_config(), lazy=True), props)
    assert len(whole_program(source).code) > 0


def test_a_models_program_is_assembled_once_per_machine(tmp_path, monkeypatch):
    """A program for the model's own suite is stored under `$RULECHECK_CACHE/vm/`, with the
    program of its moves it continues, and served to the next process (here: an emptied
    process cache) without assembling; other constants are two other programs, an edited suite
    one more (the moves are the same; a comment added to it changes no property, so no
    program); an unreadable entry is assembled again."""
    import shutil

    import numpy as np

    from checker.engines.native import vm_code

    shutil.copytree(os.path.join(HERE, "models", "titlebelt"), tmp_path / "game" / "models" / "titlebelt")
    (tmp_path / "game" / "properties").mkdir()
    suite = tmp_path / "game" / "properties" / "titlebelt.yaml"
    shutil.copy(os.path.join(HERE, "properties", "titlebelt.yaml"), suite)
    monkeypatch.setenv("RULECHECK_CACHE", str(tmp_path / "cache"))
    as_another_process(monkeypatch)
    model, _ = bound_props(str(tmp_path / "game" / "models" / "titlebelt" / "two-player.yaml"))
    compiled = CompiledModel(model, model.default_config(), lazy=True)
    _, _, first = engine.build_vm(compiled, [])
    stored = list((tmp_path / "cache" / "vm").iterdir())
    assert len(stored) == 2
    with monkeypatch.context() as patch:
        as_another_process(patch)
        patch.setattr(vm_code.Program, "__init__", lambda self, *args: pytest.fail("assembled again"))
        _, _, again = engine.build_vm(compiled, [])
    assert all(np.array_equal(x, y) for x, y in zip(first, again))
    for entry in stored:
        entry.write_bytes(b"not a program")
    as_another_process(monkeypatch)
    _, _, rebuilt = engine.build_vm(compiled, [])
    assert all(np.array_equal(x, y) for x, y in zip(first, rebuilt))
    engine.build_vm(CompiledModel(model, Config({**compiled.config.constants, "n_foreign": 3}, compiled.config.readings), lazy=True), [])
    assert len(list((tmp_path / "cache" / "vm").iterdir())) == 4
    suite.write_text(suite.read_text() + "# edited\n")
    as_another_process(monkeypatch)
    model, _ = bound_props(str(tmp_path / "game" / "models" / "titlebelt" / "two-player.yaml"))
    engine.build_vm(CompiledModel(model, model.default_config(), lazy=True), [])
    assert len(list((tmp_path / "cache" / "vm").iterdir())) == 4
    suite.write_text(suite.read_text().replace("properties:\n", "properties:\n  - {id: added, kind: invariant, expr: \"true\"}\n", 1))
    as_another_process(monkeypatch)
    monkeypatch.setattr(engine, "_SUITES", {})
    model, _ = bound_props(str(tmp_path / "game" / "models" / "titlebelt" / "two-player.yaml"))
    engine.build_vm(CompiledModel(model, model.default_config(), lazy=True), [])
    assert len(list((tmp_path / "cache" / "vm").iterdir())) == 5


def test_a_suites_program_is_the_program_of_the_moves_with_its_predicates_after_it(tmp_path, monkeypatch):
    """`build_vm(..., checks=False)` (the searches, the impact analysis, simulation) takes the
    program of the moves alone; the check matrix's program is that program with the suite's
    predicates placed after it: its code, tables and entry points for the moves are the same,
    the moves are assembled once for both (also when the suite's program is asked first, or by
    another process: both are stored), and both give the same moves, states and outcomes."""
    import numpy as np

    from checker.engines import statespace
    from checker.engines.native import program_cache, vm_code

    monkeypatch.setenv("RULECHECK_CACHE", str(tmp_path / "cache"))
    as_another_process(monkeypatch)
    model, props = bound_props(os.path.join(HERE, "models", "titlebelt", "two-player.yaml"))
    compiled = CompiledModel(model, model.default_config(), lazy=True)
    assembled: list[bool] = []
    real = vm_code.Program.__init__
    monkeypatch.setattr(vm_code.Program, "__init__", lambda self, source, limit=None, moves=None: assembled.append(moves is None) or real(self, source, limit, moves))
    source, _, _ = engine.build_vm(compiled, [], checks=False)
    assert source.props == [] and props and assembled == [True]
    without = statespace.explore_space_natively(compiled, 10**6, 600)
    engine.build_vm(compiled, props)  # the check matrix
    assert assembled == [True, False]  # the predicates only
    moves = engine._PROGRAMS[engine._key(model, compiled.config, [])]
    suite = engine._PROGRAMS[engine.source_key(compiled, props)]
    at = int(moves.entries[3])
    assert np.array_equal(suite.code[: len(moves.code)], moves.code) and len(suite.code) > len(moves.code)
    assert np.array_equal(suite.tables[: len(moves.tables)], moves.tables)
    kept = [0, 1, *range(6, at)]  # all but where the properties' programs start
    assert np.array_equal(suite.entries[kept], moves.entries[kept])
    assert program_cache.stored(model, compiled.config, []) is not None
    assert program_cache.stored(model, compiled.config, engine.generated_props(compiled, props)) is not None
    as_another_process(monkeypatch)
    engine.build_vm(compiled, props)
    source, _, _ = engine.build_vm(compiled, [], checks=False)
    assert assembled == [True, False] and source.props == []  # both from the disk
    as_another_process(monkeypatch)
    monkeypatch.setenv("RULECHECK_CACHE", str(tmp_path / "other"))
    engine.build_vm(compiled, props)  # the suite's program first: the moves' is assembled and stored on the way
    assert assembled == [True, False, True, False]
    as_another_process(monkeypatch)
    engine.build_vm(compiled, [], checks=False)
    assert assembled == [True, False, True, False]
    with_suite = engine.explore(compiled, props, Budget(10**6, 600.0))[0]
    assert without.complete and without.size == len(with_suite.rows)


def test_cli_native_backend_checks_a_game(tmp_path):
    """`--backend native` (the bytecode interpreter) through the command line: the same results
    as the Python engine."""
    import json

    from click.testing import CliRunner

    from checker.cli import main

    duel = os.path.join(HERE, "tests", "models", "duel")
    runner = CliRunner()
    outputs = {}
    for backend in ("python", "native"):
        result = runner.invoke(main, ["check", duel, "--backend", backend, "--format", "json", "--no-write", "--no-growth", "--fresh"])
        assert result.exit_code in (0, 1), result.output
        results = json.loads(result.stdout)["results"]
        outputs[backend] = [(r["property"], r["verdict"], r.get("trace")) for r in results]
    assert outputs["python"] == outputs["native"]
    assert native.BACKENDS == ("auto", "native", "python")


def test_assembly_honours_the_budget_on_aggregate_terms(tmp_path, monkeypatch):
    """The assembler refuses an aggregate with more terms than the state budget, as the Python
    emitter does, and a program assembled under a larger budget (here: none) is refused under
    a smaller one; `auto` then leaves the configuration to the Python engine, which refuses it
    in its words."""
    from checker.engines.native import vm_code
    from checker.limits import OutOfBudget, WorkLimit

    monkeypatch.setenv("RULECHECK_CACHE", str(tmp_path / "cache"))
    as_another_process(monkeypatch)
    model, props = bound_props(write_game(str(tmp_path), "budgeted", BUDGETED, "- {id: p, kind: invariant, expr: 'sum(1 for a in big for b in big) > 0'}\n"))
    source = NativeSource(model, model.default_config(), CompiledModel(model, model.default_config(), lazy=True), props)
    needed = whole_program(source).terms
    assert needed == 1600
    with pytest.raises(OutOfBudget, match="the terms of an aggregate"):
        whole_program(source, WorkLimit(needed - 1, float("inf")))
    engine.build_vm(CompiledModel(model, model.default_config(), lazy=True), props)  # assembled without a budget
    small = CompiledModel(model, model.default_config(), WorkLimit(needed - 1, float("inf")), lazy=True)
    with pytest.raises(OutOfBudget, match="the terms of an aggregate"):
        engine.build_vm(small, props)
    monkeypatch.setattr(vm_code.Program, "__init__", lambda self, source, limit=None: pytest.fail("assembled again"))
    engine.build_vm(CompiledModel(model, model.default_config(), WorkLimit(needed, float("inf")), lazy=True), props)
    with pytest.raises(OutOfBudget, match="the terms of an aggregate"):
        explore_and_decide(small, props, Budget(), None, True, "python")  # the Python engine's refusal


BUDGETED = """game: Budgeted
id: budgeted
players: [ann, bob]
domains:
  big: {range: [1, 40]}
state:
  x: "int[0..3]"
init: {x: 0}
terminal: "x == 3"
actions:
  step:
    by: rules
    when: "x < 3"
    do: {x: "x + 1"}
    rule: c-1
clauses:
  c-1: {at: "1", says: "A rule."}
"""


SHARED = """game: Shared
id: shared
players: [ann, bob]
domains:
  pos: {range: [0, 2]}
state:
  x: {type: "int[0..3]", of: pos}
  total: "int[0..999]"
  y: "int[0..3]"
  marks: {type: "int[0..9]", of: pos}
init: {x: 0, total: 0, y: 0, marks: 0}
terminal: "total > 300"
define:
  inner(v): v * 2 + 1
  outer(a, v): a + a + v
  score(v): outer(inner(v), v)
  guarded(v): not ((y != 3 and v < 0) or (y != 3 and v >= 99))
  either(v): (y == 3 and v > 4) or v > 2
actions:
  move:
    by: rules
    when: "y < 3"
    do: {y: "y + 1"}
    rule: c-1
  bump:
    by: rules
    for: {p: pos}
    when: "x[p] < 3"
    do: {"x[p]": "x[p] + 1"}
    rule: c-1
  add:
    by: rules
    for: {p: pos}
    when: "score(x[p] * 3 + x[p] + 1) > 5 and guarded(x[y] * 3 + x[y]) and either(x[p] * 5 + x[p] + 1)"
    do: {total: "total + score(x[p] * 3 + x[p] + 1)", "marks[c] for c in pos": "(inner(x[p] * 3 + x[p] + 1) + (c if y < 2 else 0)) % 10"}
    rule: c-1
clauses:
  c-1: {at: "1", says: "A rule."}
"""


def test_repeated_subexpressions_are_computed_once_where_they_run(tmp_path, monkeypatch):
    """A value repeated in one expression is kept where it is first computed, then loaded
    where that ran on every path, else reused when this evaluation computed it: `score` repeats
    `inner(v)`, which holds `v`, then `v` itself; `guarded` repeats `x[y]`, outside `pos` once
    `y` is 3, where its `and` skips it (computing it sooner would stop the run); `either`
    needs `v` where its first use may not have run; `marks` repeats `inner(...)` across the
    values one action writes. The interpreter agrees with the Python engine state for state,
    and without sharing there are no registers beyond the writes'."""
    from checker.engines.native import vm_code

    path = write_game(str(tmp_path), "shared", SHARED, "- {id: bounded, kind: invariant, expr: 'total <= 999'}\n")
    model, props = bound_props(path)
    assert compare(model, model.default_config(), props) == []
    source = NativeSource(model, model.default_config(), CompiledModel(model, model.default_config(), lazy=True), props)
    shared = whole_program(source)
    monkeypatch.setattr(vm_code, "MIN_SIZE", 10**9)
    plain = whole_program(source)
    assert plain.registers == 4  # the values of `add`'s four writes (their offsets are constants: operands of the writes)
    assert shared.registers > plain.registers  # and the shared values and their stamps


def test_a_process_waits_for_the_program_another_is_assembling(tmp_path, monkeypatch):
    """Two assemblies of one program at once (two workers exploring options of one model):
    the second waits for the first's lock, then reads its program from disk instead of
    assembling it again; the lock file is gone afterwards."""
    import threading

    import numpy as np

    from checker.engines.native import program_cache

    monkeypatch.setenv("RULECHECK_CACHE", str(tmp_path / "cache"))
    model, _ = bound_props(os.path.join(HERE, "models", "titlebelt", "two-player.yaml"))
    compiled = CompiledModel(model, model.default_config(), lazy=True)
    program = Program(NativeSource(model, compiled.config, compiled, [])).bytecode()
    started, release = threading.Event(), threading.Event()
    assembled: list[str] = []

    def slow() -> object:
        assembled.append("first")
        started.set()
        assert release.wait(30)
        return program

    def second() -> object:
        assembled.append("second")
        return program

    results: dict[str, object] = {}
    first = threading.Thread(target=lambda: results.update(first=program_cache.bytecode(model, compiled.config, [], slow)))
    first.start()
    assert started.wait(30)
    waiting = threading.Thread(target=lambda: results.update(second=program_cache.bytecode(model, compiled.config, [], second)))
    waiting.start()
    waiting.join(0.5)
    assert waiting.is_alive(), "the second assembly did not wait for the first"
    release.set()
    first.join(30)
    waiting.join(30)
    assert assembled == ["first"]
    read = results["second"]
    assert isinstance(read, Bytecode) and all(np.array_equal(getattr(read, f), getattr(program, f)) for f in ("code", "tables", "entries"))
    assert not list((tmp_path / "cache" / "vm").glob("*.lock"))


@pytest.mark.slow
def test_every_loop_calls_the_interpreter_with_one_list_of_argument_types(tmp_path):
    """numba compiles a function once per distinct list of argument types, and a literal (a
    `0` written in the caller) or a read-only array is a type of its own: `run` was compiled
    three times (3 to 4 CPU s each) and the moves, terminal condition and random draw twice in
    a cold check. In a process with an empty cache (so that every function is compiled there,
    callees included: one loaded from the cache does not ask for its callees), the entry
    points that run a program with properties (exploring, and over a stored space), step
    states from Python and simulate leave each function one compilation (`check_after` was
    compiled twice: the stored space's targets are int32)."""
    import subprocess
    import sys

    script = """
import os
from checker.analysis.impact import keep_space
from checker.engines.statespace import explore_space
from checker.engines import backend, simulate
from checker.engines.explicit import Budget
from checker.engines.native import engine, space_store, vm
from checker.lang.compile import CompiledModel
from tests.symbolic_support import bound_props
model, props = bound_props(os.path.join("models", "titlebelt", "two-player.yaml"))
config = model.default_config()
engine.explore(CompiledModel(model, config, lazy=True), props, Budget(2_000, 600.0))
with space_store.sharing():  # the properties decided over a stored space too (`check_space`)
    keep_space(explore_space(CompiledModel(model, config, lazy=True), 200_000))
    engine.explore(CompiledModel(model, config, lazy=True), props, Budget(200_000, 600.0))
simulate.simulate_natively(CompiledModel(model, config, lazy=True), 20, 1, 200)
stepped = backend.stepping(model, config)
for _, post in stepped.successors(stepped.initial[0]):
    stepped.terminal(post)
module = engine.load_module(engine.vm_source())
for function in (vm.run, module.moves, module.successors, module.terminal, module._value, module._below, module.check_space, module.check_after):
    print(function.py_func.__name__, len(function.signatures))
"""
    env = {**os.environ, "RULECHECK_CACHE": str(tmp_path), "NUMBA_CACHE_DIR": str(tmp_path / "numba")}
    out = subprocess.run([sys.executable, "-c", script], cwd=HERE, env=env, capture_output=True, text=True, timeout=900)
    assert out.returncode == 0, out.stderr
    counts = dict(line.split() for line in out.stdout.splitlines())
    assert counts == {name: "1" for name in ("run", "moves", "successors", "terminal", "_value", "_below", "check_space", "check_after")}


# The functions a loop calls for every state or move: the interpreter, the helpers around it,
# the visited table's, the driver's and those every generated module defines.
PER_STATE = {
    "interpreter": ["_value", "moves", "successors", "terminal", "check_state", "check_after", "leads_masks", "_seen_outcome", "_flag", "_moves", "_compare", "_mt_word", "_below",
                    "_uniform", "_draw", "_on_walk", "_outcome_matches", "same", "all_decided", "lookup", "lookup_at", "hint_slots"],
    "runtime": ["_after", "_rd", "_wr", "state_hash", "table_shift", "grow_table", "_is_cyclic", "has_exit"],
    "end_components": ["_drop"],
}


def test_functions_called_per_state_count_no_references():
    """numba's runtime counts references to every array a compiled function is passed, an
    atomic increment on entry and a decrement on return per array: `run` takes twelve, and the
    helpers around it the tuple of run-time inputs, which cost about 60 ns a call and half of an
    exploration's time. Each function called per state or move allocates nothing and is
    compiled without it (`runtime.py`'s docstring)."""
    from checker.engines.native import end_components, runtime

    interpreter = engine.load_module(engine.vm_source())
    modules = {"interpreter": interpreter, "runtime": runtime, "end_components": end_components}
    counted = [f"{where}.{name}" for where, names in PER_STATE.items() for name in names if getattr(modules[where], name).targetoptions.get("_nrt", True)]
    counted += ["vm.run"] if vm.run.targetoptions.get("_nrt", True) else []
    assert counted == []
    assert interpreter.expand_space.targetoptions.get("_nrt", True), "a loop that allocates keeps the runtime"


def test_every_loop_lets_go_of_the_gil():
    """A whole check's Readings re-check runs in a thread of the main process beside the main
    thread's collecting of the matrix and submitting of the findings' growth re-checks; a loop
    holding the GIL for seconds kept those waiting and the workers idle. Every compiled function
    of the interpreter's module, the runtime and the end-component search is either called per
    state (`per_state`, inside a loop) or a loop releasing the GIL."""
    from checker.engines.native import end_components, runtime

    interpreter = engine.load_module(engine.vm_source())
    modules = {"interpreter": interpreter, "runtime": runtime, "end_components": end_components}
    compiled = {f"{where}.{name}": fn for where, module in modules.items() for name, fn in vars(module).items() if hasattr(fn, "targetoptions")}
    loops = [name for name, fn in compiled.items() if fn.targetoptions.get("_nrt", True)]
    assert {"interpreter.expand", "interpreter.check_space", "interpreter.expand_space", "interpreter.play_games", "runtime.won_nodes", "end_components.walk"} <= set(loops)
    assert [name for name in loops if not compiled[name].targetoptions.get("nogil")] == []
