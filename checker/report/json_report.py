"""`rulecheck check --format json`: every result, for machines."""

from __future__ import annotations

from typing import Any

from checker.evidence.results import Result
from checker.evidence.trace import jsonable_constants, to_json


def result_json(result: Result) -> dict[str, Any]:
    return {
        "game": result.model.folder,
        "variant": result.model.id,
        "property": result.prop.id,
        "kind": result.prop.kind,
        "reading": result.reading_label,
        "readings": result.config.readings,
        "verdict": result.status,
        # free constants or readings: the verdict is about "every" configuration or "some" (the
        # one in `constants` and `readings`); null for one configuration
        "configurations": result.quantifier or None,
        "constants": jsonable_constants(result.config.constants) if result.quantifier == "some" else None,
        "proof": result.proof if result.status == "holds" else None,
        "expected": result.expected,
        "matches": result.matches,
        "engine": result.engine,
        "bound": result.bound,
        "states": result.states,
        "transitions": result.transitions,
        "depth": result.depth,
        "seconds": round(result.seconds, 3),
        "reused": result.reused,  # the verdict came from the verdict cache (seconds 0: nothing explored for it)
        "detail": result.detail,
        "trace": to_json(result.trace) if result.trace else None,
        "witnesses": [to_json(w) for w in result.witnesses],
        "growth": [{"finding": g.finding, "outcome": str(g.outcome)} for g in result.growth],
        "values": [v.to_json() for v in result.values],
        "document_size": [{"finding": c.finding, "sizes": list(c.sizes), "invented": list(c.invented), "games": c.games, "hits": c.hits, "states": c.states, "found": c.found,
                           "guided": c.guided, "reason": c.reason} for c in result.sizes],
    }


def results_json(results: list[Result]) -> dict[str, Any]:
    """The results and the findings they show (the findings let a later run compare with this one)."""
    from checker.report.baseline import findings_json

    mismatches = sum(1 for r in results if not r.matches)
    return {"format": "rulecheck-results", "version": 1, "results": [result_json(r) for r in results], "findings": findings_json(results), "unexpected": mismatches}
