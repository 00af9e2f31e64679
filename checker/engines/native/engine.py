"""The native explicit engine: the exploration loop and graph passes in compiled code.

It produces the same `Exploration` and `Finding`s as `checker.engines.explicit` (the reference),
state for state: the same breadth-first order, the same state numbers, parents, layers, edges
and counterexample paths. A model runs as data: its program (`vm_code.py`, assembled once per
model and constants) is executed by the bytecode interpreter (`vm.py`), whose module, with the
loops over states (`loops.py`), is the same for every model and is
compiled once per machine (numba caches its machine code beside it in the cache folder). Python
keeps loading, the per-property verdicts built from the compiled passes' results, and trace
replay (the runner replays every path in the interpreter as before).
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import sys
import time
from types import ModuleType
from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from checker.engines import explicit
from checker.engines.explicit import Budget, Finding, Progress
from checker.engines.graph import CSRGraph
from checker.engines.native import DECIDED_IN_LOOP, cache_dir, space_store
from checker.engines.native.compile_lock import compiling, shared_first
from checker.engines.native.layer_checks import LayerChecks
from checker.engines.native.source import WORD, NativeSource
from checker.lang.compile import CompiledModel
from checker.lang.model import Config, Model
from checker.lang.properties import BoundProperty
from checker.lang.property_kinds import KINDS
from checker.limits import WorkLimit

if TYPE_CHECKING:
    from checker.engines.native.vm_code import Bytecode

CHUNK = 1 << 16  # states expanded between two looks at the clock
STATUS_COMPLETE, STATUS_BUDGET, STATUS_FULL, STATUS_DECIDED, STATUS_LAYER = 1, 2, 4, 5, 6
INITIAL_CAPACITY = 1 << 26  # states reserved up front (address space only, until used); more grows the arrays
INITIAL_TABLE = 1 << 16  # slots of the visited table at first; it doubles to stay at most three quarters full
RUNTIME_ERRORS = (ZeroDivisionError, IndexError, ValueError)  # what the compiled helpers raise


def _runtime() -> ModuleType:
    """The compiled helpers, imported (with numba) only when something is explored natively."""
    from checker.engines.native import runtime

    return runtime


class NativeUnsupported(Exception):
    """The native back-end cannot compile this model configuration (the Python engine runs)."""


class NativeDeferred(Exception):
    """The exploration met a modelling error or a property that cannot be evaluated: the Python
    engine (the reference) re-runs the configuration and reports it, with its message and
    trace. Errors are rare and their reports need the interpreter's words, so the compiled code
    carries no error-handling paths of its own."""


def _fingerprint() -> str:
    from importlib.metadata import version

    here = os.path.dirname(__file__)
    digest = hashlib.sha256(version("numba").encode())
    for name in ("runtime.py", "vm.py", "loops.py"):
        with open(os.path.join(here, name), "rb") as fh:
            digest.update(fh.read())
    return digest.hexdigest()


_FINGERPRINT: str | None = None


def fingerprint() -> str:
    """The numba version and the runtime's code, once per process."""
    global _FINGERPRINT
    if _FINGERPRINT is None:
        _FINGERPRINT = _fingerprint()
    return _FINGERPRINT


def module_name(source: str) -> str:
    return f"rulecheck_native_{hashlib.sha256((fingerprint() + source).encode()).hexdigest()[:24]}"


_SUITES: dict[tuple, list[BoundProperty]] = {}  # (model file, model id) -> its whole suite, bound


def _signature(prop: BoundProperty) -> tuple:
    return (prop.id, prop.kind, tuple(sorted((name, str(text)) for name, (text, _) in prop.prop.texts.items())))


