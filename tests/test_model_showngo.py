"""The Show'n'Go models: clause coverage, and a few rule-level facts checked on the compiled model.

The full property suite runs in the bundled-evidence test; these are quick checks that the
model keeps its promises to the clause index and that single steps follow the text.
"""

from __future__ import annotations

import os

import yaml

from checker.lang.build import load_model
from checker.lang.compile import CompiledModel
from checker.lint.checks import coverage

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
    dropped = {"penalty_set", "pk_empty", "uncovered", "penalty_on_interrupt", "penalty_to", "penalty_near_line",
               "try_cancel", "interrupt_cards", "restriction_refund"}
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


KICK_FROM_75 = [("play_card", {"k": "kick", "c": "kick"}), ("let_go", {}), ("resolve_kick", {"k": "kick"}),
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


PASS_INTO_THE_TRY_ZONE = [("play_card", {"k": "passing", "c": "passing"}), ("let_go", {}), ("resolve_run", {"k": "passing"})]


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
                                 ("let_go", {}), ("cancel_play", {"j": "mistackle"}), ("concede_try", {})])
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
    # 43 from the first cold reading, 17 more from the second (CR-SNG items no question raised)
    assert sum(q["raised_by"] == "cold-reading" for q in questions) == 60


def _moves(compiled: CompiledModel, state: dict) -> set[str]:
    return {compiled.instances[i].action.name for i, _ in compiled.successors(compiled.layout.pack(state))}


def test_mark_up_then_play_only_under_markup_with_play():
    """Reading markup_with_play: by default Marking Up ends the turn; under also_play the team is
    on turn again and may play a card or end its turn."""
    steps = [("mark_up", {"k": "kick", "j": "tackle"}), ("draw_two", {"k": "passing", "j": "held_up"}), ("mark_up_done", {})]
    hand = {("home", "kick"): 1, ("home", "tackle"): 1, ("away", "special"): 1}
    instead = _compiled()
    after = _play(instead, _mid_game(instead, fp=40, hand=hand, deck={"passing": 1, "held_up": 1}), steps)
    assert (after["turn"], after["stage"]) == ("away", "drawing")
    also = _compiled({"markup_with_play": "also_play"})
    after = _play(also, _mid_game(also, fp=40, hand=hand, deck={"passing": 1, "held_up": 1}), steps)
    assert (after["turn"], after["stage"], after["marked"]) == ("home", "acting", True)
    assert {"play_card", "end_turn"} <= _moves(also, after) and "mark_up" not in _moves(also, after)


def test_a_try_bound_pass_cannot_be_cancelled_under_try_stands():
    """Reading try_cancel: from 40 m a Pass reaches the Try Zone; the away team may cancel it with
    its Special Play by default, not when the Try is scored as the metres are applied."""
    for readings, can_interrupt in (({}, True), ({"try_cancel": "try_stands"}, False)):
        compiled = _compiled(readings)
        start = _mid_game(compiled, fp=40, hand={("home", "passing"): 1, ("away", "special"): 1}, deck={"kick": 1})
        window = _play(compiled, start, [("play_card", {"k": "passing", "c": "passing"})])
        assert ("interrupt" in _moves(compiled, window)) == can_interrupt


def test_a_tackle_onto_the_goal_line_under_in_goal_tackle():
    """Reading in_goal_tackle: a 10 m tackle at 10 m leaves the ball on 0 m: a Goal Line Drop Out
    by default, an ordinary tackle when the goal line is in the field of play."""
    tackle = [("play_card", {"k": "tackle", "c": "tackle"}), ("let_go", {}), ("resolve_tackle", {"k": "tackle"})]
    for readings, step in (({}, "goal_line_drop_out"), ({"in_goal_tackle": "zero_in_play"}, "tackle_made"),
                           ({"in_goal_tackle": "already_there"}, "tackle_made")):
        compiled = _compiled(readings)
        start = _mid_game(compiled, fp=10, turn="away", hand={("away", "tackle"): 1, ("home", "kick"): 1}, deck={"kick": 1})
        tackled = _play(compiled, start, tackle)
        assert _moves(compiled, tackled) == {step}, readings


def test_a_penalty_beyond_90_metres_under_penalty_near_line():
    """Reading penalty_near_line: the away team receives a Penalty against the home team's Pass at
    its 5 m kick-off spot, so it attacks from 95 m: it stays there by default, is put back on 90 m,
    or (kick_only) must take the Penalty Kick."""
    for readings, options in (({}, {"penalty_kick", "penalty_advance"}), ({"penalty_near_line": "back_to_90"}, {"penalty_kick", "penalty_advance"}),
                              ({"penalty_near_line": "kick_only"}, {"penalty_kick"})):
        compiled = _compiled(readings)
        start = _mid_game(compiled, fp=5, hand={("home", "passing"): 1, ("away", "penalty"): 1}, deck={"kick": 1, "tackle": 1})
        at_optplay = _play(compiled, start, PENALTY_ON_A_PASS)
        assert (at_optplay["attacker"], at_optplay["fp"]) == ("away", 95)
        assert _moves(compiled, at_optplay) == options, readings
        if "penalty_advance" in options:
            after = _play(compiled, compiled.layout.pack(at_optplay), [("penalty_advance", {"d": 0})])
            assert after["fp"] == (90 if readings else 95)


def test_a_failed_kick_into_the_try_zone_under_kick_try():
    """Reading kick_try: a failed Kick from 85 m travels 20 m into the Try Zone: a Try by default,
    a Handover on the 20 Metre Line when only a successful Kick scores."""
    steps = [("play_card", {"k": "kick", "c": "kick"}), ("let_go", {}), ("resolve_kick", {"k": "kick"}), ("kick_in_play", {"k": "tackle"})]
    for readings, expected in (({}, ("tryline", "home")), ({"kick_try": "success_only"}, ("drawing", "away"))):
        compiled = _compiled(readings)
        start = _mid_game(compiled, fp=85, hand={("home", "kick"): 1, ("away", "special"): 1}, deck={"tackle": 1, "passing": 1})
        after = _play(compiled, start, steps)
        assert (after["stage"], after["attacker"]) == expected, readings


def test_a_refunded_restriction_discard_comes_back_when_the_play_is_cancelled():
    """Reading restriction_refund: the home team discards a Tackle to show the Kick as a Field Goal
    at 50 m; the away team cancels it with its Special Play. The Tackle stays discarded by default
    and comes back under refunded."""
    steps = [("play_card", {"k": "kick", "c": "field_goal"}), ("pay_restriction", {"j": "tackle"}),
             ("interrupt", {"k": "special", "c": "special"}), ("let_go", {}), ("cancel_play", {"j": "special"})]
    for readings, back in (({}, 0), ({"restriction_refund": "refunded"}, 1)):
        compiled = _compiled(readings)
        start = _mid_game(compiled, fp=50, hand={("home", "kick"): 1, ("home", "tackle"): 1, ("away", "special"): 1},
                          deck={"passing": 1})
        after = _play(compiled, start, steps)
        assert after["hand"][("home", "tackle")] == back, readings
