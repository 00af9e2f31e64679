"""Symmetry reduction (`symmetric: [player]`): the explicit engine explores one state per
renaming of the players, with the same verdicts, and every trace it reports is still a play of
the model (replayed in the interpreter). A model or property that singles out a member is refused
with a located error."""

from __future__ import annotations

import os

import pytest

import rulecheck
from tests.conftest import HERE
from tests.conftest import rulecheck as run_cli

TOKENS = os.path.join(HERE, "symmetry", "models", "tokens", "tokens.yaml")

ROTATE = """\
game: Rotate
id: rotate
players: [ann, bob, cat]
symmetric: player
state:
  holder: player
  passes: "int[0..1]"
init:
  holder: {choose: player}
  passes: 0
terminal: false
actions:
  pass_on:
    by: holder
    for: {q: player}
    when: q != holder
    do: {holder: q}
    rule: r-1
clauses:
  r-1: {at: "1", says: "Pass the parcel to another player."}
"""


def outline(results):
    return [(r.prop.id, r.status, r.trace.shape if r.trace else None, len(r.trace.steps) if r.trace else None) for r in results]


def test_the_reduced_exploration_is_smaller_with_the_same_verdicts_and_replayed_traces():
    reduced = rulecheck.check(TOKENS, readings="default")
    full = rulecheck.check(TOKENS, readings="default", symmetry=False)
    assert {r.states for r in reduced} == {23} and {r.states for r in full} == {129}
    assert outline(reduced) == outline(full)  # the same verdicts, and shortest traces of the same length and shape
    shapes = {r.trace.shape for r in reduced if r.trace}
    assert shapes == {"path", "lasso", "branch"}  # invariant, after, terminates, leads-to and deterministic evidence
    assert all(r.matches for r in reduced)
    (reach,) = [r for r in reduced if r.prop.id == "someone-runs-out"]
    assert reach.witnesses and reach.witnesses[0].states()[-1]["tokens"]  # replayed on use, like a counterexample


def test_a_loop_through_renamed_states_is_gone_round_until_it_closes(tmp_path):
    folder = tmp_path / "models" / "rotate"
    folder.mkdir(parents=True)
    (folder / "rotate.yaml").write_text(ROTATE)
    (tmp_path / "properties").mkdir()
    (tmp_path / "properties" / "rotate.yaml").write_text("properties:\n  - {id: ends, kind: terminates, expect: fails}\n")
    (reduced,) = [r for r in rulecheck.check(str(folder)) if r.prop.id == "ends"]
    (full,) = [r for r in rulecheck.check(str(folder), symmetry=False) if r.prop.id == "ends"]
    assert (reduced.states, full.states) == (1, 3)  # every holder is the same situation renamed
    # on the reduced graph the loop is one step back to the same class; as a play it must return
    # to the very same state, which takes two passes (ann -> bob -> ann)
    trace = reduced.trace
    assert trace.shape == "lasso" and len(trace.steps) == 2 and trace.states()[0] == trace.states()[-1]


@pytest.mark.parametrize(("where", "old", "new", "gist"), [
    ("properties", "    expr: any(tokens[p] == 0 for p in player)\n", "    expr: tokens[ann] == 0\n",
     "property `someone-runs-out` names the member `ann` of the symmetric domain `player`"),
    ("model", "    when: p != q and p != mover", "    when: q == succ(p) and p != mover",
     "the model `succ` orders the members of the symmetric domain `player`"),
    ("model", "  mover: {choose: player}", "  mover: ann", "the model names the member `ann`"),
    ("model", "constants:\n", "constants:\n  weight: {type: int, of: player, value: {ann: 1, bob: 1, cat: 2}}\n",
     "constant `weight` differs between members (weight[bob] = 1, weight[cat] = 2)"),
    ("model", "symmetric: [player]", "symmetric: [players]", "`symmetric` names `players`, which is not an enum domain"),
])
def test_what_breaks_the_symmetry_is_a_located_error(tmp_path, where, old, new, gist):
    import shutil

    shutil.copytree(os.path.join(HERE, "symmetry"), tmp_path, dirs_exist_ok=True)
    path = tmp_path / ("properties/tokens.yaml" if where == "properties" else "models/tokens/tokens.yaml")
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new))
    run = run_cli("check", "models/tokens", "--no-write", "--jobs", "1", cwd=str(tmp_path))
    assert run.returncode == 2, run.stdout + run.stderr
    assert gist in run.stderr and ".yaml:" in run.stderr.split("error:")[0], run.stderr
