"""What every command shares: the console, the guard that turns errors into exit statuses, and
the parsing of model paths and NAME=VALUE options.

Kept below both the main command module (`checker.cli`) and the subcommands (`checker.commands`),
so that neither imports the other.
"""

from __future__ import annotations

import functools
import os
import sys
from collections.abc import Callable
from typing import Any

import click
from rich.console import Console

from checker.errors import ModellingError, RulecheckError
from checker.evidence.trace import ReplayMismatch

DEFAULT_MODELS = "models"


def console(stderr: bool = False) -> Console:
    return Console(stderr=stderr, highlight=False, soft_wrap=False, width=None if sys.stdout.isatty() else 200)


def guarded(command: Callable) -> Callable:
    """Turn user errors into exit status 2 with one message, internal errors into 3."""

    @functools.wraps(command)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        debug = click.get_current_context().find_root().params.get("debug", False)
        try:
            return command(*args, **kwargs)
        except RulecheckError as exc:
            if debug:
                raise
            click.echo(exc.render(), err=True)
            sys.exit(2)
        except KeyboardInterrupt:
            click.echo("interrupted (Ctrl-C): the run stopped before finishing", err=True)
            sys.exit(130)
        except ModellingError as exc:  # met outside exploration: initial values, init_where
            if debug:
                raise
            click.echo(exc.located(), err=True)
            sys.exit(2)
        except ReplayMismatch as exc:
            if debug:
                raise
            click.echo(f"internal error: an engine produced a trace the reference interpreter does not reproduce: {exc}", err=True)
            click.echo("This is a bug in rulecheck, not in your model; nothing was written. Re-run with --debug for a traceback.", err=True)
            sys.exit(3)
        except (click.exceptions.Exit, click.ClickException, click.Abort, SystemExit):
            raise
        except Exception as exc:  # noqa: BLE001 - the one place every other failure ends
            if debug:
                raise
            click.echo(f"internal error: {internal_error_message(exc)} (a bug in rulecheck; re-run with --debug for a traceback)", err=True)
            sys.exit(3)

    return wrapper


def internal_error_message(exc: BaseException) -> str:
    """One line naming an unexpected exception and where it was raised."""
    import traceback

    frames = traceback.extract_tb(exc.__traceback__)
    where = f" at {os.path.basename(frames[-1].filename)}:{frames[-1].lineno}" if frames else ""
    text = " ".join(str(exc).split())[:200]
    return f"{type(exc).__name__}{where}" + (f": {text}" if text else "")


def default_paths(paths: tuple[str, ...]) -> list[str]:
    if paths:
        return list(paths)
    if not os.path.isdir(DEFAULT_MODELS):
        raise RulecheckError(f"no paths given and no `{DEFAULT_MODELS}/` folder here", hint="run from the project root, or name model files or folders")
    return [DEFAULT_MODELS]


def pairs(values: tuple[str, ...], option: str) -> dict[str, str]:
    out = {}
    for value in values:
        name, sep, rest = value.partition("=")
        if not sep or not name or not rest:
            raise RulecheckError(f"{option} takes NAME=VALUE, found `{value}`")
        out[name.strip()] = rest.strip()
    return out
