"""The compiled expressions and the reference interpreter always agree.

Hypothesis writes random well-typed expressions (as source text, so the parser and type checker
are exercised too) over a model with every kind of slot, and random states; the compiled
function and the interpreter must return the same value, or both raise a modelling error
(division by zero, an index outside an integer domain, min of nothing).
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, assume, event, given, settings, target
from hypothesis import strategies as st

from checker.errors import Loc, ModellingError, RulecheckError
from checker.lang.build import load_model
from checker.lang.compile import CompiledModel
from checker.lang.interp import Interpreter
from checker.lang.typecheck import check_expr
from checker.lang.types import BOOL, INT, enum
from tests.conftest import write
from tests.large_models import large_models

EXAMPLES = int(os.environ.get("RULECHECK_AGREEMENT_EXAMPLES", "3000"))
LARGE_CLAUSES = "clauses:\n  r-1: {at: '1', says: 'a rule'}\n"

MODEL = """\
game: Agreement
id: agree
players: [ann, bob, cat]
domains:
  kind: [low, mid, high]
  pos: {range: [0, 3]}
constants:
  c: {type: int, range: [0, 5], default: 2}
  flag: {type: bool, default: true}
  tbl: {type: int, of: kind, value: {low: -1, mid: 0, high: 3}}
  far: {type: int, of: pos, value: {0: 5, 1: 0, 2: -2, 3: 1}}
readings:
  r:
    clause: x-1
    question: Which?
    options: {one: first, two: second}
    default: one
state:
  n: "int[-3..3]"
  m: "int[0..7]"
  b: bool
  t: player
  arr: {type: "int[0..5]", of: kind}
  grid: {type: "int[-2..2]", of: [player, pos]}
  who: {type: player, of: kind}
  flags: {type: bool, of: pos}
init:
  n: 0
  m: 0
  b: false
  t: ann
  arr: 0
  grid: 0
  who: ann
  flags: false
terminal: b
actions:
  tick:
    by: rules
    do: {b: true}
    rule: x-1
clauses:
  x-1: {at: "1", says: "Tick."}
