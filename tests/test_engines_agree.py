"""Differential test: the explicit and the symbolic engine agree on random small models.

Hypothesis writes small well-typed models as YAML (a few slots: ints, a bool, the player, an
enum, an array over a two-member domain; a constant and a reading; two to four actions of every
`by` kind, forced rules included, with parameters, `only`, weights and writes that may leave
their range) and a property suite. Both engines check the default configuration; the symbolic
engine deepens far enough to cover every reachable state (the explicit engine's breadth-first
depth, or the number of states for the loop-shaped kinds), so its bounded verdicts are exact and
must equal the explicit ones, and its first counterexample must be as short as the explicit
engine's breadth-first one.

What else is generated: `terminates` with a `measure` (a real ranking function in the "ranked"
models, where every move counts x down, a random one elsewhere) and with `within: N` (decided
exactly whatever the run's depth, so it is also checked with depth 1: a measure must never
prove a `within` bound; a proof of `ends` or `leads` at depth 1, by a measure decreasing over
k steps or from termination and deadlock freedom, must match the explicit verdict); property expressions that raise (a divisor that may be zero): both
engines must report `error` with a trace as short as the reference interpreter's first raising
state; and every constant and reading left free at once
(`test_engines_agree_over_every_configuration`), compared with the explicit engine run under
each configuration.

Profiles: "ci" (default, about a minute) and "local" (HYPOTHESIS_PROFILE=local, many more
examples). A mutation test shows that the comparison catches an engine that drops a guard or a
transition.
"""

from __future__ import annotations

import json
import os
import tempfile
from contextlib import contextmanager

import pytest
from hypothesis import HealthCheck, Phase, assume, event, given, settings, target
from hypothesis import strategies as st
from hypothesis.control import currently_in_test_context

from checker.engines.symbolic import encoding
from checker.errors import RulecheckError
from checker.lang.build import load_model
from checker.lang.interp import Interpreter
from checker.trace import ReplayMismatch
from tests.large_models import LargeModel, large_models
from tests.symbolic_support import bound_props, run, trace_len, write_game