def generated_props(compiled: CompiledModel, props: list[BoundProperty]) -> list[BoundProperty]:
    """The properties a model's module is generated for: the model's whole property suite when
    the properties asked are among it, so that one module (one compilation) serves every subset
    (a check, `--only`, the growth re-check, the impact analysis): the properties not asked are
    switched off at run time (`explore`). Properties from elsewhere (a suite that is not the
    model's own, or edited since) get a module of their own."""
    from checker.errors import RulecheckError
    from checker.lang.properties import bind, load_suite, properties_for, suite_path

    model = compiled.model
    key = (model.path, model.id)
    if key not in _SUITES:
        try:
            _SUITES[key] = [bind(p, model) for p in properties_for(model, load_suite(suite_path(model.path)))]
        except RulecheckError:
            _SUITES[key] = []  # a suite that does not load or bind here: only the properties asked
    suite = _SUITES[key]
    known = {_signature(p) for p in suite}
    return suite if all(_signature(p) in known for p in props) else props


def source_key(compiled: CompiledModel, props: list[BoundProperty]) -> tuple:
    return _key(compiled.model, compiled.config, generated_props(compiled, props))


def _key(model: Model, config: Config, generated: list[BoundProperty]) -> tuple:
    """What a module or program depends on: the model, its constants and the generated properties."""
    return (model.path, model.id, repr(sorted(config.constants.items())), tuple(p.id for p in generated))


def load_module(source: str) -> ModuleType:
    """Import the bytecode interpreter's module (`vm_source`: the checker's code, the same for
    every model), writing it to the cache directory first if it is new, so that numba caches
    its machine code beside it."""
    name = module_name(source)
    if name in sys.modules:
        return sys.modules[name]
    folder = cache_dir()
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, f"{name}.py")
    if not os.path.exists(path):
        partial = f"{path}.{os.getpid()}.tmp"
        with open(partial, "w") as fh:
            fh.write(source)
        os.replace(partial, path)
    return import_module(name)


def import_module(name: str) -> ModuleType:
    """Import the module `name` from the cache directory (once per process)."""
    if name in sys.modules:
        return sys.modules[name]
    path = os.path.join(cache_dir(), f"{name}.py")
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def to_words(packed: int, words: int) -> list[int]:
    mask = (1 << WORD) - 1
    out = []
    for w in range(words):
        value = (packed >> (WORD * w)) & mask
        out.append(value - (1 << WORD) if value >> (WORD - 1) else value)
    return out


def from_words(row) -> int:
    mask = (1 << WORD) - 1
    packed = 0
    for w, value in enumerate(row):
        packed |= (int(value) & mask) << (WORD * w)
    return packed


class PackedStates:
    """The stored states seen as the Python engine's packed integers (read-only)."""

    def __init__(self, rows: np.ndarray) -> None:
        self.rows = rows

    def __len__(self) -> int:
        return self.rows.shape[0]

    def __getitem__(self, node: int) -> int:
        return from_words(self.rows[node])

    def __iter__(self):
        for node in range(len(self)):
            yield self[node]


class NativeGraph(CSRGraph):
    """The compiled loop's edge arrays behind the `CSRGraph` interface."""

    starts: np.ndarray  # type: ignore[assignment]  # numpy arrays where `CSRGraph` has array('i'), indexed alike
    edges: np.ndarray  # type: ignore[assignment]  # as `starts`

    def __init__(self, starts: np.ndarray, edges: np.ndarray) -> None:
        self.starts = starts
        self.edges = edges


class NativeExploration(explicit.Exploration):
    """An `Exploration` whose arrays live in numpy; `states` yields packed integers."""

    rows: np.ndarray
    term: np.ndarray
    states: PackedStates  # type: ignore[assignment]  # the packed integers of `rows`, read as `Exploration.states` is
    parent: np.ndarray  # type: ignore[assignment]  # a numpy array where `Exploration` has array('i'), indexed alike
    graph: NativeGraph | None
    module: ModuleType
    leads_props: list[BoundProperty]
    rd: tuple  # the program's inputs
    store_bytes: int  # what the visited store holds: the states, parents and hash table used (and the graph, when stored)

    def path_to(self, node: int) -> list[int]:
        return [int(n) for n in super().path_to(int(node))]


_EXACT: dict[tuple, str | None] = {}  # (model file, id, constants, properties) -> why 64 bits may not hold


