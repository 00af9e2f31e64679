"""The native back-end's place in a check: what it leaves to the Python engine, what it builds.

A configuration where the model raises a modelling error (a division by zero, an initial value
outside its range) is handed to the Python engine, which reports it; the runner's back-ends
give the same results and traces word for word; `--backend native` and `auto` build no Python
successor code and compile nothing per model; each group of kernels takes its own compile lock.
That the bytecode interpreter explores and decides as the Python engine does, state for state,
is the conformance suite's (`tests/conformance`, the `native` and `native-stopping` pairs).
"""

from __future__ import annotations

import glob
import os
import tempfile

import pytest

pytest.importorskip("numba")

from checker.engines import explicit  # noqa: E402
from checker.engines.backend import explore_and_decide  # noqa: E402
from checker.engines.explicit import Budget  # noqa: E402
from checker.engines.native import engine  # noqa: E402
from checker.lang.build import load_model  # noqa: E402
from checker.lang.compile import CompiledModel  # noqa: E402
from tests.conformance.backends import finding_key  # noqa: E402
from tests.conformance.generated import HERE  # noqa: E402
from tests.symbolic_support import bound_props, write_game  # noqa: E402

ROWS = """\
game: Rows
id: rows
players: [a, b]
domains:
  card: {range: [0, 3]}
  lvl: {range: [0, 1]}
  suit: [red, blue]
constants:
  start: {type: int, range: [0, 3], default: 2}
  suit_of: {type: suit, of: card, value: {0: red, 1: blue, 2: red, 3: blue}}
  bonus: {type: int, of: lvl, value: {0: 0, 1: 3}}
define:
  worth(p, c): hand[p][c] * (c + 1) + bonus[lv[p]]
  beats(x, y): x > y + 1
readings:
  boost:
    clause: rows-2
    question: Does raising a level cost the turn?
    options: {free: no, costly: yes}
    default: free
state:
  deck: {type: "int[0..3]", of: card}
  hand: {type: "int[0..3]", of: [player, card]}
  lv: {type: lvl, of: player}
  turn: player
init:
  deck: start
  hand: 0
  lv: 0
  turn: a
terminal: sum(deck[c] for c in card) == 0
actions:
  draw:
    by: turn
    for: {k: card}
    when: deck[k] > 0
    do:
      "deck[c] for c in card": deck[c] - (1 if c == k else 0)
      "hand[turn][c] for c in card": hand[turn][c] + (1 if c == k else 0)
      turn: succ(turn)
    rule: rows-1
  raise:
    by: turn
    when: lv[turn] == 0 and hand[turn][0] > 0
    do:
      lv[turn]: 1
      "hand[turn][c] for c in card": hand[turn][c] - (1 if c == 0 else 0)
      turn: "succ(turn) if reading.boost == costly else turn"
    rule: rows-2
clauses:
  rows-1: {at: "1", says: "Draw a card of the kind you name."}
  rows-2: {at: "2", says: "Discard a 0 to raise your level."}
"""
ROWS_PROPS = """\
- {id: no-mutual-beat, kind: invariant, expr: "not any(beats(worth(p, j), worth(q, k)) and beats(worth(q, k), worth(p, j)) for p in player for q in player for j in card for k in card)"}
- {id: worth-bounded, kind: invariant, expr: "all(worth(p, j) + worth(p, k) < 20 for p in player for j in card for k in card)"}
- {id: big-lead, kind: reachable, expr: "any(beats(worth(a, j), worth(b, k)) for j in card for k in card)"}
- {id: draw-moves-one, kind: after, action: draw, expr: "sum(hand[p][c] for p in player for c in card) == old(sum(hand[p][c] for p in player for c in card)) + 1"}
- {id: ends, kind: terminates}
"""


