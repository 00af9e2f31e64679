"""Bars of outcome probabilities per reading option, from the impact analysis (`rulecheck
readings`): what each reading does to who wins, under the policy the analysis states (each
mover with a legal move equally likely, chance by its weights)."""

from __future__ import annotations

from checker.analysis.impact import ModelImpact
from checker.analysis.outcomes import Impact
from checker.report.html.page import esc


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
