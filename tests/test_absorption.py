"""The outcome odds' linear solve (`outcomes.absorbed`), layer by layer, against one sparse LU
of the whole chain; and the reasons naming the largest shift whatever the solver's rounding."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.sparse import csr_matrix, identity
from scipy.sparse.linalg import splu

from checker.analysis.classify import _largest
from checker.analysis.outcomes import absorbed, component_layers
from checker.engines import explicit


@st.composite
def chains(draw):
    """A transient part of an absorbing chain: moves between `n` states (cycles, self-loops and
    acyclic stretches alike) and into `k` outcomes, every row leaking some probability out."""
    n = draw(st.integers(1, 40))
    k = draw(st.integers(1, 3))
    moves = draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), max_size=4 * n))
    forward = draw(st.booleans())  # only moves to a later state (or itself): no cycle but self-loops
    weights = np.zeros((n, n))
    for a, b in moves:
        if not forward or b >= a:
            weights[a, b] += 1.0
    ends = np.array(draw(st.lists(st.lists(st.integers(0, 3), min_size=k, max_size=k), min_size=n, max_size=n)), float)
    leak = np.array(draw(st.lists(st.integers(1, 3), min_size=n, max_size=n)), float)
    total = weights.sum(axis=1) + ends.sum(axis=1) + leak
    return csr_matrix(weights / total[:, None]), ends / total[:, None]


@settings(max_examples=300, deadline=None, derandomize=True)
@given(chains())
def test_the_layered_solve_is_the_whole_lu(chain):
    q, ends = chain
    whole = splu((identity(q.shape[0], format="csc") - q).tocsc()).solve(ends)
    assert np.allclose(absorbed(q, ends), whole, rtol=0, atol=1e-12)


def test_a_chain_of_moves_is_solved_from_its_end():
    """0 -> 1 -> 2 -> outcome, each with a self-loop of one half: every state ends surely."""
    q = csr_matrix(np.array([[0.5, 0.5, 0.0], [0.0, 0.5, 0.5], [0.0, 0.0, 0.5]]))
    assert absorbed(q, np.array([[0.0], [0.0], [0.5]])).ravel().tolist() == [1.0, 1.0, 1.0]


def test_tied_largest_shifts_are_named_together():
    """With two outcomes, what one gains the other loses: both are named, however the solver
    rounded them; a clearly larger shift is named alone."""
    assert _largest({"a": 0.5, "b": 0.5}, {"a": 0.6 + 1e-15, "b": 0.4}) == "10 percentage points (a, b)"
    assert _largest({"a": 0.5, "b": 0.3, "c": 0.2}, {"a": 0.7, "b": 0.2, "c": 0.1}) == "20 percentage points (a)"



def _both_ways(q, ends):
    """`absorbed` with its numpy loop only, and with the compiled layers wherever it can."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(explicit, "COMPILED_PASSES_FROM", 10**9)
        by_numpy = absorbed(q, ends)
        patch.setattr(explicit, "COMPILED_PASSES_FROM", 0)
        compiled = absorbed(q, ends)
    return by_numpy, compiled


@settings(max_examples=300, deadline=None, derandomize=True)
@given(chains())
def test_the_compiled_layers_are_numpys_to_the_last_bit(chain):
    """The runs of layers without a cycle solved compiled give numpy's values exactly (the
    published odds must not depend on whether numba is installed), on chains with cycles,
    self-loops and acyclic stretches alike."""
    pytest.importorskip("numba")
    by_numpy, compiled = _both_ways(*chain)
    assert compiled.tobytes() == by_numpy.tobytes()


def test_layers_without_a_cycle_are_solved_compiled(monkeypatch):
    """A chain without a cycle is solved by the compiled pass alone, in one call, to the bit."""
    pytest.importorskip("numba")
    from checker.engines.native import passes

    calls = []
    solve = passes.acyclic_layers
    monkeypatch.setattr(passes, "acyclic_layers", lambda *args: calls.append(args[-2:]) or solve(*args))
    q = csr_matrix(np.array([[0.5, 0.25, 0.0], [0.0, 0.5, 0.3], [0.0, 0.0, 0.5]]))
    ends = np.array([[0.25, 0.0], [0.1, 0.1], [0.2, 0.3]])
    by_numpy, compiled = _both_ways(q, ends)
    assert calls == [(0, 3)]
    assert compiled.tobytes() == by_numpy.tobytes()


@settings(max_examples=300, deadline=None, derandomize=True)
@given(chains())
def test_the_compiled_layering_is_numpys(chain):
    """The components' layers, compiled and in numpy, on the components' graphs of random
    chains: the same layer for every component, the same number of layers."""
    pytest.importorskip("numba")
    from scipy.sparse.csgraph import connected_components

    from checker.engines.native import passes

    q, _ = chain
    count, component = connected_components(q, directed=True, connection="strong")
    coo = q.tocoo()
    across = component[coo.row] != component[coo.col]
    pred = csr_matrix((np.ones(int(across.sum()), np.int32), (component[coo.col[across]], component[coo.row[across]])), shape=(count, count))
    pred.sum_duplicates()
    left = np.bincount(pred.indices, minlength=count).astype(np.int64)
    by_numpy, depth = component_layers(pred, left.copy(), None)
    compiled, compiled_depth = component_layers(pred, left.copy(), passes)
    assert compiled.tolist() == by_numpy.tolist() and compiled_depth == depth
