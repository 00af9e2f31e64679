"""Symmetry reduction: `symmetric: [player]` explores one state per arrangement of the members.

When the rules treat the members of an enum domain alike (any player could be any other), a
state and the same state with the members renamed have the same future up to that renaming, so
the explicit engine keeps one representative of each class: the smallest packed integer among
the state's images under every permutation of the members. Every property that is itself
symmetric has the same verdict on the reduced graph.

Whether the model and its properties really are symmetric is checked, not assumed: naming a
member (`turn == alice`, `score[bob]`, `turn: alice` in `init`), ordering members (`succ`,
`pred`, `<`, `min`/`max` of members), a constant table whose entries differ between members, or
a constant holding a member is a located error. What cannot be seen in the text is the modeller's
obligation (docs/language.md): for instance a player's position in the domain's list that the
narrative relies on.

A path on the reduced graph is a path of representatives; `concretise` turns it back into a
play of the model (each representative's successor, renamed by the permutations so far), and a
loop is gone round until the renaming returns to where it started, so traces replay in the
interpreter unchanged.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable
from typing import Any

from checker.errors import Loc, RulecheckError
from checker.lang.expr import COMPARE, Agg, Binary, Call, Expr, Lit, walk
from checker.lang.layout import Layout
from checker.lang.model import Config, Model

Perm = dict[str, dict[str, str]]  # per symmetric domain, each member's image


def model_expressions(model: Model) -> Iterable[Expr]:
    """Every expression the rules consist of (definitions are inlined into them)."""
    yield model.terminal
    yield from model.init_where
    if model.outcome is not None:
        yield model.outcome
    for elems in model.init.values():
        for elem in elems.values():
            if elem.value is not None:
                yield elem.value
            if elem.choices is not None and not _every_member(model, elem.choices):
                yield from elem.choices
    for action in model.actions.values():
        yield from (e for e in (action.guard, action.weight, action.actor) if e is not None)
        for assign in action.assigns:
            yield assign.value
            yield from assign.indices


def _every_member(model: Model, choices: tuple[Expr, ...]) -> bool:
    """A choice among every member of a symmetric domain (`{choose: player}`) names none of them."""
    if not choices or not all(isinstance(c, Lit) and c.type.kind == "enum" and c.type.domain in model.symmetric for c in choices):
        return False
    domain = model.domains[str(choices[0].type.domain)]
    return sorted(str(c.value) for c in choices if isinstance(c, Lit)) == sorted(domain.members or ())


def _breaks(expr: Expr, domains: tuple[str, ...]) -> tuple[str, Loc | None] | None:
    """The first node of `expr` that tells members of a symmetric domain apart, with why."""
    def symmetric_enum(e: Expr | None) -> str | None:
        return e.type.domain if e is not None and e.type.kind == "enum" and e.type.domain in domains else None

    for node in walk(expr):
        if isinstance(node, Lit) and symmetric_enum(node):
            return f"names the member `{node.value}` of the symmetric domain `{node.type.domain}`", node.loc
        if isinstance(node, Call) and node.fn in ("succ", "pred") and node.domain is not None and node.domain.name in domains:
            return f"`{node.fn}` orders the members of the symmetric domain `{node.domain.name}`", node.loc
        if isinstance(node, Binary) and node.op in COMPARE - {"==", "!="} and symmetric_enum(node.left):
            return f"`{node.op}` orders the members of the symmetric domain `{symmetric_enum(node.left)}`", node.loc
        if isinstance(node, Agg) and node.op in ("min", "max") and symmetric_enum(node.body):
            return f"`{node.op}` of members orders the symmetric domain `{symmetric_enum(node.body)}`", node.loc
    return None


def check_symmetric(model: Model) -> None:
    """Refuse, located, a model that breaks its declared symmetry."""
    if model.symmetric:
        check_expressions(model, [("the model", e, None) for e in model_expressions(model)])
        check_constants(model, model.default_config())


def check_expressions(model: Model, labelled: Iterable[tuple[str, Expr | None, Loc | None]]) -> None:
    """Refuse, located, an expression ((what it belongs to, the expression, a fallback place))
    that tells members of a symmetric domain apart."""
    for what, expr, where in labelled:
        broken = _breaks(expr, model.symmetric) if expr is not None and model.symmetric else None
        if broken is not None:
            why, loc = broken
            raise RulecheckError(f"`symmetric: [{', '.join(model.symmetric)}]` does not hold: {what} {why}", loc or where or model.symmetric_loc,
                                 hint="remove the domain from `symmetric`, or write the rule without singling out a member")


def check_constants(model: Model, config: Config) -> None:
    """Constants under `config` must not single out a member either (a `--set` may)."""
    for name, const in model.constants.items():
        value = config.constants[name]
        if const.elem.type.kind == "enum" and const.elem.type.domain in model.symmetric:
            raise RulecheckError(f"`symmetric`: constant `{name}` holds a member of the symmetric domain `{const.elem.type.domain}`", const.loc)
        if not any(d.name in model.symmetric for d in const.dims):
            continue
        for perm in permutations(model):
            for key, cell in value.items():
                image = tuple(perm[dom.name][k] if dom.name in perm else k for k, dom in zip(key, const.dims))
                if value[image] != cell:
                    raise RulecheckError(f"`symmetric`: constant `{name}` differs between members ({name}[{', '.join(map(str, key))}] = {cell}, "
                                         f"{name}[{', '.join(map(str, image))}] = {value[image]})", const.loc)


def permutations(model: Model) -> list[Perm]:
    """Every renaming of the symmetric domains' members (domain -> member -> its image); the
    identity first."""
    per_domain = []
    for name in model.symmetric:
        members = model.domains[name].members or ()
        per_domain.append([(name, dict(zip(members, images))) for images in itertools.permutations(members)])
    return [dict(combo) for combo in itertools.product(*per_domain)]


class Symmetry:
    """The renamings of one model configuration as operations on packed states."""

    def __init__(self, model: Model, config: Config, layout: Layout) -> None:
        check_constants(model, config)
        self.perms = permutations(model)
        self.keys = [_key(p) for p in self.perms]
        self.index = {key: i for i, key in enumerate(self.keys)}
        self.layout = layout
        # per renaming, per field: (source offset, mask, target offset, the value's code map or None)
        self.moves = [self._field_moves(model, layout, perm) for perm in self.perms]

    @staticmethod
    def _field_moves(model: Model, layout: Layout, perm: Perm) -> list[tuple[int, int, int, list[int] | None]]:
        moves = []
        for field in layout.fields:
            slot = model.slots[field.slot]
            image = tuple(perm[dom.name][i] if dom.name in perm else i for i, dom in zip(field.index, slot.dims))
            target = layout.by_element[(field.slot, image)]
            codes = None
            if field.members is not None and slot.elem.type.domain in perm:
                renamed = perm[slot.elem.type.domain]
                codes = [field.members.index(renamed[m]) for m in field.members]
            moves.append((field.offset, field.mask, target.offset, codes))
        return moves

    def apply(self, which: int, packed: int) -> int:
        """The packed state with its members renamed by permutation number `which`."""
        out = 0
        for offset, mask, target, codes in self.moves[which]:
            code = (packed >> offset) & mask
            out |= (codes[code] if codes is not None else code) << target
        return out

    def canonical(self, packed: int) -> int:
        """The representative of the state's class: its smallest image."""
        return min(self.apply(i, packed) for i in range(len(self.perms)))

    def canonical_with(self, packed: int) -> tuple[int, int]:
        """The representative and the number of a renaming that gives it."""
        return min((self.apply(i, packed), i) for i in range(len(self.perms)))

    def compose(self, outer: int, inner: int) -> int:
        """The renaming `outer` after `inner`."""
        a, b = self.perms[outer], self.perms[inner]
        return self.index[_key({d: {m: a[d][b[d][m]] for m in b[d]} for d in b})]

    def inverse(self, which: int) -> int:
        perm = self.perms[which]
        return self.index[_key({d: {v: k for k, v in perm[d].items()} for d in perm})]

    def rename_params(self, which: int, params: dict[str, Any], domains: dict[str, Any]) -> dict[str, Any]:
        perm = self.perms[which]
        return {k: perm[domains[k].name].get(v, v) if domains[k].name in perm else v for k, v in params.items()}


