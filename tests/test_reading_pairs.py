"""Pairs of readings: footprints, `check --readings pairs` and `readings --pairs` interactions.

In the model below neither `a=yes` nor `b=yes` changes anything alone, but together they let
the walk stop early: an interaction that single deviations cannot show. `c` touches other
clauses and slots, so it is never paired.
"""

from __future__ import annotations

from checker.analysis.footprint import related_pairs
from checker.analysis.impact import Settings
from checker.analysis.interactions import interactions
from checker.lang.build import load_model
from checker.pipeline.readings import analyse_model
from checker.pipeline.runner import CheckOptions, check_paths, reading_configs
from tests.conftest import write

WALK = """\
game: Walk
id: walk
players: [ann]
readings:
  a: {clause: w-2, question: "Stop early?", options: {no: no, yes: yes}, default: no}
  b: {clause: w-2, question: "Really stop early?", options: {no: no, yes: yes}, default: no}
  c: {clause: w-3, question: "Shout?", options: {quiet: quiet, loud: loud}, default: quiet}
state:
  pos: "int[0..3]"
  done: bool
  noise: bool
init: {pos: 0, done: false, noise: false}
terminal: done
outcome: pos
actions:
  go:
    by: ann
    when: not done and pos < 3
    do: {pos: pos + 1}
    rule: w-1
  shout:
    by: ann
    when: reading.c == loud and not noise
    do: {noise: true}
    rule: w-3
  stop:
    by: rules
    when: not done and pos == 1 and reading.a == yes and reading.b == yes
    do: {done: true}
    rule: w-2
  finish:
    by: rules
    when: not done and pos == 3
    do: {done: true}
    rule: w-1
clauses:
  w-1: {at: "1", says: "Walk to the end."}
  w-2: {at: "2", says: "Some walkers stop early."}
  w-3: {at: "3", says: "Walkers may shout."}
"""
PROPS = """\
game: game
properties:
  - id: full-walk
    kind: unreachable
    expr: done and pos < 3
    expect: {default: holds, "a=yes,b=yes": fails}
  - id: coverage
    kind: coverage
    expect: {default: fails, "a=yes,b=yes,c=loud": holds}
"""


def test_footprints_pair_readings_that_share_a_clause_or_slot(tmp_path):
    model = load_model(write(tmp_path, WALK))
    assert related_pairs(model) == [("a", "b")]
    labels = [c.reading_label(model) for c in reading_configs(model, "pairs", {}, {})]
    assert "a=yes,b=yes" in labels and len(labels) == len(set(labels))


def test_check_pairs_reports_the_interaction(tmp_path):
    path = write(tmp_path, WALK)
    (tmp_path / "properties").mkdir()
    (tmp_path / "properties" / "game.yaml").write_text(PROPS)
    results = check_paths([path], CheckOptions(readings="pairs"))
    assert {r.reading_label for r in results} >= {"default", "a=yes", "b=yes", "a=yes,b=yes"}
    found = [i for i in interactions(results) if set(i.deviations) == {"a=yes", "b=yes"}]
    assert len(found) == 1
    assert ("full-walk", "fails") in found[0].together and not found[0].separately
    assert all(r.matches for r in results), [(r.prop.id, r.reading_label, r.status) for r in results if not r.matches]


def test_readings_pairs_reports_the_interaction(tmp_path):
    model = load_model(write(tmp_path, WALK))
    result = analyse_model(model, Settings(pairs=True))
    singles = {(o.reading, o.option): o.classification for r in result.readings for o in r.options}
    assert singles[("a", "yes")] == "moot" and singles[("b", "yes")] == "moot"
    pair = next(p for p in result.pairs if p.options == (("a", "yes"), ("b", "yes")))
    assert pair.interacts and "gains 1" in pair.effect and not pair.union
