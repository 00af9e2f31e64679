"""Findings: the problems of a rule text, as the modeller files them in `properties/<game>.yaml`.

A property is a test; a finding is one problem in the text (a contradiction, a gap, an
ambiguity that changes play, a dead rule) and groups every failing property, reading and
variant that shows it. The suite's `findings:` section names the evidence it claims with
`properties:` and/or `readings:` (and optionally `variants:`); the errata page is built from
findings, and a failing result no finding claims is still shown, as an unfiled finding.

A `terminates` property fails for every endless loop at once, and the loops may be different
problems (a tie that chance alone repeats, a player who may pass for ever): `loop:` narrows a
finding to the failures whose shown loop is of one kind (`chance-only`: only random outcomes
go round it; `choice`: players' choices help keep it going), so each loop is the evidence of
the finding it belongs to, and a failure neither claims is still shown, unfiled.

A `bound-artefact` finding records failures that are not defects of the text (a limit of the
checked decks); the page lists them apart, so nothing is hidden and nothing is overstated.

The trace a page shows is the shortest of the failures a finding claims, unless the finding
chooses the one its scenario tells (`evidence:` a variant, reading options and a property; the
first claimed failure that fits); `shows:` names the actions the scenario speaks of, and the
trace shown must contain each of them (checked when the page is written: a scenario that tells
one play beside a trace of another is an error, not evidence).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import TYPE_CHECKING

from checker.errors import Loc, RulecheckError, did_you_mean
from checker.evidence.trace import Trace
from checker.lang.model import Model
from checker.lang.properties import suite_path
from checker.lang.yamlsrc import YList, YMap, load_yaml

if TYPE_CHECKING:
    from checker.evidence.results import Result

CLASSES = ("contradiction", "gap", "ambiguity", "dead-rule", "bound-artefact")
REQUIRED = ("id", "title", "class", "scenario", "proposed")
OPTIONAL = ("clauses", "properties", "readings", "variants", "loop", "evidence", "shows", "fix", "size_argument")
EVIDENCE_KEYS = ("variant", "readings", "property")  # `evidence:`: which claimed failure the page shows
LOOPS = ("chance-only", "choice")  # `loop:`: which endless loops of a failing `terminates` a finding claims
MAX_SCENARIO_LINES = 5


@dataclass(frozen=True)
class SuiteFinding:
    id: str
    title: str  # the problem, in the rule's own terms
    cls: str  # one of CLASSES
    clauses: tuple[str, ...]
    scenario: str  # at most five lines, in players' words
    proposed: str  # the proposed wording
    properties: tuple[str, ...]  # property ids whose failures show it (empty: any property)
    readings: tuple[str, ...]  # `name` (any non-default option) or `name=option`
    variants: tuple[str, ...]  # empty: every variant
    loc: Loc
    loop: str = ""  # one of LOOPS, or "" (every failure)
    evidence: dict[str, object] | None = None  # the failure the page shows: variant, readings {name: option}, property
    shows: tuple[str, ...] = ()  # actions the scenario speaks of: the trace shown must take each of them
    evidence_loc: Loc | None = None
    fix: str = ""  # `NAME=OPTION`: the proposed wording as a reading's option, which the check runs
    # why the finding's mechanism does not depend on the game's size: it stays a defect even where
    # the play at the document's size (`checker.pipeline.full_size`) does not meet it
    size_argument: str = ""

    def chooses(self, model: Model, prop_id: str, readings: dict[str, str]) -> bool:
        """Whether a claimed failure is the one `evidence:` asks the page to show."""
        if self.evidence is None:
            return True
        wanted = self.evidence.get("readings") or {}
        assert isinstance(wanted, dict)
        return (self.evidence.get("variant") in (None, model.id) and self.evidence.get("property") in (None, prop_id)
                and all(readings.get(str(k)) == str(v) for k, v in wanted.items()))

    def claims(self, model: Model, prop_id: str, readings: dict[str, str], trace: Trace | None = None) -> bool:
        """Whether a failing result (model, property, reading options, its replayed trace) is
        evidence of this finding."""
        if self.properties and prop_id not in self.properties:
            return False
        if self.variants and model.id not in self.variants:
            return False
        if self.loop and trace is not None and trace.property_kind == "terminates" and loop_kind(trace) != self.loop:
            return False
        if not self.readings:
            return True
        return any(_reading_matches(entry, model, readings) for entry in self.readings)


def loop_kind(trace: Trace) -> str:
    """The kind of a classified endless loop, as `loop:` names it: "chance-only", "choice", or
    "" (a loop the rules force, or a trace whose loop was not classified)."""
    deciders = trace.loop_deciders or frozenset()
    if deciders - {"rules", "chance"}:
        return "choice"
    return "chance-only" if "chance" in deciders else ""


def _reading_matches(entry: str, model: Model, readings: dict[str, str]) -> bool:
    name, sep, option = entry.partition("=")
    if name not in readings:
        return False
    if sep:
        return readings[name] == option
    return readings[name] != model.readings[name].default


def load_findings(path: str) -> list[SuiteFinding]:
    """The findings of a suite file (empty when the file or its `findings:` section is absent)."""
    if not os.path.isfile(path):
        return []
    doc = load_yaml(path)
    if not isinstance(doc, YMap) or "findings" not in doc:
        return []
    items = doc["findings"]
    if not isinstance(items, YList):
        raise RulecheckError("`findings` must be a list", doc.value_loc("findings"))
    out: list[SuiteFinding] = []
    seen: dict[str, Loc] = {}
    for i, item in enumerate(items):
        finding = parse_finding(item, items.item_loc(i))
        if finding.id in seen:
            raise RulecheckError(f"finding id `{finding.id}` is used twice (first at line {seen[finding.id].line})", finding.loc, finding.id)
        seen[finding.id] = finding.loc
        out.append(finding)
    return out


def parse_finding(item: object, loc: Loc) -> SuiteFinding:
    if not isinstance(item, YMap):
        raise RulecheckError("a finding is a mapping with " + ", ".join(f"`{k}`" for k in REQUIRED), loc)
    for key in item:
        if key not in REQUIRED + OPTIONAL:
            raise RulecheckError(f"unknown key `{key}` in a finding", item.key_loc(key), str(key), did_you_mean(str(key), REQUIRED + OPTIONAL))
    for key in REQUIRED:
        if key not in item:
            raise RulecheckError(f"finding is missing `{key}`", item.loc, None, "a finding has " + ", ".join(f"`{k}`" for k in REQUIRED))
    cls = str(item["class"])
    if cls not in CLASSES:
        raise RulecheckError(f"unknown finding class `{cls}`", item.value_loc("class"), cls, did_you_mean(cls, CLASSES) or f"classes: {', '.join(CLASSES)}")
    scenario = str(item["scenario"]).strip()
    if len(scenario.splitlines()) > MAX_SCENARIO_LINES:
        raise RulecheckError(f"a finding's scenario has at most {MAX_SCENARIO_LINES} lines", item.value_loc("scenario"), None, "tell the play in players' words; the trace is the evidence")
    lists = {key: _names(item, key) for key in OPTIONAL if key not in ("loop", "evidence", "fix", "size_argument")}
    fix = str(item.get("fix", ""))
    if "fix" in item and "=" not in fix:
        raise RulecheckError("`fix` names the proposed wording's reading option: `NAME=OPTION`", item.value_loc("fix"), fix)
    loop = str(item.get("loop", ""))
    if "loop" in item and loop not in LOOPS:
        raise RulecheckError(f"unknown loop kind `{loop}`", item.value_loc("loop"), loop, did_you_mean(loop, LOOPS) or f"kinds: {', '.join(LOOPS)}")
    if not lists["properties"] and not lists["readings"]:
        raise RulecheckError("a finding names its evidence: `properties:` and/or `readings:`", item.loc, str(item["id"]))
    return SuiteFinding(
        id=str(item["id"]), title=str(item["title"]).strip(), cls=cls, clauses=lists["clauses"], scenario=scenario,
        proposed=str(item["proposed"]).strip(), properties=lists["properties"], readings=lists["readings"],
        variants=lists["variants"], loc=item.loc, loop=loop, evidence=_evidence(item), shows=lists["shows"],
        evidence_loc=item.value_loc("evidence") if "evidence" in item else None, fix=fix,
        size_argument=" ".join(str(item.get("size_argument", "")).split()),
    )


def _evidence(item: YMap) -> dict[str, object] | None:
    if "evidence" not in item:
        return None
    raw = item["evidence"]
    if not isinstance(raw, YMap):
        raise RulecheckError("`evidence` is a mapping: `variant`, `readings` ({name: option}), `property`", item.value_loc("evidence"), repr(raw)[:60])
    for key in raw:
        if key not in EVIDENCE_KEYS:
            raise RulecheckError(f"unknown key `{key}` in a finding's evidence", raw.key_loc(key), str(key), did_you_mean(str(key), EVIDENCE_KEYS))
    readings = raw.get("readings") or YMap()
    if not isinstance(readings, YMap):
        raise RulecheckError("`evidence: readings:` maps reading names to options", raw.value_loc("readings"), repr(readings)[:60])
    return {"variant": str(raw["variant"]) if "variant" in raw else None, "property": str(raw["property"]) if "property" in raw else None,
            "readings": {str(k): str(v) for k, v in readings.items()}}


def _names(item: YMap, key: str) -> tuple[str, ...]:
    raw = item.get(key, [])
    if isinstance(raw, str):
        return (raw,)
    if not isinstance(raw, list):
        raise RulecheckError(f"`{key}` takes a list of names", item.value_loc(key), repr(raw))
    return tuple(str(x) for x in raw)


def check_finding_names(finding: SuiteFinding, property_ids: set[str], models: list[Model]) -> None:
    """Every property, reading, option, variant and clause a finding names exists."""
    for pid in finding.properties:
        if pid not in property_ids:
            raise RulecheckError(f"finding `{finding.id}` names an unknown property `{pid}`", finding.loc, pid, did_you_mean(pid, property_ids))
    for variant in finding.variants:
        if not any(m.id == variant for m in models):
            raise RulecheckError(f"finding `{finding.id}` names an unknown variant `{variant}`", finding.loc, variant, did_you_mean(variant, [m.id for m in models]))
    for entry in finding.readings:
        name, sep, option = entry.partition("=")
        known = [m.readings[name] for m in models if name in m.readings]
        if not known:
            raise RulecheckError(f"finding `{finding.id}` names an unknown reading `{name}`", finding.loc, name, did_you_mean(name, {r for m in models for r in m.readings}))
        if sep and not any(option in r.options for r in known):
            raise RulecheckError(f"finding `{finding.id}`: `{option}` is not an option of reading `{name}`", finding.loc, option, f"options: {', '.join(known[0].options)}")
    if finding.evidence is not None:
        chosen = finding.evidence
        wanted = chosen.get("readings") or {}
        assert isinstance(wanted, dict)
        if chosen.get("property") not in (None, *finding.properties) and finding.properties:
            raise RulecheckError(f"finding `{finding.id}`: its evidence names property `{chosen['property']}`, which it does not claim", finding.evidence_loc)
        if chosen.get("variant") is not None and not any(m.id == chosen["variant"] for m in models):
            raise RulecheckError(f"finding `{finding.id}`: its evidence names an unknown variant `{chosen['variant']}`", finding.evidence_loc)
        for name, option in wanted.items():
            if not any(name in m.readings and option in m.readings[name].options for m in models):
                raise RulecheckError(f"finding `{finding.id}`: its evidence names `{name}={option}`, which no model has", finding.evidence_loc)
    if finding.fix:
        name, _, option = finding.fix.partition("=")
        if not any(name in m.readings and option in m.readings[name].options for m in models):
            raise RulecheckError(f"finding `{finding.id}`: its `fix` names `{finding.fix}`, which is no reading option of the models", finding.loc, finding.fix)
    actions = {a for m in models for a in m.actions}
    for action in finding.shows:
        if action not in actions:
            raise RulecheckError(f"finding `{finding.id}`: `shows` names an unknown action `{action}`", finding.loc, action, did_you_mean(action, actions))
    for cid in finding.clauses:
        if not any(cid in m.clauses for m in models):
            raise RulecheckError(f"finding `{finding.id}` cites an unknown clause `{cid}`", finding.loc, cid, did_you_mean(cid, {c for m in models for c in m.clauses}))


def suite_findings(results: list[Result]) -> list[SuiteFinding]:
    """The findings filed in the suite of the results' game (none without a suite file)."""
    return load_findings(suite_path(results[0].model.path)) if results else []
