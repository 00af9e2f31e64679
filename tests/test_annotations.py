"""Annotations that make findings readable and honest: assumptions, review questions and their
answers, citations by branch, and traces shown in players' terms.

Most tests use a small card game written here; the last ones check the bundled models and the
saved evidence under counterexamples/ (they need the evidence regenerated with this code).
"""

from __future__ import annotations

import glob
import json
import os
import re
import subprocess
import sys

import pytest

from checker.commands.trace_io import load_trace
from checker.errors import RulecheckError
from checker.evidence.trace import NarrationMismatch, config_from_json, display_info, make_step, narrative, replay_path, states_from_json
from checker.lang.build import load_model
from checker.lang.interp import Interpreter
from checker.lang.loader import model_files
from checker.lang.properties import load_suite
from checker.lint.checks import coverage, question_coverage
from checker.lint.citations import game_citation_problems
from checker.lint.explained import unexplained
from checker.report.evidence_files import SHARED_FILE
from tests.conftest import write

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# A pile of cards: a player plays a card, which goes to the discard pile unless it is a joker
# (which stays on the table). The bonus clause applies only when the player holds two cards.
CARDS = """\
game: Cards
id: cards
players: [{id: p1, name: "Player 1"}, {id: p2, name: "Player 2"}]
domains:
  kind: [plain, joker]
names:
  kind: {plain: "plain card", joker: Joker}
assumptions:
  - id: jokers-stay
    clauses: [c-3]
    says: "A joker stays on the table."
    why: "The text says nothing of jokers."
    answers: [q-joker]
state:
  turn: {type: player, label: "player on turn"}
  hand: {type: "int[0..2]", of: [player, kind], label: "hand"}
  discard: {type: "int[0..4]", of: kind, label: "the discard pile"}
  table: {type: "int[0..4]", of: kind, label: "the table"}
  step: {type: "int[0..9]", internal: true}
  over: bool
init:
  turn: p1
  hand: {p1: {plain: 2, joker: 0}, p2: {plain: 1, joker: 1}}
  discard: 0
  table: 0
  step: 0
  over: false
terminal: over
actions:
  play:
    by: turn
    for: {k: kind}
    when: hand[turn][k] > 0 and step < 9
    do:
      hand[turn][k]: hand[turn][k] - 1
      discard[k]: discard[k] + (1 if k == plain else 0)
      table[k]: table[k] + (1 if k == joker else 0)
      turn: succ(turn)
      step: step + 1
    rule: [c-1]
    cite:
      - {when: "k == joker", rule: [c-3]}
      - {when: "sum(hand[turn][j] for j in kind) == 2", rule: [c-2]}
    text:
      - {when: "k == plain", say: "{by} plays a {k} to {@discard}"}
      - {say: "{by} plays a {k}; it stays on {@table}"}
  finish:
    by: rules
    when: all(hand[p][k] == 0 for p in player for k in kind)
    do: {over: true}
    rule: [c-4]
    text: "the hands are empty: {turn} was next"
clauses:
  c-1: {at: "Play, 1", says: "On your turn play a card onto the discard pile."}
  c-2: {at: "Play, 2", says: "Holding two cards, you may play one as a bonus."}
  c-3: {at: "Jokers", says: "Jokers are special.", status: assumed}
  c-4: {at: "End", says: "The game ends when the hands are empty."}
"""

QUESTIONS = """\
questions:
  - id: q-joker
    clauses: [c-3]
    kind: gap
    raised_by: cold-reading
    question: "Where does a played joker go?"
  - id: q-bonus
    clauses: [c-2]
    kind: ambiguity
    raised_by: faq
    question: "Is the bonus card played in the same turn?"
  - id: q-box
    clauses: [c-1]
    kind: undefined-term
    raised_by: designer
    question: "What is the discard pile made of?"
    out_of_scope: "components, not rules"
"""


@pytest.fixture
def cards(tmp_path):
    path = write(tmp_path, CARDS, "cards.yaml", "cards")
    (tmp_path / "models" / "cards" / "questions.yaml").write_text(QUESTIONS)
    return path


def located(tmp_path, text: str, needle: str, questions: str | None = None) -> RulecheckError:
    path = write(tmp_path, text, "cards.yaml", "cards")
    if questions is not None:
        (tmp_path / "models" / "cards" / "questions.yaml").write_text(questions)
    with pytest.raises(RulecheckError) as info:
        load_model(path)
    error = info.value
    line = next(n for n, row in enumerate(text.splitlines(), start=1) if needle in row)
    assert error.loc is not None and error.loc.line == line, error.render()
    return error


