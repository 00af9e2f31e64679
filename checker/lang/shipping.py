"""A model crossing between processes travels as one pickled blob, unpickled once per process.

Every job of the check matrix and of the Readings analysis carries its model to a worker
process, and every job's results carry it back: 250 to 420 KB pickled for the bundled games,
0.02 to 0.05 s to unpickle each time, hundreds of times in a check. So a `Model` pickles as
(content digest, blob), the blob made once per model object, and a process that receives a
digest it already holds takes the model it has (in the process that sent it: the very object
sent, so results come back to the same model). Equal digests mean equal pickled content, so the
model taken is the model sent; a model is not changed once loaded (nothing in the checker
does), which is what lets its blob be made once.
"""

from __future__ import annotations

import hashlib
import pickle
from collections import OrderedDict
from typing import Any

KEEP = 64  # models held per process: more than the bundled games' 25
_HELD: OrderedDict[str, Any] = OrderedDict()  # digest -> the model with that content, most recent last
_BLOB = "_shipped"  # the model's own attribute holding (digest, blob) once made


def reduce_model(model: Any) -> tuple:
    """`Model.__reduce__`: rebuilt by `received` from the digest and the blob."""
    shipped = model.__dict__.get(_BLOB)
    if shipped is None:
        state = {name: value for name, value in model.__dict__.items() if name != _BLOB}
        blob = pickle.dumps((type(model), state), protocol=pickle.HIGHEST_PROTOCOL)
        shipped = model.__dict__[_BLOB] = (hashlib.sha256(blob).hexdigest(), blob)
        _hold(shipped[0], model)
    return received, shipped


def received(digest: str, blob: bytes) -> Any:
    """The model a blob holds: the one this process already has with that content, else the
    blob unpickled (once)."""
    model = _HELD.get(digest)
    if model is not None:
        _HELD.move_to_end(digest)
        return model
    cls, state = pickle.loads(blob)  # noqa: S301 - made by `reduce_model` in a process of this run
    model = cls.__new__(cls)
    model.__dict__.update(state)
    model.__dict__[_BLOB] = (digest, blob)
    _hold(digest, model)
    return model


def copied(model: Any, memo: dict | None) -> Any:
    """A copy of the model (deep with a `memo`, as `copy.deepcopy` passes): `copy` goes through
    `__reduce__`, which would hand back the held model itself."""
    import copy

    state = {name: value for name, value in model.__dict__.items() if name != _BLOB}
    out = object.__new__(type(model))
    out.__dict__.update(copy.deepcopy(state, memo) if memo is not None else state)
    return out


def _hold(digest: str, model: Any) -> None:
    _HELD[digest] = model
    while len(_HELD) > KEEP:
        _HELD.popitem(last=False)
