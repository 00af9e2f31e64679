"""The check matrix and single explorations on a Dask cluster: a LocalCluster of two workers
(the `scheduler` and `on_cluster` fixtures of `tests/conftest.py`).

The matrix on a cluster must write what a serial run writes, byte for byte, survive a worker
killed mid-run, and report a model's error once with nothing written. A partitioned search must
own each state once, stop with an error when a worker holding part of it leaves, and need a
cluster. That it finds what the single-process Python engine finds is the conformance suite's
(`tests/conformance`, the `distributed` pair).
"""

from __future__ import annotations

import json
import operator
import os
import shutil
import signal
import socket
import tempfile
import threading
import time

import pytest

from checker.engines import cluster
from checker.engines.cluster import worker_addresses
from checker.engines.distributed import PartitionedSearch
from checker.engines.explicit import Budget
from checker.engines.partition import ROOT, Batch, Partition, owner_of
from checker.errors import RulecheckError
from checker.lang.build import load_model
from checker.lang.compile import CompiledModel
from checker.pipeline.runner import CheckOptions, check_paths
from checker.report.json_report import results_json
from tests.conftest import MINI, rulecheck, write
from tests.symbolic_support import run

distributed = pytest.importorskip("distributed")

ROOT_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WAR8 = os.path.join(ROOT_DIR, "benchmarks", "models", "war", "war8.yaml")


# --- one exploration partitioned over the workers (the conformance suite compares it with the
# single-process engine: `tests/conformance`) ---------------------------------------------------


def test_the_hash_spreads_states_evenly_and_each_state_has_one_owner():
    """Partitions in one process (no Dask): every state is owned once, and the stable hash
    spreads War's states over three partitions within 5 % of a third each."""
    model = load_model(WAR8.replace("war8", "war6"))
    compiled = CompiledModel(model, model.default_config())
    parts = [Partition(compiled, [], i, 3) for i in range(3)]
    incoming: list[list[Batch]] = [[Batch()] for _ in range(3)]
    for state in compiled.initial:
        incoming[owner_of(state, 3)][0].pairs.extend((state, ROOT))
    while True:
        steps = [parts[p].step(frozenset(), incoming[p]) for p in range(3)]
        incoming = [[steps[q][0][p] for q in range(3)] for p in range(3)]
        if not any(report.new_states for _, report in steps):
            break
    sizes = [len(p.parent) for p in parts]
    assert sum(sizes) == 3_217 and all(abs(size - 3_217 / 3) < 0.05 * 3_217 / 3 for size in sizes), sizes
    assert all(owner_of(s, 3) == i for i, p in enumerate(parts) for s in p.parent)


# The coin duel (tests/impact) with a property of each graph kind the partitioned search leaves to
# this machine, and an invariant it decides on the workers.
COIN_GRAPH_SUITE = """\
game: coin
properties:
  - id: bob-can-force
    kind: value
    value: bob
    clauses: [coin-2, coin-3]
    expect: holds
  - id: can-always-end
    kind: can-end
    clauses: [coin-3]
    expect: holds
  - id: every-game-ends
    kind: terminates
    clauses: [coin-3]
    expect: {default: holds, "tie=reflip": fails}
  - id: faces-are-coins
    kind: invariant
    expr: ca <= 1 and cb <= 1
    clauses: [coin-1]
    expect: holds
"""
GRAPH_IDS = {"bob-can-force", "can-always-end", "every-game-ends"}


def test_graph_properties_on_a_cluster_are_decided_here_as_a_local_check_decides_them(tmp_path, scheduler):
    """They need the whole state graph on one machine: the explicit engine decides them here,
    the results say so (engine `explicit`), the run says so once, and a suite that passes
    locally passes on the cluster (they were `undecided`, and the run exited 1)."""
    (tmp_path / "models" / "coin").mkdir(parents=True)
    shutil.copy(os.path.join(ROOT_DIR, "tests", "impact", "models", "coin", "coin.yaml"), tmp_path / "models" / "coin")
    (tmp_path / "properties").mkdir()
    (tmp_path / "properties" / "coin.yaml").write_text(COIN_GRAPH_SUITE)
    common = ("check", "--fresh", "--no-write", "--format", "json")
    local = rulecheck(*common, cwd=str(tmp_path))
    spread = rulecheck(*common, "--engine", "distributed", "--cluster", scheduler.scheduler_address, cwd=str(tmp_path))
    assert local.returncode == 0 and spread.returncode == 0, spread.stderr
    verdicts = {name: {(r["property"], r["reading"]): (r["verdict"], r["engine"]) for r in json.loads(run_.stdout)["results"]} for name, run_ in (("local", local), ("spread", spread))}
    assert {key: verdict for key, (verdict, _) in verdicts["spread"].items()} == {key: verdict for key, (verdict, _) in verdicts["local"].items()}
    assert verdicts["spread"][("every-game-ends", "tie=reflip")][0] == "fails"
    assert {key: engine for key, (_, engine) in verdicts["spread"].items()} == {key: "explicit" if key[0] in GRAPH_IDS else "distributed" for key in verdicts["spread"]}
    notice = "rulecheck: 3 properties need the whole state graph (can-end, terminates, value): decided on this machine by the explicit engine"
    assert spread.stderr.count("need the whole state graph") == 1 and notice in spread.stderr, spread.stderr
    assert "whole state graph" not in local.stderr


