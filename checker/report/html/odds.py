"""What each reading option changes, from the impact analysis (`rulecheck readings`): bars of
outcome probabilities per option (under the policy the analysis states: each mover with a legal
move equally likely, chance by its weights), and each option's divergence scenario: the common
play as a player, then what each reading does at the step where they part, side by side."""

from __future__ import annotations

from checker.analysis.divergence import Divergence, Side
from checker.analysis.impact import ModelImpact
from checker.analysis.outcomes import Impact
from checker.evidence.trace import Trace, outcomes_after
from checker.report.html.page import esc, plain
from checker.report.html.player import player_html


def odds_html(impacts: list[ModelImpact]) -> str:
    out = ['<p class="muted">Probability of each outcome when every mover with a legal move is equally likely to go next, '
           "players choose uniformly and chance follows its weights; exact where the analysis says so, estimates otherwise.</p>"]
    for mi in impacts:
        rows = [("default readings", mi.impact)]
        for reading in mi.readings:
            for option in reading.options:
                label = f"{reading.reading.name}={option.option}"
                rows.append((label, option.impact if option.impact is not None else mi.impact))
        outcomes = sorted({o for _, impact in rows for o in (impact.probabilities or {})})
        out.append(f"<h3>{esc(mi.model.id)}</h3>")
        if not outcomes:
            out.append('<p class="muted">No outcome probabilities (the state space was beyond the budget or no play ends).</p>')
            continue
        head = "".join(f"<th>{esc(o)}</th>" for o in outcomes)
        body = "".join(f"<tr><th>{esc(label)}</th>{''.join(_cell(impact, o) for o in outcomes)}<td class='muted'>{esc(impact.method)}</td></tr>"
                       for label, impact in rows)
        out.append(f"<table><tr><th>reading</th>{head}<th>method</th></tr>{body}</table>")
    return "\n".join(out)


def _cell(impact: Impact, outcome: str) -> str:
    p = (impact.probabilities or {}).get(outcome)
    if p is None:
        return "<td>-</td>"
    return f'<td><span class="bar" style="width:{120 * p:.1f}px"></span> {100 * p:.1f}%</td>'


def divergences_html(impacts: list[ModelImpact]) -> str:
    out = []
    for mi in impacts:
        for reading in mi.readings:
            for option in reading.options:
                divergence = option.divergence
                if divergence is None or not divergence.found or divergence.trace is None:
                    continue
                label = f"{reading.reading.name}={option.option}"
                out.append(f"<h3>{esc(mi.model.id)}: {esc(label)} <span class=\"muted\">({esc(option.classification)})</span></h3>")
                out.append(_scenario(divergence, f"divergence-{mi.model.id}-{reading.reading.name}-{option.option}"))
    return "\n".join(out) or '<p class="muted">No reading option changes play in the models analysed.</p>'


def _scenario(divergence: Divergence, element_id: str) -> str:
    assert divergence.trace is not None  # the caller skips a divergence without its trace
    steps = len(divergence.trace.steps)
    common = player_html(divergence.trace, element_id, f"The common play ({steps} step{'s' if steps != 1 else ''}, legal under both readings)")
    a, b = divergence.sides or (Side("?"), Side("?"))
    return (f"{common}\n<p>{esc(plain(divergence.summary))}</p>\n<table class=\"sides\"><tr><th></th><th>under {esc(a.label)}</th><th>under {esc(b.label)}</th></tr>"
            f"<tr><th>game over</th><td>{_over(a)}</td><td>{_over(b)}</td></tr>"
            f"<tr><th>next</th><td>{_moves(a, divergence.trace)}</td><td>{_moves(b, divergence.trace)}</td></tr></table>")


def _over(side: Side) -> str:
    if not side.terminal:
        return "no"
    return esc(f"yes ({side.outcome})" if side.outcome is not None else "yes")


def _moves(side: Side, trace: Trace) -> str:
    if side.error:
        return esc(f"modelling error: {side.error}")
    items = []
    for step, changed in zip(side.steps, outcomes_after(trace, side.steps)):
        items.append(f"<li>{esc(step.text)}: <mark>{esc(changed)}</mark></li>")
    if side.more:
        items.append(f"<li>and {side.more} more</li>")
    return f"<ul>{''.join(items)}</ul>" if items else "none"
