"""Grouping failing results into findings and ranking them by severity.

Severity is computed from the evidence, never written by hand, so a finding cannot be
overstated or understated by its author. The rule, from worst to mildest:

- **game-breaking**: some failing property says the game ends or never gets stuck (`terminates`,
  `deadlock-free`, `can-end`), except a `terminates` property whose every failure shows a loop
  only chance keeps going, in a game that ends with probability 1 whatever anyone chooses
  (`checker.evidence.confirm.loop_left_surely`, `checker.engines.sure_end`): no player can make such a game go
  on for ever, only its length has no bound; and except a finding narrowed to such loops
  (`loop: chance-only`, each left with probability 1): the game's other endless plays are the
  evidence of other findings (or of an unfiled one), not of this one;
- **outcome-changing**: some failing property is about results: a `value` property (the odds or
  the winner differ), or a property whose expressions read a slot the model's `outcome:` reads
  (a promise about who wins breaks);
- **rules-visible**: any other failing property but `coverage` (legal play differs from what the
  text promises), the chance-sustained endless loops above included;
- **cosmetic**: only `coverage` fails (a rule that can never apply changes no play).

Findings of class `bound-artefact` are not defects of the text and get no severity, nor do
findings the growth re-check saw vanish with larger bounds (`checker.pipeline.growth`). Within a
severity, findings keep the order the suite lists them in, and unfiled ones come last.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from checker.errors import RulecheckError
from checker.evidence.findings import SuiteFinding
from checker.evidence.growth_check import GrowthCheck
from checker.evidence.results import Result
from checker.evidence.size_check import SizeCheck
from checker.evidence.value_check import ValueCheck
from checker.lang.expr import Expr, SlotRef, walk
from checker.lang.model import Model
from checker.lang.properties import bind
from checker.lang.property_kinds import GAME_BREAKING, KINDS

SEVERITIES = ("game-breaking", "outcome-changing", "rules-visible", "cosmetic")
FAILING = ("fails", "error")
NOT_A_DEFECT = "not a rule defect"


def evidence_order(result: Result) -> tuple[int, str, int, str]:
    """Which of a finding's traces a page shows first: the shortest, then by model, then the one
    under the fewest readings changed from their defaults (a finding that shows under the
    defaults is shown there, not under an unrelated reading whose name sorts first), then by label."""
    changed = sum(1 for name, option in result.config.readings.items() if result.model.readings[name].default != option)
    return (len(result.trace.steps) if result.trace else 0, result.model.id, changed, result.reading_label)


@dataclass
class FindingEvidence:
    """A finding with the failing results that show it (`finding` is None for an unfiled one)."""

    id: str
    title: str
    cls: str
    finding: SuiteFinding | None
    results: list[Result] = field(default_factory=list)
    severity: str = ""
    severity_reason: str = ""
    growth: GrowthCheck | None = None  # the growth re-check of a filed finding, when one ran
    values: tuple[ValueCheck, ...] = ()  # its re-checks with invented numbers at other plausible values
    size: SizeCheck | None = None  # its play at the document's size, when one ran

    @property
    def unfiled(self) -> bool:
        return self.finding is None

    @property
    def property_ids(self) -> list[str]:
        return list(dict.fromkeys(r.prop.id for r in self.results))

    @property
    def shortest(self) -> Result | None:
        """The failing result with the shortest trace."""
        traced = [r for r in self.results if r.trace is not None]
        return min(traced, key=evidence_order) if traced else None

    @property
    def shown(self) -> Result | None:
        """The evidence the page shows: the failure the finding's `evidence:` chooses (the
        shortest of those that fit), else the shortest."""
        if self.finding is None or self.finding.evidence is None:
            return self.shortest
        fits = [r for r in self.results if r.trace is not None and self.finding.chooses(r.model, r.prop.id, r.config.readings)]
        return min(fits, key=evidence_order) if fits else None

    def check_evidence(self) -> None:
        """The trace shown is the one the scenario tells: the failure `evidence:` chooses
        exists, and it takes every action `shows:` names (a located error otherwise)."""
        finding = self.finding
        if finding is None:
            return
        shown = self.shown
        if finding.evidence is not None and shown is None:
            raise RulecheckError(f"finding `{finding.id}`: no failure it claims has the evidence it asks for ({_chosen(finding)})",
                                 finding.evidence_loc or finding.loc, hint="the check shows it elsewhere, or not at all: see where it shows")
        if shown is not None and shown.trace is not None:
            taken = {step.action for step in shown.trace.steps}
            missing = [a for a in finding.shows if a not in taken]
            if missing:
                raise RulecheckError(f"finding `{finding.id}`: its scenario speaks of {', '.join(f'`{a}`' for a in missing)}, which the trace shown "
                                     f"(`{shown.prop.id}` on `{shown.model.id}` [{shown.reading_label}]) never takes", finding.loc,
                                     hint="choose the failure the scenario tells with `evidence:`, or tell the play the trace shows")


def _chosen(finding: SuiteFinding) -> str:
    evidence = finding.evidence or {}
    readings = evidence.get("readings") or {}
    assert isinstance(readings, dict)
    parts = [f"variant {evidence['variant']}" if evidence.get("variant") else "", f"property {evidence['property']}" if evidence.get("property") else ""]
    parts += [f"{k}={v}" for k, v in readings.items()]
    return ", ".join(p for p in parts if p)


def failing(results: Iterable[Result]) -> list[Result]:
    return [r for r in results if r.status in FAILING]


def group_findings(results: list[Result], findings: list[SuiteFinding]) -> list[FindingEvidence]:
    """Every finding that some failing result shows, plus one unfiled finding per property
    with failures no finding claims, ranked by severity (bound artefacts last)."""
    bad = failing(results)
    out: list[FindingEvidence] = []
    claimed: set[int] = set()
    for finding in findings:
        shown = [r for r in bad if finding.claims(r.model, r.prop.id, r.config.readings, r.trace)]
        claimed.update(id(r) for r in shown)
        if shown:
            out.append(FindingEvidence(finding.id, finding.title, finding.cls, finding, shown))
    unfiled: dict[str, list[Result]] = {}
    for r in bad:
        if id(r) not in claimed:
            unfiled.setdefault(r.prop.id, []).append(r)
    for pid, shown in unfiled.items():
        out.append(FindingEvidence(f"unfiled-{pid}", unfiled_title(shown[0]), unfiled_class(shown, results), None, shown))
    for entry in out:
        entry.growth = next((g for r in entry.results for g in r.growth if g.finding == entry.id), None)
        entry.values = tuple(dict.fromkeys(v for r in entry.results for v in r.values if v.finding == entry.id))
        entry.size = next((c for r in entry.results for c in r.sizes if c.finding == entry.id), None)
        entry.severity, entry.severity_reason = severity(entry)
    rank = {s: i for i, s in enumerate((*SEVERITIES, NOT_A_DEFECT))}
    return sorted(out, key=lambda e: (rank[e.severity], e.unfiled))  # stable: the suite's order within a rank


def severity(entry: FindingEvidence) -> tuple[str, str]:
    """The severity of a finding and the evidence that sets it, in words."""
    if entry.cls == "bound-artefact":
        return NOT_A_DEFECT, "a limit of the checked bounds, not of the text"
    if entry.growth is not None and entry.growth.artefact:
        return NOT_A_DEFECT, "a bound artefact: it vanishes when the model's bounds grow by one (" + ", ".join(entry.growth.cause) + ")"
    if entry.size is not None and entry.size.unseen and not (entry.finding and entry.finding.size_argument):
        return NOT_A_DEFECT, (f"seen only in the scaled-down game: not met at the document's size in {entry.size.games:,} seeded games "
                              "and a guided search, and the finding argues no mechanism independent of size (`size_argument`)")
    kinds = {r.prop.id: r.prop.kind for r in entry.results}
    narrowed = entry.finding is not None and entry.finding.loop == "chance-only"
    chance_loops = [pid for pid, kind in kinds.items() if kind == "terminates"
                    and all(chance_sustained(r) or (narrowed and chance_left(r)) for r in entry.results if r.prop.id == pid)]
    breaking = [pid for pid, kind in kinds.items() if kind in GAME_BREAKING and pid not in chance_loops]
    if breaking:
        elsewhere = [pid for pid in breaking if kinds[pid] == "terminates"
                     and all(_left_but_not_sure(r) for r in entry.results if r.prop.id == pid)]
        note = (" (the loop shown is kept going by chance alone and left with probability 1, but elsewhere "
                "the game can go on for ever or get stuck whatever chance does: " + _ids(elsewhere) + ")") if elsewhere else ""
        return "game-breaking", "the game can fail to end or get stuck: " + _ids(breaking) + note
    memo: dict[tuple[str, str], bool] = {}
    outcome = list(dict.fromkeys(r.prop.id for r in entry.results if r.prop.kind == "value" or touches_outcome(r, memo)))
    if outcome:
        return "outcome-changing", "a promise about the result breaks: " + _ids(outcome)
    if chance_loops and narrowed:
        return "rules-visible", ("how often the loop shown goes round has no bound, but only chance keeps it going and "
                                 "leaves it with probability 1: " + _ids(chance_loops) + " (this finding claims only such "
                                 "loops; the game's other endless plays are the evidence of other findings)")
    if chance_loops:
        return "rules-visible", ("the game's length has no bound, but only chance keeps it going and it ends "
                                 "with probability 1 whatever anyone chooses: " + _ids(chance_loops))
    visible = [pid for pid, kind in kinds.items() if kind != "coverage"]
    if visible:
        return "rules-visible", "legal play differs from what the text promises: " + _ids(visible)
    return "cosmetic", "a rule can never apply, which changes no play: " + _ids(list(kinds))


def chance_sustained(result: Result) -> bool:
    """Whether a failing `terminates` result's loop is one that only chance keeps going, in a
    game that ends with probability 1 whatever anyone chooses (a result without a replayed
    lasso is not: nothing shows it)."""
    trace = result.trace
    return trace is not None and trace.shape == "lasso" and trace.game_ends_surely is True


def chance_left(result: Result) -> bool:
    """Whether a failing `terminates` result's loop is one only chance keeps going and chance
    leaves with probability 1, whatever the rest of the game does."""
    trace = result.trace
    return trace is not None and trace.shape == "lasso" and trace.loop_left


def _left_but_not_sure(result: Result) -> bool:
    """A failing `terminates` result whose loop only chance keeps going, in a game that can
    still fail to end some other way (`checker.engines.sure_end` answered no)."""
    trace = result.trace
    return trace is not None and trace.shape == "lasso" and trace.game_ends_surely is False


def _ids(ids: list[str]) -> str:
    return ", ".join(f"`{i}`" for i in ids)


def touches_outcome(result: Result, memo: dict[tuple[str, str], bool]) -> bool:
    """Whether the property's expressions read a slot that the model's `outcome:` reads."""
    key = (result.model.id, result.prop.id)
    if key not in memo:
        memo[key] = _touches_outcome(result.model, result)
    return memo[key]


def _touches_outcome(model: Model, result: Result) -> bool:
    if model.outcome is None or not result.prop.texts:
        return False
    outcome_slots = _slots(model.outcome)
    bound = bind(result.prop, model)
    exprs = [e for e in (bound.expr, bound.source, bound.target) if e is not None]
    return any(_slots(e) & outcome_slots for e in exprs)


def _slots(expr: Expr) -> set[str]:
    return {node.name for node in walk(expr) if isinstance(node, SlotRef)}


def unfiled_title(result: Result) -> str:
    """A failure's problem in words, for a failure no finding explains yet."""
    prop = result.prop
    problem = KINDS[prop.kind].problem
    if problem is not None:
        return f"Unfiled: {problem.lower()[0]}{problem[1:]}"
    said = prop.says.rstrip(".") if prop.says else f"property {prop.id}"
    return f"Unfiled: \u201c{said}\u201d does not always hold"


def unfiled_class(shown: list[Result], everything: list[Result]) -> str:
    """The class of a failure no finding explains, from its property kind and its verdicts."""
    fixed = KINDS[shown[0].prop.kind].unfiled_class
    if fixed is not None:
        return fixed
    same_prop = [r for r in everything if r.prop.id == shown[0].prop.id and r.model.id == shown[0].model.id]
    if any(r.status == "holds" for r in same_prop):
        return "ambiguity"
    return "contradiction"
