"""The choices a check is run with, as enums: the engine and which reading combinations.

Kept in a module of their own, importing nothing, so the command line can offer exactly these
values without importing the runner (`rulecheck --help` stays quick).
"""

from __future__ import annotations

from enum import StrEnum


class EngineChoice(StrEnum):
    """`--engine`: which engine decides a configuration's properties."""

    EXPLICIT = "explicit"
    SYMBOLIC = "symbolic"
    AUTO = "auto"  # explicit while the space fits the budget, symbolic for what it leaves undecided
    DISTRIBUTED = "distributed"  # one exploration's states partitioned over a Dask cluster


class ReadingsMode(StrEnum):
    """`--readings`: which reading combinations are checked."""

    DEVIATIONS = "deviations"  # the default combination and every single-option change
    PAIRS = "pairs"  # also every pair of changes to readings that share a clause or a slot
    ALL = "all"  # every combination
    DEFAULT = "default"  # the default combination only
