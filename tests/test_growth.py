"""The growth re-check: each filed finding re-checked with the model's marked bounds one step larger.

A toy game whose deck size is a marked bound: `one-card-deck` (nobody draws two cards) holds only
because the deck has one card and vanishes with two; `drawing-happens` survives any deck;
`short-deck` (nobody draws four) needs more states than the budget gives the larger run.
"""

from __future__ import annotations

import json
import textwrap
import xml.etree.ElementTree as ET

import pytest

from checker.engines.explicit import Budget
from checker.evidence.growth_check import GrowthCheck, Outcome
from checker.lang.model import Config
from checker.lang.properties import bind
from checker.pipeline import growth
from checker.pipeline.runner import CheckOptions, check_config, check_paths, load_games
from tests.conftest import rulecheck

MODEL = textwrap.dedent(
    """\
    game: Toy
    id: toy
    players: [ann]
    constants:
      cards: {type: int, range: [1, 6], default: 1, bound: true, doc: "cards in the deck (the text says 10)"}
      spare: {type: int, range: [0, 2], default: 0, bound: true, doc: "spare cards, left out of this game"}
    state:
      deck: "int[0..6]"
      drawn: "int[0..6]"
    init:
      deck: cards + spare
      drawn: 0
    terminal: deck == 0
    actions:
      draw:
        by: ann
        when: deck > 0
        do:
          deck: deck - 1
          drawn: drawn + 1
        rule: t-1
      draw_two:
        by: ann
        when: deck >= 2
        do:
          deck: deck - 2
          drawn: drawn + 2
        rule: t-2
    clauses:
      t-1: {at: "1", says: "Draw a card."}
      t-2: {at: "2", says: "Or draw two."}
    """
)

SUITE = textwrap.dedent(
    """\
    game: toy
    properties:
      - id: two-drawn
        kind: reachable
        says: A player can draw two cards.
        expr: drawn >= 2
        clauses: [t-1]
        expect: fails
      - id: never-draws
        kind: invariant
        says: Nobody ever draws.
        expr: drawn == 0
        clauses: [t-1]
        expect: fails
      - id: four-drawn
        kind: reachable
        says: A player can draw four cards.
        expr: drawn >= 4
        clauses: [t-1]
        expect: fails
      - id: last-card-draws-two
        kind: leads-to
        says: Once the deck is empty after a single draw, two cards have been drawn.
        from: deck == 0 and drawn == 1
        to: drawn >= 2
        expect: fails
      - id: coverage
        kind: coverage
        says: Every rule can apply.
        expect: fails
    findings:
      - id: one-card-deck
        title: Nobody can draw two cards
        class: gap
        scenario: The deck holds one card.
        proposed: None.
        properties: [two-drawn]
      - id: drawing-happens
        title: Cards are drawn
        class: gap
        scenario: Ann draws.
        proposed: None.
        properties: [never-draws]
      - id: short-deck
        title: Nobody can draw four cards
        class: gap
        scenario: The deck holds three cards.
        proposed: None.
        properties: [four-drawn]
      - id: single-draw-ends
        title: The deck can run out after a single draw
        class: gap
        scenario: The deck holds one card.
        proposed: None.
        properties: [last-card-draws-two]
      - id: two-never-drawn
        title: Drawing two cards never happens
        class: dead-rule
        scenario: The deck holds one card.
        proposed: None.
        properties: [coverage]
    """
)


@pytest.fixture
def toy(tmp_path):
    (tmp_path / "models" / "toy").mkdir(parents=True)
    (tmp_path / "properties").mkdir()
    (tmp_path / "models" / "toy" / "toy.yaml").write_text(MODEL)
    (tmp_path / "properties" / "toy.yaml").write_text(SUITE)
    return tmp_path


def check_json(project, *args: str, status: int = 0) -> dict:
    run = rulecheck("check", "models/toy", "--jobs", "1", "--no-write", "--format", "json", *args, cwd=str(project))
    assert run.returncode == status, run.stderr
    return json.loads(run.stdout)


def growth_of(doc: dict) -> dict[str, dict | None]:
    return {f["id"]: f["growth"] for f in doc["findings"]}


