"""The HTML report written: each game's traces' state graphs explored here (small configurations
only, each once), then the pages rendered by `checker.report.html`, which explores nothing."""

from __future__ import annotations

from checker.engines.statespace import explore_space
from checker.errors import RulecheckError
from checker.evidence.results import Result
from checker.lang.compile import CompiledModel
from checker.report.html import write_html
from checker.report.html.game_page import graph_results
from checker.report.html.state_graph import EXPLORE_SECONDS, EXPLORE_STATES, Drawn, StateGraphs, config_key, drawn_from, to_explore


def write_report(results: list[Result], out_dir: str, impacts: dict[str, str] | None = None) -> list[str]:
    """`write_html` with every game's state graphs; returns the paths written."""
    games: dict[str, list[Result]] = {}
    for result in results:
        games.setdefault(result.model.folder, []).append(result)
    return write_html(results, out_dir, impacts, {folder: state_graphs(mine) for folder, mine in games.items()})


def state_graphs(results: list[Result]) -> StateGraphs:
    """One game's state graphs: the configurations of the traces its page plays, explored."""
    drawn, wanted = to_explore(results, graph_results(results))
    for model, config in wanted:
        try:
            space = explore_space(CompiledModel(model, config, lazy=True), max_states=EXPLORE_STATES, timeout=EXPLORE_SECONDS)
        except RulecheckError as exc:
            drawn[config_key(model, config)] = Drawn(None, f"the configuration could not be explored ({exc}).")
            continue
        drawn[config_key(model, config)] = drawn_from(space)
    return StateGraphs(drawn)
