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
C_SIGNATURE = types.int64(WORDS, types.int64, WORDS, WORDS, WORDS, WORDS, types.int64, WORDS, WORDS, WORDS, WORDS, WORDS, FLAGS, WORDS, types.int64)
_STATUS = 10  # the position among the arrays of `status`, an int8 array


@intrinsic
def call_run(typingctx, address, code, pc, s, o, out_i, out, rd, tables, st, reg, err, status, where, node):
    """`vm.run(code, pc, ...)` through the C function at `address` (`run_entry.address`)."""
    arrays = (code, s, o, out_i, out, rd, tables, st, reg, err, status, where)
    dtypes = [types.int8 if k == _STATUS else types.int64 for k in range(len(arrays))]
    if any(not isinstance(a, types.Array) or a.layout != "C" or a.dtype != d or a.ndim != (2 if a is out else 1) for a, d in zip(arrays, dtypes)):
        return None
    if not all(isinstance(x, types.Integer) for x in (address, pc, node)):
        return None

    def codegen(context, builder, signature, args):
        i64 = ir.IntType(64)
        pointers = []
        for k, (kind, value) in enumerate(zip(signature.args[1:], args[1:])):
            if isinstance(kind, types.Array):
                pointers.append(context.make_array(kind)(context, builder, value))
            else:
                pointers.append(value)
        code_, pc_, s_, o_, out_i_, out_, rd_, tables_, st_, reg_, err_, status_, where_, node_ = pointers
        words = builder.extract_value(out_.shape, 1)
        parameters = [context.get_value_type(t) for t in C_SIGNATURE.args]
        function = builder.inttoptr(args[0], ir.FunctionType(i64, parameters).as_pointer())
        values = [code_.data, pc_, s_.data, o_.data, out_i_.data, out_.data, words, rd_.data, tables_.data, st_.data, reg_.data, err_.data, status_.data, where_.data, node_]
        return builder.call(function, [builder.bitcast(v, t) if isinstance(v.type, ir.PointerType) else builder.sext(v, t) if v.type.width < 64 else v for v, t in zip(values, parameters)])

    return types.int64(address, code, pc, s, o, out_i, out, rd, tables, st, reg, err, status, where, node), codegen
