"""The interpreter's `run` called through its address: compiled once, not once per caller.

numba compiles a function together with every compiled function it calls: each loop and helper
that calls `vm.run` links its own copy of the interpreter, and generating that copy's machine
code again cost 0.2 to 0.4 CPU s a caller (about 27 callers, 7 CPU s of a cold check). Here
`run` is compiled once more as a C function (`run_entry.run_c`, one copy, kept in numba's cache),
and the callers call it through its address, a run-time input (`Bytecode.context`'s last
array): the machine code of a caller holds a call, not the interpreter.

The arrays go as their data pointers (one-dimensional, the successor rows' width beside them),
so they must be contiguous: `call_run` refuses any other layout when its caller is compiled.
"""

from __future__ import annotations

from llvmlite import ir
from numba import types
from numba.extending import intrinsic

# `run`'s parameters as C sees them: each array its data pointer, `words` (a state row's width,
# the successor rows' too) after `out`'s.
WORDS = types.CPointer(types.int64)
FLAGS = types.CPointer(types.int8)
C_SIGNATURE = types.int64(
    WORDS, types.int64, WORDS, WORDS, WORDS, WORDS, types.int64, WORDS, WORDS, WORDS, WORDS, WORDS, FLAGS, WORDS, types.int64
)
_STATUS = 10  # the position among the arrays of `status`, an int8 array


@intrinsic
def call_run(typingctx, address, code, pc, s, o, out_i, out, rd, tables, st, reg, err, status, where, node):
    """`vm.run(code, pc, ...)` through the C function at `address` (`run_entry.address`)."""
    arrays = (code, s, o, out_i, out, rd, tables, st, reg, err, status, where)
    dtypes = [types.int8 if k == _STATUS else types.int64 for k in range(len(arrays))]
    if any(
        not isinstance(a, types.Array) or a.layout != "C" or a.dtype != d or a.ndim != (2 if a is out else 1)
        for a, d in zip(arrays, dtypes)
    ):
        return None
    if not all(isinstance(x, types.Integer) for x in (address, pc, node)):
        return None

    def codegen(context, builder, signature, args):
        def data(k):  # argument k's data pointer
            return context.make_array(signature.args[k])(context, builder, args[k]).data

        words = builder.extract_value(context.make_array(out)(context, builder, args[6]).shape, 1)
        values = [data(1), args[2], data(3), data(4), data(5), data(6), words, *(data(k) for k in range(7, 14)), args[14]]
        parameters = [context.get_value_type(t) for t in C_SIGNATURE.args]
        function = builder.inttoptr(args[0], ir.FunctionType(ir.IntType(64), parameters).as_pointer())
        return builder.call(function, [_as(builder, v, t) for v, t in zip(values, parameters)])

    return types.int64(address, code, pc, s, o, out_i, out, rd, tables, st, reg, err, status, where, node), codegen


def _as(builder, value, kind):
    """`value` as the C parameter type `kind`: a pointer cast, an integer widened."""
    if isinstance(kind, ir.PointerType):
        return builder.bitcast(value, kind)
    return builder.sext(value, kind) if value.type.width < kind.width else value
