"""Types and domains of the model language.

There are three value types: bool, int, and enums (one per enum domain). Integer *ranges* live on
slots, constants and integer-range domains, not on types: arithmetic is exact and the range is
checked when a value is written, as DESIGN.md requires.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Type:
    """bool, int, or an enum named after its domain."""

    kind: str  # "bool" | "int" | "enum" | "pile" (the checker's own: no engine sees a pile)
    domain: str | None = None

    def __str__(self) -> str:
        if self.kind == "pile":
            return f"pile of {self.domain}"
        return self.domain if self.kind == "enum" and self.domain else self.kind


BOOL = Type("bool")
INT = Type("int")


def enum(domain: str) -> Type:
    return Type("enum", domain)


@dataclass(frozen=True)
class Domain:
    """A finite domain: the members of an enum, or the integers lo..hi."""

    name: str
    members: tuple[str, ...] | None = None
    lo: int = 0
    hi: int = -1

    @property
    def is_enum(self) -> bool:
        return self.members is not None

    @property
    def size(self) -> int:
        return len(self.members) if self.members is not None else self.hi - self.lo + 1

    @property
    def type(self) -> Type:
        return enum(self.name) if self.is_enum else INT

    def values(self) -> list:
        """Every value in order: member names for an enum, integers for a range."""
        return list(self.members) if self.members is not None else list(range(self.lo, self.hi + 1))

    def code(self, value) -> int:
        """The 0-based position of a value in this domain (its encoding in a packed state)."""
        if self.members is not None:
            return self.members.index(value)
        return value - self.lo

    def decode(self, code: int):
        return self.members[code] if self.members is not None else code + self.lo

    def contains(self, value) -> bool:
        if self.members is not None:
            return value in self.members
        return isinstance(value, int) and not isinstance(value, bool) and self.lo <= value <= self.hi


@dataclass(frozen=True)
class ElemType:
    """The type of one slot element or constant value, with an int range when it has one."""

    type: Type
    lo: int | None = None
    hi: int | None = None

    def __str__(self) -> str:
        if self.type.kind == "int" and self.lo is not None:
            return f"int[{self.lo}..{self.hi}]"
        return str(self.type)
