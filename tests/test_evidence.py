"""The verdicts that make a Readings line game-breaking or outcome-changing, decided by an
exploration that stops once they are decided (`checker.analysis.evidence`)."""

from __future__ import annotations

import os

from checker.analysis.evidence import CAN_END, ENDS_SURELY, OUTCOME, STUCK_REACHABLE, decide, differing, says
from checker.analysis.outcomes import analyse
from checker.engines.statespace import explore_space
from checker.lang.build import load_model
from checker.lang.compile import CompiledModel

MODELS = os.path.join(os.path.dirname(__file__), "impact", "models")
LASTCARD = os.path.join(MODELS, "lastcard", "lastcard.yaml")
TRAP = os.path.join(MODELS, "trap", "trap.yaml")


def compiled(path: str, constants: dict | None = None, **readings: str) -> CompiledModel:
    model = load_model(path)
    config = model.default_config().with_readings(readings)
    if constants:
        config = type(config)({**config.constants, **constants}, config.readings)
    return CompiledModel(model, config)


def test_a_reachable_outcome_stops_the_search_where_it_is_found():
    game = compiled(LASTCARD, {"cards": 4}, claim="last")
    whole = explore_space(game).size
    found = decide(game, [OUTCOME + "claimed"], 1000)
    assert found.get(OUTCOME + "claimed") is True and not found.complete and found.states < whole
    # an outcome that is never reached needs the whole space: decided False when it is explored ...
    never = decide(compiled(LASTCARD, {"cards": 4}), [OUTCOME + "claimed"], 1000)
    assert never.get(OUTCOME + "claimed") is False and never.complete and never.states == explore_space(compiled(LASTCARD, {"cards": 4})).size
    # ... and undecided, saying why, when the budget stops it first
    short = decide(compiled(LASTCARD, {"cards": 4}), [OUTCOME + "claimed"], 3)
    assert short.get(OUTCOME + "claimed") is None and short.stopped_by == "past its budget of 3 states"


def test_the_ending_verdicts_agree_with_the_whole_analysis():
    for pit in ("climb", "stuck"):
        game = compiled(TRAP, pit=pit)
        exact = analyse(explore_space(game))
        verdicts = decide(game, [STUCK_REACHABLE, CAN_END, ENDS_SURELY], 1000)
        assert verdicts.values == {STUCK_REACHABLE: exact.stuck_states > 0, CAN_END: exact.can_end, ENDS_SURELY: pit == "climb"}
    climb, stuck = (analyse(explore_space(compiled(TRAP, pit=p))) for p in ("climb", "stuck"))
    assert differing(climb, stuck) == [CAN_END, ENDS_SURELY]
    assert says(CAN_END, False) == "the game cannot always still end" and says(OUTCOME + "claimed", True) == "claimed is reachable"


def test_at_least_keeps_exploring_to_tell_a_smaller_game():
    """A verdict decided early says nothing of the game's size; `at_least` explores on until that
    many states are found (the re-check's guard against a larger game that is smaller)."""
    game = compiled(LASTCARD, {"cards": 4}, claim="last")
    whole = explore_space(game).size
    sized = decide(game, [OUTCOME + "claimed"], 1000, at_least=whole + 1)
    assert sized.get(OUTCOME + "claimed") is True and sized.complete and sized.states == whole
    assert decide(game, [], whole - 1, at_least=whole - 1).states == whole - 1
