"""The Show'n'Go models: clause coverage, and a few rule-level facts checked on the compiled model.

The full property suite runs in the bundled-evidence test; these are quick checks that the
model keeps its promises to the clause index and that single steps follow the text.
"""

from __future__ import annotations

import os

import yaml

from checker.lang.build import load_model
from checker.lang.compile import CompiledModel
from checker.lint import coverage

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FOLDER = os.path.join(ROOT, "models", "showngo")
SUITE = os.path.join(ROOT, "properties", "showngo.yaml")


def _citations() -> set[str]:
    with open(SUITE, encoding="utf-8") as fh:
        props = yaml.safe_load(fh)["properties"]
    return {c for p in props for c in p.get("clauses", [])}


def test_every_clause_is_formalised_or_out_of_scope():
    cited = _citations()
    for name in ("base.yaml", "junior.yaml"):
        model = load_model(os.path.join(FOLDER, name))
        cov = coverage(model, cited)
        assert not cov.unhandled, f"{name}: clauses not handled: {cov.unhandled}"
        assert cov.accounted_percent >= 95.0


def test_first_moves_follow_the_setup():
    """The coin toss gives two initial deals; after the deal the receiving team acts at 5 m."""
    model = load_model(os.path.join(FOLDER, "base.yaml"))
    compiled = CompiledModel(model, model.default_config())
    layout = compiled.layout
    frontier = list(compiled.initial)
    seen = set(frontier)
    acting = []
    while frontier and not acting:
        nxt = []
        for s in frontier:
            for _, t in compiled.successors(s):
                if t in seen:
                    continue
                seen.add(t)
                state = layout.unpack(t)
                if state["stage"] == "acting":
                    acting.append(state)
                nxt.append(t)
        frontier = nxt
    assert acting
    for state in acting:
        assert state["fp"] == 5
        assert state["turn"] == state["attacker"] == state["receiver1"]
        assert all(sum(v for (p, _), v in state["hand"].items() if p == team) == 2 for team in ("home", "away"))


def test_junior_drops_the_interrupt_readings():
    """Readings about Penalties and interrupts have nothing to act on without those cards."""
    base = load_model(os.path.join(FOLDER, "base.yaml"))
    junior = load_model(os.path.join(FOLDER, "junior.yaml"))
    dropped = {"penalty_set", "pk_empty", "uncovered", "penalty_on_interrupt", "penalty_to"}
    assert dropped <= set(base.readings)
    assert not dropped & set(junior.readings)
    assert set(junior.readings) == set(base.readings) - dropped


def test_silences_are_readings_not_constants():
    """The Penalty-on-interrupt question lives in a reading, not in the `applicable` table."""
    model = load_model(os.path.join(FOLDER, "base.yaml"))
    table = model.default_config().constants["applicable"]
    interrupts = ("penalty", "handling_error", "mistackle", "special")
    flat = {}
    for key, value in (table.items() if isinstance(table, dict) else []):
        if isinstance(value, dict):
            for inner, v in value.items():
                flat[(key, inner)] = v
        else:
            flat[tuple(key) if not isinstance(key, str) else key] = value
    assert flat, "applicable table not readable"
    assert not any(flat.get(("penalty", t)) for t in interrupts)
    for name in ("conversion_taken", "penalty_on_interrupt", "et_deal", "conversion_half_end"):
        reading = model.readings[name]
        assert reading.clauses and len(reading.options) >= 2


def _compiled(readings: dict[str, str] | None = None, name: str = "base.yaml") -> CompiledModel:
    model = load_model(os.path.join(FOLDER, name))
    return CompiledModel(model, model.default_config().with_readings(readings or {}))


def _mid_game(compiled: CompiledModel, **changes) -> int:
    """A packed state of the first half: the setup's state with the given slots changed
    (`hand`/`deck` entries as {(team, card): n} / {card: n}, merged into the empty ones)."""
    state = compiled.layout.unpack(compiled.initial[0])
    state.update(stage="acting", half=1, receiver1="home", attacker="home", turn="home", fresh=False)
    state["deck"] = {k: 0 for k in state["deck"]}
    state["hand"] = {key: 0 for key in state["hand"]}
    state["deck"].update({(k,): n for k, n in changes.pop("deck", {}).items()})
    state["hand"].update(changes.pop("hand", {}))
    state.update(changes)
    return compiled.layout.pack(state)


def _play(compiled: CompiledModel, state: int, steps: list[tuple[str, dict]]) -> dict:
    """Follow an exact sequence of actions (name, parameters); each must be enabled."""
    for name, params in steps:
        moves = [t for i, t in compiled.successors(state)
                 if compiled.instances[i].action.name == name and dict(compiled.instances[i].params) == params]
        assert moves, f"{name} {params} is not enabled in {compiled.layout.unpack(state)}"
        state = moves[0]
    return compiled.layout.unpack(state)


KICK_FROM_75 = [("play_card", {"k": "kick", "c": "kick"}), ("let_go", {}), ("resolve_kick", {}),
                ("kick_in_play", {"k": "passing"})]


def test_long_kick_through_the_try_zone_is_a_handover_by_default():
    """Finding kick-through-try-zone: from 75 m a successful 40 m Kick ends past the Dead Ball
    Line; by default (SNG-19.6) the away team attacks from its 20 m line."""
    compiled = _compiled()
    start = _mid_game(compiled, fp=75, hand={("home", "kick"): 1, ("away", "tackle"): 1},
                      deck={"passing": 1, "tackle": 1})
    after = _play(compiled, start, KICK_FROM_75)
    assert (after["attacker"], after["fp"], after["score"][("home",)]) == ("away", 20, 0)


