"""Every cache key is made from exactly what the loader read, and `--fresh` reads no cache.

The layout is the one Supershow uses: a base, a fragment (`fragment: true`) in a subfolder that
extends it, and a variant that extends both. Each kind of input is edited in turn (the base, the
fragment, the variant, the clause index, a questions file added, the property suite, an option,
the checker's code) and every cache's key must change with it; a fragment edit once left every
key as it was, so `check` reused a stale verdict and `check --fresh` ran stale generated code.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from checker.evidence import verdict_cache
from checker.lang import caches, compile_cache
from checker.lang.build import load_model
from checker.lang.properties import bind, load_suite, properties_for, suite_path
from checker.pipeline import growth
from checker.pipeline import readings as reading_impact
from checker.pipeline.runner import CheckOptions, check_paths

BASE = """\
game: Fragments
id: base
abstract: true
constants: {goal: {type: int, range: [1, 5], default: 2}}
state: {n: "int[0..5]"}
init: {n: 0}
terminal: n >= goal
actions:
  up: {by: rules, when: n < goal, do: {n: n + 1}, rule: r-1}
"""
FRAGMENT = """\
fragment: true
extends: ../base.yaml
constants: {goal: {default: 3}}
"""
VARIANT = """\
extends: [base.yaml, fragments/goal.yaml]
id: v
"""
CLAUSES = "clauses:\n  r-1: {at: '1', says: 'Count up to the goal.'}\n"
SUITE = "game: g\nproperties:\n  - {id: small, kind: invariant, expr: \"n <= 3\", expect: holds}\n"
QUESTIONS = "questions:\n  - {id: q-goal, clauses: [r-1], kind: gap, raised_by: modeller, question: How far?}\n"


@pytest.fixture
def game(tmp_path: Path) -> Path:
    folder = tmp_path / "models" / "g"
    (folder / "fragments").mkdir(parents=True)
    (folder / "base.yaml").write_text(BASE)
    (folder / "fragments" / "goal.yaml").write_text(FRAGMENT)
    (folder / "v.yaml").write_text(VARIANT)
    (folder / "clauses.yaml").write_text(CLAUSES)
    (tmp_path / "properties").mkdir()
    (tmp_path / "properties" / "g.yaml").write_text(SUITE)
    return tmp_path


def keys(root: Path, options: CheckOptions | None = None) -> dict[str, str | None]:
    """Every cache's key for the variant's default configuration, loaded afresh from disk."""
    from checker.engines.explicit import Budget
    from checker.engines.native import program_cache
    from checker.evidence.results import Result
    from checker.pipeline import invented

    path = str(root / "models" / "g" / "v.yaml")
    model = load_model(path)
    config = model.default_config()
    props = [bind(p, model) for p in properties_for(model, load_suite(suite_path(path)))]
    result = Result(model=model, prop=props[0].prop, config=config, status="holds", engine="explicit", bound="exhaustive", expected="holds")  # type: ignore[arg-type]
    out: dict[str, str | None] = {
        "verdicts": verdict_cache.key(model, config, props, options or CheckOptions()),
        "python code": compile_cache.cache_key(model, config),
        "program": program_cache._key(model, config, props),
        "growth": growth._cache_path("dir", "f", result, growth.Growth({}, (), (), 0), Budget(100, 1.0)),
        "invented values": invented._cache_path("dir", "f", result, "n", Budget(100, 1.0)),
        "readings": reading_impact._content_key([model]),
        "readings verdicts": reading_impact._verdicts_key([result]),
    }
    return out


def test_the_loader_records_every_file_it_read_and_every_optional_file_it_missed(game: Path):
    model = load_model(str(game / "models" / "g" / "v.yaml"))
    read = {os.path.relpath(path, game): digest for path, digest in model.sources}
    assert set(read) == {"models/g/v.yaml", "models/g/base.yaml", "models/g/fragments/goal.yaml", "models/g/clauses.yaml", "models/g/questions.yaml"}
    assert read["models/g/questions.yaml"] == "absent"
    assert all(len(d) == 64 for name, d in read.items() if name != "models/g/questions.yaml")


EDITS = {
    "the base": lambda root: _append(root / "models" / "g" / "base.yaml"),
    "the fragment": lambda root: _append(root / "models" / "g" / "fragments" / "goal.yaml"),
    "the variant": lambda root: _append(root / "models" / "g" / "v.yaml"),
    "the clause index": lambda root: _append(root / "models" / "g" / "clauses.yaml"),
    "a questions file added": lambda root: (root / "models" / "g" / "questions.yaml").write_text(QUESTIONS),
}


def _append(path: Path) -> None:
    path.write_text(path.read_text() + "\n# an edit\n")


@pytest.mark.parametrize("edit", list(EDITS))
def test_an_edit_of_any_file_the_model_is_built_from_changes_every_key(game: Path, edit: str):
    before = keys(game)
    EDITS[edit](game)
    after = keys(game)
    unchanged = [name for name in before if before[name] == after[name] and name != "readings verdicts"]  # that half is of the results
    assert not unchanged, f"editing {edit} left these keys as they were: {unchanged}"


def test_an_edit_of_the_suite_changes_the_keys_of_what_depends_on_its_properties(game: Path):
    before = keys(game)
    suite = game / "properties" / "g.yaml"
    suite.write_text(suite.read_text().replace("n <= 3", "n <= 4"))
    after = keys(game)
    for name in ("verdicts", "program", "growth", "invented values", "readings verdicts"):
        assert before[name] != after[name], name
    assert before["python code"] == after["python code"]  # the successor code reads no property


def test_an_option_and_the_checker_code_change_the_verdicts_key(game: Path, monkeypatch):
    from checker.engines.explicit import Budget

    before = keys(game)
    assert keys(game, CheckOptions(budget=Budget(1_000, 600.0)))["verdicts"] != before["verdicts"]
    monkeypatch.setattr(caches, "_CODE_DIGEST", "another checker")
    other = keys(game)
    assert all(other[name] != before[name] for name in before if name != "readings verdicts")  # the results' half: code is in the other


def test_a_fragment_edit_is_seen_by_the_next_check(game: Path):
    """The reproducer: the verdict cache once reused `holds` after the fragment's goal was
    raised past 3."""
    first = {r.prop.id: r for r in check_paths([str(game / "models")], CheckOptions())}
    assert first["small"].status == "holds"
    fragment = game / "models" / "g" / "fragments" / "goal.yaml"
    fragment.write_text(fragment.read_text().replace("default: 3", "default: 5"))
    again = {r.prop.id: r for r in check_paths([str(game / "models")], CheckOptions())}
    assert again["small"].status == "fails" and not again["small"].reused


AUDITED_RUN = """
import json, os, sys
folders = json.loads(sys.argv[1])
read = []
def audit(event, args):
    if event == "open" and isinstance(args[0], str):
        mode = args[1] if isinstance(args[1], str) else "r"
        path = os.path.abspath(args[0])
        if "r" in mode and "+" not in mode and any(path.startswith(f + os.sep) for f in folders):
            read.append(path)
