"""The Readings section of an errata page: per reading, the question, its options, what each
option changes (its class), the divergence scenario with the divergent step under both options
side by side, and the impact table.

`readings(models, results, impacts, rechecks)` returns Markdown lines (the section without its
heading) and the main page's summary rows, from the analyses the pipeline made
(`checker.pipeline.readings`); like the rest of the page it holds no timings, so the same
models give the same bytes. It runs nothing.
"""

from __future__ import annotations

import os
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from checker.analysis.classify import ODDS_CHANGED, ORDER, largest_move, most_severe
from checker.analysis.divergence import Divergence, Side
from checker.analysis.impact import ModelImpact, OptionImpact
from checker.analysis.outcomes import POLICIES, Impact
from checker.analysis.reading_growth import ReadingGrowth
from checker.analysis.size_odds import SizedOption, outcome_words
from checker.evidence.results import Result
from checker.evidence.trace import Trace, narrative, outcomes_after, to_json
from checker.lang.model import Model, Reading
from checker.report.appendix import assumption_link
from checker.report.short_trace import play_in_one_line

CLASS_TEXT = {
    "game-breaking": "game-breaking (changes whether the game can end or get stuck)",
    "outcome-changing": "outcome-changing (changes who can win)",
    "odds-shifting": "odds-shifting (the same outcomes, with other odds)",
    "rules-visible": "rules-visible (legal play differs, outcomes do not)",
    "moot": "moot (no difference in the model)",
}
# A reading the model consults but no explored state tells apart: moot at the checked bounds
# only (Show'n'Go's long Kick past the Dead Ball Line needs one more card to show).
MOOT_EXPLORED = "moot (no difference within the checked bounds)"




@dataclass(frozen=True)
class ReadingRow:
    """One reading in the errata page's summary table: its question, its options, and what each
    option other than the default does to the game, in the game's words."""

    name: str
    question: str
    options: tuple[str, ...]  # "`option` *(default)*: meaning"
    consequences: tuple[str, ...]  # "`option`: changes who can win"

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "question": self.question, "options": list(self.options), "consequences": list(self.consequences)}

    @staticmethod
    def from_json(data: dict[str, Any]) -> ReadingRow:
        return ReadingRow(str(data["name"]), str(data["question"]), tuple(str(o) for o in data["options"]), tuple(str(c) for c in data["consequences"]))


@dataclass(frozen=True)
class ReadingsPart:
    """What the pages take from the impact analysis: the details page's Readings section, the
    main page's table, and the choices of the default rules that never help their taker."""

    section: list[str]
    rows: list[ReadingRow]
    never_help: list[str]  # "in `model`: `action` never helps ..."


