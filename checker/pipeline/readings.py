"""The Readings analysis of every game, run for the errata pages: explored on the check's pool
ahead of its matrix, re-checked at larger bounds, rendered once and cached by content.

The pipeline owns when the analysis runs, where (which pool, which thread) and whether a cached
section stands in for it; `checker.report.reading_impact` only renders what it is given.
"""

from __future__ import annotations

import glob
import hashlib
import os
import threading
from typing import TYPE_CHECKING

from checker.analysis.impact import Explored, Item, ModelImpact, Plan, Settings, assemble, explore_item, moot_in_pairs, plan_models
from checker.analysis.reading_growth import ReadingGrowth, recheck_readings
from checker.analysis.size_odds import SizedOption
from checker.analysis.warm import warm_loops
from checker.evidence.results import Result
from checker.lang import caches
from checker.lang.model import Config, Model
from checker.pipeline import reading_size
from checker.pipeline.dispatch import Handle, Pool, SerialPool, collect, process_pool, run_in_order, submit_all
from checker.report.reading_impact import ReadingRow, ReadingsPart, readings

if TYPE_CHECKING:
    from checker.pipeline.runner import GameModels

CACHE_DIR = caches.PROJECT_DIR

# one game's analysis, its lines' growth re-checks, and its options played at the document's size
Prepared = tuple[list[ModelImpact], dict[tuple[str, str, str], ReadingGrowth], dict[tuple[str, str], SizedOption]]


def analyse_model(model: Model, settings: Settings, baseline: Config | None = None, jobs: int = 1) -> ModelImpact:
    """Every reading option of one model against the default combination (`analyse_models`)."""
    return analyse_models([model], settings, jobs, baseline)[0]


def analyse_models(models: list[Model], settings: Settings, jobs: int = 1, baseline: Config | None = None) -> list[ModelImpact]:
    """Every reading option of each model against its default combination. With `jobs` above
    1 the configurations of all the models are explored in that many worker processes (each
    option's divergence search and exploration is independent of the others'); the outcome is
    the serial one. `seconds` counts the CPU time of each model's explorations wherever they ran."""
    plans, items = plan_models(models, settings, baseline)
    return assemble(plans, _explore_all(items, jobs), settings)


def _explore_all(items: list[Item], jobs: int) -> list[Explored]:
    """`explore_item` of every item, in order, in up to `jobs` worker processes."""
    if jobs > 1 and len(items) > 1:
        with process_pool(min(jobs, len(items))) as pool:
            return run_in_order(explore_item, items, pool)
    return run_in_order(explore_item, items, SerialPool())


def analyse_for_errata(models: list[Model], settings: Settings | None = None, jobs: int = 1) -> list[ModelImpact]:
    """The impact analysis of every checked (non-abstract) model, for the Readings section
    (explored in up to `jobs` worker processes)."""
    settings = settings or Settings()
    impacts = analyse_models([m for m in models if not m.abstract], settings, jobs)
    moot_in_pairs(impacts, settings)
    return impacts


def analysed(models: list[Model], settings: Settings | None = None, jobs: int = 1, impacts: list[ModelImpact] | None = None) -> Prepared:
    """What the Readings section renders: the impact analysis (`impacts` when already made), the
    growth re-check of its lines, and its options played at the document's size."""
    settings = settings or Settings()
    impacts = impacts if impacts is not None else analyse_for_errata(models, settings, jobs)
    return impacts, recheck_readings(impacts, settings), reading_size.sized_options(impacts)


def readings_section(models: list[Model], results: list[Result], impacts: list[ModelImpact] | None = None, settings: Settings | None = None, jobs: int = 1) -> list[str]:
    """The Readings section's lines for one game, analysed here (`impacts` when already made)."""
    return readings(models, results, *analysed(models, settings, jobs, impacts))[0]


def cached_readings(models: list[Model], results: list[Result], cache_dir: str = CACHE_DIR, jobs: int = 1, prepared: Prepared | None = None) -> ReadingsPart:
    """`readings`, computed once per content: the key hashes the model files, the verdicts of the
    results and all of the checker's code, so a run over unchanged models reuses the section and
    its summary instead of repeating the analysis (it costs about as much as the check itself).
    Stored as JSON, read back as data. `prepared`: the analysis already made (`ReadingsAhead`),
    used when nothing is cached."""
    path = os.path.join(cache_dir, f"readings-{_content_key(models)}-{_verdicts_key(results)}.json")
    stored = caches.read_json(path)
    if stored is not None:
        try:
            return ReadingsPart([str(line) for line in stored["section"]], [ReadingRow.from_json(row) for row in stored["summary"]], [str(w) for w in stored["never_help"]])
        except (ValueError, KeyError, TypeError):
            pass  # an unreadable entry is computed again
    impacts, rechecks, sized = prepared if prepared is not None else analysed(models, jobs=jobs)
    lines, rows = readings(models, results, impacts, rechecks, sized)
    never = [f"in `{mi.model.id}`: {words}" for mi in impacts for words in mi.impact.never_help]
    caches.write_json(path, {"section": lines, "summary": [row.to_json() for row in rows], "never_help": never})
    return ReadingsPart(lines, rows, never)


