"""A hypothesis generator of models with thousands to tens of thousands of reachable states.

The differential tests need models big enough to exercise what small ones never reach: field
offsets past the first machine word, arrays with several elements, many action instances sharing
dispatch tests, forced rules firing in the middle of a play, chance weights read from the state,
readings that remove actions. Every generated model has *cyclers*: one always-enabled move per
slot (or array element) that steps it round its range, so every combination of slot values is
reachable and the state count is the product of the slots' sizes (drawn between about 1,000 and
40,000). On top of them come random actions (players', chance with state-dependent weights, the
turn player's, parameterised over a domain) with random guards and effects, and forced rules
that fire when the flag `f` is set and clear it, so they interleave with the rest without
freezing the play. A reading removes some actions (`only`) and is tested in guards.

`model_size` says how many states the cyclers make reachable (before the terminal condition cuts
plays short), so a test can `event` and `target` it without exploring.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from hypothesis import strategies as st

KINDS = ("k0", "k1", "k2")


def q(text: str) -> str:
    return json.dumps(text)


@dataclass(frozen=True)
class LargeModel:
    """A generated model (YAML text), its property suite, and the size its cyclers reach."""

    model_yaml: str
    props_yaml: str
    size: int


@st.composite
def int_term(draw, hi: dict[str, int], param: bool) -> str:
    atoms = ["x", "y", "c", "tbl[k1]", str(draw(st.integers(0, 3)))]
    atoms += ["arr[k]" if param else "arr[k0]", "arr[k2]"]
    a = draw(st.sampled_from(atoms))
    form = draw(st.integers(0, 5))
    if form == 0:
        return f"({a} + {draw(st.sampled_from(atoms))})"
    if form == 1:
        return f"max({a} - {draw(st.sampled_from(atoms))}, 0)"
    if form == 2:
        return "sum(arr[j] for j in kind)"
    if form == 3:
        return f"({a} if ph == p1 else {draw(st.sampled_from(atoms))})"
    return a


@st.composite
def condition(draw, hi: dict[str, int], param: bool, depth: int = 2) -> str:
    if depth == 0 or draw(st.integers(0, 2)) == 0:
        atoms = ["f", "not f", "turn == a", "ph == p0", "ph != p2", "reading.r == o2", "any(arr[j] == 0 for j in kind)", "CMP", "CMP"]
        atom = draw(st.sampled_from(atoms))
        if atom != "CMP":
            return atom
        op = draw(st.sampled_from(["==", "!=", "<", "<=", ">", ">="]))
        return f"{draw(int_term(hi, param))} {op} {draw(int_term(hi, param))}"
    a = draw(condition(hi, param, depth - 1))
    form = draw(st.integers(0, 2))
    if form == 0:
        return f"not ({a})"
    b = draw(condition(hi, param, depth - 1))
    return f"({a} {'and' if form == 1 else 'or'} {b})"


@st.composite
def effect(draw, hi: dict[str, int], param: bool) -> tuple[str, str]:
    """One write that stays in range (values are reduced modulo the slot's size)."""
    slot = draw(st.sampled_from(["x", "y", "arr", "ph", "turn"]))
    if slot in ("x", "y"):
        return slot, f"({draw(int_term(hi, param))}) % {hi[slot] + 1}"
    if slot == "arr":
        target = "arr[k]" if param else draw(st.sampled_from(["arr[k0]", "arr[k2]"]))
        return target, f"({draw(int_term(hi, param))}) % {hi['arr'] + 1}"
    if slot == "ph":
        return "ph", draw(st.sampled_from(["p0", "succ(ph)", "p2 if ph == p1 else p1"]))
    return "turn", draw(st.sampled_from(["succ(turn)", "a", "b"]))


def _size(x_hi: int, y_hi: int, arr_hi: int) -> int:
    """The states the cyclers reach: every value of x, y, each array element, ph, turn and f."""
    return (x_hi + 1) * (y_hi + 1) * (arr_hi + 1) ** len(KINDS) * 3 * 2 * 2


@st.composite
def large_models(draw, min_size: int = 1_000, max_size: int = 40_000) -> LargeModel:
    """A model whose cyclers reach between `min_size` and `max_size` states."""
    sizes = [(x, y, a) for x in range(2, 8) for y in range(1, 6) for a in range(1, 4) if min_size <= _size(x, y, a) <= max_size]
    x_hi, y_hi, arr_hi = draw(st.sampled_from(sizes))
    hi = {"x": x_hi, "y": y_hi, "arr": arr_hi}
    size = _size(x_hi, y_hi, arr_hi)
    lines = [
        "game: Large", "id: large", "players: [a, b]", "domains:", f"  kind: [{', '.join(KINDS)}]",
        "constants:",
        f"  c: {{type: int, range: [0, 2], default: {draw(st.integers(0, 2))}}}",
        f"  tbl: {{type: int, of: kind, value: {{k0: {draw(st.integers(0, 2))}, k1: {draw(st.integers(0, 2))}, k2: 1}}}}",
        "readings:", "  r:", "    clause: r-1", "    question: which?", "    options: {o1: one, o2: two}",
        f"    default: {draw(st.sampled_from(['o1', 'o2']))}",
        "state:", f"  x: \"int[0..{hi['x']}]\"", f"  y: \"int[0..{hi['y']}]\"",
        f"  arr: {{type: \"int[0..{hi['arr']}]\", of: kind}}", "  ph: [p0, p1, p2]", "  turn: player", "  f: bool",
        "init:", "  x: 0", f"  y: {draw(st.sampled_from(['0', '{choose: any}']))}", "  arr: 0", "  ph: p0", "  turn: a", "  f: false",
    ]
    terminal = draw(st.sampled_from([f"x == {hi['x']} and y == {hi['y']} and ph == p2 and f", "false", f"arr[k0] == {hi['arr']} and arr[k1] == {hi['arr']} and x == 0 and turn == b"]))
    lines += [f"terminal: {q(terminal)}", "actions:"]
    # the cyclers: every slot value combination is reachable
    cyclers = [
        ("cx", "turn", None, {"x": f"(x + 1) % {hi['x'] + 1}", "turn": "succ(turn)"}),
        ("cy", "a", None, {"y": f"(y + 1) % {hi['y'] + 1}"}),
        ("carr", "b", "k", {"arr[k]": f"(arr[k] + 1) % {hi['arr'] + 1}"}),
        ("cph", "turn", None, {"ph": "succ(ph)", "turn": "succ(turn)"}),
        ("cturn", "a", None, {"turn": "succ(turn)"}),
        ("cf", "b", None, {"f": "not f"}),
    ]
    for name, by, param, writes in cyclers:
        lines += [f"  {name}:", f"    by: {by}"]
        if param:
            lines.append(f"    for: {{{param}: kind}}")
        lines.append("    do:")
        lines += [f"      {q(t)}: {q(v)}" for t, v in writes.items()]
        lines.append("    rule: r-1")
    names = [c[0] for c in cyclers]
    for i in range(draw(st.integers(2, 6))):
        name = f"act{i}"
        names.append(name)
        by = draw(st.sampled_from(["chance", "rules", "turn", "a", "b"]))
        param = draw(st.booleans())
        lines += [f"  {name}:", f"    by: {by}"]
        if param:
            lines.append("    for: {k: kind}")
        guard = draw(condition(hi, param))
        writes = dict(draw(st.lists(effect(hi, param), min_size=1, max_size=3)))
        if by == "rules":  # forced: fires while f is set, and clears it
            guard = f"f and ({guard})"
            writes["f"] = "false"
        lines.append(f"    when: {q(guard)}")
        if by == "chance":
            lines.append(f"    weight: {q(draw(st.sampled_from(['1', 'x + 1', 'c + 1', 'arr[k] + 1' if param else 'y + 2'])))}")
        lines.append("    do:")
        lines += [f"      {q(t)}: {q(v)}" for t, v in writes.items()]
        lines.append("    rule: r-1")
        if draw(st.integers(0, 3)) == 0:
            lines.append(f"    only: {{r: {draw(st.sampled_from(['o1', 'o2']))}}}")
    far = f"x == {x_hi} and y == {y_hi} and arr[k1] == {arr_hi}"  # reachable, at the far end of the cyclers
    props = [
        f"- {{id: inv, kind: invariant, expr: {q(draw(condition(hi, False)))}}}",
        f"- {{id: reach, kind: reachable, expr: {q(draw(condition(hi, False)))}}}",
        f"- {{id: unreach, kind: unreachable, expr: {q(draw(condition(hi, False, 1)))}}}",
        f"- {{id: aft, kind: after, action: {draw(st.sampled_from(names))}, expr: {q(draw(st.sampled_from(['x', 'y', 'arr[k0]'])) + ' ' + draw(st.sampled_from(['>=', '==', '!='])) + ' old(' + draw(st.sampled_from(['x', 'y', 'arr[k0]'])) + ')')}}}",
        f"- {{id: far, kind: unreachable, expr: {q(far)}}}",
    ]
    return LargeModel("\n".join(lines) + "\n", "\n".join(props) + "\n", size)