def readings(models: list[Model], results: list[Result], impacts: list[ModelImpact], rechecks: dict[tuple[str, str, str], ReadingGrowth],
             sized: dict[tuple[str, str], SizedOption] | None = None) -> tuple[list[str], list[ReadingRow]]:
    """The section's lines (without its heading) and its summary rows, for one game: `results`
    are the game's check results (to say which verdicts each option changes); `impacts` the
    analysis of its models, `rechecks` the growth re-checks of its game-breaking,
    outcome-changing, odds-shifting and (by exploration) moot lines
    (`checker.analysis.reading_growth`), and `sized` its options played at the document's size
    (`checker.analysis.size_odds`), all made by the pipeline (`checker.pipeline.readings`)."""
    sized = sized or {}
    by_prop: dict[str, list[Result]] = defaultdict(list)
    for r in results:
        by_prop[r.prop.id].append(r)
    readings: dict[str, Reading] = {}
    for model in models:
        for name, reading in model.readings.items():
            readings.setdefault(name, reading)
    if not readings:
        return ["The models of this game have no readings."], []
    rows: list[ReadingRow] = []
    lines = [
        "Points where the text is silent or says two things. For each option other than the default, the "
        "checker looks for the shortest play legal under both readings after which they part ways (the "
        "divergence scenario, replayed in the reference interpreter under both), and compares what can "
        "happen under each (the impact table). Probabilities assume a stated policy: at each position every "
        "mover with a legal move is equally likely to go next, chance follows its weights, players choose "
        "uniformly among their moves; the odds are also computed with " + "; and with ".join(f"{p} players (one who {words})" for p, words in POLICIES.items()) + ".",
        "",
    ]
    for name, reading in readings.items():
        model = next(m for m in models if name in m.readings)
        located = "; ".join(dict.fromkeys(model.clauses[c].at if c in model.clauses else c for c in reading.clauses))
        lines += [f'<a id="{name}"></a>', "", f"### `{name}` ({located})", "", reading.question, ""]
        defaults = {m.id: m.readings[name].default for m in models if name in m.readings}
        options = []
        for option, meaning in reading.options.items():
            users = [mid for mid, d in defaults.items() if d == option]
            marker = " *(default)*" if users and len(users) == len(defaults) else (f" *(default in {', '.join(f'`{u}`' for u in users)})*" if users else "")
            options.append(f"`{option}`{marker}: {meaning}")
            lines.append(f"- {options[-1]}")
        lines.append("")
        consequences = []
        for option in reading.options:
            per_model = [(mi, o) for mi in impacts for r in mi.readings if r.reading.name == name for o in r.options if o.option == option]
            if per_model:
                lines += _option_block(name, option, per_model, by_prop, rechecks)
                at_size = sized.get((name, option))
                if at_size is not None:
                    lines += [f"- {size_words(at_size, models)}", ""]
                consequences.append(f"`{option}`: {_consequence(name, option, per_model, rechecks)}" + (f". {size_words(at_size, models, short=True)}" if at_size is not None else ""))
        rows.append(ReadingRow(name, reading.question, tuple(options), tuple(consequences)))
    return lines, rows


def size_words(sized: SizedOption, models: list[Model], short: bool = False) -> str:
    """What an option does at the document's size, in one sentence: the outcomes whose shares
    move beyond the games' noise, a change of the games' mean length, or that nothing moved
    beyond that noise (with its width); and, first, when many games do not end at that size
    or meet a modelling error, that they do. `short`: the table's form, without the sizes."""
    model = next(m for m in models if m.id == sized.model)
    where = f"in `{sized.model}`, " if len(models) > 1 else ""
    sizes = "" if short or not sized.sizes else f" ({', '.join(sized.sizes)})"
    head = f"At the document's size{sizes}, {where}"
    if sized.error:
        return f"{head}not played: {sized.error}"
    assert sized.base is not None and sized.alt is not None
    warnings = []
    if sized.base.not_ending() >= ENDLESS_NOTED:
        warnings.append(f"under the default {_percent(sized.base.not_ending())} of games do not end")
    errored = next((p.error for p in (sized.base, sized.alt) if p.error), "")
    if errored:
        warnings.append(f"some games stop at a modelling error ({errored})")
    moved = [f"{outcome_words(name, model)} {_percent(a)} \u2192 {_percent(b)}" for name, a, b in sized.shifts()]
    length = sized.length_change()
    if length is not None:
        moved.append(f"games that end last {length[0]:.0f} \u2192 {length[1]:.0f} steps on average")
    games = f"{sized.base.games:,} seeded random games each"
    if not moved:
        said = [f"about \u00b1{max(1, round(sized.noise()))} points", *warnings]
        return f"{head}no shift of a point or more beyond the noise of {games} ({'; '.join(said)})"
    return f"{head}{'; '.join(moved)} ({'; '.join([games + ', 95% intervals apart', *warnings])})"


def _percent(share: float) -> str:
    return "under 1 %" if 0 < share < 0.005 else f"{round(share * 100)} %"


ENDLESS_NOTED = 0.2  # a default whose games do not end this often at the document's size is said to (its odds mean little)


