"""The README's two set-up commands work as written on a fresh machine: each makes its virtual
environment first (a stock Debian Python refuses `pip install` outside one), and CI runs the
README's test command itself, so the two cannot drift apart."""

from __future__ import annotations

import os
import re

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _commands() -> list[str]:
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as handle:
        text = handle.read()
    setup = text.split("## Set-up", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```sh\n(.+?)\n```", setup)


def test_both_setup_commands_make_their_venv_first():
    main, tests = _commands()
    venv = "python3 -m venv .venv && . .venv/bin/activate && "
    assert main == venv + "python3 -m pip install -e '.[fast]' && rulecheck check"
    assert tests == venv + "python3 -m pip install -e '.[test]' && python3 -m pytest -m ''"


def test_the_readmes_test_command_runs_the_slow_tests_the_default_run_skips():
    """A bare `pytest` skips the tests marked slow (a contributor's run in minutes); the
    README's command, which CI runs, selects every test with an empty marker expression."""
    import tomllib

    with open(os.path.join(ROOT, "pyproject.toml"), "rb") as handle:
        options = tomllib.load(handle)["tool"]["pytest"]["ini_options"]
    assert "-m 'not slow'" in options["addopts"] and any(m.startswith("slow:") for m in options["markers"])
    _, tests = _commands()
    assert tests.endswith("-m ''")


def test_ci_runs_the_readmes_test_command():
    _, tests = _commands()
    with open(os.path.join(ROOT, ".ci", "run"), encoding="utf-8") as handle:
        last = handle.read().rstrip().splitlines()[-1]
    assert last == tests.replace("pip install -e", "pip install -q -e")  # quiet in CI, otherwise the same
