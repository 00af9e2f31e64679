"""The bytecode interpreter of the native back-end: one compiled loop for every model.

Numba source generated per model would compile in seconds to minutes per model. Here the model
is data instead: `vm_code.py` assembles its guards, effects and property predicates into an
array of integers, and `run` below executes them. It is compiled once per machine (numba's
cache), so a model nobody compiled before explores natively at once.

The instructions work on a stack of 64-bit integers (`st`) and a few registers (`reg`); a
state is a row of 64-bit words, the old state of an `after` property a second row. An
instruction is its operation number followed by its operands, all in one int64 array. A
modelling error (division by zero, an index outside its domain, a write outside a slot's range
or twice, a pile operation it cannot do, min/max over nothing) stops the run and sets `err[0]`:
the engine then leaves the configuration to the Python engine, which reports it in its words.
"""

from __future__ import annotations

import numpy as np

from checker.engines.native.runtime import WORD, _rd, _wr, per_state

# The `node` of a run that decides no property. An int64, not the literal 0: numba compiles a
# function once per distinct argument types, and a literal is a type of its own (three copies
# of `run`, 3 to 4 CPU s each, before every caller passed the same types).
NO_NODE = np.int64(0)
SKIP = -(1 << 62)  # a filtered-out value of min()/max() over a domain (model values are far smaller)

