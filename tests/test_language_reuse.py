"""The constructs that let a model say a thing once: effect blocks (`effects`/`include`), action
`let`, `extends` over a list of fragments, table defaults and listed cells, membership tests,
`match` and expression `let`.

Each is checked the way that matters: the model written with it is the same transition system
as the model written out by hand (same IR, or the same states and edges), and every misuse is a
located error (exit status 2 on the command line).
"""

from __future__ import annotations

import os

import pytest

from checker.engines.explicit import Budget, explore
from checker.errors import Loc, RulecheckError
from checker.lang.build import load_model
from checker.lang.compile import CompiledModel
from checker.lang.interp import Interpreter
from checker.lang.typecheck import check_expr
from checker.lang.types import BOOL, INT
from tests.conftest import rulecheck, write

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# A small game to vary: a counter race where `reset` puts several slots back.
RACE = """\
game: race
id: {id}
players: [ann, bob]
domains:
  kind: [low, mid, high]
constants:
  gain: {{type: int, of: kind, value: {{low: 1, mid: 2, high: 3}}}}
state:
  pos: {{type: "int[0..9]", of: player}}
  turn: player
  laps: "int[0..2]"
  last: kind
init:
  pos: 0
  turn: ann
  laps: 0
  last: low
terminal: laps == 2
{effects}
actions:
  step:
    by: turn
    for: {{k: kind}}
    when: pos[turn] + gain[k] <= 9
    do:
      pos[turn]: pos[turn] + gain[k]
      turn: succ(turn)
      last: k
    rule: r1
  lap:
    by: rules
    when: pos[turn] >= 8
{lap}
    rule: r2
  stuck:
    by: rules
    when: pos[turn] + 1 > 9 and pos[turn] < 8
{stuck}
    rule: r2
clauses:
  r1: {{at: "1", says: "Move."}}
  r2: {{at: "2", says: "Start again."}}
"""

WRITTEN_OUT = {
    "effects": "",
    "lap": "    do:\n      pos: 0\n      turn: ann\n      last: low\n      laps: laps + 1",
    "stuck": "    do:\n      pos: 0\n      turn: ann\n      last: mid",
}
WITH_BLOCKS = {
    "effects": "effects:\n  restart: {pos: 0, turn: ann, last: low}",
    "lap": "    include: [restart]\n    do: {laps: laps + 1}",
    "stuck": "    include: restart\n    do: {last: mid}",
}


def _model(tmp_path, text: str, name: str = "m.yaml", folder: str = "game"):
    return load_model(write(tmp_path, text, name, folder))


def _graph(model) -> tuple[int, int, list[int]]:
    compiled = CompiledModel(model, model.default_config())
    exp, _ = explore(compiled, [], Budget())
    return len(exp.states), exp.transitions, sorted(exp.states)


def _error(tmp_path, text: str, name: str = "m.yaml", folder: str = "game") -> RulecheckError:
    with pytest.raises(RulecheckError) as info:
        _model(tmp_path, text, name, folder)
    assert info.value.loc is not None and info.value.loc.line > 0
    return info.value


# -- effect blocks ---------------------------------------------------------------------------

def test_an_included_block_is_the_same_action_as_the_assignments_written_out(tmp_path):
    plain = _model(tmp_path, RACE.format(id="plain", **WRITTEN_OUT), "plain.yaml", "a")
    blocks = _model(tmp_path, RACE.format(id="blocks", **WITH_BLOCKS), "blocks.yaml", "b")
    for name in ("lap", "stuck"):
        by_slot = {a.text: a.value for a in plain.actions[name].assigns}
        assert {a.text: a.value for a in blocks.actions[name].assigns}.keys() == by_slot.keys()
        for assign in blocks.actions[name].assigns:
            assert assign.value == by_slot[assign.text] or (assign.text == "last" and name == "stuck")
    assert _graph(plain) == _graph(blocks)
    # the action's own `do` replaced the block's `last: low`
    stuck_last = next(a for a in blocks.actions["stuck"].assigns if a.text == "last")
    assert stuck_last.value.value == "mid"


def test_a_block_uses_the_including_actions_let(tmp_path):
    text = RACE.format(
        id="m",
        effects="effects:\n  restart: {pos: 0, turn: ann, last: back_to}",
        lap="    let: {back_to: low}\n    include: [restart]\n    do: {laps: laps + 1}",
        stuck="    let: {back_to: mid}\n    include: [restart]",
    )
    plain = _model(tmp_path, RACE.format(id="plain", **WRITTEN_OUT), "plain.yaml", "a")
    assert _graph(_model(tmp_path, text)) == _graph(plain)