def test_initial_value_out_of_range_is_left_to_the_reference():
    """An initial value outside its slot's range (a constant set so): the compiled successors
    leave out writes that put a field's own value back, with their range check, so the native
    engine defers and the Python engine (which reports the write) runs."""
    text = ROWS.replace("default: 2", "default: 3").replace('deck: {type: "int[0..3]"', 'deck: {type: "int[0..2]"')  # 3 fits the field's two bits
    with tempfile.TemporaryDirectory() as root:
        model, props = bound_props(write_game(root, "rows", text, ROWS_PROPS))
        compiled = CompiledModel(model, model.default_config())
        with pytest.raises(engine.NativeDeferred):
            engine.explore(compiled, props, Budget())
        exp, _ = explore_and_decide(compiled, props, Budget(), None, True, "native")
        assert exp.error is not None and "outside its range" in exp.error[1]


def test_modelling_error_is_left_to_the_reference():
    """A division by zero: the native engine defers and the Python engine reports it."""
    text = """\
game: Div
id: div
players: [a, b]
state:
  x: "int[0..3]"
init: {x: 0}
terminal: "x == 3"
actions:
  up:
    by: rules
    when: "x < 3"
    do: {x: "x + 1 if x < 2 else 4 // (x - 2)"}
    rule: r-1
"""
    with tempfile.TemporaryDirectory() as root:
        path = write_game(root, "div", text, "- {id: inv, kind: invariant, expr: 'x >= 0'}")
        model, props = bound_props(path)
        compiled = CompiledModel(model, model.default_config())
        with pytest.raises(engine.NativeDeferred):
            engine.explore(compiled, props, Budget())
        exp, findings = explore_and_decide(compiled, props, Budget(), None, False, "auto")
        assert exp.error is not None and "division by zero" in exp.error[1]
        assert findings["inv"].status == "error"


def test_runner_backends_give_the_same_results_and_traces():
    """Through the runner (every reading deviation, traces replayed in the interpreter): the
    native and the Python back-end report the same results, word for word."""
    from checker.pipeline.runner import CheckOptions, check_paths
    from checker.report.json_report import results_json

    duel = os.path.join(HERE, "tests", "models", "duel")
    outputs = {}
    for backend in ("python", "native"):
        results = check_paths([duel], CheckOptions(backend=backend))
        for result in results:
            result.seconds = 0.0
        outputs[backend] = results_json(results)
    assert outputs["python"] == outputs["native"]
    assert any(r["verdict"] == "fails" and r["trace"] for r in outputs["native"]["results"])


def test_native_check_builds_no_python_successor_code_unless_needed(monkeypatch):
    """`--backend native` leaves the Python successor code unbuilt (it cost most of a cold
    compiled check), a trace still replays, and a fallback to the Python engine builds it."""
    from checker.engines.backend import ExplicitEngine
    from checker.lang import compile as compile_module
    from checker.pipeline.runner import CheckOptions

    builds: list[str] = []
    original = compile_module.CompiledModel._build

    def counting(self):
        if self._functions is None:
            builds.append(self.model.id)
        return original(self)

    monkeypatch.setattr(compile_module.CompiledModel, "_build", counting)
    model, props = bound_props(os.path.join(HERE, "benchmarks", "models", "war", "war6.yaml"))
    config = model.default_config()
    verdicts = ExplicitEngine().decide(model, config, props, CheckOptions(backend="native"))
    assert builds == []
    python = ExplicitEngine().decide(model, config, props, CheckOptions(backend="python"))
    assert builds == [model.id]
    assert {k: (v.status, v.evidence, v.note) for k, v in verdicts.items()} == {k: (v.status, v.evidence, v.note) for k, v in python.items()}
    compiled = CompiledModel(model, config, lazy=True)
    assert not compiled.built
    exp, _ = explicit.explore(compiled, props, Budget())  # the fallback: the Python engine
    assert compiled.built and exp.complete


