"""Generated code remembered across a model's configurations, within one process.

A check generates a model's successor function once per reading combination, and again for
every grown bound of the growth re-checks: 880 generations in a cold check of the bundled
games, a fifth of its time (Ultimate's three-player model took 1.6 s a configuration). Yet a
reading deviation changes the code of the few expressions that consult it, and the rest comes
out the same. So, while the successor function is emitted (`CompiledModel._successor_source`,
after its read-counting pass), and the standalone functions and screens (`CompiledModel.function`,
`screen_source`), each guarded block and each compound expression's code is kept, in this
process, under everything its text is made from:

- the model (the object: its actions, slots, layout), and for a block its instance (id, action,
  parameters) and how many guard conjuncts are still to test (the others were hoisted into the
  dispatch: always a prefix), for an expression the node, its environment (parameters and bound
  variables) and which state it reads (`s`, or `o` for `old(...)`);
- the values of the readings and constants the expression (for a block: its action's guard,
  weight and assignments) names: the only way a configuration reaches the emitter;
- which of the fields it reads were named `s_N` when it was made (a read is spelled `s_N` or
  shift-and-mask): a later configuration may have named others, and the entry then applies only
  where the fields *it* reads are named alike.

Kept code also records the most terms of an aggregate its emission unrolled: the state budget
refuses an aggregate larger than it, so kept code is reused under no budget or one that allows
that many, and otherwise made again (which refuses as it did before this memo).

Code whose emission hoisted a helper function (`Emitter.hoist`) is not kept: the helper's name
depends on what was emitted before it. Making a block names fields for the blocks after it
(`_read_fields_once`); a reused block names them again. So the generated source is the same
bytes with or without this memo, in any order of configurations (`tests/test_emit_memo.py`).
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

from checker.lang.expr import ConstRef, Expr, ReadingRef, children
from checker.lang.model import Action, Config, Model
from checker.limits import WorkLimit

MODELS = 6  # models whose code a process keeps (the least recently used are dropped first)
CHARS_PER_MODEL = 60_000_000  # a model's kept text past which its memo starts again


@dataclass(frozen=True)
class Kept:
    """Generated code and what made it."""

    reads: frozenset[tuple[str, int]]  # every field its emission read
    named: frozenset[tuple[str, int]]  # those of `reads` spelled `s_N` when it was made
    made: Any  # the code (a block: `CompiledModel._guarded_block`'s value)
    names: frozenset[tuple[str, int]] = frozenset()  # a block: the fields it named `s_N` for the blocks after it
    node: Any = None  # an expression's node, held so that the id in its key stays the node's
    terms: int = 0  # the most terms of an aggregate its emission unrolled (the budget it needs)


class ModelMemo:
    """One model's kept code, and which readings and constants each node and action names."""

    def __init__(self, model: Model) -> None:
        self.model = model  # held, so that the ids keying this memo stay its nodes'
        self.kept: dict[tuple, list[Kept]] = {}
        self.chars = 0
        self._names: dict[int, frozenset[str]] = {}  # node id -> "r:reading" / "c:constant" names under it
        self._action_names: dict[str, frozenset[str]] = {}
        self._interned: dict[tuple[str, Any], int] = {}

    def names(self, expr: Expr) -> frozenset[str]:
        """The readings and constants `expr` names, anywhere under it."""
        out = self._names.get(id(expr))
        if out is None:
            own = {f"r:{expr.name}"} if isinstance(expr, ReadingRef) else {f"c:{expr.name}"} if isinstance(expr, ConstRef) else set()
            out = frozenset(own.union(*(self.names(child) for child in children(expr))))
            self._names[id(expr)] = out
        return out

    def action_names(self, action: Action) -> frozenset[str]:
        """The readings and constants `action`'s guard, weight and assignments name."""
        if action.name not in self._action_names:
            exprs = [action.guard, *(e for e in (action.weight,) if e is not None)]
            for assign in action.assigns:
                exprs += [assign.value, *assign.indices]
            self._action_names[action.name] = frozenset().union(*(self.names(e) for e in exprs))
        return self._action_names[action.name]

    def values(self, config: Config) -> dict[str, int]:
        """Each reading's and constant's value under `config`, as a small number (tables are
        large keys to hash at every lookup)."""
        named = {**{f"r:{n}": v for n, v in config.readings.items()}, **{f"c:{n}": _frozen(v) for n, v in config.constants.items()}}
        return {name: self._interned.setdefault((name, value), len(self._interned)) for name, value in named.items()}

    def find(self, key: tuple, cached: set[tuple[str, int]]) -> Kept | None:
        """Code kept under `key` whose read fields are named now as they were then."""
        for kept in self.kept.get(key, ()):
            if frozenset(r for r in kept.reads if r in cached) == kept.named:
                return kept
        return None

    def keep(self, key: tuple, kept: Kept, chars: int) -> None:
        if self.chars + chars > CHARS_PER_MODEL:
            self.kept.clear()
            self.chars = 0
        self.kept.setdefault(key, []).append(kept)
        self.chars += chars


class Remembering:
    """One emission's view of its model's memo: the configuration's values and the budget."""

    def __init__(self, memo: ModelMemo, config: Config, limit: WorkLimit | None) -> None:
        self.memo = memo
        self.values = memo.values(config)
        self.max_items = limit.max_items if limit is not None else None
        self._consulted: dict[int, tuple[int, ...]] = {}

    def consulted(self, expr: Expr) -> tuple[int, ...]:
        out = self._consulted.get(id(expr))
        if out is None:
            out = self._consulted[id(expr)] = tuple(sorted(self.values[n] for n in self.memo.names(expr)))
        return out

    def find(self, key: tuple, cached: set[tuple[str, int]]) -> Kept | None:
        """Kept code for `key` that this budget lets be generated (`ModelMemo.find`)."""
        kept = self.memo.find(key, cached)
        if kept is not None and self.max_items is not None and kept.terms > self.max_items:
            return None  # made again, so that the budget refuses it where it always did
        return kept

    def expression_key(self, expr: Expr, env: dict[str, Any], state: str) -> tuple:
        return (id(expr), state, tuple(env.items()), self.consulted(expr))

    def block_key(self, instance: Any, conjuncts: int) -> tuple:
        action = instance.action
        consulted = tuple(sorted(self.values[n] for n in self.memo.action_names(action)))
        return ("block", instance.id, action.name, instance.params, conjuncts, consulted)


def _frozen(value: Any) -> Any:
    """A constant's value as a key: a table as its sorted cells."""
    return tuple(sorted(value.items())) if isinstance(value, dict) else value


_MODELS: OrderedDict[int, ModelMemo] = OrderedDict()


def memo_of(model: Model) -> ModelMemo:
    """The model's memo, made the most recently used (the oldest dropped past `MODELS`)."""
    memo = _MODELS.get(id(model))
    if memo is None or memo.model is not model:
        memo = _MODELS[id(model)] = ModelMemo(model)
        while len(_MODELS) > MODELS:
            _MODELS.popitem(last=False)
    _MODELS.move_to_end(id(model))
    return memo


def forget() -> None:
    """Drop everything kept (tests generating from scratch)."""
    _MODELS.clear()
