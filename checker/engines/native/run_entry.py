"""`vm.run` as a C function (`run_call` says why): compiled, or loaded from numba's cache, when
this module is first imported, which the engine does under the interpreter's compile lock."""

from __future__ import annotations

from numba import carray, cfunc

from checker.engines.native.run_call import C_SIGNATURE
from checker.engines.native.vm import run

# A shape for the arrays whose length the interpreter never reads: it indexes them, past their
# first element too (numba checks no bounds), and reads only the state rows' length.
_ANY = 1


@cfunc(C_SIGNATURE, cache=True)
def run_c(code, pc, s, o, out_i, out, words, rd, tables, st, reg, err, status, where, node):
    return run(
        carray(code, _ANY),
        pc,
        carray(s, words),
        carray(o, words),
        carray(out_i, _ANY),
        carray(out, (_ANY, words)),
        carray(rd, _ANY),
        carray(tables, _ANY),
        carray(st, _ANY),
        carray(reg, _ANY),
        carray(err, _ANY),
        carray(status, _ANY),
        carray(where, _ANY),
        node,
    )


def address() -> int:
    """Where `run_c`'s machine code starts in this process (compiled at import, so it has one)."""
    at = run_c.address
    assert at is not None
    return int(at)
