"""A trace as a player: the whole play written out (for print and without script) and the data
the page's script steps through, in players' words: labels and display names, internal slots
hidden, as in `rulecheck explain`."""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import urlencode

from checker.evidence.trace import Trace, shown_changes, shown_state, to_json
from checker.report.html.page import esc, json_script
from checker.report.html.state_graph import PlayLink


def player_data(trace: Trace) -> dict[str, Any]:
    """Steps (text, clauses, shown changes) and the shown initial state (element -> value); the
    script rebuilds each later state from the changes, which keeps a long trace of a large
    state small."""
    doc = to_json(trace)
    display = doc.get("display") or {}
    steps = []
    for step in doc["steps"]:
        changes = shown_changes(display, [(c["element"], c["before"], c["after"]) for c in step["changes"]])
        steps.append({"text": step["text"], "by": step["by"], "clauses": step["clauses"], "changes": changes})
    return {"steps": steps, "initial": shown_state(display, {}, trace.initial), "loop_start": trace.loop_start, "shape": trace.shape, "note": trace.note}


PLAY_ADDRESS = "http://127.0.0.1:8765"  # where `rulecheck play` listens by default


def play_form(trace: Trace, folder: str) -> str:
    """'play from here': the trace (its model, readings, constants, start and moves) posted to a
    running `rulecheck play`, which opens the position the player is at (the script keeps the
    form's step at the player's)."""
    doc = to_json(trace)
    posted = {key: doc[key] for key in ("model", "readings", "constants", "initial")}
    posted["steps"] = [{"action": step["action"], "params": step["params"]} for step in doc["steps"]]
    data = json.dumps(posted, sort_keys=True, separators=(",", ":"), default=str)
    return (f' <form class="play-from" method="post" action="{PLAY_ADDRESS}/from-trace" target="_blank">'
            f'<input type="hidden" name="trace" value="{esc(data)}"><input type="hidden" name="step" value="0">'
            f'<button type="submit" title="opens this position in rulecheck play (start it first: rulecheck play models/{esc(folder or "GAME")})">'
            "play from here \u2197</button></form>")


def offline_link(offline: PlayLink | None) -> str:
    """'play here': a link to the whole game's page at the player's step (the script sets the
    moves of the address as the player steps)."""
    if offline is None:
        return ""
    return (f' <a class="play-offline" href="{esc(offline.page)}?{esc(urlencode({**offline.query, "moves": "[]"}))}" target="_blank"'
            f' data-page="{esc(offline.page)}" data-query="{esc(json.dumps(offline.query, sort_keys=True))}" data-moves="{esc(json.dumps(offline.moves))}"'
            ' title="plays this position in a page of its own, without a server">play here \u2197</a>')


def shown_states(data: dict[str, Any]) -> list[dict[str, str]]:
    """Every state of a player's data, as the script rebuilds them: the initial one, then each
    step's changes applied."""
    states = [dict(data["initial"])]
    for step in data["steps"]:
        states.append({**states[-1], **{name: after for name, _, after in step["changes"]}})
    return states


def player_html(trace: Trace, element_id: str, title: str, graph: str = "", folder: str = "", offline: PlayLink | None = None) -> str:
    """The player; `graph` is the HTML of the state graph with this trace on it (or why there is
    none); `folder`, the game's folder under models/ (for 'play from here'); `offline`, where its
    configuration's whole game is played without a server, if it is small enough."""
    data = player_data(trace)
    loop = trace.loop_start
    items = []
    for number, step in enumerate(data["steps"], start=1):
        in_loop = loop is not None and number > loop
        changes = "; ".join(f"<mark>{esc(name)}</mark> {esc(before)} \u2192 {esc(after)}" for name, before, after in step["changes"])
        quotes = " ".join(f'<q title="{esc(c["at"] or c["id"])}">{esc(c["says"])}</q>' for c in step["clauses"])
        opening = '<li class="in-loop">' if in_loop else "<li>"
        items.append(f'{opening}{esc(step["text"])}'
                     + (f' <span class="muted">{quotes}</span>' if quotes else "") + (f"<br>{changes}" if changes else "") + "</li>")
    loop_note = (f'<p class="loop-note">\u21ba After step {len(data["steps"])} the play is back where it was after step {loop}: '
                 "the marked steps repeat forever.</p>") if loop is not None else ""
    final = shown_states(data)[-1]
    rows = "".join(f'<tr data-el="{esc(name)}"><th>{esc(name)}</th><td>{esc(value)}</td></tr>' for name, value in final.items())
    shown_note = data["note"] if "`" not in data["note"] else ""  # a model expression explains nothing to a designer
    note = f'<p class="muted">{esc(shown_note)}</p>' if shown_note else ""
    return (
        f'<div class="player" tabindex="0" data-trace="{esc(element_id)}" aria-label="{esc(title)}">\n'
        f"<h4>{esc(title)}</h4>\n{note}"
        '<div class="controls no-print" hidden><button class="prev" type="button">\u2190 back</button>'
        '<button class="next" type="button">forward \u2192</button> <span class="muted">or \u2190/\u2192 keys (Home, End) with the player focused</span>'
        f"{play_form(trace, folder)}{offline_link(offline)}</div>\n"
        '<div class="view" aria-live="polite"></div>\n'
        f'<ol class="steps">{"".join(items)}</ol>\n{loop_note}{graph}'
        f'<details class="state-box"><summary>Whole state</summary><table class="state">{rows}</table></details>\n'
        f"{json_script(element_id, data)}\n</div>"
    )
