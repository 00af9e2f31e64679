"""Finding model files, resolving `extends`, and merging a variant onto its base.

A variant is merged at the YAML level before anything is type-checked, so the merged document is
checked exactly like a hand-written one and every location still points at the file that wrote
the value (the base or the variant).
"""

from __future__ import annotations

import copy
import glob
import os

from checker.errors import Loc, RulecheckError
from checker.lang.yamlsrc import YList, YMap, load_yaml

CLAUSE_FILE = "clauses.yaml"
QUESTION_FILE = "questions.yaml"
NOT_MODELS = {CLAUSE_FILE, QUESTION_FILE}

# How a variant's section combines with its base's.
FIELDWISE = {"constants", "readings", "names"}  # entry by entry, and field by field inside an entry
ENTRYWISE = {"domains", "define", "state", "init", "actions", "clauses"}  # entry by entry
BY_ID = {"assumptions"}  # lists of entries with an `id`: same id replaces, new ids are added
NOT_INHERITED = {"abstract", "extends", "remove_actions", "remove_readings"}


def model_files(paths: list[str]) -> list[str]:
    """The model files under the given paths (files or folders), sorted, clause and question files excluded."""
    found: list[str] = []
    for path in paths:
        if os.path.isdir(path):
            candidates = glob.glob(os.path.join(path, "**", "*.yaml"), recursive=True)
            found.extend(c for c in candidates if os.path.basename(c) not in NOT_MODELS)
        elif os.path.isfile(path):
            found.append(path)
        else:
            raise RulecheckError(f"no such file or folder: {path}")
    return sorted(dict.fromkeys(os.path.normpath(f) for f in found))


def load_merged(path: str, stack: tuple[str, ...] = ()) -> YMap:
    """The model at `path` with its `extends` chain merged in, and its folder's clauses."""
    data = _load_mapping(path)
    if "extends" in data:
        parent_ref = data["extends"]
        loc = data.value_loc("extends")
        if not isinstance(parent_ref, str):
            raise RulecheckError("`extends` takes the path of another model file", loc, repr(parent_ref))
        parent = os.path.normpath(os.path.join(os.path.dirname(path), parent_ref))
        if parent in stack or parent == os.path.normpath(path):
            chain = " -> ".join(os.path.basename(p) for p in (*stack, path, parent))
            raise RulecheckError(f"cyclic `extends`: {chain}", loc, parent_ref, "a variant may not extend itself, directly or through others")
        if not os.path.isfile(parent):
            raise RulecheckError(f"`extends` names a file that does not exist: {parent}", loc, parent_ref)
        base = load_merged(parent, (*stack, os.path.normpath(path)))
        data = merge(base, data)
    if not stack:
        data = _with_clause_file(path, data)
    return data


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
    items = list(zip(base, (base.item_loc(i) for i in range(len(base))))) if isinstance(base, YList) else [(b, None) for b in base]
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
    out.loc = getattr(extra, "loc", None)
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
    if not os.path.isfile(clause_path):
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
