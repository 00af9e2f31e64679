"""The verdict cache (`checker.evidence.verdict_cache`): a run over unchanged content reuses the check
matrix's verdicts, and anything a verdict depends on changing makes it explore again."""

from __future__ import annotations

import json
import os
from typing import get_args

import pytest

from checker.engines.backend import ExplicitEngine
from checker.engines.verdict import (
    Branches,
    ClosedSet,
    Deadlock,
    EngineName,
    Evidence,
    Lasso,
    Path,
    PropertyError,
    Status,
    StepError,
    Strategy,
    Verdict,
    evidence_of,
)
from checker.evidence import verdict_cache
from checker.lang import caches
from checker.pipeline.runner import CheckOptions, check_paths
from tests.conftest import rulecheck


def outcome(results) -> list[tuple]:
    return [(r.model.id, r.prop.id, r.reading_label, r.status, r.bound, r.states, r.transitions, r.depth, r.trace.steps if r.trace else None) for r in results]


def test_a_second_run_reuses_every_verdict_without_exploring(project, monkeypatch):
    first = check_paths([str(project / "models")], CheckOptions())
    assert first and not any(r.reused for r in first)

    def no_exploring(*args, **kwargs):
        raise AssertionError("explored although the verdicts are cached")

    monkeypatch.setattr(ExplicitEngine, "decide", no_exploring)
    second = check_paths([str(project / "models")], CheckOptions())
    assert all(r.reused and r.seconds == 0.0 for r in second)
    assert outcome(second) == outcome(first)
    assert any(r.trace is not None for r in second)  # counterexamples replayed again from the cached paths


def test_a_changed_model_file_explores_again(project):
    check_paths([str(project / "models")], CheckOptions())
    model = project / "models" / "duel" / "duel.yaml"
    model.write_text(model.read_text() + "\n# an edit\n")
    again = check_paths([str(project / "models")], CheckOptions())
    assert not any(r.reused for r in again)


def test_other_options_and_fresh_runs_explore_again(project):
    check_paths([str(project / "models")], CheckOptions())
    assert not any(r.reused for r in check_paths([str(project / "models")], CheckOptions(backend="python")))
    assert not any(r.reused for r in check_paths([str(project / "models")], CheckOptions(reuse=False)))


@pytest.mark.parametrize("bound, stored", [
    ("exhaustive", True),
    ("state budget of 1000 reached; explored to depth 7", True),
    ("timeout after 0.5 s; explored to depth 3", False),
])
def test_only_verdicts_no_clock_decided_are_kept(bound, stored, monkeypatch, tmp_path):
    monkeypatch.setenv("RULECHECK_VERDICTS", str(tmp_path))
    verdict_cache.store("k", {"p": Verdict(Status.HOLDS, EngineName.EXPLICIT, bound)}, complete=bound == "exhaustive")
    assert (verdict_cache.load("k") is not None) == stored


PLAY = [{"turn": 0, "hand": {("ann", 1): 2}}, {"turn": 1, "hand": {("ann", 1): 3}}]
EVERY_EVIDENCE = [
    Path(PLAY), Path(PLAY, last_action="draw", more=(PLAY[:1],)), Deadlock(PLAY), ClosedSet(PLAY), StepError(PLAY),
    PropertyError(PLAY, "draw"), Branches(PLAY, (("left", {"n": 1}), ("right", {"n": 2}))), Lasso(PLAY, 0, True), Lasso(PLAY, 0),
    Strategy(PLAY), Strategy(PLAY, 0),
]


@pytest.mark.parametrize("evidence", EVERY_EVIDENCE, ids=lambda e: type(e).__name__)
def test_every_kind_of_evidence_is_read_back_as_it_was_kept(evidence, monkeypatch, tmp_path):
    """Each evidence type is kept as plain JSON (its shape word and its own fields) and read
    back equal, of its own type: a cached verdict's trace is built from it like a fresh one's."""
    monkeypatch.setenv("RULECHECK_VERDICTS", str(tmp_path))
    kept = Verdict(Status.FAILS, EngineName.EXPLICIT, "exhaustive", evidence=evidence, note="the words")
    verdict_cache.store("k", {"p": kept}, complete=True)
    json.loads((tmp_path / "k.json").read_text())  # plain JSON data
    loaded = verdict_cache.load("k")
    assert loaded is not None
    back = loaded[0]["p"]
    assert type(back.evidence) is type(evidence) and back.evidence == evidence
    assert (back.status, back.note, back.has_evidence, back.has_witness) == (kept.status, kept.note, kept.has_evidence, kept.has_witness)


@pytest.mark.parametrize("kind", get_args(Evidence), ids=lambda kind: kind.__name__)
def test_a_findings_shape_word_gives_the_evidence_type_that_carries_it(kind):
    """The searches' shape words and the types' `shape` (what traces carry) are one vocabulary."""
    evidence = evidence_of(kind.shape, PLAY, loop_start=0)
    assert type(evidence) is kind and evidence.shape == kind.shape
    assert evidence_of(kind.shape, []) is None  # no play, no evidence
    with pytest.raises(ValueError):
        evidence_of("spiral", PLAY)


