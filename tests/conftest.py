"""Shared fixtures: a small valid model to break in many ways, and helpers to write model files."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap

import hypothesis  # noqa: F401  imported before any test: see below
import pytest

# hypothesis is imported here, at start-up, not first by its pytest plugin at the terminal
# summary: there, run after the Dask tests alone, a garbage collection during that import ran
# Dask's asyncio error handler, which parses source while Python 3.11's parser is converting
# the import's own (one shared depth counter): "SystemError: AST constructor recursion depth
# mismatch" after every test had passed.

HERE = os.path.dirname(__file__)
DUEL = os.path.join(HERE, "models", "duel", "duel.yaml")

MINI = textwrap.dedent(
    """\
    game: Mini
    id: mini
    players: [ann, bob]
    domains:
      kind: [low, high]
    constants:
      cards: {type: int, range: [0, 4], default: 2}
    readings:
      order:
        clause: m-1
        question: Who goes first?
        options: {ann_first: Ann, bob_first: Bob}
        default: ann_first
    state:
      deck: {type: "int[0..4]", of: kind}
      turn: player
      over: bool
    init:
      deck: cards
      turn: ann
      over: false
    terminal: over
    actions:
      take:
        by: turn
        for: {k: kind}
        when: deck[k] > 0
        do:
          deck[k]: deck[k] - 1
          turn: succ(turn)
        rule: m-1
      stop:
        by: rules
        when: deck[low] == 0 and deck[high] == 0
        do: {over: true}
        rule: m-2
    clauses:
      m-1: {at: "1", says: "Take a card."}
      m-2: {at: "2", says: "Stop when the deck is empty."}
    """
)


@pytest.fixture(autouse=True)
def own_verdict_cache(tmp_path_factory, monkeypatch):
    """Each test its own verdict cache (`checker.evidence.verdict_cache`; inherited by the processes it
    starts): a test that explores must explore, whatever ran before it."""
    monkeypatch.setenv("RULECHECK_VERDICTS", str(tmp_path_factory.mktemp("verdicts")))


def mini_with_a_large_aggregate() -> str:
    """The mini game whose `stop` unrolls an aggregate of 12 x 12 terms, more than anything else
    the model enumerates: a budget of 143 refuses it there and nowhere before. `stop` consults
    the reading and the aggregate does not (its code is the same under both, the block's not)."""
    big = ", ".join(f"c{i}" for i in range(12))
    return MINI.replace("  kind: [low, high]\n", f"  kind: [low, high]\n  big: [{big}]\n").replace(
        "do: {over: true}", "do: {over: count(a == b for a in big for b in big) > (0 if reading.order == ann_first else 1)}")


def write(tmp_path, text: str, name: str = "model.yaml", folder: str = "game") -> str:
    """Write a model file under tmp_path/models/<folder>/ and return its path."""
    directory = tmp_path / "models" / folder
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / name
    path.write_text(text)
    return str(path)


@pytest.fixture
def mini_text() -> str:
    return MINI


def rulecheck(*args: str, cwd: str) -> subprocess.CompletedProcess:
    """Run the command line as a user would, in its own process."""
    return subprocess.run([sys.executable, "-m", "checker.cli", *args], capture_output=True, text=True, cwd=cwd)


@pytest.fixture
def project(tmp_path):
    """A copy of the test project (models/ and properties/) to run the CLI in."""
    shutil.copytree(os.path.join(HERE, "models"), tmp_path / "models")
    shutil.copytree(os.path.join(HERE, "properties"), tmp_path / "properties")
    return tmp_path


@pytest.fixture(scope="module")
def scheduler():
    """Two single-threaded worker processes, as `--cluster local --jobs 2` starts them (for the
    cluster tests and the conformance suite's partitioned search)."""
    pytest.importorskip("distributed")
    from checker.engines.cluster import local_cluster

    with local_cluster(2) as local:
        yield local


@pytest.fixture(scope="module")
def on_cluster(scheduler):
    """An open session, which `--engine distributed` explorations run in."""
    from checker.engines import cluster

    with cluster.session(scheduler.scheduler_address, 2):
        yield scheduler
