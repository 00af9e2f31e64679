"""Ordered piles in the type checker: pile-valued expressions and what they are written as.

A pile expression (`hand[p]`, `draw(hand[p])`, `put_bottom(hand[p], c)`, `[]`, `[c, d]`,
`x if cond else y`) is never an IR node. The checker holds it as a `PileValue`: its length and
the element at each position (top first) as ordinary typed expressions, and writes whatever uses
it as the plain expressions and assignments it means: `top(P)` is P's first element, `draw(P)`
shifts P's elements by one, and an assignment `hand[p]: P` writes the length and every position
of the stored pile. What a pile cannot do (the top of an empty pile, a card put on a full one) is
a `Require` node, the located modelling error every engine reports. So the interpreter, the
compiled code, the native back-end and the symbolic encoder run piles without knowing them, and a
stored pile costs the bits of its length and its positions, as the hand-shifted array it replaces.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from checker.errors import Loc
from checker.lang.expr import Binary, Cond, Expr, Lit, Old, Require, SlotRef
from checker.lang.model import Assign, Pile
from checker.lang.types import BOOL, INT, Domain, ElemType, Type

PILE_FUNCTIONS = {
    "top": "top(pile)", "bottom": "bottom(pile)", "len": "len(pile)", "draw": "draw(pile)",
    "put_top": "put_top(pile, card)", "put_bottom": "put_bottom(pile, card)", "remove": "remove(pile, position)",
}
LENGTH_SUFFIX = "#len"


def pile_type(elem: ElemType) -> Type:
    """The type of a pile of `elem` values (piles of the same element type mix)."""
    return Type("pile", str(elem))


def declare(name: str, elem: ElemType, size: int, outer: tuple[Domain, ...], members: tuple[str, ...]) -> Pile:
    return Pile(name, name + LENGTH_SUFFIX, size, elem, outer, members)


@dataclass(frozen=True)
class PileValue(Expr):
    """A pile as the checker holds it: never reaches an engine.

    Every check of the operations that built it is in `length`, so the positions test `raw`:
    an assignment writes the length too, and raises exactly when one of them fails, while the
    positions stay one comparison each however many operations are nested."""

    length: Expr | None = None  # raises where an operation on the way cannot be done
    raw: Expr | None = None  # the same length without those checks: what the positions test
    elems: tuple[Expr, ...] = ()  # top first; positions at or beyond the length hold `fill`
    fill: Expr | None = None
    bounded: bool = True  # False for a listed pile (`[a, b]`), which grows as cards are put on it
    base: tuple[str, tuple[Expr, ...]] | None = None  # a stored pile: its name and outer indices


def _int(value: int, loc: Loc | None) -> Lit:
    return Lit(INT, value=value, loc=loc)


def _bin(op: str, left: Expr, right: Expr, loc: Loc | None) -> Expr:
    type_ = INT if op in ("+", "-") else BOOL
    if isinstance(left, Lit) and isinstance(right, Lit) and isinstance(left.value, int) and isinstance(right.value, int) and op in ("+", "-"):
        return _int(left.value + right.value if op == "+" else left.value - right.value, loc)
    return Binary(type_, op=op, left=left, right=right, loc=loc)


def fill_of(pile: Pile, loc: Loc | None) -> Lit:
    return Lit(pile.elem.type, value=pile.empty, loc=loc)


def stored(pile: Pile, outer: tuple[Expr, ...], loc: Loc | None) -> PileValue:
    """The pile held in the state (one of an array of piles when `outer` indexes it)."""
    length = SlotRef(INT, name=pile.length, indices=outer, loc=loc)
    elems = tuple(SlotRef(pile.elem.type, name=pile.name, indices=(*outer, _int(k, loc)), loc=loc) for k in range(pile.size))
    return PileValue(pile_type(pile.elem), length=length, raw=length, elems=elems, fill=fill_of(pile, loc), base=(pile.name, outer), loc=loc)


def listed(type_: Type, items: list[Expr], fill: Lit, loc: Loc | None) -> PileValue:
    """`[a, b, c]`: a pile of these cards, `a` on top (`[]`: the empty pile)."""
    return PileValue(type_, length=_int(len(items), loc), raw=_int(len(items), loc), elems=tuple(items), fill=fill, bounded=False, loc=loc)


def _padded(p: PileValue, size: int) -> tuple[Expr, ...]:
    assert p.fill is not None
    return p.elems + (p.fill,) * (size - len(p.elems))


def _empty_error(p: PileValue, value: Expr, text: str, loc: Loc | None) -> Require:
    assert p.length is not None
    return Require(value.type, test=_bin(">", p.length, _int(0, loc), loc), value=value, message=f"`{text}`: the pile is empty", loc=loc)


def top(p: PileValue, text: str, loc: Loc | None) -> Expr:
    first = p.elems[0] if p.elems else p.fill
    assert first is not None
    return _empty_error(p, first, text, loc)


def at(p: PileValue, position: Expr, text: str, loc: Loc | None) -> Expr:
    """The card `position` places below the top (0 is the top); outside the pile is an error."""
    assert p.length is not None and p.fill is not None
    inside = Binary(BOOL, op="and", left=_bin("<=", _int(0, loc), position, loc), right=_bin("<", position, p.length, loc), loc=loc)
    if p.base is not None:
        name, outer = p.base
        value: Expr = SlotRef(p.fill.type, name=name, indices=(*outer, position), loc=loc)
    elif isinstance(position, Lit) and isinstance(position.value, int):
        value = p.elems[position.value] if 0 <= position.value < len(p.elems) else p.fill
    else:
        value = p.fill
        for k in reversed(range(len(p.elems))):
            value = Cond(p.fill.type, test=_bin("==", position, _int(k, loc), loc), then=p.elems[k], orelse=value, loc=loc)
    return Require(p.fill.type, test=inside, value=value, message=f"`{text}`: no card at that position of the pile", loc=loc)


def bottom(p: PileValue, text: str, loc: Loc | None) -> Expr:
    assert p.length is not None
    return _empty_error(p, at(p, _bin("-", p.length, _int(1, loc), loc), text, loc), text, loc)


def draw(p: PileValue, text: str, loc: Loc | None) -> PileValue:
    """The pile without its top card."""
    assert p.raw is not None and p.fill is not None
    raw = _bin("-", p.raw, _int(1, loc), loc)
    return PileValue(p.type, length=_empty_error(p, raw, text, loc), raw=raw, elems=(*p.elems[1:], p.fill), fill=p.fill, bounded=p.bounded, loc=loc)


def _grown(p: PileValue, text: str, loc: Loc | None) -> tuple[Expr, Expr]:
    """The checked and the raw length of P with one more card."""
    assert p.length is not None and p.raw is not None
    longer = _bin("+", p.raw, _int(1, loc), loc)
    if not p.bounded:
        return _bin("+", p.length, _int(1, loc), loc), longer
    full = f"`{text}`: the pile is full ({len(p.elems)} cards)"
    return Require(INT, test=_bin("<", p.length, _int(len(p.elems), loc), loc), value=longer, message=full, loc=loc), longer


def put_top(p: PileValue, card: Expr, text: str, loc: Loc | None) -> PileValue:
    elems = (card, *p.elems) if not p.bounded else (card, *p.elems[:-1])
    length, raw = _grown(p, text, loc)
    return PileValue(p.type, length=length, raw=raw, elems=elems, fill=p.fill, bounded=p.bounded, loc=loc)


def put_bottom(p: PileValue, card: Expr, text: str, loc: Loc | None) -> PileValue:
    assert p.raw is not None
    if not p.bounded:
        elems: tuple[Expr, ...] = (*p.elems, card)
    else:
        elems = tuple(Cond(card.type, test=_bin("==", p.raw, _int(k, loc), loc), then=card, orelse=e, loc=loc) for k, e in enumerate(p.elems))
    length, raw = _grown(p, text, loc)
    return PileValue(p.type, length=length, raw=raw, elems=elems, fill=p.fill, bounded=p.bounded, loc=loc)


def remove(p: PileValue, position: Expr, text: str, loc: Loc | None) -> PileValue:
    """The pile without the card `position` places below the top (the cards under it move up)."""
    assert p.length is not None and p.raw is not None and p.fill is not None
    inside = Binary(BOOL, op="and", left=_bin("<=", _int(0, loc), position, loc), right=_bin("<", position, p.length, loc), loc=loc)
    raw = _bin("-", p.raw, _int(1, loc), loc)
    length = Require(INT, test=inside, value=raw, message=f"`{text}`: no card at that position of the pile", loc=loc)
    below = p.elems[1:] + (p.fill,)
    elems = tuple(Cond(e.type, test=_bin("<=", position, _int(k, loc), loc), then=below[k], orelse=e, loc=loc) for k, e in enumerate(p.elems))
    return PileValue(p.type, length=length, raw=raw, elems=elems, fill=p.fill, bounded=p.bounded, loc=loc)


def choose(test: Expr, then: PileValue, orelse: PileValue, loc: Loc | None) -> PileValue:
    """`then if test else orelse`, position by position."""
    assert then.length is not None and orelse.length is not None and then.raw is not None and orelse.raw is not None
    size = max(len(then.elems), len(orelse.elems))
    elems = tuple(Cond(a.type, test=test, then=a, orelse=b, loc=loc) for a, b in zip(_padded(then, size), _padded(orelse, size)))
    length = Cond(INT, test=test, then=then.length, orelse=orelse.length, loc=loc)
    raw = Cond(INT, test=test, then=then.raw, orelse=orelse.raw, loc=loc)
    return PileValue(then.type, length=length, raw=raw, elems=elems, fill=then.fill, bounded=then.bounded or orelse.bounded, loc=loc)


def old(p: PileValue, loc: Loc | None) -> PileValue:
    """old(P): every part of P read in the pre-state."""
    assert p.length is not None and p.raw is not None
    return PileValue(p.type, length=Old(INT, operand=p.length, loc=loc), raw=Old(INT, operand=p.raw, loc=loc), elems=tuple(Old(e.type, operand=e, loc=loc) for e in p.elems), fill=p.fill, bounded=p.bounded, loc=loc)


def assignments(pile: Pile, outer: tuple[Expr, ...], bound: tuple[tuple[str, Domain], ...], value: PileValue, loc: Loc, text: str) -> list[Assign]:
    """`hand[p]: P` as the assignments it means: every position, then the length."""
    assert value.length is not None
    length = value.length
    if len(value.elems) > pile.size:
        length = Require(INT, test=_bin("<=", length, _int(pile.size, loc), loc), value=length, message=f"`{text}`: the pile does not fit in `{pile.name}` ({pile.size} cards)", loc=value.loc or loc)
    elems = _padded(value, pile.size)[: pile.size]
    out = [Assign(pile.name, (*outer, _int(k, loc)), bound, elem, loc, f"{text}[{k}]") for k, elem in enumerate(elems)]
    out.append(Assign(pile.length, outer, bound, length, loc, text))
    return out


# -- piles as players see them (traces) ------------------------------------------------------------
def lengths_of(piles: dict[str, Pile]) -> dict[str, str]:
    """Each pile's name and its length slot: all `fold` needs (a saved trace's display holds it)."""
    return {p.name: p.length for p in piles.values()}


def fold(lengths: dict[str, str], state: dict[str, Any]) -> dict[str, Any]:
    """A readable state with each pile as a list, top first (its length slot dropped); an
    array of piles is a dict from the outer index to the list."""
    if not lengths:
        return state
    dropped = set(lengths.values())
    out: dict[str, Any] = {}
    for name, value in state.items():
        if name in dropped:
            continue
        if name not in lengths:
            out[name] = value
            continue
        size = state[lengths[name]]
        if isinstance(size, dict):
            out[name] = {outer: [value[(*outer, k)] for k in range(n)] for outer, n in size.items()}
        else:
            out[name] = [value[(k,)] for k in range(size)]
    return out


def unfold(piles: dict[str, Pile], shown: dict[str, Any]) -> dict[str, Any]:
    """The inverse of `fold`: a state with piles as lists back as the slots that store them."""
    out: dict[str, Any] = {}
    for name, value in shown.items():
        pile = piles.get(name)
        if pile is None:
            out[name] = value
            continue
        rows = {(): value} if not pile.outer else value
        elements: dict[tuple, Any] = {}
        lengths: dict[tuple, int] = {}
        for outer, cards in rows.items():
            lengths[outer] = len(cards)
            for k in range(pile.size):
                elements[(*outer, k)] = cards[k] if k < len(cards) else pile.empty
        out[name] = elements
        out[pile.length] = lengths[()] if not pile.outer else lengths
    return out
