"""Every property kind, on small models written for the tests: verdicts and counterexample shapes.

Each test would fail if its kind broke: verdicts are asserted both ways (a model where the
property holds and one where it fails), and failures are checked for their shape (length,
loop start, last action, the two disagreeing clauses).
"""

from __future__ import annotations

import textwrap

import pytest

from checker.engines.explicit import Budget
from checker.errors import RulecheckError
from checker.pipeline.runner import CheckOptions, check_paths
from tests.conftest import write

COUNTER = """\
game: Counter
id: counter
players: [ann, bob]
readings:
  step:
    clause: c-1
    question: How far does a move go?
    options: {one: one, two: two}
    default: one
state:
  x: "int[0..4]"
  turn: player
  done: bool
init:
  x: 0
  turn: ann
  done: false
terminal: done
actions:
  inc:
    by: turn
    when: x < 4
    do:
      x: "x + 1 if reading.step == one else min(x + 2, 4)"
      turn: succ(turn)
    rule: c-1
  finish:
    by: rules
    when: x == 4
    do: {done: true}
    rule: c-2
clauses:
  c-1: {at: "1", says: "On your turn, move the counter up."}
  c-2: {at: "2", says: "At four the game ends."}
"""


def run(tmp_path, model: str, props: str, **options) -> dict:
    """Check one model with a suite; returns results keyed by (property id, reading label)."""
    path = write(tmp_path, model, "m.yaml", "g")
    suite = tmp_path / "properties"
    suite.mkdir(exist_ok=True)
    (suite / "g.yaml").write_text("game: g\nproperties:\n" + textwrap.indent(textwrap.dedent(props), "  "))
    results = check_paths([path], CheckOptions(**options))
    return {(r.prop.id, r.reading_label): r for r in results}


def test_invariant_holds_and_fails_with_a_shortest_trace(tmp_path):
    results = run(tmp_path, COUNTER, """
        - {id: small, kind: invariant, expr: "x <= 4"}
        - {id: below3, kind: invariant, expr: "x < 3", expect: fails}
    """)
    assert results[("small", "default")].status == "holds"
    assert results[("small", "default")].bound == "exhaustive"
    failed = results[("below3", "default")]
    assert failed.status == "fails" and failed.matches
    assert len(failed.trace.steps) == 3  # 0 -> 1 -> 2 -> 3 is the shortest way to x == 3
    assert failed.trace.states()[-1]["x"] == 3
    assert [s.actor for s in failed.trace.steps] == ["ann", "bob", "ann"]
    assert len(results[("below3", "step=two")].trace.steps) == 2  # 0 -> 2 -> 4 under the other reading


def test_after_refers_to_the_pre_state(tmp_path):
    results = run(tmp_path, COUNTER, """
        - {id: up-one, kind: after, action: inc, expr: "x == old(x) + 1"}
        - {id: up-two, kind: after, action: inc, expr: "x == old(x) + 2"}
    """)
    assert results[("up-one", "default")].status == "holds"
    bad = results[("up-two", "default")]
    assert bad.status == "fails" and len(bad.trace.steps) == 1 and bad.trace.steps[-1].action == "inc"
    # Under step=two every move goes up by two: up-one fails at the very first move, 0 -> 2.
    two = results[("up-one", "step=two")]
    assert two.status == "fails"
    assert [(s.action, s.actor) for s in two.trace.steps] == [("inc", "ann")]
    assert [state["x"] for state in two.trace.states()] == [0, 2]


def test_reachable_and_unreachable(tmp_path):
    results = run(tmp_path, COUNTER, """
        - {id: three, kind: reachable, expr: "x == 3"}
        - {id: never-three, kind: unreachable, expr: "x == 3"}
        - {id: over-before-four, kind: reachable, expr: "done and x < 4", expect: fails}
    """)
    assert results[("three", "default")].status == "holds"
    assert results[("three", "step=two")].status == "fails"  # 0, 2, 4: three is skipped
    assert results[("never-three", "default")].status == "fails"
    assert results[("never-three", "step=two")].status == "holds"
    assert len(results[("never-three", "default")].trace.steps) == 3
    assert results[("over-before-four", "default")].status == "fails" and results[("over-before-four", "default")].trace is None