def _content_key(models: list[Model]) -> str:
    """The cache key's first half (`caches.content_key`): the checker's code and every file the
    game's models were loaded from."""
    return caches.content_key("readings-1", None, sorted(caches.model_digest(m) for m in models), length=20)


def _verdicts_key(results: list[Result]) -> str:
    """The second half: the verdicts (the section says which ones each option changes) and the
    properties they are of, in full (the section quotes them)."""
    digest = hashlib.sha256()
    for r in results:
        digest.update(f"{r.model.path}|{r.prop.id}|{r.reading_label}|{r.status}\n".encode())
    for prop in {id(r.prop): r.prop for r in results}.values():
        digest.update(caches.digest_of(prop).encode())
    return digest.hexdigest()[:20]


class ReadingsAhead:
    """The Readings sections' analyses made during the check (`runner.SideWork`): they need no
    check result, so their explorations are queued on the check's pool ahead of its matrix, and
    each game's growth re-check of its lines (serial: one allowance of states spent in order)
    runs in a thread of this process while the workers go on with the matrix and, after it,
    with the findings' growth re-checks (`wait` joins it before the pages are written). It
    used to run alone after everything else, then in this process before the matrix's results
    were collected, which kept the findings' re-checks waiting and the workers idle (25 s of a
    cold check). A game whose section is already cached for these models and code (whatever
    the verdicts) is left out: its page reads the cache, or, with other verdicts, analyses as
    before. The analyses are the serial ones (`plan_models`, `assemble`, `recheck_readings`),
    only run elsewhere or earlier, so the section is the same bytes."""

    def __init__(self, cache_dir: str = CACHE_DIR, settings: Settings | None = None) -> None:
        self.cache_dir = cache_dir
        self.settings = settings or Settings()
        self.games: list[tuple[str, list[str], Plan, list[Handle]]] = []
        self.pool: Pool | None = None  # where the options are played at the document's size (`queue`'s)
        self.prepared: dict[str, tuple[list[str], Prepared]] = {}  # by folder: the models' paths and their analysis
        self._thread: threading.Thread | None = None
        self._error: BaseException | None = None

    def queue(self, games: list[GameModels], pool: Pool) -> None:
        """Submit the explorations of every game whose section is not cached."""
        for game in games:
            checked = [m for m in game.models if not m.abstract]
            if not checked or (caches.reads_allowed() and glob.glob(os.path.join(self.cache_dir, f"readings-{_content_key(checked)}-*.json"))):
                continue
            plans, items = plan_models(checked, self.settings)
            self.games.append((game.folder, [m.path for m in checked], plans, submit_all(explore_item, items, pool)))
        self.pool = pool

    def start(self) -> None:
        """Start `prepare` in a thread of this process. A daemon thread: a check stopped
        (an error, Ctrl-C) does not wait for it."""
        if self.games and self._thread is None:
            self._thread = threading.Thread(target=self._prepare_keeping_error, name="readings re-check", daemon=True)
            self._thread.start()

    def wait(self) -> dict[str, tuple[list[str], Prepared]]:
        """The analyses by folder, once made; an error made there is raised here."""
        if self._thread is not None:
            self._thread.join()
            self._thread = None
        if self._error is not None:
            raise self._error
        return self.prepared

    def prepare(self) -> None:
        """Wait for the explorations (queued first, so done first) and re-check the lines; the
        re-check's loops are compiled first, while the explorations run (`warm_loops`)."""
        if self.games and self.games[0][2]:
            model, base = self.games[0][2][0][:2]
            warm_loops(model, base)
        for folder, paths, plans, handles in self.games:
            impacts = assemble(plans, collect(handles), self.settings)
            moot_in_pairs(impacts, self.settings)
            sized = reading_size.plan(impacts)
            played = reading_size.submit(sized, self.pool if self.pool is not None else SerialPool())  # on the workers while the lines are re-checked here
            rechecks = recheck_readings(impacts, self.settings)
            self.prepared[folder] = (paths, (impacts, rechecks, reading_size.assemble(sized, collect(played))))

    def _prepare_keeping_error(self) -> None:
        try:
            self.prepare()
        except BaseException as exc:  # handed to `wait`, which raises it in the main thread
            self._error = exc
