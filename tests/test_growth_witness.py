"""The growth re-check's seeded search: a larger run that breadth first could not decide within
its budget is decided where a seeded search meets a violation, confirmed in the interpreter.

Budgets here are tiny (the growth factor and minimum are patched so the budget is the number the
test passes): the larger games overrun them breadth first, but a walk meets the violation.
"""

from __future__ import annotations

import json
import textwrap

from checker.analysis import witness
from checker.evidence.growth_check import GrowthCheck, Outcome
from checker.lang.properties import bind
from checker.pipeline import growth
from checker.pipeline.runner import CheckOptions, check_paths
from tests.test_growth import tally_result

# A walk down a track of `length` steps, with a tally of `rounds` marks on the side (to widen the
# game); at the end of the track the player may finish (the game ends) or fall into a pit where
# play spins for ever: a state from which the game cannot end, met only at the far end.
PIT = textwrap.dedent(
    """\
    game: Pit
    id: pit
    players: [ann]
    constants:
      length: {type: int, range: [1, 60], default: 3, bound: true, doc: "steps of the track"}
      rounds: {type: int, range: [0, 60], default: 30, bound: true, doc: "marks on the tally"}
    state:
      pos: "int[0..60]"
      tally: "int[0..60]"
      pit: "int[0..2]"
      done: "int[0..1]"
    init:
      pos: 0
      tally: 0
      pit: 0
      done: 0
    terminal: done == 1
    actions:
      step:
        by: ann
        when: pos < length and pit == 0
        do:
          pos: pos + 1
        rule: p-1
      mark:
        by: ann
        when: tally < rounds and pit == 0
        do:
          tally: tally + 1
        rule: p-1
      finish:
        by: ann
        when: pos == length and pit == 0
        do:
          done: 1
        rule: p-2
      fall:
        by: ann
        when: pos == length and pit == 0
        do:
          pit: 1
        rule: p-2
      spin:
        by: ann
        when: pit > 0
        do:
          pit: 3 - pit
        rule: p-3
    clauses:
      p-1: {at: "1", says: "Step along the track or mark the tally."}
      p-2: {at: "2", says: "At the end, finish or fall."}
      p-3: {at: "3", says: "In the pit, spin."}
    """
)