LOOPS = """\
game: Loops
id: loops
players: [ann]
readings:
  loop:
    clause: l-1
    question: Which kind of loop?
    options: {none: no loop, forced: the rules loop, player: ann may loop, chance: a coin loops, both: a coin and ann loop}
    default: none
state:
  x: "int[0..3]"
  over: bool
init: {x: 0, over: false}
terminal: over
actions:
  advance:
    by: ann
    when: x < 3
    do: {x: x + 1}
    rule: l-1
  end:
    by: rules
    when: x == 3
    do: {over: true}
    rule: l-2
  spin:
    by: rules
    when: x == 1
    do: {x: 2}
    rule: l-3
    only: {loop: forced}
  spin_back:
    by: rules
    when: x == 2
    do: {x: 1}
    rule: l-3
    only: {loop: forced}
  stall:
    by: ann
    when: x == 2
    do: {x: 1}
    rule: l-3
    only: {loop: [player, both]}
  coin:
    by: chance
    when: x == 2
    do: {x: 1}
    rule: l-3
    only: {loop: chance}
  coin_wins:
    by: chance
    when: x == 2
    do: {x: 3}
    rule: l-3
    only: {loop: chance}
  flip_back:
    by: chance
    when: x == 1
    do: {x: 0}
    rule: l-3
    only: {loop: both}
  flip_on:
    by: chance
    when: x == 1
    do: {x: 2}
    rule: l-3
    only: {loop: both}
clauses:
  l-1: {at: "1", says: "Advance."}
  l-2: {at: "2", says: "At three the game is over."}
  l-3: {at: "3", says: "Sometimes you go back."}
"""


def test_terminates_holds_and_each_loop_is_classified(tmp_path):
    results = run(tmp_path, LOOPS, """
        - id: ends
          kind: terminates
          expect: {default: holds, loop=forced: fails, loop=player: fails, loop=chance: fails, loop=both: fails}
    """)
    assert results[("ends", "default")].status == "holds"
    forced = results[("ends", "loop=forced")]
    assert forced.status == "fails" and forced.trace.shape == "lasso"
    states = forced.trace.states()
    assert states[forced.trace.loop_start] == states[-1]
    assert "Forced loop" in forced.trace.note
    assert "players can choose" in results[("ends", "loop=player")].trace.note
    chance = results[("ends", "loop=chance")].trace
    assert "Chance-only loop" in chance.note and "ends with probability 1" in chance.note
    assert chance.game_ends_surely is True
    # under `both` ann can go round 1 -> 2 -> 1 herself, whichever loop the engine shows
    assert results[("ends", "loop=both")].trace.game_ends_surely is not True
    assert all(r.matches for (pid, _), r in results.items() if pid == "ends")
    # The forced loop traps every play before three, so the rule that ends the game is dead.
    assert results[("coverage", "loop=forced")].status == "fails" and "end" in results[("coverage", "loop=forced")].detail


def test_terminates_within_a_bound(tmp_path):
    results = run(tmp_path, LOOPS, """
        - {id: quick, kind: terminates, within: 3, expect: fails}
        - {id: bounded, kind: terminates, within: 4}
    """, readings="default")
    quick = results[("quick", "default")]
    assert quick.status == "fails" and len(quick.trace.steps) == 4
    assert results[("bounded", "default")].status == "holds"


def test_leads_to(tmp_path):
    results = run(tmp_path, LOOPS, """
        - id: two-then-three
          kind: leads-to
          from: "x == 2"
          to: "x == 3"
          expect: {default: holds, loop=forced: fails, loop=player: fails, loop=chance: fails}
        - {id: one-then-over, kind: leads-to, from: "x == 1", to: "over and x == 0", expect: fails}
    """)
    assert results[("two-then-three", "default")].status == "holds"
    lasso = results[("two-then-three", "loop=player")]
    assert lasso.status == "fails" and lasso.trace.shape == "lasso"
    ended = results[("one-then-over", "default")]
    assert ended.status == "fails" and ended.trace.shape == "path" and "game ends" in ended.trace.note


STUCK = """\
game: Stuck
id: stuck
players: [ann]
domains:
  card: [red, blue]
state:
  x: "int[0..2]"
  colour: card
  over: bool
init: {x: 0, colour: red, over: false}
terminal: over
actions:
  step:
    by: ann
    when: x < 2
    do: {x: x + 1}
    rule: s-1
  paint_red:
    by: rules
    when: x == 1 and colour == red
    do: {colour: red, x: 2}
    rule: s-2
  paint_blue:
    by: rules
    when: x == 1 and colour == red
    do: {colour: blue, x: 2}
    rule: s-3
  never:
    by: ann
    when: x > 5 - 5 and x < 0
    do: {over: true}
    rule: s-1
clauses:
  s-1: {at: "1", says: "Step."}
  s-2: {at: "2", says: "Paint it red."}
  s-3: {at: "3", says: "Paint it blue."}
"""