def trace_doc(model, moves: list[tuple[str, dict]]) -> dict:
    """A saved-trace document for the given moves from the initial state."""
    from checker.evidence.trace import Trace, to_json

    interp = Interpreter(model, model.default_config())
    state = interp.initial_states()[0]
    steps = []
    for action, params in moves:
        move = next(m for m in interp.transitions(state) if m.action == action and dict(m.params) == params)
        steps.append(make_step(interp, move, state))
        state = move.post
    trace = Trace(model.game, model.id, "p", "invariant", "", model.default_config(), "default", interp.initial_states()[0], steps, "path", display=display_info(model))
    return to_json(trace)


# -- 1. assumptions ------------------------------------------------------------------------------
def test_assumptions_are_loaded_and_count_as_assumed_clauses(cards, tmp_path):
    model = load_model(cards)
    [assumption] = model.assumptions
    assert (assumption.id, assumption.clauses, assumption.answers) == ("jokers-stay", ("c-3",), ("q-joker",))
    assert assumption.says == "A joker stays on the table."
    assert model.clauses["c-3"].status == "assumed"
    # c-3 is cited by a branch of `play`, so it is formalised; drop that branch and it is assumed
    text = CARDS.replace('      - {when: "k == joker", rule: [c-3]}\n', "")
    cov = coverage(load_model(write(tmp_path, text, "cards.yaml", "cards")))
    assert cov.assumed == ("c-3",) and "c-3" not in cov.unhandled


def test_assumptions_merge_across_extends_by_id(cards, tmp_path):
    variant = """\
extends: cards.yaml
id: variant
assumptions:
  - {id: jokers-stay, clauses: [c-3], says: "A joker is discarded too.", why: "house rule"}
  - {id: two-players, clauses: [c-1], says: "Two players.", why: "smallest game"}
"""
    model = load_model(write(tmp_path, variant, "variant.yaml", "cards"))
    assert [(a.id, a.says) for a in model.assumptions] == [("jokers-stay", "A joker is discarded too."), ("two-players", "Two players.")]


def test_assumption_citing_an_unknown_clause_is_a_located_error(tmp_path):
    text = CARDS.replace("    clauses: [c-3]\n    says: \"A joker", "    clauses: [c-9]\n    says: \"A joker")
    error = located(tmp_path, text, "clauses: [c-9]")
    assert "unknown clause `c-9`" in error.message


def test_unknown_clause_status_is_rejected(tmp_path):
    text = CARDS.replace("status: assumed", "status: guessed")
    assert "unknown status `guessed`" in located(tmp_path, text, "status: guessed").message


# -- 2. the unexplained-test heuristic -----------------------------------------------------------
def test_lint_flags_a_test_no_cited_text_mentions(cards, tmp_path):
    model = load_model(cards)
    flagged = {(u.action, u.name) for u in unexplained(model)}
    # `play` tests hand (the clauses speak of holding cards? no: "play a card", "Holding two
    # cards") and the internal `step`, which is never reported; `finish` tests hand ("hands").
    assert ("play", "step") not in flagged
    assert ("finish", "hand") not in flagged
    text = CARDS.replace("step < 9", "step < 9 and not over")
    flagged = {(u.action, u.name) for u in unexplained(load_model(write(tmp_path, text, "cards.yaml", "cards")))}
    assert ("play", "over") in flagged


# -- 3. citations by branch ----------------------------------------------------------------------
def test_a_step_cites_only_the_clauses_of_the_branch_that_fired(cards):
    model = load_model(cards)
    doc = trace_doc(model, [("play", {"k": "plain"}), ("play", {"k": "joker"}), ("play", {"k": "plain"})])
    cited = [[c["id"] for c in step["clauses"]] for step in doc["steps"]]
    # p1 holds two cards and plays a plain one; p2 holds two and plays the joker; p1 holds one
    assert cited == [["c-1", "c-2"], ["c-1", "c-3", "c-2"], ["c-1"]]
    assert doc["steps"][0]["clauses"][0] == {"id": "c-1", "at": "Play, 1", "says": "On your turn play a card onto the discard pile."}


def test_lint_rejects_a_branch_that_can_never_be_cited(tmp_path):
    text = CARDS.replace('{when: "k == joker", rule: [c-3]}', '{when: "k == joker and k == plain", rule: [c-3]}')
    model = load_model(write(tmp_path, text, "cards.yaml", "cards"))
    errors, _ = game_citation_problems([model])
    assert [e.kind for e in errors] == ["never"] and "can never cite c-3" in errors[0].message
    assert errors[0].loc.line == next(n for n, row in enumerate(text.splitlines(), 1) if "k == joker and k == plain" in row)


