"""The `rulecheck lint` table: a row per model (size, clause coverage, questions answered,
unexplained tests) and the notes printed under it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.table import Table

from checker.errors import RulecheckError
from checker.lang.model import Model
from checker.lint.checks import restating_properties, summarise
from checker.lint.citations import game_citation_problems
from checker.lint.explained import unexplained

if TYPE_CHECKING:
    from checker.lint.scope import LintScope


def lint_table(scopes: list[LintScope], details: bool) -> tuple[Table, list[str]]:
    """The lint table of what `scopes` lint and its notes; the first citation error is raised."""
    table = Table(title="rulecheck lint", header_style="bold")
    for column in ("game", "model", "slots", "state bits", "actions", "readings", "assumptions", "clauses", "formalised", "assumed", "out of scope", "not yet handled", "accounted", "questions", "answered", "unexplained tests"):
        table.add_column(column, justify="left" if column in ("game", "model") else "right")
    notes: list[str] = []
    for scope in scopes:
        game = scope.game
        errors, warnings = ([p for p in found if scope.owns(p.loc)] for found in game_citation_problems(scope.citing))
        if errors:
            hint = None if errors[0].kind == "section" else "a `cite` entry names the clauses of one branch: its `when` must be able to hold in some model, and its clauses differ from `rule`"
            raise RulecheckError(errors[0].message, errors[0].loc, None, hint)
        notes.extend(f"{game.folder}: warning: {p.message} ({p.loc})" for p in warnings)
        for model in game.models:
            summary = summarise(model, game.suite)
            cov, qs = summary.coverage, summary.questions
            loose = unexplained(model)
            name = model.id + (" (abstract)" if model.abstract else "")
            questions = str(qs.total) if model.questions else "-"
            answered = f"{qs.answered_percent:.0f}%" if model.questions else "-"
            table.add_row(game.folder, name, str(len(model.slots)), str(summary.bits), str(len(model.actions)), str(len(model.readings)), str(len(model.assumptions)), str(cov.total), str(len(cov.formalised)), str(len(cov.assumed)), str(len(cov.out_of_scope)), str(len(cov.unhandled)), f"{cov.accounted_percent:.0f}%", questions, answered, str(len(loose)))
            where = f"{game.folder}/{model.id}"
            sizes = document_sizes(model)
            if sizes:
                notes.append(f"{where}: {sizes}")
            for pid, reading in restating_properties(model, game.suite) if not model.abstract else []:
                notes.append(f"{where}: warning: property `{pid}` names reading `{reading}`: it restates the reading's choice, not a consequence for the game")
            if cov.unhandled:
                notes.append(f"{where}: not yet handled: {', '.join(cov.unhandled)}")
            if qs.open:
                notes.append(f"{where}: open questions: {', '.join(qs.open)}")
            if details:
                notes.extend(f"{where}: {qid} answered by {', '.join(who)}" for qid, who in qs.answered.items())
                by_action: dict[str, list[str]] = {}
                for item in loose:
                    by_action.setdefault(item.action, []).append(item.name)
                notes.extend(f"{where}: heuristic: `{action}` tests {', '.join(names)}, which no cited clause, reading or assumption mentions" for action, names in by_action.items())
    return table, notes


def document_sizes(model: Model) -> str:
    """The model's constants scaled down from the document's numbers (by how much), the numbers
    the modeller chose (with their plausible range), and the bounds that say neither."""
    scaled, invented, silent = [], [], []
    for name, const in model.constants.items():
        if const.scaled:
            scaled.append(f"{name} {_value(const.default)} (document {_value(const.document)})")
        elif const.invented:
            assert const.plausible is not None
            invented.append(f"{name} {_value(const.default)} (plausible {const.plausible[0]}..{const.plausible[1]})")
        elif const.bound and const.document is None:
            silent.append(name)
    parts = ([f"scaled down: {', '.join(scaled)}"] if scaled else []) + ([f"invented: {', '.join(invented)}"] if invented else [])
    parts += [f"bounds with no document value: {', '.join(silent)}"] if silent else []
    return "; ".join(parts)


def _value(value: object) -> str:
    if isinstance(value, dict):
        return "{" + ", ".join(f"{'/'.join(map(str, k))}: {v}" for k, v in value.items()) + "}"
    return str(value)