def require_exact(compiled: CompiledModel, props: list[BoundProperty]) -> None:
    """Refuse (`NativeUnsupported`) a configuration whose integers may leave 64 bits: the compiled
    code would wrap where the language is exact (`lang/int_bounds`). Once per model, constants
    and properties in a process."""
    from checker.lang.int_bounds import first_wide

    model = compiled.model
    key = (model.path, model.id, repr(sorted(compiled.config.constants.items())), tuple(_signature(p) for p in props))
    if key not in _EXACT:
        exprs = [e for p in props for e in (p.expr, p.source, p.target, p.measure) if e is not None]
        wide = first_wide(model, compiled.config.constants, exprs)
        _EXACT[key] = None if wide is None else wide.describe()
    if _EXACT[key] is not None:
        raise NativeUnsupported(str(_EXACT[key]))


_PROGRAMS: dict[tuple, Bytecode] = {}  # source key -> the bytecode of that model and constants
_ORDERS: dict[tuple, list[int]] = {}  # (model file, id, constants, readings) -> `python_order`
_BLOCKS: dict[tuple, list[int]] = {}  # (model file, id, constants) -> `_program_blocks`


def vm_source() -> str:
    """The source of the bytecode interpreter's loops (`loops.py`), imported as a copy named by
    its digest (`load_module`)."""
    with open(os.path.join(os.path.dirname(__file__), "loops.py")) as fh:
        return fh.read()


def build_vm(compiled: CompiledModel, props: list[BoundProperty], checks: bool = True) -> tuple[NativeSource, ModuleType, tuple]:
    """The bytecode interpreter's module (one for every model, compiled once per machine), this
    configuration's generator (its instance numbers) and the program's inputs. The program is
    assembled once per model and constants in a process (readings are a run-time input), and
    once per machine for the model's own suite (`program_cache`).

    A loop that decides no property (the searches, the impact analysis's exploration, the
    simulation: `checks` False) runs the program of the moves, the end and the outcome alone;
    a loop that decides properties, that program with their predicates placed after it
    (`vm_code.Program`): the moves are assembled once for both (a cold check assembled both
    whole for a third of the larger games the re-checks explore, 9 CPU s)."""
    require_exact(compiled, generated_props(compiled, props) if checks else [])
    if not checks:
        return _built(compiled, NativeSource(compiled.model, compiled.config, compiled, []), _key(compiled.model, compiled.config, []))
    return _built(compiled, NativeSource(compiled.model, compiled.config, compiled, generated_props(compiled, props)), source_key(compiled, props))


def _built(compiled: CompiledModel, source: NativeSource, key: tuple) -> tuple[NativeSource, ModuleType, tuple]:
    """`build_vm` for the program of `source` (kept under `key`)."""
    from checker.engines.native import program_cache

    limit = compiled.limit
    if key not in _PROGRAMS:
        moves = _moves_program(compiled)  # the program itself when `source` has no properties
        if source.props and source.props is not _SUITES.get((compiled.model.path, compiled.model.id)):
            _PROGRAMS[key] = _assembled(source, limit, moves)  # properties from elsewhere: the disk cache's key does not cover them
        elif source.props:
            _PROGRAMS[key] = program_cache.bytecode(compiled.model, compiled.config, source.props, lambda: _assembled(source, limit, moves))
    if limit is not None:
        limit.count("the terms of an aggregate", _PROGRAMS[key].terms)  # a program assembled under a larger budget
    module = load_module(vm_source())
    ctx = _PROGRAMS[key].context(source.reading_values(compiled.config), python_order(source, compiled))
    shared_first(module.__name__, lambda: _compile_shared(module, ctx, source.words, max(len(source.instances), 1)))
    return source, module, ctx


