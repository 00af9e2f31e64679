"""The committed evidence is exactly what `rulecheck check` writes for the bundled models.

Runs the main job (every model under models/) into a scratch folder and compares it, file by
file, with counterexamples/ and docs/errata/: stale or hand-edited evidence fails CI. It also
asserts that every bundled result matches its `expect`, as the main job's exit status does, and
that the terminal summary of the whole run fits on one screen.
"""

from __future__ import annotations

import filecmp
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def files_under(folder: str) -> dict[str, str]:
    out = {}
    for base, _, names in os.walk(folder):
        for name in names:
            path = os.path.join(base, name)
            out[os.path.relpath(path, folder)] = path
    return out


@pytest.mark.slow
def test_committed_evidence_is_fresh_and_every_expect_holds(tmp_path):
    out, errata = tmp_path / "counterexamples", tmp_path / "errata"
    run = subprocess.run(
        [sys.executable, "-m", "checker.cli", "check", "--out", str(out), "--errata-dir", str(errata)],
        capture_output=True, text=True, cwd=ROOT,
    )
    assert run.returncode == 0, f"rulecheck check exited {run.returncode}:\n{run.stdout[-4000:]}\n{run.stderr[-2000:]}"
    games = sorted(g for g in os.listdir(os.path.join(ROOT, "models")) if os.path.isdir(os.path.join(ROOT, "models", g)))
    summary = run.stdout.splitlines()
    assert len(summary) == len(games) + 1 <= 24, summary  # fits on one screen: a line per game and the total
    assert [line.split(":", 1)[0] for line in summary[:-1]] == games
    for produced, committed in ((out, os.path.join(ROOT, "counterexamples")), (errata, os.path.join(ROOT, "docs", "errata"))):
        fresh, kept = files_under(str(produced)), files_under(committed)
        kept = {k: v for k, v in kept.items() if not k.endswith(".itf.json") and k != ".gitkeep"}
        assert sorted(fresh) == sorted(kept), f"{committed}: stale or missing files; run `rulecheck check` and commit"
        changed = [name for name in fresh if not filecmp.cmp(fresh[name], kept[name], shallow=False)]
        assert not changed, f"{committed}: out of date: {changed[:5]}; run `rulecheck check` and commit"