# -- operations (operands in brackets) ------------------------------------------------------------
PUSH = 0  # [value]: push it
FIELD = 1  # [state, word, shift, mask]: push the field at a constant place of state 0 (s) or 1 (o)
FIELDX = 2  # [state, base, width, mask]: pop an element number, push that element's field
READING = 3  # [k]: push the option number of reading k
TABLE = 4  # [start]: pop an element number, push tables[start + it]
INDEX = 5  # [lo, size]: pop an index, push its position in lo..lo+size-1 (or stop: outside)
ADD = 6
SUB = 7
MUL = 8
DIV = 9  # floor division; stops on zero
MOD = 10  # Python's modulo; stops on zero
EQ = 11
NE = 12
LT = 13
LE = 14
GT = 15
GE = 16
MIN = 17
MAX = 18
NEG = 19
ABS = 20
NOT = 21
TRUTH = 22  # 0 or 1
JUMP = 23  # [address]
JUMP_IF_ZERO = 24  # [address]: pop; jump when zero
JUMP_UNLESS_ZERO = 25  # [address]: pop; jump when not zero
AND_ELSE = 26  # [address]: when the top is zero jump (keeping it), else pop it
OR_ELSE = 27  # [address]: when the top is not zero jump (keeping it), else pop it
FAIL = 28  # a modelling error
MIN_SKIPPING = 29  # pop b, pop a: push b when a is SKIP, else min(a, b)
MAX_SKIPPING = 30
NOT_SKIP = 31  # stop when the top is SKIP (min/max over no values)
STORE = 32  # [register]: pop into it
LOAD = 33  # [register]: push it
IN_RANGE = 34  # [lo, hi]: stop when the top is outside lo..hi
BEGIN = 35  # copy s into out[n]: the successor under construction
WRITE = 36  # [offset register, value register, mask]: write a field of out[n] at a bit offset
MOVE = 37  # [instance]: out_i[n] = instance; n += 1
FORCED_DONE = 38  # the end of the forced rules: return n when any fired
DISPATCH = 39  # [offset, mask, count, value1, address1, ..., after]: jump by the value of the field at a bit offset
RETURN = 40  # return n (successors) or the top of the stack (an expression)
FIELD2 = 44  # [state, word, shift, mask]: a constant field straddling two words
OPEN = 45  # [k, address]: jump when property k is already decided (status[k] != 0)
DECIDE = 46  # [k, value]: pop; when its truth is `value`, property k is decided here (status, where)
KEEP = 47  # [register, stamp register, counter register]: keep the top in a register, stamped with the evaluation's stamp
CALL = 48  # [register, stamp register, counter register, address]: push the register when it was kept in this evaluation, else push the return address and run the subroutine at address
UNIT = 49  # [counter register]: a new evaluation (a new stamp)
KEEP_RETURN = 50  # [register, stamp register, counter register]: keep the top (stamped), put it in place of the return address below it, and return there
# Superinstructions: a PUSH and the instruction after it run as one (`vm_code._fused`), where no
# jump lands between them; they are most of what a successor program runs (the constant operand
# of a comparison or an addition, the constant offset or value of a write).
SET = 51  # [register, value]: PUSH value, STORE register
ADD_C = 52  # [value]: PUSH value, ADD; and so on for the operations below
SUB_C = 53
MUL_C = 54
EQ_C = 55
NE_C = 56
LT_C = 57
LE_C = 58
GT_C = 59
GE_C = 60
# Superinstructions of a field test (`vm_code._fused`): FIELD of state 0 or 1 and the
# comparison after it, and then the jump after that; most of a guard's and a property's tests.
# Where an `and` lands on a guard's JUMP_IF_ZERO, the `and` becomes the jump (`vm_code._threaded`).
FIELD_EQ_C = 61  # [state, word, shift, mask, value]: push whether the field equals value
FIELD_NE_C = 62  # [state, word, shift, mask, value]: push whether the field differs from value
FIELD_EQ_JUMP = 63  # [state, word, shift, mask, value, address]: jump when the field differs from value (FIELD_EQ_C, JUMP_IF_ZERO)
FIELD_EQ_AND = 64  # [state, word, shift, mask, value, address]: when the field differs, push 0 and jump (FIELD_EQ_C, AND_ELSE)
FIELD_JUMP = 67  # [state, word, shift, mask, address]: jump when the field is zero (FIELD, JUMP_IF_ZERO)
FIELD_AND = 68  # [state, word, shift, mask, address]: when the field is zero, push 0 and jump (FIELD, AND_ELSE)
# A write of an effect at a constant bit offset (`vm_code._effects`): no register for the
# offset, nor for the value when it is a constant too.
WRITE_AT = 65  # [offset, value register, mask]
WRITE_K = 66  # [offset, value, mask]
# A sum of fields (`vm_code._field_sum`): FIELD, then FIELD and ADD again and again, as one
# instruction; an aggregate `sum(deck[k] for k in card)` unrolled is such a chain, most of what
# Show'n'Go's successor program ran (a dispatch a term instead of two). Each term is four
# operands: its kind (the state, 0 s or 1 o, plus 2 when the field straddles two words, as
# FIELD2's), word, shift and mask.
FIELD_SUM = 69  # [count, (kind, word, shift, mask) x count]: push the sum of the fields
# A comparison with a constant and a guard's jump after it (`vm_code._constant_pair`): most of
# the guards' tests of a value worked out (a count against a limit, a sum against a size).
EQ_C_JUMP = 70  # [value, address]: pop; jump unless it equals value (EQ_C, JUMP_IF_ZERO)
NE_C_JUMP = 71
LT_C_JUMP = 72
LE_C_JUMP = 73
GT_C_JUMP = 74
GE_C_JUMP = 75


