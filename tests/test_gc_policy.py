"""The collector's thresholds in checking processes (`checker.pipeline.gc_policy`): raised in the command's
process and in every worker, never lowered, and left off when something turned collection off."""

from __future__ import annotations

import gc

import pytest
from click.testing import CliRunner

from checker.cli import main
from checker.pipeline.dispatch import process_pool
from checker.pipeline.gc_policy import YOUNG_THRESHOLD, tune_collector


@pytest.fixture
def thresholds():
    saved = gc.get_threshold()
    yield
    gc.set_threshold(*saved)


def _worker_threshold(_: int) -> tuple[int, int, int]:
    return gc.get_threshold()


def test_the_command_raises_the_first_threshold(thresholds):
    gc.set_threshold(700, 10, 10)
    assert CliRunner().invoke(main, ["lint", "--help"]).exit_code == 0
    assert gc.get_threshold() == (YOUNG_THRESHOLD, 10, 10)


def test_workers_start_with_the_raised_threshold(thresholds):
    gc.set_threshold(700, 10, 10)  # what a worker would inherit (fork) or start with (spawn)
    with process_pool(1) as pool:
        assert pool.submit(_worker_threshold, 0).result()[0] == YOUNG_THRESHOLD


def test_a_higher_threshold_or_collection_turned_off_is_left_alone(thresholds):
    gc.set_threshold(200_000, 5, 5)
    tune_collector()
    assert gc.get_threshold() == (200_000, 5, 5)
    gc.set_threshold(0, 10, 10)
    tune_collector()
    assert gc.get_threshold()[0] == 0
