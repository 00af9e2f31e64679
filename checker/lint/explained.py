"""A heuristic of `rulecheck lint`: conditions no cited text explains.

An action's guard and the conditions inside its effects (`x if c else y`) decide when and how a
rule applies. When such a condition tests a slot or constant whose name (or label) no word of the
action's clauses mentions, nor the question of a reading or the statement of an assumption about
those clauses, the model may be settling something the text does not say, quietly. This is a
word-matching heuristic: it reports candidates for a reading or an assumption, not errors, and
it can be wrong both ways. Internal slots (`internal: true`, the model's own bookkeeping) are not
reported.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from checker.errors import Loc
from checker.lang.expr import Cond, ConstRef, Expr, SlotRef, walk
from checker.lang.model import Action, Model

WORD = re.compile(r"[a-z]+")
STOP = {"the", "and", "for", "has", "any", "all", "not", "num", "max", "min", "last", "first", "new", "old"}


@dataclass(frozen=True)
class Unexplained:
    action: str
    name: str  # the slot or constant tested
    loc: Loc


def unexplained(model: Model) -> list[Unexplained]:
    out = []
    for action in model.actions.values():
        words = _context_words(model, action)
        for name in sorted(_tested_names(action)):
            if name in model.slots and model.slots[name].internal:
                continue
            if not _mentioned(_name_words(model, name), words):
                out.append(Unexplained(action.name, name, action.loc))
    return out


def _tested_names(action: Action) -> set[str]:
    """Slots and constants read by the guard and by the conditions of the effects."""
    tests: list[Expr] = [action.guard]
    for assign in action.assigns:
        tests.extend(node.test for node in walk(assign.value) if isinstance(node, Cond))
    return {node.name for test in tests for node in walk(test) if isinstance(node, (SlotRef, ConstRef))}


def _context_words(model: Model, action: Action) -> set[str]:
    """Every word of the texts that may explain the action: its clauses (every branch), the
    readings and assumptions about those clauses, and the assumptions it rests on."""
    cited = set(action.all_clauses)
    texts = [f"{model.clauses[c].at} {model.clauses[c].says}" for c in cited if c in model.clauses]
    texts += [f"{r.question} {' '.join(r.options.values())}" for r in model.readings.values() if cited & set(r.clauses)]
    texts += [f"{a.says} {a.why}" for a in model.assumptions if cited & set(a.clauses) or a.id in action.assumes]
    return {_stem(w) for text in texts for w in WORD.findall(text.lower())}


def _name_words(model: Model, name: str) -> set[str]:
    label = model.slots[name].label if name in model.slots else ""
    doc = model.constants[name].doc if name in model.constants else ""
    words = WORD.findall(f"{name.replace('_', ' ')} {label}".lower())
    if doc:
        words += WORD.findall(doc.lower())
    return {_stem(w) for w in words if len(w) >= 3 and w not in STOP}


def _mentioned(name_words: set[str], context: set[str]) -> bool:
    return any(w in context or any(c.startswith(w) or w.startswith(c) for c in context if len(c) >= 4) for w in name_words if len(w) >= 3)


def _stem(word: str) -> str:
    for suffix in ("ing", "ed", "es", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 4:
            return word[: -len(suffix)]
    return word