"""

KINDS = ["low", "mid", "high"]
PLAYERS = ["ann", "bob", "cat"]


def ints(depth: int, kvars: tuple[str, ...], pvars: tuple[str, ...], ivars: tuple[str, ...]) -> st.SearchStrategy[str]:
    leaves = [st.integers(-4, 6).map(str), st.sampled_from(["n", "m", "c"])]
    leaves.append(kinds(0, kvars, pvars, ivars).map(lambda k: f"arr[{k}]"))
    leaves.append(kinds(0, kvars, pvars, ivars).map(lambda k: f"tbl[{k}]"))
    if ivars:
        leaves.append(st.sampled_from(ivars))
    if depth <= 0:
        return st.one_of(*leaves)
    sub = ints(depth - 1, kvars, pvars, ivars)
    sub_b = bools(depth - 1, kvars, pvars, ivars)
    sub_k = kinds(depth - 1, kvars, pvars, ivars)
    sub_p = players(depth - 1, kvars, pvars, ivars)
    iv = f"i{depth}"
    kv = f"k{depth}"
    inner_i = ints(depth - 1, kvars, pvars, (*ivars, iv))
    inner_k = ints(depth - 1, (*kvars, kv), pvars, ivars)
    inner_kb = bools(depth - 1, (*kvars, kv), pvars, ivars)
    return st.one_of(
        *leaves,
        st.tuples(sub, st.sampled_from(["+", "-", "*", "//", "%"]), sub).map(lambda t: f"({t[0]} {t[1]} {t[2]})"),
        sub.map(lambda a: f"(-{a})"),
        sub.map(lambda a: f"abs({a})"),
        st.tuples(sub, sub).map(lambda t: f"min({t[0]}, {t[1]})"),
        st.tuples(sub, sub, sub).map(lambda t: f"max({t[0]}, {t[1]}, {t[2]})"),
        st.tuples(sub, sub_b, sub).map(lambda t: f"({t[0]} if {t[1]} else {t[2]})"),
        st.tuples(sub_p, sub).map(lambda t: f"grid[{t[0]}][{t[1]}]"),
        sub.map(lambda a: f"far[{a}]"),
        inner_k.map(lambda body: f"sum({body} for {kv} in kind)"),
        st.tuples(inner_i, bools(depth - 1, kvars, pvars, (*ivars, iv))).map(lambda t: f"sum({t[0]} for {iv} in pos if {t[1]})"),
        inner_kb.map(lambda body: f"count({body} for {kv} in kind)"),
        st.tuples(st.sampled_from(["min", "max"]), inner_k, inner_kb).map(lambda t: f"{t[0]}({t[1]} for {kv} in kind if {t[2]})"),
        st.tuples(sub_k, sub_k, sub).map(lambda t: f"({t[2]} if {t[0]} == {t[1]} else 0)"),
    )


def bools(depth: int, kvars: tuple[str, ...], pvars: tuple[str, ...], ivars: tuple[str, ...]) -> st.SearchStrategy[str]:
    leaves = [st.sampled_from(["b", "flag", "true", "False", "(reading.r == one)", "(reading.r != two)"])]
    if depth <= 0:
        return st.one_of(*leaves)
    sub = bools(depth - 1, kvars, pvars, ivars)
    sub_i = ints(depth - 1, kvars, pvars, ivars)
    sub_p = players(depth - 1, kvars, pvars, ivars)
    kv = f"k{depth}"
    return st.one_of(
        *leaves,
        sub_i.map(lambda a: f"flags[{a}]"),
        st.tuples(sub_i, st.sampled_from(["==", "!=", "<", "<=", ">", ">="]), sub_i).map(lambda t: f"({t[0]} {t[1]} {t[2]})"),
        st.tuples(sub_i, sub_i, sub_i).map(lambda t: f"({t[0]} <= {t[1]} < {t[2]})"),
        st.tuples(sub_p, sub_p).map(lambda t: f"({t[0]} == {t[1]})"),
        st.tuples(sub, st.sampled_from(["and", "or"]), sub).map(lambda t: f"({t[0]} {t[1]} {t[2]})"),
        sub.map(lambda a: f"(not {a})"),
        st.tuples(sub, sub).map(lambda t: f"({t[0]} == {t[1]})"),
        st.tuples(st.sampled_from(["any", "all"]), bools(depth - 1, (*kvars, kv), pvars, ivars)).map(lambda t: f"{t[0]}({t[1]} for {kv} in kind)"),
    )


def kinds(depth: int, kvars: tuple[str, ...], pvars: tuple[str, ...], ivars: tuple[str, ...]) -> st.SearchStrategy[str]:
    leaves = [st.sampled_from(KINDS)]
    if kvars:
        leaves.append(st.sampled_from(kvars))
    if depth <= 0:
        return st.one_of(*leaves)
    sub = kinds(depth - 1, kvars, pvars, ivars)
    return st.one_of(*leaves, sub.map(lambda k: f"succ({k})"), st.tuples(sub, bools(depth - 1, kvars, pvars, ivars), sub).map(lambda t: f"({t[0]} if {t[1]} else {t[2]})"))


def players(depth: int, kvars: tuple[str, ...], pvars: tuple[str, ...], ivars: tuple[str, ...]) -> st.SearchStrategy[str]:
    leaves = [st.sampled_from([*PLAYERS, "t"])]
    if depth <= 0:
        return st.one_of(*leaves)
    return st.one_of(*leaves, kinds(depth - 1, kvars, pvars, ivars).map(lambda k: f"who[{k}]"), players(depth - 1, kvars, pvars, ivars).map(lambda p: f"pred({p})"))


def typed_exprs() -> st.SearchStrategy[tuple[str, str]]:
    return st.one_of(
        ints(3, (), (), ()).map(lambda e: ("int", e)),
        bools(3, (), (), ()).map(lambda e: ("bool", e)),
        players(3, (), (), ()).map(lambda e: ("player", e)),
    )


def states(model) -> st.SearchStrategy[dict]:
    parts = {}
    for name, slot in model.slots.items():
        values = st.sampled_from(slot.allowed(model.domains))
        if slot.dims:
            elements = slot.elements()
            parts[name] = st.lists(values, min_size=len(elements), max_size=len(elements)).map(lambda vs, els=elements: dict(zip(els, vs)))
        else:
            parts[name] = values
    return st.fixed_dictionaries(parts)


def outcome(fn):
    try:
        return ("value", fn())
    except ModellingError:
        return ("error", None)


_MODEL_CACHE: dict[str, object] = {}


def agreement_model(tmp_dir: str):
    if "model" not in _MODEL_CACHE:
        path = os.path.join(tmp_dir, "models", "agree")
        os.makedirs(path, exist_ok=True)
        with open(os.path.join(path, "agree.yaml"), "w") as handle:
            handle.write(MODEL)
        _MODEL_CACHE["model"] = load_model(os.path.join(path, "agree.yaml"))
    return _MODEL_CACHE["model"]


def engines_for(model, reading: str) -> tuple[CompiledModel, Interpreter]:
    key = f"engines-{reading}"
    if key not in _MODEL_CACHE:
        config = model.default_config().with_readings({"r": reading})
        _MODEL_CACHE[key] = (CompiledModel(model, config), Interpreter(model, config))
    return _MODEL_CACHE[key]


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture, HealthCheck.filter_too_much])
@given(data=st.data(), typed=typed_exprs(), reading=st.sampled_from(["one", "two"]))
def test_compiled_and_interpreted_agree(tmp_path_factory, data, typed, reading):
    model = agreement_model(str(tmp_path_factory.getbasetemp()))
    kind, source = typed
    expected = {"int": INT, "bool": BOOL, "player": enum("player")}[kind]
    try:
        expr = check_expr(model.scope, source, Loc("generated", 1, 1), expected)
    except RulecheckError as exc:
        # A literal index outside its domain, or a literal zero divisor, is rejected
        # statically, which is right; skip those.
        assume("is outside" not in exc.message and exc.message != "division by zero")
        raise
    compiled, interp = engines_for(model, reading)
    state = data.draw(states(model))
    packed = compiled.layout.pack(state)
    assert compiled.layout.unpack(packed) == state
    evaluate = compiled.evaluator(expr)
    got = outcome(lambda: evaluate(packed))
    want = outcome(lambda: interp.eval(expr, state))
    assert got == want, f"{source}: compiled {got}, interpreted {want}"


def test_the_generator_reaches_errors_and_values(tmp_path):
    """The agreement test is only worth its examples if they include modelling errors."""
    model = load_model(write(tmp_path, MODEL, "agree.yaml", "agree"))
    config = model.default_config()
    compiled, interp = CompiledModel(model, config), Interpreter(model, config)
    state = interp.initial_states()[0]
    for source, want in [("m // (n - n)", "error"), ("far[m + 4]", "error"), ("min(arr[k] for k in kind if false)", "error"), ("sum(grid[p][i] for p in player for i in pos) + 2", "value")]:
        expr = check_expr(model.scope, source, Loc("t", 1, 1), INT)
        assert outcome(lambda e=expr: compiled.evaluator(e)(compiled.layout.pack(state)))[0] == want
        assert outcome(lambda e=expr: interp.eval(e, state))[0] == want


# -- whole models: the generated successor function against the interpreter, state by state ----
def successor_disagreements(model, config, limit: int = 60_000) -> tuple[int, list[str]]:
    """Explore with the compiled successor function and compare, on every reachable state, its
    moves (action, parameters, packed target) and terminality with the interpreter's. Returns
    the number of states compared and the first disagreements."""
    from collections import deque

    compiled, interp = CompiledModel(model, config), Interpreter(model, config)
    seen = set(compiled.initial)
    queue = deque(compiled.initial)
    problems: list[str] = []
    while queue and len(problems) < 5:
        s = queue.popleft()
        state = compiled.layout.unpack(s)
        if compiled.terminal(s) != interp.terminal(state):
            problems.append(f"terminal: compiled {compiled.terminal(s)}, interpreted {interp.terminal(state)} in {state}")
            continue
        if compiled.terminal(s):
            continue
        got = sorted((compiled.instances[i].action.name, compiled.instances[i].params, t) for i, t in compiled.successors(s))
        want = sorted((m.action, m.params, compiled.layout.pack(m.post)) for m in interp.transitions(state))
        if got != want:
            problems.append(f"in {state}: compiled only {sorted(set(got) - set(want))}, interpreted only {sorted(set(want) - set(got))}")
        for _, _, t in got:
            if t not in seen:
                seen.add(t)
                queue.append(t)
        assert len(seen) <= limit, "the generator made a model larger than the test's limit"
    return len(seen), problems


@settings(max_examples=int(os.environ.get("RULECHECK_LARGE_EXAMPLES", "3")), deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(case=large_models(min_size=10_000), reading=st.sampled_from(["o1", "o2"]))
def test_compiled_successors_agree_on_every_reachable_state(tmp_path_factory, case, reading):
    """On models of 10,000 to 40,000 states (arrays, chance, forced rules, a reading), the
    compiled successor function and the interpreter give the same moves in every reachable state."""
    root = tmp_path_factory.mktemp("large")
    model = load_model(write(root, case.model_yaml + LARGE_CLAUSES, "large.yaml", "large"))
    config = model.default_config().with_readings({"r": reading})
    states, problems = successor_disagreements(model, config)
    event(f"reachable states: {states // 10_000 * 10_000}-{states // 10_000 * 10_000 + 9_999}")
    target(float(states), label="reachable states")
    assert not problems, "\n".join(problems) + "\n\n" + case.model_yaml
    assert states >= 10_000


def test_successor_comparison_catches_a_wrong_move(tmp_path):
    """The state-by-state comparison is not vacuous: a compiled function that drops a move is caught."""
    from hypothesis import find

    case = find(large_models(min_size=10_000), lambda c: True, settings=settings(database=None, derandomize=True))
    model = load_model(write(tmp_path, case.model_yaml + LARGE_CLAUSES, "large.yaml", "large"))
    config = model.default_config()
    original = CompiledModel.__init__

    def dropping(self, *args, **kwargs):
        original(self, *args, **kwargs)
        honest, terminal = self._build()
        self._functions = (lambda s: honest(s)[:-1], terminal)

    CompiledModel.__init__ = dropping
    try:
        _, problems = successor_disagreements(model, config)
    finally:
        CompiledModel.__init__ = original
    assert problems


def _shared_prefix_model(shared_tests: int) -> str:
    """A model whose parameterised action's guard starts with `shared_tests` tests that do not
    read its parameter, then one that does: the instances share that prefix."""
    prefix = " and ".join(f"step != {9 + k}" for k in range(shared_tests))
    return f"""\
