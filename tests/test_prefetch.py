"""The visited table's prefetch (`runtime.prefetch`, the driver's `hint_slots`): a hint to the
processor that changes no result. The exploration loops' results are held to the Python engine's
by the differential tests; these check the pieces themselves."""

from __future__ import annotations

import pytest

np = pytest.importorskip("numpy")
pytest.importorskip("numba")

from numba import njit  # noqa: E402
from numba.core.errors import TypingError  # noqa: E402

from checker.engines.native import engine  # noqa: E402
from checker.engines.native.runtime import EMPTY, prefetch  # noqa: E402


@njit(cache=False)
def _read_after_hints(values, rows):
    """Sum every element of `values` and of `rows`, each asked into the cache first."""
    total = 0
    for k in range(values.shape[0]):
        prefetch(values, k)
        total += values[k]
    for r in range(rows.shape[0]):
        prefetch(rows, r)
        for w in range(rows.shape[1]):
            total += rows[r, w]
    return total


def test_a_prefetch_reads_and_writes_nothing():
    values = np.arange(1000, dtype=np.int64)
    rows = np.arange(60, dtype=np.int64).reshape(20, 3)
    before = (values.copy(), rows.copy())
    assert _read_after_hints(values, rows) == int(values.sum() + rows.sum())
    assert np.array_equal(values, before[0]) and np.array_equal(rows, before[1])
    assert all("@llvm.prefetch" in ir for ir in _read_after_hints.inspect_llvm().values()), "the hint reaches the compiled code"


def test_a_prefetch_of_something_not_an_array_is_refused():
    @njit(cache=False)
    def hint_a_number(x):
        prefetch(x, 0)

    with pytest.raises(TypingError):
        hint_a_number(3)


def test_hinted_fragments_are_the_ones_a_lookup_stores():
    """`hint_slots` gives each successor the fragment `lookup` computes, and `lookup_at` with it
    the slot `lookup` finds, for states stored and not; the table and rows stay as they were."""
    module = engine.load_module(engine.vm_source())
    rng = np.random.default_rng(7)
    states = rng.integers(0, 1 << 40, size=(300, 3), dtype=np.int64)
    table = np.full(1024, EMPTY, np.int64)
    shift = module.table_shift(table)
    for n in range(200):  # the first 200 stored, the rest not
        slot, frag = module.lookup(states, table, states[n], shift)
        entry = (int(frag) << 32) | n  # as the loops store it: an int64, the fragment's top bit its sign
        table[slot] = entry - (1 << 64) if entry >= 1 << 63 else entry
    table_before = table.copy()
    out = states[150:250].copy()
    frags = np.zeros(out.shape[0], np.int64)
    module.hint_slots(table, out, out.shape[0], frags, shift)
    for j in range(out.shape[0]):
        slot, frag = module.lookup(states, table, out[j], shift)
        assert frags[j] == frag
        assert module.lookup_at(states, table, out[j], frags[j], shift) == slot
        assert (table[slot] == EMPTY) == (150 + j >= 200)
    assert np.array_equal(table, table_before) and np.array_equal(out, states[150:250])
