"""Interactions of readings in a check's results (`rulecheck check --readings pairs`).

The effect of a reading combination is the set of properties whose verdict differs from the
default combination's (with the new verdict). Two deviations interact when the effect of taking
both is not the union of their single effects: one repairs what the other breaks, or together
they break something neither breaks alone, or one hides the other's effect.
"""

from __future__ import annotations

from dataclasses import dataclass

from checker.evidence.results import Result


@dataclass
class Interaction:
    game: str
    variant: str
    deviations: tuple[str, ...]  # NAME=OPTION each (two)
    together: set[tuple[str, str]]  # (property, verdict) that differ from the default
    separately: set[tuple[str, str]]

    def to_json(self) -> dict:
        return {
            "game": self.game, "variant": self.variant, "deviations": list(self.deviations),
            "together": [{"property": p, "verdict": v} for p, v in sorted(self.together)],
            "union_of_single_effects": [{"property": p, "verdict": v} for p, v in sorted(self.separately)],
        }

    def describe(self) -> str:
        def text(effect: set[tuple[str, str]]) -> str:
            return ", ".join(f"{p} {v}" for p, v in sorted(effect)) or "no verdict changes"

        return f"{self.game}/{self.variant}: {' + '.join(self.deviations)} interact: together {text(self.together)}; separately {text(self.separately)}"


def _deviations(result: Result) -> tuple[tuple[str, str], ...]:
    return tuple(sorted((n, o) for n, o in result.config.readings.items() if result.model.readings[n].default != o))


def _effect(verdicts: dict[str, str], default: dict[str, str]) -> set[tuple[str, str]]:
    return {(pid, v) for pid, v in verdicts.items() if default.get(pid) != v}


def interactions(results: list[Result]) -> list[Interaction]:
    """Every pair of deviations in the results whose effect is not the union of the singles'."""
    by_model: dict[str, dict[tuple, dict[str, str]]] = {}
    models = {}
    for r in results:
        models[r.model.path] = r.model
        by_model.setdefault(r.model.path, {}).setdefault(_deviations(r), {})[r.prop.id] = r.status
    out = []
    for path, combos in by_model.items():
        default = combos.get(())
        if default is None:
            continue
        for combo, verdicts in combos.items():
            if len(combo) != 2 or (combo[0],) not in combos or (combo[1],) not in combos:
                continue
            together = _effect(verdicts, default)
            separately = _effect(combos[(combo[0],)], default) | _effect(combos[(combo[1],)], default)
            if together != separately:
                model = models[path]
                out.append(Interaction(model.folder, model.id, tuple(f"{n}={o}" for n, o in combo), together, separately))
    return out
