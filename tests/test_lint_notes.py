"""`rulecheck lint`'s notes: the document's numbers a model scales down or invents, and the
properties that only restate a reading."""

from __future__ import annotations

from checker.lang.build import load_model
from checker.lang.properties import load_suite
from checker.lint.checks import restating_properties
from checker.lint.table import document_sizes
from tests.conftest import MINI, write


def test_scaled_and_invented_numbers_are_listed(tmp_path):
    text = MINI.replace("cards: {type: int, range: [0, 4], default: 2}", "cards: {type: int, range: [0, 40], default: 2, document: 40}\n  cap: {type: int, range: [0, 300], default: 90, document: none, plausible: [60, 300]}")
    model = load_model(write(tmp_path, text))
    assert document_sizes(model) == "scaled down: cards 2 (document 40); invented: cap 90 (plausible 60..300)"
    assert model.constants["cards"].scaled and model.constants["cap"].invented


def test_a_property_naming_a_reading_is_flagged(tmp_path):
    path = write(tmp_path, MINI)
    (tmp_path / "properties").mkdir()
    suite = tmp_path / "properties" / "game.yaml"
    suite.write_text("game: game\nproperties:\n  - {id: restates, kind: invariant, expr: \"reading.order == ann_first or over\"}\n  - {id: fine, kind: invariant, expr: \"deck[low] <= 4\"}\n")
    assert restating_properties(load_model(path), load_suite(str(suite))) == [("restates", "order")]