def _compile_shared(module: ModuleType, ctx: tuple, words: int, instances: int) -> None:
    """The interpreter's `run` and the helpers around it that every loop of `module` calls,
    compiled (or loaded from numba's cache) for the argument types the loops pass them: a state
    row, the successor rows, the program's inputs (`tests/test_vm.py` checks each is compiled
    once in a cold process, so these are the loops' own types)."""
    from numba import typeof, types

    from checker.engines.native import vm

    row, out_i, out = typeof(np.empty(words, np.int64)), typeof(np.empty(instances, np.int64)), typeof(np.empty((instances, words), np.int64))
    inputs = typeof(ctx)
    at = types.int64
    vm.run.compile((typeof(ctx[0]), at, row, row, out_i, out, typeof(ctx[2]), typeof(ctx[1]), typeof(ctx[3]), typeof(ctx[4]), typeof(ctx[5]), typeof(ctx[9]), typeof(ctx[10]), at))
    module._value.compile((inputs, at, row, row))
    module.moves.compile((row, out_i, out, inputs))
    module.successors.compile((row, out_i, out, inputs))
    module.terminal.compile((row, inputs))


def _moves_program(compiled: CompiledModel) -> Bytecode:
    """The program of a model and constants without properties, from this process, the disk
    cache or assembled."""
    from checker.engines.native import program_cache

    key = _key(compiled.model, compiled.config, [])
    if key not in _PROGRAMS:
        source = NativeSource(compiled.model, compiled.config, compiled, [])
        _PROGRAMS[key] = program_cache.bytecode(compiled.model, compiled.config, [], lambda: _assembled(source, compiled.limit))
    return _PROGRAMS[key]


class VmLoop(NamedTuple):
    """What every loop of `loops.py` starts from: the program's generator, module and
    inputs, the instance count (the most successors a state has), the initial rows, the state
    rows (room for the budget, its last state's successors and the initial states) and the
    visited table."""

    source: NativeSource
    module: ModuleType
    ctx: tuple
    instances: int
    initial: np.ndarray
    states: np.ndarray
    table: np.ndarray


def vm_loop(compiled: CompiledModel, max_states: int) -> VmLoop:
    source, module, ctx = build_vm(compiled, [], checks=False)
    ni = max(len(source.instances), 1)
    initial = initial_rows(compiled, source.words)
    capacity = min(max_states + ni + len(initial) + 1, INITIAL_CAPACITY)
    table = fitted_table(np.full(INITIAL_TABLE, -1, np.int64), len(initial) + ni)
    return VmLoop(source, module, ctx, ni, initial, np.empty((capacity, source.words), np.int64), table)


def python_order(source: NativeSource, compiled: CompiledModel) -> list[int]:
    """Each program instance's place in the order the Python engine tests this configuration's
    instances (`CompiledModel.block_order`), or nothing when the program tests them in that
    order already. The program holds every reading's instances and reads readings at run time,
    so a dispatch on a field may take in instances another reading adds (and fold less), and
    put them, and so their moves, in another order. Once per configuration in a process: the
    analyses build the same configuration's interpreter many times."""
    config = compiled.config
    key = (compiled.model.path, compiled.model.id, repr(sorted(config.constants.items())), repr(sorted(config.readings.items())))
    if key not in _ORDERS:
        _ORDERS[key] = _python_order(source, compiled)
    return _ORDERS[key]


def _python_order(source: NativeSource, compiled: CompiledModel) -> list[int]:
    program = [source.python_ids[i] for i in _program_blocks(source)]
    python = [inst.id for inst in compiled.block_order()]
    if [i for i in program if i >= 0] == python:
        return []
    place = {python_id: n for n, python_id in enumerate(python)}
    return [place.get(python_id, len(python)) for python_id in source.python_ids] or [0]


def _program_blocks(source: NativeSource) -> list[int]:
    """The program's instances in the order it tests them: the same for every reading
    combination of a model and constants (the program reads readings at run time), so worked
    out once for them (half of `python_order`'s cost)."""
    key = (source.model.path, source.model.id, repr(sorted(source.config.constants.items())))
    if key not in _BLOCKS:
        _BLOCKS[key] = [inst.id for inst in source.block_order(source.emitter())]
    return _BLOCKS[key]


