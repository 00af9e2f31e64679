"""What the conformance suite runs its back-ends on: generated models, expressions and states, and
the bundled models.

`models()` writes small well-typed models as YAML (a few slots: ints, a bool, the player, an
enum, an array over a two-member domain; a constant and a reading; two to five actions of every
`by` kind, forced rules included, with parameters, `only`, weights and writes that may leave
their range) and a property suite of every kind: `terminates` with a `measure` (a real ranking
function in the "ranked" models, where every move counts x down, a random one elsewhere) and
with `within: N`, and property expressions that may raise (a divisor that may be zero).
`typed_exprs()` writes random expressions over `EXPRESSION_MODEL`, a model with every kind of
slot, and `states()` random states of it. Both are written as source text, so the parser and the
type checker are exercised too.

Profiles: "ci" (the default) and "local" (HYPOTHESIS_PROFILE=local, ten times the examples).
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterator

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from checker.errors import RulecheckError
from checker.lang.build import load_model
from checker.lang.interp import Interpreter
from checker.lang.loader import is_fragment
from checker.lang.model import Config, Model
from checker.lang.properties import BoundProperty
from tests.symbolic_support import bound_props, write_game

HERE = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PROFILE = os.environ.get("HYPOTHESIS_PROFILE", "ci") if os.environ.get("HYPOTHESIS_PROFILE") in ("ci", "local") else "ci"
EXAMPLES = {"ci": 30, "local": 300}[PROFILE]
SETTINGS = settings(deadline=None, derandomize=PROFILE == "ci", suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much, HealthCheck.function_scoped_fixture])

BUNDLED = sorted(
    os.path.join(folder, name)
    for folder in (os.path.join(HERE, "models", game) for game in ("showngo", "sms", "supershow", "titlebelt", "ultimate"))
    for name in os.listdir(folder)
    if name.endswith(".yaml") and name not in ("clauses.yaml", "questions.yaml") and not is_fragment(os.path.join(folder, name))
)


def configs(model: Model) -> list[Config]:
    """The default configuration and each reading deviation from it (one reading changed)."""
    base = model.default_config()
    out = [base]
    for reading in model.readings.values():
        out += [base.with_readings({reading.name: option}) for option in reading.options if option != base.readings[reading.name]]
    return out


def generated_configs(case: tuple[str, str], extra_props: str = "") -> Iterator[tuple[Model, Config, list[BoundProperty], str]]:
    """Each configuration with initial states of a generated model, with the model, its bound
    properties and the model file's path (valid while the iteration runs); nothing when the
    model or its properties do not load."""
    model_yaml, props_yaml = case
    with tempfile.TemporaryDirectory() as root:
        path = write_game(root, "random", model_yaml, props_yaml + extra_props)
        try:
            model = load_model(path)
            _, props = bound_props(path)
        except RulecheckError:
            return  # a generated model or property the checker refuses (a static division by zero, say)
        for config in configs(model):
            if Interpreter(model, config).initial_states():
                yield model, config, props, path


# -- the model generator ----------------------------------------------------------------------
@st.composite
def int_atom(draw, ctx, param: bool):
    choices = ["x", "c", str(draw(st.integers(0, 3)))]
    if ctx["y"]:
        choices.append("y")
    if ctx["arr"]:
        choices.append("arr[k]" if param else "arr[k0]")
        choices.append("arr[k1]")
    return draw(st.sampled_from(choices))


@st.composite
def int_expr(draw, ctx, param: bool = False, depth: int = 2):
    if depth == 0 or draw(st.integers(0, 2)) == 0:
        return draw(int_atom(ctx, param))
    form = draw(st.integers(0, 7))
    a = draw(int_expr(ctx, param, depth - 1))
    b = draw(int_expr(ctx, param, depth - 1))
    if form == 0:
        return f"({a} + {b})"
    if form == 1:
        return f"({a} - {b})"
    if form == 2:
        return f"min({a}, {b})"
    if form == 3:
        return f"max({a}, {b})"
    if form == 4:
        return f"({a} % {draw(st.integers(2, 3))})"
    if form == 7 and not ctx.get("safe"):  # the divisor may be zero: a modelling error
        return f"({a} // {draw(int_atom(ctx, param))})"
    if form == 5 and ctx["arr"]:
        aggregates = ["sum(arr[j] for j in kind)", "count(arr[j] > 0 for j in kind)"]
        if not ctx.get("safe"):
            aggregates.append("max(arr[j] for j in kind if arr[j] > 0)")  # empty: a modelling error
        return draw(st.sampled_from(aggregates))
    cond = draw(bool_expr(ctx, param, depth - 1))
    return f"({a} if {cond} else {b})"


@st.composite
def bool_expr(draw, ctx, param: bool = False, depth: int = 2):
    if depth == 0 or draw(st.integers(0, 2)) == 0:
        atoms = ["turn == a", "turn == b"]
        if ctx["f"]:
            atoms += ["f", "not f"]
        if ctx["ph"]:
            atoms += ["ph == p0", "ph == p1", "ph != p2"]
        if ctx["reading"]:
            atoms.append("reading.r == o2")
        if ctx["arr"]:
            atoms.append("any(arr[j] > 0 for j in kind)")
        atom = draw(st.sampled_from(atoms + ["CMP", "CMP", "CMP"]))
        if atom != "CMP":
            return atom
        op = draw(st.sampled_from(["==", "!=", "<", "<=", ">", ">="]))
        return f"{draw(int_atom(ctx, param))} {op} {draw(int_atom(ctx, param))}"
    form = draw(st.integers(0, 3))
    a = draw(bool_expr(ctx, param, depth - 1))
    if form == 0:
        return f"not ({a})"
    b = draw(bool_expr(ctx, param, depth - 1))
    if form == 1:
        return f"({a} and {b})"
    if form == 2:
        return f"({a} or {b})"
    op = draw(st.sampled_from(["==", "<", ">="]))
    return f"{draw(int_expr(ctx, param, depth - 1))} {op} {draw(int_expr(ctx, param, depth - 1))}"


def q(text: str) -> str:
    return json.dumps(text)


@st.composite
def write_for(draw, ctx, slot: str, param: bool):
    """(target, value) for one slot."""
    if slot in ("x", "y"):
        hi = ctx[f"{slot}hi"]
        value = draw(int_expr(ctx, param, 1))
        if draw(st.integers(0, 3)) > 0:  # mostly clamped; sometimes free to leave the range
            value = f"min(max({value}, 0), {hi})"
        return slot, value
    if slot == "f":
        return "f", draw(bool_expr(ctx, param, 1))
    if slot == "turn":
        return "turn", draw(st.sampled_from(["succ(turn)", "pred(turn)", "a", "b"]))
    if slot == "ph":
        return "ph", draw(st.sampled_from(["p0", "p1", "p2", "succ(ph)", "p2 if ph == p1 else p1"]))
    # the array: one element, every element, or the whole domain at once
    form = draw(st.integers(0, 2))
    value = f"min(max({draw(int_expr(ctx, param, 1))}, 0), 2)"
    if form == 0:
        return ("arr[k]" if param else draw(st.sampled_from(["arr[k0]", "arr[k1]"]))), value
    if form == 1:
        return "arr", str(draw(st.integers(0, 2)))
    return "arr[j] for j in kind", "min(arr[j] + 1, 2)"


@st.composite
def models(draw):
    ctx = {
        "y": draw(st.booleans()), "f": draw(st.booleans()), "ph": draw(st.booleans()),
        "arr": draw(st.booleans()), "reading": draw(st.booleans()),
        "xhi": draw(st.integers(2, 3)), "yhi": draw(st.integers(1, 2)),
    }
    lines = ["game: Random", "id: random", "players: [a, b]", "domains:", "  kind: [k0, k1]"]
    lines += ["constants:", f"  c: {{type: int, range: [0, 2], default: {draw(st.integers(0, 2))}}}"]
    if ctx["reading"]:
        lines += ["readings:", "  r:", "    clause: r-1", "    question: which?", "    options: {o1: one, o2: two}", f"    default: {draw(st.sampled_from(['o1', 'o2']))}"]
    lines += ["state:", f"  x: \"int[0..{ctx['xhi']}]\"", "  turn: player"]
    ranked = draw(st.integers(0, 2)) == 0  # every move counts x down: `x` is a ranking function
    x_init = str(ctx["xhi"]) if ranked and draw(st.booleans()) else draw(st.sampled_from(['0', '1', '{choose: [0, 2]}', 'c', '{choose: any}']))
    init = [f"  x: {x_init}", f"  turn: {draw(st.sampled_from(['a', '{choose: player}']))}"]
    slots = ["x", "turn"]
    if ctx["y"]:
        lines.append(f"  y: \"int[0..{ctx['yhi']}]\"")
        init.append(f"  y: {draw(st.sampled_from(['0', '{choose: any}']))}")
        slots.append("y")
    if ctx["f"]:
        lines.append("  f: bool")
        init.append(f"  f: {draw(st.sampled_from(['false', 'true', '{choose: any}']))}")
        slots.append("f")
    if ctx["ph"]:
        lines.append("  ph: [p0, p1, p2]")
        init.append("  ph: p0")
        slots.append("ph")
    if ctx["arr"]:
        lines.append("  arr: {type: \"int[0..2]\", of: kind}")
        init.append(f"  arr: {draw(st.sampled_from(['0', '1', '{k0: 1, k1: 0}', '{choose: any}']))}")
        slots.append("arr")
    lines += ["init:", *init]
    if draw(st.integers(0, 4)) == 0:
        lines.append(f"init_where: {q(draw(bool_expr(ctx, False, 1)))}")
    terminal = draw(st.one_of(st.just(f"x == {ctx['xhi']}"), bool_expr(ctx, False, 1)))
    if ranked:  # plays last until x is 0
        terminal = "x == 0"
    lines.append(f"terminal: {q(terminal)}")
    lines.append("actions:")
    names = []
    for i in range(draw(st.integers(2, 5))):
        name = f"act{i}"
        names.append(name)
        by = draw(st.sampled_from(["chance", "rules", "turn", "a"]))
        param = ctx["arr"] and draw(st.booleans())
        lines += [f"  {name}:", f"    by: {by}"]
        if param:
            lines.append("    for: {k: kind}")
        guard = draw(bool_expr(ctx, param, 2))
        if ranked:
            guard = "x > 0" if i == 0 else f"x > 0 and ({guard})"
        lines.append(f"    when: {q(guard)}")
        if by == "chance":
            lines.append(f"    weight: {q(draw(st.sampled_from(['1', 'x + 1', 'c', 'arr[k]' if param else '2'])))}")
        written = draw(st.lists(st.sampled_from(slots), min_size=1, max_size=2, unique=True))
        lines.append("    do:")
        if ranked:
            written = [slot for slot in written if slot != "x"]
            lines.append('      "x": "x - 1"')
        for slot in written:
            target, value = draw(write_for(ctx, slot, param))
            lines.append(f"      {q(target)}: {q(value)}")
        lines.append("    rule: r-1")
        if ctx["reading"] and draw(st.integers(0, 3)) == 0:
            lines.append(f"    only: {{r: {draw(st.sampled_from(['o1', 'o2']))}}}")
    # property expressions may raise (a divisor that can be zero, max over nothing): the result
    # is then `error` with the trace to the state where it happens, in both engines
    ctx = {**ctx, "safe": draw(st.booleans())}
    measure = "x" if ranked else draw(int_expr(ctx, False, 1))
    within = draw(st.integers(1, ctx["xhi"] - 1 if ranked else 4))  # ranked: plays of up to xhi steps
    props = [
        f"- {{id: inv, kind: invariant, expr: {q(draw(bool_expr(ctx, False, 2)))}}}",
        f"- {{id: reach, kind: reachable, expr: {q(draw(bool_expr(ctx, False, 2)))}}}",
        f"- {{id: unreach, kind: unreachable, expr: {q(draw(bool_expr(ctx, False, 1)))}}}",
        f"- {{id: aft, kind: after, action: {draw(st.sampled_from(names))}, expr: {q(draw(int_atom(ctx, False)) + ' ' + draw(st.sampled_from(['>=', '==', '!='])) + ' old(' + draw(int_atom(ctx, False)) + ')')}}}",
        f"- {{id: ends, kind: terminates, measure: {q(measure)}}}" if draw(st.booleans()) else "- {id: ends, kind: terminates}",
        f"- {{id: soon, kind: terminates, within: {within}, measure: {q(measure)}}}",
        f"- {{id: leads, kind: leads-to, from: {q(draw(bool_expr(ctx, False, 1)))}, to: {q(draw(bool_expr(ctx, False, 1)))}}}",
    ]
    if not ctx["safe"]:  # a divisor that is zero in some states
        risky = f"{draw(int_atom(ctx, False))} // {draw(int_atom(ctx, False))} {draw(st.sampled_from(['==', '>=', '<']))} {draw(st.integers(0, 2))}"
        props.append(f"- {{id: risky, kind: {draw(st.sampled_from(['invariant', 'unreachable', 'reachable']))}, expr: {q(risky)}}}")
    return "\n".join(lines) + "\n", "\n".join(props) + "\n"


# -- expressions and states over a model with every kind of slot ------------------------------
EXPRESSION_MODEL = """\
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
