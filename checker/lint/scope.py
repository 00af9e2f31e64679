"""What `rulecheck lint PATHS` lints: a whole game, or one model file and what depends on it.

A folder, a game's `clauses.yaml` or `questions.yaml`, or its property suite
(`properties/GAME.yaml`) lints the whole game: every model of the folder reads them. A model
file lints that model alone (its `extends` chain and the folder's clause index are part of it),
which is what a pre-commit hook wants when one variant changed. Its `cite` entries are checked
over the model and the variants that extend it, since those inherit the entries written in it;
entries inherited from a base file are left to the base's own lint (the variants beside this one
may be the ones that cite them). The names a suite's `expect` and `findings:` give for other
variants are checked when the game is linted or checked.
"""

from __future__ import annotations

import glob
import os
from dataclasses import dataclass

from checker.errors import Loc, RulecheckError
from checker.evidence.findings import load_findings
from checker.lang.build import load_model
from checker.lang.loader import CLAUSE_FILE, FRAGMENT_KEY, NOT_MODELS, QUESTION_FILE, model_files
from checker.lang.model import Model
from checker.lang.properties import bind, load_suite, suite_path
from checker.lang.yamlsrc import YMap, load_yaml
from checker.pipeline.runner import GameModels, load_games


@dataclass
class LintScope:
    """The models to report (`game.models`), the models whose citations are checked, and the
    files whose `cite` entries this lint is responsible for (None: every file)."""

    game: GameModels
    citing: list[Model]
    own_files: frozenset[str] | None = None

    def owns(self, loc: Loc) -> bool:
        return self.own_files is None or os.path.normpath(os.path.abspath(loc.file)) in self.own_files


def lint_scopes(paths: list[str]) -> list[LintScope]:
    """The scopes the paths ask for, whole games first, each model linted once."""
    folders: list[str] = []
    singles: list[str] = []
    for path in paths:
        if os.path.isdir(path):
            folders.append(path)
        elif not os.path.isfile(path):
            raise RulecheckError(f"no such file or folder: {path}")
        elif os.path.basename(path) in (CLAUSE_FILE, QUESTION_FILE):
            folders.append(os.path.dirname(path) or ".")
        elif os.path.basename(os.path.dirname(os.path.abspath(path))) == "properties":
            folders.append(_game_of_suite(path))
        else:
            singles.append(path)
    scopes: list[LintScope] = []
    if folders:
        for game in load_games(folders):
            folder = os.path.dirname(game.models[0].path)
            scopes.append(LintScope(game, [load_model(p) for p in model_files([folder])]))  # a branch may exist only in some variants
    covered = {os.path.normpath(os.path.abspath(m.path)) for s in scopes for m in s.game.models}
    for path in dict.fromkeys(os.path.normpath(p) for p in singles):
        if os.path.normpath(os.path.abspath(path)) not in covered:
            scopes.append(_single_model(path))
    return scopes


def _game_of_suite(path: str) -> str:
    """properties/GAME.yaml -> models/GAME, the folder whose models the suite is checked on."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(path)))
    folder = os.path.join(root, "models", os.path.splitext(os.path.basename(path))[0])
    if not os.path.isdir(folder):
        raise RulecheckError(f"property suite {path}: no model folder {os.path.relpath(folder)} for it", Loc(path, 1, 1))
    return os.path.relpath(folder)


def _single_model(path: str) -> LintScope:
    model = load_model(path)
    suite_file = suite_path(path)
    suite = load_suite(suite_file)
    for prop in suite:
        if prop.applies_to(model):
            bind(prop, model)
    heirs = [load_model(p) for p in _extending(path)]
    own = frozenset(os.path.normpath(os.path.abspath(m.path)) for m in (model, *heirs))
    findings = load_findings(suite_file)
    return LintScope(GameModels(model.folder, [model], suite, findings), [model, *heirs], own)


def _extending(path: str) -> list[str]:
    """The model files of the folder whose `extends` chain reaches `path` (read without building
    them). A sibling that cannot be read is left out: whether it extends `path` cannot be known,
    and its error is its own lint's to report, not this model's."""
    target = os.path.normpath(os.path.abspath(path))
    parents: dict[str, str | None] = {}
    folder = os.path.dirname(path) or "."
    for candidate in sorted(glob.glob(os.path.join(folder, "**", "*.yaml"), recursive=True)):
        if os.path.basename(candidate) in NOT_MODELS:
            continue
        try:
            doc = load_yaml(candidate)
        except RulecheckError:
            continue
        if isinstance(doc, YMap) and doc.get(FRAGMENT_KEY) is True:
            continue
        ref = doc.get("extends") if isinstance(doc, YMap) else None
        key = os.path.normpath(os.path.abspath(candidate))
        parents[key] = os.path.normpath(os.path.join(os.path.dirname(key), ref)) if isinstance(ref, str) else None
    heirs = []
    for candidate in sorted(parents):
        seen, parent = {candidate}, parents[candidate]
        while parent is not None and parent != target and parent not in seen:
            seen.add(parent)
            parent = parents.get(parent)
        if parent == target and candidate != target:
            heirs.append(os.path.relpath(candidate))
    return heirs