def test_lint_warns_of_a_branch_that_always_holds_and_rejects_a_clause_cited_both_ways(tmp_path):
    always = CARDS.replace('{when: "k == joker", rule: [c-3]}', '{when: "hand[turn][k] > 0", rule: [c-3]}')
    errors, warnings = game_citation_problems([load_model(write(tmp_path, always, "cards.yaml", "cards"))])
    assert not errors and [w.kind for w in warnings] == ["always"]
    twice = CARDS.replace('{when: "k == joker", rule: [c-3]}', '{when: "k == joker", rule: [c-1]}')
    errors, _ = game_citation_problems([load_model(write(tmp_path, twice, "cards.yaml", "cards"))])
    assert [e.kind for e in errors] == ["twice"]


def test_lint_cli_exits_2_on_a_never_cited_branch(tmp_path):
    text = CARDS.replace('{when: "k == joker", rule: [c-3]}', '{when: "k == joker and k == plain", rule: [c-3]}')
    write(tmp_path, text, "cards.yaml", "cards")
    run = subprocess.run([sys.executable, "-m", "checker.cli", "lint"], capture_output=True, text=True, cwd=str(tmp_path))
    assert run.returncode == 2 and "can never cite c-3" in run.stderr and "Traceback" not in run.stderr


# -- 4. trace display ------------------------------------------------------------------------------
def test_narrative_hides_internal_slots_uses_labels_and_names_and_quotes_once(cards):
    model = load_model(cards)
    doc = trace_doc(model, [("play", {"k": "plain"}), ("play", {"k": "joker"}), ("play", {"k": "plain"}), ("play", {"k": "plain"})])
    text = narrative(json.loads(json.dumps(doc)))
    assert "step:" not in text and "step 0" not in text and "step[" not in text
    assert "Player 1 plays a plain card to the discard pile" in text
    assert "Player 2 plays a Joker; it stays on the table" in text
    assert "the discard pile[plain card] 0→1" in text and "hand[Player 1][plain card] 2→1" in text
    assert text.count("On your turn play a card onto the discard pile.") == 1
    assert "see Play, 1 (c-1)" in text
    assert doc["initial"]["step"] == 0  # kept in the JSON for replay


def test_a_narration_that_lies_about_a_move_is_rejected(tmp_path):
    # the plain case also claims the table changed: a plain card never goes there
    text = CARDS.replace('say: "{by} plays a {k} to {@discard}"', 'say: "{by} plays a {k} to {@discard} and {@table}"')
    model = load_model(write(tmp_path, text, "cards.yaml", "cards"))
    with pytest.raises(NarrationMismatch) as info:
        trace_doc(model, [("play", {"k": "plain"})])
    assert "the table (table) changes, but in this step it does not" in info.value.message
    assert info.value.loc.line == next(n for n, row in enumerate(text.splitlines(), 1) if "{@table}\"" in row and "plain" in row)


def test_a_narration_naming_a_slot_the_action_never_writes_is_a_located_error(tmp_path):
    text = CARDS.replace('"the hands are empty: {turn} was next"', '"the hands are empty; the rest goes to {@discard}"')
    assert "never writes `discard`" in located(tmp_path, text, "the rest goes to").message


@pytest.mark.parametrize("old,new,gist", [
    ('"the hands are empty: {turn} was next"', '"{hand} is empty"', "which is an array"),
    ('"the hands are empty: {turn} was next"', '"{step} steps"', "which is internal"),
    ('"the hands are empty: {turn} was next"', '"{nothing}"', "neither `by`, a parameter nor a slot"),
])
def test_bad_template_fields_are_located_errors(tmp_path, old, new, gist):
    assert gist in located(tmp_path, CARDS.replace(old, new), new.strip('"')).message


def test_display_names_must_name_members(tmp_path):
    text = CARDS.replace('kind: {plain: "plain card", joker: Joker}', 'kind: {plane: "plain card"}')
    assert "`plane` is not a member of kind" in located(tmp_path, text, "plane").message


# -- 5. review questions -------------------------------------------------------------------------
def test_questions_are_loaded_and_counted_as_answered_or_open(cards):
    model = load_model(cards)
    assert [q.id for q in model.questions] == ["q-joker", "q-bonus", "q-box"]
    assert model.questions[2].out_of_scope == "components, not rules"
    cov = question_coverage(model, [])
    assert cov.answered == {"q-joker": ("assumption `jokers-stay`",), "q-box": ("out of scope",)}
    assert cov.open == ("q-bonus",) and round(cov.answered_percent) == 67


def test_properties_and_readings_answer_questions(cards, tmp_path):
    suite_path = tmp_path / "properties" / "cards.yaml"
    suite_path.parent.mkdir(parents=True, exist_ok=True)
    suite_path.write_text("properties:\n  - {id: ends, kind: terminates, answers: [q-bonus]}\n")
    model = load_model(cards)
    cov = question_coverage(model, load_suite(str(suite_path)))
    assert cov.open == () and cov.answered["q-bonus"] == ("property `ends`",)