def test_a_local_cluster_prints_no_raw_dask_warning_when_the_dashboard_port_is_taken(tmp_path):
    """Dask's scheduler serves HTTP even without the dashboard, on 8787 by default, and warns
    raw on stderr ("Port 8787 is already in use") when another program holds it."""
    write(tmp_path, MINI, "mini.yaml", folder="mini")
    with socket.socket() as holder:
        try:
            holder.bind(("0.0.0.0", 8787))
            holder.listen()
        except OSError:
            pass  # another program holds it already: the same test
        done = rulecheck("check", "--no-write", "--cluster", "local", "--jobs", "1", cwd=str(tmp_path))
    assert done.returncode == 0, done.stderr
    assert "already in use" not in done.stderr and "Warning" not in done.stderr, done.stderr


def test_the_distributed_engine_needs_a_cluster(tmp_path):
    write(tmp_path, MINI, "mini.yaml", folder="mini")
    run_ = rulecheck("check", "--engine", "distributed", "--no-write", cwd=str(tmp_path))
    assert run_.returncode == 2 and "--engine distributed needs a cluster" in run_.stderr


# --- the check matrix on the cluster -----------------------------------------------------------


@pytest.mark.slow
def test_the_matrix_on_a_cluster_writes_what_a_serial_run_writes(project, scheduler):
    runs = {
        "serial": ("--jobs", "1"),
        "cluster": ("--cluster", scheduler.scheduler_address),
        "local": ("--cluster", "local", "--jobs", "2"),
    }
    outputs = {}
    for name, args in runs.items():
        done = rulecheck("check", "--fresh", *args, "--out", name, "--errata-dir", f"{name}-errata", "--format", "json", cwd=str(project))  # each run explores
        assert done.returncode == 0, done.stderr
        outputs[name] = [{k: v for k, v in r.items() if k != "seconds"} for r in json.loads(done.stdout)["results"]]
    assert outputs["serial"] == outputs["cluster"] == outputs["local"] and len(outputs["serial"]) == 16
    for name in ("cluster", "local"):
        for file in os.listdir(project / "serial" / "duel"):
            assert (project / "serial" / "duel" / file).read_bytes() == (project / name / "duel" / file).read_bytes()
        assert (project / "serial-errata" / "duel.md").read_bytes() == (project / f"{name}-errata" / "duel.md").read_bytes()


class WorkersWithOtherFiles:
    """A stand-in client whose one worker reads other bytes at the model's path."""

    def run(self, fn, paths):
        return {"tcp://elsewhere:1": {path: "another version" for path in paths}}


def test_workers_must_see_the_model_files_the_client_checks():
    """A worker compiling from other files would cache code under their key (see cluster.check_sources)."""
    with pytest.raises(RulecheckError, match="worker tcp://elsewhere:1 does not see the model files"):
        cluster.check_sources(WorkersWithOtherFiles(), "tcp://scheduler:8786", [WAR8])


def test_a_model_error_on_the_cluster_is_reported_once_and_nothing_is_written(tmp_path, scheduler):
    broken = MINI.replace("terminal: over", "init_where: deck[low] == 3\nterminal: over")
    write(tmp_path, broken, "mini.yaml", folder="mini")
    write(tmp_path, broken.replace("id: mini", "id: other"), "other.yaml", folder="mini")
    done = rulecheck("check", "--cluster", scheduler.scheduler_address, cwd=str(tmp_path))
    assert done.returncode == 2 and done.stderr.count("has no initial state") == 1 and "mini.yaml:" in done.stderr
    assert not (tmp_path / "counterexamples").exists() and not (tmp_path / "docs").exists()


def summary(results) -> list[dict]:
    return [{k: v for k, v in r.items() if k != "seconds"} for r in results_json(results)["results"]]