def _assembled(source: NativeSource, limit: WorkLimit | None, moves: Bytecode | None = None) -> Bytecode:
    """The program of the moves, or (given it) `source`'s predicates after it, assembled within
    the budget's bound on unrolled aggregate terms and its deadline (`OutOfBudget` past them,
    as the Python emitter raises), or made already for constants it does not read
    (`program_reuse`)."""
    from checker.engines.native import program_reuse
    from checker.engines.native.vm_code import Program

    try:
        return program_reuse.assembled_once(source, moves, lambda read: Program(read, limit, moves).bytecode(), tuple(_signature(p) for p in source.props))
    except (KeyError, AttributeError, NotImplementedError) as exc:
        raise NativeUnsupported(f"cannot assemble bytecode ({type(exc).__name__}: {exc})") from exc


def in_range(compiled: CompiledModel, packed: int) -> bool:
    """Whether every integer field of a packed state is inside its slot's range. The compiled
    successors leave out the writes that put a field's own value back (`NativeSource._unchanged`)
    and with them the range check the Python engine makes there; every write is checked, so
    that check can only fail on an initial value out of range (a constant set so), and such a
    model is explored by the Python engine."""
    if packed < 0:
        return False
    for field in compiled.layout.fields:
        if field.members is None and not field.is_bool:
            elem = compiled.model.slots[field.slot].elem
            assert elem.hi is not None  # an int field: a slot's int type always has its range (build.elem_type)
            if ((packed >> field.offset) & field.mask) + field.lo > elem.hi:
                return False
    return True


