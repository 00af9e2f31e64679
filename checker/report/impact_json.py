"""`rulecheck readings --format json`: the reading-impact analysis, for machines."""

from __future__ import annotations

from typing import Any

from checker.analysis.divergence import Divergence, Side
from checker.analysis.impact import ModelImpact, OptionImpact
from checker.evidence.trace import Step, to_json


def _step(step: Step) -> dict[str, Any]:
    return {
        "action": step.action, "by": step.actor, "params": step.params, "text": step.text,
        "clauses": [cid for cid, _ in step.clauses],
        "changes": [{"element": n, "before": b, "after": a} for n, b, a in step.changes],
    }


def _side(side: Side) -> dict[str, Any]:
    return {
        "reading": side.label, "terminal": side.terminal, "outcome": side.outcome, "error": side.error or None,
        "moves": [_step(s) for s in side.steps], "more_moves": side.more,
    }


def divergence_json(divergence: Divergence | None) -> dict[str, Any] | None:
    if divergence is None:
        return None
    out: dict[str, Any] = {
        "found": divergence.found, "kind": divergence.kind or None, "summary": divergence.summary or None,
        "steps": divergence.steps if divergence.found else None, "states": divergence.states,
        "bound": None if divergence.found else divergence.bound,
    }
    if divergence.found and divergence.trace is not None:
        assert divergence.sides is not None  # `checker.analysis.divergence` sets the sides with the trace
        out["trace"] = to_json(divergence.trace)
        out["at_divergence"] = {"default": _side(divergence.sides[0]), "option": _side(divergence.sides[1])}
    return out


def _option(option: OptionImpact, meaning: str) -> dict[str, Any]:
    return {
        "option": option.option, "meaning": meaning, "readings": dict(sorted(option.config.readings.items())),
        "classification": option.classification, "reasons": option.reasons,
        "divergence": divergence_json(option.divergence),
        "impact": option.impact.to_json() if option.impact is not None else None,
    }


def model_impact_json(result: ModelImpact) -> dict[str, Any]:
    model = result.model
    return {
        "game": model.folder, "variant": model.id, "default_readings": dict(sorted(result.baseline.readings.items())),
        "impact": result.impact.to_json(), "cpu_seconds": round(result.seconds, 3),
        "readings": [
            {
                "reading": r.reading.name, "question": r.reading.question, "clauses": list(r.reading.clauses),
                "default": result.baseline.readings[r.reading.name], "classification": r.classification,
                "options": [_option(o, r.reading.options[o.option]) for o in r.options],
            }
            for r in result.readings
        ],
        "pairs": [
            {
                "options": [f"{n}={o}" for n, o in pair.options], "interacts": pair.interacts,
                "effect": sorted(pair.effect), "union_of_single_effects": sorted(pair.union),
                "impact": pair.impact.to_json() if pair.impact is not None else None,
            }
            for pair in result.pairs
        ],
    }


def impacts_json(results: list[ModelImpact]) -> dict[str, Any]:
    return {"format": "rulecheck-readings", "version": 1, "models": [model_impact_json(r) for r in results]}