def test_generic_properties_run_by_default_and_report_their_evidence(tmp_path):
    results = run(tmp_path, STUCK, "- {id: nonnegative, kind: invariant, expr: \"x >= 0\"}\n")
    deadlock = results[("deadlock-free", "default")]
    assert deadlock.status == "fails" and deadlock.trace.shape == "deadlock"
    assert deadlock.trace.states()[-1]["x"] == 2 and not deadlock.trace.states()[-1]["over"]
    det = results[("deterministic", "default")]
    assert det.status == "fails" and det.trace.shape == "branch"
    cited = {c for step in det.trace.branches for c, _ in step.clauses}
    assert cited == {"s-2", "s-3"}
    assert {step.state["colour"] for step in det.trace.branches} == {"red", "blue"}
    cov = results[("coverage", "default")]
    assert cov.status == "fails" and "never" in cov.detail and cov.trace is None


def test_generic_properties_can_be_given_an_expect(tmp_path):
    results = run(tmp_path, STUCK, """
        - {id: stuck-ok, kind: deadlock-free, expect: fails}
    """)
    assert results[("stuck-ok", "default")].matches
    assert ("deadlock-free", "default") not in results


def test_write_outside_a_range_is_a_modelling_error_with_its_trace(tmp_path):
    model = COUNTER.replace('x: "x + 1 if reading.step == one else min(x + 2, 4)"', 'x: "x + 3"')
    results = run(tmp_path, model, "- {id: small, kind: invariant, expr: \"x <= 4\"}\n", readings="default")
    result = results[("small", "default")]
    assert result.status == "error" and not result.matches
    assert "outside its range 0..4" in result.detail
    assert result.trace.states()[-1]["x"] == 3  # the state from which the bad write happens


def test_budget_exhaustion_is_undecided_never_a_verdict(tmp_path):
    results = run(tmp_path, COUNTER, """
        - {id: small, kind: invariant, expr: "x <= 4"}
        - {id: ends, kind: terminates}
        - {id: one, kind: reachable, expr: "x == 1"}
    """, budget=Budget(max_states=3), readings="default")
    assert results[("small", "default")].status == "undecided"
    assert results[("ends", "default")].status == "undecided"
    assert "state budget of 3 reached" in results[("small", "default")].bound
    assert results[("one", "default")].status == "holds"  # a witness found within the budget stands


def test_reading_matrix_default_and_deviations_or_all(tmp_path):
    model = COUNTER.replace("readings:\n", "readings:\n  extra:\n    clause: c-2\n    question: Q?\n    options: {p: p, q: q, r: r}\n    default: p\n")
    props = "- {id: small, kind: invariant, expr: \"x <= 4\"}\n"
    deviations = {label for (pid, label) in run(tmp_path, model, props) if pid == "small"}
    assert deviations == {"default", "step=two", "extra=q", "extra=r"}
    full = {label for (pid, label) in run(tmp_path, model, props, readings="all") if pid == "small"}
    assert len(full) == 6
    pinned = {label for (pid, label) in run(tmp_path, model, props, pinned={"step": "two"}) if pid == "small"}
    assert pinned == {"step=two", "extra=q,step=two", "extra=r,step=two"}


def test_expect_resolves_the_most_specific_condition(tmp_path):
    results = run(tmp_path, COUNTER, """
        - id: three
          kind: reachable
          expr: "x == 3"
          expect: {default: holds, step=two: fails, "variant=counter,step=two": fails}
    """)
    assert results[("three", "default")].expected == "holds"
    assert results[("three", "step=two")].expected == "fails"
    assert all(r.matches for r in results.values())


@pytest.mark.parametrize("kind", ["invariant", "terminates", "deadlock-free"])
def test_unknown_names_in_properties_are_located_errors(tmp_path, kind):
    from checker.errors import RulecheckError

    text = {"invariant": "- {id: p, kind: invariant, expr: \"y > 0\"}\n", "terminates": "- {id: p, kind: terminatez}\n", "deadlock-free": "- {id: p, kind: deadlock-free, expect: maybe}\n"}[kind]
    with pytest.raises(RulecheckError) as info:
        run(tmp_path, COUNTER, text)
    assert info.value.loc is not None and info.value.loc.file.endswith("g.yaml")