def explore(compiled: CompiledModel, props: list[BoundProperty], budget: Budget, on_progress=None, need_graph: bool = True) -> tuple[NativeExploration, dict[str, Finding]]:
    """`explicit.explore`, in the bytecode interpreter (`vm.py`): the same exploration and the
    same findings."""
    from numba.core.errors import NumbaError

    source, module, rd = build_vm(compiled, props)
    started = time.perf_counter()
    if need_graph and not budget.stop_when_decided:
        stored = space_store.take(compiled, budget.max_states)
        exp_found = _over_stored(compiled, props, source, module, rd, stored, started) if stored is not None else None
        if exp_found is not None:
            return exp_found
    words = source.words
    ni = max(len(source.instances), 1)
    initial = initial_rows(compiled, words)
    capacity = min(budget.max_states + ni + len(initial) + 1, INITIAL_CAPACITY)
    states = np.empty((capacity, words), np.int64)  # untouched pages cost no memory
    parent = np.empty(capacity, np.int32)
    term = np.empty(capacity if need_graph else 1, np.uint8)
    starts = np.empty(capacity + 1 if need_graph else 1, np.int64)
    starts[0] = 0
    edges = np.empty(1 << 16 if need_graph else 1, np.int32)
    layer_ends = np.empty(1 << 10, np.int64)
    table = fitted_table(np.full(INITIAL_TABLE, -1, np.int64), len(initial) + ni)
    fired, forced, status, where, where2, inst_at, meta = _loop_arrays(source, props)
    meta[13] = 1 if need_graph else 0
    meta[14] = budget.max_states
    meta[15] = 1 if budget.stop_when_decided and all(p.kind in DECIDED_IN_LOOP for p in props) else 0
    layers = LayerChecks(compiled, source, props, need_graph) if budget.stop_when_decided else None
    meta[16] = 1 if layers is not None and layers.open() else 0
    try:
        with compiling(module.__name__, "explore"):  # the first calls compile (or load numba's cache)
            module.seed(meta, states, parent, table, initial, status, where, rd)
            layer_ends[0] = meta[0]
            meta[3] = 1
            module.expand(meta, states, parent, table, layer_ends, starts, edges, term, fired, forced, status, where, where2, inst_at, rd, 0)
            if source.leads:
                module.leads_masks(0, states[:0], np.zeros(0, np.uint8), np.zeros(0, np.uint8), rd)
    except NumbaError as exc:
        raise NativeUnsupported(f"numba cannot compile this model ({str(exc).splitlines()[0]})") from exc
    except RUNTIME_ERRORS as exc:
        raise NativeDeferred(str(exc)) from exc
    deadline = started + budget.timeout
    last_report = started
    stopped_by = ""
    code = 0
    while True:
        try:
            code = module.expand(meta, states, parent, table, layer_ends, starts, edges, term, fired, forced, status, where, where2, inst_at, rd, CHUNK)
        except RUNTIME_ERRORS as exc:
            raise NativeDeferred(str(exc)) from exc
        if code == STATUS_FULL:
            n = int(meta[0])
            if n + ni > states.shape[0]:
                states = _grown(states, n)
                parent = _grown(parent, n)
                if need_graph:
                    term = _grown(term, n)
                    starts = _grown(starts, int(meta[1]) + 1)
            table = fitted_table(table, n + ni)
            if meta[3] + 2 > layer_ends.shape[0]:
                layer_ends = _grown(layer_ends, int(meta[3]))
            if need_graph and meta[2] + ni > edges.shape[0]:
                edges = _grown(edges, int(meta[2]), int(meta[2]) + ni)
            continue
        if code == STATUS_LAYER:
            assert layers is not None
            n, i = int(meta[0]), int(meta[1])
            layers.at_layer(n, i, fired, (starts, edges, term), layer_ends[: int(meta[3])], parent)
            if not layers.open():
                meta[16] = 0
                meta[15] = 1 if layers.rest_in_loop else 0  # the loop stops once its own properties are decided too
                if layers.rest_in_loop and meta[11] == 0 and meta[12] == 0 and (status != 0).all():
                    code = STATUS_DECIDED  # as the Python engine: every property decided at this layer's end
                    break
            code = 0
        elif code != 0:
            break
        now = time.perf_counter()
        if now > deadline:
            stopped_by = f"timeout after {budget.timeout:g} s"
            break
        if on_progress is not None and now - last_report > 0.5:
            last_report = now
            n, i = int(meta[0]), int(meta[1])
            on_progress(Progress(n, int(meta[4]), int(meta[3]) - 1, n - i, now - started))
    n = int(meta[0])
    exp = NativeExploration(compiled)
    exp.module = module
    exp.leads_props = source.leads
    exp.rd = rd
    exp.rows = states[:n]
    exp.states = PackedStates(exp.rows)
    exp.parent = parent[:n]
    exp.layer_ends = [int(x) for x in layer_ends[: int(meta[3])]]
    exp.transitions = int(meta[4])
    exp.fired = bytearray(len(compiled.instances))
    for native_id, python_id in enumerate(source.python_ids):
        if fired[native_id] and python_id >= 0:
            exp.fired[python_id] = 1
    exp.complete = code == STATUS_COMPLETE
    if code == STATUS_BUDGET:
        stopped_by = f"state budget of {budget.max_states:,} reached"
    elif code == STATUS_DECIDED:
        stopped_by = "every property decided"
    exp.stopped_by = stopped_by
    if need_graph:
        processed = int(meta[1])
        exp.graph = NativeGraph(starts[: processed + 1], edges[: int(meta[2])])
        exp.term = term[:n]
    found: dict[str, Finding] = {}
    if layers is not None:
        if not exp.complete and any(p.id not in layers.found for p in layers.cycles):
            layers.look_for_cycle(n, int(meta[1]), (starts, edges, term), layer_ends[: int(meta[3])], parent)  # where the run stops
        found.update(layers.found)
    _collect(exp, source, props, meta, status, where, where2, inst_at, found)
    exp.store_bytes = exp.rows.nbytes + exp.parent.nbytes + table.nbytes + (exp.graph.starts.nbytes + exp.graph.edges.nbytes + exp.term.nbytes if need_graph else 0)  # type: ignore[union-attr]  # `need_graph`: the graph is set above
    exp.seconds = time.perf_counter() - started
    return exp, found


