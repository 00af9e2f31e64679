"""The symbolic engine, one property kind at a time, on small models written here."""

from __future__ import annotations

import json
import os

import pytest

from checker.engines.explicit import Budget
from tests.symbolic_support import bound_props, run, trace_len, write_game

# A counter game: chance adds 1 or 2, a player may stop; a forced rule ends the game at the cap.
COUNTER = """\
game: Counter
id: counter
players: [ann, ben]
constants:
  cap: {type: int, range: [1, 8], default: 5}
  step: {type: int, range: [1, 3], default: 2}
readings:
  bonus:
    clause: r-1
    question: Does a stop score a bonus?
    options: {none: no bonus, one: one point}
    default: none
state:
  n: "int[0..12]"
  turn: player
  over: bool
init:
  n: 0
  turn: ann
  over: false
terminal: over
actions:
  roll:
    by: chance
    for: {d: dice}
    when: n < cap
    weight: 1
    do: {n: "n + (1 if d == one else step)", turn: succ(turn)}
    rule: r-1
  stop:
    by: turn
    when: n >= 2 and n < cap
    do: {over: true, n: "n + 1 if reading.bonus == one else n"}
    rule: r-1
  end:
    by: rules
    when: n >= cap
    do: {over: true}
    rule: r-1
domains:
  dice: [one, two]
"""

COUNTER_PROPS = """\
- id: small
  kind: invariant
  expr: n <= 6
- id: never-four
  kind: unreachable
  expr: n == 4
- id: reach-three
  kind: reachable
  expr: n == 3
- id: reach-twelve
  kind: reachable
  expr: n == 12
- id: roll-grows
  kind: after
  action: roll
  expr: n == old(n) + 1
- id: ends
  kind: terminates
  measure: "(12 - n) * 2 + (0 if over else 1)"
- id: ends-bounded
  kind: terminates
- id: ends-quickly
  kind: terminates
  within: 3
- id: cap-leads-to-end
  kind: leads-to
  from: n >= cap
  to: over
"""


@pytest.fixture()
def counter(tmp_path):
    return write_game(str(tmp_path), "counter", COUNTER, COUNTER_PROPS)


def test_counter_verdicts_and_shortest_traces(counter):
    sym = run(counter, "symbolic", depth=12)
    exp = run(counter, "explicit")
    for pid in ("small", "never-four", "reach-three", "reach-twelve", "roll-grows", "ends", "ends-bounded", "ends-quickly", "cap-leads-to-end", "deadlock-free", "deterministic", "coverage"):
        assert sym[pid].status == exp[pid].status, (pid, sym[pid].status, sym[pid].bound, exp[pid].status)
    # shortest counterexamples have the explicit engine's (breadth-first) length
    assert trace_len(sym["never-four"]) == trace_len(exp["never-four"]) == 2
    assert trace_len(sym["roll-grows"]) == trace_len(exp["roll-grows"]) == 1
    assert trace_len(sym["ends-quickly"]) == 4
    assert all(r.engine == "symbolic" for r in sym.values())


def test_completeness_makes_proofs(counter):
    sym = run(counter, "symbolic", depth=12)
    assert sym["small"].status == "holds" and sym["small"].proof
    assert "exhaustive" in sym["small"].bound or sym["small"].bound.startswith("k-induction")
    assert "exhaustive" in sym["deterministic"].bound or sym["deterministic"].bound.startswith("k-induction")
    assert sym["reach-twelve"].status == "fails" and sym["reach-twelve"].proof


def test_bounded_holds_is_not_a_proof(counter):
    sym = run(counter, "symbolic", depth=2, ids={"deadlock-free", "reach-twelve"})
    # depth 2 is not enough to see every play end; k-induction may or may not close
    r = sym["reach-twelve"]
    assert r.status in ("undecided", "fails")
    if r.status == "undecided":
        assert "BMC depth <= 2" in r.bound


