"""A trace as a designer reads it on the errata page: the steps that make the point, the rest folded.

The full play-by-play (`trace.narrative`) quotes every clause and lists every change, which a
designer does not need to see that a finding is real: the page shows at most `MAX_STEPS` steps,
chosen for the point (the last steps before the violation, those that cite the finding's
clauses, those that change what the property reads, and a loop's steps), folds every run of
other steps into one line ("(9 ordinary steps)"), cites clauses and assumptions by id only
(linked to where their texts are), shows only the changes players see, and starts from the
start state's elements that the steps shown or the property touch. The details page gives every
step in one paragraph (`play_in_one_line`); the full play-by-play stays in the saved evidence,
which `rulecheck explain` prints.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from checker.evidence.trace import _View, doc_states

MAX_STEPS = 6  # steps shown on the page at most (the point's, the rest folded; 16 findings fit a 500-line page)
LAST_STEPS = 3  # the steps just before the violation, always shown
START_ITEMS = 8  # elements of the start state shown at most
CITES = 4  # clause and assumption links a step shows at most (the full trace has them all)


def short_trace(doc: dict[str, Any], focus: set[str], clauses: set[str], clause_link: Callable[[str], str], assumption_link: Callable[[str], str]) -> list[str]:
    """The page's lines for a trace in its JSON form: `focus` the slots the property reads,
    `clauses` the finding's clause ids; links are made by the two functions from an id."""
    view = _View(doc.get("display") or {})
    steps: list[dict[str, Any]] = doc["steps"]
    kept = _kept(steps, focus, clauses, doc.get("loop_start"))
    states = doc_states(doc)
    lines = [f"0. Start: {_start(view, doc['initial'], steps, kept, focus)}"]
    folded = 0
    for number, step in enumerate(steps, start=1):
        if number not in kept:
            folded += 1
            continue
        if folded:
            lines.append(f"   *({folded} ordinary step{'s' if folded != 1 else ''})*")
            folded = 0
        lines.append(f"{number}. {_step(view, step, states[number - 1], clause_link, assumption_link)}{_loop_mark(doc, number)}")
    if folded:
        lines.append(f"   *({folded} ordinary step{'s' if folded != 1 else ''})*")
    loop = doc.get("loop_start")
    if loop is not None:
        lines.append(f"   \u21ba back to the position after step {loop}: the loop repeats for ever.")
    for j, alt in enumerate(doc.get("branches", []), start=1):
        lines.append(f"   - forced rule {j}: {_step(view, alt, states[-1], clause_link, assumption_link)}")
    if doc.get("outcome") is not None:
        lines.append(f"   Outcome: {view.name(None, doc['outcome'])}.")
    return lines


def play_in_one_line(doc: dict[str, Any], assumption_link: Callable[[str], str]) -> str:
    """Every step of a trace in its JSON form by what happened, numbered, in one paragraph, with
    the assumptions a step rests on linked by name: the details page's form of a trace, where
    the full play-by-play (every clause quoted, every change listed) ran to hundreds of lines a
    page and repeated the saved evidence. A loop and the moves a deterministic rule disagrees
    on are named after the steps."""
    parts = []
    for number, step in enumerate(doc["steps"], start=1):
        cites = [f"the model's assumption {assumption_link(a['id'])}" for a in step.get("assumptions") or ()]
        parts.append(f"({number}) {step['text']}" + (f" ({'; '.join(cites)})" if cites else "") + ".")
    loop = doc.get("loop_start")
    if loop is not None:
        parts.append(f"From the position after step {loop} the play repeats for ever.")
    branches = [str(alt["text"]) for alt in doc.get("branches", [])]
    if branches:
        parts.append("The forced rules that disagree there: " + "; ".join(branches) + ".")
    if doc.get("outcome") is not None:
        parts.append(f"Outcome: {_View(doc.get('display') or {}).name(None, doc['outcome'])}.")
    return " ".join(parts) if parts else "(no step: the start position shows it)"


def _kept(steps: list[dict[str, Any]], focus: set[str], clauses: set[str], loop: int | None) -> set[int]:
    """The step numbers (1-based) shown: the point's first, at most `MAX_STEPS`."""
    n = len(steps)
    if n <= MAX_STEPS:
        return set(range(1, n + 1))
    must = set(range(max(1, n - LAST_STEPS + 1), n + 1))
    if loop is not None:
        must |= set(range(loop + 1, n + 1))
    wanted = [k for k in range(1, n + 1) if k not in must and (_cites(steps[k - 1], clauses) or _touches(steps[k - 1], focus))]
    room = max(MAX_STEPS - len(must), 0)
    chosen = set(wanted[-room:]) if room else set()
    if len(must) > MAX_STEPS:  # a long loop: its first steps and those before the violation
        ordered = sorted(must)
        must = set(ordered[: MAX_STEPS - LAST_STEPS]) | set(ordered[-LAST_STEPS:])
    return must | chosen


def _cites(step: dict[str, Any], clauses: set[str]) -> bool:
    return any(c["id"] in clauses for c in step["clauses"])


def _touches(step: dict[str, Any], focus: set[str]) -> bool:
    return any(change["element"].partition("[")[0] in focus for change in step["changes"])


def _start(view: _View, initial: dict[str, Any], steps: list[dict[str, Any]], kept: set[int], focus: set[str]) -> str:
    """The start state's elements the shown steps change or the property reads, in players'
    terms (every shown one when there are few)."""
    wanted = set(focus)
    for number in kept:
        wanted |= {change["element"].partition("[")[0] for change in steps[number - 1]["changes"]}
    shown = {name: value for name, value in initial.items() if not view.hidden(name)}
    picked = {name: value for name, value in shown.items() if name in wanted} or shown
    parts = view.state(picked).split("; ") if picked else []
    if len(parts) > START_ITEMS:
        rest = len(parts) - START_ITEMS
        parts = parts[:START_ITEMS] + [f"and {rest} more"]
    hidden = len(shown) - len(picked)
    text = "; ".join(parts) or "as dealt"
    return text + (f" (the rest as dealt: {hidden} more)" if hidden > 0 and picked is not shown else "")


def _step(view: _View, step: dict[str, Any], before: dict[str, Any], clause_link: Callable[[str], str], assumption_link: Callable[[str], str]) -> str:
    """A shown step: its text, what players see change or else the values that decided it
    (`before`: the state it is taken in), and its citations as links."""
    cites = [clause_link(c["id"]) for c in step["clauses"]]
    cites += [assumption_link(a["id"]) for a in step.get("assumptions", [])]
    if len(cites) > CITES:
        cites = cites[:CITES] + [f"{len(cites) - CITES} more"]
    shown = view.outcome_of(step, before) if view.changes(step["changes"]) or step.get("decided_by") else ""
    text = step["text"] + (f": {shown}" if shown else "")
    return text + (f" ({', '.join(cites)})" if cites else "")


def _loop_mark(doc: dict[str, Any], number: int) -> str:
    loop = doc.get("loop_start")
    return " \u21bb *(the loop starts here)*" if loop is not None and number == loop + 1 else ""
