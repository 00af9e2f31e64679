"""`rulecheck init [DIR]`: scaffold a new game that lints and checks as written."""

from __future__ import annotations

import os
import re

import click

from checker.commands.common import guarded


@click.command()
@click.argument("folder", default=".", type=click.Path(file_okay=False))
@click.option("--game", help="The game's id (models/GAME/, properties/GAME.yaml); default: the folder's name.")
@guarded
def init(folder: str, game: str | None) -> None:
    """Scaffold a new game in the project FOLDER (default: here): a model with its clause index,
    review questions, a property suite and a README, which `rulecheck lint` and `check` pass.
    Refuses (exit 2) when any of the files exists."""
    from checker.commands.scaffold import scaffold_files, write_new
    from checker.report.schema import SCHEMA_DIR, schema_files

    name = game or re.sub(r"[^a-z0-9_-]+", "-", os.path.basename(os.path.abspath(folder)).lower()).strip("-")
    files = scaffold_files(folder, name, SCHEMA_DIR)
    for path, text in schema_files(os.path.join(folder, SCHEMA_DIR)).items():
        if not os.path.exists(path):  # shared by every game of the project: written once
            files[path] = text
    write_new(files)
    for path in files:
        click.echo(f"wrote {os.path.relpath(path)}")
    models = os.path.relpath(os.path.join(folder, "models", name))
    click.echo(f"next: edit {models}/clauses.yaml from your rule document, then the model; run "
               f"`rulecheck lint {models}` and `rulecheck check --jobs 1 {models}` from {os.path.relpath(folder)}")
