"""`rulecheck schema [model|properties|clauses|questions]`: print a file kind's JSON Schema."""

from __future__ import annotations

import click

from checker.commands.common import guarded
from checker.report.schema import KINDS_OF_FILE


@click.command()
@click.argument("kind", type=click.Choice(KINDS_OF_FILE), default="model")
@guarded
def schema(kind: str) -> None:
    """Print the JSON Schema (draft-07) of a model file (default), a property suite, a clause
    index or a questions file, for editors: point yaml-language-server at it (docs/ci.md). The
    schema checks shapes; `rulecheck lint` checks everything, with file, line and column."""
    from checker.report.schema import schema_text

    click.echo(schema_text(kind), nl=False)