@pytest.mark.parametrize("edit", [
    lambda evidence: evidence.__setitem__(0, "path"),  # a lasso's fields under the path's shape word
    lambda evidence: evidence.__setitem__(0, "spiral"),  # a shape no evidence has
    lambda evidence: evidence[1]["dict"].append(["extra", 1]),  # a field the lasso does not have
], ids=["other-shape", "unknown-shape", "extra-field"])
def test_evidence_not_of_its_shape_is_a_miss(edit, monkeypatch, tmp_path):
    monkeypatch.setenv("RULECHECK_VERDICTS", str(tmp_path))
    verdict_cache.store("k", {"p": Verdict(Status.FAILS, EngineName.EXPLICIT, "exhaustive", evidence=Lasso(PLAY, 0))}, complete=True)
    doc = _unshared(json.loads((tmp_path / "k.json").read_text()))
    edit(next(value for name, value in doc["verdicts"]["p"]["dict"] if name == "evidence")["evidence"])
    (tmp_path / "k.json").write_text(json.dumps(doc))
    assert verdict_cache.load("k") is None


def _unshared(doc):
    """A kept file with every shared subtree written out in place (a file with no shared
    entries is as valid as a packed one), so that a test can edit it as plain JSON."""
    def expand(value):
        if isinstance(value, list):
            return [expand(v) for v in value]
        if isinstance(value, dict):
            return expand(doc["shared"][value["ref"]]) if set(value) == {"ref"} else {k: expand(v) for k, v in value.items()}
        return value
    return {**doc, "verdicts": expand(doc["verdicts"]), "shared": []}


LONG_PLAY = [{"hand": {("a", card): card % 2 for card in range(12)}, "turn": turn} for turn in range(30)]


def test_a_trace_s_repeated_piles_are_kept_once_and_read_back_whole(monkeypatch, tmp_path):
    """Thirty states sharing one hand: the hand is written once, and every state comes back with
    its own equal copy (a consumer that edits one state must not edit the others)."""
    monkeypatch.setenv("RULECHECK_VERDICTS", str(tmp_path))
    kept = Verdict(Status.FAILS, EngineName.EXPLICIT, "exhaustive", evidence=Path(LONG_PLAY))
    verdict_cache.store("k", {"p": kept, "q": kept}, complete=True)
    text = (tmp_path / "k.json").read_text()
    assert text.count('"a",11') == 1  # the hand's last card, once for 60 states
    loaded = verdict_cache.load("k")
    assert loaded is not None
    states = loaded[0]["p"].evidence.states
    assert states == LONG_PLAY and loaded[0]["q"].evidence.states == LONG_PLAY
    states[0]["hand"][("a", 0)] = 7
    assert states[1]["hand"][("a", 0)] == 0


@pytest.mark.parametrize("ref", [0, 1, -1, True, "0"], ids=["itself", "later", "negative", "bool", "string"])
def test_a_shared_entry_that_refers_to_itself_or_later_is_a_miss(ref, monkeypatch, tmp_path):
    """References point only backwards, so a planted file cannot make unpacking loop or recurse without end."""
    monkeypatch.setenv("RULECHECK_VERDICTS", str(tmp_path))
    verdict_cache.store("k", {"p": Verdict(Status.FAILS, EngineName.EXPLICIT, "exhaustive", evidence=Path(LONG_PLAY))}, complete=True)
    doc = json.loads((tmp_path / "k.json").read_text())
    doc["shared"] = [[{"ref": ref}], *([[{"ref": 0}]] if ref == 1 else [])]
    doc["verdicts"] = {"p": {"ref": len(doc["shared"]) - 1}}
    (tmp_path / "k.json").write_text(json.dumps(doc))
    assert verdict_cache.load("k") is None


@pytest.mark.slow
def test_the_key_is_the_same_in_every_process(project):
    """Sets in the bound properties iterate in an order that differs between processes; the
    key must not, or no run would ever reuse another's verdicts."""
    env = dict(os.environ)
    for seed in ("1", "2"):
        os.environ["PYTHONHASHSEED"] = seed
        try:
            run = rulecheck("check", "--no-growth", cwd=str(project))
        finally:
            os.environ.clear()
            os.environ.update(env)
    assert "reused from .rulecheck-cache" in run.stdout + run.stderr
    assert "reused" not in rulecheck("check", "--no-growth", "--fresh", cwd=str(project)).stdout


def test_sets_are_keyed_in_the_same_order_whatever_the_string_hashing():
    import subprocess
    import sys

    code = "from checker.lang.caches import stable; print(repr(stable({'kind': frozenset({'low', 'high', 'wild', 'ace', 'joker'})})))"
    outputs = {subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env={**os.environ, "PYTHONHASHSEED": seed}, check=True).stdout for seed in ("1", "2", "3", "4")}
    assert len(outputs) == 1