def test_ranking_function_proves_termination(counter):
    sym = run(counter, "symbolic", depth=1, ids={"ends"})
    assert sym["ends"].status == "holds" and sym["ends"].proof and sym["ends"].bound == "ranking function"


def test_bad_measure_is_not_a_proof(tmp_path):
    """Every play lasts 100 steps and the measure rises on each: no window of k <= 8 steps ends
    lower. (On the counter game `n` would be proved vacuously: no play is longer than 6 steps.)"""
    path = write_game(str(tmp_path), "countdown", COUNTDOWN, "- id: ends\n  kind: terminates\n  measure: 100 - n\n")
    sym = run(path, "symbolic", depth=2, ids={"ends"})
    assert sym["ends"].status == "holds" and not sym["ends"].proof
    assert "does not decrease" in sym["ends"].detail


def test_k_induction_proves_an_invariant_beyond_the_bound(tmp_path):
    # a counter that wraps: plays never end, so only induction can prove the bound
    model = """\
    game: Wrap
    id: wrap
    state:
      n: "int[0..9]"
      m: "int[0..9]"
    init: {n: 0, m: 0}
    terminal: "False"
    actions:
      tick:
        by: rules
        do: {n: "(n + 1) % 10", m: "(m + 1) % 10"}
        rule: r-1
    """
    props = """\
    - id: same
      kind: invariant
      expr: n == m
    - id: never-ten
      kind: reachable
      expr: n + m == 3
    """
    path = write_game(str(tmp_path), "wrap", model, props)
    sym = run(path, "symbolic", depth=3)
    assert sym["same"].status == "holds" and sym["same"].proof and sym["same"].bound.startswith("k-induction")
    assert sym["never-ten"].status == "fails" and sym["never-ten"].proof
    assert sym["deterministic"].status == "holds"


def test_lasso(tmp_path):
    model = """\
    game: Loop
    id: loop
    players: [a, b]
    state:
      turn: player
      k: "int[0..2]"
    init: {turn: a, k: 0}
    terminal: k == 2
    actions:
      pass:
        by: turn
        do: {turn: succ(turn)}
        rule: r-1
      go:
        by: turn
        when: turn == b
        do: {k: k + 1}
        rule: r-1
    """
    path = write_game(str(tmp_path), "loop", model, "- id: ends\n  kind: terminates\n")
    sym = run(path, "symbolic", depth=6, ids={"ends"})
    exp = run(path, "explicit", ids={"ends"})
    assert sym["ends"].status == exp["ends"].status == "fails"
    trace = sym["ends"].trace
    assert trace.shape == "lasso" and trace.states()[trace.loop_start] == trace.states()[-1]


DEADLOCK = """\
game: Stuck
id: stuck
state:
  x: "int[0..3]"
  flag: bool
init: {x: 0, flag: {choose: any}}
terminal: x == 3
actions:
  up:
    by: rules
    when: x < 2 or flag
    do: {x: x + 1}
    rule: r-1
  also:
    by: rules
    when: x == 1
    do: {flag: true}
    rule: r-1
"""


def test_deadlock_and_determinism(tmp_path):
    path = write_game(str(tmp_path), "stuck", DEADLOCK)
    sym = run(path, "symbolic", depth=6)
    exp = run(path, "explicit")
    assert sym["deadlock-free"].status == exp["deadlock-free"].status == "fails"
    assert trace_len(sym["deadlock-free"]) == trace_len(exp["deadlock-free"]) == 2
    assert sym["deadlock-free"].trace.shape == "deadlock"
    assert sym["deterministic"].status == exp["deterministic"].status == "fails"
    assert trace_len(sym["deterministic"]) == trace_len(exp["deterministic"]) == 1
    assert len(sym["deterministic"].trace.branches) == 2


