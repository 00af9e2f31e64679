"""Property suites: loading `properties/<game>.yaml`, resolving `expect`, typing per model.

A property is written once per game and checked on every model (variant) it applies to; its
expressions are type-checked against each model separately, since variants may differ in slots.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from fractions import Fraction

from checker.errors import Loc, RulecheckError, did_you_mean
from checker.lang.expr import Expr, ReadingRef, walk
from checker.lang.model import Config, Model
from checker.lang.property_kinds import GENERIC, KINDS
from checker.lang.typecheck import check_expr
from checker.lang.types import BOOL, INT
from checker.lang.yamlsrc import YList, YMap, load_yaml, present

OPTIONAL = {"id", "kind", "says", "clauses", "expect", "variants", "within", "measure", "depth", "answers", "chance"}
MOVED_TO_FINDINGS = ("finding", "clarify")
VERDICTS = ("holds", "fails")
PROPERTY_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_\-]*")  # ids name trace files: no `/`, `.` or whitespace


@dataclass(frozen=True)
class Expect:
    """`expect` as written: conditions (readings and variant) mapped to a verdict."""

    rules: tuple[tuple[frozenset[tuple[str, str]], str], ...]
    loc: Loc | None = None

    def verdict(self, model: Model, config: Config) -> str:
        facts = {("variant", model.id), *config.readings.items()}
        best: tuple[int, str] | None = None
        for conditions, verdict in self.rules:
            if conditions <= facts and (best is None or len(conditions) > best[0]):
                best = (len(conditions), verdict)
        return best[1] if best else "holds"


@dataclass
class Property:
    id: str
    kind: str
    says: str
    clauses: tuple[str, ...]
    expect: Expect
    variants: tuple[str, ...] | None
    loc: Loc
    texts: dict[str, tuple[object, Loc]] = field(default_factory=dict)  # expr/from/to/measure/action
    within: int | None = None
    depth: int | None = None
    generic_default: bool = False
    answers: tuple[str, ...] = ()  # review questions (questions.yaml) whose answer this property's result gives
    witness: bool = False  # reachable: its witnesses are saved with the evidence on every run

    def applies_to(self, model: Model) -> bool:
        return self.variants is None or model.id in self.variants


@dataclass
class BoundProperty:
    """A property typed against one model: its expressions are ready for an engine."""

    prop: Property
    expr: Expr | None = None
    action: str | None = None
    source: Expr | None = None  # leads-to: from
    target: Expr | None = None  # leads-to: to
    measure: Expr | None = None
    value: str | float | None = None  # value: the expected game value (an outcome or side, or a number)
    chance: str = "adversary"  # value: chance as `adversary` (of the first side) or `expectation`

    @property
    def id(self) -> str:
        return self.prop.id

    @property
    def kind(self) -> str:
        return self.prop.kind


def suite_path(model_path: str) -> str:
    """properties/<game>.yaml beside the models/ folder that holds the model."""
    folder = os.path.dirname(os.path.abspath(model_path))
    root = os.path.dirname(os.path.dirname(folder))
    return os.path.join(root, "properties", f"{os.path.basename(folder)}.yaml")


def load_suite(path: str) -> list[Property]:
    """The properties in a suite file (empty when the file does not exist)."""
    if not present(path):
        return []
    doc = load_yaml(path)
    if not isinstance(doc, YMap) or "properties" not in doc:
        raise RulecheckError("a property suite is a mapping with `properties:` (a list)", Loc(path, 1, 1))
    for key in doc:
        if key not in ("game", "properties", "findings", "scenarios"):
            raise RulecheckError(f"unknown key `{key}` in a property suite", doc.key_loc(key), str(key), "a suite has `game`, `properties`, `findings` and `scenarios`")
    game = os.path.splitext(os.path.basename(path))[0]
    if "game" in doc and doc["game"] != game:
        raise RulecheckError(f"this suite is for the game `{game}` (properties/{game}.yaml, models/{game}/), but `game:` names {doc['game']!r}",
                             doc.value_loc("game"), str(doc["game"])[:60], f"write `game: {game}`, or move the file to properties/{doc['game']}.yaml")
    items = doc["properties"]
    if not isinstance(items, YList):
        raise RulecheckError("`properties` must be a list", doc.value_loc("properties"))
    out: list[Property] = []
    seen: dict[str, Loc] = {}
    for i, item in enumerate(items):
        prop = parse_property(item, items.item_loc(i))
        if prop.id in seen:
            raise RulecheckError(f"property id `{prop.id}` is used twice (first at line {seen[prop.id].line})", prop.loc, prop.id)
        seen[prop.id] = prop.loc
        out.append(prop)
    return out


def parse_property(item: object, loc: Loc) -> Property:
    if not isinstance(item, YMap):
        raise RulecheckError("a property is a mapping with at least `id` and `kind`", loc)
    for key in ("id", "kind"):
        if key not in item:
            raise RulecheckError(f"property is missing `{key}`", item.loc, None, "every property has an id and a kind")
    if not isinstance(item["id"], str) or not PROPERTY_ID.fullmatch(item["id"]):
        raise RulecheckError("a property `id` is a name: letters, digits, `_` and `-` (it names trace files)", item.value_loc("id"), repr(item["id"]))
    kind = item["kind"]
    if kind not in KINDS:
        raise RulecheckError(f"unknown property kind `{kind}`", item.value_loc("kind"), str(kind), did_you_mean(str(kind), KINDS) or f"kinds: {', '.join(KINDS)}")
    allowed = OPTIONAL | KINDS[kind].fields | KINDS[kind].optional
    for key in item:
        if key in MOVED_TO_FINDINGS:
            raise RulecheckError(f"`{key}` is no longer a property key", item.key_loc(key), str(key), "write the problem as an entry of the suite's `findings:` (title, class, scenario, proposed, properties)")
        if key not in allowed:
            raise RulecheckError(f"unknown key `{key}` for a `{kind}` property", item.key_loc(key), str(key), did_you_mean(str(key), allowed))
    for key in sorted(KINDS[kind].fields):
        if key not in item:
            raise RulecheckError(f"a `{kind}` property needs `{key}`", item.loc, None)
    texts = {key: (item[key], item.value_loc(key)) for key in ("expr", "action", "from", "to", "measure", "value", "chance") if key in item}
    clauses = item.get("clauses", [])
    clauses = (clauses,) if isinstance(clauses, str) else tuple(clauses)
    variants = item.get("variants")
    if variants is not None:
        variants = (variants,) if isinstance(variants, str) else tuple(str(v) for v in variants)
    return Property(
        id=str(item["id"]), kind=kind, says=str(item.get("says", "")), clauses=clauses,
        expect=parse_expect(item.get("expect", "holds"), item.value_loc("expect")), variants=variants, loc=item.loc,
        texts=texts, within=_positive(item, "within"), depth=_positive(item, "depth"),
        answers=_answers(item), witness=_flag(item, "witness"),
    )


def _flag(item: YMap, key: str) -> bool:
    value = item.get(key, False)
    if not isinstance(value, bool):
        raise RulecheckError(f"`{key}` is `true` or `false`", item.value_loc(key), repr(value))
    return value


def _answers(item: YMap) -> tuple[str, ...]:
    raw = item.get("answers", [])
    raw = [raw] if isinstance(raw, str) else raw
    if not isinstance(raw, list) or not all(isinstance(q, str) for q in raw):
        raise RulecheckError("`answers` takes a list of question ids", item.value_loc("answers"), repr(raw)[:60])
    return tuple(raw)


def _positive(item: YMap, key: str) -> int | None:
    if key not in item:
        return None
    value = item[key]
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        raise RulecheckError(f"`{key}` takes a positive whole number", item.value_loc(key), repr(value))
    return value


def parse_expect(raw: object, loc: Loc) -> Expect:
    if isinstance(raw, str):
        if raw not in VERDICTS:
            raise RulecheckError(f"`expect` is `holds` or `fails`, found `{raw}`", loc, raw)
        return Expect(((frozenset(), raw),), loc)
    if not isinstance(raw, YMap):
        raise RulecheckError("`expect` is `holds`, `fails`, or a mapping from conditions to either", loc, repr(raw))
    rules = []
    for key, verdict in raw.items():
        if verdict not in VERDICTS:
            raise RulecheckError(f"`expect` is `holds` or `fails`, found `{verdict}`", raw.value_loc(key), str(verdict))
        conditions: set[tuple[str, str]] = set()
        if key != "default":
            for part in str(key).split(","):
                name, sep, value = part.strip().partition("=")
                if not sep or not name or not value:
                    raise RulecheckError(f"an `expect` condition is NAME=OPTION or variant=ID, found `{part}`", raw.key_loc(key), str(key))
                conditions.add((name.strip(), value.strip()))
        rules.append((frozenset(conditions), verdict))
    return Expect(tuple(rules), loc)


def check_expect_names(prop: Property, models: list[Model]) -> None:
    """Every reading and variant named in `expect` exists in some model it applies to."""
    for conditions, _ in prop.expect.rules:
        for name, value in conditions:
            if name == "variant":
                if not any(m.id == value for m in models):
                    raise RulecheckError(f"`expect` names an unknown variant `{value}`", prop.expect.loc, value, did_you_mean(value, [m.id for m in models]))
                continue
            known = [m.readings[name] for m in models if name in m.readings]
            if not known:
                raise RulecheckError(f"`expect` names an unknown reading `{name}`", prop.expect.loc, name, did_you_mean(name, {r for m in models for r in m.readings}))
            if not any(value in r.options for r in known):
                raise RulecheckError(f"`expect`: `{value}` is not an option of reading `{name}`", prop.expect.loc, value, f"options: {', '.join(known[0].options)}")


def bind(prop: Property, model: Model) -> BoundProperty:
    """Type-check a property's expressions against one model."""
    scope = model.scope
    bound = BoundProperty(prop)
    for cid in prop.clauses:
        if cid not in model.clauses:
            raise RulecheckError(f"property `{prop.id}` cites an unknown clause `{cid}`", prop.loc, cid, did_you_mean(cid, model.clauses))
    if prop.kind == "after":
        name, loc = prop.texts["action"]
        if name not in model.actions:
            raise RulecheckError(f"property `{prop.id}` names an unknown action `{name}` (model `{model.id}`)", loc, str(name), did_you_mean(str(name), model.actions))
        bound.action = str(name)
        text, loc = prop.texts["expr"]
        bound.expr = check_expr(scope, text, loc, BOOL, dict(model.actions[bound.action].params), allow_old=True)
    elif "expr" in prop.texts:
        text, loc = prop.texts["expr"]
        bound.expr = check_expr(scope, text, loc, BOOL)
    if prop.kind == "leads-to":
        bound.source = check_expr(scope, *prop.texts["from"], BOOL)
        bound.target = check_expr(scope, *prop.texts["to"], BOOL)
    if "measure" in prop.texts:
        bound.measure = check_expr(scope, *prop.texts["measure"], INT)
    if prop.kind == "value":
        bind_value(prop, model, bound)
    elif "chance" in prop.texts:
        raise RulecheckError("`chance` belongs to a `value` property", prop.texts["chance"][1], str(prop.texts["chance"][0]))
    return bound