# Only the property the matrix run checks: the benchmark suite's `expect` names variants
# (war6, war10) this folder does not hold.
WAR_CARDS_KEPT = """\
game: war
properties:
  - id: cards-kept
    kind: invariant
    says: Every dealt card is in one of the two piles.
    clauses: [war-1, war-2]
    expr: len(pile[a]) + len(pile[b]) == count(dealt[c] for c in card)
    expect: holds
"""


@pytest.mark.slow
def test_a_worker_killed_during_a_matrix_run_loses_no_result(scheduler):
    """War with 8 cards twice over (two models, about two seconds each, one per worker): one
    worker is killed while it explores; the scheduler runs its job again and the results are the
    serial run's."""
    with tempfile.TemporaryDirectory() as root:
        folder = os.path.join(root, "models", "war")
        os.makedirs(folder)
        text = open(WAR8).read()
        for name in ("war8", "war8b"):
            with open(os.path.join(folder, f"{name}.yaml"), "w") as fh:
                fh.write(text.replace("id: war8", f"id: {name}"))
        os.makedirs(os.path.join(root, "properties"))
        with open(os.path.join(root, "properties", "war.yaml"), "w") as fh:
            fh.write(WAR_CARDS_KEPT)

        def options(**extra) -> CheckOptions:
            return CheckOptions(budget=Budget(200_000, 120.0), backend="python", only_properties={"cards-kept"}, **extra)

        serial = summary(check_paths([folder], options()))
        outcome: dict = {}

        def matrix() -> None:
            try:
                outcome["results"] = check_paths([folder], options(cluster=scheduler.scheduler_address, reuse=False))  # on the workers, not from the cache
            except BaseException as exc:  # noqa: BLE001 - reported by the assertion below
                outcome["error"] = exc

        with distributed.Client(scheduler.scheduler_address) as client:
            pids = client.run(os.getpid)
            runner = threading.Thread(target=matrix)
            runner.start()
            victim = None
            deadline = time.monotonic() + 60
            while victim is None and time.monotonic() < deadline:
                busy = [worker for worker, tasks in client.processing().items() if tasks]
                victim = busy[0] if busy else None
                time.sleep(0.05)
            assert victim is not None, "no job ever ran"
            time.sleep(0.3)  # well inside a two-second exploration
            os.kill(pids[victim], signal.SIGKILL)
            runner.join(180)
            client.wait_for_workers(2, timeout=60)
    assert "error" not in outcome, outcome.get("error")
    assert summary(outcome["results"]) == serial and len(serial) == 2


def test_a_result_lost_with_its_worker_after_it_finished_stops_the_barrier(on_cluster):
    """A task finished, then its worker died before the result was read: the scheduler
    reschedules the task, pinned to a worker that is gone, so reading it would wait for ever
    (this hung a whole search). The barrier must say the worker left, within a few polls."""
    client = cluster.current()
    client.wait_for_workers(2, timeout=60)
    search = PartitionedSearch(client, worker_addresses(client))
    pids = client.run(os.getpid)
    future = search._submit(0, operator.add, 1, 2)
    distributed.wait([future], timeout=60)
    os.kill(pids[search.workers[0]], signal.SIGKILL)
    outcome: dict = {}

    def barrier() -> None:
        try:
            outcome["results"] = search._gather([future])
        except BaseException as exc:  # noqa: BLE001 - examined below
            outcome["error"] = exc

    reader = threading.Thread(target=barrier, daemon=True)
    reader.start()
    reader.join(60)
    client.wait_for_workers(2, timeout=60)
    assert not reader.is_alive(), "the barrier waited for a result whose worker is gone"
    assert "results" in outcome or "holding part of the search left it" in str(outcome.get("error")), outcome


def test_a_worker_lost_during_a_partitioned_search_stops_it_with_an_error(on_cluster):
    """Its partition (part of the visited set) is gone: the search must say so, not return a
    smaller state count."""
    outcome: dict = {}

    def search() -> None:
        try:
            outcome["results"] = run(WAR8, "distributed", ids={"cards-kept"})
        except BaseException as exc:  # noqa: BLE001 - examined below
            outcome["error"] = exc

    client = cluster.current()  # the session's (a second client in this process would share its loop)
    client.wait_for_workers(2, timeout=60)
    pids = client.run(os.getpid)
    runner = threading.Thread(target=search)
    runner.start()
    deadline = time.monotonic() + 60
    while not any(client.processing().values()) and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(0.2)  # inside the search (about one second here)
    os.kill(pids[sorted(pids)[0]], signal.SIGKILL)
    runner.join(120)
    client.wait_for_workers(2, timeout=60)
    assert isinstance(outcome.get("error"), RulecheckError), outcome
    assert "holding part of the search left it" in str(outcome["error"]) or "is gone" in str(outcome["error"])
