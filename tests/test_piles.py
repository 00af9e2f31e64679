"""Ordered piles (`type: pile`): the type checker's located errors, every operation in the
interpreter, the compiled code and the native back-end against the interpreter on generated pile
models, traces showing piles as lists, and the War models rewritten with piles against the
hand-shifted array version they replace."""

from __future__ import annotations

import os
import textwrap
from collections import deque

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from checker.engines import explicit
from checker.engines.explicit import Budget
from checker.errors import Loc, ModellingError, RulecheckError
from checker.evidence.trace import Trace, narrative, replay_path, states_from_json, to_itf, to_json
from checker.lang.build import load_model
from checker.lang.compile import CompiledModel
from checker.lang.interp import Interpreter
from checker.lang.piles import fold, lengths_of
from checker.lang.typecheck import check_expr
from checker.lang.types import INT
from tests.symbolic_support import write_game

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

BASE = """\
game: piles
id: m
players: [a, b]
domains:
  card: [lo, mid, hi]
state:
  deck: {type: pile, holds: card, size: 3, label: "the deck"}
  hand: {type: pile, holds: card, size: 2, of: player}
  score: {type: pile, holds: "int[1..4]", size: 2}
  turn: player
init:
  deck: [hi, lo, mid]
  hand: {a: [mid], b: []}
  score: [4]
  turn: a
terminal: "false"
actions:
  %s
clauses:
  r: {at: "Rule", says: "A rule."}
"""

IDLE = "idle: {by: turn, when: 'false', rule: r}"


def model_with(tmp_path, actions: str = IDLE, name: str = "m"):
    folder = tmp_path / name
    folder.mkdir(exist_ok=True)
    path = folder / "m.yaml"
    path.write_text(BASE % textwrap.indent(textwrap.dedent(actions), "  ").strip())
    return load_model(str(path))


def value(model, text: str, state=None):
    interp = Interpreter(model, model.default_config())
    expr = check_expr(model.scope, text, Loc("t", 1, 1))
    return interp.eval(expr, state or interp.initial_states()[0])


# -- the type checker ------------------------------------------------------------------------------
@pytest.mark.parametrize("text, message", [
    ("top(turn)", "top() takes a pile, found player"),
    ("top(deck, deck)", "wrong arguments for top()"),
    ("deck == deck", "piles are not compared"),
    ("hand", "is an array of piles over player"),
    ("hand[a][0][1]", "is a pile: it takes 1 index(es)"),
    ("deck", "a pile is not a value here"),
    ("len(deck) + deck", "type mismatch: expected int, found pile of card"),
    ("top(draw(hand[a])) == 3", "cannot compare card with int"),
    ("len([])", "a list is not part of the model language"),
    ("top(len)", "unknown name `len`"),
])
def test_expression_errors_are_located(tmp_path, text, message):
    model = model_with(tmp_path)
    with pytest.raises(RulecheckError) as info:
        check_expr(model.scope, text, Loc("t.yaml", 7, 3))
    assert message in info.value.message
    assert info.value.loc.file == "t.yaml" and info.value.loc.line == 7 and info.value.loc.col >= 3


@pytest.mark.parametrize("actions, message, line", [
    ("bad: {by: turn, do: {'hand[a][0]': lo}, rule: r}", "is a pile: an assignment writes a whole pile", 18),
    ("bad: {by: turn, do: {'hand[a]': top(deck)}, rule: r}", "type mismatch: expected pile of card, found card", 18),
    ("bad: {by: turn, do: {'hand[a]': 'put_top(hand[a], 2)'}, rule: r}", "type mismatch: expected card, found int", 18),
    ("bad: {by: turn, do: {'score': draw(deck)}, rule: r}", "type mismatch: expected pile of int[1..4], found pile of card", 18),
])
def test_assignment_errors_are_located(tmp_path, actions, message, line):
    with pytest.raises(RulecheckError) as info:
        model_with(tmp_path, actions)
    assert message in info.value.message
    assert info.value.loc.line == line