settings.register_profile("ci", max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much], derandomize=True)
settings.register_profile("local", max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
PROFILE = os.environ.get("HYPOTHESIS_PROFILE", "ci")
if PROFILE not in ("ci", "local"):
    PROFILE = "ci"

MAX_LOOP_STATES = 16  # compare terminates / leads-to only when the lasso search can be exhaustive


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


# -- the comparison ---------------------------------------------------------------------------
def note(text: str) -> None:
    """`event`, when a hypothesis test is running (the comparison also runs on fixed models)."""
    if currently_in_test_context():
        event(text)


def size_band(states: int) -> str:
    """A coarse size class for `event`: hypothesis reports how many examples fall in each."""
    for bound in (1, 10, 100, 1_000, 10_000):
        if states <= bound:
            return f"<= {bound:,}"
    return f"{states // 10_000 * 10_000:,}-{states // 10_000 * 10_000 + 9_999:,}"


EXACT_LENGTH = ("invariant", "unreachable", "deadlock-free", "after", "deterministic")


def symbolic_verdict(result) -> str:
    """The symbolic verdict read at a depth that covers every reachable state."""
    if result.status == "undecided" and result.prop.kind in ("reachable", "coverage"):
        return "fails"
    return result.status


def interpreter_error_depth(model) -> int | None:
    """Breadth-first in the reference interpreter: the depth of the first state whose
    transitions raise a modelling error (None when no reachable state does)."""
    from collections import deque

    from checker.errors import ModellingError
    from checker.lang.interp import freeze

    interp = Interpreter(model, model.default_config())
    seen = set()
    queue = deque()
    for s in interp.initial_states():
        if freeze(s) not in seen:
            seen.add(freeze(s))
            queue.append((s, 0))
    while queue:
        state, depth = queue.popleft()
        try:
            moves = interp.transitions(state)
        except ModellingError:
            return depth
        for move in moves:
            key = freeze(move.post)
            if key not in seen:
                seen.add(key)
                queue.append((move.post, depth + 1))
    return None


FOUND = {"invariant": "fails", "unreachable": "fails", "after": "fails", "reachable": "holds"}


def property_reference(model, props) -> dict[str, tuple[int | None, int | None]]:
    """Breadth-first in the reference interpreter (on a model whose transitions never raise):
    per property with expressions, (the depth of the first state where its expression raises,
    the depth of the first state that decides it: a violation, or a `reachable` witness)."""
    from collections import deque

    from checker.errors import ModellingError
    from checker.lang.interp import freeze

    interp = Interpreter(model, model.default_config())
    out: dict[str, list] = {p.id: [None, None] for p in props if p.kind in (*FOUND, "leads-to")}

    def note(prop, depth: int, expr_calls) -> None:
        slot = out[prop.id]
        try:
            values = [call() for call in expr_calls]
        except ModellingError:
            if slot[0] is None:
                slot[0] = depth
            return
        decided = (not values[0]) if prop.kind in ("invariant", "after") else bool(values[0]) if prop.kind != "leads-to" else False
        if decided and slot[1] is None:
            slot[1] = depth

    seen, queue = set(), deque()
    for s in interp.initial_states():
        if freeze(s) not in seen:
            seen.add(freeze(s))
            queue.append((s, 0))
    while queue:
        state, depth = queue.popleft()
        for prop in props:
            if prop.kind in ("invariant", "unreachable", "reachable"):
                note(prop, depth, [lambda e=prop.expr, s=state: interp.eval(e, s)])
            elif prop.kind == "leads-to":
                note(prop, depth, [lambda e=prop.source, s=state: interp.eval(e, s), lambda e=prop.target, s=state: interp.eval(e, s)])
        for move in interp.transitions(state):
            for prop in props:
                if prop.kind == "after" and move.action == prop.action:
                    note(prop, depth + 1, [lambda e=prop.expr, m=move, s=state: interp.eval(e, m.post, dict(m.params), old=s)])
            key = freeze(move.post)
            if key not in seen:
                seen.add(key)
                queue.append((move.post, depth + 1))
    return {pid: (v[0], v[1]) for pid, v in out.items()}


def allowed_with_property_errors(kind: str, raises: int, decides: int | None) -> set[str]:
    """The verdicts a breadth-first engine may give when the property's expression raises at
    depth `raises`: `error`, or the ordinary verdict when a deciding state is as shallow (which
    of the two comes first at one depth is the engine's order)."""
    if kind == "leads-to":
        return {"error"}
    if decides is None or raises < decides:
        return {"error"}
    if raises == decides:
        return {"error", FOUND[kind]}
    return {FOUND[kind]}


def modelling_error(result) -> bool:
    """An `error` from the model's transitions (not from the property's own expression)."""
    return result.status == "error" and (result.trace is None or result.trace.shape != "property-error")


def disagreements(model_yaml: str, props_yaml: str) -> list[str]:
    """Where the engines differ on this model (empty when they agree).

    Modelling errors are compared with the reference interpreter rather than the explicit
    engine: the compiled successor function skips the free actions of a state where a forced
    rule is enabled, while the interpreter (the semantics) evaluates them and raises when one of
    them errs, so the two can disagree on errors (see the report on issue 4)."""
    from checker.errors import ModellingError

    with tempfile.TemporaryDirectory() as root:
        path = write_game(root, "random", model_yaml, props_yaml)
        try:
            model = load_model(path)
            bound_props(path)
        except RulecheckError:
            note("rejected when loaded")  # say, a literal outside its slot's range, or a literal zero divisor
            assume(False)
        assume(bool(Interpreter(model, model.default_config()).initial_states()))  # else nothing to compare
        reference_error = interpreter_error_depth(model)
        try:
            exp = run(path, "explicit")
        except (ModellingError, ReplayMismatch):
            exp = None  # the explicit engine's trace does not replay: the discrepancy above
            if reference_error is None:
                raise
        assume(exp is None or next(iter(exp.values())).bound == "exhaustive")
        if exp is None:
            states, depth = 10_000, reference_error
        else:
            states, depth = next(iter(exp.values())).states, next(iter(exp.values())).depth
            note(f"reachable states: {size_band(states)}")
        loops = states <= MAX_LOOP_STATES
        sym_depth = max(depth + 1, states + 1 if loops else 0)
        try:
            sym = run(path, "symbolic", depth=sym_depth)
            # a `within` bound is decided exactly whatever the run's depth (BMC goes to within + 1)
            sym.update(run(path, "symbolic", depth=1, ids={"soon"}))
            # proofs that do not wait for an exhaustive BMC (a measure decreasing over k steps,
            # leads-to from termination and deadlock freedom) must be right at depth 1 too
            shallow = run(path, "symbolic", depth=1, ids={"ends", "leads", "deadlock-free"})
        except ReplayMismatch as exc:
            return [f"symbolic trace does not replay: {exc}"]
        references = property_reference(model, bound_props(path)[1]) if reference_error is None else {}
    out = []
    s_err = next((r for r in sym.values() if modelling_error(r)), None)
    e_err = next((r for r in exp.values() if modelling_error(r)), None) if exp is not None else None
    if reference_error is not None or s_err is not None or e_err is not None:
        # a modelling error stops the search: compare where it first happens with the interpreter
        if reference_error is None or s_err is None:
            out.append(f"modelling error: interpreter at depth {reference_error}, symbolic {s_err and s_err.detail!r}")
        elif trace_len(s_err) != reference_error:
            out.append(f"modelling error depth: interpreter {reference_error}, symbolic {trace_len(s_err)}")
        return out
    for pid, e in exp.items():
        s = sym[pid]
        raises, decides = references.get(pid, (None, None))
        if raises is not None:
            # the property's own expression raises somewhere: `error` with a shortest trace
            allowed = allowed_with_property_errors(e.prop.kind, raises, decides)
            if e.status not in allowed:
                out.append(f"{pid}: explicit {e.status}, expected one of {sorted(allowed)} (raises at depth {raises})")
            sym_allowed = allowed | ({"fails"} if e.prop.kind == "leads-to" else set())
            if symbolic_verdict(s) not in sym_allowed:
                out.append(f"{pid}: symbolic {s.status} ({s.bound}), expected one of {sorted(sym_allowed)} (raises at depth {raises})")
            for r, who in ((e, "explicit"), (s, "symbolic")):
                if r.status == "error" and trace_len(r) != raises:
                    out.append(f"{pid}: {who} property error after {trace_len(r)} steps, the interpreter's first at {raises}")
            continue
        if e.prop.kind == "leads-to" and not loops:
            continue
        if e.prop.kind == "terminates" and not loops and e.prop.within is None:
            continue
        if pid in shallow and shallow[pid].status == "holds" and shallow[pid].proof and e.status != "holds":
            out.append(f"{pid}: explicit {e.status}, symbolic at depth 1 holds ({shallow[pid].bound})")
        if symbolic_verdict(s) != e.status:
            out.append(f"{pid}: explicit {e.status}, symbolic {s.status} ({s.bound})")
        elif e.status == "fails" and e.prop.kind in EXACT_LENGTH and trace_len(e) != trace_len(s):
            out.append(f"{pid}: shortest counterexample explicit {trace_len(e)} steps, symbolic {trace_len(s)}")
    return out


@settings(settings.get_profile(PROFILE))
@given(models())
def test_engines_agree(case):
    model_yaml, props_yaml = case
    assume("act" in model_yaml)
    problems = disagreements(model_yaml, props_yaml)
    assert not problems, "\n".join(problems) + "\n\n" + model_yaml + "\n" + props_yaml


# -- every constant and reading at once --------------------------------------------------------
FREE_KINDS = ("invariant", "unreachable", "reachable", "after", "deadlock-free")


def free_disagreements(model_yaml: str, props_yaml: str) -> list[str]:
    """The symbolic engine with the constant `c` and the reading left free must find a
    counterexample exactly when the explicit engine finds one under some configuration, name a
    configuration where it does, and be as short as the shortest of them."""
    from checker.lang.model import Config

    with tempfile.TemporaryDirectory() as root:
        path = write_game(root, "random", model_yaml, props_yaml)
        try:
            model = load_model(path)
            bound_props(path)
        except RulecheckError:
            note("rejected when loaded")
            assume(False)
        base = model.default_config()
        options = list(model.readings["r"].options) if "r" in model.readings else [None]
        configs = [Config({**base.constants, "c": c}, {**base.readings, **({"r": o} if o else {})}) for c in range(3) for o in options]
        ids = {"inv", "unreach", "reach", "aft", "deadlock-free"}
        explicit = []
        for cfg in configs:
            assume(bool(Interpreter(model, cfg).initial_states()))
            results = run(path, "explicit", ids=ids, config=cfg)
            # errors and unfinished explorations are compared elsewhere
            assume(not any(r.status == "error" or r.bound != "exhaustive" for r in results.values()))
            explicit.append((cfg, results))
        depth = max(next(iter(r.values())).depth for _, r in explicit)
        sym = run(path, "symbolic", depth=depth + 1, ids=ids, free_constants=True, free_readings=True)
    out = []
    for pid, s in sym.items():
        kind = s.prop.kind
        found = "holds" if kind == "reachable" else "fails"
        hits = [(cfg, r[pid]) for cfg, r in explicit if r[pid].status == found]
        if s.status == "error":
            out.append(f"{pid}: symbolic error ({s.detail}) though no configuration raises")
        elif kind == "reachable":
            if (symbolic_verdict(s) == "holds") != bool(hits):
                out.append(f"{pid}: symbolic {s.status}, explicit holds under {len(hits)} of {len(explicit)} configurations")
        elif bool(hits) != (s.status == "fails"):
            out.append(f"{pid}: symbolic {s.status} ({s.bound}), explicit fails under {len(hits)} of {len(explicit)} configurations")
        elif hits:
            if (s.config.constants, s.config.readings) not in [(cfg.constants, cfg.readings) for cfg, _ in hits]:
                out.append(f"{pid}: symbolic names {s.detail!r}, where the explicit engine finds no counterexample")
            if trace_len(s) != min(trace_len(r) for _, r in hits):
                out.append(f"{pid}: symbolic {trace_len(s)} steps, the shortest explicit {min(trace_len(r) for _, r in hits)}")
    return out


@settings(settings.get_profile(PROFILE), max_examples=25 if PROFILE == "ci" else 150)
@given(models())
def test_engines_agree_over_every_configuration(case):
    model_yaml, props_yaml = case
    problems = free_disagreements(model_yaml, props_yaml)
    assert not problems, "\n".join(problems) + "\n\n" + model_yaml + "\n" + props_yaml


# -- mutation: the comparison catches a dropped guard or a dropped transition ------------------
@contextmanager
def mutated(kind: str, action: str | None = None):
    """Break the symbolic encoding on purpose: ignore every guard, or drop an action's transitions
    (the named action's, or the last instance's)."""
    original = encoding.Encoder.step

    def step(self, state):
        result = original(self, state)
        if kind == "guard":
            result.guards = [encoding.AND(self.exists(inst.action), True) for inst in self.instances]
        elif action is None:  # the last instance can never fire
            result.guards = result.guards[:-1] + [False]
        else:
            result.guards = [False if inst.action.name == action else g for g, inst in zip(result.guards, self.instances)]
        forced = encoding.OR(*(g for g, inst in zip(result.guards, self.instances) if inst.forced))
        result.forced_any = forced
        result.enabled = [g if inst.forced else encoding.AND(g, encoding.NOT(forced)) for g, inst in zip(result.guards, self.instances)]
        return result

    encoding.Encoder.step = step
    try:
        yield
    finally:
        encoding.Encoder.step = original


FIXED = """\
game: Fixed
id: fixed
players: [a, b]
state:
  x: "int[0..3]"
  turn: player
init: {x: 0, turn: a}
terminal: x == 3
actions:
  up:
    by: turn
    when: x < 2
    do: {x: x + 1, turn: succ(turn)}
    rule: r-1
  jump:
    by: rules
    when: x == 2 and turn == a
    do: {x: 3}
    rule: r-1
  wait:
    by: turn
    when: x == 2 and turn == b
    do: {turn: a}
    rule: r-1
"""
FIXED_PROPS = """\
- {id: inv, kind: invariant, expr: "x <= 3"}
- {id: reach, kind: reachable, expr: "x == 3"}
- {id: ends, kind: terminates}
- {id: one, kind: reachable, expr: "x == 1"}
- {id: jump-from-two, kind: after, action: jump, expr: "old(x) == 2"}
"""


@pytest.mark.parametrize("kind", ["guard", "transition"])
def test_mutation_is_caught(kind):
    assert disagreements(FIXED, FIXED_PROPS) == []
    with mutated(kind, "up"):
        assert disagreements(FIXED, FIXED_PROPS), f"dropping a {kind} went unnoticed"


@pytest.mark.parametrize("kind", ["guard", "transition"])
def test_mutation_is_caught_on_random_models(kind):
    """Hypothesis itself finds a random model on which the mutated engine disagrees."""
    from hypothesis import find

    with mutated(kind):
        case = find(models(), lambda c: bool(disagreements(*c)), settings=settings(max_examples=40, deadline=None, database=None, derandomize=True, phases=[Phase.generate], suppress_health_check=list(HealthCheck)))
    assert case


# -- large models: the Python engine, the native back-end and the symbolic engine ---------------
SYMBOLIC_DEPTH = 6  # the symbolic engine unrolls this far on the large models (z3 time grows fast)
SHORTEST = ("invariant", "unreachable", "after")


def large_disagreements(case: LargeModel) -> tuple[int, list[str]]:
    """Where the three explicit and symbolic verdicts on one large model differ.

    The Python engine and the native back-end explore the same graph: every result must agree
    exactly (verdict, states, depth, trace length). The symbolic engine unrolls only
    SYMBOLIC_DEPTH steps: a violation (or `reachable` witness) the explicit engine finds within
    that depth it must find at the same depth; one beyond it must not be found; a proof (k-induction)
    must be a property the explicit engine finds holding."""
    from checker.engines.native import unavailable_reason

    with tempfile.TemporaryDirectory() as root:
        path = write_game(root, "large", case.model_yaml, case.props_yaml)
        python = run(path, "explicit", backend="python")
        native = run(path, "explicit", backend="native") if unavailable_reason() is None else python
        sym = run(path, "symbolic", depth=SYMBOLIC_DEPTH, ids={"inv", "reach", "unreach", "aft", "deadlock-free"})
    out = []
    for pid, p in python.items():
        n = native[pid]
        if (p.status, p.states, p.depth, trace_len(p)) != (n.status, n.states, n.depth, trace_len(n)):
            out.append(f"{pid}: python {p.status} {p.states} states depth {p.depth} trace {trace_len(p)}, native {n.status} {n.states} states depth {n.depth} trace {trace_len(n)}")
    for pid, s in sym.items():
        e, kind = python[pid], python[pid].prop.kind
        found = "holds" if kind == "reachable" else "fails"
        shallow = e.status == found and (trace_len(e) or 0) <= SYMBOLIC_DEPTH if kind != "reachable" else e.status == "holds"
        if s.status == found and kind != "reachable":
            if e.status != found or trace_len(s) != trace_len(e):
                out.append(f"{pid}: symbolic {s.status} after {trace_len(s)} steps, explicit {e.status} after {trace_len(e)}")
        elif s.status == found:  # a reachable witness
            if e.status != "holds":
                out.append(f"{pid}: symbolic finds a witness, explicit {e.status}")
        elif s.status == "holds" and s.proof and e.status != "holds":
            out.append(f"{pid}: symbolic proves it ({s.bound}), explicit {e.status}")
        elif kind in SHORTEST and shallow:
            out.append(f"{pid}: explicit {e.status} after {trace_len(e)} steps, symbolic {s.status} ({s.bound}) within {SYMBOLIC_DEPTH}")
    return next(iter(python.values())).states, out


@settings(settings.get_profile(PROFILE), max_examples=2 if PROFILE == "ci" else 20)
@given(large_models(min_size=10_000))
def test_engines_agree_on_large_models(case):
    """Models of 10,000 to 40,000 states: the three implementations of checking agree."""
    states, problems = large_disagreements(case)
    event(f"reachable states: {size_band(states)}")
    target(float(states), label="reachable states")
    assert not problems, "\n".join(problems) + "\n\n" + case.model_yaml + "\n" + case.props_yaml
    assert states >= 10_000