def test_modelling_error_is_reported_with_its_trace(tmp_path):
    model = """\
    game: Boom
    id: boom
    state:
      x: "int[0..3]"
    init: {x: 0}
    terminal: "False"
    actions:
      up:
        by: rules
        do: {x: x + 1}
        rule: r-1
    """
    path = write_game(str(tmp_path), "boom", model, "- id: inv\n  kind: invariant\n  expr: x <= 3\n")
    sym = run(path, "symbolic", depth=8)
    exp = run(path, "explicit")
    assert sym["inv"].status == exp["inv"].status == "error"
    assert sym["inv"].trace.shape == "error" and trace_len(sym["inv"]) == trace_len(exp["inv"]) == 3
    assert "outside its range" in sym["inv"].detail


def test_division_by_zero_is_an_error(tmp_path):
    model = """\
    game: Div
    id: div
    state:
      x: "int[0..3]"
      y: "int[0..3]"
    init: {x: 2, y: 0}
    terminal: "False"
    actions:
      half:
        by: rules
        when: y < 3
        do: {y: "y + 1 if x // (2 - y) >= 0 else y"}
        rule: r-1
    """
    path = write_game(str(tmp_path), "div", model)
    sym = run(path, "symbolic", depth=5, ids={"deadlock-free"})
    exp = run(path, "explicit", ids={"deadlock-free"})
    assert sym["deadlock-free"].status == exp["deadlock-free"].status == "error"
    assert trace_len(sym["deadlock-free"]) == trace_len(exp["deadlock-free"]) == 2


def test_free_constants_and_readings_name_their_values(counter):
    # with `cap` and `step` free, z3 finds a cap that lets n exceed 6 (and names it)
    sym = run(counter, "symbolic", depth=8, ids={"small"}, free_constants=True, free_readings=True)
    r = sym["small"]
    assert r.status == "fails"
    assert "cap=" in r.detail and "step=" in r.detail
    assert r.config.constants["cap"] + r.config.constants["step"] > 7
    # the trace was replayed under the values the solver chose
    assert r.trace.states()[-1]["n"] > 6


def test_free_reading_in_only_and_expressions(counter):
    sym = run(counter, "symbolic", depth=8, ids={"small"}, free_readings=True)
    assert sym["small"].status == "holds"
    sym = run(counter, "symbolic", depth=8, ids={"never-four"}, free_readings=True)
    assert sym["never-four"].status == "fails"


def test_cli_engine_symbolic(tmp_path):
    from click.testing import CliRunner

    from checker.cli import main

    write_game(str(tmp_path), "counter", COUNTER, COUNTER_PROPS)
    result = CliRunner().invoke(main, ["check", str(tmp_path / "models"), "--engine", "symbolic", "--depth", "12", "--no-write", "--readings", "default", "--format", "json"])
    assert result.exit_code == 1, result.output  # some properties fail without `expect: fails`
    results = json.loads(result.output)["results"]
    assert {r["property"]: r["verdict"] for r in results} == {
        "small": "holds", "never-four": "fails", "reach-three": "holds", "reach-twelve": "fails",
        "roll-grows": "fails", "ends": "holds", "ends-bounded": "holds", "ends-quickly": "fails",
        "cap-leads-to-end": "holds", "deadlock-free": "holds", "deterministic": "holds", "coverage": "holds",
    }
    assert {r["engine"] for r in results} == {"symbolic"}
    assert [s["action"] for s in next(r for r in results if r["property"] == "never-four")["trace"]["steps"]] == ["roll", "roll"]


FREE_ERRS_UNDER_FORCED = """\
game: Shadowed
id: shadowed
players: [a, b]
state:
  x: "int[0..2]"
  turn: player
init: {x: 0, turn: a}
terminal: x == 2
actions:
  risky:
    by: chance
    when: x == x // x
    weight: 1
    do: {x: 1}
    rule: r-1
  forced:
    by: rules
    when: turn == a
    do: {turn: b}
    rule: r-1
"""


