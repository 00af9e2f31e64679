"""The phase structure of a model as an inline SVG: the phases of its phase slot and, between
them, the actions that move play from one to another. Drawn from the model's text, not from an
exploration, so it costs nothing and shows every transition the rules allow, reachable or not.

The phase slot is the scalar enum slot (not a player) that the most action guards test for
equality with a member (`phase == draw`); an action's source phases are the members its guard's
top-level conjuncts compare that slot with, its target the member it assigns (both branches of a
conditional; none written: it stays). Actions whose guard tests no phase are listed beside the
picture ("in any phase").
"""

from __future__ import annotations

import math
from collections import Counter

from checker.lang.expr import Binary, Cond, Expr, Lit, SlotRef
from checker.lang.model import Model
from checker.report.html.page import esc


def phase_slot(model: Model) -> str | None:
    candidates = [name for name, slot in model.slots.items()
                  if not slot.dims and slot.elem.type.kind == "enum" and slot.elem.type.domain != "player"]
    counts = Counter(name for action in model.actions.values() for name, _ in _tests(action.guard) if name in candidates)
    return counts.most_common(1)[0][0] if counts else None


def _conjuncts(expr: Expr) -> list[Expr]:
    if isinstance(expr, Binary) and expr.op == "and":
        return _conjuncts(expr.left) + _conjuncts(expr.right)
    return [expr]


def _tests(expr: Expr) -> list[tuple[str, str]]:
    """(slot, member) for each top-level conjunct `slot == member` (either way round)."""
    out = []
    for part in _conjuncts(expr):
        if isinstance(part, Binary) and part.op == "==":
            for a, b in ((part.left, part.right), (part.right, part.left)):
                if isinstance(a, SlotRef) and not a.indices and isinstance(b, Lit):
                    out.append((a.name, str(b.value)))
    return out


def _targets(expr: Expr) -> list[str] | None:
    if isinstance(expr, Lit):
        return [str(expr.value)]
    if isinstance(expr, Cond):
        then, orelse = _targets(expr.then), _targets(expr.orelse)
        return None if then is None or orelse is None else list(dict.fromkeys(then + orelse))
    return None


def phase_edges(model: Model, slot: str) -> tuple[dict[tuple[str, str], list[str]], list[str]]:
    """(source, target) -> action names, and the actions that test no phase."""
    edges: dict[tuple[str, str], list[str]] = {}
    anywhere: list[str] = []
    for name, action in model.actions.items():
        sources = [member for s, member in _tests(action.guard) if s == slot]
        if not sources:
            anywhere.append(name)
            continue
        assigned = [a for a in action.assigns if a.slot == slot and not a.indices]
        for source in sources:
            targets = _targets(assigned[0].value) if assigned else [source]
            for target in targets or ["?"]:
                edges.setdefault((source, target), []).append(name)
    return edges, anywhere


def phase_svg(model: Model) -> str:
    """The picture (and its list of phase-free actions), or a sentence when the model has no phase slot."""
    slot = phase_slot(model)
    if slot is None:
        return '<p class="muted">No phase slot: no action guard tests a scalar enum slot.</p>'
    domain = model.slots[slot].elem.type.domain
    assert domain is not None  # `phase_slot` picks only enum slots, whose type names their domain
    members = [str(v) for v in model.domains[domain].values()]
    edges, anywhere = phase_edges(model, slot)
    used = list(dict.fromkeys([m for m in members if any(m in e for e in edges)] + [n for e in edges for n in e]))
    count = len(used)
    radius = max(120, 28 * count)
    size = 2 * radius + 160
    centre = size / 2
    where = {name: (centre + radius * math.cos(2 * math.pi * i / count - math.pi / 2),
                    centre + radius * math.sin(2 * math.pi * i / count - math.pi / 2)) for i, name in enumerate(used)}
    parts = [f'<svg role="img" aria-label="phases of {esc(model.id)}" viewBox="0 0 {size:.0f} {size:.0f}" width="{min(size, 900):.0f}">',
             '<defs><marker id="arrow-' + esc(model.id) + '" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" markerHeight="7" orient="auto">'
             '<path d="M0,0 L10,5 L0,10 z" fill="#555"/></marker></defs>']
    for (source, target), actions in sorted(edges.items()):
        label = esc(", ".join(actions[:3]) + (f" +{len(actions) - 3}" if len(actions) > 3 else ""))
        title = f"<title>{esc(source)} \u2192 {esc(target)}: {esc(', '.join(actions))}</title>"
        (x1, y1), (x2, y2) = where[source], where[target]
        if source == target:
            dx, dy = (x1 - centre), (y1 - centre)
            norm = math.hypot(dx, dy) or 1
            ox, oy = x1 + 34 * dx / norm, y1 + 34 * dy / norm
            parts.append(f'<g class="edge">{title}<circle cx="{ox:.1f}" cy="{oy:.1f}" r="16" fill="none" stroke="#999"/>'
                         f'<text x="{ox + 18 * dx / norm:.1f}" y="{oy + 18 * dy / norm:.1f}" text-anchor="middle" fill="#555">{label}</text></g>')
            continue
        length = math.hypot(x2 - x1, y2 - y1) or 1
        ux, uy = (x2 - x1) / length, (y2 - y1) / length
        sx, sy, ex, ey = x1 + 22 * ux - 4 * uy, y1 + 22 * uy + 4 * ux, x2 - 22 * ux - 4 * uy, y2 - 22 * uy + 4 * ux  # offset: two-way edges stay apart
        parts.append(f'<g class="edge">{title}<line x1="{sx:.1f}" y1="{sy:.1f}" x2="{ex:.1f}" y2="{ey:.1f}" stroke="#777" '
                     f'marker-end="url(#arrow-{esc(model.id)})"/><text x="{(sx + ex) / 2 - 8 * uy:.1f}" y="{(sy + ey) / 2 + 8 * ux:.1f}" '
                     f'text-anchor="middle" fill="#333">{label}</text></g>')
    for name, (x, y) in where.items():
        parts.append(f'<g class="node"><ellipse cx="{x:.1f}" cy="{y:.1f}" rx="{max(22, 4 * len(name)):.0f}" ry="16" fill="#eef3fb" stroke="#1a56a8"/>'
                     f'<text x="{x:.1f}" y="{y + 4:.1f}" text-anchor="middle" font-weight="600">{esc(name)}</text></g>')
    parts.append("</svg>")
    legend = f'<p class="muted">Phase slot <code>{esc(slot)}</code>; an arrow per phase change, labelled with its actions (hover for all).'
    if anywhere:
        legend += " In any phase: " + ", ".join(f"<code>{esc(a)}</code>" for a in anywhere) + "."
    return "\n".join(parts) + "\n" + legend + "</p>"
