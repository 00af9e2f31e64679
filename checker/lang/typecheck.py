"""From Python `ast` to the typed IR, with located errors.

Expressions are parsed with `ast.parse(mode="eval")`; only a whitelist of node types is
accepted. Every name is resolved here (slot, constant, parameter, enum member, reading,
definition) and every operator's operand types are checked, so engines never meet an ill-typed
expression. Definitions are inlined: their arguments are checked at the call site and bound to
the parameters while the body is checked. Inlining is hygienic: a loop variable bound inside a
definition's body gets an IR name qualified by the chain of definitions being inlined
(`p@outer/inner`), which no name visible at the call site can carry, so an argument mentioning
the caller's own `p` is never captured by the body's `for p in ...`.
"""

from __future__ import annotations

import ast
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import cast

from checker.errors import Loc, RulecheckError, did_you_mean
from checker.lang import piles
from checker.lang.expr import Agg, Binary, Call, Cond, ConstRef, Expr, Lit, Old, ReadingRef, SlotRef, Unary, Var
from checker.lang.model import Pile
from checker.lang.piles import PILE_FUNCTIONS, PileValue
from checker.lang.types import BOOL, INT, Domain, ElemType, Type, enum
from checker.lang.yamlsrc import MAX_DIGITS
from checker.limits import MAX_NESTING

AGGREGATES = {"sum", "count", "any", "all", "min", "max"}
FUNCTIONS = AGGREGATES | {"abs", "succ", "pred", "old"}
KEYWORDS = {"true": True, "false": False, "True": True, "False": False}

DISALLOWED = {
    ast.Lambda: "a lambda",
    ast.ListComp: "a list comprehension",
    ast.SetComp: "a set comprehension",
    ast.DictComp: "a dict comprehension",
    ast.List: "a list",
    ast.Tuple: "a tuple",
    ast.Dict: "a dict",
    ast.Set: "a set",
    ast.JoinedStr: "an f-string",
    ast.NamedExpr: "an assignment expression",
    ast.Await: "await",
    ast.Yield: "yield",
    ast.Starred: "a starred expression",
    ast.Slice: "a slice",
}


@dataclass
class DefineSrc:
    """A named expression as written, checked where it is used."""

    name: str
    params: tuple[str, ...]
    text: str
    loc: Loc


@dataclass
class Scope:
    """Every name a model declares, for resolving expressions."""

    domains: dict[str, Domain]
    slots: dict[str, tuple[ElemType, tuple[Domain, ...]]]
    constants: dict[str, tuple[ElemType, tuple[Domain, ...]]]
    readings: dict[str, Domain]  # reading name -> the domain of its options
    defines: dict[str, DefineSrc] = field(default_factory=dict)
    piles: dict[str, Pile] = field(default_factory=dict)  # ordered piles, by name (their slots are in `slots`)
    # parameterless definitions checked once and shared: (name, old allowed) -> typed body
    checked_defines: dict[tuple[str, bool], Expr] = field(default_factory=dict, repr=False, compare=False)

    def domain_of(self, type_: Type) -> Domain | None:
        """The domain behind an enum type (a declared domain or a reading's options)."""
        if type_.kind != "enum" or type_.domain is None:
            return None
        if type_.domain in self.domains:
            return self.domains[type_.domain]
        return self.readings.get(type_.domain.removeprefix("reading."))

    def member_domains(self, member: str) -> list[Domain]:
        return [d for d in self.domains.values() if d.members and member in d.members]

    def pile_of_type(self, type_: Type) -> Pile | None:
        """A declared pile whose elements have the element type of the pile type `type_`."""
        return next((p for p in self.piles.values() if piles.pile_type(p.elem) == type_), None)

    def all_names(self) -> list[str]:
        names = list(self.slots) + list(self.constants) + list(self.defines) + list(self.domains)
        for d in self.domains.values():
            names.extend(d.members or ())
        return names


@dataclass(frozen=True)
class LoopVar:
    """A variable bound by an aggregate: the domain it ranges over and its name in the IR.

    The IR name differs from the source name inside a definition's body (see `loop_var_name`)."""

    ir_name: str
    domain: Domain


Binding = Domain | LoopVar | Expr  # ranges over a domain (under its own name or an IR name), or stands for a checked argument


def loop_var_name(name: str, define_stack: tuple[str, ...]) -> str:
    """The IR name of loop variable `name` bound inside the definitions `define_stack`.

    Source names are identifiers, so a qualified name never meets one. Every variable visible
    while a definition's body is checked was bound by a caller, that is under a proper prefix of
    the body's chain (definitions are not recursive), so the body's own loop variables, named
    after the full chain, cannot capture a caller's variable passed in an argument. The name is
    the same on every inlining from the same chain, so equal calls still give equal IR."""
    if not define_stack:
        return name
    return f"{name}@{'/'.join(define_stack)}"


class _Ambiguous(Exception):
    """A bare enum member that several domains share; the caller retries with an expected type."""


