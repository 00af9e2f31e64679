"""The public Python API (`rulecheck`): its doctests, run from the project root as its examples
say, and every complete model example in docs/language.md loads and checks."""

from __future__ import annotations

import doctest
import os
import re

import pytest

import checker
import rulecheck
from checker.evidence.results import Result
from checker.lang import build

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def test_the_api_doctests_pass(monkeypatch):
    monkeypatch.chdir(ROOT)
    outcome = doctest.testmod(rulecheck, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE, report=True)
    assert outcome.failed == 0
    assert outcome.attempted >= 15  # the examples ran (a module without them would pass vacuously)


def test_star_import_gives_the_public_names_and_they_are_the_checkers_own():
    namespace: dict[str, object] = {}
    exec("from rulecheck import *", namespace)  # fails if __all__ names something the package lacks
    assert set(namespace) - {"__builtins__"} == set(rulecheck.__all__) >= {"load_model", "check", "count", "Result"}
    assert rulecheck.Result is Result and rulecheck.__version__ == checker.__version__


def yaml_examples() -> list[str]:
    with open(os.path.join(ROOT, "docs", "language.md"), encoding="utf-8") as handle:
        return re.findall(r"```yaml\n(.*?)```", handle.read(), re.S)


COMPLETE = [text for text in yaml_examples() if all(re.search(rf"^{key}:", text, re.M) for key in build.REQUIRED_KEYS)]


def test_the_language_reference_has_complete_examples():
    assert len(yaml_examples()) > 20 and len(COMPLETE) >= 1


@pytest.mark.parametrize("text", COMPLETE, ids=lambda t: re.search(r"^id: (\S+)", t, re.M).group(1))
def test_every_complete_model_example_in_the_reference_loads_and_checks(tmp_path, text):
    model_id = re.search(r"^id: (\S+)", text, re.M).group(1)
    folder = tmp_path / "models" / model_id
    folder.mkdir(parents=True)
    (folder / f"{model_id}.yaml").write_text(text, encoding="utf-8")
    model = rulecheck.load_model(folder / f"{model_id}.yaml")
    assert model.id == model_id
    results = rulecheck.check(model)
    assert results and all(r.matches for r in results), [(r.prop.id, r.status) for r in results if not r.matches]