CONSEQUENCE_WORDS = {
    "game-breaking": "can stall or never end",
    "outcome-changing": "changes who can win",
    "odds-shifting": "changes the odds",
    "rules-visible": "no effect on who wins or whether the game ends (legal play differs)",
    "moot": "no effect on the game",
}


def _consequence(name: str, option: str, per_model: list[tuple[ModelImpact, OptionImpact]], rechecks: dict[tuple[str, str, str], ReadingGrowth]) -> str:
    """An option's most severe consequence over the models, in the game's words: what it does to
    the game (the odds by whole points), the models it does it in when not all, and whether the
    larger bounds showed it to be an artefact of the checked ones."""
    by_class: dict[str, list[str]] = defaultdict(list)
    artefacts = []
    for mi, o in per_model:
        recheck = rechecks.get((mi.model.id, name, option))
        if recheck is not None and recheck.artefact:
            artefacts.append(mi.model.id)
            continue
        by_class[o.classification].append(mi.model.id)
    if not by_class:
        return "none at larger bounds: an artefact of the checked ones"
    worst = most_severe(list(by_class))
    if worst == "moot":
        return _moot_consequence(per_model)
    words = CONSEQUENCE_WORDS[worst]
    if worst == "outcome-changing":
        reasons = [r for mi, o in per_model if o.classification == worst for r in o.reasons if "odds change" not in r]
        if reasons and all("force a win" in r for r in reasons):
            words = "changes who can force a win"
    elif worst == "odds-shifting":
        shifting = [(mi, o) for mi, o in per_model if o.classification == worst]
        words = _odds_words(max(_largest_shift(mi.impact, o.impact) for mi, o in shifting),
                            {policy: max(_largest_shift(mi.impact, o.impact, policy) for mi, o in shifting) for policy in POLICIES})
    models_with = by_class[worst]
    where = "" if len(models_with) == len(per_model) else " (in " + ", ".join(f"`{m}`" for m in models_with) + ")"
    return words + where


def _moot_consequence(per_model: list[tuple[ModelImpact, OptionImpact]]) -> str:
    """A moot option's consequence: none, with how far that was checked, or what it does once a
    reading that gates it is at another option (the pairs `moot_in_pairs` re-checked)."""
    paired = [(mi, p) for mi, o in per_model for p in o.paired]
    if paired:
        worst = most_severe([p.classification for _, p in paired])
        shown = next(p for _, p in paired if p.classification == worst)
        where = sorted({f"`{mi.model.id}`" for mi, p in paired if p.classification == worst})
        effect = CONSEQUENCE_WORDS[worst]
        return (f"no effect with the other readings at their defaults; with `{shown.partner[0]}={shown.partner[1]}` it "
                f"{'has ' if effect.startswith('no effect') else ''}{effect}" + ("" if len(where) == len(per_model) else f" (in {', '.join(where)})"))
    checked = sum(o.pairs_checked for _, o in per_model)
    return CONSEQUENCE_WORDS["moot"] + (f" (also beside each of the {checked} other option(s) of the readings that gate it)" if checked else "")


def _odds_words(uniform: float, by_policy: dict[str, float]) -> str:
    """How far the odds move, in whole points: with uniform players, then with the sensible
    players of `outcomes.POLICIES` where they were computed."""
    others = [f"{_points(shift)} with {policy} players" for policy, shift in by_policy.items() if shift > 0]
    return f"changes the odds by {_points(uniform)}" + (f" ({'; '.join(others)})" if others else "")


def _points(shift: float) -> str:
    """A move of the odds in whole points: a designer's resolution (the toy decks' hundredths
    of a point are no answer)."""
    whole = round(shift)
    return f"about {whole} point{'' if whole == 1 else 's'}" if shift >= 1 else "under a point"


