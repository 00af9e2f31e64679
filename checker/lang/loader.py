"""Finding model files, resolving `extends`, and merging a variant onto its bases.

A variant is merged at the YAML level before anything is type-checked, so the merged document is
checked exactly like a hand-written one and every location still points at the file that wrote
the value (a base, a fragment or the variant).

`extends` takes one file or a list. The files of the whole hierarchy are put in one order (each
file after the files it extends, depth first, left to right, each file once) and their own
sections are merged in that order, so a fragment that several parents share is applied once. Two
files that do not extend one another may not both write the same entry unless a file extending
both writes it again (see docs/language.md, Variants).
"""

from __future__ import annotations

import copy
import glob
import os
from typing import Any

from checker.errors import Loc, RulecheckError
from checker.lang.yamlsrc import YList, YMap, load_yaml, present

CLAUSE_FILE = "clauses.yaml"
QUESTION_FILE = "questions.yaml"
NOT_MODELS = {CLAUSE_FILE, QUESTION_FILE}
FRAGMENT_KEY = "fragment"

# How a variant's section combines with its base's.
FIELDWISE = {"constants", "readings", "names"}  # entry by entry, and field by field inside an entry
ENTRYWISE = {"domains", "define", "state", "init", "actions", "clauses", "effects"}  # entry by entry
BY_ID = {"assumptions"}  # lists of entries with an `id`: same id replaces, new ids are added
NOT_INHERITED = {"abstract", "extends", "remove_actions", "remove_readings", "sections", FRAGMENT_KEY}


def model_files(paths: list[str]) -> list[str]:
    """The model files under the given paths (files or folders), sorted, clause and question files excluded."""
    found: list[str] = []
    for path in paths:
        if os.path.isdir(path):
            candidates = glob.glob(os.path.join(path, "**", "*.yaml"), recursive=True)
            found.extend(c for c in candidates if os.path.basename(c) not in NOT_MODELS and not is_fragment(c))
        elif os.path.isfile(path):
            found.append(path)
        else:
            raise RulecheckError(f"no such file or folder: {path}")
    return sorted(dict.fromkeys(os.path.normpath(f) for f in found))


def is_fragment(path: str) -> bool:
    """A file marked `fragment: true` holds sections for others to extend; it is not a model."""
    data = load_yaml(path)
    return isinstance(data, YMap) and data.get(FRAGMENT_KEY) is True


def load_merged(path: str) -> YMap:
    """The model at `path` with its `extends` hierarchy merged in, and its folder's clauses."""
    own = _load_mapping(path)
    if own.get(FRAGMENT_KEY) is True:
        raise RulecheckError("this file is a fragment (`fragment: true`), not a model", own.key_loc(FRAGMENT_KEY), None, "check a model that extends it")
    order, docs, ancestors = _linearize(os.path.normpath(path), (), {os.path.normpath(path): own}, {})
    data = docs[order[0]]
    for file in order[1:]:
        data = merge(data, docs[file])
    _check_conflicts(order, docs, ancestors)
    return _with_clause_file(path, data)


def _parents(path: str, data: YMap) -> list[tuple[str, Loc, str]]:
    """The files `data` extends: (normalised path, location of the reference, the reference)."""
    if "extends" not in data:
        return []
    refs = data["extends"]
    loc = data.value_loc("extends")
    items = [(refs, loc)] if isinstance(refs, str) else [(r, refs.item_loc(i) if isinstance(refs, YList) else loc) for i, r in enumerate(refs)] if isinstance(refs, list) and refs else None
    if items is None or not all(isinstance(r, str) for r, _ in items):
        raise RulecheckError("`extends` takes the path of another model file, or a list of paths", loc, repr(refs)[:60])
    out: list[tuple[str, Loc, str]] = []
    for ref, ref_loc in items:
        parent = os.path.normpath(os.path.join(os.path.dirname(path), ref))
        if any(parent == p for p, _, _ in out):
            raise RulecheckError(f"`extends` names `{ref}` twice", ref_loc, ref)
        out.append((parent, ref_loc, ref))
    return out


