"""Common subexpressions of generated code, computed once.

The emitter unrolls quantifiers and expands a model's functions at every use, so one property
can repeat the same subexpression hundreds of times (Ultimate's `no-mutual-defeat` compared the
same card values, each a dozen operations, in 625,000 characters of one expression). numba's
compile time grows faster than a function's size, so such an expression is generated as local
variables, each repeated subexpression computed once, and the expression over them.

Only subexpressions that cannot raise a modelling error are moved out (no helper that checks
anything, `RAISING`): the generated code has no side effects otherwise, so computing them before
the expression, even where its `and`, `or` or `if` would have skipped them, changes no value and
no error. Which subexpressions to share is decided on the expression's syntax tree (equal
subtrees, compared structurally), and a shared value used only once is put back in place.
"""

from __future__ import annotations

import ast
import functools

RAISING = frozenset({"_req", "_div", "_mod", "_ix", "_pmin", "_pmax", "_empty", "_range", "_twice"})
MIN_NODES = 6  # smaller repeated subexpressions (a field read) cost less to repeat than to name


class _Shapes:
    """Every subtree's structural identity (equal subtrees, equal numbers), size, whether it
    may be moved out, and how often it occurs."""

    def __init__(self) -> None:
        self.ids: dict[tuple, int] = {}
        self.of: dict[int, int] = {}  # id(node) -> shape number
        self.size: dict[int, int] = {}
        self.movable: dict[int, bool] = {}
        self.count: dict[int, int] = {}

    def visit(self, node: ast.AST) -> int:
        fields: list[object] = [type(node).__name__]
        size, movable = 1, True
        for name, value in ast.iter_fields(node):
            if isinstance(value, ast.AST):
                shape = self.visit(value)
                fields.append((name, shape))
                size += self.size[shape]
                movable = movable and self.movable[shape]
            elif isinstance(value, list):
                shapes = tuple(self.visit(v) if isinstance(v, ast.AST) else v for v in value)
                fields.append((name, shapes))
                for v, shape in zip(value, shapes):
                    if isinstance(v, ast.AST):
                        size += self.size[shape]
                        movable = movable and self.movable[shape]
            else:
                fields.append((name, value))
        if isinstance(node, ast.Call):
            movable = movable and not (isinstance(node.func, ast.Name) and node.func.id in RAISING)
        key = tuple(fields)
        shape = self.ids.setdefault(key, len(self.ids))
        self.of[id(node)] = shape
        self.size[shape] = size
        self.movable[shape] = movable and not isinstance(node, (ast.Starred, ast.Lambda, ast.NamedExpr))
        self.count[shape] = self.count.get(shape, 0) + 1
        return shape


def _has_name(node: ast.AST) -> bool:
    return any(isinstance(n, ast.Name) for n in ast.walk(node))


def shared(text: str, prefix: str) -> tuple[list[str], str]:
    """`text` (an expression) as assignments of its repeated subexpressions to variables
    `<prefix><n>` and the expression over them: (assignment lines, expression)."""
    lines, (out,) = shared_by([text], prefix)
    return lines, out