def test_a_free_action_is_not_considered_while_a_forced_rule_applies(tmp_path):
    """Rules resolve before anyone acts: `risky`'s division by zero is not reached while the
    forced rule is enabled, in every engine; once the forced rule has fired it is an error."""
    path = write_game(str(tmp_path), "shadowed", FREE_ERRS_UNDER_FORCED)
    sym = run(path, "symbolic", depth=4, ids={"deadlock-free"})
    exp = run(path, "explicit", ids={"deadlock-free"})
    assert sym["deadlock-free"].status == exp["deadlock-free"].status == "error"
    assert trace_len(sym["deadlock-free"]) == trace_len(exp["deadlock-free"]) == 1


COUNTDOWN = """\
game: Countdown
id: countdown
state:
  n: "int[0..100]"
init: {n: 100}
terminal: n == 0
actions:
  down:
    by: rules
    do: {n: n - 1}
    rule: r-1
"""


def test_a_measure_never_proves_a_within_bound(tmp_path):
    """Every play lasts 100 steps: the measure proves that plays end, not that they end within 50."""
    props = "- id: quick\n  kind: terminates\n  within: 50\n  measure: n\n- id: ends\n  kind: terminates\n  measure: n\n"
    path = write_game(str(tmp_path), "countdown", COUNTDOWN, props)
    exp = run(path, "explicit")
    sym = run(path, "symbolic", depth=30)  # shallower than the bound: BMC goes to within + 1 anyway
    assert exp["quick"].status == sym["quick"].status == "fails"
    assert trace_len(sym["quick"]) == 51
    assert sym["ends"].status == "holds" and sym["ends"].proof and sym["ends"].bound == "ranking function"


def test_a_within_bound_out_of_time_stays_bounded(tmp_path):
    props = "- id: quick\n  kind: terminates\n  within: 2000\n  measure: n\n  expect: holds\n"
    path = write_game(str(tmp_path), "countdown", COUNTDOWN.replace("100", "3000"), props)
    sym = run(path, "symbolic", depth=5, timeout=2.0)  # 2001 BMC steps are far out of reach in 2 s
    r = sym["quick"]
    assert r.status == "holds" and not r.proof and not r.matches
    assert "ranking function: every play ends" in r.bound and "looked for only up to" in r.detail


def test_a_property_that_raises_is_an_error_with_its_trace(tmp_path):
    props = """\
    - id: mod-zero
      kind: reachable
      expr: "n % (n - n) == 2"
    - id: div-zero
      kind: invariant
      expr: "n // (n - n) == 0"
    - id: later
      kind: unreachable
      expr: "n // (n - 97) == 5"
    - id: after-down
      kind: after
      action: down
      expr: "old(n) // (n - 98) >= 0"
    - id: lt
      kind: leads-to
      from: "n // (n - 96) >= 0"
      to: "n == 0"
    """
    path = write_game(str(tmp_path), "countdown", COUNTDOWN, props)
    exp = run(path, "explicit")
    sym = run(path, "symbolic", depth=8)
    for pid, steps in (("mod-zero", 0), ("div-zero", 0), ("later", 3), ("after-down", 2), ("lt", 4)):
        assert exp[pid].status == sym[pid].status == "error", (pid, sym[pid].status, sym[pid].bound)
        assert sym[pid].trace.shape == "property-error"
        assert "division by zero" in sym[pid].detail
        assert trace_len(sym[pid]) == steps, pid
        if pid != "lt":  # the explicit engine checks leads-to after exploring, in state order
            assert trace_len(exp[pid]) == steps


def test_a_proof_excludes_property_errors(tmp_path):
    """k-induction must not prove an invariant whose expression raises in a reachable state."""
    model = """\
    game: Wrap
    id: wrap
    state:
      n: "int[0..9]"
    init: {n: 0}
    terminal: "False"
    actions:
      tick:
        by: rules
        do: {n: "(n + 1) % 10"}
        rule: r-1
    """
    props = "- id: inv\n  kind: invariant\n  expr: \"10 // (n - 7) != 99\"\n- id: reach\n  kind: reachable\n  expr: \"10 // (n - 7) == 99\"\n"
    path = write_game(str(tmp_path), "wrap", model, props)
    sym = run(path, "symbolic", depth=3)  # the error at n == 7 lies deeper than the BMC
    for pid in ("inv", "reach"):
        assert sym[pid].status != "holds" or not sym[pid].proof, sym[pid].bound
        assert not (sym[pid].status == "fails" and sym[pid].proof), sym[pid].bound


