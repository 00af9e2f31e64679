"""Packing a state into one integer.

Each slot element gets a fixed bit field: booleans one bit, enums enough bits for their member
index, integers enough for `value - lo`. A state is then a single Python int, which hashes fast
and costs a few dozen bytes to store: the explicit engine keeps millions of them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from checker.lang.interp import State
from checker.lang.model import Model


@dataclass(frozen=True)
class Field:
    slot: str
    index: tuple
    offset: int
    width: int
    lo: int  # integers are stored as value - lo
    members: tuple[str, ...] | None  # enums are stored as member index
    is_bool: bool

    @property
    def mask(self) -> int:
        return (1 << self.width) - 1

    def encode(self, value: Any) -> int:
        if self.is_bool:
            return 1 if value else 0
        if self.members is not None:
            return self.members.index(value)
        return value - self.lo

    def decode(self, code: int) -> Any:
        if self.is_bool:
            return bool(code)
        if self.members is not None:
            return self.members[code]
        return code + self.lo


@dataclass(frozen=True)
class SlotLayout:
    """Where a slot's elements start, and how far apart consecutive elements are."""

    base: int
    width: int
    strides: tuple[int, ...]  # element strides per dimension (row-major)
    count: int


class Layout:
    def __init__(self, model: Model) -> None:
        self.model = model
        self.fields: list[Field] = []
        self.by_element: dict[tuple[str, tuple], Field] = {}
        self.slots: dict[str, SlotLayout] = {}
        offset = 0
        for name, slot in model.slots.items():
            elem = slot.elem
            if elem.type.kind == "bool":
                span, lo, members, is_bool = 2, 0, None, True
            elif elem.type.kind == "int":
                assert elem.lo is not None and elem.hi is not None  # a slot's int type always has its range (build.elem_type)
                span, lo, members, is_bool = elem.hi - elem.lo + 1, elem.lo, None, False
            else:
                assert elem.type.domain is not None  # an enum type is named after its domain
                members = model.domains[elem.type.domain].members
                assert members is not None  # and that domain is an enum domain
                span, lo, is_bool = len(members), 0, False
            width = max(1, (span - 1).bit_length())
            elements = slot.elements()
            strides: list[int] = []
            stride = 1
            for dom in reversed(slot.dims):
                strides.insert(0, stride)
                stride *= dom.size
            self.slots[name] = SlotLayout(offset, width, tuple(strides), len(elements))
            for index in elements:
                field = Field(name, index, offset, width, lo, members, is_bool)
                self.fields.append(field)
                self.by_element[(name, index)] = field
                offset += width
        self.bits = offset

    def pack(self, state: State) -> int:
        packed = 0
        for field in self.fields:
            value = state[field.slot][field.index] if field.index else state[field.slot]
            packed |= field.encode(value) << field.offset
        return packed

    def unpack(self, packed: int) -> State:
        state: State = {name: ({} if slot.dims else None) for name, slot in self.model.slots.items()}
        for field in self.fields:
            value = field.decode((packed >> field.offset) & field.mask)
            if field.index:
                state[field.slot][field.index] = value
            else:
                state[field.slot] = value
        return state