def _linearize(path: str, stack: tuple[str, ...], docs: dict[str, YMap], ancestors: dict[str, set[str]]) -> tuple[list[str], dict[str, YMap], dict[str, set[str]]]:
    """Every file of the hierarchy, each after the files it extends (depth first, left to right,
    each file once), with each file's own document and the set of files it descends from."""
    data = docs[path] if path in docs else _load_mapping(path)
    docs[path] = data
    order: list[str] = []
    mine: set[str] = set()
    for parent, loc, ref in _parents(path, data):
        if parent in stack or parent == path:
            chain = " -> ".join(os.path.basename(p) for p in (*stack, path, parent))
            raise RulecheckError(f"cyclic `extends`: {chain}", loc, ref, "a variant may not extend itself, directly or through others")
        if not os.path.isfile(parent):
            raise RulecheckError(f"`extends` names a file that does not exist: {parent}", loc, ref)
        sub_order, _, _ = _linearize(parent, (*stack, path), docs, ancestors)
        order.extend(f for f in sub_order if f not in order)
        mine |= {parent} | ancestors[parent]
    order.append(path)
    ancestors[path] = mine
    return order, docs, ancestors


def _written_entries(data: YMap) -> list[tuple[tuple[str, ...], Loc]]:
    """The entries a file's own document writes, at the depth at which they merge."""
    out: list[tuple[tuple[str, ...], Loc]] = []
    for key, value in data.items():
        if key in NOT_INHERITED or key in ("game", "id", "clauses"):
            continue
        if key in FIELDWISE and isinstance(value, YMap):
            for name, entry in value.items():
                if isinstance(entry, YMap):
                    out.extend(((key, str(name), str(field)), entry.key_loc(field)) for field in entry)
                else:
                    out.append(((key, str(name)), value.key_loc(name)))
        elif key in ENTRYWISE and isinstance(value, YMap):
            out.extend(((key, str(name)), value.key_loc(name)) for name in value)
        elif key in BY_ID and isinstance(value, list):
            out.extend(((key, str(item.get("id"))), value.item_loc(i) if isinstance(value, YList) else data.value_loc(key)) for i, item in enumerate(value) if isinstance(item, dict))
        else:
            out.append(((key,), data.key_loc(key)))
    for key, section in (("remove_actions", "actions"), ("remove_readings", "readings")):
        if isinstance(data.get(key), list):
            out.extend(((section, str(name)), data.value_loc(key)) for name in data[key])
    return out


def _check_conflicts(order: list[str], docs: dict[str, YMap], ancestors: dict[str, set[str]]) -> None:
    """The last file that writes an entry must descend from every other file that writes it
    (or an entry, field or its whole section above it), so that no fragment silently undoes
    another that it does not know about."""
    writers: dict[tuple[str, ...], list[tuple[str, Loc]]] = {}
    for file in order:
        for entry, loc in _written_entries(docs[file]):
            writers.setdefault(entry, []).append((file, loc))
    for entry, files in writers.items():
        related = [files]
        for depth in range(1, len(entry)):  # a fragment replacing a whole entry meets one writing one of its fields
            related.append(writers.get(entry[:depth], []))
        every = [w for group in related for w in group]
        last_file, last_loc = max(every, key=lambda w: order.index(w[0]))
        for other, other_loc in every:
            if other != last_file and other not in ancestors[last_file]:
                where = ".".join(entry)
                raise RulecheckError(
                    f"`{where}` is written by {os.path.basename(other)} and by {os.path.basename(last_file)}, neither of which extends the other",
                    last_loc, where, f"write `{where}` in the file that extends both, or drop it from one of them ({other_loc})",
                )


def _load_mapping(path: str) -> YMap:
    data = load_yaml(path)
    if not isinstance(data, YMap):
        raise RulecheckError("a model file is a mapping of sections (game, id, state, ...)", Loc(path, 1, 1))
    return data