@pytest.mark.slow
def test_auto_interprets_every_model_and_never_compiles_one(tmp_path, monkeypatch):
    """`auto` explores a model in the bytecode interpreter from the start, however small, with
    the Python engine's results; it compiles nothing for the model (the only module it writes
    is the interpreter's own) and generates no Python successor code."""
    import sys

    monkeypatch.setenv("RULECHECK_CACHE", str(tmp_path))
    for name in [n for n in sys.modules if n.startswith("rulecheck_native_")]:
        monkeypatch.delitem(sys.modules, name)
    model, props = bound_props(os.path.join(HERE, "tests", "models", "duel", "duel.yaml"))
    py_exp, py_found = explicit.explore(CompiledModel(model, model.default_config()), props, Budget(), need_graph=True)
    reference = {k: finding_key(f) for k, f in explicit.decide(py_exp, props, py_found).items()}
    compiled = CompiledModel(model, model.default_config(), lazy=True)
    for _ in range(2):
        exp, found = explore_and_decide(compiled, props, Budget(), None, True, "auto")
        assert isinstance(exp, engine.NativeExploration) and exp.complete
        assert {k: finding_key(f) for k, f in found.items()} == reference
    assert not compiled.built
    written = glob.glob(os.path.join(tmp_path, "native", "*.py"))
    assert [os.path.basename(p) for p in written] == [f"{engine.module_name(engine.vm_source())}.py"]  # the interpreter's module only


def test_each_group_of_kernels_takes_its_own_compile_lock(tmp_path, monkeypatch):
    """The interpreter's module holds every analysis's loop, each compiled on its first call: a
    process that compiled one loop still takes the lock for the next (else it compiled that
    one beside another process compiling it too); a group compiled once takes no lock again.
    A process's first group of a module also takes the module's lock, before the group's: the
    callees every loop shares (`run`, the moves) are compiled by one process."""
    import fcntl

    from checker.engines.native import compile_lock

    monkeypatch.setenv("RULECHECK_CACHE", str(tmp_path))
    monkeypatch.setattr(compile_lock, "_WARM", set())
    monkeypatch.setattr(compile_lock, "_STARTED", set())
    locked: list[str] = []
    monkeypatch.setattr(fcntl, "flock", lambda handle, operation: locked.append(os.path.basename(handle.name)))
    for kernels in ("space", "ends", "space", "ends", "divergence"):
        with engine.compiling("rulecheck_vm", kernels):
            pass
    with engine.compiling("rulecheck_other", "space"):
        pass
    assert locked == ["rulecheck_vm.first.lock", "rulecheck_vm.space.lock", "rulecheck_vm.ends.lock", "rulecheck_vm.divergence.lock",
                      "rulecheck_other.first.lock", "rulecheck_other.space.lock"]


def test_the_interpreters_shared_callees_are_compiled_alone_under_the_modules_lock(tmp_path, monkeypatch):
    """The interpreter's module compiles `run` and the helpers every loop shares alone under the
    module's lock (once per process, for the types the loops pass: `test_vm` checks each is
    compiled once), so another process waits for those, not for a whole first group: the
    groups then take their own locks only."""
    import fcntl

    from checker.engines.native import compile_lock

    monkeypatch.setenv("RULECHECK_CACHE", str(tmp_path))
    monkeypatch.setattr(compile_lock, "_WARM", set())
    monkeypatch.setattr(compile_lock, "_STARTED", set())
    locked: list[str] = []
    monkeypatch.setattr(fcntl, "flock", lambda handle, operation: locked.append(os.path.basename(handle.name)))
    shared: list[str] = []
    compile_lock.shared_first("rulecheck_vm", lambda: shared.append("compiled") or locked.append("(compiling)"))
    compile_lock.shared_first("rulecheck_vm", lambda: shared.append("again"))
    for kernels in ("space", "ends"):
        with engine.compiling("rulecheck_vm", kernels):
            pass
    assert shared == ["compiled"]
    assert locked == ["rulecheck_vm.first.lock", "(compiling)", "rulecheck_vm.space.lock", "rulecheck_vm.ends.lock"]
    model = load_model(os.path.join(HERE, "models", "titlebelt", "two-player.yaml"))
    _, module, _ = engine.build_vm(CompiledModel(model, model.default_config(), lazy=True), [], checks=False)
    assert module.__name__ in compile_lock._STARTED
    assert f"{module.__name__}.first.lock" in locked
