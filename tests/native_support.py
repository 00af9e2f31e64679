"""What the native back-end's tests share."""

from __future__ import annotations

import pytest

from checker.engines.native import engine, program_reuse


def as_another_process(patch: pytest.MonkeyPatch) -> None:
    """What a new process starts with: no program assembled or kept in it (`engine._PROGRAMS`,
    `program_reuse`), so what it does not assemble comes from the disk cache."""
    patch.setattr(engine, "_PROGRAMS", {})
    patch.setattr(program_reuse, "_KEPT", {})