def _loop_arrays(source: NativeSource, props: list[BoundProperty]) -> tuple[np.ndarray, ...]:
    """What the loop decides into: the instances that fired, which are forced, each property's
    status (2: generated for the suite but not asked, never checked) and where it was decided,
    and `meta` with its flags for deadlock and determinism."""
    ni = max(len(source.instances), 1)
    nprops = max(len(source.state_props) + len(source.after_props), 1)
    fired = np.zeros(ni, np.uint8)
    forced = np.array([1 if inst.forced else 0 for inst in source.instances] or [0], np.uint8)
    status = np.zeros(nprops, np.int8)
    asked = {p.id for p in props}
    for k, prop in enumerate([sp.prop for sp in source.state_props] + source.after_props):
        if prop.id not in asked:
            status[k] = 2
    if not source.state_props and not source.after_props:
        status[0] = 2  # the placeholder of an empty status array is never open
    meta = np.zeros(17, np.int64)
    meta[7] = meta[8] = -1
    meta[11] = 1 if any(p.kind == "deterministic" for p in props) else 0
    meta[12] = 1 if any(p.kind == "deadlock-free" for p in props) else 0
    return fired, forced, status, np.full(nprops, -1, np.int64), np.full(nprops, -1, np.int64), np.full(nprops, -1, np.int64), meta


def _over_stored(compiled: CompiledModel, props: list[BoundProperty], source: NativeSource, module: ModuleType, ctx: tuple, stored: space_store.StoredSpace,
                 started: float) -> tuple[NativeExploration, dict[str, Finding]] | None:
    """`explore`'s exploration and findings from a whole space the impact analysis explored in
    this run (`space_store`): the properties evaluated over its states and moves by
    `check_space`, nothing explored. None when a move's instance is not one of this program's
    (then the loop explores)."""
    native_of = np.full(len(compiled.instances) + 1, -1, np.int64)
    for native_id, python_id in enumerate(source.python_ids):
        if python_id >= 0:
            native_of[python_id] = native_id
    native = native_of[stored.instances] if stored.instances.size else np.zeros(0, np.int64)
    if stored.instances.size and (stored.instances.min() < 0 or native.min() < 0):
        return None
    fired, forced, status, where, where2, inst_at, meta = _loop_arrays(source, props)
    n = stored.rows.shape[0]
    starts = stored.starts.astype(np.int64)
    layers = np.empty(n + 1, np.int64)
    try:
        with compiling(module.__name__, "check_space"):
            layer_count = module.check_space(meta, stored.rows, stored.parent, starts, stored.targets, native, stored.term, fired, forced, status, where, where2, inst_at, layers, ctx)
    except RUNTIME_ERRORS as exc:
        raise NativeDeferred(str(exc)) from exc
    exp = NativeExploration(compiled)
    exp.module, exp.leads_props, exp.rd = module, source.leads, ctx
    exp.rows = stored.rows
    exp.states = PackedStates(exp.rows)
    exp.parent = stored.parent
    exp.layer_ends = [int(x) for x in layers[:layer_count]]
    exp.transitions = int(meta[4])
    exp.fired = bytearray(len(compiled.instances))
    for native_id, python_id in enumerate(source.python_ids):
        if fired[native_id] and python_id >= 0:
            exp.fired[python_id] = 1
    exp.complete = True
    exp.graph = NativeGraph(starts, stored.targets)
    exp.term = stored.term
    found: dict[str, Finding] = {}
    _collect(exp, source, props, meta, status, where, where2, inst_at, found)
    exp.store_bytes = exp.rows.nbytes + exp.parent.nbytes + starts.nbytes + stored.targets.nbytes + exp.term.nbytes
    exp.seconds = time.perf_counter() - started
    return exp, found


def initial_rows(compiled: CompiledModel, words: int) -> np.ndarray:
    """The initial states as rows of words; a value outside its slot's range is left to the
    Python engine (`in_range`)."""
    if not all(in_range(compiled, s) for s in compiled.initial):
        raise NativeDeferred("an initial state holds a value outside its slot's range")
    return np.array([to_words(s, words) for s in compiled.initial], dtype=np.int64).reshape(-1, words)


