"""The errata page's reference sections: the model's assumptions, the verdict matrix (one line
per property) and the review questions with their answers.

Assumptions and questions come from the model language (`assumptions:` in a model,
`questions.yaml` beside it); they are read with `getattr` so a page can be built from models that
have neither.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from typing import Any

from checker.evidence.results import Result
from checker.lang.model import Model
from checker.report.findings import FAILING, FindingEvidence


def where(r: Result) -> str:
    """A combination in words: the variant, and the reading options that differ from its defaults."""
    return f"`{r.model.id}`" + ("" if r.reading_label == "default" else f" with `{r.reading_label}`")


def located(model: Model, cid: str) -> str:
    """A clause located by the document's own headings (its `at:`), the id kept as a hint."""
    clause = model.clauses.get(cid)
    return clause.at if clause is not None and clause.at else cid


# -- assumptions ------------------------------------------------------------------------------
def assumption_link(aid: str) -> str:
    """A link to an assumption's entry in the page's list of assumptions (anchor `assumption-<id>`)."""
    return f"[`{aid}`](#assumption-{aid})"


def assumptions_section(models: list[Model]) -> list[str]:
    entries: dict[str, tuple[Model, Any]] = {}
    for model in models:
        for item in getattr(model, "assumptions", None) or ():
            entries.setdefault(item.id, (model, item))
    if not entries:
        return ["The models record no assumptions yet (`assumptions:` in a model file)."]
    lines = ["Choices the models make where the text does not settle the point and a reading is not worth it. "
             "Disagree with one and it becomes a reading.", ""]
    for aid, (model, item) in entries.items():
        at = "; ".join(located(model, c) for c in getattr(item, "clauses", ()) or ())
        lines.append(f"- <a id=\"assumption-{aid}\"></a>**{aid}**" + (f" ({at})" if at else "") + f": {item.says}" + (f" *Why:* {item.why}" if getattr(item, "why", "") else ""))
    return lines


# -- verdict matrix ---------------------------------------------------------------------------
def verdict_matrix(results: list[Result]) -> list[str]:
    """One line per property: where it holds, fails or is undecided."""
    by_prop: dict[str, list[Result]] = defaultdict(list)
    for r in results:
        by_prop[r.prop.id].append(r)
    lines = []
    for pid, rs in by_prop.items():
        lines.append(f"- `{pid}` ({rs[0].prop.kind}): {verdict_line(rs)}")
    return lines


def verdict_line(rs: list[Result]) -> str:
    total = len(rs)
    bad = [r for r in rs if r.status in FAILING]
    undecided = [r for r in rs if r.status == "undecided"]
    good = [r for r in rs if r.status == "holds"]
    bounded = " (bounded)" if any(not r.proof for r in good) else ""
    parts = []
    if not bad and not undecided:
        parts.append((f"holds in all {total} combinations" if total != 1 else "holds in its only combination") + bounded)
    elif len(bad) == total:
        parts.append(f"fails in all {total} combinations" if total != 1 else "fails")
    elif bad:
        if len(bad) * 2 > total and not undecided:
            parts.append(f"fails in {len(bad)} of {total} combinations; holds{bounded} only in " + ", ".join(where(r) for r in good))
        else:
            parts.append(f"fails in {len(bad)} of {total} combinations: " + ", ".join(where(r) for r in bad))
    if undecided:
        parts.append(f"undecided within the budget in {len(undecided)}: " + ", ".join(f"{where(r)} ({r.bound})" for r in undecided))
    unexpected = [r for r in rs if not r.matches]
    if unexpected:
        parts.append("*differs from the suite's `expect` in " + ", ".join(where(r) for r in unexpected) + "*")
    return "; ".join(parts)


# -- questions --------------------------------------------------------------------------------
def game_questions(models: list[Model]) -> list[Any]:
    seen: dict[str, Any] = {}
    for model in models:
        for q in getattr(model, "questions", None) or ():
            seen.setdefault(q.id, q)
    return list(seen.values())


def answers_of(models: list[Model], results: list[Result]) -> dict[str, list[str]]:
    """For each question id, what answers it, in words (a reading, an assumption, a property)."""
    out: dict[str, list[str]] = defaultdict(list)
    for model in models:
        for name, reading in model.readings.items():
            for qid in getattr(reading, "answers", ()) or ():
                out[qid].append(f"reading `{name}` ({', '.join(f'`{o}`' for o in reading.options)}; default `{reading.default}`)")
        for item in getattr(model, "assumptions", None) or ():
            for qid in getattr(item, "answers", ()) or ():
                out[qid].append(f"assumption `{item.id}`: {item.says}")
    by_prop: dict[str, list[Result]] = defaultdict(list)
    for r in results:
        by_prop[r.prop.id].append(r)
    for pid, rs in by_prop.items():
        for qid in getattr(rs[0].prop, "answers", ()) or ():
            out[qid].append(f"property `{pid}`: {verdict_line(rs)}")
    return {qid: list(dict.fromkeys(texts)) for qid, texts in out.items()}


def finding_questions(entry: FindingEvidence, models: list[Model]) -> list[str]:
    """The question ids a finding answers: those of its properties and of the readings it names."""
    ids: list[str] = []
    for r in entry.results:
        ids.extend(getattr(r.prop, "answers", ()) or ())
    names = dict.fromkeys(e.partition("=")[0] for e in (entry.finding.readings if entry.finding else ()))  # ordered: pages are byte-stable
    for model in models:
        for name in names:
            if name in model.readings:
                ids.extend(getattr(model.readings[name], "answers", ()) or ())
    return list(dict.fromkeys(ids))


