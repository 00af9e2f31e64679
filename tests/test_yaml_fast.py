"""libyaml composes the models (`yamlsrc._FastLoader`): the same located values as PyYAML's
composer for every YAML file of the project, and PyYAML's words for a text either refuses."""

from __future__ import annotations

import glob
import os

import pytest
import yaml

from checker.errors import RulecheckError
from checker.lang import yamlsrc

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FILES = sorted(glob.glob(os.path.join(HERE, "models", "**", "*.yaml"), recursive=True)
               + glob.glob(os.path.join(HERE, "properties", "*.yaml"))
               + glob.glob(os.path.join(HERE, "tests", "**", "*.yaml"), recursive=True))

pytestmark = pytest.mark.skipif(yamlsrc._FastLoader is None, reason="PyYAML without libyaml")


def _located(value):
    """A value with every location inside it, to compare two loads whole."""
    if isinstance(value, yamlsrc.YMap):
        return ("map", value.loc, sorted(((repr(k), value.key_loc(k), value.value_loc(k), _located(v)) for k, v in value.items())))
    if isinstance(value, yamlsrc.YList):
        return ("list", value.loc, value.item_locs, [_located(v) for v in value])
    return (type(value).__name__, value)


def _load(path: str, text: str, fast: bool, monkeypatch, only_libyaml: bool = False) -> object:
    with monkeypatch.context() as patch:
        patch.setattr(yamlsrc, "_COMPOSED", {})
        if not fast:
            patch.setattr(yamlsrc, "_FastLoader", None)
        if only_libyaml:
            patch.setattr(yamlsrc, "_compose_plain", lambda *args: pytest.fail(f"{path}: composed by PyYAML"))
        try:
            return _located(yamlsrc.load_yaml(path, text))
        except RulecheckError as exc:
            return ("error", str(exc), exc.loc)


@pytest.mark.slow
def test_every_yaml_file_loads_the_same_with_libyaml(monkeypatch):
    assert len(FILES) > 40
    for path in FILES:
        with open(path) as handle:
            text = handle.read()
        assert _load(path, text, True, monkeypatch, only_libyaml=True) == _load(path, text, False, monkeypatch), path


@pytest.mark.parametrize("text", [
    "a: 1\n b: 2\n",  # bad indentation
    "a: [1, 2\n",  # an unclosed list
    "a: 1\n\tb: 2\n",  # a tab
    "k: 010\n",  # a leading zero (the builder's check, after composing)
    "k: 1:30\n",  # a base-60 number
    "a: &x [1]\nb: !custom 3\n",  # a tag
    "",  # empty
    "[" * 200 + "]" * 200,  # nested too deep
])
def test_a_refused_text_gets_the_same_message_and_place(monkeypatch, text):
    """A text refused by either composer or the builder gets the same message and position."""
    fast = _load("m.yaml", text, True, monkeypatch)
    assert fast[0] == "error" and fast == _load("m.yaml", text, False, monkeypatch)


def test_libyaml_refusing_what_pyyaml_composes_falls_back(monkeypatch):
    """A text libyaml would refuse and PyYAML composes is PyYAML's tree."""
    def refuse(*args, **kwargs):
        raise yaml.YAMLError("refused")

    text = "a: 1\nb: [x, y]\n"
    expected = _load("m.yaml", text, False, monkeypatch)
    monkeypatch.setattr(yamlsrc, "_COMPOSED", {})
    real = yaml.compose
    monkeypatch.setattr(yaml, "compose", lambda stream, Loader: refuse() if Loader is yamlsrc._FastLoader else real(stream, Loader=Loader))
    assert _located(yamlsrc.load_yaml("m.yaml", text)) == expected