def _src_loc(base: Loc, node: ast.AST, quoted_offset: int = 0) -> Loc:
    lineno = getattr(node, "lineno", 1)
    col = getattr(node, "col_offset", 0)
    return base.shifted(lineno - 1, col + quoted_offset)


class ExprChecker:
    """Checks one expression string found at `loc` against a scope."""

    def __init__(
        self,
        scope: Scope,
        text: str,
        loc: Loc,
        bindings: dict[str, Binding] | None = None,
        allow_old: bool = False,
        define_stack: tuple[str, ...] = (),
    ) -> None:
        self.scope = scope
        self.text = str(text)
        self.loc = loc
        self.bindings = dict(bindings or {})
        self.allow_old = allow_old
        self.define_stack = define_stack

    # -- entry points -------------------------------------------------------------------
    def parse(self) -> ast.expr:
        source = self.text.strip()
        if isinstance(self.text, bool):
            source = str(self.text)
        foreign = next((i for i, ch in enumerate(source) if ord(ch) > 127), None)
        if foreign is not None:
            ch = source[foreign]
            twin = unicodedata.normalize("NFKC", ch)
            loc = self.loc.shifted(source.count("\n", 0, foreign), foreign - (source.rfind("\n", 0, foreign) + 1))
            why = f"Python would read it as `{twin}`, silently" if twin != ch and twin.isascii() else "names are ASCII letters, digits and _"
            raise RulecheckError(f"`{ch}` (U+{ord(ch):04X}) is not allowed in an expression: {why}", loc, source[:80], f"write `{twin}`" if twin.isascii() else None)
        long_number = re.search(rf"\d{{{MAX_DIGITS + 1},}}", source)
        if long_number is not None:
            digits = len(long_number.group())
            loc = self.loc.shifted(source.count("\n", 0, long_number.start()), long_number.start() - (source.rfind("\n", 0, long_number.start()) + 1))
            raise RulecheckError(f"an integer literal of {digits:,} digits: numbers in a model have at most {MAX_DIGITS:,}", loc, source[:80] + ("..." if len(source) > 80 else ""))
        try:
            tree = ast.parse(source, mode="eval")
        except SyntaxError as exc:
            loc = self.loc.shifted((exc.lineno or 1) - 1, max((exc.offset or 1) - 1, 0))
            raise RulecheckError(
                f"cannot parse expression: {exc.msg}", loc, source,
                "expressions use Python syntax: `a and b`, `x == y`, `sum(v[k] for k in kind)`",
            ) from None
        except (RecursionError, MemoryError):
            raise RulecheckError("expression too deeply nested to parse", self.loc, source[:80], f"at most {MAX_NESTING} levels; name parts with `define`") from None
        self.check_nesting(tree.body)
        return tree.body

    def check_nesting(self, root: ast.AST) -> None:
        """Refuse expressions nested deeper than MAX_NESTING, measured without recursion.
        Chains of `and`, `or`, `+` or `*` count as one level: they are built as balanced
        trees, so their length is free."""
        stack: list[tuple[ast.AST, int]] = [(root, 1)]
        while stack:
            node, depth = stack.pop()
            if depth > MAX_NESTING:
                raise self.fail(node, f"expression nested more than {MAX_NESTING} levels deep", "name inner parts with `define`, or flatten the expression")
            for child in ast.iter_child_nodes(node):
                same_chain = (
                    isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Mult)) and child is node.left
                    and isinstance(child, ast.BinOp) and type(child.op) is type(node.op)
                ) or isinstance(child, (ast.expr_context, ast.operator, ast.boolop, ast.cmpop, ast.unaryop))
                stack.append((child, depth if same_chain else depth + 1))

    def check(self, expected: Type | None = None) -> Expr:
        node = self.parse()
        return self.expect(node, expected)

    # -- helpers ------------------------------------------------------------------------
    def fail(self, node: ast.AST, message: str, hint: str | None = None) -> RulecheckError:
        try:
            text = ast.unparse(node)
        except Exception:  # noqa: BLE001 - unparse of odd nodes is only for the message
            text = self.text
        return RulecheckError(message, _src_loc(self.loc, node), text, hint)

    def expect(self, node: ast.AST, expected: Type | None) -> Expr:
        expr = self.visit(node, expected)
        if expected is not None and expr.type != expected:
            raise self.fail(node, f"type mismatch: expected {expected}, found {expr.type}", self._type_hint(expected, expr))
        return expr

    def _type_hint(self, expected: Type, expr: Expr) -> str | None:
        if expr.type.kind == "pile":
            return "a pile is read with top(...), bottom(...), len(...) or pile[i]"
        if expected.kind == "pile":
            return "a pile is a stored pile, [], [a, b], or draw/put_top/put_bottom/remove of a pile"
        if expected == BOOL and expr.type == INT:
            return "compare it, for example `... > 0`"
        if expected.kind == "enum" and expr.type.kind == "enum":
            dom = self.scope.domain_of(expected)
            if dom and dom.members:
                return f"a {expected} is one of: {', '.join(dom.members)}"
        return None

    def visit(self, node: ast.AST, expected: Type | None) -> Expr:
        if isinstance(node, ast.List) and expected is not None and expected.kind == "pile":
            return self.pile_list(node, expected)
        for bad, what in DISALLOWED.items():
            if isinstance(node, bad):
                raise self.fail(node, f"{what} is not part of the model language")
        method = getattr(self, f"visit_{type(node).__name__}", None)
        if method is None:
            raise self.fail(node, f"`{type(node).__name__}` expressions are not part of the model language")
        return method(node, expected)

    def at(self, node: ast.AST) -> Loc:
        return _src_loc(self.loc, node)

    # -- leaves -------------------------------------------------------------------------
    def visit_Constant(self, node: ast.Constant, expected: Type | None) -> Expr:
        value = node.value
        if isinstance(value, bool):
            return Lit(BOOL, value=value, loc=self.at(node))
        if isinstance(value, int):
            return Lit(INT, value=value, loc=self.at(node))
        raise self.fail(node, f"{type(value).__name__} literals are not part of the model language", "use integers, true/false, or enum members")

    def visit_Name(self, node: ast.Name, expected: Type | None) -> Expr:
        name = node.id
        loc = self.at(node)
        if name in KEYWORDS:
            return Lit(BOOL, value=KEYWORDS[name], loc=loc)
        if name in self.bindings:
            bound = self.bindings[name]
            if isinstance(bound, Domain):
                return Var(bound.type, name=name, loc=loc)
            if isinstance(bound, LoopVar):
                return Var(bound.domain.type, name=bound.ir_name, loc=loc)
            return bound
        if expected is not None and expected.kind == "enum":
            # Context decides: where a member of the expected enum (or reading) is wanted, a
            # name that is one wins over a slot or constant of the same name.
            dom = self.scope.domain_of(expected)
            if dom is not None and dom.members and name in dom.members:
                return Lit(expected, value=name, loc=loc)
        if name in self.scope.defines:
            return self.inline(node, self.scope.defines[name], [])
        if name in self.scope.piles:
            pile = self.scope.piles[name]
            if pile.outer:
                raise self.fail(node, f"`{name}` is an array of piles over {', '.join(d.name for d in pile.outer)}", f"index it, as in `{name}[{pile.outer[0].name[0]}]`")
            return piles.stored(pile, (), loc)
        if name in self.scope.slots:
            elem, dims = self.scope.slots[name]
            if dims:
                raise self.fail(node, f"`{name}` is an array over {', '.join(d.name for d in dims)}", f"index it, as in `{name}[{dims[0].name[0]}]`, or aggregate it with sum(...)")
            return SlotRef(elem.type, name=name, loc=loc)
        if name in self.scope.constants:
            elem, dims = self.scope.constants[name]
            if dims:
                raise self.fail(node, f"`{name}` is a table over {', '.join(d.name for d in dims)}", f"index it, as in `{name}[...]`")
            return ConstRef(elem.type, name=name, loc=loc)
        member = self.member(node, name, expected)
        if member is not None:
            return member
        if name in self.scope.domains:
            raise self.fail(node, f"`{name}` is a domain, not a value", f"iterate it: `sum(... for x in {name})`")
        if name == "reading":
            raise self.fail(node, "`reading` needs a reading name", "write `reading.NAME == OPTION`")
        raise self.fail(node, f"unknown name `{name}`", did_you_mean(name, list(self.bindings) + self.scope.all_names()) or yaml11_bool_hint(name))

    def member(self, node: ast.AST, name: str, expected: Type | None) -> Expr | None:
        """Resolve a bare enum member (or reading option) by the expected type."""
        loc = self.at(node)
        if expected is not None and expected.kind == "enum":
            dom = self.scope.domain_of(expected)
            if dom is not None and dom.members and name in dom.members:
                return Lit(expected, value=name, loc=loc)
        owners = self.scope.member_domains(name)
        if len(owners) == 1:
            return Lit(owners[0].type, value=name, loc=loc)
        if len(owners) > 1:
            if expected is None:
                raise _Ambiguous(name)
            names = ", ".join(f"`{d.name}.{name}`" for d in owners)
            raise self.fail(node, f"`{name}` is a member of several domains", f"write one of {names}")
        reading_owners = [d for d in self.scope.readings.values() if name in (d.members or ())]
        if reading_owners:
            if expected is None:
                raise _Ambiguous(name)
            raise self.fail(node, f"`{name}` is an option of a reading, not a {expected}", "compare it with the reading: `reading.NAME == OPTION`")
        return None

    def visit_Attribute(self, node: ast.Attribute, expected: Type | None) -> Expr:
        if isinstance(node.value, ast.Name):
            base = node.value.id
            if base == "reading":
                if node.attr not in self.scope.readings:
                    raise self.fail(node, f"unknown reading `{node.attr}`", did_you_mean(node.attr, self.scope.readings))
                options = self.scope.readings[node.attr]
                return ReadingRef(options.type, name=node.attr, loc=self.at(node))
            dom = self.scope.domains.get(base)
            if dom is not None and dom.members is not None:
                if node.attr not in dom.members:
                    raise self.fail(node, f"`{node.attr}` is not a member of {base}", did_you_mean(node.attr, dom.members) or f"{base} is one of: {', '.join(dom.members)}")
                return Lit(dom.type, value=node.attr, loc=self.at(node))
        raise self.fail(node, "attribute access is not part of the model language", "only `reading.NAME` and `domain.member` are allowed")

    # -- indexing ------------------------------------------------------------------------
    def visit_Subscript(self, node: ast.Subscript, expected: Type | None) -> Expr:
        base, index_nodes = self.subscript_chain(node)
        name = base.id
        if name in self.scope.piles and name not in self.bindings and name not in self.scope.defines:
            return self.pile_subscript(node, self.scope.piles[name], index_nodes)
        if name in self.scope.slots:
            elem, dims = self.scope.slots[name]
            kind = "slot"
        elif name in self.scope.constants:
            elem, dims = self.scope.constants[name]
            kind = "table"
        else:
            if name in self.bindings or name in self.scope.defines:
                raise self.fail(node, f"`{name}` cannot be indexed")
            raise self.fail(base, f"unknown name `{name}`", did_you_mean(name, list(self.scope.slots) + list(self.scope.constants)))
        if len(index_nodes) != len(dims):
            what = ", ".join(d.name for d in dims) or "nothing (it is a scalar)"
            raise self.fail(node, f"`{name}` takes {len(dims)} index(es) ({what}), found {len(index_nodes)}")
        indices = tuple(self.index(idx, dom, name) for idx, dom in zip(index_nodes, dims))
        if kind == "slot":
            return SlotRef(elem.type, name=name, indices=indices, loc=self.at(node))
        return ConstRef(elem.type, name=name, indices=indices, loc=self.at(node))

    def subscript_chain(self, node: ast.Subscript) -> tuple[ast.Name, list[ast.AST]]:
        indices: list[ast.AST] = []
        current: ast.AST = node
        while isinstance(current, ast.Subscript):
            if isinstance(current.slice, ast.Tuple):
                raise self.fail(current, "index one dimension at a time", "write `a[x][y]`, not `a[x, y]`")
            indices.insert(0, current.slice)
            current = current.value
        if not isinstance(current, ast.Name):
            raise self.fail(current, "only slots and tables can be indexed")
        return current, indices

    def index(self, node: ast.AST, dom: Domain, name: str) -> Expr:
        expr = self.visit(node, dom.type)
        if dom.is_enum:
            if expr.type != dom.type:
                raise self.fail(node, f"index from the wrong domain: `{name}` is indexed by {dom.name}, found {expr.type}", self._type_hint(dom.type, expr))
        elif expr.type != INT:
            raise self.fail(node, f"index from the wrong domain: `{name}` is indexed by {dom.name} (integers {dom.lo}..{dom.hi}), found {expr.type}")
        elif isinstance(expr, Lit) and not dom.contains(expr.value):
            raise self.fail(node, f"index {expr.value} is outside {dom.name} ({dom.lo}..{dom.hi})")
        return expr

    # -- operators -----------------------------------------------------------------------
    def visit_BinOp(self, node: ast.BinOp, expected: Type | None) -> Expr:
        ops = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.FloorDiv: "//", ast.Mod: "%"}
        op = ops.get(type(node.op))
        if op is None:
            hint = "integer division is `//`" if isinstance(node.op, ast.Div) else None
            raise self.fail(node, f"operator `{type(node.op).__name__}` is not part of the model language", hint)
        if op in ("+", "*"):
            # a chain `a + b + c ...` is checked without recursing down it, and built as a
            # balanced tree (the operator is associative on integers; evaluation stays left to
            # right), so its length never meets a recursion limit
            operands: list[ast.AST] = []
            current: ast.AST = node
            while isinstance(current, ast.BinOp) and type(current.op) is type(node.op):
                operands.append(current.right)
                current = current.left
            operands.append(current)
            return balanced(op, [self.expect(o, INT) for o in reversed(operands)], INT, self.at(node))
        left = self.expect(node.left, INT)
        right = self.expect(node.right, INT)
        if op in ("//", "%") and isinstance(right, Lit) and right.value == 0:
            raise self.fail(node, "division by zero", "the divisor is always 0")
        return Binary(INT, op=op, left=left, right=right, loc=self.at(node))

    def visit_UnaryOp(self, node: ast.UnaryOp, expected: Type | None) -> Expr:
        if isinstance(node.op, ast.Not):
            return Unary(BOOL, op="not", operand=self.expect(node.operand, BOOL), loc=self.at(node))
        if isinstance(node.op, ast.USub):
            operand = self.expect(node.operand, INT)
            if isinstance(operand, Lit):
                return Lit(INT, value=-cast(int, operand.value), loc=self.at(node))  # `expect(..., INT)`: an int literal
            return Unary(INT, op="neg", operand=operand, loc=self.at(node))
        if isinstance(node.op, ast.UAdd):
            return self.expect(node.operand, INT)
        raise self.fail(node, "bitwise operators are not part of the model language")

    def visit_BoolOp(self, node: ast.BoolOp, expected: Type | None) -> Expr:
        op = "and" if isinstance(node.op, ast.And) else "or"
        return balanced(op, [self.expect(v, BOOL) for v in node.values], BOOL, self.at(node))

    def visit_Compare(self, node: ast.Compare, expected: Type | None) -> Expr:
        if any(isinstance(op, (ast.In, ast.NotIn)) for op in node.ops):
            return self.membership(node)
        ops = {ast.Eq: "==", ast.NotEq: "!=", ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">="}
        operands = [node.left, *node.comparators]
        comparisons: list[Expr] = []
        for i, op_node in enumerate(node.ops):
            op = ops.get(type(op_node))
            if op is None:
                raise self.fail(node, f"`{type(op_node).__name__}` comparisons are not part of the model language", "compare with == != < <= > >=")
            left, right = self.pair(operands[i], operands[i + 1])
            if left.type.kind == "pile" or right.type.kind == "pile":
                raise self.fail(node, "piles are not compared", "compare what they hold: top(...), len(...), pile[i]")
            if left.type != right.type:
                raise self.fail(node, f"cannot compare {left.type} with {right.type}", self._type_hint(left.type, right))
            if op not in ("==", "!=") and left.type != INT:
                raise self.fail(node, f"`{op}` compares integers, found {left.type}", "enums and booleans compare with == and !=")
            comparisons.append(Binary(BOOL, op=op, left=left, right=right, loc=self.at(node)))
        return balanced("and", comparisons, BOOL, self.at(node))

    def membership(self, node: ast.Compare) -> Expr:
        """`x in [a, b, c]` is `x == a or x == b or x == c`; `x not in [...]` its negation."""
        if len(node.ops) != 1:
            raise self.fail(node, "a membership test stands alone: `x in [a, b]`", "join several tests with `and`")
        listed = node.comparators[0]
        if not isinstance(listed, (ast.List, ast.Tuple, ast.Set)) or not listed.elts:
            raise self.fail(listed, "`in` tests membership of a listed set of values: `x in [a, b]`", "list the values in brackets")
        tests: list[Expr] = []
        for item in listed.elts:
            left, right = self.pair(node.left, item)
            if left.type.kind == "pile":
                raise self.fail(node, "piles are not compared", "compare what they hold: top(...), len(...), pile[i]")
            if left.type != right.type:
                raise self.fail(item, f"cannot compare {left.type} with {right.type}", self._type_hint(left.type, right))
            tests.append(Binary(BOOL, op="==", left=left, right=right, loc=self.at(node)))
        found = balanced("or", tests, BOOL, self.at(node))
        return Unary(BOOL, op="not", operand=found, loc=self.at(node)) if isinstance(node.ops[0], ast.NotIn) else found

    def match(self, node: ast.Call, expected: Type | None) -> Expr:
        """`match(x, {a: e1, (b, c): e2, _: e3})`: the value of the first arm whose members
        include x. Without `_` the arms must cover every member of x's enum; the arms are the
        conditional `e1 if x == a else (e2 if x == b or x == c else e3)`."""
        if len(node.args) != 2 or not isinstance(node.args[1], ast.Dict) or not node.args[1].keys:
            raise self.fail(node, "wrong arguments for match()", "write match(x, {a: value, (b, c): value, _: value})")
        subject = self.visit(node.args[0], None)
        arms_node = node.args[1]
        arms: list[tuple[list[Expr], ast.AST]] = []
        seen: set[object] = set()
        fallback: ast.AST | None = None
        for key, value_node in zip(arms_node.keys, arms_node.values):
            if key is None:
                raise self.fail(value_node, "`**` is not part of the model language")
            if isinstance(key, ast.Name) and key.id == "_":
                if fallback is not None:
                    raise self.fail(key, "match() has two `_` arms")
                fallback = value_node
                continue
            if fallback is not None:
                raise self.fail(key, "the `_` arm of match() comes last")
            members: list[Expr] = []
            for item in key.elts if isinstance(key, ast.Tuple) else [key]:
                member = self.expect(item, subject.type)
                if not isinstance(member, Lit):
                    raise self.fail(item, "a match() arm lists members or literal values", "compute conditions with `x if c else y`")
                if member.value in seen:
                    raise self.fail(item, f"`{member.value}` is in two arms of match()")
                seen.add(member.value)
                members.append(member)
            arms.append((members, value_node))
        dom = self.scope.domain_of(subject.type)
        if fallback is None:
            missing = [m for m in (dom.members or ()) if m not in seen] if dom is not None else None
            if missing is None or missing:
                raise self.fail(node, "match() does not cover every value" + (f": {', '.join(missing)} missing" if missing else ""), "add the missing members, or a last arm `_: value`")
        values = [self.visit(v, expected) for _, v in arms] + ([self.visit(fallback, expected)] if fallback is not None else [])
        if expected is None:
            values = [self.expect(v, values[0].type) for _, v in arms] + ([self.expect(fallback, values[0].type)] if fallback is not None else [])
        for vnode, value in zip([v for _, v in arms] + ([fallback] if fallback is not None else []), values):
            if value.type.kind == "pile":
                raise self.fail(vnode, "match() does not choose between piles", "write `x if cond else y`")
            if value.type != values[0].type:
                raise self.fail(vnode, f"the arms of match() differ in type: {values[0].type} and {value.type}")
        result = values[-1]
        tested = arms if fallback is not None else arms[:-1]
        for (members, _), value in reversed(list(zip(tested, values))):
            test = balanced("or", [Binary(BOOL, op="==", left=subject, right=m, loc=m.loc) for m in members], BOOL, self.at(node))
            result = Cond(value.type, test=test, then=value, orelse=result, loc=self.at(node))
        return result

    def let(self, node: ast.Call, expected: Type | None) -> Expr:
        """`let(x=e1, y=e2)(body)`: the body with each name standing for its expression (each
        may use the earlier ones). A name is replaced by its expression, as a definition's
        argument is, so a `let` never changes what an expression means."""
        binder = node.func
        assert isinstance(binder, ast.Call)
        if binder.args or not binder.keywords or len(node.args) != 1 or node.keywords:
            raise self.fail(node, "wrong form of let", "write let(x=expr, y=expr)(body)")
        bindings = dict(self.bindings)
        for keyword in binder.keywords:
            name = keyword.arg
            if name is None:
                raise self.fail(keyword.value, "`**` is not part of the model language")
            if name in bindings or name in self.scope.all_names() or name == "reading":
                raise self.fail(keyword.value, f"`let` name `{name}` hides another name", "choose a name that nothing else in scope has")
            inner = ExprChecker(self.scope, self.text, self.loc, bindings, self.allow_old, self.define_stack)
            try:
                bindings[name] = inner.visit(keyword.value, None)
            except _Ambiguous:
                raise self.fail(keyword.value, "ambiguous enum member", "qualify it as `domain.member`") from None
        body = ExprChecker(self.scope, self.text, self.loc, bindings, self.allow_old, self.define_stack)
        return body.visit(node.args[0], expected)

    def pair(self, left_node: ast.AST, right_node: ast.AST) -> tuple[Expr, Expr]:
        """Check two operands that must share a type; a bare member takes the other's type."""
        try:
            left = self.visit(left_node, None)
        except _Ambiguous:
            right = self.visit(right_node, None)
            return self.visit(left_node, right.type), right
        try:
            right = self.visit(right_node, left.type)
        except _Ambiguous:
            raise self.fail(right_node, "ambiguous enum member", "qualify it as `domain.member`") from None
        return left, right

    def visit_IfExp(self, node: ast.IfExp, expected: Type | None) -> Expr:
        test = self.expect(node.test, BOOL)
        if expected is None:
            then, orelse = self.pair(node.body, node.orelse)
        else:
            then, orelse = self.visit(node.body, expected), self.visit(node.orelse, expected)
        if then.type != orelse.type:
            raise self.fail(node, f"the two branches differ in type: {then.type} and {orelse.type}")
        if isinstance(then, PileValue) and isinstance(orelse, PileValue):
            return piles.choose(test, then, orelse, self.at(node))
        return Cond(then.type, test=test, then=then, orelse=orelse, loc=self.at(node))

    # -- calls ---------------------------------------------------------------------------
    def visit_Call(self, node: ast.Call, expected: Type | None) -> Expr:
        if isinstance(node.func, ast.Name) and node.func.id == "match" and "match" not in self.scope.defines:
            return self.match(node, expected)
        if isinstance(node.func, ast.Name) and node.func.id in PILE_FUNCTIONS and node.func.id not in self.scope.defines and not node.keywords:
            return self.pile_call(node, node.func.id, expected)
        for part in (node.func, *node.args):
            for bad, what in DISALLOWED.items():
                if isinstance(part, bad):
                    raise self.fail(part, f"{what} is not part of the model language")
        if isinstance(node.func, ast.Call) and isinstance(node.func.func, ast.Name) and node.func.func.id == "let":
            return self.let(node, expected)
        if not isinstance(node.func, ast.Name):
            raise self.fail(node, "calling a method or attribute is not part of the model language", "functions are sum, count, any, all, min, max, abs, succ, pred and your definitions")
        name = node.func.id
        if node.keywords:
            raise self.fail(node, "keyword arguments are not part of the model language")
        if name in self.scope.defines:
            return self.inline(node, self.scope.defines[name], node.args)
        if name not in FUNCTIONS:
            raise self.fail(node.func, f"unknown function `{name}`", did_you_mean(name, [*FUNCTIONS, *PILE_FUNCTIONS, *self.scope.defines]))
        if name in AGGREGATES and len(node.args) == 1 and isinstance(node.args[0], ast.GeneratorExp):
            return self.aggregate(node, name, node.args[0])
        if name in ("min", "max") and len(node.args) >= 2:
            args = tuple(self.expect(a, INT) for a in node.args)
            return Call(INT, fn=name, args=args, loc=self.at(node))
        if name == "abs" and len(node.args) == 1:
            return Unary(INT, op="abs", operand=self.expect(node.args[0], INT), loc=self.at(node))
        if name in ("succ", "pred") and len(node.args) == 1:
            arg = self.visit(node.args[0], expected)
            if arg.type.kind != "enum" or arg.type.domain not in self.scope.domains:
                raise self.fail(node, f"{name}() takes an enum value, found {arg.type}")
            return Call(arg.type, fn=name, args=(arg,), domain=self.scope.domains[arg.type.domain], loc=self.at(node))
        if name == "old" and len(node.args) == 1:
            if not self.allow_old:
                raise self.fail(node, "old(...) is only allowed in `after` properties")
            inner = ExprChecker(self.scope, self.text, self.loc, self.bindings, False, self.define_stack)
            operand = inner.visit(node.args[0], expected)
            if isinstance(operand, PileValue):
                return piles.old(operand, self.at(node))
            return Old(operand.type, operand=operand, loc=self.at(node))
        forms = {
            "sum": "sum(x[k] for k in domain)", "count": "count(cond for k in domain)",
            "any": "any(cond for k in domain)", "all": "all(cond for k in domain)",
            "min": "min(a, b) or min(x[k] for k in domain)", "max": "max(a, b) or max(x[k] for k in domain)",
            "abs": "abs(a)", "succ": "succ(turn)", "pred": "pred(turn)", "old": "old(expr)",
        }
        raise self.fail(node, f"wrong arguments for {name}()", f"write {forms[name]}")

    # -- piles ---------------------------------------------------------------------------
    def pile_subscript(self, node: ast.Subscript, pile: Pile, index_nodes: list[ast.AST]) -> Expr:
        """`hand[p]` (one pile of an array of piles) or `hand[p][i]` (its card at position i,
        0 being the top)."""
        n = len(pile.outer)
        if len(index_nodes) not in (n, n + 1):
            what = f"{n} index(es) ({', '.join(d.name for d in pile.outer)})" if n else "no index"
            raise self.fail(node, f"`{pile.name}` is a pile: it takes {what}, then optionally a position (0 is the top), found {len(index_nodes)}")
        outer = tuple(self.index(idx, dom, pile.name) for idx, dom in zip(index_nodes, pile.outer))
        value = piles.stored(pile, outer, self.at(node))
        if len(index_nodes) == n:
            return value
        return piles.at(value, self.expect(index_nodes[n], INT), ast.unparse(node), self.at(node))

    def pile_list(self, node: ast.List, expected: Type) -> Expr:
        pile = self.scope.pile_of_type(expected)
        assert pile is not None, "a pile type names a declared pile's element type"
        items = [self.expect(item, pile.elem.type) for item in node.elts]
        return piles.listed(expected, items, piles.fill_of(pile, self.at(node)), self.at(node))

    def pile_arg(self, node: ast.AST, fn: str, expected: Type | None) -> PileValue:
        value = self.visit(node, expected)
        if not isinstance(value, PileValue):
            raise self.fail(node, f"{fn}() takes a pile, found {value.type}", f"write {PILE_FUNCTIONS[fn]}")
        return value

    def pile_call(self, node: ast.Call, name: str, expected: Type | None) -> Expr:
        """top, bottom, len, draw, put_top, put_bottom, remove. The pile a pile-valued call
        takes has the type it gives, so `[]` may stand there (`put_top([], c)`)."""
        arity = 2 if name in ("put_top", "put_bottom", "remove") else 1
        if len(node.args) != arity:
            raise self.fail(node, f"wrong arguments for {name}()", f"write {PILE_FUNCTIONS[name]}")
        gives_pile = name in ("draw", "put_top", "put_bottom", "remove") and expected is not None and expected.kind == "pile"
        pile = self.pile_arg(node.args[0], name, expected if gives_pile else None)
        text, loc = ast.unparse(node), self.at(node)
        if name == "len":
            assert pile.length is not None
            return pile.length
        if name == "top":
            return piles.top(pile, text, loc)
        if name == "bottom":
            return piles.bottom(pile, text, loc)
        if name == "draw":
            return piles.draw(pile, text, loc)
        if name == "remove":
            return piles.remove(pile, self.expect(node.args[1], INT), text, loc)
        assert pile.fill is not None
        card = self.expect(node.args[1], pile.fill.type)
        return (piles.put_top if name == "put_top" else piles.put_bottom)(pile, card, text, loc)

    def aggregate(self, node: ast.Call, name: str, gen: ast.GeneratorExp) -> Expr:
        bindings = dict(self.bindings)
        bound: list[tuple[str, Domain]] = []
        conditions: list[ast.AST] = []
        for comp in gen.generators:
            if not isinstance(comp.target, ast.Name):
                raise self.fail(comp.target, "the loop variable must be a plain name")
            if not isinstance(comp.iter, ast.Name) or comp.iter.id not in self.scope.domains:
                raise self.fail(comp.iter, "loops run over a domain", did_you_mean(ast.unparse(comp.iter), self.scope.domains) or f"domains: {', '.join(self.scope.domains)}")
            if comp.is_async:
                raise self.fail(comp, "async comprehensions are not part of the model language")
            dom = self.scope.domains[comp.iter.id]
            ir_name = loop_var_name(comp.target.id, self.define_stack)
            bindings[comp.target.id] = LoopVar(ir_name, dom)
            bound.append((ir_name, dom))
            conditions.extend(comp.ifs)
        inner = ExprChecker(self.scope, self.text, self.loc, bindings, self.allow_old, self.define_stack)
        body_type = {"sum": INT, "min": INT, "max": INT, "count": BOOL, "any": BOOL, "all": BOOL}[name]
        body = inner.expect(gen.elt, body_type)
        where: Expr | None = None
        for cond_node in conditions:
            cond = inner.expect(cond_node, BOOL)
            where = cond if where is None else Binary(BOOL, op="and", left=where, right=cond, loc=cond.loc)
        result_type = BOOL if name in ("any", "all") else INT
        return Agg(result_type, op=name, bound=tuple(bound), body=body, where=where, loc=self.at(node))

    def inline(self, node: ast.AST, define: DefineSrc, args: Sequence[ast.AST]) -> Expr:
        if define.name in self.define_stack:
            chain = " -> ".join((*self.define_stack, define.name))
            raise self.fail(node, f"definitions may not be recursive: {chain}")
        if len(args) != len(define.params):
            raise self.fail(node, f"`{define.name}` takes {len(define.params)} argument(s) ({', '.join(define.params)}), found {len(args)}")
        shared = (define.name, self.allow_old)
        if not define.params and shared in self.scope.checked_defines:
            return self.scope.checked_defines[shared]
        bound: dict[str, Binding] = {}
        for param, arg in zip(define.params, args):
            try:
                bound[param] = self.visit(arg, None)
            except _Ambiguous:
                raise self.fail(arg, "ambiguous enum member", "qualify it as `domain.member`") from None
        body = ExprChecker(self.scope, define.text, define.loc, bound, self.allow_old, (*self.define_stack, define.name))
        expr = body.check(None)
        if not define.params:
            self.scope.checked_defines[shared] = expr
        return expr


