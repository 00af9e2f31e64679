"""The type hints are checked: mypy passes on checker/ with the configuration in pyproject.toml."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@pytest.mark.slow
def test_mypy_passes_on_the_package():
    pytest.importorskip("mypy", reason="mypy is installed with the `test` extra")
    run = subprocess.run([sys.executable, "-m", "mypy", "--config-file", os.path.join(ROOT, "pyproject.toml")], cwd=ROOT, capture_output=True, text=True, timeout=900)
    assert run.returncode == 0, run.stdout + run.stderr
