"""The HTML report written: each game's traces' state graphs explored here (small configurations
only, each once), then the pages rendered by `checker.report.html`, which explores nothing."""

from __future__ import annotations

from checker.engines.statespace import explore_space
from checker.errors import RulecheckError
from checker.evidence.play import OFFLINE_STATES, PlayGame, Request, request_from_trace
from checker.evidence.results import Result
from checker.evidence.trace import to_json
from checker.lang.compile import CompiledModel
from checker.report.html import write_html
from checker.report.html.game_page import graph_results
from checker.report.html.state_graph import (
    EXPLORE_SECONDS,
    EXPLORE_STATES,
    Drawn,
    PlayLink,
    StateGraphs,
    config_key,
    drawn_from,
    to_explore,
)


def write_report(results: list[Result], out_dir: str, impacts: dict[str, str] | None = None) -> list[str]:
    """`write_html` with every game's state graphs; returns the paths written."""
    games: dict[str, list[Result]] = {}
    for result in results:
        games.setdefault(result.model.folder, []).append(result)
    return write_html(results, out_dir, impacts, {folder: state_graphs(mine) for folder, mine in games.items()})


def state_graphs(results: list[Result]) -> StateGraphs:
    """One game's state graphs: the configurations of the traces its page plays, explored; and
    the whole games of those small enough to play without a server."""
    drawn, wanted = to_explore(results, graph_results(results))
    for model, config in wanted:
        try:
            space = explore_space(CompiledModel(model, config, lazy=True), max_states=EXPLORE_STATES, timeout=EXPLORE_SECONDS)
        except RulecheckError as exc:
            drawn[config_key(model, config)] = Drawn(None, f"the configuration could not be explored ({exc}).")
            continue
        drawn[config_key(model, config)] = drawn_from(space)
    plays, pages = whole_games(results)
    return StateGraphs(drawn, plays, pages)


def whole_games(results: list[Result]) -> tuple[dict[int, PlayLink], dict[str, dict]]:
    """Per configuration of the traces a page plays that reaches at most `OFFLINE_STATES`
    states (counted by the explorer first, so a large one costs a bounded count, not a walk in
    the interpreter), its whole game (`PlayGame.whole_game`), and each of its traces' place in it."""
    traced = graph_results(results)
    if not traced:
        return {}, {}
    folder = traced[0].model.folder
    suite = list({r.prop.id: r.prop for r in results}.values())
    game = PlayGame(folder, list({r.model.id: r.model for r in traced}.values()), suite)
    plays: dict[int, PlayLink] = {}
    pages: dict[str, dict] = {}
    named: dict[tuple[str, str, str], str | None] = {}
    for result in traced:
        assert result.trace is not None  # graph_results holds results with a trace
        key = config_key(result.model, result.config)
        try:
            request = request_from_trace(game, to_json(result.trace), len(result.trace.steps))
        except RulecheckError:
            continue
        if key not in named:
            named[key] = None
            space = explore_space(CompiledModel(result.model, result.config, lazy=True), max_states=OFFLINE_STATES, timeout=EXPLORE_SECONDS)
            whole = game.whole_game(Request(request.model, request.readings, request.constants)) if space.complete else None
            if whole is not None:
                name = f"{folder}-play-{len(pages) + 1}.html"
                named[key], pages[name] = name, whole
        page = named[key]
        if page is not None:
            plays[id(result.trace)] = PlayLink(page, {k: v for k, v in request.query().items() if k != "moves"}, list(request.moves))
    return plays, pages
