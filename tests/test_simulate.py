"""Random play: reproducible with a seed, and honest about games that do not finish."""

from __future__ import annotations

import os
import subprocess
import sys

from checker.engines.explicit import Budget, explore
from checker.engines.simulate import actor_of, simulate
from checker.lang.build import load_model
from checker.lang.compile import CompiledModel
from tests.conftest import DUEL, write
from tests.test_property_kinds import LOOPS, STUCK


def compiled(path: str, **readings: str) -> CompiledModel:
    model = load_model(path)
    return CompiledModel(model, model.default_config().with_readings(readings))


def test_the_same_seed_plays_the_same_games():
    first = simulate(compiled(DUEL), 200, 7, 100)
    second = simulate(compiled(DUEL), 200, 7, 100)
    assert first.lengths == second.lengths and first.outcomes == second.outcomes
    assert sum(first.outcomes.values()) == 200 and first.finished == 200
    assert set(first.outcomes) == {"alice", "bob"}
    assert first.fired["draw"] == 200 and first.fired["finish"] == 200


def test_tie_rule_fires_only_under_its_reading():
    assert simulate(compiled(DUEL), 200, 1, 100).fired["tie_break"] == 0
    assert simulate(compiled(DUEL, tie="defender"), 200, 1, 100).fired["tie_break"] > 0


def test_the_generated_actor_is_the_interpreters_on_every_reachable_state():
    """Random play groups moves by who makes them; the generated actor function that does it
    must name the same player the interpreter does, in every state and for every instance
    (a wrong one would change which moves a seeded play takes)."""
    game = compiled(os.path.join("models", "titlebelt", "three-player.yaml"))
    exp, _ = explore(game, [], Budget(max_states=5_000), need_graph=False)
    players = [inst for inst in game.instances if inst.action.by not in ("chance", "rules")]
    assert len(exp.states) == 5_000 and len(players) > 10
    names = set()
    for state in exp.states:
        unpacked = game.layout.unpack(state)
        for inst in players:
            name = actor_of(game, inst.id)(state)
            assert name == game.interpreter.actor(inst.action, dict(inst.params), unpacked)
            names.add(name)
    assert len(names) == 3  # every player of the three-player game moves somewhere


def test_endless_and_stuck_games_are_reported(tmp_path):
    loops = simulate(compiled(write(tmp_path, LOOPS, "loops.yaml"), loop="forced"), 20, 0, 50)
    assert loops.finished == 0 and loops.outcomes["unfinished after 50 steps"] == 20
    stuck = simulate(compiled(write(tmp_path, STUCK, "stuck.yaml")), 20, 0, 50)
    assert stuck.stuck == 20


def test_simulate_command(tmp_path):
    run = subprocess.run([sys.executable, "-m", "checker.cli", "simulate", DUEL, "--games", "50", "--seed", "3"], capture_output=True, text=True, cwd=os.path.dirname(DUEL))
    assert run.returncode == 0 and "50 games, seed 3" in run.stdout and "tie_break" in run.stdout