def test_a_finding_that_vanishes_with_one_more_card_is_labelled_a_bound_artefact(toy):
    doc = check_json(toy)
    findings = {f["id"]: f for f in doc["findings"]}
    vanished = findings["one-card-deck"]
    assert vanished["growth"]["outcome"] == "vanishes" and vanished["growth"]["grown"] == ["cards 1\u21922"]
    assert vanished["severity"] == "not a rule defect"  # not counted as a defect of the rules
    two = next(r for r in doc["results"] if r["property"] == "two-drawn")
    assert two["growth"] == [{"finding": "one-card-deck", "outcome": "vanishes"}]
    summary = rulecheck("check", "models/toy", "--jobs", "1", "--no-write", cwd=str(toy)).stdout
    assert "toy: 1 model(s), 1 combinations, 7 properties; 3 finding(s) (3 rules-visible), 2 bound artefact(s)" in summary
    game_line = summary.splitlines()[0]  # still one line per game
    assert game_line.endswith("; growth re-check: 2 survive, 2 vanish, 1 not re-checked")


def test_the_errata_page_junit_and_sarif_label_the_artefact(toy):
    run = rulecheck("check", "models/toy", "--jobs", "1", "--junit", "out.xml", "--sarif", "out.sarif", cwd=str(toy))
    assert run.returncode == 0, run.stderr
    main = (toy / "docs" / "errata" / "toy.md").read_text()
    assert "Nobody can draw two cards" not in main and "come from the bounds of the check, not from the text" in main
    page = (toy / "docs" / "errata" / "toy-details.md").read_text()  # each finding's growth re-check is on the details page
    defects, artefacts = page.split("## Failures that are not defects of the text")
    assert "Nobody can draw two cards" in artefacts and "Nobody can draw two cards" not in defects
    assert "**Growth re-check** (the model's bounds one step larger): vanishes:" in artefacts
    assert "**Growth re-check** (the model's bounds one step larger): survives: `never-draws`" in defects
    cases = {case.get("name"): case for case in ET.parse(toy / "out.xml").iter("testcase")}
    props = {p.get("name"): p.get("value") for p in cases["two-drawn[default]"].iter("property")}
    assert props["growth:one-card-deck"] == "bound artefact"
    sarif = json.loads((toy / "out.sarif").read_text())
    shown = {r["properties"]["finding"]: r for r in sarif["runs"][0]["results"] if "finding" in r["properties"]}
    assert shown["one-card-deck"]["level"] == "none" and "bound artefact" in shown["one-card-deck"]["message"]["text"]
    assert shown["drawing-happens"]["properties"]["growth"]["outcome"] == "survives"


def test_coverage_is_decided_as_soon_as_every_action_has_fired(toy):
    dead = growth_of(check_json(toy))["two-never-drawn"]
    assert dead["outcome"] == "vanishes" and dead["reason"].startswith("every property decided")  # not "exhaustive"


def test_a_leads_to_that_holds_only_because_its_situation_is_gone_is_not_called_an_artefact(toy):
    gone = growth_of(check_json(toy))["single-draw-ends"]  # with two cards the deck never empties after one draw
    assert gone["outcome"] == "not re-checked" and "no longer reachable" in gone["reason"]


def test_a_finding_that_survives_keeps_its_severity_and_a_zero_bound_stays_out(toy):
    kept = growth_of(check_json(toy))["drawing-happens"]
    assert kept["outcome"] == "survives" and kept["grown"] == ["cards 1\u21922"]  # `spare` is 0: left out, not grown
    doc = check_json(toy, "--set", "spare=1", status=1)  # with a spare card two-drawn holds: unexpected
    assert growth_of(doc)["drawing-happens"]["grown"] == ["cards 1\u21922", "spare 1\u21922"]


def test_a_larger_run_over_the_budget_is_not_re_checked_and_says_so(toy):
    doc = check_json(toy, "--set", "cards=3", "--max-states", "4", status=1)  # two-drawn holds: unexpected
    short = growth_of(doc)["short-deck"]
    assert short["outcome"] == "not re-checked" and "state budget of 4 reached" in short["reason"]
    assert next(f for f in doc["findings"] if f["id"] == "short-deck")["severity"] == "rules-visible"


