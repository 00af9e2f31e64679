"""The Readings section's options played at the document's size (`analysis.size_odds`).

Which games: for every reading and each of its options other than the default, among the
models that have a document's size of their own (something scaled down or invented), the one in
which the exact analysis found the option's most severe consequence (the first such in the
game's order), so one line per option says what it does to the game the document describes;
that model's default at the same size is played once and shared by its options. A model whose
constants are all at the document's values already (nothing scaled, nothing invented, or every
count fixed by an assumption) is not played again: its exact analysis is the answer, and an
option found only in such models says so in place of its line (where the model says anything of
its numbers: a model whose constants declare no document value, invention or assumption gets no
line, since nothing says its numbers are the document's). The games run as jobs of the
check's pool (`plan` then `assemble`), or here.
"""

from __future__ import annotations

from checker.analysis.classify import ORDER
from checker.analysis.impact import ModelImpact, OptionImpact
from checker.analysis.size_odds import GAMES, Played, SizedOption, play
from checker.errors import RulecheckError
from checker.lang.model import Config, Model
from checker.pipeline.dispatch import Handle, Pool, SerialPool, collect, submit_all
from checker.pipeline.full_size import document_constants, invented_sizes, sizes_in_words

Job = tuple[Model, Config, int]  # a configuration at the document's size, and its games
# reading, option, model, sizes played, the model's default readings; or, for an option no model
# with a size of its own has: reading, option, a model, why it is not played, {}
Compared = tuple[str, str, Model, tuple[str, ...] | str, dict[str, str]]
Planned = tuple[list[Compared], list[Job]]  # the options to compare and the games to play


def plan(impacts: list[ModelImpact], games: int = GAMES) -> Planned:
    """The options to compare and the configurations to play, each once."""
    options: list[Compared] = []
    jobs: list[Job] = []
    seen: set[tuple[str, tuple[tuple[str, str], ...]]] = set()
    candidates: dict[tuple[str, str], list[tuple[ModelImpact, OptionImpact]]] = {}
    for mi in impacts:
        for reading in mi.readings:
            for o in reading.options:
                candidates.setdefault((o.reading, o.option), []).append((mi, o))
    for (name, option), found in candidates.items():
        sized = [(mi, o, {**document_constants(mi.model), **invented_sizes(mi.model)}) for mi, o in found]
        playable = [item for item in sized if item[2]]
        if not playable:
            if any(speaks_of_its_size(mi.model) for mi, _ in found):
                options.append((name, option, found[0][0].model, unsized_reason([mi.model for mi, _ in found]), {}))
            continue
        mi, _, constants = min(playable, key=lambda item: ORDER.index(item[1].classification))  # the first of the most severe
        model = mi.model
        options.append((name, option, model, sizes_in_words(constants), mi.baseline.readings))
        for readings in (mi.baseline.readings, mi.baseline.with_readings({name: option}).readings):
            key = (model.id, tuple(sorted(readings.items())))
            if key not in seen:
                seen.add(key)
                jobs.append((model, Config({**mi.baseline.constants, **constants}, readings), games))
    return options, jobs


def speaks_of_its_size(model: Model) -> bool:
    """Whether some constant of `model` says how it stands to the document: the value the text
    prints, an invented number, or a count fixed by an assumption."""
    return any(const.document is not None or const.invented or const.fixed_by for const in model.constants.values())


def unsized_reason(models: list[Model]) -> str:
    """Why the models that have an option have no document's size to play it at: each has its
    constants at the document's values, or its counts fixed by an assumption (a deal the
    document does not print)."""
    fixed = sorted({const.fixed_by for model in models for const in model.constants.values() if const.fixed_by})
    names = ", ".join(f"`{model.id}`" for model in models)
    if fixed:
        return (f"the reading is only in {names}, whose counts are fixed by {', '.join(f'the assumption `{a}`' for a in fixed)}, not scaled down "
                "from numbers the document prints, so there is no larger game to play: the exact analysis above is the answer")
    return f"the reading is only in {names}, already at the document's numbers: the exact analysis above is the answer"


def submit(planned: Planned, pool: Pool) -> list[Handle]:
    return submit_all(play_job, planned[1], pool)


def play_job(job: Job) -> Played | str:
    """One configuration's games, as a job of a pool (module level: it is pickled); a model that
    cannot be played at this size gives the reason instead."""
    model, config, games = job
    try:
        return play(model, config, games)
    except RulecheckError as exc:
        return f"the model cannot be played at the document's size: {exc.message}"


def assemble(planned: Planned, played: list[Played | str]) -> dict[tuple[str, str], SizedOption]:
    """Each option against its model's default, by (reading, option)."""
    options, jobs = planned
    by_config = {(model.id, tuple(sorted(config.readings.items()))): out for (model, config, _), out in zip(jobs, played, strict=True)}
    out: dict[tuple[str, str], SizedOption] = {}
    for name, option, model, sizes, base_readings in options:
        if isinstance(sizes, str):
            out[(name, option)] = SizedOption(model.id, name, option, (), error=sizes)
            continue
        base = by_config[(model.id, tuple(sorted(base_readings.items())))]
        alt = by_config[(model.id, tuple(sorted({**base_readings, name: option}.items())))]
        problem = next((p for p in (base, alt) if isinstance(p, str)), "")
        if problem:
            out[(name, option)] = SizedOption(model.id, name, option, sizes, error=problem)
        else:
            assert isinstance(base, Played) and isinstance(alt, Played)
            out[(name, option)] = SizedOption(model.id, name, option, sizes, base, alt)
    return out


def sized_options(impacts: list[ModelImpact], pool: Pool | None = None, games: int = GAMES) -> dict[tuple[str, str], SizedOption]:
    """`plan`, played on `pool` (here when none), and `assemble`d."""
    planned = plan(impacts, games)
    return assemble(planned, collect(submit(planned, pool if pool is not None else SerialPool())))
