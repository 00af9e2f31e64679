"""From a merged YAML document to a validated `Model`.

Sections are read in dependency order (domains, constants, readings, state, definitions, then
everything that holds expressions), and every problem is raised as one located `RulecheckError`.
"""

from __future__ import annotations

import ast
import re
from typing import Any, cast

from checker.errors import Loc, RulecheckError, did_you_mean
from checker.lang import piles
from checker.lang.expr import ConstRef, Expr, Lit, Var
from checker.lang.loader import load_merged
from checker.lang.model import Action, Assign, Assumption, Citation, Clause, Constant, InitElem, Model, Narration, Pile, Reading, Slot
from checker.lang.questions import load_questions
from checker.lang.typecheck import Binding, DefineSrc, ExprChecker, Scope, check_expr, reading_domain, yaml11_bool_hint
from checker.lang.types import BOOL, INT, Domain, ElemType, enum
from checker.lang.yamlsrc import YList, YMap, recording_reads

TOP_KEYS = {
    "game", "id", "source", "abstract", "extends", "header", "players", "domains", "constants",
    "define", "readings", "state", "init", "init_where", "terminal", "outcome", "actions",
    "remove_actions", "remove_readings", "clauses", "assumptions", "names", "effects", "symmetric", "sections",
}
REQUIRED_KEYS = ("game", "id", "state", "init", "terminal", "actions")
ACTION_KEYS = {"by", "for", "let", "when", "include", "do", "weight", "rule", "cite", "assumes", "only", "text"}
CLAUSE_KEYS = {"at", "says", "status", "why", "same_as"}
CLAUSE_STATUSES = ("rule", "out-of-scope", "assumed")
READING_KEYS = {"clause", "question", "options", "default"}
READING_OPTIONAL = {"answers"}
ASSUMPTION_KEYS = {"id", "clauses", "says", "why", "answers", "contested"}
SLOT_KEYS = {"type", "of", "label", "internal"}
PILE_KEYS = {"holds", "size"}  # with `type: pile`
CONSTANT_KEYS = {"type", "range", "default", "of", "value", "doc", "bound", "grows_with", "fixed_by", "document", "plausible"}
IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")  # always fullmatch: `$` would accept a trailing newline
MODEL_ID = re.compile(r"[A-Za-z_][A-Za-z0-9_\-]*")  # ids name files: no `/`, `.` or whitespace
CLAUSE_ID = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.\-]*")
INT_TYPE = re.compile(r"^int\[\s*(-?\d+)\s*\.\.\s*(-?\d+)\s*\]$")


def load_model(path: str) -> Model:
    """Load, merge, validate and type-check the model at `path`, recording every file read."""
    with recording_reads() as reads:
        model = ModelBuilder(path, load_merged(path)).build()
    model.sources = tuple(sorted(reads.items()))
    return model


def _keys(mapping: YMap, allowed: set[str], what: str) -> None:
    for key in mapping:
        if key not in allowed:
            raise RulecheckError(f"unknown key `{key}` in {what}", mapping.key_loc(key), str(key), did_you_mean(str(key), allowed) or f"allowed: {', '.join(sorted(allowed))}")


def _ident(name: Any, loc: Loc, what: str) -> str:
    if not isinstance(name, str) or not IDENT.fullmatch(name):
        raise RulecheckError(f"{what} must be a name (letters, digits, _)", loc, repr(name))
    return name


def _cell(index: tuple) -> str:
    """A table cell's index as written: `[heroes][shoot]` (nothing for a scalar)."""
    return "".join(f"[{k}]" for k in index)


def _mapping(value: Any, loc: Loc, what: str) -> YMap:
    if not isinstance(value, YMap):
        raise RulecheckError(f"{what} must be a mapping", loc, repr(value)[:60])
    return value


def _id_list(value: Any, loc: Loc, what: str) -> tuple[str, ...]:
    if isinstance(value, str):
        return (value,)
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return tuple(value)
    raise RulecheckError(f"{what} takes a clause id or a list of clause ids", loc, repr(value)[:60])