def _largest_shift(base: Impact, alt: Impact | None, policy: str = "") -> float:
    """The largest move of an outcome's probability, in percentage points (0 without both),
    with uniform players or under `policy`."""
    before, after = _odds_under(base, alt, policy)
    return largest_move(before, after)[0] if before is not None and after is not None else 0.0


def _odds_under(base: Impact, alt: Impact | None, policy: str) -> tuple[dict[str, float] | None, dict[str, float] | None]:
    if alt is None:
        return None, None
    if policy:
        return base.by_policy.get(policy), alt.by_policy.get(policy)
    return base.probabilities, alt.probabilities


def _reason_words(reasons: list[str], base: Impact, alt: Impact | None) -> list[str]:
    """An option's reasons as the page gives them: a move of the odds by its largest shift in
    whole points and the outcomes that make it (every outcome's odds are in the impact table,
    and in full from `rulecheck readings`); other reasons as the analysis gave them."""
    words = []
    for reason in reasons:
        policy = next((p for p in POLICIES if reason.startswith(f"with {p} players, {ODDS_CHANGED}")), "")
        before, after = _odds_under(base, alt, policy)
        if not (policy or reason.startswith(ODDS_CHANGED)) or before is None or after is None:
            words.append(reason)
            continue
        size, names = largest_move(before, after)
        words.append((f"with {policy} players, " if policy else "") + f"the odds move by {_points(size)} ({', '.join(names)})")
    return words


def _option_block(name: str, option: str, per_model: list[tuple[ModelImpact, OptionImpact]], by_prop: dict[str, list[Result]],
                  rechecks: dict[tuple[str, str, str], ReadingGrowth]) -> list[str]:
    several = len(per_model) > 1
    lines = [f"**`{name}={option}`**", ""]
    said: dict[str, list[str]] = {}  # a line's words -> the models it is said of (identical lines once)
    for mi, o in per_model:
        recheck = rechecks.get((mi.model.id, name, option))
        label = CLASS_TEXT[o.classification]
        if o.classification == "moot" and not any("consults this reading" in r for r in o.reasons):
            label = MOOT_EXPLORED  # the model does consult it: no state of these bounds shows it, a larger one may
        if recheck is not None and recheck.artefact:
            label = "moot with the checked bounds only" if recheck.moot else f"bound artefact ({o.classification} with the checked bounds only)"
        growth = f"; growth re-check: {recheck.words()}" if recheck is not None else ""
        said.setdefault(f"**{label}**: {'; '.join(_reason_words(o.reasons, mi.impact, o.impact))}{growth}", []).append(mi.model.id)
    for words, ids in said.items():
        where = f"in {', '.join(f'`{m}`' for m in ids)}: " if several else ""
        lines.append(f"- {where}{words}")
    for mi, o in per_model:
        where = f"in `{mi.model.id}`, " if several else ""
        if o.pairs_checked and not o.paired:
            lines.append(f"- {where}beside each of the {o.pairs_checked} other option(s) of the readings that gate it: still moot")
        for paired in o.paired:
            lines.append(f"- {where}with `{paired.partner[0]}={paired.partner[1]}`: **{CLASS_TEXT[paired.classification]}**: {'; '.join(paired.reasons)}")
    verdicts = _verdict_changes(name, option, by_prop, several)
    if verdicts:
        lines.append(f"- property verdicts: {'; '.join(verdicts)}")
    lines.append("")
    shown = [(mi, o, o.divergence) for mi, o in per_model if o.divergence is not None and o.divergence.found]
    if shown:
        mi, o, _ = min(shown, key=lambda item: (item[2].steps, item[0].model.id))
        lines += _scenario(mi, o, several)
        if o.impact is not None:
            lines += _impact_table(mi.impact, o.impact, "default", o.config.reading_label(mi.model))
    pairs = [(mi, p) for mi, o in per_model for p in o.paired]
    if pairs:  # the play that shows the moot option mattering beside its partner, and both games compared
        mi, p = min(pairs, key=lambda item: (ORDER.index(item[1].classification), item[1].divergence.steps, item[0].model.id))
        beside = f"{p.partner[0]}={p.partner[1]}"
        lines += page_scenario(p.divergence, f" with `{beside}`" + (f" in `{mi.model.id}`" if several else ""))
        alone = next((o for r in mi.readings for o in r.options if (o.reading, o.option) == p.partner), None)
        base = alone.impact if alone is not None and alone.impact is not None else mi.impact
        if p.impact is not None:
            lines += _impact_table(base, p.impact, beside, f"{beside},{name}={option}")
    return lines