@pytest.mark.parametrize("old, new, message", [
    ("deck: {type: pile, holds: card, size: 3, label: \"the deck\"}", "deck: {type: pile, holds: card, label: x}", "pile `deck` is missing `size`"),
    ("deck: {type: pile, holds: card, size: 3, label: \"the deck\"}", "deck: {type: pile, holds: card, size: 0}", "`size` is the most cards it can hold"),
    ("deck: {type: pile, holds: card, size: 3, label: \"the deck\"}", "deck: {type: pile, holds: suit, size: 3}", "unknown type `suit`"),
    ("deck: [hi, lo, mid]", "deck: [hi, lo, mid, lo]", "4 cards, more than its size 3"),
    ("deck: [hi, lo, mid]", "deck: hi", "a pile starts as a list of cards"),
    ("hand: {a: [mid], b: []}", "hand: {a: [mid]}", "has no pile for `b`"),
])
def test_declaration_and_init_errors_are_located(tmp_path, old, new, message):
    folder = tmp_path / "m"
    folder.mkdir()
    text = BASE % IDLE
    assert old in text
    (folder / "m.yaml").write_text(text.replace(old, new))
    with pytest.raises(RulecheckError) as info:
        load_model(str(folder / "m.yaml"))
    assert message in info.value.message
    assert info.value.loc.file.endswith("m.yaml") and info.value.loc.line > 1


# -- each operation in the interpreter ---------------------------------------------------------------
@pytest.mark.parametrize("text, expected", [
    ("top(deck)", "hi"), ("bottom(deck)", "mid"), ("len(deck)", 3), ("deck[1]", "lo"), ("deck[2]", "mid"),
    ("top(hand[a])", "mid"), ("len(hand[b])", 0), ("top(draw(deck))", "lo"), ("len(draw(deck))", 2),
    ("top(put_top(hand[a], hi))", "hi"), ("bottom(put_bottom(hand[a], lo))", "lo"), ("len(put_bottom(hand[b], lo))", 1),
    ("top(remove(deck, 0))", "lo"), ("bottom(remove(deck, 2))", "lo"), ("len(remove(deck, 1))", 2), ("top(remove(deck, 1))", "hi"),
    ("bottom(draw(draw(deck)))", "mid"), ("top(draw(deck) if len(hand[a]) > 0 else deck)", "lo"),
    ("top(score) + len(score)", 5), ("sum(1 for p in player if len(hand[p]) == 0)", 1),
])
def test_operations(tmp_path, text, expected):
    assert value(model_with(tmp_path), text) == expected


@pytest.mark.parametrize("text, message", [
    ("top(hand[b])", "`top(hand[b])`: the pile is empty"),
    ("bottom(hand[b])", "`bottom(hand[b])`: the pile is empty"),
    ("len(draw(hand[b]))", "`draw(hand[b])`: the pile is empty"),
    ("deck[3]", "no card at that position"),
    ("hand[a][1]", "no card at that position"),
    ("len(put_top(put_top(hand[a], lo), lo))", "the pile is full (2 cards)"),
    ("len(put_bottom(deck, lo))", "the pile is full (3 cards)"),
    ("len(remove(hand[a], 1))", "no card at that position"),
])
def test_what_a_pile_cannot_do_is_a_located_modelling_error(tmp_path, text, message):
    model = model_with(tmp_path)
    with pytest.raises(ModellingError) as info:
        value(model, text)
    assert message in info.value.message
    assert info.value.loc is not None and info.value.loc.file == "t"


def test_effects_write_the_whole_pile_and_keep_it_canonical(tmp_path):
    model = model_with(tmp_path, """
        deal:
          by: turn
          when: len(deck) > 0
          do:
            deck: draw(deck)
            hand[turn]: put_bottom(hand[turn], top(deck))
            score: "[]"
            turn: succ(turn)
          rule: r
        """)
    interp = Interpreter(model, model.default_config())
    (move,) = interp.transitions(interp.initial_states()[0])
    shown = fold(lengths_of(model.piles), move.post)
    assert shown == {"deck": ["lo", "mid"], "hand": {("a",): ["mid", "hi"], ("b",): []}, "score": [], "turn": "b"}
    assert move.post["deck"][(2,)] == "lo" and move.post["score"][(0,)] == 1  # the empty positions hold the first value
    (second,) = interp.transitions(move.post)
    assert fold(lengths_of(model.piles), second.post)["hand"] == {("a",): ["mid", "hi"], ("b",): ["lo"]}
    with pytest.raises(ModellingError) as info:  # a's hand is full at the third deal
        interp.transitions(second.post)
    assert "the pile is full (2 cards)" in info.value.message and info.value.action == "deal"


