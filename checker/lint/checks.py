"""What `rulecheck lint` reports about a model: its size, its clause coverage and how many of
its game's review questions it answers."""

from __future__ import annotations

from dataclasses import dataclass

from checker.errors import RulecheckError, did_you_mean
from checker.lang.layout import Layout
from checker.lang.model import Model
from checker.lang.properties import Property


@dataclass(frozen=True)
class Coverage:
    """How much of the rule document a model accounts for."""

    formalised: tuple[str, ...]
    assumed: tuple[str, ...]
    out_of_scope: tuple[str, ...]
    unhandled: tuple[str, ...]

    @property
    def total(self) -> int:
        return len(self.formalised) + len(self.assumed) + len(self.out_of_scope) + len(self.unhandled)

    @property
    def accounted_percent(self) -> float:
        return 100.0 * (self.total - len(self.unhandled)) / self.total if self.total else 100.0


def cited_clauses(model: Model, property_citations: set[str] | frozenset[str] = frozenset()) -> set[str]:
    """Clause ids cited by the model's actions (every branch) and readings, and by its properties."""
    cited = set(property_citations)
    for action in model.actions.values():
        cited.update(action.all_clauses)
    for reading in model.readings.values():
        cited.update(reading.clauses)
    return cited


def coverage(model: Model, property_citations: set[str] | frozenset[str] = frozenset()) -> Coverage:
    """Each clause is formalised (cited by an action, reading or property), assumed (settled by
    one of the model's assumptions only), out of scope (`status: out-of-scope`), or not yet
    handled. A clause marked `status: assumed` that no assumption cites is not yet handled."""
    cited = cited_clauses(model, property_citations)
    assumed_ids = {cid for a in model.assumptions for cid in a.clauses}
    formalised, assumed, out, unhandled = [], [], [], []
    for cid, clause in model.clauses.items():
        if cid in cited:
            formalised.append(cid)
        elif cid in assumed_ids:
            assumed.append(cid)
        elif clause.status == "out-of-scope":
            out.append(cid)
        else:
            unhandled.append(cid)
    return Coverage(tuple(formalised), tuple(assumed), tuple(out), tuple(unhandled))


@dataclass(frozen=True)
class QuestionCoverage:
    """Which of the game's review questions the model answers (see docs/language.md)."""

    answered: dict[str, tuple[str, ...]]  # question id -> what answers it ("reading tie", ...)
    open: tuple[str, ...]

    @property
    def total(self) -> int:
        return len(self.answered) + len(self.open)

    @property
    def answered_percent(self) -> float:
        return 100.0 * len(self.answered) / self.total if self.total else 100.0


def answers(model: Model, suite: list[Property]) -> dict[str, list[str]]:
    """What answers each question id named anywhere (readings, assumptions, properties, and the
    question's own `out_of_scope`). Raises a located error for an answer naming no question."""
    known = {q.id: q for q in model.questions}
    out: dict[str, list[str]] = {q.id: [] for q in model.questions}
    sources = [(f"reading `{r.name}`", r.answers, r.loc) for r in model.readings.values()]
    sources += [(f"assumption `{a.id}`", a.answers, a.loc) for a in model.assumptions]
    sources += [(f"property `{p.id}`", p.answers, p.loc) for p in suite]
    for who, ids, loc in sources:
        for qid in ids:
            if qid not in known:
                hint = did_you_mean(qid, known) or ("the game has no questions.yaml" if not known else "question ids are those of the game's questions.yaml")
                raise RulecheckError(f"{who} answers `{qid}`, which is not a question of this game", loc, qid, hint)
            out[qid].append(who)
    for question in model.questions:
        if question.out_of_scope:
            out[question.id].append("out of scope")
    return out


def question_coverage(model: Model, suite: list[Property]) -> QuestionCoverage:
    found = answers(model, suite)
    answered = {qid: tuple(who) for qid, who in found.items() if who}
    return QuestionCoverage(answered, tuple(qid for qid, who in found.items() if not who))


@dataclass(frozen=True)
class LintSummary:
    model: Model
    bits: int
    coverage: Coverage
    questions: QuestionCoverage


def summarise(model: Model, suite: list[Property]) -> LintSummary:
    cited = {cid for prop in suite for cid in prop.clauses}
    return LintSummary(model, Layout(model).bits, coverage(model, cited), question_coverage(model, suite))


def restating_properties(model: Model, suite: list[Property]) -> list[tuple[str, str]]:
    """The suite's properties of this model whose expressions name a reading: (property id,
    reading). Such a property restates what a reading chooses ("fails in 28 of 30 combinations"
    by construction) and is no evidence of what the choice does to the game; a finding needs a
    consequence instead (who can win, whether the game ends, what the text promises elsewhere)."""
    from checker.errors import RulecheckError
    from checker.lang.expr import ReadingRef, walk
    from checker.lang.properties import bind

    out: list[tuple[str, str]] = []
    for prop in suite:
        if not prop.applies_to(model):
            continue
        try:
            bound = bind(prop, model)
        except RulecheckError:
            continue  # a property of another variant's names: lint of that variant reports it
        exprs = [e for e in (bound.expr, bound.source, bound.target, bound.measure) if e is not None]
        names = sorted({node.name for e in exprs for node in walk(e) if isinstance(node, ReadingRef)})
        out.extend((prop.id, name) for name in names)
    return out
