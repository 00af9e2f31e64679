"""The HTML report: a self-contained site holding every finding and every distinct trace, with
well-formed markup, player data that matches the traces, loops shown as loops, phase pictures, and
the state graph of a small model with the trace's path on it (and, for a large one, why not)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from html.parser import HTMLParser

from checker.engines.statespace import explore_space
from checker.evidence.findings import suite_findings
from checker.evidence.trace import _jsonable_state, _View, display_info, element_name, to_json
from checker.lang.compile import CompiledModel
from checker.pipeline.html import write_report
from checker.pipeline.runner import CheckOptions, check_paths
from checker.report.appendix import where
from checker.report.evidence_files import trace_identity
from checker.report.findings import group_findings
from checker.report.html import write_html
from checker.report.html.page import plain
from checker.report.html.player import shown_states
from checker.report.html.state_graph import STATE_GRAPH_LIMIT
from tests.conftest import MINI, rulecheck, write

VOID = {"meta", "br", "input", "img", "hr", "link", "path", "line", "ellipse", "circle", "source"}


class Balanced(HTMLParser):
    """Fails on an end tag that closes nothing open, and remembers the JSON data blocks."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[str] = []
        self.data: dict[str, str] = {}
        self._json: str | None = None

    def handle_starttag(self, tag, attrs):
        if tag not in VOID:
            self.stack.append(tag)
        attrs = dict(attrs)
        if tag == "script" and attrs.get("type") == "application/json":
            self._json = attrs["id"]
            self.data[self._json] = ""

    def handle_startendtag(self, tag, attrs):
        pass

    def handle_endtag(self, tag):
        assert self.stack and self.stack[-1] == tag, f"</{tag}> closes {self.stack[-3:]}"
        self.stack.pop()
        if tag == "script":
            self._json = None

    def handle_data(self, data):
        if self._json is not None:
            self.data[self._json] += data


def parse(text: str) -> Balanced:
    parser = Balanced()
    parser.feed(text)
    parser.close()
    assert parser.stack == [], parser.stack
    return parser


def assert_self_contained(text: str) -> None:
    """Nothing fetched and no address but one: 'play from here' posts, when clicked, to the
    `rulecheck play` server on this machine (PLAY_ADDRESS), which is not a resource of the page."""
    from checker.report.html.player import PLAY_ADDRESS

    text = text.replace(f'action="{PLAY_ADDRESS}/from-trace"', 'action=""')
    assert not re.search(r"https?://", text), re.search(r".{40}https?://.{40}", text)
    assert not re.search(r"<(link|img|iframe)\b|\bsrc=|@import|url\((?!#)", text)


LOOPING = MINI.replace("\nclauses:\n", """
  shuffle:
    by: turn
    when: deck[low] > 0
    do: {turn: succ(turn)}
    rule: m-1
clauses:
""", 1)