def test_a_job_in_a_worker_takes_the_digest_its_planning_computed(project, monkeypatch):
    """A worker receives a fresh copy of a job's properties per job: it keys their verdicts with
    the digest the planning process computed once per model, the same key, without recomputing."""
    import pickle

    from checker.lang.build import load_model
    from checker.lang.properties import load_suite, suite_path
    from checker.pipeline.runner import plan_model, run_job

    path = str(project / "models" / "duel" / "duel.yaml")
    jobs = plan_model(load_model(path), load_suite(suite_path(path)), CheckOptions())
    assert jobs and all(job.props_digest == caches.list_digest(jobs[0].props) for job in jobs)
    planned = [[(position, [(r.prop.id, r.status) for r in batch]) for position, batch in run_job(job)] for job in jobs]
    copies = [pickle.loads(pickle.dumps(job)) for job in jobs]

    def recomputed(value):
        raise AssertionError("the properties' digest was recomputed in the worker")

    monkeypatch.setattr(caches, "stable", recomputed)
    again = [run_job(job) for job in copies]
    assert all(r.reused for batches in again for _, batch in batches for r in batch)  # the same keys as the planning process's
    assert [[(position, [(r.prop.id, r.status) for r in batch]) for position, batch in batches] for batches in again] == planned


def test_a_fact_of_a_configuration_is_computed_once_per_content(project):
    from checker.lang.build import load_model

    model = load_model(str(project / "models" / "duel" / "duel.yaml"))
    config = model.default_config()
    asked = []

    def decide() -> bool:
        asked.append(1)
        return True

    assert verdict_cache.remembered("ends-surely-test", model, config, decide) is True
    assert verdict_cache.remembered("ends-surely-test", model, config, decide) is True
    assert len(asked) == 1
    assert verdict_cache.remembered("ends-surely-other", model, config, decide) is True  # another fact, another entry
    assert len(asked) == 2


def test_an_undecided_fact_is_kept_too(project):
    """None (the game past the bound: nothing claimed) is remembered like True and False, not
    taken for a miss and computed again on every run."""
    from checker.lang.build import load_model

    model = load_model(str(project / "models" / "duel" / "duel.yaml"))
    config = model.default_config()
    asked = []

    def undecided() -> None:
        asked.append(1)

    assert verdict_cache.remembered("ends-surely-undecided", model, config, undecided) is None
    assert verdict_cache.remembered("ends-surely-undecided", model, config, undecided) is None
    assert len(asked) == 1


def test_a_rerun_takes_whether_a_chance_loop_ends_surely_from_the_cache(tmp_path, monkeypatch):
    from checker.evidence import confirm as evidence
    from tests.test_property_kinds import LOOPS, run

    suite = "- id: ends\n  kind: terminates\n  expect: {default: holds, loop=forced: fails, loop=player: fails, loop=chance: fails, loop=both: fails}\n"
    first = run(tmp_path, LOOPS, suite)[("ends", "loop=chance")].trace
    assert first.game_ends_surely is True

    def not_again(*args, **kwargs):
        raise AssertionError("explored the whole game again")

    monkeypatch.setattr(evidence, "ends_surely", not_again)
    again = run(tmp_path, LOOPS, suite)[("ends", "loop=chance")]
    assert again.reused and again.trace.game_ends_surely is True and "ends with probability 1" in again.trace.note
    with pytest.raises(AssertionError, match="explored the whole game again"):
        run(tmp_path, LOOPS, suite, reuse=False)


def test_a_recheck_confirms_a_chance_loop_without_exploring_the_whole_game(tmp_path, monkeypatch):
    """The growth and invented-number re-checks read a verdict and whether its evidence replays;
    whether the whole game ends surely (an exploration of the whole game, made for every run:
    a third of the title belt's re-checks) is asked only by the check whose page shows it."""
    from checker.engines.explicit import Budget
    from checker.evidence import confirm as evidence
    from checker.pipeline.growth import recheck_at
    from tests.test_property_kinds import LOOPS, run

    suite = "- id: ends\n  kind: terminates\n  expect: {default: holds, loop=forced: fails, loop=player: fails, loop=chance: fails, loop=both: fails}\n"
    chance = run(tmp_path, LOOPS, suite, reuse=False)[("ends", "loop=chance")]
    assert chance.trace.game_ends_surely is True

    def not_asked(*args, **kwargs):
        raise AssertionError("the re-check explored the whole game")

    replayed = []
    monkeypatch.setattr(evidence, "ends_surely", not_asked)
    monkeypatch.setattr(evidence, "confirm", lambda *args: replayed.append(1))
    outcome, _, states = recheck_at(chance, chance.config, Budget(10_000, 60.0, stop_when_decided=True))
    assert outcome.value == "survives" and states > 0
    assert replayed  # the lasso was still replayed and confirmed
