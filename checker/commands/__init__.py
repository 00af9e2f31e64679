"""Subcommands kept in their own modules (project set-up, schemas, reports), added to the
`rulecheck` group by `add_commands` so the main command module stays about checking."""

from __future__ import annotations

import click


def add_commands(group: click.Group) -> None:
    from checker.commands.count import count
    from checker.commands.init import init
    from checker.commands.play import play
    from checker.commands.report import report
    from checker.commands.schema import schema

    for command in (init, schema, report, count, play):
        group.add_command(command)

