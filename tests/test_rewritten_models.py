"""The bundled models rewritten with effect blocks, fragments, sparse tables and `match` are the
same transition systems as before: for every model and every reading combination `rulecheck
check` runs by default, the same number of reachable states and transitions, and the same verdict
for every property.

The figures in tests/data/rewritten_models.json were recorded from `rulecheck check --format json
--jobs 1` on the models as they were before the rewrite; Show'n'Go's and the title belt's were
recorded again (Show'n'Go under every combination, the title belt under its default readings) after their audits changed the rules modelled on
purpose (new readings, the Roshambo rethrow, the winner's role; for the title belt's
two-player-officials deck, a Referee or CEO played out of turn going to the discard pile after its
own draw, cold reading R47; the title belt's default verdicts again for the property
belt-revealed-before-final, with the same states and transitions; the probe deck
two-player-probe recorded when it was added). The default run compares every model
under its default readings; `RULECHECK_REWRITE_FULL=1` compares every reading combination that
`rulecheck check` runs by default (minutes of CPU: run it after changing a bundled model).
"""

from __future__ import annotations

import json
import os

import pytest

from checker.pipeline.runner import CheckOptions, check_model, load_games

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DATA = json.load(open(os.path.join(ROOT, "tests", "data", "rewritten_models.json")))
RECORDED = DATA["figures"]  # game -> model -> reading label -> states, transitions, verdicts
RECORDED_MODE = DATA["readings"]  # game -> the --readings of the recorded run (deviations or default)
FULL = os.environ.get("RULECHECK_REWRITE_FULL") == "1"


def _figures(game: str, readings: str) -> dict[str, dict[str, dict]]:
    """Per model and reading label: states, transitions and every property's verdict."""
    (models,) = load_games([os.path.join(ROOT, "models", game)])
    out: dict[str, dict[str, dict]] = {}
    for model in models.models:
        if model.abstract:
            continue
        for result in check_model(model, models.suite, CheckOptions(readings=readings, backend="python")):
            cfg = out.setdefault(model.id, {}).setdefault(result.reading_label, {"states": None, "transitions": None, "verdicts": {}})
            if result.engine == "explicit":
                cfg["states"], cfg["transitions"] = result.states, result.transitions
            verdict = result.status if result.status != "holds" or result.proof else "holds (bounded)"
            cfg["verdicts"][result.prop.id] = verdict
    return out


@pytest.mark.parametrize("game", sorted(RECORDED))
@pytest.mark.slow
def test_default_readings_keep_their_states_transitions_and_verdicts(game):
    figures = _figures(game, "default")
    assert figures == {variant: {"default": configs["default"]} for variant, configs in RECORDED[game].items()}


@pytest.mark.skipif(not FULL, reason="every reading combination takes minutes of CPU: RULECHECK_REWRITE_FULL=1")
@pytest.mark.parametrize("game", sorted(RECORDED))
def test_every_combination_keeps_its_states_transitions_and_verdicts(game):
    if RECORDED_MODE[game] != "deviations":
        pytest.skip(f"only the default readings of {game} were recorded")
    assert _figures(game, "deviations") == RECORDED[game]


def test_the_recorded_figures_are_not_trivial():
    """The comparison means something only if the models are large and their verdicts mixed."""
    states = [cfg["states"] for game in RECORDED.values() for model in game.values() for cfg in model.values()]
    verdicts = {v for game in RECORDED.values() for model in game.values() for cfg in model.values() for v in cfg["verdicts"].values()}
    assert set(RECORDED) >= {"showngo", "supershow", "titlebelt"}
    assert max(states) > 50_000 and len(states) > 100
    assert {"holds", "fails"} <= verdicts