@pytest.mark.parametrize(
    ("effects", "lap", "message"),
    [
        ("effects:\n  restart: {pos: 0}", "    include: [restrat]", "unknown effect block `restrat`"),
        ("effects:\n  a: {pos: 0}\n  b: {pos: 1}", "    include: [a, b]", "both assign `pos`"),
        ("effects:\n  restart: {}", "    include: [restart]", "assigns nothing"),
        ("effects:\n  restart: {pos: 0, nope: 1}", "    include: [restart]", "unknown slot `nope`"),
        ("effects:\n  restart: {pos: 0}", "    include: 3", "takes the name of an effect block"),
        ("effects:\n  restart: {pos: 0}", "    include: [restart]\n    do: {\"pos[ann]\": 1}", "assigns `pos` twice"),
    ],
)
def test_bad_includes_are_located_errors(tmp_path, effects, lap, message):
    error = _error(tmp_path, RACE.format(id="m", effects=effects, lap=lap, stuck=WRITTEN_OUT["stuck"]))
    assert message in str(error)


def test_a_let_may_not_hide_a_name(tmp_path):
    text = RACE.format(id="m", effects="", lap="    let: {turn: ann}\n    do: {laps: laps + 1}", stuck=WRITTEN_OUT["stuck"])
    assert "hides another name" in str(_error(tmp_path, text))


# -- extends over a list -------------------------------------------------------------------

BASE = """\
game: frag
id: base
abstract: true
players: [ann, bob]
define:
  bonus: 0
  cap: 5
state:
  x: "int[0..9]"
init:
  x: 0
terminal: x >= cap
actions:
  up:
    by: rules
    when: x < cap
    do: {x: x + 1 + bonus}
    rule: r1
  down:
    by: rules
    when: false
    do: {x: 0}
    rule: r1
clauses:
  r1: {at: "1", says: "Count."}
"""


def _fragments(tmp_path, fragments: dict[str, str], variant: str) -> str:
    write(tmp_path, BASE, "base.yaml", "frag")
    for name, text in fragments.items():
        write(tmp_path, text, name, "frag")
    return write(tmp_path, variant, "v.yaml", "frag")


def test_fragments_merge_in_order_and_a_shared_base_once(tmp_path):
    path = _fragments(
        tmp_path,
        {
            "bonus.yaml": "fragment: true\nextends: base.yaml\ndefine: {bonus: 1}\n",
            "short.yaml": "fragment: true\nextends: base.yaml\ndefine: {cap: 3}\nremove_actions: [down]\n",
        },
        "extends: [bonus.yaml, short.yaml]\nid: v\n",
    )
    model = load_model(path)
    assert set(model.actions) == {"up"}
    assert model.terminal.right.value == 3
    states, _, _ = _graph(model)
    assert states == 3  # 0, 2, 4: steps of 1 + bonus up to the cap of 3


def test_fragments_are_not_models(tmp_path):
    _fragments(tmp_path, {"bonus.yaml": "fragment: true\nextends: base.yaml\ndefine: {bonus: 1}\n"}, "extends: [bonus.yaml]\nid: v\n")
    from checker.lang.loader import model_files

    found = [os.path.basename(f) for f in model_files([str(tmp_path / "models" / "frag")])]
    assert found == ["base.yaml", "v.yaml"]
    error = _error(tmp_path, "fragment: true\nextends: base.yaml\ndefine: {bonus: 1}\n", "bonus.yaml", "frag")
    assert "is a fragment" in str(error)


def test_two_fragments_writing_one_entry_conflict_unless_the_variant_decides(tmp_path):
    fragments = {
        "one.yaml": "fragment: true\nextends: base.yaml\ndefine: {bonus: 1}\n",
        "two.yaml": "fragment: true\nextends: base.yaml\ndefine: {bonus: 2}\n",
    }
    path = _fragments(tmp_path, fragments, "extends: [one.yaml, two.yaml]\nid: v\n")
    with pytest.raises(RulecheckError) as info:
        load_model(path)
    assert "`define.bonus` is written by one.yaml and by two.yaml" in str(info.value)
    assert info.value.loc.file.endswith("two.yaml")
    path = _fragments(tmp_path, fragments, "extends: [one.yaml, two.yaml]\nid: v\ndefine: {bonus: 0}\n")
    assert _graph(load_model(path))[0] == 6