def test_whole_array_of_piles_and_listed_piles(tmp_path):
    model = model_with(tmp_path, """
        reset:
          by: turn
          do:
            hand: "[]"
            deck: "[lo, hi] if len(deck) == 3 else [mid]"
          rule: r
        """)
    interp = Interpreter(model, model.default_config())
    (move,) = interp.transitions(interp.initial_states()[0])
    shown = fold(lengths_of(model.piles), move.post)
    assert shown["hand"] == {("a",): [], ("b",): []} and shown["deck"] == ["lo", "hi"]


# -- compiled and native code against the interpreter, on generated pile models --------------------
CARDS = ["c", "lo", "hi", "top(p[q])", "bottom(p[a])", "p[b][1]"]


@st.composite
def pile_exprs(draw, depth: int = 2):
    if depth == 0 or draw(st.booleans()):
        return draw(st.sampled_from(["p[q]", "p[a]", "p[b]", "p[succ(q)]", "[]", "[c]"]))
    inner = draw(pile_exprs(depth - 1))
    op = draw(st.sampled_from(["draw", "put_top", "put_bottom", "remove", "if"]))
    if op == "draw":
        return f"draw({inner})"
    if op in ("put_top", "put_bottom"):
        return f"{op}({inner}, {draw(st.sampled_from(CARDS))})"
    if op == "remove":
        return f"remove({inner}, {draw(st.sampled_from(['0', '1', 'len(p[q]) - 1']))})"
    other = draw(pile_exprs(depth - 1))
    return f"{inner} if {draw(st.sampled_from(['len(p[a]) > 1', 'top(p[b]) == hi', 'c == lo']))} else {other}"


@st.composite
def pile_models(draw) -> str:
    actions = []
    for i in range(draw(st.integers(1, 3))):
        guard = draw(st.sampled_from(["true", "len(p[q]) > 0", "len(p[a]) + len(p[b]) < 4", "len(p[succ(q)]) < 2"]))
        actions.append(f"""\
  act{i}:
    by: {draw(st.sampled_from(['chance', 'q']))}
    for: {{c: card, q: player}}
    when: "{guard}"
    do:
      "p[q]": "{draw(pile_exprs())}"
    rule: r
""")
    init = draw(st.sampled_from(["[]", "[lo, hi]", "{a: [hi], b: [lo, lo, hi]}"]))
    return f"""\
game: gen
id: gen
players: [a, b]
domains:
  card: [lo, hi]
state:
  p: {{type: pile, holds: card, size: 3, of: player}}
init:
  p: {init}
terminal: "false"
actions:
{''.join(actions)}clauses:
  r: {{at: "Rule", says: "A rule."}}
"""


def outcome(fn):
    try:
        return ("value", fn())
    except ModellingError:
        return ("error", None)


def disagreements(model) -> tuple[int, int, list[str]]:
    """Every reachable state: the compiled moves against the interpreter's (an error in both is
    agreement). Returns states compared, states raising, and the first differences."""
    config = model.default_config()
    compiled, interp = CompiledModel(model, config), Interpreter(model, config)
    seen = set(compiled.initial)
    queue = deque(compiled.initial)
    problems, errors = [], 0
    while queue and len(problems) < 3:
        s = queue.popleft()
        state = compiled.layout.unpack(s)
        got = outcome(lambda s=s: sorted((compiled.instances[i].action.name, compiled.instances[i].params, t) for i, t in compiled.successors(s)))
        want = outcome(lambda state=state: sorted((m.action, m.params, compiled.layout.pack(m.post)) for m in interp.transitions(state)))
        if got != want:
            problems.append(f"in {fold(lengths_of(model.piles), state)}: compiled {got}, interpreted {want}")
        if got[0] == "error":
            errors += 1
            continue
        for _, _, t in got[1]:
            if t not in seen:
                seen.add(t)
                queue.append(t)
    return len(seen), errors, problems