def pit_result(tmp_path, monkeypatch):
    """`can-end` failing on the pit game: 4 x 31 track states, 31 finished, 62 in the pit."""
    (tmp_path / "models" / "pit").mkdir(parents=True)
    (tmp_path / "properties").mkdir()
    (tmp_path / "models" / "pit" / "pit.yaml").write_text(PIT)
    (tmp_path / "properties" / "pit.yaml").write_text("game: pit\nproperties:\n  - id: can-end\n    kind: can-end\n    says: x\n    expect: fails\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(growth, "MIN_STATES", 1)
    monkeypatch.setattr(growth, "GROWTH_FACTOR", 1000)
    result = next(r for r in check_paths(["models/pit"], CheckOptions()) if r.prop.id == "can-end")
    assert result.status == "fails" and result.states == 217
    return result


def test_a_violation_met_by_the_seeded_search_decides_what_breadth_first_could_not(tmp_path, monkeypatch):
    result = tally_result(tmp_path, monkeypatch, "never-full-at-end", "not (deck == 0 and tally == rounds)")
    # every bound at once: 15 states, over the budget of 13 breadth first; the violation lies at its far end
    check = growth.recheck("ends-full", result, 13, 60.0, cache_dir=None)
    assert check.outcome == Outcome.SURVIVES and not check.singles  # decided with every bound at once: no one-bound runs
    assert 0 < check.searched <= 13 and check.reason.startswith("state budget of 13 reached")
    assert check.words() == (f"survives: `never-full-at-end` on tally [default] still fails with cards 1\u21922, rounds 3\u21924 "
                             f"(a violation found by a seeded search after {check.searched} states; the breadth-first run was over the budget of 13 states)")
    assert GrowthCheck.from_json(json.loads(json.dumps(check.to_json()))) == check
    assert growth.recheck("ends-full", result, 13, 60.0, cache_dir=None) == check  # seeded: the same every run
    # Without the search, breadth first decides it only one bound at a time.
    monkeypatch.setattr(growth, "searchable", lambda _prop: False)
    assert growth.recheck("ends-full", result, 13, 60.0, cache_dir=None).singles


def test_a_state_from_which_the_game_cannot_end_is_shown_by_exploring_everything_after_it(tmp_path, monkeypatch):
    result = pit_result(tmp_path, monkeypatch)
    # length 3->4 alone: 248 states, rounds 30->31 alone: 224, both over 200 breadth first (and can-end needs them all);
    # every bound at once is then predicted past it too, and not run
    check = growth.recheck("pit", result, 200, 60.0, cache_dir=None)
    assert check.outcome == Outcome.SURVIVES
    assert [(s.grown, s.outcome) for s in check.singles] == [("length 3\u21924", Outcome.SURVIVES), ("rounds 30\u219231", Outcome.SURVIVES)]
    assert all(0 < s.searched <= 200 and s.reason.startswith("state budget of 200 reached") for s in check.singles)
    words = check.words()
    assert words.startswith("survives: `can-end` on pit [default] still fails with each bound one step larger on its own (length 3\u21924, rounds 30\u219231)")
    assert words.endswith(f"; where breadth first passed its budget, a violation found by a seeded search: length 3\u21924 after {check.singles[0].searched} states, "
                          f"rounds 30\u219231 after {check.singles[1].searched} states")
    monkeypatch.setattr(growth, "searchable", lambda _prop: False)
    assert growth.recheck("pit", result, 200, 60.0, cache_dir=None).outcome == Outcome.NOT_RECHECKED


def test_the_witness_is_the_confirmed_trace_of_a_state_that_cannot_end(tmp_path, monkeypatch):
    result = pit_result(tmp_path, monkeypatch)
    config = growth.grow(result.model, result.config).singles[0][1]
    found = witness.find_violation(result.model, growth.Config(config, result.config.readings), bind(result.prop, result.model), 220, result.depth)
    assert found.trace is not None and found.trace.shape == "closed"
    assert found.trace.states()[-1]["pit"] > 0  # in the pit, from which the interpreter found no end
    # too small a budget for the walks to reach the pit and explore it: nothing, and it says so
    short = witness.find_violation(result.model, growth.Config(config, result.config.readings), bind(result.prop, result.model), 3, result.depth)
    assert short.trace is None and short.words() == "a seeded search met no violation in 3 states"


def test_a_witness_that_does_not_replay_in_the_interpreter_is_refused(tmp_path, monkeypatch):
    result = tally_result(tmp_path, monkeypatch, "never-full-at-end", "not (deck == 0 and tally == rounds)")

    def bogus(self):
        start = self.compiled.initial[0]
        return witness._Candidate([start, start])  # no move leads from the first state to itself

    monkeypatch.setattr(witness._Walker, "search", bogus)
    monkeypatch.setattr(growth, "searchable", lambda _prop: True)
    check = growth.recheck("ends-full", result, 13, 60.0, cache_dir=None)
    # every bound at once overran and its refused witness decides nothing: the bounds are grown one at a time
    assert check.searched == 0 and not any(s.searched for s in check.singles) and check.singles
    assert "; the seeded search's witness was refused: it did not replay in the interpreter (step 1: no enabled transition" in check.reason


def test_a_leads_to_is_shown_by_a_walk_that_loops_after_its_situation(tmp_path, monkeypatch):
    """At the end of the track the player finishes, says the property; a walk that falls into the
    pit there and spins back to a state it has been in is the endless play that avoids it."""
    (tmp_path / "models" / "pit").mkdir(parents=True)
    (tmp_path / "properties").mkdir()
    (tmp_path / "models" / "pit" / "pit.yaml").write_text(PIT)
    (tmp_path / "properties" / "pit.yaml").write_text(
        "game: pit\nproperties:\n  - id: end-finishes\n    kind: leads-to\n    says: x\n    from: pos == length\n    to: done == 1\n    expect: fails\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(growth, "MIN_STATES", 1)
    monkeypatch.setattr(growth, "GROWTH_FACTOR", 1000)
    result = next(r for r in check_paths(["models/pit"], CheckOptions()) if r.prop.id == "end-finishes")
    assert result.status == "fails" and result.states == 217
    check = growth.recheck("pit", result, 200, 60.0, cache_dir=None)
    assert check.outcome == Outcome.SURVIVES and [s.outcome for s in check.singles] == [Outcome.SURVIVES] * 2
    assert all(s.searched for s in check.singles)
    config = growth.Config(growth.grow(result.model, result.config).singles[0][1], result.config.readings)
    found = witness.find_violation(result.model, config, bind(result.prop, result.model), 200, result.depth)
    assert found.trace is not None and found.trace.shape == "lasso" and found.trace.states()[-1]["pit"] > 0


def test_every_bound_at_once_left_unexplored_is_still_searched_where_one_at_a_time_decided_nothing(tmp_path, monkeypatch):
    result = pit_result(tmp_path, monkeypatch)
    monkeypatch.setattr(growth, "SINGLES_ALLOWANCE", 0)  # no one-bound run: every one says "not run"
    check = growth.recheck("pit", result, 200, 60.0, cache_dir=None)
    assert [s.outcome for s in check.singles] == [Outcome.NOT_RECHECKED] * 2 and check.outcome == Outcome.SURVIVES and check.searched
    assert check.words() == (f"survives: `can-end` on pit [default] still fails with every bound at once (length 3\u21924, rounds 30\u219231) "
                             f"(a violation found by a seeded search after {check.searched:,} states; not explored breadth first, the one-at-a-time "
                             f"runs predict about 220 states (the checked 217 times each bound's own growth), over its budget of 200)")