def check_expr(scope: Scope, text: object, loc: Loc, expected: Type | None = None, bindings: dict[str, Binding] | None = None, allow_old: bool = False) -> Expr:
    """Type-check one expression written at `loc`."""
    if isinstance(text, (bool, int)):
        literal = Lit(BOOL if isinstance(text, bool) else INT, value=text, loc=loc)
        if expected is not None and literal.type != expected:
            raise RulecheckError(f"type mismatch: expected {expected}, found {literal.type}", loc, str(text).lower() if isinstance(text, bool) else str(text))
        return literal
    if not isinstance(text, str):
        raise RulecheckError("expected an expression", loc, repr(text))
    expr = ExprChecker(scope, text, loc, bindings, allow_old).check(expected)
    if expr.type.kind == "pile" and (expected is None or expected.kind != "pile"):
        raise RulecheckError("a pile is not a value here", loc, text, "read it with top(...), bottom(...), len(...) or pile[i]")
    return expr


def balanced(op: str, items: Sequence[Expr], type_: Type, loc: Loc) -> Expr:
    """`items[0] op items[1] op ...` as a balanced tree: depth log2(n), same left-to-right
    order, for operators that are associative (and, or, +, *)."""
    if len(items) == 1:
        return items[0]
    middle = len(items) // 2
    return Binary(type_, op=op, left=balanced(op, items[:middle], type_, loc), right=balanced(op, items[middle:], type_, loc), loc=loc)


def yaml11_bool_hint(value: object) -> str | None:
    """YAML 1.1 read yes/no/on/off as booleans; rulecheck reads YAML 1.2, where they are words."""
    if isinstance(value, str) and value.lower() in ("yes", "no", "on", "off", "y", "n"):
        return f"write {'true' if value.lower() in ('yes', 'on', 'y') else 'false'}: only true and false are booleans"
    return None


def reading_domain(name: str, options: list[str]) -> Domain:
    return Domain(f"reading.{name}", members=tuple(options))


__all__ = ["Scope", "DefineSrc", "ExprChecker", "check_expr", "reading_domain", "enum"]