def bind_value(prop: Property, model: Model, bound: BoundProperty) -> None:
    """Check a `value` property's `value` and `chance` against the model (two sides, an outcome)."""
    chance, chance_loc = prop.texts.get("chance", ("adversary", prop.loc))
    if chance not in ("adversary", "expectation"):
        raise RulecheckError(f"`chance` is `adversary` or `expectation`, found `{chance}`", chance_loc, str(chance))
    bound.chance = str(chance)
    players = (model.domains["player"].members or ()) if "player" in model.domains else ()
    if len(players) != 2 or model.outcome is None:
        raise RulecheckError(f"a `value` property needs a model with two `players` and an `outcome` (model `{model.id}`)", prop.loc, prop.id)
    raw, loc = prop.texts["value"]
    if bound.chance == "expectation":
        score = _score(raw)
        if score is None or not 0 <= score <= 1:
            raise RulecheckError("with `chance: expectation`, `value` is the first side's expected score, a number from 0 to 1", loc, repr(raw),
                                 'win 1, loss 0, anything else 1/2; a fraction is written as a string: value: "1/2" (or "0.5")')
        bound.value = float(score)
        return
    names = set(players) | {"endless"}
    if model.outcome.type.kind == "enum":
        names |= set(model.scope.domain_of(model.outcome.type).members)
    if not isinstance(raw, str) or raw not in names:
        raise RulecheckError(f"`value` is a side, an outcome or `endless`, found `{raw}`", loc, str(raw), did_you_mean(str(raw), names) or f"one of: {', '.join(sorted(names))}")
    bound.value = raw