def _scenario(mi: ModelImpact, o: OptionImpact, several: bool) -> list[str]:
    assert o.divergence is not None, "only options with a divergence get a scenario"
    command = f"rulecheck readings models/{mi.model.folder}/{os.path.basename(mi.model.path)} --between {o.reading}={o.option}"
    return page_scenario(o.divergence, f" in `{mi.model.id}`" if several else "", command)


def page_scenario(divergence: Divergence, where: str = "", command: str = "") -> list[str]:
    """A divergence scenario as the page gives it: the common play in one paragraph
    (`play_in_one_line`), with the `command` that prints it step by step, then the divergent
    step under both side by side."""
    if not divergence.found:
        return [f"No divergence{where}: {divergence.bound}.", ""]
    assert divergence.trace is not None, "a divergence found has its trace"
    prints = f"; `{command}` prints it step by step" if command else ""
    head = f"*Divergence scenario*{where} ({_steps(divergence)} legal under both readings, replayed in the reference interpreter under each{prints}):"
    return [f"{head} {play_in_one_line(to_json(divergence.trace), assumption_link)}", "", *_divergent_step(divergence)]


def scenario_lines(divergence: Divergence, where: str = "", assumption_link: Callable[[str], str] | None = None) -> list[str]:
    """A divergence scenario in full (`rulecheck readings --between`): the common play step by
    step, then the divergent step under both side by side; `assumption_link` links an
    assumption the play rests on to the page's list (without it, their texts follow the play)."""
    if not divergence.found:
        return [f"No divergence{where}: {divergence.bound}.", ""]
    lines = [f"*Divergence scenario*{where} ({_steps(divergence)} legal under both readings, replayed in the reference interpreter under each):", ""]
    assert divergence.trace is not None, "a divergence found has its trace"
    doc = to_json(divergence.trace)
    doc["note"], doc["property"]["says"] = "", ""
    body = narrative(doc, assumption_link).splitlines()
    start = next(i for i, line in enumerate(body) if line.startswith("0. Start"))
    lines += [line for line in body[start:] if line.strip()]
    return lines + ["", *_divergent_step(divergence)]


def _steps(divergence: Divergence) -> str:
    return f"{divergence.steps} step{'s' if divergence.steps != 1 else ''}"


def _divergent_step(divergence: Divergence) -> list[str]:
    """Where the two readings part: the analysis's summary, then a table of the divergent step
    under each."""
    assert divergence.trace is not None and divergence.sides is not None, "a divergence found has its trace and its two sides"
    lines = [divergence.summary, ""]
    a, b = divergence.sides
    lines += [f"| at the divergent step | under `{a.label}` | under `{b.label}` |", "|---|---|---|"]
    lines.append(f"| game over | {_over(a)} | {_over(b)} |")
    if a.steps or b.steps:
        lines.append(f"| {_moves_heading(divergence.kind)} | {_moves(a, divergence.trace)} | {_moves(b, divergence.trace)} |")
    if a.error or b.error:
        lines.append(f"| modelling error | {a.error or 'none'} | {b.error or 'none'} |")
    lines.append("")
    return lines


def _over(side: Side) -> str:
    if not side.terminal:
        return "no"
    return f"yes ({side.outcome})" if side.outcome is not None else "yes"


def _moves_heading(kind: str) -> str:
    return {"result": "the same move's result", "moves": "moves enabled under this reading only", "terminal": "moves"}.get(kind, "moves")


