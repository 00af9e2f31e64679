"""Checked fixes: a finding's proposed wording, run as a reading option, before the page prints it.

A finding may write its proposed wording as an option of a reading (`fix: NAME=OPTION`). The
wording is only worth printing if, under that option, the finding is gone, nothing the rules got
right breaks, and the document's own examples still play as printed. So for every combination in
which the finding shows, and the model's default, the same properties are decided again with
`NAME=OPTION` on top (the check's own results where it already ran that combination, else one
more exploration), and every scenario of the suite is played under it. The page prints the
wording with what was checked, or withholds it and says why (`docs/errata`).
"""

from __future__ import annotations

from checker.evidence.fixes import FixCheck
from checker.evidence.results import Result
from checker.evidence.scenario_run import run_scenario
from checker.lang.model import Config, Model
from checker.lang.properties import bind
from checker.lang.scenarios import bind_scenario
from checker.pipeline.runner import CheckOptions, GameModels, check_config
from checker.report.findings import failing, group_findings


def _key(result: Result) -> tuple[str, tuple[tuple[str, str], ...]]:
    return result.model.path, tuple(sorted(result.config.readings.items()))


def fix_checks(games: list[GameModels], results: list[Result], options: CheckOptions) -> dict[tuple[str, str], FixCheck]:
    """The check of every filed finding's `fix`, by (game folder, finding id)."""
    out: dict[tuple[str, str], FixCheck] = {}
    for game in games:
        mine = [r for r in results if r.model.folder == game.folder]
        with_fix = [f for f in game.findings if f.fix]
        if not mine or not with_fix:
            continue
        known = {(*_key(r), r.prop.id): r for r in mine}
        for entry in group_findings(mine, with_fix):
            finding = entry.finding
            if finding is None:
                continue
            out[(game.folder, finding.id)] = _check_one(game, finding.id, finding.fix, finding.properties, entry.results, mine, known, options)
        for finding in with_fix:
            out.setdefault((game.folder, finding.id), FixCheck(finding.id, finding.fix, 0, missing="the finding shows in no checked combination"))
    return out


def _check_one(game: GameModels, fid: str, fix: str, claimed: tuple[str, ...], shown: list[Result], mine: list[Result],
               known: dict[tuple, Result], options: CheckOptions) -> FixCheck:
    name, _, option = fix.partition("=")
    props_of = _props_by_model(mine)
    bases: dict[tuple, tuple[Model, Config]] = {}
    for result in failing(shown):
        if name in result.model.readings:
            bases.setdefault(_key(result), (result.model, result.config))
    for result in mine:
        if name in result.model.readings and result.config.readings == result.model.default_config().readings:
            bases.setdefault(_key(result), (result.model, result.config))
    if not bases:
        return FixCheck(fid, fix, 0, missing=f"no model the finding shows on has the reading `{name}`")
    still: list[str] = []
    broken: list[str] = []
    failing_ids = set(claimed) or {r.prop.id for r in failing(shown)}
    for model, config in bases.values():
        fixed = config.with_readings({name: option})
        verdicts = _verdicts(model, fixed, props_of[model.path], known, options)
        label = fixed.reading_label(model)
        for pid, result in verdicts.items():
            before = known.get((model.path, tuple(sorted(config.readings.items())), pid))
            where = f"`{pid}` on `{model.id}` [{label}]"
            if pid in failing_ids and result.status == "fails" and (before is None or before.status == "fails"):
                still.append(where)
            elif before is not None and before.status == "holds" and result.status == "fails":
                broken.append(where)
    examples, failed = _examples(game, name, option)
    return FixCheck(fid, fix, len(bases), tuple(dict.fromkeys(still)), tuple(dict.fromkeys(broken)), examples, failed)


def _props_by_model(results: list[Result]) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for result in results:
        ids = out.setdefault(result.model.path, [])
        if result.prop.id not in ids:
            ids.append(result.prop.id)
    return out


def _verdicts(model: Model, config: Config, ids: list[str], known: dict[tuple, Result], options: CheckOptions) -> dict[str, Result]:
    """Each property's result under `config`: the check's own where it ran it, else decided now."""
    key = (model.path, tuple(sorted(config.readings.items())))
    have = {pid: known[(*key, pid)] for pid in ids if (*key, pid) in known}
    if len(have) == len(ids):
        return have
    props = {r.prop.id: r.prop for r in known.values() if r.model.path == model.path}
    todo = [bind(props[pid], model) for pid in ids if pid not in have]
    for result in check_config(model, config, todo, options):
        have[result.prop.id] = result
    return have


def _examples(game: GameModels, name: str, option: str) -> tuple[int, tuple[str, ...]]:
    """How many scenarios were played under the fix, and those that play without it and not
    with it (a scenario already failing is reported as such elsewhere, not blamed on the fix)."""
    played = 0
    failed: list[str] = []
    for model in game.models:
        if model.abstract or name not in model.readings:
            continue
        default = model.default_config()
        for scenario in (bind_scenario(s, model) for s in game.scenarios if s.applies_to(model)):
            own = default.with_readings(scenario.scenario.readings)
            played += 1
            if run_scenario(model, own, scenario).passed and not run_scenario(model, own.with_readings({name: option}), scenario).passed:
                failed.append(scenario.scenario.id)
    return played, tuple(dict.fromkeys(failed))
