"""Independent jobs run somewhere, their outputs taken back in the order they were submitted.

One implementation for every place the check matrix runs: in this process (`--jobs 1`), in
worker processes on this machine (`--jobs N`) or on a Dask cluster (`--cluster`, see
`checker.engines.cluster`). Whatever the pool, outputs are read in submission order, so a run's output
is the serial run's byte for byte; the first failure in that order is the one raised (once),
and the jobs still pending are cancelled. Nothing here writes anything: a run that stops
half-way, by an error or Ctrl-C, leaves no output behind.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager
from typing import Any, Protocol

from checker.pipeline.gc_policy import tune_collector


class Handle(Protocol):
    """A submitted job: `concurrent.futures.Future` and `distributed.Future` both are one."""

    def result(self) -> Any: ...

    def cancel(self) -> bool: ...


class Pool(Protocol):
    def submit(self, fn: Callable[[Any], Any], arg: Any) -> Handle: ...


class _Deferred:
    """A job of the serial pool: it runs when its result is asked for, so a serial run stops
    at its first failure without having run the jobs after it."""

    def __init__(self, fn: Callable[[Any], Any], arg: Any) -> None:
        self.fn, self.arg = fn, arg

    def result(self) -> Any:
        return self.fn(self.arg)

    def cancel(self) -> bool:
        return True


class SerialPool:
    """Jobs run in this process, one after the other, when their results are read."""

    def submit(self, fn: Callable[[Any], Any], arg: Any) -> Handle:
        return _Deferred(fn, arg)


@contextmanager
def process_pool(workers: int) -> Iterator[Pool]:
    """Worker processes on this machine; pending jobs are cancelled when the run stops early."""
    executor = ProcessPoolExecutor(max_workers=workers, initializer=tune_collector)
    try:
        yield executor  # type: ignore[misc]  # submit(fn, *args) is wider than the protocol's
    finally:
        executor.shutdown(wait=True, cancel_futures=True)


def run_in_order(fn: Callable[[Any], Any], items: Sequence[Any], pool: Pool, on_done: Callable[[int, int], None] | None = None) -> list[Any]:
    """`fn` of every item, on `pool`, in the items' order. `on_done(done, total)` after each."""
    return collect(submit_all(fn, items, pool), on_done)


def submit_all(fn: Callable[[Any], Any], items: Sequence[Any], pool: Pool) -> list[Handle]:
    """Submit `fn` of every item, in order, without waiting: a caller may queue other work on
    the same pool (the check's Readings analysis behind its check matrix) before `collect`."""
    return [pool.submit(fn, item) for item in items]


def collect(handles: Sequence[Handle], on_done: Callable[[int, int], None] | None = None) -> list[Any]:
    """The outputs of submitted jobs in submission order (the first failure in that order is
    raised, and the jobs after it are cancelled). `on_done(done, total)` after each."""
    outputs = []
    try:
        for done, handle in enumerate(handles, start=1):
            outputs.append(handle.result())
            if on_done is not None:
                on_done(done, len(handles))
    finally:
        for handle in handles[len(outputs):]:
            handle.cancel()
    return outputs