def test_a_reading_nothing_consults_reuses_the_exploration_but_keeps_its_rows(tmp_path):
    model = COUNTER.replace("readings:\n", "readings:\n  unused:\n    clause: c-2\n    question: Q?\n    options: {p: p, q: q}\n    default: p\n")
    results = run(tmp_path, model, "- {id: below3, kind: invariant, expr: \"x < 3\", expect: fails}\n")
    reused, default = results[("below3", "unused=q")], results[("below3", "default")]
    assert reused.status == default.status == "fails"
    assert reused.trace.config.readings["unused"] == "q" and len(reused.trace.steps) == len(default.trace.steps)


def test_variants_drop_readings_tables_initialise_arrays_and_set_changes_entries(tmp_path):
    from checker.errors import RulecheckError
    from checker.lang.build import load_model
    from checker.pipeline.runner import parse_constants

    base = COUNTER.replace("state:\n", "constants:\n  start: {type: int, of: player, value: {ann: 1, bob: 2}, range: [0, 4]}\nstate:\n  score: {type: \"int[0..4]\", of: player}\n")
    base = base.replace("init:\n", "init:\n  score: start\n")
    write(tmp_path, base, "base.yaml", "g")
    variant = write(tmp_path, "extends: base.yaml\nid: fixed\nremove_readings: [step]\nactions:\n  inc:\n    by: turn\n    when: x < 4\n    do: {x: x + 1, turn: succ(turn)}\n    rule: c-1\n", "fixed.yaml", "g")
    model = load_model(variant)
    assert "step" not in model.readings
    state = model.default_config()
    from checker.lang.interp import Interpreter

    assert Interpreter(model, state).initial_states()[0]["score"] == {("ann",): 1, ("bob",): 2}
    assert parse_constants(model, {"start[bob]": "4"})["start"] == {("ann",): 1, ("bob",): 4}
    for bad in ({"start[carl]": "1"}, {"start": "1"}, {"start[bob]": "9"}):
        with pytest.raises(RulecheckError):
            parse_constants(model, bad)
    broken = write(tmp_path, "extends: base.yaml\nid: broken\nremove_readings: [steps]\n", "broken.yaml", "g")
    with pytest.raises(RulecheckError) as info:
        load_model(broken)
    assert "did you mean `step`" in (info.value.hint or "")


def test_a_property_that_cannot_be_evaluated_is_an_error_with_its_trace(tmp_path):
    results = run(tmp_path, COUNTER, """
        - {id: ratio, kind: invariant, expr: "4 // (2 - x) >= 0"}
        - {id: step-ratio, kind: after, action: inc, expr: "x // (x - 2) <= 4"}
        - {id: to-ratio, kind: leads-to, from: "x == 0", to: "4 // (3 - x) > 0"}
    """, readings="default")
    for pid, steps in (("ratio", 2), ("step-ratio", 2), ("to-ratio", 3)):
        result = results[(pid, "default")]
        assert result.status == "error" and not result.matches
        assert "division by zero" in result.detail and result.trace.shape == "property-error"
        assert len(result.trace.steps) == steps


def test_a_model_without_initial_states_is_an_error_not_a_vacuous_verdict(tmp_path):
    model = COUNTER.replace("terminal: done", "init_where: x > 0\nterminal: done")
    with pytest.raises(RulecheckError, match="no initial state") as info:
        run(tmp_path, model, "- {id: ends, kind: terminates, within: 3}\n", readings="default")
    assert info.value.loc.line == model.splitlines().index("init_where: x > 0") + 1


def test_every_kind_in_the_table_is_confirmed_and_decided():
    """The kind table is the one list: the evidence layer confirms every kind with a trace, the
    symbolic engine names why it cannot decide a kind, and the native back-end's set is the table's."""
    from checker.engines.native import NATIVE_KINDS
    from checker.engines.symbolic import UNSUPPORTED
    from checker.evidence.confirm import CONFIRM
    from checker.lang.property_kinds import KINDS

    assert set(CONFIRM) == set(KINDS) - {"coverage"}  # a coverage failure is a list of actions, not a trace
    assert set(UNSUPPORTED) == {"can-end", "value"}
    assert NATIVE_KINDS == set(KINDS) - {"value"}
    assert [k for k, row in KINDS.items() if row.found == "holds"] == ["reachable"]