def shared_by(texts: list[str], prefix: str) -> tuple[list[str], list[str]]:
    """`shared` for expressions evaluated together: the subexpressions they repeat, between
    them or within one, computed once before all of them."""
    trees = [ast.parse(text, mode="eval").body for text in texts]
    shapes = _Shapes()
    for tree in trees:
        shapes.visit(tree)
    defined: dict[int, str] = {}
    definitions: list[tuple[str, ast.expr]] = []

    def share(node: ast.expr) -> bool:
        shape = shapes.of[id(node)]
        return shapes.count[shape] >= 2 and shapes.size[shape] >= MIN_NODES and shapes.movable[shape] and _has_name(node)

    class Rewrite(ast.NodeTransformer):
        def visit(self, node: ast.AST) -> ast.AST:
            if isinstance(node, ast.expr) and share(node):
                shape = shapes.of[id(node)]
                if shape not in defined:
                    value = self.generic_visit(node)  # an expression's children rewritten in place: still that expression
                    assert isinstance(value, ast.expr)
                    defined[shape] = f"{prefix}{len(definitions)}"
                    definitions.append((defined[shape], value))
                return ast.Name(defined[shape], ast.Load())
            return self.generic_visit(node)

    bodies = [Rewrite().visit(tree) for tree in trees]
    uses: dict[str, int] = {}
    for node in [*bodies, *(value for _, value in definitions)]:
        for n in ast.walk(node):
            if isinstance(n, ast.Name) and n.id.startswith(prefix):
                uses[n.id] = uses.get(n.id, 0) + 1
    values = dict(definitions)
    once = {name for name, _ in definitions if uses.get(name, 0) <= 1}

    class Inline(ast.NodeTransformer):
        def visit_Name(self, node: ast.Name) -> ast.AST:
            return self.visit(values[node.id]) if node.id in once else node

    kept = [(name, Inline().visit(value)) for name, value in definitions if name not in once]
    renamed = {name: f"{prefix}{n}" for n, (name, _) in enumerate(kept)}

    class Rename(ast.NodeTransformer):
        def visit_Name(self, node: ast.Name) -> ast.AST:
            return ast.Name(renamed[node.id], ast.Load()) if node.id in renamed else node

    lines = [f"{renamed[name]} = {ast.unparse(Rename().visit(value))}" for name, value in kept]
    return lines, [f"({ast.unparse(Rename().visit(Inline().visit(body)))})" for body in bodies]  # in brackets: the text goes inside others


@functools.lru_cache(maxsize=1 << 16)
def affine(text: str) -> tuple[frozenset, int]:
    """An integer expression as a sum of terms times constants plus a constant: (the terms,
    structurally, with their factors; the constant). Two offsets with the same terms differ by
    their constants, whatever the state."""
    terms: dict[str, int] = {}

    def walk(node: ast.expr, factor: int) -> int:
        if isinstance(node, ast.Constant) and type(node.value) is int:
            return factor * node.value
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub)):
            return walk(node.left, factor) + walk(node.right, -factor if isinstance(node.op, ast.Sub) else factor)
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult):
            for const, other in ((node.left, node.right), (node.right, node.left)):
                if isinstance(const, ast.Constant) and type(const.value) is int:
                    return walk(other, factor * const.value)
        key = ast.dump(node)
        terms[key] = terms.get(key, 0) + factor
        return 0

    constant = walk(ast.parse(text, mode="eval").body, 1)
    return frozenset((k, v) for k, v in terms.items() if v), constant


def reads_back(value: str, offset: str, mask: int, lo: int) -> bool:
    """Whether `value` is the field at `offset` as read from the pre-state `s`
    (`_rd(s, offset, mask)`, plus the slot's lowest value): writing it back changes nothing."""
    if value.count("(") > offset.count("(") + 8:
        return False  # much more than the read (asked first: parsing a large value costs seconds)
    terms, constant = affine(value)
    if constant != lo or len(terms) != 1:
        return False
    (key, factor), = terms
    if factor != 1:
        return False
    node = ast.parse(value, mode="eval").body
    read = next((n for n in ast.walk(node) if isinstance(n, ast.Call) and ast.dump(n) == key), None)
    return (read is not None and isinstance(read.func, ast.Name) and read.func.id == "_rd" and len(read.args) == 3
            and ast.dump(read.args[0]) == ast.dump(ast.Name("s", ast.Load()))
            and isinstance(read.args[2], ast.Constant) and read.args[2].value == mask
            and affine(ast.unparse(read.args[1])) == affine(offset))


def reads_field(value: str, reads: set[str], lo: int) -> bool:
    """Whether `value` is one of `reads` (the ways a field at a constant offset is read) plus
    the slot's lowest value."""
    if value.count("(") > 8:
        return False  # much more than a read (asked first: parsing a large value costs seconds)
    terms, constant = affine(value)
    if constant != lo or len(terms) != 1:
        return False
    (key, factor), = terms
    return factor == 1 and any(key == ast.dump(ast.parse(read, mode="eval").body) for read in reads)