def test_an_answer_naming_a_missing_question_fails_lint_with_a_location(cards, tmp_path):
    text = CARDS.replace("    answers: [q-joker]", "    answers: [q-jokr]")
    write(tmp_path, text, "cards.yaml", "cards")
    run = subprocess.run([sys.executable, "-m", "checker.cli", "lint"], capture_output=True, text=True, cwd=str(tmp_path))
    assert run.returncode == 2, run.stdout + run.stderr
    line = next(n for n, row in enumerate(text.splitlines(), 1) if "- id: jokers-stay" in row)
    assert f"cards.yaml:{line}:" in run.stderr and "answers `q-jokr`" in run.stderr and "did you mean `q-joker`" in run.stderr


def test_lint_reports_question_coverage(cards, tmp_path):
    run = subprocess.run([sys.executable, "-m", "checker.cli", "lint"], capture_output=True, text=True, cwd=str(tmp_path))
    assert run.returncode == 0, run.stderr
    assert "open questions: q-bonus" in run.stdout and "67%" in run.stdout


@pytest.mark.parametrize("old,new,gist", [
    ("kind: gap", "kind: puzzle", "unknown kind `puzzle`"),
    ("raised_by: faq", "raised_by: nobody", "unknown raised_by `nobody`"),
    ("clauses: [c-2]", "clauses: [c-7]", "unknown clause `c-7`"),
    ("    question: \"Is the bonus", "    wording: \"Is the bonus", "unknown key `wording`"),
])
def test_bad_questions_are_located_errors(tmp_path, old, new, gist):
    questions = QUESTIONS.replace(old, new)
    path = write(tmp_path, CARDS, "cards.yaml", "cards")
    (tmp_path / "models" / "cards" / "questions.yaml").write_text(questions)
    with pytest.raises(RulecheckError) as info:
        load_model(path)
    assert gist in info.value.message and info.value.loc.file.endswith("questions.yaml")
    assert info.value.loc.line == next(n for n, row in enumerate(questions.splitlines(), 1) if new.strip() in row)


# -- bundled models and evidence -----------------------------------------------------------------
def bundled_models() -> dict[tuple[str, str], object]:
    models = {}
    for path in model_files([os.path.join(ROOT, "models")]):
        model = load_model(path)
        models[(model.folder, model.id)] = model
    return models


def saved_traces() -> list[str]:
    return sorted(p for p in glob.glob(os.path.join(ROOT, "counterexamples", "*", "*.json")) if not p.endswith((".itf.json", SHARED_FILE)))


@pytest.mark.slow
def test_bundled_models_cite_each_branch_somewhere():
    by_game: dict[str, list] = {}
    for (folder, _), model in bundled_models().items():
        by_game.setdefault(folder, []).append(model)
    for models in by_game.values():
        errors, _ = game_citation_problems(models)
        assert not errors, errors[0].message


@pytest.mark.slow
def test_saved_traces_cite_only_clauses_whose_branch_fired():
    """Replays every saved trace; each step must cite exactly the clauses of the branch that fired."""
    models = bundled_models()
    traces = saved_traces()
    assert traces, "no saved traces under counterexamples/"
    for path in traces:
        doc = load_trace(path)
        model = models[(os.path.basename(os.path.dirname(path)), doc["model"])]
        config = config_from_json(model, doc)
        states = states_from_json(model, doc)
        steps = replay_path(model, config, states, [s["action"] for s in doc["steps"]])
        for number, (saved, replayed) in enumerate(zip(doc["steps"], steps), start=1):
            assert [c["id"] for c in saved["clauses"]] == [cid for cid, _ in replayed.clauses], f"{path}: step {number} cites clauses whose condition did not hold"
            assert [(c["id"], c["says"]) for c in saved["clauses"]] == list(replayed.clauses), f"{path}: step {number}'s quotes are not the clauses' texts"


@pytest.mark.slow
def test_no_internal_slot_appears_in_any_saved_narrative():
    models = bundled_models()
    for path in saved_traces():
        doc = load_trace(path)
        model = models[(os.path.basename(os.path.dirname(path)), doc["model"])]
        assert doc.get("display"), f"{path} has no display section (regenerate the evidence)"
        text = narrative(doc)
        for slot in (s for s in model.slots.values() if s.internal):
            pattern = rf"(?<![\w-]){re.escape(slot.name)}(\[[^\]]*\])*(: | \S+→)"
            assert not re.search(pattern, text), f"{path}: internal slot `{slot.name}` shown"
