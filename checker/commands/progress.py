"""Progress of a long run: a live line on a terminal, and a line every few seconds in a log.

A cold `rulecheck check` runs for minutes, much of it after the matrix (the findings' re-checks,
the Readings analysis, the pages), where no exploration reports progress. On a terminal the live
line shows the exploration; when stderr is not a terminal (CI, a redirected run) a heartbeat
prints the stage and the latest count every `INTERVAL` seconds, so a log is never silent for
minutes and a run that stops shows where. Runs shorter than one interval print nothing.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable
from types import TracebackType

from rich.console import Console

from checker.engines.finding import Progress

INTERVAL = 15.0  # seconds between two heartbeat lines


class Heartbeat:
    """The stage a run is in and its latest count, printed every `interval` seconds to stderr
    when stderr is not a terminal (a daemon thread: a stopped run does not wait for it)."""

    def __init__(self, interval: float = INTERVAL) -> None:
        self.interval = interval
        self.stage = "starting"
        self.detail = ""
        self._started = time.monotonic()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def __enter__(self) -> Heartbeat:
        if not sys.stderr.isatty():
            self._thread = threading.Thread(target=self._beat, name="progress heartbeat", daemon=True)
            self._thread.start()
        return self

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None, traceback: TracebackType | None) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()

    def enter(self, stage: str) -> None:
        self.stage, self.detail = stage, ""

    def line(self) -> str:
        elapsed = time.monotonic() - self._started
        detail = f": {self.detail}" if self.detail else ""
        return f"rulecheck: {self.stage}{detail} ({elapsed // 60:.0f} min {elapsed % 60:02.0f} s so far)"

    def _beat(self) -> None:
        while not self._stop.wait(self.interval):
            print(self.line(), file=sys.stderr, flush=True)


class progress_display:
    """Callbacks for a run's progress: a live line on a terminal (serial runs show the
    exploration: states, rate, depth, frontier; parallel runs how many explorations have
    finished), else the same words as `beat`'s detail."""

    def __init__(self, beat: Heartbeat | None = None) -> None:
        self.beat = beat

    def __enter__(self) -> tuple[Callable[[str, Progress], None] | None, Callable[[int, int], None] | None]:
        if not sys.stderr.isatty():
            beat = self.beat
            if beat is None:
                return None, None

            def note(label: str, p: Progress) -> None:
                beat.detail = f"{label}: {p.states:,} states, depth {p.depth}"

            def note_jobs(done: int, total: int) -> None:
                beat.detail = f"{done}/{total} explorations finished"

            return note, note_jobs
        from rich.live import Live
        from rich.markup import escape

        self.live = Live("", console=Console(stderr=True), transient=True, refresh_per_second=4)
        self.live.__enter__()

        def show(label: str, p: Progress) -> None:
            self.live.update(f"{escape(label)}: {p.states:,} states, {p.rate:,.0f} states/s, depth {p.depth}, frontier {p.frontier:,}, {p.seconds:.1f} s")

        def jobs_done(done: int, total: int) -> None:
            self.live.update(f"{done}/{total} explorations finished")

        return show, jobs_done

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None, traceback: TracebackType | None) -> None:
        if hasattr(self, "live"):
            self.live.__exit__(kind, value, traceback)