def test_a_fragment_removing_what_another_replaces_conflicts(tmp_path):
    fragments = {
        "one.yaml": "fragment: true\nextends: base.yaml\nremove_actions: [down]\n",
        "two.yaml": "fragment: true\nextends: base.yaml\nactions: {down: {by: rules, when: false, do: {x: 1}, rule: r1}}\n",
    }
    path = _fragments(tmp_path, fragments, "extends: [one.yaml, two.yaml]\nid: v\n")
    with pytest.raises(RulecheckError, match="actions.down"):
        load_model(path)


@pytest.mark.parametrize(
    ("extends", "message"),
    [("[base.yaml, base.yaml]", "names `base.yaml` twice"), ("[nope.yaml]", "does not exist"), ("[]", "takes the path"), ("[v.yaml]", "cyclic")],
)
def test_bad_extends_lists_are_located_errors(tmp_path, extends, message):
    path = _fragments(tmp_path, {}, f"extends: {extends}\nid: v\n")
    with pytest.raises(RulecheckError, match=message) as info:
        load_model(path)
    assert info.value.loc.line == 1


# -- tables ----------------------------------------------------------------------------------

TABLES = """\
game: tables
id: t
domains:
  kind: [a, b, c]
constants:
  full: {{type: bool, of: [kind, kind], value: {{a: {{a: false, b: true, c: false}}, b: {{a: false, b: false, c: false}}, c: {{a: true, b: true, c: false}}}}}}
  short: {{type: bool, of: [kind, kind], value: {short}}}
  nums: {{type: int, of: kind, value: {nums}}}
state:
  x: "int[0..1]"
init:
  x: 0
terminal: true
actions:
  nothing: {{by: rules, when: false, do: {{x: 1}}, rule: r1}}
clauses:
  r1: {{at: "1", says: "Nothing."}}
"""


@pytest.mark.parametrize(
    "short",
    [
        "{default: false, true: [[a, b], [c, a], [c, b]]}",
        "{default: false, true: [[a, b], [c, [a, b]]]}",
        "{default: true, false: [[a, a], [a, c], [b, [a, b, c]], [c, c]]}",
        "{default: false, a: {b: true}, c: {default: true, c: false}}",
    ],
)
def test_sparse_tables_equal_the_table_written_out(tmp_path, short):
    model = _model(tmp_path, TABLES.format(short=short, nums="{default: 0, b: 2}"))
    assert model.constants["short"].default == model.constants["full"].default
    assert model.constants["nums"].default == {("a",): 0, ("b",): 2, ("c",): 0}


@pytest.mark.parametrize(
    ("short", "nums", "message"),
    [
        ("{true: [[a, b]]}", "{a: 0, b: 0, c: 0}", "no value for `a`"),
        ("{default: false, true: [[a, d]]}", "{a: 0, b: 0, c: 0}", "`d` is not a member"),
        ("{default: false, true: [[a]]}", "{a: 0, b: 0, c: 0}", "a cell is a list of 2"),
        ("{default: false, true: [[a, b], [a, [b, c]]]}", "{a: 0, b: 0, c: 0}", "listed twice"),
        ("{default: false, a: {b: true}, true: [[a, c]]}", "{a: 0, b: 0, c: 0}", "both written out and listed"),
        ("{default: false}", "{default: 0, true: [a]}", "only a table of booleans"),
        ("{default: false}", "{default: x, a: 1}", "expected an integer"),
    ],
)
def test_bad_tables_are_located_errors(tmp_path, short, nums, message):
    assert message in str(_error(tmp_path, TABLES.format(short=short, nums=nums)))


# -- expressions: membership, match, let ------------------------------------------------------

def _expr_model(tmp_path):
    return _model(tmp_path, RACE.format(id="m", **WRITTEN_OUT))


EQUIVALENT = [
    ("last in [low, high]", "last == low or last == high"),
    ("last not in (mid,)", "not (last == mid)"),
    ("laps in [0, 2]", "laps == 0 or laps == 2"),
    ("match(last, {low: 1, (mid, high): laps})", "1 if last == low else laps"),
    ("match(last, {low: 1, mid: 2, _: 3})", "1 if last == low else (2 if last == mid else 3)"),
    ("match(laps, {0: 5, 1: 6, _: 7})", "5 if laps == 0 else (6 if laps == 1 else 7)"),
    ("match(turn, {ann: bob, bob: ann})", "bob if turn == ann else ann"),
    ("let(p=pos[turn], q=p + 1)(q * p)", "(pos[turn] + 1) * pos[turn]"),
    ("let(k=last)(match(k, {low: 0, _: gain[k]}))", "0 if last == low else gain[last]"),
]


