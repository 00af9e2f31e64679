"""The check's options are typed: the engine, back-end and readings mode are enums, the command
line offers exactly their values, and a wrong name stops where the options are made."""

from __future__ import annotations

import pytest

from checker.cli import check
from checker.engines.native import BACKENDS, Backend
from checker.pipeline.options import EngineChoice, ReadingsMode
from checker.pipeline.runner import CheckOptions


def test_names_are_read_as_the_enums_they_name():
    options = CheckOptions(engine="symbolic", readings="pairs", backend="python")  # type: ignore[arg-type]  # as a plugin's option strings arrive
    assert options.engine is EngineChoice.SYMBOLIC and options.readings is ReadingsMode.PAIRS and options.backend is Backend.PYTHON
    assert CheckOptions().engine is EngineChoice.EXPLICIT and CheckOptions().backend is Backend.AUTO


@pytest.mark.parametrize("field, value", [("engine", "z3"), ("backend", "vm"), ("readings", "some")])
def test_a_wrong_name_stops_at_once(field, value):
    with pytest.raises(ValueError, match=repr(value)):
        CheckOptions(**{field: value})


def test_the_command_line_offers_exactly_the_enums_values():
    choices = {param.name: list(param.type.choices) for param in check.params if hasattr(param.type, "choices")}
    assert choices["engine"] == [e.value for e in EngineChoice]
    assert choices["backend"] == [b.value for b in Backend] == list(BACKENDS)
    assert choices["readings_mode"] == [m.value for m in ReadingsMode]
