"""Subcommands kept in their own modules (project set-up, schemas, reports), added to the
`rulecheck` group by `add_commands` so the main command module stays about checking."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import click


def add_commands(group: click.Group) -> None:
    from checker.commands.count import count
    from checker.commands.init import init
    from checker.commands.report import report
    from checker.commands.schema import schema

    for command in (init, schema, report, count):
        group.add_command(command)


def guarded(command: Callable) -> Callable:
    """`checker.cli.guarded` (exit 2 for user errors, 3 for internal ones), looked up when the
    command runs: the command module imports this package, so it cannot import that one first."""

    @functools.wraps(command)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        from checker.cli import guarded as guard

        return guard(command)(*args, **kwargs)

    return wrapper