@pytest.mark.parametrize(("short", "long"), EQUIVALENT, ids=[e[0] for e in EQUIVALENT])
def test_new_expression_forms_are_their_long_forms(tmp_path, short, long):
    model = _expr_model(tmp_path)
    loc = Loc("t", 1, 1)
    a, b = check_expr(model.scope, short, loc), check_expr(model.scope, long, loc)
    assert a.type == b.type
    config = model.default_config()
    interp, compiled = Interpreter(model, config), CompiledModel(model, config)
    exp, _ = explore(compiled, [], Budget())
    layout = compiled.layout
    for packed in exp.states:
        state = layout.unpack(packed)
        assert interp.eval(a, state) == interp.eval(b, state)
        assert compiled.evaluator(a)(packed) == compiled.evaluator(b)(packed)


@pytest.mark.parametrize(
    ("source", "expected", "message"),
    [
        ("last in low", BOOL, "listed set of values"),
        ("last in [low, 3]", BOOL, "cannot compare"),
        ("0 < laps in [1]", BOOL, "stands alone"),
        ("match(last, {low: 1, mid: 2})", INT, "high missing"),
        ("match(laps, {0: 1})", INT, "does not cover every value"),
        ("match(last, {low: 1, low: 2, _: 0})", INT, "in two arms"),
        ("match(last, {_: 1, low: 2})", INT, "comes last"),
        ("match(last, {low: 1, _: ann})", INT, "differ in type"),
        ("match(last, {laps: 1, _: 0})", INT, "expected kind, found int"),
        ("match(last)", INT, "wrong arguments for match"),
        ("let(turn=1)(turn)", INT, "hides another name"),
        ("let(1)(2)", INT, "wrong form of let"),
    ],
)
def test_bad_expression_forms_are_located_errors(tmp_path, source, expected, message):
    model = _expr_model(tmp_path)
    with pytest.raises(RulecheckError) as info:
        check_expr(model.scope, source, Loc("t", 3, 5), expected)
    assert message in str(info.value)
    assert info.value.loc.line == 3


def test_a_bad_use_on_the_command_line_exits_2(tmp_path):
    text = RACE.format(id="m", effects="effects:\n  restart: {pos: 0}", lap="    include: [restrat]", stuck=WRITTEN_OUT["stuck"])
    path = write(tmp_path, text)
    done = rulecheck("lint", path, cwd=str(tmp_path))
    assert done.returncode == 2
    assert "model.yaml:34:15" in done.stderr + done.stdout and "restrat" in done.stderr + done.stdout
    assert "Traceback" not in done.stderr



# -- free tables in the symbolic engine -------------------------------------------------------

GAINS = """\
game: gains
id: m
domains:
  kind: [low, high]
constants:
  gain: {type: int, of: kind, range: [0, 3], value: {default: 1}}
  cap: {type: int, range: [1, 3], default: 2}
state:
  x: "int[0..20]"
  steps: "int[0..2]"
init:
  x: 0
  steps: 0
terminal: steps == 2
actions:
  add:
    by: rules
    for: {k: kind}
    when: steps < 2
    do: {x: "x + gain[k]", steps: steps + 1}
    rule: r-1
"""


def test_a_free_table_is_free_cell_by_cell(tmp_path):
    """With the table fixed, two steps of gain 1 never pass 2; left free, z3 picks a cell and
    names it, and the trace is replayed under the table it chose."""
    from tests.symbolic_support import run, write_game

    path = write_game(str(tmp_path), "gains", GAINS, "- {id: small, kind: invariant, expr: x <= 4}\n- {id: five, kind: reachable, expr: x == 5}\n")
    fixed = run(path, "symbolic", depth=4)
    assert fixed["small"].status == "holds" and fixed["five"].status == "fails"
    free = run(path, "symbolic", depth=4, free_constants=True)
    small = free["small"]
    assert small.status == "fails" and "gain[" in small.detail
    assert max(small.config.constants["gain"].values()) == 3 and small.trace.states()[-1]["x"] > 4
    assert free["five"].status == "holds"  # 2 + 3 in two steps: some table reaches 5
    only_cap = run(path, "symbolic", depth=4, free_constants={"cap"})
    assert only_cap["small"].status == "holds"  # the table stays fixed unless it is freed