def test_bounded_holds_never_matches_holds(tmp_path):
    from click.testing import CliRunner

    from checker.cli import main

    write_game(str(tmp_path), "countdown", COUNTDOWN, "- id: ends\n  kind: terminates\n  expect: holds\n")
    args = ["check", str(tmp_path / "models"), "--engine", "symbolic", "--depth", "5", "--no-write", "--jobs", "1"]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 1, result.output
    assert "holds (bounded)" in result.output and "unexpected" in result.output
    # a property that asks for its own bound is satisfied by a search that reached it
    write_game(str(tmp_path), "countdown", COUNTDOWN, "- id: ends\n  kind: terminates\n  depth: 5\n  expect: holds\n")
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output


def cpu_seconds_of(pid: int, at_least: float, within: float) -> float:
    """Wait until process `pid` has used `at_least` CPU seconds, and return what it has used
    (Linux's /proc; elsewhere a plain sleep of that long, and 0)."""
    import time

    stat = f"/proc/{pid}/stat"
    if not os.path.exists(stat):
        time.sleep(at_least)
        return 0.0
    ticks, deadline = os.sysconf("SC_CLK_TCK"), time.perf_counter() + within
    while time.perf_counter() < deadline:
        fields = open(stat).read().rsplit(")", 1)[1].split()
        used = (int(fields[11]) + int(fields[12])) / ticks  # utime + stime
        if used >= at_least:
            return used
        time.sleep(0.2)
    raise AssertionError(f"the run used under {at_least} CPU s in {within} s")


