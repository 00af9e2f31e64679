"""Common subexpression sharing in generated code (`checker.lang.share`): the same values and
the same errors as the code it rewrites, on random code in the generator's style."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from checker.errors import ModellingError
from checker.lang.compile import HELPERS
from checker.lang.share import share

FIELDS = ["((s >> 3) & 7)", "((s >> 6) & 3)", "s_9", "((s >> 12) & 15)"]


def run(lines: list[str], s: int) -> tuple:
    """What the lines leave in `out`, or the error they raise."""
    namespace = dict(HELPERS)
    source = "def block(s):\n    s_9 = (s >> 9) & 7\n    out = []\n" + "".join(f"    {line}\n" for line in lines) + "    return out\n"
    exec(compile(source, "<test>", "exec"), namespace)
    try:
        return ("ok", namespace["block"](s))
    except ModellingError as exc:
        return ("error", str(exc))


def test_an_expression_spelled_twice_is_computed_once_where_one_use_is_always_evaluated() -> None:
    total = "(((s >> 3) & 7) + ((s >> 6) & 3))"
    lines = [f"v0 = 1 if ({total} > 2) else 0", f"v1 = max(0, ({total} * 2))", "out.append((v0, v1))"]
    shared = share(lines)
    assert shared[0] == f"h0 = {total}"
    assert all(total not in line for line in shared[1:])
    assert all(run(lines, s) == run(shared, s) for s in range(1 << 13))


def test_an_expression_only_a_short_circuit_reaches_is_left_where_it_is() -> None:
    total = "(((s >> 3) & 7) + ((s >> 6) & 3))"
    lines = [f"v0 = ((s_9 > 2) and ({total} > 2))", f"v1 = ((s_9 > 5) and ({total} > 4))", "out.append((v0, v1))"]
    assert share(lines) == lines


def test_code_that_can_raise_is_never_shared_so_errors_come_in_their_order() -> None:
    risky = "(_ix((((s >> 6) & 3) + 5), 0, 7, 'deck (top card)') + 1)"
    lines = ["v0 = _ix(((s >> 3) & 7), 0, 4, 'hand')", f"v1 = ({risky} * 2)", f"v2 = ({risky} * 3)", "out.append((v0, v1, v2))"]
    shared = share(lines)
    assert not any(line.startswith("h") and "_ix" in line for line in shared)
    outcomes = [run(shared, s) for s in range(1 << 9)]
    assert outcomes == [run(lines, s) for s in range(1 << 9)]
    assert ("error", "index 4 of `hand` is outside 0..3") in outcomes
    assert ("error", "index 7 of `deck (top card)` is outside 0..6") in outcomes


@st.composite
def expressions(draw, depth: int = 0) -> str:
    """Bracketed expressions as the generator spells them, some that can raise."""
    if depth >= 4 or draw(st.integers(0, 3)) == 0:
        return draw(st.sampled_from(FIELDS + ["1", "2", "5"]))
    kind = draw(st.sampled_from(["arith", "compare", "and", "or", "cond", "max", "ix", "table", "not"]))
    a = draw(expressions(depth + 1))
    b = draw(expressions(depth + 1))
    if kind == "arith":
        return f"({a} {draw(st.sampled_from(['+', '-', '*']))} {b})"
    if kind == "compare":
        return f"({a} {draw(st.sampled_from(['<', '<=', '==', '!=']))} {b})"
    if kind in ("and", "or"):
        return f"({a} {kind} {b})"
    if kind == "cond":
        return f"({a} if {draw(expressions(depth + 1))} else {b})"
    if kind == "max":
        return f"max({a}, {b})"
    if kind == "ix":
        return f"_ix({a}, 0, 4, {draw(st.sampled_from(['a', 'b', 'c']))!r})"
    if kind == "table":
        return "((3, 1, 4, 1)[((s >> 6) & 3)] + " + a + ")"
    return f"(not {a})"


@settings(max_examples=300, deadline=None)
@given(st.lists(expressions(), min_size=2, max_size=5), st.lists(st.integers(0, (1 << 16) - 1), min_size=20, max_size=20))
@pytest.mark.slow
def test_shared_code_computes_what_the_code_it_rewrites_does(values: list[str], states: list[int]) -> None:
    # Repeating the values makes shareable expressions common; the append uses them all.
    lines = [f"v{i} = {value}" for i, value in enumerate(values + values[::-1])]
    lines.append(f"out.append(({', '.join(f'v{i}' for i in range(2 * len(values)))},))")
    shared = share(lines)
    for s in states:
        assert run(shared, s) == run(lines, s)