def test_a_bound_at_the_top_of_its_range_is_named_and_not_re_checked(toy):
    short = growth_of(check_json(toy, "--set", "cards=6", status=1))["drawing-happens"]
    assert short["outcome"] == "not re-checked" and short["at_max"] == ["cards 6"] and short["grown"] == []


def test_no_growth_turns_the_re_check_off(toy):
    doc = check_json(toy, "--no-growth")
    assert set(growth_of(doc).values()) == {None}
    assert next(f for f in doc["findings"] if f["id"] == "one-card-deck")["severity"] == "rules-visible"
    assert not (toy / ".rulecheck-cache").exists()
    summary = rulecheck("check", "models/toy", "--jobs", "1", "--no-write", "--no-growth", cwd=str(toy)).stdout
    assert "growth" not in summary


def test_outcomes_are_cached_on_the_model_and_the_property(toy, tmp_path, monkeypatch):
    monkeypatch.chdir(toy)
    results = check_paths(["models/toy"], CheckOptions())
    cache = str(tmp_path / "cache")
    first = growth.growth_checks(results, 2_000_000, 60.0, cache)

    def no_run(*_args, **_kwargs):
        raise AssertionError("the cached outcome should have been used")

    monkeypatch.setattr(growth, "_run", no_run)
    for r in results:
        r.growth = ()
    assert growth.growth_checks(results, 2_000_000, 60.0, cache) == first
    suite = toy / "properties" / "toy.yaml"
    suite.write_text(suite.read_text().replace("says: Nobody ever draws.", "says: Nobody ever draws a card."))  # a property's text
    with pytest.raises(AssertionError, match="cached outcome"):
        growth.growth_checks(check_paths(["models/toy"], CheckOptions()), 2_000_000, 60.0, cache)
    model = toy / "models" / "toy" / "toy.yaml"
    suite.write_text(SUITE)
    model.write_text(model.read_text() + "\n# edited\n")  # any byte of the model's files
    with pytest.raises(AssertionError, match="cached outcome"):
        growth.growth_checks(check_paths(["models/toy"], CheckOptions()), 2_000_000, 60.0, cache)


def test_outputs_are_byte_stable_across_processes(toy, tmp_path):
    pages = []
    for run in ("a", "b"):
        project = tmp_path / run
        project.mkdir()
        for part in ("models", "properties"):
            (project / part).symlink_to(toy / part)
        done = rulecheck("check", "models/toy", "--jobs", "1", "--format", "json", cwd=str(project))
        findings = json.loads(done.stdout)["findings"]
        pages.append(((project / "docs" / "errata" / "toy.md").read_bytes(), json.dumps(findings)))
    assert pages[0] == pages[1]


def test_the_larger_run_stops_at_the_first_violation(toy, monkeypatch):
    monkeypatch.chdir(toy)
    game = load_games(["models/toy"])[0]
    model = game.models[0]
    cfg = Config({**model.default_config().constants, "cards": 5}, {})  # six states in all
    prop = bind(next(p for p in game.suite if p.id == "never-draws"), model)
    full = check_config(model, cfg, [prop], CheckOptions(backend="python"))[0]
    early = check_config(model, cfg, [prop], CheckOptions(backend="python", budget=Budget(stop_when_decided=True)))[0]
    assert full.status == early.status == "fails" and full.states == 6 and early.states == 3
    assert early.trace is not None and len(early.trace.steps) == len(full.trace.steps) == 1


@pytest.mark.parametrize("spec, message", [
    ("{type: bool, default: true, bound: true}", "only an int constant or table with a `range` can be a bound"),
    ("{type: int, default: 1, bound: true}", "only an int constant or table with a `range` can be a bound"),
    ("{type: int, range: [1, 6], default: 1, bound: 1}", "`bound` is true or false"),
])
def test_a_bound_must_be_a_ranged_int(toy, spec, message):
    path = toy / "models" / "toy" / "toy.yaml"
    path.write_text(MODEL.replace('{type: int, range: [0, 2], default: 0, bound: true, doc: "spare cards, left out of this game"}', spec))
    run = rulecheck("check", "models/toy", "--jobs", "1", "--no-write", cwd=str(toy))
    assert run.returncode == 2 and message in run.stderr and "toy.yaml:6:" in run.stderr


