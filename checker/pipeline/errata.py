"""The errata pages of every checked game, written: each game's Readings section taken from the
analysis made ahead or from the cache (or made now), then both pages rendered and written
(atomically, only if changed).

The rendering is `checker.report.errata` (the main page) and `checker.report.errata_details`;
this module decides where the data they render comes from.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from checker.evidence.results import Result
from checker.pipeline.readings import Prepared, cached_readings
from checker.report.errata import main_page
from checker.report.errata_details import details_page, game_models, game_results

if TYPE_CHECKING:
    from checker.evidence.fixes import FixCheck


def errata_pages(folder: str, results: list[Result], jobs: int = 1, ahead: tuple[list[str], Prepared] | None = None,
                 fixes: dict[str, FixCheck] | None = None) -> tuple[str, str]:
    """The main page and the details page for one game's results; `ahead`: its Readings
    analysis already made (`ReadingsAhead`), with the paths of the models it covers (used when
    they are the page's models, which they are on a full run); `fixes`: the checks of its
    findings' proposed wordings, by finding id (`fix_check`)."""
    results = game_results(folder, results)
    if not results:
        return "", ""
    models = game_models(results)
    prepared = ahead[1] if ahead is not None and ahead[0] == [m.path for m in models if not m.abstract] else None
    part = cached_readings(models, results, jobs=jobs, prepared=prepared)
    return main_page(folder, results, models, part, fixes or {}), details_page(folder, results, part.section, fixes or {})


def write_errata(results: list[Result], out_dir: str, jobs: int = 1, ahead: dict[str, tuple[list[str], Prepared]] | None = None,
                 fixes: dict[tuple[str, str], FixCheck] | None = None) -> list[str]:
    """Write docs/errata/<game>.md and <game>-details.md for every game in the results
    (atomically, only if changed); the reading-impact analysis explores in up to `jobs` worker
    processes, unless `ahead` has it (by folder: `ReadingsAhead.prepared`); `fixes` by (folder,
    finding id)."""
    written = []
    for folder in sorted({r.model.folder for r in results}):
        mine = {fid: check for (game, fid), check in (fixes or {}).items() if game == folder}
        main, details = errata_pages(folder, results, jobs, (ahead or {}).get(folder), mine)
        os.makedirs(out_dir, exist_ok=True)
        for path, page in ((os.path.join(out_dir, f"{folder}.md"), main), (os.path.join(out_dir, f"{folder}-details.md"), details)):
            old = open(path, encoding="utf-8").read() if os.path.isfile(path) else None
            if old != page:
                tmp = f"{path}.tmp"
                with open(tmp, "w", encoding="utf-8") as handle:
                    handle.write(page)
                os.replace(tmp, path)
            written.append(path)
    return written
