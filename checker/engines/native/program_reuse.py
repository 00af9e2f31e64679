"""One program for the configurations of a model that differ only in constants it never reads.

The growth re-checks explore many larger configurations of one model, and many of them differ
only in constants the program never reads: the cards each player starts with, read by the
initial states alone, give the same moves for every deal. Each was assembled again: in a cold
check, 41 of the Readings re-check's 72 assemblies made a program the process already had
(about half of its assembling time, on the check's critical path).

A program is a function of the model, the properties placed in it, the program of the moves it
continues, and the values of the constants the assembler and the compiler's emitter read while
making it: the layout is the model's, readings are a run-time input. Both read constants only
through `config.constants`, so an assembly made with `ReadRecorder` there knows which it read;
the program is kept with those values, and a configuration with the same values for those
names takes it, whatever its other constants. Kept for the process, beside `engine._PROGRAMS`
(whose programs these are).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from checker.lang.model import Config

if TYPE_CHECKING:
    from checker.engines.native.source import NativeSource
    from checker.engines.native.vm_code import Bytecode

_ABSENT = object()  # the value recorded for a name asked about and not there


class ReadRecorder(Mapping[str, Any]):
    """A configuration's constants, recording the value of every name read (all of them when
    iterated, and a name asked about that is not there)."""

    def __init__(self, values: Mapping[str, Any]) -> None:
        self._values = values
        self.read: dict[str, Any] = {}

    def __getitem__(self, name: str) -> Any:
        try:
            value = self._values[name]
        except KeyError:
            self.read[name] = _ABSENT
            raise
        self.read[name] = value
        return value

    def __contains__(self, name: object) -> bool:
        if not isinstance(name, str):
            return False
        self.read[name] = self._values.get(name, _ABSENT)
        return name in self._values

    def __iter__(self) -> Iterator[str]:
        self.read.update(self._values)
        return iter(self._values)

    def __len__(self) -> int:
        return len(self._values)


@dataclass(frozen=True)
class _Kept:
    read: dict[str, Any]  # the constants the assembly read, with their values
    moves: Bytecode | None  # the program of the moves it continues (None: it is that program)
    program: Bytecode

    def serves(self, constants: Mapping[str, Any], moves: Bytecode | None) -> bool:
        return self.moves is moves and all(constants.get(name, _ABSENT) == value for name, value in self.read.items())


_KEPT: dict[tuple, list[_Kept]] = {}  # (model file, model id, properties) -> the programs made


def assembled_once(source: NativeSource, moves: Bytecode | None, assemble: Callable[[NativeSource], Bytecode], properties: tuple) -> Bytecode:
    """`assemble(source)`, or the program an earlier assembly made for the same model,
    `properties` (their signatures) and `moves` from the same values of the constants it read."""
    key = (source.model.path, source.model.id, properties)
    constants = source.config.constants
    for kept in _KEPT.get(key, ()):
        if kept.serves(constants, moves):
            return kept.program
    recorder = ReadRecorder(constants)
    config = source.config
    source.config = Config(recorder, config.readings)  # type: ignore[arg-type]  # a mapping read as the dict it wraps
    try:
        program = assemble(source)
    finally:
        source.config = config
    _KEPT.setdefault(key, []).append(_Kept(dict(recorder.read), moves, program))
    return program