def merge(base: YMap, variant: YMap) -> YMap:
    """The base with the variant's sections merged in (see docs/language.md, Variants)."""
    out = _copy_map(base)
    for key in NOT_INHERITED:
        if key in out:
            del out[key]
    for key, value in variant.items():
        if key in FIELDWISE | ENTRYWISE and isinstance(value, YMap) and isinstance(out.get(key), YMap):
            out[key] = _merge_entries(out[key], value, fieldwise=key in FIELDWISE)
        elif key in BY_ID and isinstance(value, list) and isinstance(out.get(key), list):
            out[key] = _merge_by_id(out[key], value)
        else:
            out[key] = value
        out.key_locs[key] = variant.key_loc(key)
        out.value_locs[key] = variant.value_loc(key)
    for key, section in (("remove_actions", "actions"), ("remove_readings", "readings")):
        if variant.get(key) is not None:
            _remove_entries(out, section, variant[key], variant.value_loc(key), key)
    return out


def _merge_entries(base: YMap, extra: YMap, fieldwise: bool) -> YMap:
    out = _copy_map(base)
    for name, value in extra.items():
        if fieldwise and isinstance(value, YMap) and isinstance(out.get(name), YMap):
            merged = _copy_map(out[name])
            for field, field_value in value.items():
                merged[field] = field_value
                merged.key_locs[field] = value.key_loc(field)
                merged.value_locs[field] = value.value_loc(field)
            out[name] = merged
        else:
            out[name] = value
        out.key_locs[name] = extra.key_loc(name)
        out.value_locs[name] = extra.value_loc(name)
    return out


def _merge_by_id(base: list, extra: list) -> list:
    """The base's entries with the variant's merged in by `id` (a YList keeps item locations)."""
    items: list[tuple[Any, Loc | None]] = list(zip(base, (base.item_loc(i) for i in range(len(base))))) if isinstance(base, YList) else [(b, None) for b in base]
    index = {item.get("id"): n for n, (item, _) in enumerate(items) if isinstance(item, dict)}
    for i, item in enumerate(extra):
        entry = (item, extra.item_loc(i) if isinstance(extra, YList) else None)
        key = item.get("id") if isinstance(item, dict) else None
        if key is not None and key in index:
            items[index[key]] = entry
        else:
            index[key] = len(items)
            items.append(entry)
    out = YList(item for item, _ in items)
    out.loc = getattr(extra, "loc", None)  # type: ignore[assignment]  # None only for a plain list, which load_yaml never gives
    out.item_locs = [loc or out.loc for _, loc in items]
    return out


def _remove_entries(out: YMap, section: str, removed: object, loc: Loc, key: str) -> None:
    """Drop inherited actions or readings by name (a variant's remove_actions/remove_readings)."""
    from checker.errors import did_you_mean

    if not isinstance(removed, list):
        raise RulecheckError(f"`{key}` takes a list of names", loc)
    entries = out.get(section)
    if isinstance(entries, YMap):
        entries = _copy_map(entries)
        out[section] = entries
    for i, name in enumerate(removed):
        item_loc = removed.item_loc(i) if hasattr(removed, "item_loc") else loc
        if not isinstance(entries, YMap) or name not in entries:
            raise RulecheckError(f"`{key}` names something the base does not have: `{name}`", item_loc, str(name), did_you_mean(str(name), entries or []))
        del entries[name]


def _copy_map(source: YMap) -> YMap:
    out = YMap(source)
    out.loc = source.loc
    out.key_locs = dict(source.key_locs)
    out.value_locs = dict(source.value_locs)
    return out


def _with_clause_file(path: str, data: YMap) -> YMap:
    """Merge `clauses.yaml` from the model's folder under the model's own `clauses`."""
    clause_path = os.path.join(os.path.dirname(path), CLAUSE_FILE)
    if not present(clause_path):
        return data
    clause_doc = load_yaml(clause_path)
    if not isinstance(clause_doc, YMap) or not isinstance(clause_doc.get("clauses"), YMap):
        raise RulecheckError("a clause file holds one mapping, `clauses:`, from clause id to {at, says}", Loc(clause_path, 1, 1))
    out = _copy_map(data)
    own = data.get("clauses")
    merged = copy.copy(clause_doc["clauses"])
    if isinstance(own, YMap):
        merged = _merge_entries(clause_doc["clauses"], own, fieldwise=False)
    out["clauses"] = merged
    return out