def test_long_kick_scores_a_try_when_entering_the_try_zone_counts():
    """The same Kick under kick_through=try: the ball entered the Try Zone, so it is a Try."""
    compiled = _compiled({"kick_through": "try"})
    start = _mid_game(compiled, fp=75, hand={("home", "kick"): 1, ("away", "tackle"): 1},
                      deck={"passing": 1, "tackle": 1})
    after = _play(compiled, start, [*KICK_FROM_75, ("try_scored", {})])
    assert (after["attacker"], after["score"][("home",)]) == ("home", 4)


PASS_INTO_THE_TRY_ZONE = [("play_card", {"k": "passing", "c": "passing"}), ("let_go", {}), ("resolve_run", {})]


def _at_the_try_line(compiled: CompiledModel, home: dict[str, int]) -> int:
    """The home team at 40 m with the Draw Deck empty; the away team holds Held Up In Goal."""
    hand = {("home", k): n for k, n in home.items()} | {("away", "held_up"): 1}
    return _mid_game(compiled, fp=40, hand=hand, deck={})


def test_a_held_up_try_ends_the_half_only_if_it_is_a_tackle():
    """Reading held_up_half_end: with the Draw Deck empty, a held-up try ends the half when being
    held up is being tackled (SNG-26.2), and play goes on by default."""
    steps = [*PASS_INTO_THE_TRY_ZONE, ("hold_up", {})]
    tackled = _compiled({"held_up_when": "at_try", "held_up_half_end": "tackled"})
    after = _play(tackled, _at_the_try_line(tackled, {"passing": 1, "kick": 1}), [*steps, ("end_of_half", {})])
    assert after["stage"] == "halftime"
    play_on = _compiled({"held_up_when": "at_try"})
    after = _play(play_on, _at_the_try_line(play_on, {"passing": 1, "kick": 1}), [*steps, ("drawn_up", {})])
    assert (after["stage"], after["attacker"], after["fp"]) == ("acting", "home", 50)


def test_a_hold_up_at_the_try_line_can_be_interrupted_only_under_at_try_open():
    """Reading held_up_when=at_try_open: the attacking team cancels the Held Up In Goal card with
    a Mistackle and the try check goes on (the try is scored); at_try gives it no window."""
    open_ = _compiled({"held_up_when": "at_try_open"})
    start = _at_the_try_line(open_, {"passing": 1, "penalty": 1})
    after = _play(open_, start, [*PASS_INTO_THE_TRY_ZONE, ("hold_up_shown", {}), ("interrupt", {"k": "penalty", "c": "mistackle"}),
                                 ("let_go", {}), ("cancel_play", {}), ("concede_try", {})])
    assert after["score"][("home",)] == 4
    after = _play(open_, start, [*PASS_INTO_THE_TRY_ZONE, ("hold_up_shown", {}), ("let_go", {}), ("hold_up_stands", {})])
    assert (after["score"][("home",)], after["attacker"], after["fp"]) == (0, "home", 50)
    closed = _compiled({"held_up_when": "at_try"})
    at_line = _play(closed, _at_the_try_line(closed, {"passing": 1, "penalty": 1}), PASS_INTO_THE_TRY_ZONE)
    names = {closed.instances[i].action.name for i, _ in closed.successors(closed.layout.pack(at_line))}
    assert names == {"hold_up", "concede_try"}


PENALTY_ON_A_PASS = [("play_card", {"k": "passing", "c": "passing"}),
                     ("interrupt", {"k": "penalty", "c": "penalty"}), ("let_go", {}), ("penalty_awarded", {})]


def test_penalty_goes_to_the_team_that_plays_it_by_default():
    """Finding who-receives-a-penalty: the away team cancels the home team's Pass at 40 m with a
    Penalty; by default it receives it: Handover first (SNG-25.2), dial flipped to 60 m."""
    compiled = _compiled()
    start = _mid_game(compiled, fp=40, hand={("home", "passing"): 1, ("away", "penalty"): 1},
                      deck={"kick": 1, "tackle": 1})
    after = _play(compiled, start, PENALTY_ON_A_PASS)
    assert (after["stage"], after["attacker"], after["turn"], after["fp"]) == ("optplay", "away", "away", 60)


def test_penalty_conceded_by_the_team_that_plays_it():
    """Under penalty_to=card_target the card is the away team's own infringement: the home
    team keeps the ball at 40 m and takes the Optional Play."""
    compiled = _compiled({"penalty_to": "card_target"})
    start = _mid_game(compiled, fp=40, hand={("home", "passing"): 1, ("away", "penalty"): 1},
                      deck={"kick": 1, "tackle": 1})
    after = _play(compiled, start, PENALTY_ON_A_PASS)
    assert (after["stage"], after["attacker"], after["turn"], after["fp"]) == ("optplay", "home", "home", 40)


def test_every_cold_reading_question_is_answered_once():
    """Each question of questions.yaml is answered by exactly one reading, assumption, property
    or out_of_scope reason in the senior game."""
    with open(os.path.join(FOLDER, "questions.yaml"), encoding="utf-8") as fh:
        questions = yaml.safe_load(fh)["questions"]
    with open(SUITE, encoding="utf-8") as fh:
        props = yaml.safe_load(fh)["properties"]
    model = load_model(os.path.join(FOLDER, "base.yaml"))
    answers = [q for r in model.readings.values() for q in (r.answers or [])]
    answers += [q for a in model.assumptions for q in (a.answers or [])]
    answers += [q for p in props for q in p.get("answers", [])]
    answers += [q["id"] for q in questions if q.get("out_of_scope")]
    ids = [q["id"] for q in questions]
    assert sorted(answers) == sorted(ids)
    assert sum(q["raised_by"] == "cold-reading" for q in questions) == 43