def test_the_site_holds_every_finding_and_trace(project):
    suite = project / "properties" / "duel.yaml"
    extra = "  - {id: alice-stays-low, kind: invariant, says: Alice never scores 2., expr: 'score[alice] < 2', clauses: [duel-2], expect: fails}\n"
    suite.write_text(suite.read_text().replace("findings:", extra + "findings:"))
    results = check_paths([str(project / "models")], CheckOptions())
    paths = write_report(results, str(project / "site"))
    names = sorted(p.rsplit("/", 1)[1] for p in paths)
    plays = [n for n in names if n.startswith("duel-play-")]  # the small configurations' whole games, to play offline
    assert [n for n in names if n not in plays] == ["duel.html", "index.html"] and plays
    index = (project / "site" / "index.html").read_text()
    page = (project / "site" / "duel.html").read_text()
    for text in (index, page, *((project / "site" / n).read_text() for n in plays)):
        assert_self_contained(text)
        parse(text)
    assert 'href="duel.html"' in index
    entries = group_findings(results, suite_findings(results))
    assert len(entries) >= 2  # the filed finding and an unfiled one
    from checker.report.findings import SEVERITIES

    row = index.split('href="duel.html"', 1)[1].split("</tr>", 1)[0]
    counts = [int(n) for n in re.findall(r"<td>(\d+)</td>", row)]
    assert counts[1:1 + len(SEVERITIES)] == [sum(1 for e in entries if e.severity == s) for s in SEVERITIES]  # the index ranks each game by severity
    assert counts[0] == sum(counts[1:1 + len(SEVERITIES)])
    for entry in entries:
        assert f'id="finding-{entry.id}"' in page and entry.title in page.replace("&quot;", '"').replace("&#x27;", "'")
    data = parse(page).data
    traced = {trace_identity(to_json(r.trace)): r for r in results if r.trace is not None}
    assert traced and all(any(key in name for name in data) for key in traced)
    for name, text in data.items():
        player = json.loads(text)
        result = next(r for key, r in traced.items() if key in name)
        states = shown_states(player)
        assert len(player["steps"]) == len(result.trace.steps) and len(states) == len(result.trace.steps) + 1
        for number, step in enumerate(player["steps"], start=1):
            for element, before, _after in step["changes"]:
                assert element in player["initial"] and states[number - 1][element] == before  # every change names a shown element
            assert step["clauses"] and all(c["says"] for c in step["clauses"])
        # the duel names nothing and hides nothing, so the shown last state is the trace's, element by element
        final = {element_name(slot, index): value for slot, v in result.trace.states()[-1].items()
                 for index, value in (v.items() if isinstance(v, dict) else [((), v)])}
        assert states[-1] == {k: str(v) for k, v in final.items()}
    assert "<svg" in page and all(f">{phase}</text>" in page for phase in ("draw", "play", "done"))
    # the duel reaches more than STATE_GRAPH_LIMIT states: each player says so instead of drawing
    assert 'class="sg-node' not in page
    assert page.count("No state graph: this configuration reaches at least") == len(data)


def test_a_lasso_is_shown_as_a_loop(tmp_path):
    write(tmp_path, LOOPING, "mini.yaml")
    (tmp_path / "properties").mkdir()
    (tmp_path / "properties" / "game.yaml").write_text("properties:\n  - {id: ends, kind: terminates, says: Every game ends., expect: fails}\n")
    run = rulecheck("check", "--jobs", "1", "--no-write", "--html", "site", cwd=str(tmp_path))
    assert run.returncode == 0, run.stdout + run.stderr
    page = (tmp_path / "site" / "game.html").read_text()
    assert_self_contained(page)
    player = json.loads(next(iter(parse(page).data.values())))
    states = shown_states(player)
    assert states[-1] == states[player["loop_start"]]  # the loop ends where it began
    assert player["shape"] == "lasso" and player["loop_start"] is not None
    assert 'class="loop-note"' in page and page.count('<li class="in-loop">') == len(player["steps"]) - player["loop_start"]


def test_report_command_and_odds(project):
    run = rulecheck("report", "--html", "site", "--odds", "--jobs", "1", cwd=str(project))
    assert run.returncode == 0, run.stderr
    page = (project / "site" / "duel.html").read_text()
    assert_self_contained(page)
    parse(page)
    assert "Readings: outcome odds" in page and page.count('class="bar"') >= 4  # two outcomes, default and tie=defender
    assert 'data-trace="divergence-duel-tie-defender"' in page and "under tie=defender" in page  # where the readings part