game: Shared prefix
id: shared
players: [ann, bob]
domains:
  pos: {{range: [0, 3]}}
state:
  mark: {{type: "int[0..2]", of: pos}}
  step: "int[0..200]"
  turn: player
init: {{mark: 0, step: 0, turn: ann}}
terminal: step >= 6
actions:
  place:
    by: turn
    for: {{p: pos}}
    when: {prefix} and mark[p] < 2
    do:
      mark[p]: mark[p] + 1
      step: step + 1
      turn: succ(turn)
    rule: s-1
  roll:
    by: chance
    for: {{p: pos}}
    when: {prefix} and mark[p] == 2 and step < 3
    weight: p + 1
    do: {{step: step + 2}}
    rule: s-1
clauses:
  s-1: {{at: "1", says: "Place a marker, or roll."}}
"""


def test_instances_sharing_leading_tests_test_them_once_with_the_same_moves_in_the_same_order(tmp_path):
    """Consecutive guarded blocks whose guards start alike are nested under one `if` of the shared
    test (`CompiledModel._plain_run`): the moves, their order and the interpreter's agreement must
    be what one block per instance gives, and a prefix deeper than Python's block limit must
    still compile (the nesting stops at `MAX_BLOCK_DEPTH`)."""
    from checker.lang import compile as compile_module

    for shared in (3, compile_module.MAX_BLOCK_DEPTH + 40):
        model = load_model(write(tmp_path, _shared_prefix_model(shared), f"shared{shared}.yaml", f"shared{shared}"))
        config = model.default_config()
        grouped = CompiledModel(model, config)
        source = grouped._successor_source().text
        if shared == 3:  # once for the eight instances of `place` and `roll`, not once each
            assert source.count(" != 9)") == 1, source
        states, problems = successor_disagreements(model, config)
        assert not problems and states > 100, problems
        ungrouped_run = compile_module.CompiledModel._plain_run
        compile_module.CompiledModel._plain_run = lambda self, emitter, pending, pad: [
            line for item in pending for line in self._plain_block(emitter, item, pad)]
        try:
            namespace = dict(compile_module.HELPERS)
            exec(compile(grouped._successor_source().text, "<ungrouped>", "exec"), namespace)  # noqa: S102
        finally:
            compile_module.CompiledModel._plain_run = ungrouped_run
        ungrouped = namespace["successors"]
        seen, frontier = set(grouped.initial), list(grouped.initial)
        while frontier:
            s = frontier.pop()
            if grouped.terminal(s):
                continue
            moves = grouped.successors(s)
            assert moves == ungrouped(s)
            for _, t in moves:
                if t not in seen:
                    seen.add(t)
                    frontier.append(t)
        assert len(seen) == states


def test_a_field_is_read_in_the_innermost_block_that_holds_its_uses():
    """`place_reads`: a field read by one dispatch branch only is read in that branch, one read
    by two sibling branches (or an `elif` and its `if`) in their parent, one read in a test of
    the top level at the top; an unused one not at all."""
    from checker.lang.compile import place_reads

    body = [
        "    d1 = s_4",
        "    if d1 == 0:",
        "        if s_9 == 1:",
        "            r.append((0, s_9 | s_12))",
        "    elif d1 == 3:",
        "        r.append((1, s_12))",
        "        if s_20 and not 0 <= s_12: _range('a', 'b', 0, 0, 1)",
        "    return r",
    ]
    reads = {k: f"s_{k} = (s >> {k}) & 1" for k in (4, 9, 12, 20, 30)}
    assert place_reads(body, reads) == [
        "    s_4 = (s >> 4) & 1",
        "    s_12 = (s >> 12) & 1",
        "    d1 = s_4",
        "    if d1 == 0:",
        "        s_9 = (s >> 9) & 1",
        "        if s_9 == 1:",
        "            r.append((0, s_9 | s_12))",
        "    elif d1 == 3:",
        "        s_20 = (s >> 20) & 1",
        "        r.append((1, s_12))",
        "        if s_20 and not 0 <= s_12: _range('a', 'b', 0, 0, 1)",
        "    return r",
    ]