sys.addaudithook(audit)
from checker.cli import main
try:
    main(sys.argv[2:])
finally:
    print(json.dumps(read), file=sys.stderr)
"""


@pytest.mark.parametrize("backend", ["auto", "python"])
@pytest.mark.slow
def test_fresh_reads_no_cache_of_any_kind(game: Path, tmp_path: Path, backend: str):
    """A check fills every cache; the same check with --fresh, in a new process, then opens none
    of them for reading (an audit hook sees every `open`), and gives the same results."""
    import subprocess

    env = {**os.environ, "RULECHECK_CACHE": str(tmp_path / "user-cache")}
    args = ["check", "models", "--jobs", "1", "--format", "json", "--backend", backend]
    folders = [str(game / caches.PROJECT_DIR), *(str(tmp_path / "user-cache" / sub) for sub in ("python", "vm", os.path.join("native", "index")))]

    def audited(*extra: str) -> tuple[dict, list[str]]:
        run = subprocess.run([sys.executable, "-c", AUDITED_RUN, json.dumps(folders), *args, *extra], cwd=game, env=env, capture_output=True, text=True)
        assert run.returncode == 0, run.stdout + run.stderr
        return json.loads(run.stdout), json.loads(run.stderr.strip().splitlines()[-1])

    first, _ = audited()
    assert os.listdir(game / caches.PROJECT_DIR)
    again, read_again = audited()
    assert read_again and all(r["reused"] for r in again["results"])  # the hook sees what an ordinary run reads
    fresh, read_fresh = audited("--fresh")
    assert not read_fresh, f"--fresh read {read_fresh}"
    assert [r["verdict"] for r in fresh["results"]] == [r["verdict"] for r in first["results"]]
    assert not any(r["reused"] for r in fresh["results"])


def test_a_planted_pickle_in_the_verdict_cache_does_not_run(game: Path, tmp_path: Path, monkeypatch):
    """The verdict cache is in the user's repository: a file a pull request plants there is read
    as data or not at all, never unpickled."""
    import pickle

    monkeypatch.chdir(game)
    check_paths(["models"], CheckOptions())
    marker = tmp_path / "ran"

    class Payload:
        def __reduce__(self):
            return (open, (str(marker), "w"))

    for name in os.listdir(verdict_cache.cache_dir()):
        entry = os.path.join(verdict_cache.cache_dir(), name)
        with open(entry, "wb") as handle:
            pickle.dump(Payload(), handle)
        os.replace(entry, os.path.join(verdict_cache.cache_dir(), name.rsplit(".", 1)[0] + ".pickle"))
        with open(entry, "wb") as handle:
            pickle.dump(Payload(), handle)
    again = check_paths(["models"], CheckOptions())
    assert not marker.exists()
    assert again and not any(r.reused for r in again)


def test_no_file_under_the_working_directory_is_unpickled():
    """No module of the checker unpickles a file: every cache a repository can carry is data."""
    package = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "checker")
    offenders = []
    for folder, _, files in os.walk(package):
        for name in files:
            if name.endswith(".py"):
                text = Path(folder, name).read_text()
                for needle in ("pickle.load(", "pickle.Unpickler", "marshal.load(", "np.load(", "numpy.load("):
                    if needle in text:
                        offenders.append(f"{os.path.relpath(os.path.join(folder, name), package)}: {needle}")
    assert not offenders or all("allow_pickle=False" in Path(package, o.split(":")[0]).read_text() for o in offenders if "np.load(" in o), offenders
    assert not [o for o in offenders if "np.load(" not in o], offenders