@settings(max_examples=int(os.environ.get("RULECHECK_PILE_EXAMPLES", "40")), deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(model_yaml=pile_models())
def test_compiled_agrees_with_the_interpreter_on_pile_models(tmp_path_factory, model_yaml):
    root = tmp_path_factory.mktemp("gen")
    model = load_model(write_game(str(root), "gen", model_yaml))
    states, _, problems = disagreements(model)
    assert not problems, "\n".join(problems) + "\n\n" + model_yaml
    assert states >= 1


@pytest.mark.slow
def test_the_generated_pile_models_reach_errors_and_many_states(tmp_path):
    """The agreement test means something only if its models raise pile errors and grow."""
    from hypothesis import find

    # A generous budget and no deadline: which example comes first depends on the hypothesis
    # release, and a search that stops at its first hit is cheap.
    budget = settings(database=None, derandomize=True, deadline=None, max_examples=1000)
    big = find(pile_models(), lambda y: disagreements(load_model(write_game(str(tmp_path / "a"), "gen", y)))[0] > 30, settings=budget)
    failing = find(pile_models(), lambda y: disagreements(load_model(write_game(str(tmp_path / "b"), "gen", y)))[1] > 0, settings=budget)
    assert big and failing


def test_native_agrees_with_python_on_pile_models(tmp_path):
    pytest.importorskip("numba")
    from tests.conformance.backends import compare

    props = """\
    - id: never-three
      kind: invariant
      expr: all(len(p[q]) < 3 for q in player)
      expect: fails
    - id: ends
      kind: terminates
      expect: fails
    """
    path = write_game(str(tmp_path), "gen", _FIXED_NATIVE_MODEL, props)
    from tests.symbolic_support import bound_props

    model, bound = bound_props(path)
    assert compare(model, model.default_config(), bound) == []


_FIXED_NATIVE_MODEL = """\
game: gen
id: gen
players: [a, b]
domains:
  card: [lo, hi]
state:
  p: {type: pile, holds: card, size: 3, of: player}
init:
  p: {a: [hi], b: [lo, lo]}
terminal: "false"
actions:
  give:
    by: q
    for: {q: player}
    when: len(p[q]) > 0 and len(p[succ(q)]) < 3
    do:
      "p[r] for r in player": "draw(p[r]) if r == q else put_bottom(p[r], top(p[q]))"
    rule: r
  turn_over:
    by: chance
    for: {q: player, c: card}
    when: len(p[q]) > 1 and p[q][1] == c
    do:
      "p[q]": "put_top(remove(p[q], 1), c) if top(p[q]) != c else draw(p[q]) if len(p[q]) > 2 else p[q]"
    rule: r
clauses:
  r: {at: "Rule", says: "A rule."}
"""


# -- traces --------------------------------------------------------------------------------------------
def test_traces_show_piles_as_lists_top_first(tmp_path):
    model = model_with(tmp_path, """
        deal:
          by: turn
          when: len(deck) > 0
          do: {deck: draw(deck), "hand[turn]": "put_top(hand[turn], top(deck))", turn: succ(turn)}
          rule: r
          text: "{by} takes the top card of {@deck}"
        """)
    from checker.evidence.trace import display_info

    config = model.default_config()
    interp = Interpreter(model, config)
    s0 = interp.initial_states()[0]
    s1 = interp.transitions(s0)[0].post
    s2 = interp.transitions(s1)[0].post
    steps = replay_path(model, config, [s0, s1, s2])
    assert ("hand[a]", ["mid"], ["hi", "mid"]) in steps[0].changes and ("deck", ["hi", "lo", "mid"], ["lo", "mid"]) in steps[0].changes
    trace = Trace("piles", "m", "p", "invariant", "", config, "default", s0, steps, "path", display=display_info(model))
    doc = to_json(trace)
    assert doc["initial"]["deck"] == ["hi", "lo", "mid"] and doc["initial"]["hand"] == {"a": ["mid"], "b": []}
    assert "deck#len" not in doc["initial"] and doc["display"]["piles"] == {"deck": "deck#len", "hand": "hand#len", "score": "score#len"}
    assert states_from_json(model, doc) == [s0, s1, s2]
    text = narrative(doc)
    assert "Piles are listed top card first." in text
    assert "the deck: [hi, lo, mid]; hand: a=[mid], b=empty" in text
    assert "the deck [hi, lo, mid]\u2192[lo, mid], hand[a] [mid]\u2192[hi, mid]" in text
    itf = to_itf(trace)
    assert itf["states"][2]["hand"] == {"#map": [["a", ["hi", "mid"]], ["b", ["lo"]]]}
    assert itf["states"][0]["score"] == [{"#bigint": "4"}] and "deck#len" not in itf["vars"]


# -- War rewritten with piles --------------------------------------------------------------------------
def explore(model):
    compiled = CompiledModel(model, model.default_config())
    exploration, _ = explicit.explore(compiled, [], Budget(500_000, 120.0), need_graph=True)
    return compiled, exploration


def test_war_with_piles_is_the_hand_shifted_war():
    """The same states, transitions and verdicts as the array version, in fewer lines and no
    more bits per state."""
    from tests.symbolic_support import run

    piles = load_model(os.path.join(ROOT, "benchmarks", "models", "war", "war6.yaml"))
    array = load_model(os.path.join(ROOT, "tests", "data", "war6_array.yaml"))
    (cp, ep), (ca, ea) = explore(piles), explore(array)
    assert len(ep.states) == len(ea.states) == 3217
    assert ep.transitions == ea.transitions
    assert cp.layout.bits <= ca.layout.bits
    results = run(os.path.join(ROOT, "benchmarks", "models", "war", "war6.yaml"), "explicit")
    assert {pid: r.status for pid, r in results.items()} == {"game-ends": "holds", "cards-kept": "holds", "deadlock-free": "holds", "deterministic": "holds", "coverage": "holds"}
    lines = [sum(1 for line in open(m.path) if line.strip() and not line.startswith("#")) for m in (piles, array)]
    assert lines[0] < lines[1]


def test_len_is_an_int_everywhere(tmp_path):
    model = model_with(tmp_path)
    assert check_expr(model.scope, "len(deck)", Loc("t", 1, 1), INT).type == INT


def test_definitions_let_and_old_take_piles(tmp_path):
    folder = tmp_path / "m"
    folder.mkdir()
    text = (BASE % IDLE).replace("state:\n", "define:\n  rest(q): draw(hand[q])\n  deck_top: top(deck)\nstate:\n", 1)
    (folder / "m.yaml").write_text(text)
    model = load_model(str(folder / "m.yaml"))
    assert value(model, "len(rest(a)) == 0 and deck_top == hi") is True
    assert value(model, "let(d=draw(deck))(top(d) == lo and len(d) == 2)") is True
    interp = Interpreter(model, model.default_config())
    s0 = interp.initial_states()[0]
    expr = check_expr(model.scope, "top(old(deck)) == hi and len(old(draw(deck))) == 2", Loc("t", 1, 1), allow_old=True)
    assert interp.eval(expr, s0, {}, old=s0) is True


def test_the_symbolic_engine_encodes_piles_and_their_errors(tmp_path):
    """Piles reach the z3 encoder as their two slots and `Require` nodes: it finds the same
    counterexample length, proves the same invariant, and reports the same modelling error."""
    from tests.symbolic_support import run

    props = """\
    - id: never-three
      kind: invariant
      expr: all(len(p[q]) < 3 for q in player)
      expect: fails
    - id: hi-stays
      kind: invariant
      expr: sum(len(p[q]) for q in player) <= 3
      expect: holds
    """
    path = write_game(str(tmp_path / "ok"), "gen", _FIXED_NATIVE_MODEL, props)
    explicit_results, symbolic_results = run(path, "explicit"), run(path, "symbolic", depth=12)
    for pid in ("never-three", "hi-stays"):
        assert explicit_results[pid].status == symbolic_results[pid].status, pid
    assert symbolic_results["never-three"].status == "fails" and symbolic_results["hi-stays"].status == "holds"
    assert len(symbolic_results["never-three"].trace.steps) == len(explicit_results["never-three"].trace.steps)
    broken = _FIXED_NATIVE_MODEL.replace("when: len(p[q]) > 0 and len(p[succ(q)]) < 3", "when: len(p[succ(q)]) < 3").replace("{a: [hi], b: [lo, lo]}", "{a: [], b: [lo]}")
    path = write_game(str(tmp_path / "broken"), "gen", broken, props)
    explicit_results, symbolic_results = run(path, "explicit"), run(path, "symbolic", depth=12)
    assert explicit_results["never-three"].status == symbolic_results["never-three"].status == "error"