def questions_appendix(models: list[Model], results: list[Result], entries: list[FindingEvidence], anchor: Callable[[FindingEvidence], str]) -> list[str]:
    questions = game_questions(models)
    if not questions:
        return [f"This game has no review questions yet (`models/{models[0].folder}/questions.yaml`)."]
    answers = answers_of(models, results)
    shown_in: dict[str, list[str]] = defaultdict(list)
    for number, entry in enumerate(entries, start=1):
        for qid in finding_questions(entry, models):
            shown_in[qid].append(f"[finding {number}](#{anchor(entry)})")
    lines: list[str] = []
    open_ids = []
    for q in questions:
        at = "; ".join(located(models[0], c) for c in getattr(q, "clauses", ()) or ())
        lines.append(f"- <a id=\"{q.id}\"></a>**{q.question}** ({getattr(q, 'kind', '')}" + (f"; {at}" if at else "") + ")")
        texts = list(answers.get(q.id, []))
        if getattr(q, "out_of_scope", ""):
            texts.append(f"out of scope: {q.out_of_scope}")
        if not texts:
            open_ids.append(q.id)
            texts = ["**open**: nothing in the models answers it yet"]
        for text in texts:
            lines.append(f"  - Answer: {text}")
        if shown_in.get(q.id):
            lines.append(f"  - See {', '.join(shown_in[q.id])}.")
    head = [f"{len(questions)} question(s) a careful reading of the document raises, in the order of the questions file; "
            f"{len(questions) - len(open_ids)} answered, {len(open_ids)} open.", ""]
    return head + lines


# -- clause index ---------------------------------------------------------------------------------
CLAUSE_STATES = ("formalised", "read", "assumed", "out of scope", "not handled")


def clause_states(models: list[Model], results: list[Result]) -> dict[str, dict[str, list[str]]]:
    """Per clause of the game's index, how the models account for it, by state: `formalised` (the
    rules or properties citing it), `read` (the readings that settle it), `assumed` (the
    assumptions that do), `out of scope` (the index's `why`), or `not handled` (nothing: a silent
    choice). A clause can be in several states at once (a rule cites it and a reading qualifies
    it); `out of scope` is given only when no rule or property cites it, `not handled` only when
    nothing does."""
    props: dict[str, list[str]] = defaultdict(list)
    for r in results:
        for cid in r.prop.clauses:
            props[cid].append(f"property `{r.prop.id}`")
    rules: dict[str, list[str]] = defaultdict(list)
    reads: dict[str, list[str]] = defaultdict(list)
    assumed: dict[str, list[str]] = defaultdict(list)
    for model in models:
        for action in model.actions.values():
            for cid in action.all_clauses:
                rules[cid].append(f"rule `{action.name}`")
        for name, reading in model.readings.items():
            for cid in reading.clauses:
                reads[cid].append(f"`{name}`")
        for item in getattr(model, "assumptions", None) or ():
            for cid in item.clauses:
                assumed[cid].append(f"`{item.id}`")
    out: dict[str, dict[str, list[str]]] = {}
    for cid, clause in models[0].clauses.items():
        states = {"formalised": sorted(set(rules[cid])) + sorted(set(props[cid])), "read": sorted(set(reads[cid])), "assumed": sorted(set(assumed[cid]))}
        states = {k: v for k, v in states.items() if v}
        if clause.status == "out-of-scope" and "formalised" not in states:
            states["out of scope"] = [clause.why]  # an assumption may cite it for context (why it needs no rule)
        if not states:
            states = {"not handled": []}
        out[cid] = states
    return out


def clause_index(models: list[Model], results: list[Result]) -> list[str]:
    """One line per clause of the document's index: where it is, and how the models account for it."""
    if not models[0].clauses:
        return [f"This game has no clause index yet (`models/{models[0].folder}/clauses.yaml`)."]
    states = clause_states(models, results)
    counts = {s: sum(1 for st in states.values() if s in st) for s in CLAUSE_STATES}
    head = ["Every clause of the game's clause index, in document order, with how the "
            "models account for it: **formalised** (a rule of the models or a property cites it), **read** (a reading settles "
            "what the text leaves open), **assumed** (an assumption settles it), **out of scope** (with the reason), or "
            "**not handled** (a choice made silently, if any). A clause can be formalised and also read or assumed.", "",
            f"{len(states)} clauses: " + ", ".join(f"{counts[s]} {s}" for s in CLAUSE_STATES) + ".", ""]
    lines = []
    for cid, st in states.items():
        parts = []
        for state, what in st.items():
            if state == "formalised":
                shown = what[:4] + ([f"{len(what) - 4} more"] if len(what) > 4 else [])
                parts.append("formalised (" + ", ".join(shown) + ")")
            elif state == "out of scope":
                parts.append(f"out of scope: {what[0]}")
            elif state == "not handled":
                parts.append("**not handled**")
            else:
                parts.append(f"{state}: " + ", ".join(what))
        lines.append(f"- <a id=\"{cid}\"></a>`{cid}` ({located(models[0], cid)}): " + "; ".join(parts))
    return head + lines
