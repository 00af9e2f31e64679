"""What `rulecheck lint` reports about a model: its size and its clause coverage."""

from __future__ import annotations

from dataclasses import dataclass

from checker.lang.layout import Layout
from checker.lang.model import Model


@dataclass(frozen=True)
class Coverage:
    """How much of the rule document a model accounts for."""

    formalised: tuple[str, ...]
    out_of_scope: tuple[str, ...]
    unhandled: tuple[str, ...]

    @property
    def total(self) -> int:
        return len(self.formalised) + len(self.out_of_scope) + len(self.unhandled)

    @property
    def accounted_percent(self) -> float:
        return 100.0 * (len(self.formalised) + len(self.out_of_scope)) / self.total if self.total else 100.0


def cited_clauses(model: Model, property_citations: set[str] | frozenset[str] = frozenset()) -> set[str]:
    """Clause ids cited by the model's actions and readings, and by its properties."""
    cited = set(property_citations)
    for action in model.actions.values():
        cited.update(action.rule)
    for reading in model.readings.values():
        cited.update(reading.clauses)
    return cited


def coverage(model: Model, property_citations: set[str] | frozenset[str] = frozenset()) -> Coverage:
    cited = cited_clauses(model, property_citations)
    formalised, out, unhandled = [], [], []
    for cid, clause in model.clauses.items():
        if cid in cited:
            formalised.append(cid)
        elif clause.status == "out-of-scope":
            out.append(cid)
        else:
            unhandled.append(cid)
    return Coverage(tuple(formalised), tuple(out), tuple(unhandled))


@dataclass(frozen=True)
class LintSummary:
    model: Model
    bits: int
    coverage: Coverage


def summarise(model: Model, property_citations: set[str] | frozenset[str] = frozenset()) -> LintSummary:
    return LintSummary(model, Layout(model).bits, coverage(model, property_citations))
