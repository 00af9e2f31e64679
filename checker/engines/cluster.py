"""A Dask cluster as the place explorations run: connecting to one (or starting a local one).

`rulecheck check --cluster ADDRESS` sends the check matrix's explorations to a Dask scheduler
(`tcp://host:8786`, or `local` for a `LocalCluster` of `--jobs` worker processes on this
machine); `--engine distributed` spreads one exploration over the cluster's workers
(`checker.engines.distributed`). Dask is an optional dependency (the `cluster` extra): without
it, or with a scheduler that cannot be reached, or with workers running other checker code than
the client, the run stops with one message before anything is explored.

While a `session` is open, `current()` is its client: the distributed engine, which runs in this
process and drives the workers, reads it there rather than having a client travel in every job.
"""

from __future__ import annotations

import logging
import os
import warnings
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from checker.errors import RulecheckError

CONNECT_TIMEOUT = 20.0  # seconds to reach a scheduler before giving up
_CURRENT: list[Any] = []  # the open session's client (a stack: sessions do not nest in practice)


def require_dask(flag: str) -> None:
    """Stop with an installation hint when Dask's distributed scheduler is not installed."""
    from importlib.util import find_spec

    if find_spec("distributed") is None:
        raise RulecheckError(f"{flag} needs Dask's distributed scheduler, which is not installed", hint="the `cluster` extra: pip install -e '.[cluster]' in a checkout, or pip install 'dask[distributed]>=2024.1'")


class ClusterPool:
    """The dispatch protocol (`checker.pipeline.dispatch.Pool`) over a Dask client. A task lost with its
    worker is run again elsewhere by the scheduler (up to its `allowed-failures`, 3 by default);
    an exception raised by the task itself is not retried: it is the model's, and it is
    reported once."""

    def __init__(self, client: Any) -> None:
        self.client = client

    def submit(self, fn: Callable[[Any], Any], arg: Any) -> Any:
        return self.client.submit(fn, arg, pure=False)


@contextmanager
def session(address: str, workers: int, files: Sequence[str] = ()) -> Iterator[ClusterPool]:
    """A client on the cluster at `address` (`local`: a new `LocalCluster` of `workers`
    single-threaded worker processes, closed with the session), checked before use: the
    workers run this checker's code and see the same `files` (the models' and suites')."""
    require_dask("--cluster")
    from distributed import Client

    cluster = None
    try:
        if address == "local":
            cluster = local_cluster(workers)
            client = Client(cluster)
        else:
            client = Client(address, timeout=CONNECT_TIMEOUT)
    except (OSError, TimeoutError) as exc:
        if cluster is not None:
            cluster.close()
        raise RulecheckError(f"--cluster {address}: cannot reach a Dask scheduler there ({exc})", hint="start one with `dask scheduler` and workers with `dask worker ADDRESS` (docs/distributed.md)") from None
    try:
        check_workers(client, address)
        check_sources(client, address, files)
        _CURRENT.append(client)
        yield ClusterPool(client)
    finally:
        if _CURRENT and _CURRENT[-1] is client:
            _CURRENT.pop()
        client.close()
        if cluster is not None:
            cluster.close()


def local_cluster(workers: int) -> Any:
    """A `LocalCluster` of `workers` single-threaded worker processes that prints nothing of its
    own. Without the dashboard the scheduler still serves HTTP (health and metrics routes), on
    port 8787 unless told otherwise, and warns on stderr, raw, when that port is taken (another
    cluster, a notebook's): it gets a free port of the loopback interface instead. Any other
    warning Dask raises while starting goes to Dask's `distributed` logger, which a local cluster
    shows from ERROR up only (`silence_logs`), as it does Dask's own log lines."""
    from distributed import LocalCluster

    with warnings.catch_warnings(record=True) as raised:
        cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None, silence_logs=logging.ERROR,
                               scheduler_kwargs={"dashboard_address": "127.0.0.1:0"})
    for warning in raised:
        logging.getLogger("distributed").warning("%s", warning.message)
    return cluster


def check_workers(client: Any, address: str) -> None:
    """Every worker must run the same checker code as this process (a job carries a pickled
    model whose meaning is the code's), and there must be at least one worker."""
    from checker.lang.caches import code_digest

    try:
        client.wait_for_workers(1, timeout=CONNECT_TIMEOUT)
    except TimeoutError:
        raise RulecheckError(f"--cluster {address}: the scheduler has no workers", hint="start workers with `dask worker ADDRESS`") from None
    ours = code_digest()
    theirs = client.run(code_digest)
    stale = sorted(worker for worker, digest in theirs.items() if digest != ours)
    if stale:
        raise RulecheckError(f"--cluster {address}: worker(s) {', '.join(stale)} run different rulecheck code (or Python) than this process",
                             hint="install the same rulecheck version on every worker and restart them")


def check_sources(client: Any, address: str, files: Sequence[str]) -> None:
    """Every worker must read the same files, at the same paths, as this process: the files the
    models were loaded from (`Model.sources`) and their suites, which a worker reads again (a
    model's program carries its whole suite)."""
    ours = file_digests(sorted({os.path.abspath(p) for p in files}))
    if not ours:
        return
    theirs = client.run(file_digests, list(ours))
    for worker, digests in sorted(theirs.items()):
        for path, digest in ours.items():
            if digests.get(path) != digest:
                raise RulecheckError(f"--cluster {address}: worker {worker} does not see the model files this process checks ({os.path.relpath(path)})",
                                     hint="every worker needs the same files at the same paths: a shared file system, or the same checkout")


def file_digests(paths: list[str]) -> dict[str, str | None]:
    """Each file's SHA-256 (None: not there)."""
    import hashlib

    out: dict[str, str | None] = {}
    for path in paths:
        try:
            with open(path, "rb") as handle:
                out[path] = hashlib.sha256(handle.read()).hexdigest()
        except OSError:
            out[path] = None
    return out


def current() -> Any:
    """The client of the open session (the distributed engine runs inside one)."""
    if not _CURRENT:
        raise RulecheckError("--engine distributed needs a cluster: add --cluster ADDRESS (or --cluster local)")
    return _CURRENT[-1]


def worker_addresses(client: Any) -> list[str]:
    """The cluster's workers, in a fixed order (sorted by address)."""
    return sorted(client.scheduler_info()["workers"])
