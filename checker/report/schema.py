"""JSON Schemas (draft-07) of the files a designer writes, for editors (yaml-language-server).

The schemas describe shapes only: which keys a section takes, which are required, which values
are names from a fixed list. Every key set is taken from the loader's own constants
(`lang/build.py`, `lang/properties.py`, `findings.py`, `lang/questions.py`), so a key the loader
learns appears here without a second list to keep; `tests/test_schema.py` holds the two to each
other. The loader stays the authority: it also checks what a schema cannot (expressions, types,
names that must exist, ranges) and gives every error with its file, line and column.
"""

from __future__ import annotations

import json
import os
from typing import Any

from checker.evidence import findings
from checker.lang import build, questions, scenarios
from checker.lang.loader import FRAGMENT_KEY
from checker.lang.properties import KINDS, OPTIONAL, VERDICTS

DRAFT = "http://json-schema.org/draft-07/schema#"
SCHEMA_DIR = ".rulecheck"  # where `rulecheck init` puts the schemas in a project
KINDS_OF_FILE = ("model", "properties", "clauses", "questions")

# An expression is written as YAML text; a bare number or boolean is an expression too.
EXPR: dict[str, Any] = {"type": ["string", "number", "boolean"], "description": "an expression (Python syntax, docs/language.md)"}
IDS: dict[str, Any] = {"anyOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}}], "description": "an id or a list of ids"}
TEXT: dict[str, Any] = {"type": "string"}


def closed(properties: dict[str, Any], keys: set[str] | tuple[str, ...], required: tuple[str, ...] = (), **extra: Any) -> dict[str, Any]:
    """An object taking exactly `keys` (those the loader accepts), described by `properties`."""
    missing = set(keys) - set(properties)
    if missing:
        raise AssertionError(f"schema has no description for {sorted(missing)}")
    return {"type": "object", "properties": {k: properties[k] for k in sorted(keys)}, "additionalProperties": False,
            **({"required": list(required)} if required else {}), **extra}


def _member() -> dict[str, Any]:
    return {"anyOf": [{"type": "string"}, closed({"id": TEXT, "name": TEXT}, {"id", "name"}, ("id",))]}


def clause_schema() -> dict[str, Any]:
    return closed({"at": {**TEXT, "description": "where the sentence is, in the document's headings"},
                   "says": {**TEXT, "description": "a short quote, one sentence at most"},
                   "status": {"enum": list(build.CLAUSE_STATUSES)}, "why": TEXT,
                   "same_as": {**IDS, "description": "the clauses that state the same rule in other sections of the document"}},
                  build.CLAUSE_KEYS, ("at", "says"))


def clauses_map() -> dict[str, Any]:
    return {"type": "object", "propertyNames": {"pattern": f"^{build.CLAUSE_ID.pattern}$"}, "additionalProperties": clause_schema()}


def model_schema() -> dict[str, Any]:
    slot_type = {"anyOf": [{"type": "string", "description": "bool, int[LO..HI] or a domain"}, {"type": "array", "items": {"type": "string"}}]}
    constant = closed({"type": TEXT, "range": {"type": "array", "items": {"type": "integer"}, "minItems": 2, "maxItems": 2},
                       "default": {"type": ["integer", "boolean", "string"]}, "of": IDS, "value": {},
                       "doc": TEXT, "bound": {"type": "boolean", "description": "a deck, hand or pile size the model chose: the growth re-check raises it by one"},
                       "grows_with": {"type": ["array", "object"], "description": "the cells of other bounds that grow with it as one step "
                                      "(a list of `NAME` or `NAME[member]...`; for a table, a mapping nested as its value)"},
                       "fixed_by": {**TEXT, "description": "the assumption that fixes this count (not a bound): the growth re-check names it"},
                       "document": {"description": "the value the rule document prints (a table as `value`), or `none` for a number the modeller chose"},
                       "plausible": {"type": "array", "items": {"type": "integer"}, "minItems": 2, "maxItems": 2,
                                     "description": "with `document: none`: the range a designer could plausibly print (findings are re-checked at its ends)"}},
                      build.CONSTANT_KEYS)
    reading = closed({"clause": IDS, "question": TEXT, "options": {"type": "object", "additionalProperties": TEXT},
                      "default": TEXT, "answers": IDS}, build.READING_KEYS | build.READING_OPTIONAL)
    assumption = closed({"id": TEXT, "clauses": IDS, "says": TEXT, "why": TEXT, "answers": IDS,
                         "contested": {**TEXT, "description": "the reading that explores the alternative a careful reader could defend"}},
                        build.ASSUMPTION_KEYS, ("id", "clauses", "says", "why"))
    pile = closed({"type": {"const": "pile"}, "holds": {**TEXT, "description": "the type of its cards: bool, int[LO..HI] or a domain"},
                   "size": {"type": "integer", "minimum": 1, "description": "the most cards it holds"},
                   "of": IDS, "label": TEXT, "internal": {"type": "boolean"}}, build.SLOT_KEYS | build.PILE_KEYS, ("type", "holds", "size"))
    slot = {"anyOf": [slot_type, closed({"type": slot_type, "of": IDS, "label": TEXT, "internal": {"type": "boolean"}}, build.SLOT_KEYS, ("type",)), pile]}
    case = closed({"when": EXPR, "say": TEXT}, {"when", "say"}, ("say",))
    action = closed({
        "by": {**EXPR, "description": "chance, rules, or a player expression"},
        "for": {"type": "object", "additionalProperties": TEXT, "description": "parameter: domain"},
        "when": EXPR, "do": {"type": "object", "additionalProperties": {"anyOf": [EXPR, {"type": "array", "description": "a pile, top first"}]}}, "weight": EXPR,
        "let": {"type": "object", "additionalProperties": EXPR, "description": "names bound for the action's expressions"},
        "include": {**IDS, "description": "effect blocks (top-level `effects`) whose assignments come first"},
        "rule": IDS, "cite": {"type": "array", "items": closed({"when": EXPR, "rule": IDS}, {"when", "rule"}, ("when", "rule"))},
        "assumes": IDS, "only": {"type": "object", "additionalProperties": IDS},
        "text": {"anyOf": [TEXT, {"type": "array", "items": case}]},
    }, build.ACTION_KEYS)
    top = {
        "game": {**TEXT, "description": "the game's title"},
        "id": {"type": "string", "pattern": f"^{build.MODEL_ID.pattern}$"},
        "source": {"anyOf": [TEXT, {"type": "object", "additionalProperties": TEXT}]},
        "abstract": {"type": "boolean"},
        "extends": {"anyOf": [TEXT, {"type": "array", "items": TEXT}], "description": "path(s) of the model or fragments this variant builds on"},
        "fragment": {"type": "boolean", "description": "sections that variants combine; not a model itself"},
        "effects": {"type": "object", "additionalProperties": {"type": "object", "additionalProperties": {"anyOf": [EXPR, {"type": "array"}]}}, "description": "named effect blocks that actions include"},
        "header": {"anyOf": [TEXT, {"type": "array", "items": TEXT}]},
        "players": {"type": "array", "items": _member()},
        "names": {"type": "object", "additionalProperties": {"type": "object", "additionalProperties": TEXT}},
        "domains": {"type": "object", "additionalProperties": {"anyOf": [
            {"type": "array", "items": _member()},
            closed({"range": {"type": "array", "items": {"type": "integer"}, "minItems": 2, "maxItems": 2}}, {"range"}, ("range",))]}},
        "constants": {"type": "object", "additionalProperties": constant},
        "define": {"type": "object", "additionalProperties": EXPR},
        "readings": {"type": "object", "additionalProperties": reading},
        "assumptions": {"type": "array", "items": assumption},
        "state": {"type": "object", "additionalProperties": slot},
        "init": {"type": "object", "additionalProperties": {"anyOf": [EXPR, {"type": "object"}]}},
        "init_where": {"anyOf": [EXPR, {"type": "array", "items": EXPR}]},
        "terminal": EXPR, "outcome": EXPR,
        "actions": {"type": "object", "additionalProperties": action},
        "remove_actions": {"type": "array", "items": TEXT},
        "remove_readings": {"type": "array", "items": TEXT},
        "clauses": clauses_map(),
        "symmetric": {"anyOf": [TEXT, {"type": "array", "items": TEXT}], "description": "enum domains whose members the rules treat alike (symmetry reduction)"},
        "sections": {**IDS, "description": "the sections of the document in effect in this variant (clause id prefixes)"},
    }
    schema = closed(top, build.TOP_KEYS | {FRAGMENT_KEY})
    # Constants, readings and names merge field by field onto a base's, so a variant may give
    # some fields of an entry; the loader requires the rest of the merged entry.
    # A variant (`extends`) inherits the required sections from its base.
    schema["if"] = {"anyOf": [{"required": ["extends"]}, {"required": [FRAGMENT_KEY]}]}
    schema["else"] = {"required": list(build.REQUIRED_KEYS)}
    return _document("rulecheck model", "a model or variant: models/<game>/<model>.yaml", schema)


def properties_schema() -> dict[str, Any]:
    every_key = sorted(OPTIONAL.union(*(k.fields | k.optional for k in KINDS.values())))
    described = {
        "id": {"type": "string", "pattern": "^[A-Za-z0-9][A-Za-z0-9_\\-]*$"}, "kind": {"enum": list(KINDS)},
        "says": TEXT, "clauses": IDS, "variants": IDS, "answers": IDS,
        "expect": {"anyOf": [{"enum": list(VERDICTS)}, {"type": "object", "additionalProperties": {"enum": list(VERDICTS)},
                                                         "description": "default, NAME=OPTION or variant=ID (comma-separated) -> verdict"}]},
        "within": {"type": "integer", "minimum": 1}, "depth": {"type": "integer", "minimum": 1},
        "measure": EXPR, "chance": {"enum": ["adversary", "expectation"]}, "value": {"type": ["string", "number"]},
        "expr": EXPR, "action": TEXT, "from": EXPR, "to": EXPR,
        "witness": {"type": "boolean", "description": "reachable: save its witness with the evidence on every run"},
    }
    prop = closed(described, set(every_key), ("id", "kind"))
    prop["allOf"] = [{"if": {"properties": {"kind": {"const": kind}}, "required": ["kind"]},
                      "then": {"required": sorted(spec.fields), "propertyNames": {"enum": sorted(OPTIONAL | spec.fields | spec.optional)}}}
                     for kind, spec in KINDS.items()]
    finding = closed({"id": TEXT, "title": TEXT, "class": {"enum": list(findings.CLASSES)}, "scenario": TEXT, "proposed": TEXT,
                      "clauses": IDS, "properties": IDS, "readings": IDS, "variants": IDS,
                      "loop": {"enum": list(findings.LOOPS), "description": "a terminates property's failures: only those whose loop is of this kind"},
                      "evidence": closed({"variant": TEXT, "readings": {"type": "object", "additionalProperties": TEXT}, "property": TEXT},
                                         set(findings.EVIDENCE_KEYS), description="which claimed failure the page shows"),
                      "shows": {**IDS, "description": "the actions the scenario speaks of: the trace shown must take each of them"},
                      "size_argument": {**TEXT, "description": "why the mechanism does not depend on the game's size: the finding stays a defect where the play at the document's size does not meet it"},
                      "fix": {"type": "string", "pattern": "^[A-Za-z0-9_\\-]+=[A-Za-z0-9_\\-]+$",
                              "description": "the proposed wording as a reading's option, NAME=OPTION: the check runs it before the page prints it"}},
                     set(findings.REQUIRED) | set(findings.OPTIONAL), findings.REQUIRED)
    step = {"anyOf": [{**TEXT, "description": "an action's name"},
                      {"type": "object", "minProperties": 1, "maxProperties": 1, "description": "action: {parameter: value}",
                       "additionalProperties": {"anyOf": [{"type": "null"}, {"type": "object", "additionalProperties": {"type": ["string", "integer", "boolean"]}}]}}]}
    scenario = closed({"id": TEXT, "says": TEXT, "clauses": IDS, "variants": IDS,
                       "readings": {"type": "object", "additionalProperties": TEXT, "description": "reading: option, on top of the defaults"},
                       "start": {**EXPR, "description": "which initial states it starts from (default: any)"},
                       "steps": {"type": "array", "items": step}, "reaches": {**EXPR, "description": "what the last state must satisfy"}},
                      set(scenarios.KEYS), scenarios.REQUIRED)
    suite = closed({"game": {**TEXT, "description": "the folder under models/"}, "properties": {"type": "array", "items": prop},
                    "findings": {"type": "array", "items": finding}, "scenarios": {"type": "array", "items": scenario}},
                   {"game", "properties", "findings", "scenarios"}, ("properties",))
    return _document("rulecheck property suite", "properties/<game>.yaml", suite)


def clauses_schema() -> dict[str, Any]:
    return _document("rulecheck clause index", "models/<game>/clauses.yaml", closed({"clauses": clauses_map()}, {"clauses"}, ("clauses",)))


def questions_schema() -> dict[str, Any]:
    question = closed({"id": TEXT, "clauses": IDS, "kind": {"enum": list(questions.KINDS)}, "raised_by": {"enum": list(questions.RAISED_BY)},
                       "question": TEXT, "out_of_scope": {**TEXT, "description": "why the model does not answer it"}},
                      set(questions.REQUIRED) | set(questions.OPTIONAL), questions.REQUIRED)
    return _document("rulecheck review questions", "models/<game>/questions.yaml",
                     closed({"questions": {"type": "array", "items": question}}, {"questions"}, ("questions",)))


YAML_VERSION = ("read as YAML 1.2 (core schema), as rulecheck reads it: a bare yes, no, on or off is a string, "
                "not a boolean; with a YAML 1.1 reader such as PyYAML's safe_load, quote such values")


def _document(title: str, where: str, schema: dict[str, Any]) -> dict[str, Any]:
    """A schema's head: what file it describes, and which YAML its values are read as (a YAML
    1.1 reader turns an option named `no` into a boolean and reports a false error)."""
    return {"$schema": DRAFT, "title": title, "description": f"{where}, {YAML_VERSION} (rulecheck validates more: run `rulecheck lint`)", **schema}


SCHEMAS = {"model": model_schema, "properties": properties_schema, "clauses": clauses_schema, "questions": questions_schema}


def schema_text(kind: str) -> str:
    return json.dumps(SCHEMAS[kind](), indent=2) + "\n"


def schema_files(folder: str) -> dict[str, str]:
    """Every schema as a file of `folder`, path -> text."""
    return {os.path.join(folder, f"{kind}.json"): schema_text(kind) for kind in KINDS_OF_FILE}
