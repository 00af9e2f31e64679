"""The errata page's Readings section: every reading, its options, and which verdicts each
single change from the default combination breaks or repairs.

Kept apart from the page so a richer reading-impact renderer can replace `readings_section`
without touching the rest of the page.
"""

from __future__ import annotations

from collections import defaultdict

from checker.lang.model import Model
from checker.results import Result


def readings_section(models: list[Model], results: list[Result]) -> list[str]:
    """The section's lines (without its heading)."""
    by_prop: dict[str, list[Result]] = defaultdict(list)
    for r in results:
        by_prop[r.prop.id].append(r)
    lines = ["Points where the text is silent or says two things. Each property is checked under the default "
             "reading of every point and under each single change from it.", ""]
    readings = {}
    for model in models:
        for name, reading in model.readings.items():
            readings.setdefault(name, reading)
    if not readings:
        return ["The models of this game have no readings."]
    for name, reading in readings.items():
        changes = []
        for pid, rs in by_prop.items():
            for r in rs:
                deviation = only_deviation(r)
                if deviation is None or deviation[0] != name:
                    continue
                effect = _effect(r, rs)
                if effect:
                    changes.append(f"`{deviation[1]}` {effect} {pid}" + ("" if len(models) == 1 else f" in `{r.model.id}`"))
        model = next(m for m in models if name in m.readings)
        located = "; ".join(dict.fromkeys(model.clauses[c].at if c in model.clauses else c for c in reading.clauses))
        lines.append(f"- **{name}** ({located}): {reading.question}")
        defaults = {m.id: m.readings[name].default for m in models if name in m.readings}
        for option, meaning in reading.options.items():
            users = [mid for mid, d in defaults.items() if d == option]
            if users and len(users) == len(defaults):
                marker = " *(default)*"
            elif users:
                marker = f" *(default in {', '.join(f'`{u}`' for u in users)})*"
            else:
                marker = ""
            lines.append(f"  - `{option}`{marker}: {meaning}")
        if changes:
            lines.append(f"  - Outcome-changing: {'; '.join(sorted(set(changes)))}.")
    return lines


def _effect(result: Result, results: list[Result]) -> str | None:
    """'breaks' or 'repairs' when this result's verdict differs from its model's default
    combination (for the same property), else None."""
    default = next((d for d in results if d.model.id == result.model.id and d.reading_label == "default"), None)
    if default is None or default.status == result.status:
        return None
    if result.status in ("fails", "error") and default.status == "holds":
        return "breaks"
    if result.status == "holds" and default.status in ("fails", "error"):
        return "repairs"
    return None


def only_deviation(result: Result) -> tuple[str, str] | None:
    """The (reading, option) by which a result's combination differs from the defaults, when
    it differs in exactly one reading."""
    diffs = [(n, o) for n, o in result.config.readings.items() if result.model.readings[n].default != o]
    return diffs[0] if len(diffs) == 1 else None