def _moves(side: Side, trace: Trace) -> str:
    if not side.steps:
        return "none"
    parts = [f"{step.text}: {shown}".replace("|", "\\|") for step, shown in zip(side.steps, outcomes_after(trace, side.steps))]
    if side.more:
        parts.append(f"and {side.more} more")
    return "<br>".join(parts)


def _impact_table(base: Impact, alt: Impact, base_label: str, alt_label: str) -> list[str]:
    """What can happen under each reading, in one row per question: the outcomes, whether the
    game ends (can end, stuck states, longest game), the odds in whole percent, forced wins,
    and how far it was explored (`rulecheck readings` gives the odds in full)."""
    rows = [("reachable outcomes", _outcomes(base), _outcomes(alt)), ("ending", _ending(base), _ending(alt))]
    if base.probabilities or alt.probabilities:
        names = sorted(set(base.probabilities or {}) | set(alt.probabilities or {}))
        rows.append(("odds", _odds(base, names), _odds(alt, names)))
    sides = {f.side for f in base.forced} | {f.side for f in alt.forced}
    for side in sorted(sides):
        rows.append((f"{side} can force a win (chance against / with)", _forced(base, side), _forced(alt, side)))
    rows.append(("explored", base.bound, alt.bound))
    lines = [f"| impact | `{base_label}` | `{alt_label}` |", "|---|---|---|"]
    lines += [f"| {label} | {x} | {y} |" for label, x, y in rows]
    methods = list(dict.fromkeys(m for m in (base.method, alt.method) if m))
    return lines + ["", f"*Probabilities: {'; '.join(methods)}.*", ""]


def _ending(impact: Impact) -> str:
    return f"can always still end: {_flag(impact.can_end)}; stuck states: {impact.stuck_states}; longest game: {_longest(impact)}"


def _odds(impact: Impact, names: list[str]) -> str:
    return ", ".join(f"{name} {_probability(impact, name)}" for name in names) if impact.probabilities else "not computed"


def _outcomes(impact: Impact) -> str:
    text = ", ".join(sorted(impact.outcomes)) or "none"
    return text if impact.complete else f"{text} (seen within the bound)"


def _flag(flag: bool | None) -> str:
    return "not decided" if flag is None else ("yes" if flag else "**no**")


def _longest(impact: Impact) -> str:
    if impact.endless is None:
        return "not decided"
    return "infinite (a play can go on forever)" if impact.endless else f"{impact.longest} steps"


def _probability(impact: Impact, name: str) -> str:
    """An outcome's probability in whole percent; an estimate as its 95% interval."""
    if impact.intervals is not None:
        lo, hi = impact.intervals.get(name, (0.0, 0.0))
        return f"{_percent(lo)}\u2013{_percent(hi)} (estimate)"
    return _percent((impact.probabilities or {}).get(name, 0.0))


def _forced(impact: Impact, side: str) -> str:
    found = next((f for f in impact.forced if f.side == side), None)
    return f"{found.chance_adversarial} / {found.chance_cooperative}" if found else "n/a"


def _verdict_changes(name: str, option: str, by_prop: dict[str, list[Result]], several: bool) -> list[str]:
    """Properties whose verdict under this single deviation differs from the default's."""
    out = []
    for pid, results in by_prop.items():
        for r in results:
            diffs = [(n, o) for n, o in r.config.readings.items() if r.model.readings[n].default != o]
            if diffs != [(name, option)]:
                continue
            default = next((d for d in results if d.model.id == r.model.id and d.reading_label == "default"), None)
            if default is None or default.status == r.status:
                continue
            verb = "breaks" if r.status in ("fails", "error") else ("repairs" if default.status in ("fails", "error") else f"{default.status}\u2192{r.status}")
            out.append(f"{verb} `{pid}`" + (f" in `{r.model.id}`" if several else ""))
    return sorted(set(out))
