"""`rulecheck report --html DIR` and `check --html DIR`: the results as a self-contained static
site, one page per game and an index. It reads the same results, suite findings and traces as
the errata page and adds no checking; every page is a single file with its style sheet, script,
data and pictures inline, so it needs no server and no network."""

from __future__ import annotations

import os

from checker.evidence.results import Result
from checker.report.findings import NOT_A_DEFECT, SEVERITIES, group_findings
from checker.report.html.game_page import game_page
from checker.report.html.page import esc, page
from checker.report.html.play_page import play_page
from checker.report.html.state_graph import StateGraphs


def write_html(results: list[Result], out_dir: str, impacts: dict[str, str] | None = None, graphs: dict[str, StateGraphs] | None = None) -> list[str]:
    """Write `index.html`, `GAME.html` per game and its pages of whole games to play
    (`GAME-play-N.html`, in `graphs`); returns the paths written. `impacts` maps a
    game to the HTML of its outcome-odds bars (absent: no such section), `graphs` a game to its
    traces' state graphs (made by `checker.pipeline.html`; absent: none drawn)."""
    from checker.evidence.findings import suite_findings

    games: dict[str, list[Result]] = {}
    for result in results:
        games.setdefault(result.model.folder, []).append(result)
    os.makedirs(out_dir, exist_ok=True)
    written = []
    rows = []
    for folder, game_results in sorted(games.items()):
        path = os.path.join(out_dir, f"{folder}.html")
        _write(path, game_page(folder, game_results, (impacts or {}).get(folder, ""), (graphs or {}).get(folder)))
        written.append(path)
        for name, whole in sorted(((graphs or {}).get(folder) or StateGraphs({})).pages.items()):
            _write(os.path.join(out_dir, name), play_page(folder, whole))
            written.append(os.path.join(out_dir, name))
        entries = group_findings(game_results, suite_findings(game_results))
        defects = [e for e in entries if e.severity != NOT_A_DEFECT]
        unexpected = sum(1 for r in game_results if not r.matches)
        by_severity = "".join(f"<td>{sum(1 for e in defects if e.severity == s)}</td>" for s in SEVERITIES)
        rows.append(f'<tr><td><a href="{esc(folder)}.html">{esc(game_results[0].model.game)}</a></td><td>{len(defects)}</td>{by_severity}'
                    f"<td>{len(game_results)}</td><td>{unexpected}</td></tr>")
    heads = "".join(f"<th>{esc(s)}</th>" for s in SEVERITIES)
    index = page("rulecheck report", "<h1>rulecheck report</h1>\n<table><tr><th>game</th><th>findings</th>" + heads + "<th>results</th>"
                 f"<th>unexpected</th></tr>{''.join(rows)}</table>")
    path = os.path.join(out_dir, "index.html")
    _write(path, index)
    return [path, *written]


def _write(path: str, text: str) -> None:
    tmp = f"{path}.tmp"
    with open(tmp, "w", encoding="utf-8") as handle:
        handle.write(text)
    os.replace(tmp, path)
