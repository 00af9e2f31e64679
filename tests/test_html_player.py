"""The trace player of the HTML report, stepped with key presses in a real DOM (jsdom, run by
node): the position, the highlighted values and the loop of a lasso follow the trace.

Needs node and the npm package jsdom (`npm install jsdom`; set NODE_PATH to its node_modules
folder when it is not installed where node looks); skipped, saying so, without them."""

from __future__ import annotations

import json
import os
import shutil
import subprocess

import pytest

from checker.pipeline.html import write_report
from checker.pipeline.runner import CheckOptions, check_paths
from checker.report.html.player import shown_states
from tests.conftest import write
from tests.test_html_report import LOOPING, parse

HERE = os.path.dirname(os.path.abspath(__file__))


def _jsdom_missing() -> str | None:
    if shutil.which("node") is None:
        return "node is not installed"
    found = subprocess.run(["node", "-e", "require.resolve('jsdom')"], capture_output=True, text=True)
    return None if found.returncode == 0 else "the npm package jsdom is not installed (npm install jsdom; NODE_PATH=.../node_modules)"


pytestmark = pytest.mark.skipif(_jsdom_missing() is not None, reason=f"player tests need a DOM: {_jsdom_missing()}")


def press(page: str, keys: list[str]) -> list[dict]:
    run = subprocess.run(["node", os.path.join(HERE, "player_keys.js"), page, ",".join(keys)], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    return json.loads(run.stdout)


def _site(root, models: str) -> tuple[str, dict]:
    results = check_paths([models], CheckOptions())
    paths = write_report(results, str(root / "site"))
    page = next(p for p in paths if not p.endswith("index.html"))
    data = json.loads(next(iter(parse(open(page, encoding="utf-8").read()).data.values())))
    return page, data


def test_keys_step_through_the_trace_and_highlight_what_changed(project):
    page, data = _site(project, str(project / "models"))
    n = len(data["steps"])
    seen = press(page, ["ArrowRight", "ArrowRight", "ArrowLeft", "End", "ArrowRight", "Home", "j", "k"])
    assert seen[0]["controls"] and seen[0]["where"] == f"Start (step 0 of {n})" and seen[0]["changed"] == []
    states = shown_states(data)
    assert seen[0]["values"] == states[0]
    positions = [0, 1, 2, 1, n, n, 0, 1, 0]  # forward at the end of a path stays there
    for shown, at in zip(seen, positions):
        assert shown["where"] == (f"Step {at} of {n}" if at else f"Start (step 0 of {n})"), shown
        assert shown["values"] == states[at]
        expected = sorted({c[0] for c in data["steps"][at - 1]["changes"]}) if at else []
        assert sorted(shown["changed"]) == expected and (not at or expected)
        assert shown["current"] == at - 1
        assert not shown["loop"]


def test_a_lasso_goes_round_its_loop(tmp_path):
    write(tmp_path, LOOPING, "mini.yaml")
    (tmp_path / "properties").mkdir()
    (tmp_path / "properties" / "game.yaml").write_text("properties:\n  - {id: ends, kind: terminates, expect: fails}\n")
    page, data = _site(tmp_path, str(tmp_path / "models"))
    n, loop = len(data["steps"]), data["loop_start"]
    assert loop is not None
    seen = press(page, ["End", "ArrowRight"])
    assert seen[1]["where"] == f"Step {n} of {n}" and seen[1]["loop"]
    assert seen[2]["where"] == f"Step {loop + 1} of {n}" and not seen[2]["loop"]
    assert seen[1]["values"] == shown_states(data)[loop]  # the last step is back where the play was after step `loop`
    assert seen[1]["ringed"] == [[loop, n]] and seen[2]["ringed"] == [[loop + 1]]  # the small game's state graph follows


def test_n_focuses_the_next_findings_player(project):
    page, _ = _site(project, str(project / "models"))
    before, after = press(page, ["n"])
    assert not before["focused"] and after["focused"]