def test_outcome_words_name_the_representative_and_the_bounds():
    from checker.evidence.growth_check import GrowthCheck

    check = GrowthCheck("f", Outcome.NOT_RECHECKED, "v", "p", "default", ("n 1\u21922",), ("m 3",), "timeout after 60 s")
    assert check.words() == "not re-checked: `p` on v [default] with n 1\u21922 (m 3 already at the top of its range): timeout after 60 s"
    assert GrowthCheck.from_json(check.to_json()) == check


# A game with two bounds: the deck (`cards`) and a tally nobody's rule reads (`rounds`). The deck
# never runs out after a single draw only once it has two cards; growing the tally as well makes
# the larger state space ((cards + 1) x (rounds + 1) states) overrun a tight budget.
TWO_BOUNDS = textwrap.dedent(
    """\
    game: Tally
    id: tally
    players: [ann]
    constants:
      cards: {type: int, range: [1, 6], default: 1, bound: true, doc: "cards in the deck"}
      rounds: {type: int, range: [0, 6], default: 3, bound: true, doc: "rounds on the tally"}
    state:
      deck: "int[0..6]"
      drawn: "int[0..6]"
      tally: "int[0..6]"
    init:
      deck: cards
      drawn: 0
      tally: 0
    terminal: deck == 0
    actions:
      draw:
        by: ann
        when: deck > 0
        do:
          deck: deck - 1
          drawn: drawn + 1
        rule: t-1
      mark:
        by: ann
        when: tally < rounds
        do:
          tally: tally + 1
        rule: t-2
    clauses:
      t-1: {at: "1", says: "Draw a card."}
      t-2: {at: "2", says: "Or mark the tally."}
    """
)