class ModelBuilder:
    def __init__(self, path: str, doc: Any) -> None:
        if not isinstance(doc, YMap):
            raise RulecheckError("a model file is a mapping of sections", Loc(path, 1, 1))
        self.path = path
        self.doc = doc
        self.domains: dict[str, Domain] = {}
        self.domain_locs: dict[str, Loc] = {}

    def loc(self, key: str) -> Loc:
        return self.doc.value_loc(key)

    # -- the whole model -----------------------------------------------------------------
    def build(self) -> Model:
        doc = self.doc
        _keys(doc, TOP_KEYS, "a model")
        for key in REQUIRED_KEYS:
            if key not in doc:
                raise RulecheckError(f"missing required section `{key}`", doc.loc, None, f"every model needs: {', '.join(REQUIRED_KEYS)}")
        model_id = doc["id"]
        if not isinstance(model_id, str) or not MODEL_ID.fullmatch(model_id):
            raise RulecheckError("a model `id` is a name: letters, digits, `_` and `-` (it names files)", self.loc("id"), repr(model_id))
        clauses = self.clauses()
        self.names: dict[str, dict[str, str]] = {}
        self.players()
        self.declared_domains()
        state_raw = _mapping(doc["state"], self.loc("state"), "`state`")
        self.inline_enums(state_raw)
        constants = self.constants()
        readings = self.readings(clauses)
        self.piles: dict[str, Pile] = {}
        slots = self.slots(state_raw)
        scope = Scope(
            domains=self.domains,
            slots={n: (s.elem, s.dims) for n, s in slots.items()},
            constants={n: (c.elem, c.dims) for n, c in constants.items()},
            readings={n: reading_domain(n, list(r.options)) for n, r in readings.items()},
            piles=self.piles,
        )
        self._check_name_clashes(scope)
        scope.defines = self.defines(scope)
        init = self.init(scope, slots)
        init_where = self.expr_list(scope, "init_where")
        terminal = check_expr(scope, doc["terminal"], self.loc("terminal"), BOOL)
        outcome = check_expr(scope, doc["outcome"], self.loc("outcome")) if doc.get("outcome") is not None else None
        assumptions = self.assumptions(clauses, readings)
        self.check_fixed_by(constants, assumptions)
        self.effect_blocks()
        actions = self.actions(scope, slots, readings, clauses, {a.id for a in assumptions})
        self.display_names()
        symmetric = self.symmetric()
        source = doc.get("source") or {}
        return Model(
            game=str(doc["game"]), id=model_id, path=self.path, abstract=bool(doc.get("abstract", False)),
            header=str(doc.get("header", "")), source=dict(source) if isinstance(source, dict) else {"document": str(source)},
            domains=self.domains, constants=constants, readings=readings, slots=slots, init=init,
            init_where=init_where, terminal=terminal, outcome=outcome, actions=actions, clauses=clauses, scope=scope,
            assumptions=assumptions, questions=load_questions(self.path, clauses), names=self.names, piles=self.piles,
            symmetric=symmetric, symmetric_loc=self.loc("symmetric") if symmetric else None, sections=self.sections(clauses),
        )

    def sections(self, clauses: dict[str, Clause]) -> tuple[str, ...]:
        """`sections: [SS-INT, SS-BC]`: the sections of the document in effect for this model,
        as the clause id prefixes of their clauses (`Clause.section`)."""
        raw = self.doc.get("sections")
        if raw is None:
            return ()
        names = _id_list(raw, self.loc("sections"), "`sections`")
        known = {c.section() for c in clauses.values()}
        for name in names:
            if name not in known:
                raise RulecheckError(f"`sections` names `{name}`, the prefix of no clause", self.loc("sections"), name, did_you_mean(name, known) or f"sections: {', '.join(sorted(known))}")
        return names

    def symmetric(self) -> tuple[str, ...]:
        """`symmetric: [player]`: enum domains whose members the rules treat alike (the explicit
        engine explores one state per arrangement of them; checker/lang/symmetry.py)."""
        raw = self.doc.get("symmetric", [])
        names = [raw] if isinstance(raw, str) else raw
        if not isinstance(names, list):
            raise RulecheckError("`symmetric` lists enum domains, as in `symmetric: [player]`", self.loc("symmetric"), repr(raw)[:60])
        for name in names:
            domain = self.domains.get(str(name))
            if domain is None or not domain.is_enum:
                raise RulecheckError(f"`symmetric` names `{name}`, which is not an enum domain", self.loc("symmetric"), str(name),
                                     did_you_mean(str(name), [d for d, dom in self.domains.items() if dom.is_enum]))
        return tuple(dict.fromkeys(str(n) for n in names))

    # -- domains -------------------------------------------------------------------------
    def add_domain(self, domain: Domain, loc: Loc) -> None:
        if domain.name in self.domains:
            raise RulecheckError(f"domain `{domain.name}` is declared twice (first at line {self.domain_locs[domain.name].line})", loc, domain.name)
        self.domains[domain.name] = domain
        self.domain_locs[domain.name] = loc

    def enum_domain(self, name: str, members: Any, loc: Loc) -> Domain:
        if not isinstance(members, list) or not members:
            raise RulecheckError(f"`{name}` must list its members", loc, repr(members)[:60], "write `[a, b, c]`")
        seen: list[str] = []
        for i, member in enumerate(members):
            mloc = members.item_loc(i) if isinstance(members, YList) else loc
            if isinstance(member, YMap):
                _keys(member, {"id", "name"}, f"a member of `{name}`")
                if "id" not in member or not isinstance(member.get("name"), str):
                    raise RulecheckError(f"a member of `{name}` with a display name is `{{id: ..., name: \"...\"}}`", mloc, repr(dict(member))[:60])
                self.names.setdefault(name, {})[str(member["id"])] = member["name"]
                member = member["id"]
            _ident(member, mloc, f"a member of `{name}`")
            if member in seen:
                raise RulecheckError(f"`{member}` is listed twice in `{name}`", mloc, member)
            seen.append(member)
        return Domain(name, members=tuple(seen))

    def players(self) -> None:
        if "players" in self.doc:
            self.add_domain(self.enum_domain("player", self.doc["players"], self.loc("players")), self.loc("players"))

    def declared_domains(self) -> None:
        raw = self.doc.get("domains")
        if raw is None:
            return
        raw = _mapping(raw, self.loc("domains"), "`domains`")
        for name, spec in raw.items():
            loc = raw.value_loc(name)
            _ident(name, raw.key_loc(name), "a domain name")
            if isinstance(spec, YMap):
                _keys(spec, {"range"}, f"domain `{name}`")
                lo, hi = self.range_pair(spec.get("range"), spec.value_loc("range"), f"domain `{name}`")
                self.add_domain(Domain(name, lo=lo, hi=hi), loc)
            else:
                self.add_domain(self.enum_domain(name, spec, loc), loc)

    def inline_enums(self, state_raw: YMap) -> None:
        for name, spec in state_raw.items():
            if isinstance(spec, YMap) and isinstance(spec.get("type"), list):
                if spec.get("of") is not None:
                    raise RulecheckError(f"slot `{name}`: an inline enum cannot be an array", spec.value_loc("of"), None, "declare the enum under `domains:` and write `type: <domain>`")
                self.add_domain(self.enum_domain(name, spec["type"], spec.value_loc("type")), spec.value_loc("type"))
            elif isinstance(spec, list):
                self.add_domain(self.enum_domain(name, spec, state_raw.value_loc(name)), state_raw.value_loc(name))

    @staticmethod
    def range_pair(value: Any, loc: Loc, what: str) -> tuple[int, int]:
        if not (isinstance(value, list) and len(value) == 2 and all(isinstance(v, int) and not isinstance(v, bool) for v in value)):
            raise RulecheckError(f"{what} needs `range: [LOW, HIGH]` with two integers", loc, repr(value))
        if value[0] > value[1]:
            raise RulecheckError(f"{what}: empty range, {value[0]} > {value[1]}", loc, repr(value))
        return value[0], value[1]

    def domain_ref(self, name: Any, loc: Loc) -> Domain:
        if not isinstance(name, str) or name not in self.domains:
            raise RulecheckError(f"unknown domain `{name}`", loc, str(name), did_you_mean(str(name), self.domains) or f"domains: {', '.join(self.domains) or 'none declared'}")
        return self.domains[name]

    def dims(self, value: Any, loc: Loc) -> tuple[Domain, ...]:
        if value is None:
            return ()
        names = value if isinstance(value, list) else [value]
        return tuple(self.domain_ref(n, loc) for n in names)

    def elem_type(self, spec: Any, loc: Loc, what: str) -> ElemType:
        if spec == "bool":
            return ElemType(BOOL)
        if isinstance(spec, str):
            match = INT_TYPE.match(spec.strip())
            if match:
                lo, hi = int(match.group(1)), int(match.group(2))
                if lo > hi:
                    raise RulecheckError(f"{what}: empty range {lo}..{hi}", loc, spec)
                return ElemType(INT, lo, hi)
            if spec == "int":
                raise RulecheckError(f"{what}: state integers need bounds", loc, spec, "write `int[0..10]`")
            if spec in self.domains:
                dom = self.domains[spec]
                return ElemType(dom.type) if dom.is_enum else ElemType(INT, dom.lo, dom.hi)
        raise RulecheckError(f"{what}: unknown type `{spec}`", loc, str(spec), did_you_mean(str(spec), ["bool", *self.domains]) or "types are bool, int[LO..HI], or a domain name")

    # -- constants -----------------------------------------------------------------------
    def constants(self) -> dict[str, Constant]:
        raw = self.doc.get("constants")
        out: dict[str, Constant] = {}
        self.fixed_locs: dict[str, Loc] = {}
        if raw is None:
            return out
        raw = _mapping(raw, self.loc("constants"), "`constants`")
        for name, spec in raw.items():
            _ident(name, raw.key_loc(name), "a constant name")
            spec = _mapping(spec, raw.value_loc(name), f"constant `{name}`")
            _keys(spec, CONSTANT_KEYS, f"constant `{name}`")
            if "type" not in spec:
                raise RulecheckError(f"constant `{name}` is missing `type`", spec.loc, None, "write `type: int`, `type: bool` or `type: <domain>`")
            type_name = spec["type"]
            if type_name == "int":
                elem = ElemType(INT, *self.range_pair(spec["range"], spec.value_loc("range"), f"constant `{name}`")) if "range" in spec else ElemType(INT)
            else:
                elem = self.elem_type(type_name, spec.value_loc("type"), f"constant `{name}`")
            dims = self.dims(spec.get("of"), spec.value_loc("of"))
            if dims:
                if "value" not in spec:
                    raise RulecheckError(f"table `{name}` is missing `value`", spec.loc, None, "give a value for every member of its domain(s)")
                default = self.table(name, elem, dims, spec["value"], spec.value_loc("value"))
            else:
                key = "default" if "default" in spec else "value"
                if key not in spec:
                    raise RulecheckError(f"constant `{name}` is missing `default`", spec.loc)
                default = self.literal(spec[key], elem, spec.value_loc(key), f"constant `{name}`")
            bound = self.bound_flag(name, spec, elem)
            out[name] = Constant(name, elem, dims, default, raw.value_loc(name), str(spec.get("doc", "")), bound)
            self.document_value(out[name], spec)
        for name, spec in raw.items():  # partners may be declared after the constant that names them
            if "grows_with" in spec:
                out[name].grows_with = self.grows_with(out[name], spec, out)
            if "fixed_by" in spec:
                out[name].fixed_by = self.fixed_by(out[name], spec)
        return out

    def document_value(self, const: Constant, spec: YMap) -> None:
        """`document: N` (the value the rule document prints; a table as its `value`) or
        `document: none` with `plausible: [lo, hi]` (a number the modeller chose, and the range
        a designer could plausibly print), both within the constant's range."""
        if "plausible" in spec and spec.get("document") != "none":
            raise RulecheckError(f"constant `{const.name}`: `plausible` is the range of a number the document does not print: write `document: none` beside it",
                                 spec.value_loc("plausible"))
        if "document" not in spec:
            return
        where = spec.value_loc("document")
        if spec["document"] == "none":
            if "plausible" not in spec:
                raise RulecheckError(f"constant `{const.name}`: the document prints no value, so say what a designer could plausibly print: `plausible: [lo, hi]`", where)
            if const.elem.type.kind != "int" or const.dims:
                raise RulecheckError(f"constant `{const.name}`: `plausible` takes a range of a scalar int constant", spec.value_loc("plausible"))
            lo, hi = self.range_pair(spec["plausible"], spec.value_loc("plausible"), f"`plausible` of constant `{const.name}`")
            if const.elem.lo is not None and const.elem.hi is not None and not const.elem.lo <= lo <= hi <= const.elem.hi:
                raise RulecheckError(f"constant `{const.name}`: `plausible` [{lo}, {hi}] is outside its range {const.elem.lo}..{const.elem.hi}", spec.value_loc("plausible"),
                                     hint="widen the constant's `range` to hold every plausible value")
            const.plausible = (lo, hi)
            return
        if const.dims:
            const.document = self.table(const.name, const.elem, const.dims, spec["document"], where)
        else:
            const.document = self.literal(spec["document"], const.elem, where, f"the document value of constant `{const.name}`")

    def fixed_by(self, const: Constant, spec: YMap) -> str:
        """`fixed_by: ASSUMPTION`: a count an assumption fixes (every card dealt, say), so it is
        not a bound; where the growth re-check then has nothing to grow, it names the
        assumption rather than saying only that no bound grows. Checked against the
        assumptions once they are read (`check_fixed_by`)."""
        value, loc = spec["fixed_by"], spec.value_loc("fixed_by")
        if not isinstance(value, str) or not value:
            raise RulecheckError(f"constant `{const.name}`: `fixed_by` names an assumption id", loc, repr(value)[:60])
        if const.bound:
            raise RulecheckError(f"constant `{const.name}`: a count an assumption fixes (`fixed_by`) is not a bound", loc, value, "write `bound: false`, or drop `fixed_by`")
        self.fixed_locs[const.name] = loc
        return value

    def check_fixed_by(self, constants: dict[str, Constant], assumptions: list[Assumption]) -> None:
        ids = [a.id for a in assumptions]
        for name, loc in self.fixed_locs.items():
            if constants[name].fixed_by not in ids:
                raise RulecheckError(f"constant `{name}`: `fixed_by` names no assumption of this model", loc, constants[name].fixed_by,
                                     did_you_mean(constants[name].fixed_by, ids) or f"assumptions: {', '.join(ids) or 'none'}")

    def grows_with(self, const: Constant, spec: YMap, constants: dict[str, Constant]) -> dict[tuple, tuple[tuple[str, tuple], ...]]:
        """`grows_with`: what the growth re-check raises together with this bound, as one step
        (a hand one card larger deals two more cards, so the deck grows by two with it, or the
        rest of the deal shrinks and the larger game is a smaller one). A scalar takes a list of
        cells (`n_passing`, `deck[heroes][shoot]`); a table a mapping nested as its `value`,
        each cell it names to such a list. Every cell named is a cell of another `bound: true`
        constant."""
        loc = spec.value_loc("grows_with")
        what = f"constant `{const.name}`: `grows_with`"
        if not const.bound:
            raise RulecheckError(f"{what} needs `bound: true` (only a bound grows)", loc, None, "mark it `bound: true`, or drop `grows_with`")
        out: dict[tuple, tuple[tuple[str, tuple], ...]] = {}

        def fill(node: Any, node_loc: Loc, prefix: tuple) -> None:
            depth = len(prefix)
            if depth == len(const.dims):
                if not isinstance(node, list) or not node:
                    raise RulecheckError(f"{what} takes a list of the cells that grow with {const.name}{_cell(prefix)}", node_loc, repr(node)[:60],
                                         "for example `[n_passing, n_tackle]` or `[\"deck[heroes][shoot]\"]`")
                refs = tuple(self.cell_ref(ref, node.item_loc(i) if isinstance(node, YList) else node_loc, what, constants) for i, ref in enumerate(node))
                if (const.name, prefix) in refs:
                    raise RulecheckError(f"{what}: {const.name}{_cell(prefix)} cannot grow with itself", node_loc, None)
                out[prefix] = refs
                return
            dom = const.dims[depth]
            node = _mapping(node, node_loc, f"{what} over {dom.name}")
            for key in node:
                if not dom.contains(key):
                    raise RulecheckError(f"{what}: `{key}` is not a member of {dom.name}", node.key_loc(key), str(key), did_you_mean(str(key), [str(v) for v in dom.values()]))
                fill(node[key], node.value_loc(key), (*prefix, key))

        fill(spec["grows_with"], loc, ())
        return out

    @staticmethod
    def cell_ref(ref: Any, loc: Loc, what: str, constants: dict[str, Constant]) -> tuple[str, tuple]:
        """One cell `grows_with` names: `NAME` (a scalar) or `NAME[m1][m2]` (a table's cell)."""
        match = re.fullmatch(r"\s*([A-Za-z_][A-Za-z0-9_]*)((?:\[[^\[\]]+\])*)\s*", ref) if isinstance(ref, str) else None
        if match is None:
            raise RulecheckError(f"{what}: a cell is `NAME` or `NAME[member]...`", loc, repr(ref)[:60])
        name, keys = match.group(1), re.findall(r"\[([^\[\]]+)\]", match.group(2))
        if name not in constants:
            raise RulecheckError(f"{what}: unknown constant `{name}`", loc, str(ref), did_you_mean(name, constants) or None)
        partner = constants[name]
        if not partner.bound:
            raise RulecheckError(f"{what}: `{name}` is not a bound (`bound: true`): growing a rule value is not one more card", loc, str(ref))
        if len(keys) != len(partner.dims):
            raise RulecheckError(f"{what}: `{name}` takes {len(partner.dims)} index(es), `{ref}` gives {len(keys)}", loc, str(ref))
        index = []
        for key, dom in zip(keys, partner.dims, strict=True):
            member = next((v for v in dom.values() if str(v) == key.strip()), None)
            if member is None:
                raise RulecheckError(f"{what}: `{key.strip()}` is not a member of {dom.name}", loc, str(ref), did_you_mean(key.strip(), [str(v) for v in dom.values()]))
            index.append(member)
        return name, tuple(index)

    def bound_flag(self, name: str, spec: YMap, elem: ElemType) -> bool:
        """`bound: true` marks a size the model chose (a deck, hand or pile smaller than the
        text's), which the growth re-check raises by one step; it needs an int `range` so that
        the step stays within what the model declares."""
        if "bound" not in spec:
            return False
        flag = spec["bound"]
        if not isinstance(flag, bool):
            raise RulecheckError(f"constant `{name}`: `bound` is true or false", spec.value_loc("bound"), repr(flag))
        if flag and (elem.type.kind != "int" or elem.lo is None):
            raise RulecheckError(f"constant `{name}`: only an int constant or table with a `range` can be a bound", spec.value_loc("bound"), None,
                                 "give it `range: [LO, HI]`; the growth re-check raises it by one within that range")
        return flag

    def table(self, name: str, elem: ElemType, dims: tuple[Domain, ...], value: Any, loc: Loc) -> dict[tuple, Any]:
        """A table's value: nested mappings member by member, where any level may give a
        `default` for the members it leaves out (and everything beneath them), and a table of
        booleans may list its `true` (or `false`) cells: `{default: false, true: [[a, b], ...]}`.
        Each cell gets exactly one value: a cell both listed and written out is an error."""
        out: dict[tuple, Any] = {}
        what = f"table `{name}`"

        def fill(node: Any, node_loc: Loc, depth: int, prefix: tuple, default: tuple[Any] | None) -> None:
            dom = dims[depth]
            node = _mapping(node, node_loc, f"table `{name}` over {dom.name}")
            if "default" in node:
                default = (self.literal(node["default"], elem, node.value_loc("default"), f"the default of {what}"),)
            listed = self.listed_cells(name, elem, dims[depth:], node)
            for key in node:
                if key == "default" or isinstance(key, bool):
                    continue
                if not dom.contains(key):
                    raise RulecheckError(f"{what}: `{key}` is not a member of {dom.name}", node.key_loc(key), str(key), did_you_mean(str(key), [str(v) for v in dom.values()]))
                if any(cell[0] == key for cell in listed):
                    raise RulecheckError(f"{what}: `{key}` is both written out and listed under true/false", node.key_loc(key), str(key), "give each cell one value")
            for member in dom.values():
                if member in node:
                    if depth + 1 < len(dims):
                        fill(node[member], node.value_loc(member), depth + 1, (*prefix, member), default)
                    else:
                        out[(*prefix, member)] = self.literal(node[member], elem, node.value_loc(member), what)
                    continue
                for rest in _product(dims[depth + 1:]):
                    cell = (member, *rest)
                    if cell in listed:
                        out[(*prefix, *cell)] = listed[cell]
                    elif default is not None:
                        out[(*prefix, *cell)] = default[0]
                    else:
                        raise RulecheckError(f"{what} has no value for `{member}`", node.loc, None, f"give every member of {dom.name}, or a `default`")

        fill(value, loc, 0, (), None)
        return out

    def listed_cells(self, name: str, elem: ElemType, dims: tuple[Domain, ...], node: YMap) -> dict[tuple, bool]:
        """The cells a boolean table lists under `true:` or `false:`. A cell is a member (one
        dimension left) or a list with one entry per dimension, each a member or a list of
        members (every combination is listed)."""
        import itertools

        out: dict[tuple, bool] = {}
        flags = {k for k in node if isinstance(k, bool)}  # not `flag in node`: the int members 1 and 0 equal True and False
        for flag in (True, False):
            if flag not in flags:
                continue
            key_loc, raw = node.key_loc(flag), node[flag]
            if elem.type != BOOL:
                raise RulecheckError(f"table `{name}`: only a table of booleans lists its `{str(flag).lower()}` cells", key_loc, str(flag).lower(), "give a `default` and the other values member by member")
            if not isinstance(raw, list):
                raise RulecheckError(f"table `{name}`: `{str(flag).lower()}` takes a list of cells", node.value_loc(flag), repr(raw)[:60])
            for i, cell in enumerate(raw):
                cell_loc = raw.item_loc(i) if isinstance(raw, YList) else node.value_loc(flag)
                parts = [cell] if len(dims) == 1 and not isinstance(cell, list) else cell
                if not isinstance(parts, list) or len(parts) != len(dims):
                    raise RulecheckError(f"table `{name}`: a cell is a list of {len(dims)} member(s), one per domain ({', '.join(d.name for d in dims)})", cell_loc, repr(cell)[:60])
                choices = []
                for dom, part in zip(dims, parts):
                    members = part if isinstance(part, list) else [part]
                    for member in members:
                        if isinstance(member, bool) or not dom.contains(member):
                            raise RulecheckError(f"table `{name}`: `{member}` is not a member of {dom.name}", cell_loc, str(member), did_you_mean(str(member), [str(v) for v in dom.values()]))
                    choices.append(members)
                for combo in itertools.product(*choices):
                    if combo in out:
                        raise RulecheckError(f"table `{name}`: the cell {list(combo)} is listed twice", cell_loc, repr(cell)[:60], "list each cell once")
                    out[combo] = flag
        return out

    def literal(self, value: Any, elem: ElemType, loc: Loc, what: str) -> Any:
        kind = elem.type.kind
        if kind == "bool":
            if not isinstance(value, bool):
                raise RulecheckError(f"{what}: expected true or false, found {value!r}", loc, str(value), yaml11_bool_hint(value))
            return value
        if kind == "int":
            if not isinstance(value, int) or isinstance(value, bool):
                raise RulecheckError(f"{what}: expected an integer, found {value!r}", loc, str(value))
            if elem.lo is not None and elem.hi is not None and not elem.lo <= value <= elem.hi:
                raise RulecheckError(f"{what}: {value} is out of its range {elem.lo}..{elem.hi}", loc, str(value))
            return value
        assert elem.type.domain is not None  # neither bool nor int: an enum, named after its domain
        dom = self.domains[elem.type.domain]
        assert dom.members is not None  # the domain of an enum type is an enum domain
        if value not in dom.members:
            raise RulecheckError(f"{what}: `{value}` is not a member of {dom.name}", loc, str(value), did_you_mean(str(value), dom.members) or f"{dom.name} is one of: {', '.join(dom.members)}")
        return value

    # -- readings ------------------------------------------------------------------------
    def readings(self, clauses: dict[str, Clause]) -> dict[str, Reading]:
        raw = self.doc.get("readings")
        out: dict[str, Reading] = {}
        if raw is None:
            return out
        raw = _mapping(raw, self.loc("readings"), "`readings`")
        for name, spec in raw.items():
            _ident(name, raw.key_loc(name), "a reading name")
            spec = _mapping(spec, raw.value_loc(name), f"reading `{name}`")
            _keys(spec, READING_KEYS | READING_OPTIONAL, f"reading `{name}`")
            for key in READING_KEYS:
                if key not in spec:
                    raise RulecheckError(f"reading `{name}` is missing `{key}`", spec.loc, None, "a reading has clause, question, options and default")
            options = _mapping(spec["options"], spec.value_loc("options"), f"the options of reading `{name}`")
            if len(options) < 2:
                raise RulecheckError(f"reading `{name}` needs at least two options", spec.value_loc("options"))
            for option in options:
                _ident(option, options.key_loc(option), "an option name")
            if spec["default"] not in options:
                raise RulecheckError(f"reading `{name}`: default `{spec['default']}` is not one of its options", spec.value_loc("default"), str(spec["default"]), did_you_mean(str(spec["default"]), options))
            cited = _id_list(spec["clause"], spec.value_loc("clause"), f"reading `{name}`")
            self.check_citations(cited, clauses, spec.value_loc("clause"))
            answers = _id_list(spec.get("answers", []), spec.value_loc("answers"), f"`answers` of reading `{name}`")
            out[name] = Reading(name, cited, str(spec["question"]), {k: str(v) for k, v in options.items()}, spec["default"], raw.value_loc(name), answers)
        return out

    # -- state ---------------------------------------------------------------------------
    def slots(self, raw: YMap) -> dict[str, Slot]:
        out: dict[str, Slot] = {}
        for name, spec in raw.items():
            _ident(name, raw.key_loc(name), "a slot name")
            loc = raw.value_loc(name)
            if isinstance(spec, list):
                out[name] = Slot(name, ElemType(enum(name)), (), loc)
            elif isinstance(spec, YMap) and spec.get("type") == "pile":
                out.update(self.pile_slots(name, spec, loc))
            elif isinstance(spec, YMap):
                _keys(spec, SLOT_KEYS, f"slot `{name}`")
                if "type" not in spec:
                    raise RulecheckError(f"slot `{name}` is missing `type`", spec.loc)
                kind = spec["type"]
                if isinstance(kind, list):  # an inline enum with display fields
                    elem = ElemType(enum(name))
                else:
                    elem = self.elem_type(kind, spec.value_loc("type"), f"slot `{name}`")
                label = spec.get("label", "")
                if not isinstance(label, str):
                    raise RulecheckError(f"slot `{name}`: `label` is the players' words for it, a string", spec.value_loc("label"), repr(label))
                internal = spec.get("internal", False)
                if not isinstance(internal, bool):
                    raise RulecheckError(f"slot `{name}`: `internal` is true or false", spec.value_loc("internal"), repr(internal))
                out[name] = Slot(name, elem, self.dims(spec.get("of"), spec.value_loc("of")), loc, label, internal)
            else:
                out[name] = Slot(name, self.elem_type(spec, loc, f"slot `{name}`"), (), loc)
        return out

    def pile_slots(self, name: str, spec: YMap, loc: Loc) -> dict[str, Slot]:
        """`{type: pile, holds: card, size: 6, of: player}`: the two slots a pile is stored in
        (its positions, top first, and its internal length), recorded in `self.piles`."""
        _keys(spec, SLOT_KEYS | PILE_KEYS, f"pile `{name}`")
        for key in PILE_KEYS:
            if key not in spec:
                raise RulecheckError(f"pile `{name}` is missing `{key}`", spec.loc, None, "a pile is `{type: pile, holds: DOMAIN, size: N}`")
        size = spec["size"]
        if not isinstance(size, int) or isinstance(size, bool) or size < 1:
            raise RulecheckError(f"pile `{name}`: `size` is the most cards it can hold, a positive integer", spec.value_loc("size"), repr(size))
        holds = spec["holds"]
        if holds == "pile":
            raise RulecheckError(f"pile `{name}`: a pile holds values, not piles", spec.value_loc("holds"), holds)
        elem = self.elem_type(holds, spec.value_loc("holds"), f"pile `{name}`")
        label = spec.get("label", "")
        if not isinstance(label, str):
            raise RulecheckError(f"pile `{name}`: `label` is the players' words for it, a string", spec.value_loc("label"), repr(label))
        internal = spec.get("internal", False)
        if not isinstance(internal, bool):
            raise RulecheckError(f"pile `{name}`: `internal` is true or false", spec.value_loc("internal"), repr(internal))
        outer = self.dims(spec.get("of"), spec.value_loc("of"))
        members = self.domains[elem.type.domain].members or () if elem.type.kind == "enum" and elem.type.domain else ()
        pile = piles.declare(name, elem, size, outer, members)
        self.piles[name] = pile
        return {
            name: Slot(name, elem, (*outer, pile.positions), loc, label, internal),
            pile.length: Slot(pile.length, ElemType(INT, 0, size), outer, loc, "", True),
        }

    def _check_name_clashes(self, scope: Scope) -> None:
        seen: dict[str, str] = {}
        for kind, names in (("slot", scope.slots), ("constant", scope.constants)):
            for name in names:
                if name in seen:
                    raise RulecheckError(f"`{name}` is both a {seen[name]} and a {kind}", self.doc.loc, name)
                seen[name] = kind

    # -- definitions ---------------------------------------------------------------------
    def defines(self, scope: Scope) -> dict[str, DefineSrc]:
        raw = self.doc.get("define")
        out: dict[str, DefineSrc] = {}
        if raw is None:
            return out
        raw = _mapping(raw, self.loc("define"), "`define`")
        for key, body in raw.items():
            kloc = raw.key_loc(key)
            try:
                head = ast.parse(str(key), mode="eval").body
            except SyntaxError:
                raise RulecheckError("a definition is `name` or `name(a, b)`", kloc, str(key)) from None
            params: tuple[str, ...]
            if isinstance(head, ast.Name):
                name, params = head.id, ()
            elif isinstance(head, ast.Call) and isinstance(head.func, ast.Name) and all(isinstance(a, ast.Name) for a in head.args):
                name, params = head.func.id, tuple(cast(ast.Name, a).id for a in head.args)  # every argument is a Name (tested above)
            else:
                raise RulecheckError("a definition is `name` or `name(a, b)`", kloc, str(key))
            if name in scope.slots or name in scope.constants:
                raise RulecheckError(f"definition `{name}` hides a slot or constant of the same name", kloc, name)
            owners = scope.member_domains(name)
            if owners:
                raise RulecheckError(f"definition `{name}` has the name of a member of {owners[0].name}", kloc, name, "rename the definition; a bare name must mean one thing")
            if name in out:
                raise RulecheckError(f"definition `{name}` is given twice", kloc, name)
            if not isinstance(body, (str, int, bool)):
                raise RulecheckError(f"definition `{name}` must be an expression", raw.value_loc(key))
            out[name] = DefineSrc(name, params, str(body) if not isinstance(body, bool) else ("True" if body else "False"), raw.value_loc(key))
        scope.defines = out
        for define in out.values():
            if not define.params:
                ExprChecker(scope, define.text, define.loc, define_stack=()).check(None)
        return out

    def expr_list(self, scope: Scope, key: str) -> tuple[Expr, ...]:
        raw = self.doc.get(key)
        if raw is None:
            return ()
        if isinstance(raw, list):
            return tuple(check_expr(scope, item, cast(YList, raw).item_loc(i), BOOL) for i, item in enumerate(raw))  # the loaded document's lists are YLists
        return (check_expr(scope, raw, self.loc(key), BOOL),)

    # -- init ----------------------------------------------------------------------------
    def init(self, scope: Scope, slots: dict[str, Slot]) -> dict[str, dict[tuple, InitElem]]:
        raw = _mapping(self.doc["init"], self.loc("init"), "`init`")
        out: dict[str, dict[tuple, InitElem]] = {}
        for name in raw:
            if name not in slots:
                raise RulecheckError(f"`init` names an unknown slot `{name}`", raw.key_loc(name), str(name), did_you_mean(str(name), slots))
        lengths = {p.length for p in self.piles.values()}
        for name, slot in slots.items():
            if name in lengths:
                continue
            if name not in raw:
                raise RulecheckError(f"slot `{name}` has no initial value", raw.loc, None, f"add `{name}: ...` under init")
            if name in self.piles:
                out.update(self.init_pile(scope, self.piles[name], raw[name], raw.value_loc(name)))
            else:
                out[name] = self.init_slot(scope, slot, raw[name], raw.value_loc(name), 0, ())
        return out

    def init_pile(self, scope: Scope, pile: Pile, spec: Any, loc: Loc) -> dict[str, dict[tuple, InitElem]]:
        """A pile starts as a list of cards, top first (`[]`: empty); an array of piles takes
        one list for all, or a mapping from each member to its list."""
        elements: dict[tuple, InitElem] = {}
        lengths: dict[tuple, InitElem] = {}
        slot_like = Slot(pile.name, pile.elem, (), loc)

        def one(outer: tuple, cards: Any, cards_loc: Loc) -> None:
            if not isinstance(cards, list):
                raise RulecheckError(f"init of pile `{pile.name}`: a pile starts as a list of cards, top first", cards_loc, repr(cards)[:60], "write `[]` for an empty pile, or `[c1, c2]` with c1 on top")
            if len(cards) > pile.size:
                raise RulecheckError(f"init of pile `{pile.name}`: {len(cards)} cards, more than its size {pile.size}", cards_loc, repr(list(cards))[:60])
            values = [self.init_value(scope, slot_like, card, cards.item_loc(i) if isinstance(cards, YList) else cards_loc) for i, card in enumerate(cards)]
            empty = Lit(pile.elem.type, value=pile.empty, loc=cards_loc)
            for k in range(pile.size):
                elements[(*outer, k)] = InitElem(value=values[k] if k < len(values) else empty)
            lengths[outer] = InitElem(value=Lit(INT, value=len(values), loc=cards_loc))

        def fill(depth: int, prefix: tuple, node: Any, node_loc: Loc) -> None:
            if depth == len(pile.outer):
                one(prefix, node, node_loc)
                return
            dom = pile.outer[depth]
            if isinstance(node, YMap):
                for key in node:
                    if not dom.contains(key):
                        raise RulecheckError(f"init of `{pile.name}`: `{key}` is not a member of {dom.name}", node.key_loc(key), str(key))
                for member in dom.values():
                    if member not in node:
                        raise RulecheckError(f"init of `{pile.name}` has no pile for `{member}`", node.loc, None, f"give every member of {dom.name}, or one list for all")
                    fill(depth + 1, (*prefix, member), node[member], node.value_loc(member))
            else:
                for member in dom.values():
                    fill(depth + 1, (*prefix, member), node, node_loc)

        fill(0, (), spec, loc)
        return {pile.name: elements, pile.length: lengths}

    def init_slot(self, scope: Scope, slot: Slot, spec: Any, loc: Loc, depth: int, prefix: tuple) -> dict[tuple, InitElem]:
        remaining = slot.dims[depth:]
        if isinstance(spec, YMap) and "choose" in spec:
            _keys(spec, {"choose"}, f"the choice for `{slot.name}`")
            elem = self.init_choice(scope, slot, spec["choose"], spec.value_loc("choose"))
            return {(*prefix, *rest): elem for rest in _product(remaining)}
        if isinstance(spec, YMap) and remaining:
            dom = remaining[0]
            for key in spec:
                if not dom.contains(key):
                    raise RulecheckError(f"init of `{slot.name}`: `{key}` is not a member of {dom.name}", spec.key_loc(key), str(key), did_you_mean(str(key), [str(v) for v in dom.values()]))
            out: dict[tuple, InitElem] = {}
            for member in dom.values():
                if member not in spec:
                    raise RulecheckError(f"init of `{slot.name}` has no value for `{member}`", spec.loc, None, f"give every member of {dom.name}, or one value for all")
                out.update(self.init_slot(scope, slot, spec[member], spec.value_loc(member), depth + 1, (*prefix, member)))
            return out
        if isinstance(spec, str) and spec in scope.constants and scope.constants[spec][1]:
            return self.init_from_table(scope, slot, spec, loc, remaining, prefix)
        value = self.init_value(scope, slot, spec, loc)
        return {(*prefix, *rest): InitElem(value=value) for rest in _product(remaining)}

    def init_from_table(self, scope: Scope, slot: Slot, table: str, loc: Loc, remaining: tuple[Domain, ...], prefix: tuple) -> dict[tuple, InitElem]:
        """`deck: counts`: an array takes a table's values element by element."""
        elem, dims = scope.constants[table]
        if tuple(d.name for d in dims) != tuple(d.name for d in remaining):
            want = ", ".join(d.name for d in remaining) or "nothing"
            raise RulecheckError(f"table `{table}` is over {', '.join(d.name for d in dims)}, but `{slot.name}` needs one over {want} here", loc, table)
        if elem.type != slot.elem.type:
            raise RulecheckError(f"type mismatch: table `{table}` holds {elem.type}, `{slot.name}` holds {slot.elem.type}", loc, table)
        out = {}
        for rest in _product(remaining):
            indices = tuple(Lit(d.type, value=v, loc=loc) for d, v in zip(remaining, rest))
            out[(*prefix, *rest)] = InitElem(value=ConstRef(elem.type, name=table, indices=indices, loc=loc))
        return out

    def init_value(self, scope: Scope, slot: Slot, spec: Any, loc: Loc) -> Expr:
        constants_only = Scope(scope.domains, {}, scope.constants, scope.readings, scope.defines)
        expr = check_expr(constants_only, spec, loc, slot.elem.type)
        self.check_literal_range(expr, slot, loc)
        return expr

    def init_choice(self, scope: Scope, slot: Slot, choice: Any, loc: Loc) -> InitElem:
        if choice == "any":
            return InitElem()
        if isinstance(choice, str) and choice in self.domains:
            dom = self.domains[choice]
            return InitElem(choices=tuple(self.init_value(scope, slot, v, loc) for v in dom.values()))
        if isinstance(choice, list) and choice:
            return InitElem(choices=tuple(self.init_value(scope, slot, v, cast(YList, choice).item_loc(i)) for i, v in enumerate(choice)))  # the document's lists are YLists
        raise RulecheckError(f"`choose` for `{slot.name}` takes a domain, a list of values, or `any`", loc, repr(choice)[:60])

    @staticmethod
    def check_literal_range(expr: Expr, slot: Slot, loc: Loc) -> None:
        elem = slot.elem
        if isinstance(expr, Lit) and elem.type == INT and elem.lo is not None and not elem.lo <= expr.value <= elem.hi:  # type: ignore[operator]  # an INT literal holds an int; `lo` set means `hi` is
            raise RulecheckError(f"{expr.value} is outside the range of `{slot.name}` ({elem.lo}..{elem.hi})", expr.loc or loc, str(expr.value))

    # -- actions -------------------------------------------------------------------------
    def actions(self, scope: Scope, slots: dict[str, Slot], readings: dict[str, Reading], clauses: dict[str, Clause], assumptions: set[str]) -> dict[str, Action]:
        raw = _mapping(self.doc["actions"], self.loc("actions"), "`actions`")
        if not raw:
            raise RulecheckError("a model needs at least one action", self.loc("actions"))
        return {name: self.action(scope, slots, readings, clauses, assumptions, _ident(name, raw.key_loc(name), "an action name"), raw[name], raw.value_loc(name)) for name in raw}

    def action(self, scope: Scope, slots: dict[str, Slot], readings: dict[str, Reading], clauses: dict[str, Clause], assumptions: set[str], name: str, spec: Any, loc: Loc) -> Action:
        spec = _mapping(spec, loc, f"action `{name}`")
        _keys(spec, ACTION_KEYS, f"action `{name}`")
        if "by" not in spec or not {"rule", "cite", "assumes"} & set(spec):
            missing = "by" if "by" not in spec else "rule"
            raise RulecheckError(f"action `{name}` is missing `{missing}`", spec.loc, None, "every action says who acts (`by`) and what it formalises (`rule`, `cite` per branch, or `assumes` for the model's own assumptions)")
        params: dict[str, Domain] = {}
        if "for" in spec:
            raw_params = _mapping(spec["for"], spec.value_loc("for"), f"`for` of action `{name}`")
            for pname, dname in raw_params.items():
                _ident(pname, raw_params.key_loc(pname), "a parameter name")
                params[pname] = self.domain_ref(dname, raw_params.value_loc(pname))
        bindings: dict[str, Binding] = dict(params)
        self.let_bindings(scope, spec.get("let"), spec.value_loc("let"), bindings, name)
        by, actor = self.actor(scope, spec["by"], spec.value_loc("by"), bindings, name)
        guard = check_expr(scope, spec.get("when", True), spec.value_loc("when"), BOOL, bindings)
        weight = None
        if "weight" in spec:
            if by != "chance":
                raise RulecheckError(f"action `{name}`: only chance actions have a `weight`", spec.key_loc("weight"), "weight", "remove it, or make the action `by: chance`")
            weight = check_expr(scope, spec["weight"], spec.value_loc("weight"), INT, bindings)
        effects = self.included_effects(spec.get("do"), spec.value_loc("do"), spec.get("include"), spec.value_loc("include"), name)
        assigns = self.assigns(scope, slots, effects, spec.value_loc("do"), bindings, name)
        rule = _id_list(spec.get("rule", []), spec.value_loc("rule"), f"action `{name}`")
        self.check_citations(rule, clauses, spec.value_loc("rule"))
        cite = self.citations(scope, spec.get("cite"), spec.value_loc("cite"), bindings, clauses, name)
        assumes = _id_list(spec.get("assumes", []), spec.value_loc("assumes"), f"`assumes` of action `{name}`")
        for aid in assumes:
            if aid not in assumptions:
                raise RulecheckError(f"action `{name}` assumes an unknown assumption `{aid}`", spec.value_loc("assumes"), aid, did_you_mean(aid, assumptions) or "declare it under `assumptions:`")
        if not rule and not cite and not assumes:
            raise RulecheckError(f"action `{name}` cites no clause", spec.loc, None, "give `rule` (always cited), `cite` entries, or `assumes`")
        only = self.only(spec.get("only"), spec.value_loc("only"), readings, name)
        narrations = self.narrations(scope, spec.get("text"), spec.value_loc("text"), bindings, slots, assigns, name, set(params))
        return Action(name, by, actor, tuple(params.items()), guard, weight, assigns, rule, only, narrations, loc, cite, assumes)

    def let_bindings(self, scope: Scope, raw: Any, loc: Loc, bindings: dict[str, Binding], name: str) -> None:
        """`let: {x: EXPR, ...}`: names for expressions over the state and the parameters, usable
        in every expression of the action and in the effect blocks it includes. Each is checked
        once, in order (a later one may use an earlier one), and stands for its expression where
        it is used, as a definition does: naming an expression never changes the semantics."""
        if raw is None:
            return
        raw = _mapping(raw, loc, f"`let` of action `{name}`")
        for key, text in raw.items():
            kloc = raw.key_loc(key)
            _ident(key, kloc, "a `let` name")
            if key in bindings or key in scope.slots or key in scope.constants or key in scope.defines or key in scope.domains or scope.member_domains(key) or key == "reading":
                raise RulecheckError(f"`let` name `{key}` of action `{name}` hides another name", kloc, str(key), "choose a name that no parameter, slot, constant, definition, domain or member has")
            bindings[key] = check_expr(scope, text, raw.value_loc(key), None, bindings)

    def included_effects(self, own: Any, own_loc: Loc, include: Any, include_loc: Loc, name: str) -> Any:
        """An action's `do` with the effect blocks it `include`s: the blocks' assignments in
        order, then the action's own, which replace a block's assignment to the same target.
        Two blocks assigning the same target is an error (neither may silently win)."""
        if include is None:
            return own
        names = [include] if isinstance(include, str) else include
        if not isinstance(names, list) or not names or not all(isinstance(n, str) for n in names):
            raise RulecheckError(f"`include` of action `{name}` takes the name of an effect block, or a list of names", include_loc, repr(include)[:60])
        blocks = self.doc.get("effects")
        blocks = _mapping(blocks, self.loc("effects"), "`effects`") if blocks is not None else YMap()
        merged = YMap()
        merged.loc, merged.key_locs, merged.value_locs = own_loc if own is not None else include_loc, {}, {}
        origin: dict[str, str] = {}
        for i, block_name in enumerate(names):
            item_loc = names.item_loc(i) if isinstance(names, YList) else include_loc
            if block_name not in blocks:
                raise RulecheckError(f"action `{name}` includes an unknown effect block `{block_name}`", item_loc, block_name, did_you_mean(block_name, list(blocks)) or "declare it under the top-level `effects:`")
            block = _mapping(blocks[block_name], blocks.value_loc(block_name), f"effect block `{block_name}`")
            for target, value in block.items():
                if target in origin:
                    raise RulecheckError(f"action `{name}` includes `{origin[target]}` and `{block_name}`, which both assign `{target}`", item_loc, block_name, "assign it in the action's own `do` to say which value wins, or split the blocks")
                origin[target] = block_name
                merged[target] = value
                merged.key_locs[target] = block.key_loc(target)
                merged.value_locs[target] = block.value_loc(target)
        if own is not None:
            own = _mapping(own, own_loc, f"`do` of action `{name}`")
            for target, value in own.items():
                merged[target] = value
                merged.key_locs[target] = own.key_loc(target)
                merged.value_locs[target] = own.value_loc(target)
        return merged

    def effect_blocks(self) -> None:
        """`effects: {name: {target: value, ...}}`: every block is a named, non-empty mapping of
        assignments (checked where an action includes it, in that action's scope)."""
        raw = self.doc.get("effects")
        if raw is None:
            return
        raw = _mapping(raw, self.loc("effects"), "`effects`")
        for block_name, block in raw.items():
            _ident(block_name, raw.key_loc(block_name), "an effect block name")
            if not _mapping(block, raw.value_loc(block_name), f"effect block `{block_name}`"):
                raise RulecheckError(f"effect block `{block_name}` assigns nothing", raw.value_loc(block_name))

    def citations(self, scope: Scope, raw: Any, loc: Loc, bindings: dict[str, Binding], clauses: dict[str, Clause], name: str) -> tuple[Citation, ...]:
        """`cite: [{when: EXPR, rule: [ids]}]`: clauses cited only in the branch where they apply."""
        if raw is None:
            return ()
        if not isinstance(raw, YList) or not raw:
            raise RulecheckError(f"`cite` of action `{name}` is a list of `{{when: ..., rule: [...]}}`", loc, repr(raw)[:60])
        out = []
        for i, item in enumerate(raw):
            item = _mapping(item, raw.item_loc(i), f"a `cite` entry of action `{name}`")
            _keys(item, {"when", "rule"}, f"a `cite` entry of action `{name}`")
            for key in ("when", "rule"):
                if key not in item:
                    raise RulecheckError(f"a `cite` entry of action `{name}` is missing `{key}`", item.loc, None, "write `{when: CONDITION, rule: [clause ids]}`")
            when = check_expr(scope, item["when"], item.value_loc("when"), BOOL, bindings)
            rule = _id_list(item["rule"], item.value_loc("rule"), f"a `cite` entry of action `{name}`")
            self.check_citations(rule, clauses, item.value_loc("rule"))
            out.append(Citation(when, rule, item.loc))
        return tuple(out)

    def narrations(self, scope: Scope, raw: Any, loc: Loc, bindings: dict[str, Binding], slots: dict[str, Slot], assigns: tuple[Assign, ...], name: str, params: set[str]) -> tuple[Narration, ...]:
        """`text`: one template, or cases `[{when: EXPR, say: "..."}, ..., {say: "..."}]`.

        `{slot}` shows a scalar slot's value before the step; `{@slot}` writes the slot's label and
        says the step changes it: the slot must be one the action writes, and a trace step in
        which it did not change refuses the text."""
        if raw is None:
            return ()
        if isinstance(raw, str):
            cases: list[tuple[Expr | None, Any, Loc]] = [(None, raw, loc)]
        elif isinstance(raw, YList) and raw:
            cases = []
            for i, item in enumerate(raw):
                item = _mapping(item, raw.item_loc(i), f"a `text` case of action `{name}`")
                _keys(item, {"when", "say"}, f"a `text` case of action `{name}`")
                if not isinstance(item.get("say"), str):
                    raise RulecheckError(f"a `text` case of action `{name}` needs `say: \"...\"`", item.loc)
                when = check_expr(scope, item["when"], item.value_loc("when"), BOOL, bindings) if "when" in item else None
                cases.append((when, item["say"], item.value_loc("say")))
        else:
            raise RulecheckError(f"`text` of action `{name}` is a template or a list of `{{when: ..., say: \"...\"}}`", loc, repr(raw)[:60])
        written = {a.slot for a in assigns}
        for _, say, sloc in cases:
            for field_name in template_fields(say, sloc):
                moved = field_name.startswith("@")
                slot = field_name[1:] if moved else field_name
                if not moved and (slot == "by" or slot in params):
                    continue
                if slot not in slots:
                    raise RulecheckError(f"the text of action `{name}` names `{{{field_name}}}`, which is neither `by`, a parameter nor a slot", sloc, say, did_you_mean(slot, [*params, *slots]))
                if moved and slot not in written:
                    raise RulecheckError(f"the text of action `{name}` says `{slot}` changes (`{{@{slot}}}`), but the action never writes `{slot}`", sloc, say, "name only slots the step changes, or reword the text")
                if not moved and (slots[slot].dims or slots[slot].internal):
                    raise RulecheckError(f"the text of action `{name}` shows `{{{slot}}}`, which is {'an array' if slots[slot].dims else 'internal'}", sloc, say, "a template shows `by`, parameters and the value of scalar, non-internal slots")
        return tuple(Narration(when, say, sloc) for when, say, sloc in cases)

    def actor(self, scope: Scope, by: Any, loc: Loc, bindings: dict[str, Binding], name: str) -> tuple[str, Expr | None]:
        if by in ("chance", "rules"):
            return by, None
        if "player" not in self.domains:
            raise RulecheckError(f"action `{name}`: `by` is chance, rules, or a player, but the model declares no players", loc, str(by), "add `players: [...]` or use `by: rules`/`by: chance`")
        return "player", check_expr(scope, by, loc, enum("player"), bindings)

    def only(self, raw: Any, loc: Loc, readings: dict[str, Reading], name: str) -> dict[str, tuple[str, ...]]:
        if raw is None:
            return {}
        raw = _mapping(raw, loc, f"`only` of action `{name}`")
        out: dict[str, tuple[str, ...]] = {}
        for reading, options in raw.items():
            if reading not in readings:
                raise RulecheckError(f"`only` names an unknown reading `{reading}`", raw.key_loc(reading), str(reading), did_you_mean(str(reading), readings))
            chosen = tuple(options) if isinstance(options, list) else (options,)
            for option in chosen:
                if option not in readings[reading].options:
                    raise RulecheckError(f"`only`: `{option}` is not an option of reading `{reading}`", raw.value_loc(reading), str(option), did_you_mean(str(option), readings[reading].options) or f"options: {', '.join(readings[reading].options)}")
            out[reading] = chosen
        return out

    def assigns(self, scope: Scope, slots: dict[str, Slot], raw: Any, loc: Loc, bindings: dict[str, Binding], name: str) -> tuple[Assign, ...]:
        if raw is None:
            return ()
        raw = _mapping(raw, loc, f"`do` of action `{name}`")
        out: list[Assign] = []
        for target, value in raw.items():
            tloc = raw.key_loc(target)
            for assign in self.assign(scope, slots, str(target), tloc, value, raw.value_loc(target), bindings):
                for earlier in out:
                    if certainly_overlap(earlier, assign):
                        raise RulecheckError(f"action `{name}` assigns `{assign.slot}` twice (`{earlier.text}` and `{target}`)", tloc, str(target), "an action's assignments are simultaneous; write each slot element once")
                out.append(assign)
        return tuple(out)

    def assign(self, scope: Scope, slots: dict[str, Slot], target: str, tloc: Loc, value: Any, vloc: Loc, bindings: dict[str, Binding]) -> list[Assign]:
        """One target's assignments: one, or for a pile its positions and its length."""
        node = _parse_target(target, tloc)
        bound: list[tuple[str, Domain]] = []
        if isinstance(node, ast.GeneratorExp):
            for comp in node.generators:
                if not isinstance(comp.target, ast.Name) or not isinstance(comp.iter, ast.Name) or comp.ifs:
                    raise RulecheckError("a whole-domain assignment is `slot[x] for x in domain`", tloc, target)
                bound.append((comp.target.id, self.domain_ref(comp.iter.id, tloc)))
            node = node.elt
        inner = {**bindings, **dict(bound)}
        indices_nodes: list[ast.AST] = []
        current = node
        while isinstance(current, ast.Subscript):
            indices_nodes.insert(0, current.slice)
            current = current.value
        if not isinstance(current, ast.Name):
            raise RulecheckError("an assignment target is a slot, `slot[i]`, or `slot[x] for x in domain`", tloc, target)
        if current.id not in slots:
            raise RulecheckError(f"unknown slot `{current.id}`", tloc, target, did_you_mean(current.id, slots) or ("constants cannot be assigned" if current.id in scope.constants else None))
        slot = slots[current.id]
        if slot.name in self.piles:
            pile = self.piles[slot.name]
            if len(indices_nodes) > len(pile.outer):
                raise RulecheckError(f"`{pile.name}` is a pile: an assignment writes a whole pile ({len(pile.outer)} index(es), no position)", tloc, target, "write the pile it becomes: put_top(...), draw(...), put_bottom(...), remove(...), [] ...")
            checker = ExprChecker(scope, target, tloc, inner)
            outer = tuple(checker.index(ix, dom, pile.name) for ix, dom in zip(indices_nodes, pile.outer))
            for depth in range(len(outer), len(pile.outer)):  # `hand: []` writes every pile of the array
                bound.append((f"{pile.name}#{depth}", pile.outer[depth]))
                outer = (*outer, Var(pile.outer[depth].type, name=f"{pile.name}#{depth}", loc=tloc))
            if isinstance(value, list):  # YAML read `[]` or `[a, b]` as a list
                value = "[" + ", ".join(str(v) for v in value) + "]"
            pile_value = check_expr(scope, value, vloc, piles.pile_type(pile.elem), inner)
            assert isinstance(pile_value, piles.PileValue)
            return piles.assignments(pile, outer, tuple(bound), pile_value, tloc, target)
        if len(indices_nodes) > len(slot.dims):
            raise RulecheckError(f"`{slot.name}` has {len(slot.dims)} dimension(s), found {len(indices_nodes)} indices", tloc, target)
        checker = ExprChecker(scope, target, tloc, inner)
        indices = tuple(checker.index(ix, dom, slot.name) for ix, dom in zip(indices_nodes, slot.dims))
        expr = check_expr(scope, value, vloc, slot.elem.type, inner)
        self.check_literal_range(expr, slot, vloc)
        return [Assign(slot.name, indices, tuple(bound), expr, tloc, target)]

    # -- clauses -------------------------------------------------------------------------
    def clauses(self) -> dict[str, Clause]:
        raw = self.doc.get("clauses")
        out: dict[str, Clause] = {}
        if raw is None:
            return out
        raw = _mapping(raw, self.loc("clauses"), "`clauses`")
        for cid, spec in raw.items():
            kloc = raw.key_loc(cid)
            if not isinstance(cid, str) or not CLAUSE_ID.fullmatch(cid):
                raise RulecheckError("a clause id is letters, digits, `-`, `.` and `_`", kloc, repr(cid))
            spec = _mapping(spec, raw.value_loc(cid), f"clause `{cid}`")
            _keys(spec, CLAUSE_KEYS, f"clause `{cid}`")
            for key in ("at", "says"):
                if key not in spec:
                    raise RulecheckError(f"clause `{cid}` is missing `{key}`", spec.loc, None, "a clause has `at` (where it is) and `says` (a short quote)")
            status = str(spec.get("status", "rule"))
            if status not in CLAUSE_STATUSES:
                raise RulecheckError(f"clause `{cid}`: unknown status `{status}`", spec.value_loc("status"), status, "status is `out-of-scope` (with `why`), `assumed` (settled by an assumption) or absent")
            if status == "out-of-scope" and not spec.get("why"):
                raise RulecheckError(f"clause `{cid}` is out of scope but says not `why`", spec.loc, None, "add `why: ...`")
            same = _id_list(spec["same_as"], spec.value_loc("same_as"), f"clause `{cid}`'s `same_as`") if "same_as" in spec else ()
            out[cid] = Clause(cid, str(spec["at"]), str(spec["says"]), status, str(spec.get("why", "")), kloc, same)
        return _same_rule_groups(out)

    # -- assumptions and display names ---------------------------------------------------
    def assumptions(self, clauses: dict[str, Clause], readings: dict[str, Reading]) -> list[Assumption]:
        raw = self.doc.get("assumptions")
        if raw is None:
            return []
        if not isinstance(raw, YList):
            raise RulecheckError("`assumptions` is a list of `{id, clauses, says, why}`", self.loc("assumptions"), repr(raw)[:60])
        out: list[Assumption] = []
        seen: dict[str, Loc] = {}
        for i, item in enumerate(raw):
            item = _mapping(item, raw.item_loc(i), "an assumption")
            _keys(item, ASSUMPTION_KEYS, "an assumption")
            for key in ("id", "clauses", "says", "why"):
                if key not in item:
                    raise RulecheckError(f"an assumption is missing `{key}`", item.loc, None, "an assumption has id, clauses, says and why (answers is optional)")
            aid = str(item["id"])
            if aid in seen:
                raise RulecheckError(f"assumption `{aid}` is given twice (first at line {seen[aid].line})", item.value_loc("id"), aid)
            seen[aid] = item.value_loc("id")
            cited = _id_list(item["clauses"], item.value_loc("clauses"), f"assumption `{aid}`")
            self.check_citations(cited, clauses, item.value_loc("clauses"))
            answers = _id_list(item.get("answers", []), item.value_loc("answers"), f"`answers` of assumption `{aid}`")
            contested = str(item.get("contested", ""))
            if contested and contested not in readings:
                raise RulecheckError(f"assumption `{aid}` is contested by reading `{contested}`, which this model does not have", item.value_loc("contested"), contested,
                                     did_you_mean(contested, readings) or "a contested assumption is the default option of a reading whose other options are the alternatives")
            out.append(Assumption(aid, cited, str(item["says"]).strip(), str(item["why"]).strip(), answers, item.loc, contested))
        return out

    def display_names(self) -> None:
        """`names: {domain: {member: "display name"}}`, beside names given in member lists."""
        raw = self.doc.get("names")
        if raw is None:
            return
        raw = _mapping(raw, self.loc("names"), "`names`")
        for dname, members in raw.items():
            dom = self.domain_ref(dname, raw.key_loc(dname))
            members = _mapping(members, raw.value_loc(dname), f"`names` of `{dname}`")
            for member, shown in members.items():
                if not dom.contains(member):
                    raise RulecheckError(f"`names`: `{member}` is not a member of {dname}", members.key_loc(member), str(member), did_you_mean(str(member), [str(v) for v in dom.values()]))
                if not isinstance(shown, str):
                    raise RulecheckError("a display name is a string", members.value_loc(member), repr(shown))
                self.names.setdefault(dname, {})[str(member)] = shown

    @staticmethod
    def check_citations(cited: tuple[str, ...], clauses: dict[str, Clause], loc: Loc) -> None:
        for cid in cited:
            if cid not in clauses:
                raise RulecheckError(f"unknown clause `{cid}`", loc, cid, did_you_mean(cid, clauses) or "add it to the model's clauses.yaml")