def fitted_table(table: np.ndarray, entries: int) -> np.ndarray:
    """`table`, or a doubled one holding its entries, so that `entries` keep it at most three
    quarters full."""
    if entries * 4 <= table.shape[0] * 3:
        return table
    size = table.shape[0] * 2
    while entries * 4 > size * 3:
        size *= 2
    grown = np.full(size, -1, np.int64)
    _runtime().grow_table(table, grown)
    return grown


def _grown(array: np.ndarray, used: int, at_least: int = 0) -> np.ndarray:
    size = max(array.shape[0] * 2, at_least)
    out = np.empty((size,) + array.shape[1:], array.dtype)
    out[:used] = array[:used]
    return out


def _collect(exp: NativeExploration, source: NativeSource, props: list[BoundProperty], meta, status, where, where2, inst_at, found: dict[str, Finding]) -> None:
    """Findings from the compiled loop's status arrays (only the properties asked can be set),
    worded as the Python engine words them."""
    ids = source.python_ids
    for sp in source.state_props:
        k, prop = sp.slot, sp.prop
        if status[k] == 1:
            found[prop.id] = Finding("holds" if prop.kind == "reachable" else "fails", exp.path_to(int(where[k])), note=KINDS[prop.kind].violation.format(expr=prop.prop.texts["expr"][0]))
    base = len(source.state_props)
    for j, prop in enumerate(source.after_props):
        k = base + j
        if status[k] == 1:
            path = exp.path_to(int(where[k])) + [int(where2[k])]
            found[prop.id] = Finding("fails", path, last_instance=ids[int(inst_at[k])], note=f"After `{prop.action}`, the property no longer holds.")
    if meta[7] >= 0:
        for prop in (p for p in props if p.kind == "deadlock-free"):
            found[prop.id] = Finding("fails", exp.path_to(int(meta[7])), shape="deadlock", note="No rule applies and the game is not over: the game is stuck.")
    if meta[8] >= 0:
        for prop in (p for p in props if p.kind == "deterministic"):
            found[prop.id] = Finding("fails", exp.path_to(int(meta[8])), shape="branch", branch_instances=(ids[int(meta[9])], ids[int(meta[10])]), note="Two forced rules apply at once and prescribe different outcomes.")


# -- graph properties ------------------------------------------------------------------------------
def _graph_arrays(exp: NativeExploration) -> tuple[np.ndarray, np.ndarray]:
    graph = exp.graph
    assert graph is not None
    return graph.starts, graph.edges


def terminates(exp: NativeExploration, prop: BoundProperty) -> Finding:
    """`explicit.terminates` with the component search and longest paths compiled."""
    from checker.engines.native import passes

    starts, edges = _graph_arrays(exp)
    return passes.terminates(starts, edges, exp.term, exp.layer_ends, exp.path_to, prop.prop.within)


def leads_to(exp: NativeExploration, prop: BoundProperty) -> Finding:
    """`explicit.leads_to` with the predicate sweep, components and searches compiled."""
    from checker.engines.native import passes

    starts, edges = _graph_arrays(exp)
    n = len(exp.states)
    k = [p.id for p in exp.leads_props].index(prop.id)
    source = np.zeros(n, np.uint8)
    target = np.zeros(n, np.uint8)
    try:
        exp.module.leads_masks(k, exp.rows, source, target, exp.rd)
    except RUNTIME_ERRORS:
        return explicit.leads_to(exp, prop)  # an expression that cannot be evaluated: the reference reports where
    return passes.leads_to(starts, edges, source, target, exp.term, exp.path_to)


def can_end(exp: NativeExploration, _prop: BoundProperty) -> Finding:
    """`explicit.can_end` with the backward search compiled."""
    from checker.engines.native import passes

    starts, edges = _graph_arrays(exp)
    return passes.can_end(starts, edges, exp.term, exp.path_to)


GRAPH_CHECKS = {"terminates": terminates, "leads-to": leads_to, "can-end": can_end}


def decide(exp: NativeExploration, props: list[BoundProperty], found: dict[str, Finding]) -> dict[str, Finding]:
    return explicit.decide(exp, props, found, GRAPH_CHECKS)