@pytest.mark.slow
def test_ctrl_c_stops_a_symbolic_run_promptly():
    """z3 swallows SIGINT while it solves; the engine must still stop within seconds of its own
    CPU time, exit 130, and print no traceback. Promptness is measured in the child's CPU
    seconds after the signal, not wall-clock time: on a loaded machine a prompt stop can take
    many wall-clock seconds (12 s against a 10 s limit was seen) while using almost no CPU."""
    import resource
    import signal
    import subprocess
    import sys

    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env = {**os.environ, "PYTHONPATH": root}
    cmd = [sys.executable, "-m", "checker.cli", "check", "models/showngo/junior.yaml", "--engine", "symbolic", "--no-write", "--jobs", "1", "--readings", "default"]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    proc = subprocess.Popen(cmd, cwd=root, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    # Well into the run (it takes minutes): after the child's own CPU seconds, not a wall-clock
    # sleep, since on a loaded machine a sleep can end while it is still importing (Ctrl-C then
    # ends it as any Python program, with -2).
    at_signal = cpu_seconds_of(proc.pid, at_least=4.0, within=120.0)
    proc.send_signal(signal.SIGINT)
    try:
        _, err = proc.communicate(timeout=120)  # a hang guard only; promptness is the CPU below
    except subprocess.TimeoutExpired:
        proc.kill()
        raise AssertionError("Ctrl-C did not stop the symbolic run within 120 s") from None
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    used = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    assert used - at_signal < 10, f"the run used {used - at_signal:.1f} CPU s after Ctrl-C"
    assert proc.returncode == 130, err
    assert b"Traceback" not in err and b"interrupted" in err


def test_auto_engine_goes_symbolic_when_constants_are_free(counter):
    """`--engine auto` with free constants: one explicit exploration covers only the default
    deck, so the symbolic engine answers for every deck at once."""
    auto = run(counter, "auto", depth=8, ids={"small"}, free_constants=True)
    assert auto["small"].engine == "symbolic" and auto["small"].status == "fails"
    assert "cap=" in auto["small"].detail
    fixed = run(counter, "auto", depth=8, ids={"small"})
    assert fixed["small"].engine == "explicit" and fixed["small"].status == "holds"


# A phase game: x is always 1 in phase b, so y never moves; but an unreachable phase-b state
# with another x breaks `y-stays` only after the ten waiting steps, beyond k-induction's k <= 8.
PHASES = """\
game: Phases
id: phases
domains:
  phase: [a, b]
state:
  p: phase
  x: "int[0..5]"
  y: "int[0..9]"
  c: "int[0..9]"
init: {p: a, x: 0, y: 0, c: 0}
terminal: "False"
actions:
  go:
    by: rules
    when: p == a
    do: {p: b, x: 1}
    rule: r-1
  wait:
    by: rules
    when: p == b and c < 9
    do: {c: c + 1}
    rule: r-1
  leave:
    by: rules
    when: p == b and c == 9
    do: {p: a, c: 0, "y": "min(max(y + x - 1, 0), 9)"}
    rule: r-1
"""


def test_reached_range_lemmas_make_an_invariant_inductive(tmp_path, monkeypatch):
    """`p == b => x == 1`, seen by a short explicit exploration and proved inductive, closes the
    induction at k = 1; without the lemmas the same invariant stays bounded."""
    import checker.engines.symbolic as symbolic

    path = write_game(str(tmp_path), "phases", PHASES, "- id: y-stays\n  kind: invariant\n  expr: y == 0\n")
    sym = run(path, "symbolic", depth=4, ids={"y-stays"})
    assert sym["y-stays"].status == "holds" and sym["y-stays"].proof
    assert sym["y-stays"].bound.startswith("k-induction (k=1)")
    monkeypatch.setattr(symbolic, "LEMMA_STATES", 0)
    sym = run(path, "symbolic", depth=4, ids={"y-stays"})
    assert sym["y-stays"].status == "holds" and not sym["y-stays"].proof


def test_a_lemma_from_a_partial_exploration_is_never_assumed(tmp_path, monkeypatch):
    """Three explored states suggest n <= 2, which would prove n < 7 at once; it is not
    inductive, so it is dropped and BMC finds the 7-step counterexample."""
    import time

    import checker.engines.symbolic as symbolic
    from checker.engines.symbolic.encoding import Encoder
    from checker.engines.symbolic.lemmas import Lemma, houdini, reached_ranges

    model = """\
    game: Climb
    id: climb
    state:
      n: "int[0..9]"
    init: {n: 0}
    terminal: n == 9
    actions:
      up:
        by: rules
        do: {n: n + 1}
        rule: r-1
    """
    path = write_game(str(tmp_path), "climb", model, "- id: low\n  kind: invariant\n  expr: n < 7\n")
    m, _ = bound_props(path)
    candidates = reached_ranges(m, m.default_config(), 3, 10.0)
    assert Lemma(("n", ()), 0, 2) in candidates
    assert houdini(Encoder(m, m.default_config()), candidates, time.perf_counter() + 60) == []
    monkeypatch.setattr(symbolic, "LEMMA_STATES", 3)
    sym = run(path, "symbolic", depth=10, ids={"low"})
    assert sym["low"].status == "fails" and trace_len(sym["low"]) == 7


def test_auto_engine_goes_symbolic_beyond_the_explicit_budget(tmp_path):
    """`--engine auto` with a state budget too small to explore: what the explicit engine leaves
    undecided, the symbolic engine proves (its lemmas come from the same small budget)."""
    path = write_game(str(tmp_path), "phases", PHASES, "- id: y-stays\n  kind: invariant\n  expr: y == 0\n")
    explicit = run(path, "explicit", ids={"y-stays"}, budget=Budget(5, 60.0))
    assert explicit["y-stays"].status == "undecided"
    auto = run(path, "auto", depth=4, ids={"y-stays"}, budget=Budget(5, 60.0))
    assert auto["y-stays"].engine == "symbolic" and auto["y-stays"].status == "holds" and auto["y-stays"].proof


# A turn in three steps, only one of which uses something up: a measure counting what is used
# up stays level (or rises) on the bookkeeping steps and decreases once a turn.
TURNS = """\
game: Turns
id: turns
players: [ann]
domains:
  phase: [drawing, playing, passing]
state:
  n: "int[0..20]"
  ph: phase
init: {n: 20, ph: drawing}
terminal: n == 0
actions:
  draw:
    by: ann
    when: ph == drawing
    do: {ph: playing}
    rule: r-1
  play:
    by: ann
    when: ph == playing
    do: {n: n - 1, ph: passing}
    rule: r-1
  pass:
    by: ann
    when: ph == passing
    do: {ph: drawing}
    rule: r-1
"""
TURNS_PROPS = """\
- id: level
  kind: terminates
  measure: n
- id: rising
  kind: terminates
  measure: "n + (5 if ph == passing else 0)"
- id: down-to-zero
  kind: leads-to
  from: n < 20
  to: n == 0
- id: never-drawing-at-zero
  kind: leads-to
  from: n < 20
  to: n == 0 and ph == drawing
"""


def test_a_measure_that_decreases_once_a_turn_proves_termination(tmp_path):
    path = write_game(str(tmp_path), "turns", TURNS, TURNS_PROPS)
    sym = run(path, "symbolic", depth=1)
    for pid in ("level", "rising"):  # level on two steps of three; rising on one of them
        r = sym[pid]
        assert r.status == "holds" and r.proof and r.bound == "ranking function (decreases within 3 steps)", (pid, r.bound)
    assert run(path, "explicit")["level"].status == "holds"


def test_a_measure_on_short_plays_is_proved_and_says_why(tmp_path):
    """On the counter game no play is longer than 6 steps: any measure >= 0 "decreases within 6
    steps", and the detail says the proof owes nothing to the measure."""
    path = write_game(str(tmp_path), "counter", COUNTER, "- id: ends\n  kind: terminates\n  measure: n\n")
    r = run(path, "symbolic", depth=1, ids={"ends"})["ends"]
    assert r.status == "holds" and r.proof and "whatever the measure" in r.detail


def test_a_measure_level_on_a_loop_proves_nothing(tmp_path):
    """A player may go round the turn without playing: `n` stays level forever on that loop."""
    loop = TURNS + "  skip:\n    by: ann\n    when: ph == drawing\n    do: {ph: passing}\n    rule: r-1\n"
    path = write_game(str(tmp_path), "turns", loop, TURNS_PROPS)
    sym, exp = run(path, "symbolic", depth=4), run(path, "explicit")
    for pid in ("level", "rising"):
        assert exp[pid].status == sym[pid].status == "fails", (pid, sym[pid].bound)
        assert "ranking" not in sym[pid].bound


def test_leads_to_from_termination_and_deadlock_freedom(tmp_path):
    """Plays last 60 steps, far beyond BMC depth 1: `down-to-zero` is proved from `level`
    (every play ends), deadlock freedom and `to` holding in every terminal state; the game
    ends with ph == passing, so `never-drawing-at-zero` fails (explicit) and is not proved."""
    path = write_game(str(tmp_path), "turns", TURNS, TURNS_PROPS)
    sym, exp = run(path, "symbolic", depth=1), run(path, "explicit")
    r = sym["down-to-zero"]
    assert exp["down-to-zero"].status == r.status == "holds" and r.proof and "with level and deadlock-free" in r.bound
    assert exp["never-drawing-at-zero"].status == "fails"
    assert not sym["never-drawing-at-zero"].proof


# -- free runs quantify over configurations ------------------------------------------------------
FREE_COUNT = """\
game: FreeCount
id: m
constants: {c: {type: int, range: [0, 3], default: 0}}
readings:
  r: {clause: r-1, question: which?, options: {o1: one, o2: two}, default: o1}
state: {n: "int[0..3]"}
init: {n: 0}
terminal: n == 3
actions:
  up: {by: rules, when: n < 3, do: {n: "n + 1 if reading.r == o1 else n + 1"}, rule: r-1}
"""
FREE_COUNT_PROPS = """\
- {id: c-three, kind: reachable, expr: "c == 3", expect: holds}
- {id: c-never-three, kind: invariant, expr: "c != 3", expect: fails}
- {id: in-range, kind: invariant, expr: "n <= 3"}
- {id: never-nine, kind: reachable, expr: "n + c == 9", expect: fails}
- {id: by-reading, kind: invariant, expr: "n <= 3", expect: {default: holds, r=o2: fails}}
- {id: o2-seen, kind: reachable, expr: "reading.r == o2", expect: {default: fails, r=o2: holds}}
"""


def test_a_witness_in_some_configuration_says_so_and_decides_nothing_for_the_suites(tmp_path):
    """`reachable` holds when the solver finds a witness in *some* configuration (c=3): that is
    not the suite's configuration (c=0, where nothing reaches it), so it passes nothing, and its
    detail says where it holds (it once said "fails when c=3" and matched `expect: holds`)."""
    path = write_game(str(tmp_path), "fc", FREE_COUNT, FREE_COUNT_PROPS)
    sym = run(path, "symbolic", depth=6, ids={"c-three", "c-never-three", "in-range", "never-nine"}, free_constants=True)
    witness = sym["c-three"]
    assert (witness.status, witness.quantifier, witness.config.constants["c"]) == ("holds", "some", 3)
    assert witness.detail == "holds when c=3" and not witness.matches
    assert witness.verdict_text == "holds in some configuration, undecided in the suite's"
    # a counterexample in another configuration than the suite's: the suite's own is not decided
    failure = sym["c-never-three"]
    assert (failure.status, failure.quantifier, failure.detail, failure.matches) == ("fails", "some", "fails when c=3", False)
    # what holds of every configuration, or fails in every one, is compared as usual
    assert (sym["in-range"].status, sym["in-range"].quantifier, sym["in-range"].matches) == ("holds", "every", True)
    assert (sym["never-nine"].status, sym["never-nine"].quantifier, sym["never-nine"].matches) == ("fails", "every", True)
    explicit = run(path, "explicit", ids={"c-three"})["c-three"]
    assert (explicit.status, explicit.quantifier, explicit.matches) == ("fails", "", False)


def test_free_readings_compare_each_configuration_with_its_own_expectation(tmp_path):
    path = write_game(str(tmp_path), "fc", FREE_COUNT, FREE_COUNT_PROPS)
    sym = run(path, "symbolic", depth=6, ids={"by-reading", "o2-seen", "in-range"}, free_readings=True)
    # a witness under r=o2 with the suite's constants: compared with r=o2's expectation
    seen = sym["o2-seen"]
    assert (seen.status, seen.quantifier, seen.config.readings["r"], seen.expected, seen.matches) == ("holds", "some", "o2", "holds", True)
    # holds in every configuration, but the suite expects a failure under r=o2: not a match
    every = sym["by-reading"]
    assert (every.status, every.quantifier, every.expected, every.matches) == ("holds", "every", "holds or fails, by reading", False)
    assert sym["in-range"].matches


def test_a_free_run_over_an_existential_property_exits_1_from_the_command_line(tmp_path):
    from click.testing import CliRunner

    from checker.cli import main

    write_game(str(tmp_path), "fc", FREE_COUNT, "- {id: c-three, kind: reachable, expr: \"c == 3\", expect: holds}\n")
    result = CliRunner().invoke(main, ["check", str(tmp_path / "models"), "--engine", "symbolic", "--free-constants", "--no-write", "--property", "c-three", "--format", "json"])
    assert result.exit_code == 1, result.output
    (entry,) = [r for r in json.loads(result.output)["results"] if r["property"] == "c-three" and r["reading"] == "default"]
    assert (entry["verdict"], entry["configurations"], entry["constants"], entry["matches"]) == ("holds", "some", {"c": 3}, False)