def _score(raw: object) -> Fraction | None:
    """An expected score as written: 0 or 1, or a string holding a fraction or a decimal ("1/2",
    "0.5"; the YAML reader keeps numbers whole, so a fraction comes as a string)."""
    if isinstance(raw, bool):
        return None
    if isinstance(raw, int):
        return Fraction(raw)
    if isinstance(raw, str):
        try:
            return Fraction(raw.strip())
        except (ValueError, ZeroDivisionError):
            return None
    return None


def properties_for(model: Model, suite: list[Property]) -> list[Property]:
    """The suite's properties that apply to the model, plus the generic ones it does not list."""
    chosen = [p for p in suite if p.applies_to(model)]
    listed = {p.kind for p in chosen}
    for kind in GENERIC:
        if kind not in listed:
            chosen.append(Property(kind, kind, GENERIC_SAYS[kind], (), Expect(((frozenset(), "holds"),)), None, Loc(model.path, 1, 1), generic_default=True))
    return chosen


GENERIC_SAYS = {
    "deadlock-free": "The rules never leave the game with nothing to do.",
    "deterministic": "Whenever forced rules apply, they agree on what happens.",
    "coverage": "Every rule fires in some reachable situation.",
}


def referenced_readings(model: Model, props: list[BoundProperty]) -> set[str]:
    """The readings some expression, `only` or property of this model actually consults."""
    exprs = [model.terminal, *model.init_where]
    exprs += [e for e in (model.outcome,) if e is not None]
    for elems in model.init.values():
        for elem in elems.values():
            exprs += [e for e in (elem.value, *(elem.choices or ())) if e is not None]
    names: set[str] = set()
    for action in model.actions.values():
        names.update(action.only)
        exprs += [action.guard, *(e for e in (action.weight, action.actor) if e is not None)]
        for assign in action.assigns:
            exprs += [assign.value, *assign.indices]
    for prop in props:
        exprs += [e for e in (prop.expr, prop.source, prop.target, prop.measure) if e is not None]
    for expr in exprs:
        names.update(node.name for node in walk(expr) if isinstance(node, ReadingRef))
    return names