class GraphParts(HTMLParser):
    """The state graph's nodes (classes, steps, hover text) and its path edges' steps."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.nodes: list[dict] = []
        self.path_steps: list[int] = []
        self.edges = 0
        self._title = False

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        css = (attrs.get("class") or "").split()
        if tag == "g" and "sg-node" in css:
            at = attrs.get("data-at")
            self.nodes.append({"css": css, "at": [int(k) for k in at.split()] if at else [], "title": ""})
        elif tag == "g" and "on-path" in css:
            self.path_steps += [int(k) for k in attrs["data-steps"].split()]
            self.edges += 1
        self._title = tag == "title" and bool(self.nodes)

    def handle_startendtag(self, tag, attrs):
        if "sg-edge" in (dict(attrs).get("class") or ""):
            self.edges += 1

    def handle_data(self, data):
        if self._title:
            self.nodes[-1]["title"] += data

    def handle_endtag(self, tag):
        self._title = False


def _mini_checked(tmp_path, more: str = ""):
    """The mini game checked with one failing invariant (`more`: further keys of it)."""
    write(tmp_path, MINI, "mini.yaml")
    (tmp_path / "properties").mkdir()
    (tmp_path / "properties" / "game.yaml").write_text(f"properties:\n  - {{id: never-over, kind: invariant, expr: not over, expect: fails{more}}}\n")
    return check_paths([str(tmp_path / "models")], CheckOptions())


def test_a_small_models_state_graph_shows_the_trace_path(tmp_path):
    results = _mini_checked(tmp_path)
    page = open(write_report(results, str(tmp_path / "site"))[1], encoding="utf-8").read()
    parse(page)
    assert_self_contained(page)
    players = {re.search(r'aria-label="never-over: ([^"(]*) \(', chunk)[1].strip(): chunk for chunk in page.split('<div class="player"')[1:]}
    failing = {plain(where(r)): r for r in results if r.trace is not None}
    assert players and set(players) <= set(failing)
    for label, chunk in players.items():
        result = failing[label]
        space = explore_space(CompiledModel(result.model, result.config))
        assert space.complete and space.size <= STATE_GRAPH_LIMIT
        graph = GraphParts()
        graph.feed(chunk)
        assert len(graph.nodes) == space.size  # a dot per reachable state
        assert graph.edges == len({(n, space.targets[m]) for n in range(space.size) for m in space.moves(n)})  # a line per pair of states a move joins
        view = _View(display_info(result.model))
        states = result.trace.states()
        assert sorted(graph.path_steps) == list(range(1, len(states)))  # the path: every step, once
        for k, state in enumerate(states):
            (node,) = [n for n in graph.nodes if k in n["at"]]
            assert "on-path" in node["css"] and node["title"].endswith(view.state(_jsonable_state(state)))
        assert "initial" in [n for n in graph.nodes if 0 in n["at"]][0]["css"]
        assert "terminal" in [n for n in graph.nodes if len(states) - 1 in n["at"]][0]["css"]  # the play ends: the game is over


def test_pages_written_without_graphs_draw_none(tmp_path):
    """`write_html` alone explores nothing: its players come without a state graph."""
    results = _mini_checked(tmp_path)
    page = open(write_html(results, str(tmp_path / "site"))[1], encoding="utf-8").read()
    assert '<div class="player"' in page and "<svg" not in page and "No state graph" not in page


def test_the_pages_are_byte_stable_across_processes(tmp_path):
    write(tmp_path, LOOPING, "mini.yaml")
    (tmp_path / "properties").mkdir()
    (tmp_path / "properties" / "game.yaml").write_text("properties:\n  - {id: ends, kind: terminates, expect: fails}\n")
    pages = []
    for seed in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        run = subprocess.run([sys.executable, "-m", "checker.cli", "check", "--jobs", "1", "--no-write", "--html", f"site{seed}"],
                             cwd=str(tmp_path), env=env, capture_output=True, text=True)
        assert run.returncode == 0, run.stdout + run.stderr
        pages.append((tmp_path / f"site{seed}" / "game.html").read_bytes())
    assert b'class="sg-node' in pages[0] and pages[0] == pages[1]


def test_the_game_page_carries_the_verdicts_and_the_clause_index(tmp_path):
    """What the errata page leaves to its details (the verdicts, the clause index) is on the HTML
    page too, linked from its head, a row per clause of the index with how the models use it."""
    results = _mini_checked(tmp_path, ", clauses: [m-2]")
    page = open(write_html(results, str(tmp_path / "site"))[1], encoding="utf-8").read()
    parse(page)
    assert '<a href="#results">' in page and '<a href="#clauses">' in page and '<h2 id="clauses">Clause index</h2>' in page
    clauses = page.split('<h2 id="clauses">', 1)[1]
    assert "<p>2 clauses: 2 formalised, 1 read, 0 assumed, 0 out of scope, 0 not handled.</p>" in clauses
    assert '<tr id="m-1"><td><code>m-1</code></td><td>1</td><td>formalised: rule take; read: order</td></tr>' in clauses
    assert '<tr id="m-2"><td><code>m-2</code></td><td>2</td><td>formalised: rule stop, property never-over</td></tr>' in clauses
