"""`checker.analysis.warm`: the Readings re-check's loops compiled before the re-check needs them."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

pytest.importorskip("numba")

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

SCRIPT = """
import os
from checker.analysis.warm import warm_loops
from checker.engines.native import engine
from checker.lang.build import load_model
model = load_model(os.path.join("models", "titlebelt", "two-player.yaml"))
warm_loops(model, model.default_config())
module = engine.load_module(engine.vm_source())
for name in ("seed_ends", "expand_ends", "walk_witness", "play_games"):
    print(name, len(getattr(module, name).signatures))
"""


@pytest.mark.slow
def test_the_readings_loops_are_compiled_by_the_warm_up(tmp_path):
    """In a process with an empty cache, the warm-up leaves the verdict runs' loop, the seeded
    witness walk and the simulation compiled, each once (the re-check's own calls then find
    them): one state of each, nothing else."""
    env = {**os.environ, "RULECHECK_CACHE": str(tmp_path), "NUMBA_CACHE_DIR": str(tmp_path / "numba")}
    out = subprocess.run([sys.executable, "-c", SCRIPT], cwd=HERE, env=env, capture_output=True, text=True, timeout=900)
    assert out.returncode == 0, out.stderr
    assert dict(line.split() for line in out.stdout.splitlines()) == {name: "1" for name in ("seed_ends", "expand_ends", "walk_witness", "play_games")}