@per_state
def run(code, pc, s, o, out_i, out, rd, tables, st, reg, err, status, where, node):
    """Execute from `pc` until RETURN: the number of successors written to `out` (a successor
    program), or the value on top of the stack (an expression). The state properties' program
    decides properties at state number `node` (`status`, `where`). On a modelling error
    `err[0]` becomes 1 and the result means nothing."""
    sp = 0
    n = 0
    while True:
        op = code[pc]
        if op == FIELD:
            row = s if code[pc + 1] == 0 else o
            st[sp] = (row[code[pc + 2]] >> code[pc + 3]) & code[pc + 4]
            sp += 1
            pc += 5
        elif op == FIELD_EQ_JUMP:
            row = s if code[pc + 1] == 0 else o
            pc = pc + 7 if (row[code[pc + 2]] >> code[pc + 3]) & code[pc + 4] == code[pc + 5] else code[pc + 6]
        elif op == FIELD_EQ_AND:
            row = s if code[pc + 1] == 0 else o
            if (row[code[pc + 2]] >> code[pc + 3]) & code[pc + 4] == code[pc + 5]:
                pc += 7
            else:
                st[sp] = 0
                sp += 1
                pc = code[pc + 6]
        elif op == FIELD_JUMP:
            row = s if code[pc + 1] == 0 else o
            pc = pc + 6 if (row[code[pc + 2]] >> code[pc + 3]) & code[pc + 4] != 0 else code[pc + 5]
        elif op == FIELD_AND:
            row = s if code[pc + 1] == 0 else o
            if (row[code[pc + 2]] >> code[pc + 3]) & code[pc + 4] != 0:
                pc += 6
            else:
                st[sp] = 0
                sp += 1
                pc = code[pc + 5]
        elif op == FIELD_SUM:
            end = pc + 2 + 4 * code[pc + 1]
            total = 0
            at = pc + 2
            while at < end:
                kind = code[at]
                row = s if (kind & 1) == 0 else o
                if kind < 2:
                    total += (row[code[at + 1]] >> code[at + 2]) & code[at + 3]
                else:
                    total += _rd(row, code[at + 1] * WORD + code[at + 2], code[at + 3])
                at += 4
            st[sp] = total
            sp += 1
            pc = end
        elif op == FIELD_EQ_C:
            row = s if code[pc + 1] == 0 else o
            st[sp] = 1 if (row[code[pc + 2]] >> code[pc + 3]) & code[pc + 4] == code[pc + 5] else 0
            sp += 1
            pc += 6
        elif op == WRITE_K:
            _wr(out[n], code[pc + 1], code[pc + 3], code[pc + 2])
            pc += 4
        elif op == WRITE_AT:
            _wr(out[n], code[pc + 1], code[pc + 3], reg[code[pc + 2]])
            pc += 4
        elif op == PUSH:
            st[sp] = code[pc + 1]
            sp += 1
            pc += 2
        elif op == SET:
            reg[code[pc + 1]] = code[pc + 2]
            pc += 3
        elif op == EQ_C:
            st[sp - 1] = 1 if st[sp - 1] == code[pc + 1] else 0
            pc += 2
        elif op == ADD_C:
            st[sp - 1] = st[sp - 1] + code[pc + 1]
            pc += 2
        elif op == GT_C:
            st[sp - 1] = 1 if st[sp - 1] > code[pc + 1] else 0
            pc += 2
        elif op == MUL_C:
            st[sp - 1] = st[sp - 1] * code[pc + 1]
            pc += 2
        elif op == NE_C:
            st[sp - 1] = 1 if st[sp - 1] != code[pc + 1] else 0
            pc += 2
        elif op == SUB_C:
            st[sp - 1] = st[sp - 1] - code[pc + 1]
            pc += 2
        elif op == LT_C:
            st[sp - 1] = 1 if st[sp - 1] < code[pc + 1] else 0
            pc += 2
        elif op == LE_C:
            st[sp - 1] = 1 if st[sp - 1] <= code[pc + 1] else 0
            pc += 2
        elif op == GE_C:
            st[sp - 1] = 1 if st[sp - 1] >= code[pc + 1] else 0
            pc += 2
        elif op == JUMP_IF_ZERO:
            sp -= 1
            pc = code[pc + 1] if st[sp] == 0 else pc + 2
        elif op == GT_C_JUMP:
            sp -= 1
            pc = pc + 3 if st[sp] > code[pc + 1] else code[pc + 2]
        elif op == EQ_C_JUMP:
            sp -= 1
            pc = pc + 3 if st[sp] == code[pc + 1] else code[pc + 2]
        elif op == LE_C_JUMP:
            sp -= 1
            pc = pc + 3 if st[sp] <= code[pc + 1] else code[pc + 2]
        elif op == GE_C_JUMP:
            sp -= 1
            pc = pc + 3 if st[sp] >= code[pc + 1] else code[pc + 2]
        elif op == LT_C_JUMP:
            sp -= 1
            pc = pc + 3 if st[sp] < code[pc + 1] else code[pc + 2]
        elif op == NE_C_JUMP:
            sp -= 1
            pc = pc + 3 if st[sp] != code[pc + 1] else code[pc + 2]
        elif op == LOAD:
            st[sp] = reg[code[pc + 1]]
            sp += 1
            pc += 2
        elif op == KEEP:
            reg[code[pc + 1]] = st[sp - 1]
            reg[code[pc + 2]] = reg[code[pc + 3]]
            pc += 4
        elif op == CALL:
            if reg[code[pc + 2]] == reg[code[pc + 3]]:
                st[sp] = reg[code[pc + 1]]
                sp += 1
                pc += 5
            else:
                st[sp] = pc + 5
                sp += 1
                pc = code[pc + 4]
        elif op == KEEP_RETURN:
            value = st[sp - 1]
            reg[code[pc + 1]] = value
            reg[code[pc + 2]] = reg[code[pc + 3]]
            sp -= 1
            pc = st[sp - 1]
            st[sp - 1] = value
        elif op == EQ:
            sp -= 1
            st[sp - 1] = 1 if st[sp - 1] == st[sp] else 0
            pc += 1
        elif op == DISPATCH:
            value = _rd(s, code[pc + 1], code[pc + 2])
            count = code[pc + 3]
            target = code[pc + 4 + 2 * count]
            for k in range(count):
                if code[pc + 4 + 2 * k] == value:
                    target = code[pc + 5 + 2 * k]
                    break
            pc = target
        elif op == AND_ELSE:
            if st[sp - 1] == 0:
                pc = code[pc + 1]
            else:
                sp -= 1
                pc += 2
        elif op == OR_ELSE:
            if st[sp - 1] != 0:
                pc = code[pc + 1]
            else:
                sp -= 1
                pc += 2
        elif op == ADD:
            sp -= 1
            st[sp - 1] = st[sp - 1] + st[sp]
            pc += 1
        elif op == NE:
            sp -= 1
            st[sp - 1] = 1 if st[sp - 1] != st[sp] else 0
            pc += 1
        elif op == LT:
            sp -= 1
            st[sp - 1] = 1 if st[sp - 1] < st[sp] else 0
            pc += 1
        elif op == LE:
            sp -= 1
            st[sp - 1] = 1 if st[sp - 1] <= st[sp] else 0
            pc += 1
        elif op == GT:
            sp -= 1
            st[sp - 1] = 1 if st[sp - 1] > st[sp] else 0
            pc += 1
        elif op == GE:
            sp -= 1
            st[sp - 1] = 1 if st[sp - 1] >= st[sp] else 0
            pc += 1
        elif op == NOT:
            st[sp - 1] = 1 if st[sp - 1] == 0 else 0
            pc += 1
        elif op == TRUTH:
            st[sp - 1] = 0 if st[sp - 1] == 0 else 1
            pc += 1
        elif op == JUMP:
            pc = code[pc + 1]
        elif op == JUMP_UNLESS_ZERO:
            sp -= 1
            pc = code[pc + 1] if st[sp] != 0 else pc + 2
        elif op == FIELD_NE_C:
            row = s if code[pc + 1] == 0 else o
            st[sp] = 1 if (row[code[pc + 2]] >> code[pc + 3]) & code[pc + 4] != code[pc + 5] else 0
            sp += 1
            pc += 6
        elif op == FIELDX:
            row = s if code[pc + 1] == 0 else o
            st[sp - 1] = _rd(row, code[pc + 2] + st[sp - 1] * code[pc + 3], code[pc + 4])
            pc += 5
        elif op == FIELD2:
            row = s if code[pc + 1] == 0 else o
            st[sp] = _rd(row, code[pc + 2] * WORD + code[pc + 3], code[pc + 4])
            sp += 1
            pc += 5
        elif op == READING:
            st[sp] = rd[code[pc + 1]]
            sp += 1
            pc += 2
        elif op == TABLE:
            st[sp - 1] = tables[code[pc + 1] + st[sp - 1]]
            pc += 2
        elif op == INDEX:
            value = st[sp - 1]
            lo = code[pc + 1]
            if value < lo or value >= lo + code[pc + 2]:
                err[0] = 1
                return 0
            st[sp - 1] = value - lo
            pc += 3
        elif op == SUB:
            sp -= 1
            st[sp - 1] = st[sp - 1] - st[sp]
            pc += 1
        elif op == MUL:
            sp -= 1
            st[sp - 1] = st[sp - 1] * st[sp]
            pc += 1
        elif op == DIV:
            sp -= 1
            if st[sp] == 0:
                err[0] = 1
                return 0
            st[sp - 1] = st[sp - 1] // st[sp]
            pc += 1
        elif op == MOD:
            sp -= 1
            if st[sp] == 0:
                err[0] = 1
                return 0
            st[sp - 1] = st[sp - 1] % st[sp]
            pc += 1
        elif op == MIN:
            sp -= 1
            st[sp - 1] = min(st[sp - 1], st[sp])
            pc += 1
        elif op == MAX:
            sp -= 1
            st[sp - 1] = max(st[sp - 1], st[sp])
            pc += 1
        elif op == NEG:
            st[sp - 1] = -st[sp - 1]
            pc += 1
        elif op == ABS:
            st[sp - 1] = abs(st[sp - 1])
            pc += 1
        elif op == FAIL:
            err[0] = 1
            return 0
        elif op == MIN_SKIPPING:
            sp -= 1
            if st[sp - 1] == SKIP or st[sp] < st[sp - 1]:
                st[sp - 1] = st[sp]
            pc += 1
        elif op == MAX_SKIPPING:
            sp -= 1
            if st[sp - 1] == SKIP or st[sp] > st[sp - 1]:
                st[sp - 1] = st[sp]
            pc += 1
        elif op == NOT_SKIP:
            if st[sp - 1] == SKIP:
                err[0] = 1
                return 0
            pc += 1
        elif op == STORE:
            sp -= 1
            reg[code[pc + 1]] = st[sp]
            pc += 2
        elif op == UNIT:
            reg[code[pc + 1]] += 1
            pc += 2
        elif op == IN_RANGE:
            value = st[sp - 1]
            if value < code[pc + 1] or value > code[pc + 2]:
                err[0] = 1
                return 0
            pc += 3
        elif op == BEGIN:
            for w in range(s.shape[0]):
                out[n, w] = s[w]
            pc += 1
        elif op == WRITE:
            _wr(out[n], reg[code[pc + 1]], code[pc + 3], reg[code[pc + 2]])
            pc += 4
        elif op == MOVE:
            out_i[n] = code[pc + 1]
            n += 1
            pc += 2
        elif op == FORCED_DONE:
            if n > 0:
                return n
            pc += 1
        elif op == OPEN:
            pc = code[pc + 2] if status[code[pc + 1]] != 0 else pc + 3
        elif op == DECIDE:
            sp -= 1
            if (st[sp] != 0) == (code[pc + 2] != 0):
                status[code[pc + 1]] = 1
                where[code[pc + 1]] = node
            pc += 3
        elif op == RETURN:
            return st[sp - 1] if sp > 0 else n
        else:
            err[0] = 2  # not an operation: a bug of the assembler
            return 0