def _key(perm: Perm) -> tuple:
    return tuple((d, tuple(sorted(perm[d].items()))) for d in sorted(perm))


def concretise(sym: Symmetry, states: list[int] | Any, path: list[int], successors: Callable[[int], list[tuple[int, int]]],
               last_instance: int | None = None, loop_start: int | None = None) -> tuple[list[int], int]:
    """A path of representatives (node numbers into `states`) as a play of the model: packed
    states each a successor of the one before, starting from the first representative (the
    initial states are closed under renaming, so it is initial). `last_instance` fixes the move
    of the last step (an `after` violation was seen on that move); a loop (`loop_start`) is gone
    round again until it returns to the very state it started from. Returns the play and the
    renaming in force at its end (to rename the moves found there)."""
    play = [int(states[path[0]])]
    renaming = 0  # the identity: play[k] is `renaming` applied to the representative states[path[k]]

    def step(source: int, target: int, want: int | None) -> None:
        nonlocal renaming
        for inst, succ in successors(int(states[source])):
            if want is not None and inst != want:
                continue
            best, which = sym.canonical_with(succ)
            if best == int(states[target]):
                play.append(sym.apply(renaming, succ))
                renaming = sym.compose(renaming, sym.inverse(which))
                return
        raise AssertionError("a representative's successor is missing from the reduced graph")

    for k in range(1, len(path)):
        step(path[k - 1], path[k], last_instance if k == len(path) - 1 else None)
    if loop_start is not None:
        cycle = path[loop_start:]
        for _ in range(len(sym.perms)):
            if play[-1] == play[loop_start]:
                break
            for k in range(1, len(cycle)):
                step(cycle[k - 1], cycle[k], None)
    return play, renaming