def _same_rule_groups(clauses: dict[str, Clause]) -> dict[str, Clause]:
    """Each clause's `same_as`, made symmetric and transitive (a group states one rule in
    several sections); an unknown clause in it is a located error."""
    parent = {cid: cid for cid in clauses}

    def root(cid: str) -> str:
        while parent[cid] != cid:
            parent[cid] = parent[parent[cid]]
            cid = parent[cid]
        return cid

    for clause in clauses.values():
        for other in clause.same_as:
            if other not in clauses:
                raise RulecheckError(f"clause `{clause.id}`: `same_as` names an unknown clause `{other}`", clause.loc, other, did_you_mean(other, clauses))
            parent[root(other)] = root(clause.id)
    groups: dict[str, list[str]] = {}
    for cid in clauses:
        groups.setdefault(root(cid), []).append(cid)
    out = {}
    for cid, clause in clauses.items():
        same = tuple(c for c in groups[root(cid)] if c != cid)
        out[cid] = Clause(clause.id, clause.at, clause.says, clause.status, clause.why, clause.loc, same) if same != clause.same_as else clause
    return out


def template_fields(template: str, loc: Loc) -> list[str]:
    """The `{field}` names of a narrative template."""
    import string

    try:
        return [field for _, field, _, _ in string.Formatter().parse(template) if field]
    except ValueError as exc:
        raise RulecheckError(f"a narrative template is malformed: {exc}", loc, template, "write `{{` for a literal brace") from None


def _parse_target(target: str, loc: Loc) -> ast.AST:
    for text in (target, f"({target})"):
        try:
            return ast.parse(text, mode="eval").body
        except SyntaxError:
            continue
    raise RulecheckError("cannot parse assignment target", loc, target, "a target is `slot`, `slot[i]`, or `slot[x] for x in domain`")


def certainly_overlap(a: Assign, b: Assign) -> bool:
    """Whether two assignments write a common element whatever the state.

    Per shared dimension: the same index expression, or an index bound by a whole-domain
    `for`, certainly meets the other; different expressions might not (a computed clash is
    caught when the action runs). Missing trailing indices broadcast, so they meet anything."""
    if a.slot != b.slot:
        return False
    a_bound = {n for n, _ in a.bound}
    b_bound = {n for n, _ in b.bound}
    for x, y in zip(a.indices, b.indices):
        x_all = isinstance(x, Var) and x.name in a_bound
        y_all = isinstance(y, Var) and y.name in b_bound
        if not (x_all or y_all or x == y):
            return False
    return True


def _product(dims: tuple[Domain, ...]) -> list[tuple]:
    import itertools

    return list(itertools.product(*(d.values() for d in dims)))
