"""Models between processes (`checker.lang.shipping`): pickled once per object, unpickled once
per process, equal to the model sent, and the sent object itself when they come back."""

from __future__ import annotations

import copy
import os
import pickle
from concurrent.futures import ProcessPoolExecutor

from checker.lang import shipping
from checker.lang.build import load_model

MODEL = os.path.join(os.path.dirname(__file__), "..", "models", "supershow", "tornado-tag.yaml")
_KEPT: list = []  # a worker keeps what it received, so no two received objects share an address


def _received(model) -> tuple[int, str, int]:
    _KEPT.append(model)
    return id(model), model.id, len(model.actions)


def test_a_model_comes_back_to_the_object_that_was_sent():
    model = load_model(MODEL)
    blob = pickle.dumps([model, model])
    back = pickle.loads(blob)
    assert back[0] is model and back[1] is model


def test_a_process_unpickles_a_model_once_and_it_equals_the_one_sent():
    model = load_model(MODEL)
    with ProcessPoolExecutor(max_workers=1) as pool:
        first, second = pool.submit(_received, model).result(), pool.submit(_received, model).result()
    assert first == second  # the second job's model is the object the first one received
    assert first[1:] == (model.id, len(model.actions))


def test_a_process_that_never_saw_the_model_rebuilds_an_equal_one(monkeypatch):
    model = load_model(MODEL)
    blob = pickle.dumps(model)
    monkeypatch.setattr(shipping, "_HELD", type(shipping._HELD)())
    rebuilt = pickle.loads(blob)
    assert rebuilt is not model and rebuilt == model
    assert pickle.loads(blob) is rebuilt


def test_models_of_other_content_are_other_models():
    model, other = load_model(MODEL), load_model(MODEL.replace("tornado-tag", "handicap"))
    assert pickle.loads(pickle.dumps(other)) is other and pickle.loads(pickle.dumps(model)) is model
    assert shipping.reduce_model(model)[1][0] != shipping.reduce_model(other)[1][0]


def test_copies_are_copies():
    model = load_model(MODEL)
    pickle.dumps(model)
    deep, shallow = copy.deepcopy(model), copy.copy(model)
    assert deep is not model and deep == model and deep.actions is not model.actions
    assert shallow is not model and shallow.actions is model.actions
    deep.actions.clear()
    assert model.actions