def test_a_loop_is_named_after_what_goes_round_it():
    """Chance and a player's choice together make neither a chance-only loop nor one the
    players alone can stay in (the old words called every loop with chance in it chance-only)."""
    from checker.evidence.confirm import loop_note

    both = loop_note(frozenset({"chance", "ann"}), True)
    assert both.startswith("Loop of chance and choice") and "Chance-only" not in both
    assert "not established" in both
    assert loop_note(frozenset({"chance"}), True, True, True).startswith("Chance-only loop")
    assert loop_note(frozenset({"ann"}), True).startswith("A loop players can choose")
    assert loop_note(frozenset({"rules"}), False).startswith("Forced loop")
    # chance leaves the loop, but a player can keep the game going elsewhere: no "ends" claim
    elsewhere = loop_note(frozenset({"chance"}), True, True, False)
    assert "ends with probability 1" not in elsewhere and "elsewhere" in elsewhere


def test_a_loop_only_chance_sustains_is_not_game_breaking(tmp_path):
    """The severity of a `terminates` failure: game-breaking when a player (or the rules alone)
    can keep the game going, rules-visible when only chance keeps it going and the whole game
    ends with probability 1 whatever anyone chooses."""
    from checker.report.findings import group_findings

    results = run(tmp_path, LOOPS, """
        - id: ends
          kind: terminates
          expect: {default: holds, loop=forced: fails, loop=player: fails, loop=chance: fails, loop=both: fails}
    """)

    def rated(label: str) -> tuple[str, str]:
        (entry,) = [e for e in group_findings([results[("ends", label)]], []) if e.property_ids == ["ends"]]
        return entry.severity, entry.severity_reason

    assert rated("loop=chance")[0] == "rules-visible" and "probability 1" in rated("loop=chance")[1]
    for label in ("loop=forced", "loop=player", "loop=both"):
        assert rated(label)[0] == "game-breaking", label
    # under `both` the shortest loop is chance's (0 -> 1 -> 0), but ann can go round 1 -> 2 -> 1
    # for ever: the whole-game answer keeps it game-breaking and the reason says why
    both = results[("ends", "loop=both")].trace
    assert both.game_ends_surely is False and "elsewhere" in both.note
    assert "elsewhere the game can go on for ever" in rated("loop=both")[1]


def test_a_finding_narrowed_to_chance_loops_claims_only_those(tmp_path):
    """`loop:` splits one `terminates` property's failures between findings by the kind of loop
    each shows: under `both` the loop shown is chance's (0 -> 1 -> 0), left with probability 1,
    though ann can keep the game going elsewhere. A finding narrowed to chance-only loops claims
    it and is rules-visible (the other endless plays are other findings' evidence); a finding
    narrowed to choice loops does not claim it, so it is still shown, unfiled and game-breaking;
    the player's own loop is the choice finding's, game-breaking."""
    from checker.evidence.findings import parse_finding
    from checker.lang.yamlsrc import load_yaml
    from checker.report.findings import group_findings

    results = run(tmp_path, LOOPS, """
        - id: ends
          kind: terminates
          expect: {default: holds, loop=forced: fails, loop=player: fails, loop=chance: fails, loop=both: fails}
    """)
    suite = load_yaml("suite.yaml", textwrap.dedent("""\
        - {id: coin-repeats, title: t, class: gap, scenario: s, proposed: p, properties: [ends], loop: chance-only}
        - {id: ann-stalls, title: t, class: gap, scenario: s, proposed: p, properties: [ends], loop: choice}
    """))
    findings = [parse_finding(item, suite.item_loc(i)) for i, item in enumerate(suite)]
    entries = group_findings([results[("ends", "loop=both")], results[("ends", "loop=player")]], findings)
    rated = {e.id: (e.severity, e.severity_reason, [r.config.readings["loop"] for r in e.results]) for e in entries}
    assert rated["coin-repeats"][0] == "rules-visible" and rated["coin-repeats"][2] == ["both"]
    assert "other findings" in rated["coin-repeats"][1]
    assert rated["ann-stalls"][0] == "game-breaking" and rated["ann-stalls"][2] == ["player"]
    assert set(rated) == {"coin-repeats", "ann-stalls"}  # each failure claimed by exactly one of them


def test_an_unknown_loop_kind_is_refused_where_it_is_written():
    from checker.evidence.findings import parse_finding
    from checker.lang.yamlsrc import load_yaml

    suite = load_yaml("suite.yaml", "- {id: f, title: t, class: gap, scenario: s, proposed: p, properties: [ends], loop: chance}\n")
    with pytest.raises(RulecheckError) as caught:
        parse_finding(suite[0], suite.item_loc(0))
    assert "unknown loop kind `chance`" in str(caught.value) and caught.value.loc.line == 1 and "chance-only" in str(caught.value)
