"""A trace as a player: the whole play written out (for print and without script) and the data
the page's script steps through, in players' words: labels and display names, internal slots
hidden, as in `rulecheck explain`."""

from __future__ import annotations

import json
from typing import Any

from checker.evidence.trace import Trace, _View, element_name, to_json
from checker.lang.interp import State
from checker.lang.model import Pile
from checker.lang.piles import fold, lengths_of
from checker.report.html.page import esc, json_script


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
    return {"steps": steps, "initial": _shown_state(_View(display), trace.initial), "loop_start": trace.loop_start, "shape": trace.shape, "note": trace.note}


def shown_changes(display: dict[str, Any], changes: list[tuple[str, Any, Any]]) -> list[list[str]]:
    """A step's changes (element, before, after) in players' words, internal slots left out."""
    view = _View(display)
    out = []
    for element, before, after in changes:
        slot = element.partition("[")[0]
        if not view.hidden(slot):
            out.append([_shown_element(view, slot, element), view.value(slot, before), view.value(slot, after)])
    return out


def shown_state(display: dict[str, Any], piles: dict[str, Pile], state: State) -> dict[str, str]:
    """A state in players' words (element -> value), each ordered pile as one list, top first."""
    return _shown_state(_View(display), fold(lengths_of(piles), state))


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


def shown_states(data: dict[str, Any]) -> list[dict[str, str]]:
    """Every state of a player's data, as the script rebuilds them: the initial one, then each
    step's changes applied."""
    states = [dict(data["initial"])]
    for step in data["steps"]:
        states.append({**states[-1], **{name: after for name, _, after in step["changes"]}})
    return states


def _shown_element(view: _View, slot: str, element: str) -> str:
    index = [part.rstrip("]") for part in element[len(slot):].split("[")[1:]]
    return view.element(slot, index)


def _shown_state(view: _View, state: dict[str, Any]) -> dict[str, str]:
    out: dict[str, str] = {}
    for slot, value in state.items():
        if view.hidden(slot):
            continue
        if isinstance(value, dict):
            for index, item in value.items():
                out[_shown_element(view, slot, element_name(slot, index))] = view.value(slot, item)
        else:
            out[view.element(slot, [])] = view.value(slot, value)
    return out


def player_html(trace: Trace, element_id: str, title: str, graph: str = "", folder: str = "") -> str:
    """The player; `graph` is the HTML of the state graph with this trace on it (or why there is
    none); `folder`, the game's folder under models/ (for 'play from here')."""
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
        f"{play_form(trace, folder)}</div>\n"
        '<div class="view" aria-live="polite"></div>\n'
        f'<ol class="steps">{"".join(items)}</ol>\n{loop_note}{graph}'
        f'<details class="state-box"><summary>Whole state</summary><table class="state">{rows}</table></details>\n'
        f"{json_script(element_id, data)}\n</div>"
    )