def tally_result(tmp_path, monkeypatch, prop_id: str, expr: str, kind: str = "invariant"):
    """The failing result of an invariant (or `kind`) on the two-bound game (cards 1, rounds 3: 8 states)."""
    (tmp_path / "models" / "tally").mkdir(parents=True)
    (tmp_path / "properties").mkdir()
    (tmp_path / "models" / "tally" / "tally.yaml").write_text(TWO_BOUNDS)
    (tmp_path / "properties" / "tally.yaml").write_text(
        f"game: tally\nproperties:\n  - id: {prop_id}\n    kind: {kind}\n    says: x\n    expr: {expr}\n    expect: fails\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(growth, "MIN_STATES", 1)
    monkeypatch.setattr(growth, "GROWTH_FACTOR", 1000)  # the budget is then `max_states`
    result = next(r for r in check_paths(["models/tally"], CheckOptions()) if r.prop.id == prop_id)
    assert result.status == "fails" and result.states == 8
    return result


def test_when_all_bounds_at_once_overrun_each_bound_is_grown_on_its_own(tmp_path, monkeypatch):
    result = tally_result(tmp_path, monkeypatch, "deck-left", "not (deck == 0 and drawn == 1)")
    # all at once: 3 x 5 = 15 states, over a budget of 13; cards alone: 3 x 4 = 12 states, and it holds
    check = growth.recheck("single-draw", result, 13, 60.0, cache_dir=None)
    assert check.outcome == Outcome.VANISHES and check.artefact
    assert check.grown == ("cards 1\u21922", "rounds 3\u21924") and "state budget of 13" in check.reason
    assert [(s.grown, s.outcome) for s in check.singles] == [("cards 1\u21922", Outcome.VANISHES)]  # stops at the first
    assert check.cause == ("cards 1\u21922",)
    assert check.words().startswith("vanishes: `deck-left` on tally [default] holds with cards 1\u21922 alone (12 states explored")
    assert "every bound at once (cards 1\u21922, rounds 3\u21924) was not re-checked: state budget of 13" in check.words()
    assert GrowthCheck.from_json(json.loads(json.dumps(check.to_json()))) == check


def test_a_finding_every_single_growth_keeps_survives_one_at_a_time(tmp_path, monkeypatch):
    result = tally_result(tmp_path, monkeypatch, "never-full-at-end", "not (deck == 0 and tally == rounds)")
    monkeypatch.setattr(growth, "searchable", lambda _prop: False)  # breadth first only (the seeded search: tests/test_growth_witness.py)
    # it fails in every larger game, at depth cards + rounds: all at once needs 15 states, each alone 12 or fewer
    check = growth.recheck("ends-full", result, 13, 60.0, cache_dir=None)
    assert check.outcome == Outcome.SURVIVES and "state budget of 13" in check.reason
    assert [(s.grown, s.outcome) for s in check.singles] == [("cards 1\u21922", Outcome.SURVIVES), ("rounds 3\u21924", Outcome.SURVIVES)]
    assert "still fails with each bound one step larger on its own (cards 1\u21922, rounds 3\u21924)" in check.words()


def test_where_even_one_bound_at_a_time_overruns_it_says_which_and_why(tmp_path, monkeypatch):
    result = tally_result(tmp_path, monkeypatch, "deck-left", "not (deck == 0 and drawn == 1)")
    # cards alone needs 12 states (over 11); rounds alone still fails (survives) within 11
    check = growth.recheck("single-draw", result, 11, 60.0, cache_dir=None)
    assert check.outcome == Outcome.NOT_RECHECKED and not check.artefact
    assert [(s.grown, s.outcome) for s in check.singles] == [("cards 1\u21922", Outcome.NOT_RECHECKED), ("rounds 3\u21924", Outcome.SURVIVES)]
    assert "state budget of 11" in check.singles[0].reason
    # headlined apart from surviving every growth, the others' reasons short
    assert check.words() == ("survives each one-bound growth that was decided (1 of 2; not a re-check of every bound): `deck-left` on tally [default] "
                             "still fails with rounds 3\u21924; not decided: cards 1\u21922, every bound at once: over the budget of 11 states; "
                             "a seeded search met no violation in 11 states")  # the larger games hold: no search can find one


DEAL = textwrap.dedent(
    """\
    game: Deal
    id: deal
    players: [ann]
    constants:
      cards: {type: int, range: [1, 6], default: 3, doc: "cards in the deck (the text's count)"}
      hand: {type: int, range: [1, 3], default: 1, bound: true, doc: "cards dealt before play"}
    state:
      deck: "int[0..6]"
      drawn: "int[0..6]"
    init:
      deck: cards - hand
      drawn: 0
    terminal: deck == 0
    actions:
      draw:
        by: ann
        when: deck > 0
        do:
          deck: deck - 1
          drawn: drawn + 1
        rule: t-1
    clauses:
      t-1: {at: "1", says: "Draw a card."}
    """
)


def test_a_growth_that_shrinks_the_game_does_not_make_an_artefact(tmp_path, monkeypatch):
    """A larger hand dealt from the same deck leaves fewer cards to draw: the finding no longer
    shows, but only because the game got smaller."""
    (tmp_path / "models" / "deal").mkdir(parents=True)
    (tmp_path / "properties").mkdir()
    (tmp_path / "models" / "deal" / "deal.yaml").write_text(DEAL)
    (tmp_path / "properties" / "deal.yaml").write_text(
        "game: deal\nproperties:\n  - id: one-draw\n    kind: invariant\n    says: x\n    expr: drawn < 2\n    expect: fails\n")
    monkeypatch.chdir(tmp_path)
    result = next(r for r in check_paths(["models/deal"], CheckOptions()) if r.prop.id == "one-draw")
    assert result.status == "fails" and result.states == 3
    check = growth.recheck("two-draws", result, 1000, 60.0, cache_dir=None)
    assert check.outcome == Outcome.NOT_RECHECKED and check.grown == ("hand 1\u21922",)
    assert "in a smaller game (2 states against 3 with the checked bounds)" in check.reason


def test_worker_processes_give_the_serial_outcomes_in_the_serial_order(toy, monkeypatch):
    monkeypatch.chdir(toy)
    serial = growth.growth_checks(check_paths(["models/toy"], CheckOptions()), 2_000_000, 60.0, cache_dir=None)
    results = check_paths(["models/toy"], CheckOptions())
    parallel = growth.growth_checks(results, 2_000_000, 60.0, cache_dir=None, jobs=2)
    assert parallel == serial and len(serial) == 5
    two = next(r for r in results if r.prop.id == "two-drawn")
    assert [g.finding for g in two.growth] == ["one-card-deck"]


def test_the_one_at_a_time_runs_share_an_allowance_of_states_and_are_then_not_run(tmp_path, monkeypatch):
    result = tally_result(tmp_path, monkeypatch, "deck-left", "not (deck == 0 and drawn == 1)")
    monkeypatch.setattr(growth, "SINGLES_ALLOWANCE", 0)
    cache = tmp_path / "cache"
    check = growth.recheck("single-draw", result, 13, 60.0, cache_dir=str(cache))
    assert check.outcome == Outcome.NOT_RECHECKED
    assert [s.reason for s in check.singles] == ["not run: the one-at-a-time runs have spent their allowance of 0 states"] * 2
    assert cache.exists()  # counted in states, not seconds: the same on any machine, so kept


def test_findings_sharing_a_configuration_share_their_larger_runs_with_the_outcomes_of_their_own(toy, monkeypatch):
    # The toy's five representatives share one configuration: one group, one larger run per
    # configuration for all five properties, and each outcome (states included) as its own runs give.
    monkeypatch.chdir(toy)
    results = check_paths(["models/toy"], CheckOptions())
    runs: list[list[str]] = []
    real = growth.SharedRuns.check

    def counted(self, prop, config, options):
        if tuple(sorted(config.constants.items())) not in {tuple(r) for r in runs}:
            runs.append(sorted(config.constants.items()))
        return real(self, prop, config, options)

    monkeypatch.setattr(growth.SharedRuns, "check", counted)
    shared = growth.growth_checks(results, 2_000_000, 60.0, cache_dir=None)
    chosen = [(g.finding, next(r for r in results if r.prop.id == g.prop and r.model.id == g.variant and r.reading_label == g.reading)) for g in shared]
    alone = [growth.recheck(finding, result, 2_000_000, 60.0, cache_dir=None) for finding, result in chosen]
    assert shared == alone and len(shared) == 5
    assert {o.outcome for o in shared} >= {Outcome.VANISHES, Outcome.SURVIVES}
    assert len(runs) == 1  # `cards` one larger: explored once for the five


# A game that can go on forever from its first state (spinning at the start) and otherwise ends
# after `length` steps: 2 x (length + 1) states, a cycle among the first two.
SPIN = textwrap.dedent(
    """\
    game: Spin
    id: spin
    players: [ann]
    constants:
      length: {type: int, range: [1, 60], default: 20, bound: true, doc: "steps to the end"}
    state:
      pos: "int[0..60]"
      flip: "int[0..1]"
    init:
      pos: 0
      flip: 0
    terminal: pos == length
    actions:
      step:
        by: ann
        when: pos < length
        do:
          pos: pos + 1
        rule: s-1
      spin:
        by: ann
        when: pos == 0
        do:
          flip: 1 - flip
        rule: s-2
    clauses:
      s-1: {at: "1", says: "Step forward."}
      s-2: {at: "2", says: "Or spin at the start."}
    """
)


def spin_results(tmp_path, monkeypatch):
    """`game-ends` (fails: the spin) and `past-the-end` (fails: never reached) on the spin game."""
    (tmp_path / "models" / "spin").mkdir(parents=True)
    (tmp_path / "properties").mkdir()
    (tmp_path / "models" / "spin" / "spin.yaml").write_text(SPIN)
    (tmp_path / "properties" / "spin.yaml").write_text(
        "game: spin\nproperties:\n  - id: game-ends\n    kind: terminates\n    says: x\n    expect: fails\n"
        "  - id: past-the-end\n    kind: reachable\n    says: x\n    expr: pos > length\n    expect: fails\n")
    monkeypatch.chdir(tmp_path)
    results = [r for r in check_paths(["models/spin"], CheckOptions()) if r.prop.id in ("game-ends", "past-the-end")]
    assert [(r.prop.id, r.status, r.states) for r in results] == [("game-ends", "fails", 42), ("past-the-end", "fails", 42)]
    return results


def spin_result(tmp_path, monkeypatch):
    return spin_results(tmp_path, monkeypatch)[0]


def test_a_cycle_among_the_expanded_states_decides_terminates_before_the_run_is_complete(tmp_path, monkeypatch):
    from checker.engines import explicit

    result = spin_result(tmp_path, monkeypatch)
    prop = bind(result.prop, result.model)
    # reuse=False: each run explores (the engine's cycle-look threshold is patched between them)
    config = result.config
    stopped = check_config(result.model, config, [prop], CheckOptions(backend="python", budget=Budget(max_states=30), reuse=False))[0]
    assert stopped.status == "undecided"  # an ordinary run still needs the whole graph
    at_budget = check_config(result.model, config, [prop], CheckOptions(backend="python", budget=Budget(max_states=30, stop_when_decided=True), reuse=False))[0]
    assert at_budget.status == "fails" and at_budget.states == 30 and at_budget.trace is not None  # looked for where the budget stopped it
    monkeypatch.setattr(explicit, "CYCLE_LOOK_STATES", 1)
    early = check_config(result.model, config, [prop], CheckOptions(backend="python", budget=Budget(max_states=30, stop_when_decided=True), reuse=False))[0]
    assert early.status == "fails" and early.states < 10 and early.bound.startswith("every property decided")
    assert early.trace is not None and early.trace.loop_start is not None


def test_a_larger_game_over_its_budget_still_shows_the_endless_play(tmp_path, monkeypatch):
    result = spin_result(tmp_path, monkeypatch)
    # length 21: 44 states, over a budget of 30; the spin at the start is found within it
    check = growth.recheck("endless-spin", result, 30, 60.0, cache_dir=None)
    assert check.outcome == Outcome.SURVIVES and not check.singles
    assert check.words().startswith("survives: `game-ends` on spin [default] still fails with length 20\u219221 (30 states explored)")


def test_a_shared_run_leaves_a_terminates_a_cycle_decided_early_to_its_own_run(tmp_path, monkeypatch):
    # Alone, the larger run of `game-ends` stops at the spin within a few states; shared with
    # `past-the-end` (undecided until the budget), it would have explored all 30.
    from checker.engines import explicit

    results = spin_results(tmp_path, monkeypatch)
    monkeypatch.setattr(explicit, "CYCLE_LOOK_STATES", 1)
    shared = growth.SharedRuns(results)
    together = [growth.recheck(r.prop.id, r, 30, 60.0, cache_dir=None, shared=shared) for r in results]
    alone = [growth.recheck(r.prop.id, r, 30, 60.0, cache_dir=None) for r in results]
    assert together == alone and together[0].outcome == Outcome.SURVIVES and together[0].states < 10


def test_a_whole_game_re_check_skips_every_bound_at_once_where_the_single_growths_predict_an_overrun(tmp_path, monkeypatch):
    # `reachable` that fails: every larger run must explore its whole game. Each bound alone:
    # cards 12 states (1.5 times the checked 8), rounds 10 (1.25 times): predicted 15 states.
    result = tally_result(tmp_path, monkeypatch, "over-tally", "tally > rounds", kind="reachable")
    skipped = growth.recheck("over", result, 13, 60.0, cache_dir=None)
    assert skipped.outcome == Outcome.SURVIVES and skipped.states == 0
    assert [(s.grown, s.outcome, s.states) for s in skipped.singles] == [("cards 1\u21922", Outcome.SURVIVES, 12), ("rounds 3\u21924", Outcome.SURVIVES, 10)]
    assert skipped.reason == "not run: the one-at-a-time runs predict about 15 states (the checked 8 times each bound's own growth), over its budget of 13"
    assert "(every bound at once (cards 1\u21922, rounds 3\u21924) was not run: the one-at-a-time runs predict about 15 states" in skipped.words()
    # Within the budget, every bound at once is run and the outcome is the other order's.
    ran = growth.recheck("over", result, 16, 60.0, cache_dir=None)
    monkeypatch.setattr(growth, "_survives_only_whole", lambda _result: False)
    assert ran == growth.recheck("over", result, 16, 60.0, cache_dir=None)
    assert ran.outcome == Outcome.SURVIVES and ran.states == 15 and not ran.singles
    # A growth that shrank the game counts as none; the prediction has two significant figures.
    from checker.evidence.growth_check import SingleGrowth

    grew = [SingleGrowth("a", Outcome.SURVIVES, "exhaustive", 12), SingleGrowth("b", Outcome.SURVIVES, "exhaustive", 2), SingleGrowth("c", Outcome.SURVIVES, "exhaustive", 1234)]
    assert growth._predicted_states(8, tuple(grew)) == round(8 * 1.5 * 1234 / 8, -2) == 1900
