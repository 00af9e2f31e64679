"""The loops over states of the bytecode interpreter: exploration, the analyses' searches, walks.

The same module for every model: the loops call the functions below, which run a model's
program (`vm_code.py`) with `vm.run`. It is not imported under this name: `engine.load_module`
imports a copy of this file named by the digest of it and of the interpreter's code
(`engine.fingerprint`), because numba's cache tells a stale function by its own file's stamp
only, not by its callees' (a change to `vm.py` alone would otherwise run old machine code).
"""
# Every loop passes `ctx`, the program's inputs:
#   (code, tables, rd, stack, registers, err, scratch_i, scratch, entries, scratch_status, scratch_where, order)
# entries: 0 the successor program, 1 the terminal condition, 2 the state properties' checks
# (every open one decided at once), 3 where the `after`
# properties' per-instance ranges start (one more than the instances), 4 where their
# (property number, program) pairs start, 5 where the leads-to properties' (from, to) pairs start,
# 6 the outcome expression (-1: the model has none), 7 the instances, 8 where each instance's mover
# starts (-1 chance, -2 the rules, else the program of the player's number), 9 where each
# instance's weight starts (-1: none, else its program).
import numpy as np

from checker.engines.native.runtime import EMPTY, LOW, _after, kernel, kernel_part, per_state, prefetch, state_hash, table_shift  # noqa: F401
from checker.engines.native.vm import NO_NODE, run


@per_state
def _value(ctx, pc, s, o):
    """The value of the expression program at `pc` (a modelling error raises, as compiled code does)."""
    err = ctx[5]
    value = run(ctx[0], pc, s, o, ctx[6], ctx[7], ctx[2], ctx[1], ctx[3], ctx[4], err, ctx[9], ctx[10], NO_NODE)
    if err[0] != 0:
        raise ValueError("a modelling error")
    return value


@per_state
def moves(s, out_i, out, ctx):
    """The successors of s in the Python engine's order (-1 at a modelling error): the
    program's own order, or sorted by `ctx[11]`, each instance's place in the Python engine's
    order, where the two differ (`CompiledModel.block_order`)."""
    err = ctx[5]
    n = run(ctx[0], ctx[8][0], s, s, out_i, out, ctx[2], ctx[1], ctx[3], ctx[4], err, ctx[9], ctx[10], NO_NODE)
    if err[0] != 0:
        err[0] = 0
        return -1
    order = ctx[11]
    if order.shape[0] > 0:
        for j in range(1, n):
            k = j
            while k > 0 and order[out_i[k - 1]] > order[out_i[k]]:
                out_i[k - 1], out_i[k] = out_i[k], out_i[k - 1]
                for w in range(out.shape[1]):
                    out[k - 1, w], out[k, w] = out[k, w], out[k - 1, w]
                k -= 1
    return n


@per_state
def successors(s, out_i, out, ctx):
    n = moves(s, out_i, out, ctx)
    if n < 0:
        raise ValueError("a modelling error")
    return n


@per_state
def terminal(s, ctx):
    return _value(ctx, ctx[8][1], s, s) != 0


@per_state
def check_state(s, node, status, where, ctx):
    err = ctx[5]
    run(ctx[0], ctx[8][2], s, s, ctx[6], ctx[7], ctx[2], ctx[1], ctx[3], ctx[4], err, status, where, node)
    if err[0] != 0:
        raise ValueError("a modelling error")
    return 0


@per_state
def check_after(inst, s, o, pre, node, status, where, where2, inst_at, ctx):
    entries = ctx[8]
    ranges = entries[3] + inst
    pairs = entries[4]
    for j in range(entries[ranges], entries[ranges + 1]):
        k = entries[pairs + 2 * j]
        if status[k] == 0 and _value(ctx, entries[pairs + 2 * j + 1], s, o) == 0:
            _after(k, status, where, where2, inst_at, pre, node, inst)
    return 0


@per_state
def leads_masks(k, states, source, target, ctx):
    entries = ctx[8]
    at = entries[5] + 2 * k
    for node in range(states.shape[0]):
        s = states[node]
        source[node] = 1 if _value(ctx, entries[at], s, s) != 0 else 0
        target[node] = 1 if _value(ctx, entries[at + 1], s, s) != 0 else 0
    return 0


@kernel
def check_space(meta, states, parent, starts, targets, native, term, fired, forced, status, where, where2, inst_at, layers, ctx):
    """`expand`'s decisions over a whole space already explored (`space_store`), without
    exploring: every state's properties in the order the loop discovers states (their numbers),
    then every expanded state's end, moves and `after` properties in the loop's order; `layers`
    gets the loop's `layer_ends` (the number of states up to each depth). Returns how many."""
    n = states.shape[0]
    depth = np.zeros(n, np.int32)
    nl = 0
    for node in range(n):
        check_state(states[node], node, status, where, ctx)
        if parent[node] >= 0:
            depth[node] = depth[parent[node]] + 1
        if node > 0 and depth[node] != depth[node - 1]:
            layers[nl] = node
            nl += 1
    layers[nl] = n
    nl += 1
    for i in range(n):
        if term[i] != 0:
            continue
        a = starts[i]
        b = starts[i + 1]
        if a == b:
            if meta[12] != 0:
                meta[7] = i
                meta[12] = 0
            continue
        if meta[11] != 0 and b - a > 1 and forced[native[a]] != 0:
            for j in range(a + 1, b):
                if targets[j] != targets[a]:
                    meta[8] = i
                    meta[9] = native[a]
                    meta[10] = native[j]
                    meta[11] = 0
                    break
        for j in range(a, b):
            inst = native[j]
            fired[inst] = 1
            target = np.int64(targets[j])  # an int64, as the driver's loop passes it: one compilation of check_after
            check_after(inst, states[target], states[i], i, target, status, where, where2, inst_at, ctx)
    meta[4] = starts[n]
    return nl


# -- the Readings re-check's exploration (checker/analysis/evidence.py, decide_natively) ----------------------
# meta: 0 states, 1 next state to expand, 2 edges, 3 a stuck state found, 4 outcomes seen (codes in
# `seen`), 5 the state budget, 6 at_least, 7 ask whether settled (something is wanted), 8 and 9 the
# (stuck, outcomes seen) last asked about (-1: never asked).
# status: 0 chunk done, 1 complete, 2 past the budget, 3 ask whether settled, 4 arrays full.


@per_state
def _seen_outcome(s, seen, meta, ctx):
    """Record a terminal state's outcome (its code; 0 when the model has none)."""
    pc = ctx[8][6]
    code = _value(ctx, pc, s, s) if pc >= 0 else 0
    for k in range(meta[4]):
        if seen[k] == code:
            return
    if meta[4] == seen.shape[0]:
        raise ValueError("more outcomes than the array holds")  # the Python loop then runs
    seen[meta[4]] = code
    meta[4] += 1


@kernel
def seed_ends(meta, states, table, init, ends, seen, ctx):
    """The initial states in order (duplicates once), each terminal one's outcome seen."""
    shift = table_shift(table)
    words = states.shape[1]
    n = meta[0]
    for j in range(init.shape[0]):
        t = init[j]
        slot, frag = lookup(states, table, t, shift)
        if table[slot] != EMPTY:
            continue
        for k in range(words):
            states[n, k] = t[k]
        table[slot] = (frag << 32) | n
        ends[n] = 1 if terminal(t, ctx) else 0
        if ends[n] == 1:
            _seen_outcome(t, seen, meta, ctx)
        n += 1
    meta[0] = n


@kernel
def expand_ends(meta, states, table, starts, edges, ends, seen, ctx, limit):
    """`evidence.decide`'s loop, state for state: a terminal state's outcome is seen when it is
    found, a state without moves is stuck, a state whose moves would pass the budget is not
    expanded; after each state, once `at_least` states are found, returns to ask whether every
    wanted verdict is settled whenever what that depends on has changed."""
    words = states.shape[1]
    NI = out_rows(ctx)
    out_i = np.empty(NI, np.int64)
    out = np.empty((NI, words), np.int64)
    frags = np.empty(NI, np.int64)
    shift = table_shift(table)
    n = meta[0]
    i = meta[1]
    ne = meta[2]
    done = 0
    code = 0
    while i < n:
        if done >= limit:
            break
        if n + NI > states.shape[0] or (n + NI) * 4 > table.shape[0] * 3 or ne + NI > edges.shape[0] or i + 2 > starts.shape[0]:
            code = 4
            break
        if ends[i] == 0:
            s = states[i]
            k = successors(s, out_i, out, ctx)
            hint_slots(table, out, k, frags, shift)
            if k == 0:
                ends[i] = 2
                meta[3] = 1
            elif n + k > meta[5]:
                over = False
                for j in range(k):
                    if table[lookup_at(states, table, out[j], frags[j], shift)] == EMPTY:
                        over = True
                        break
                if over:
                    code = 2
                    break
            for j in range(k):
                t = out[j]
                frag = frags[j]
                slot = lookup_at(states, table, t, frag, shift)
                if table[slot] == EMPTY:
                    for w in range(words):
                        states[n, w] = t[w]
                    table[slot] = (frag << 32) | n
                    ends[n] = 1 if terminal(t, ctx) else 0
                    if ends[n] == 1:
                        _seen_outcome(t, seen, meta, ctx)
                    edges[ne] = n
                    n += 1
                else:
                    edges[ne] = table[slot] & LOW
                ne += 1
        starts[i + 1] = ne
        i += 1
        done += 1
        if meta[7] != 0 and n >= meta[6] and (meta[8] != meta[3] or meta[9] != meta[4]):
            code = 3
            break
    if code == 0 and i >= n:
        code = 1
    meta[0] = n
    meta[1] = i
    meta[2] = ne
    return code


@kernel
def out_rows(ctx):
    """At most one successor an instance: the rows a successor list needs."""
    return ctx[8][7]


# -- the impact analysis's state space (checker/engines/statespace.py, explore_space_natively) -----------------------
# meta: 0 states, 1 next state to expand, 2 moves stored, 3 depth, 4 the end of the current layer,
# 5 the state budget. status: 0 chunk done, 1 complete, 2 past the budget, 4 arrays full.


@kernel
def seed_space(meta, states, parent, table, init, term, ctx):
    """The initial states in order (duplicates once), each with its terminal flag."""
    shift = table_shift(table)
    words = states.shape[1]
    n = meta[0]
    for j in range(init.shape[0]):
        t = init[j]
        slot, frag = lookup(states, table, t, shift)
        if table[slot] != EMPTY:
            continue
        for k in range(words):
            states[n, k] = t[k]
        parent[n] = -1
        table[slot] = (frag << 32) | n
        term[n] = 1 if terminal(t, ctx) else 0
        n += 1
    meta[0] = n
    meta[4] = n


@kernel
def expand_space(meta, states, parent, table, starts, targets, instances, movers, weights, term, python_ids, ctx, limit):
    """`statespace.explore_space`'s loop, state for state: every move stored with its target,
    instance, mover and weight; a state whose moves would pass the budget is not expanded."""
    words = states.shape[1]
    entries = ctx[8]
    NI = entries[7]
    out_i = np.empty(NI, np.int64)
    out = np.empty((NI, words), np.int64)
    frags = np.empty(NI, np.int64)
    shift = table_shift(table)
    n = meta[0]
    i = meta[1]
    m = meta[2]
    done = 0
    code = 0
    while i < n:
        if done >= limit:
            break
        if n + NI > states.shape[0] or (n + NI) * 4 > table.shape[0] * 3 or m + NI > targets.shape[0] or i + 2 > starts.shape[0]:
            code = 4
            break
        if i == meta[4]:
            meta[3] += 1
            meta[4] = n
        if term[i] == 0:
            s = states[i]
            k = successors(s, out_i, out, ctx)
            hint_slots(table, out, k, frags, shift)
            if k > 0 and n + k > meta[5]:
                over = False
                for j in range(k):
                    if table[lookup_at(states, table, out[j], frags[j], shift)] == EMPTY:
                        over = True
                        break
                if over:
                    code = 2
                    break
            for j in range(k):
                t = out[j]
                frag = frags[j]
                slot = lookup_at(states, table, t, frag, shift)
                if table[slot] == EMPTY:
                    for w in range(words):
                        states[n, w] = t[w]
                    parent[n] = i
                    table[slot] = (frag << 32) | n
                    term[n] = 1 if terminal(t, ctx) else 0
                    targets[m] = n
                    n += 1
                else:
                    targets[m] = table[slot] & LOW
                inst = out_i[j]
                instances[m] = python_ids[inst]
                mover = entries[entries[8] + inst]
                movers[m] = mover if mover < 0 else _value(ctx, mover, s, s)
                weight = entries[entries[9] + inst]
                weights[m] = 1 if weight < 0 else _value(ctx, weight, s, s)
                m += 1
        starts[i + 1] = m
        i += 1
        done += 1
    if code == 0 and i >= n:
        code = 1
    meta[0] = n
    meta[1] = i
    meta[2] = m
    return code


# -- the divergence search between two readings (checker/analysis/divergence.py, search_in_interpreter) ---------------
# Two contexts of one program: the same instructions and instances, each with its readings.
# meta: 0 states, 1 next state to compare, 2 the deepest compared, 3 the state budget, 4 the
# divergent state, 5 its kind (DIVERGES below). status: 0 chunk done, 1 complete, 2 past the
# budget, 3 a divergence found, 4 arrays full.
TERMINAL_DIFFERS, OUTCOME_DIFFERS, ERROR_DIFFERS, MOVES_DIFFER, RESULT_DIFFERS = 1, 2, 3, 4, 5


@per_state
def _flag(ctx, pc, s):
    """The truth of the expression program at `pc`: 1, 0, or -1 at a modelling error."""
    err = ctx[5]
    value = run(ctx[0], pc, s, s, ctx[6], ctx[7], ctx[2], ctx[1], ctx[3], ctx[4], err, ctx[9], ctx[10], NO_NODE)
    if err[0] != 0:
        err[0] = 0
        return -1
    return 1 if value != 0 else 0


@per_state
def _moves(s, out_i, out, keys, ctx, with_actor):
    """The successors under one context, each instance's key (its mover where a reading can
    change who moves, else 0) in `keys`: their number, or -1 at a modelling error."""
    entries = ctx[8]
    err = ctx[5]
    n = moves(s, out_i, out, ctx)
    if n < 0:
        return -1
    for j in range(n):
        keys[j] = 0
        if with_actor:
            mover = entries[entries[8] + out_i[j]]
            if mover < 0:
                keys[j] = mover
            else:
                keys[j] = run(ctx[0], mover, s, s, ctx[6], ctx[7], ctx[2], ctx[1], ctx[3], ctx[4], err, ctx[9], ctx[10], NO_NODE)
                if err[0] != 0:
                    err[0] = 0
                    return -1
    return n


@per_state
def _compare(s, ctx_a, ctx_b, with_actor, out_ia, out_a, keys_a, out_ib, out_b, keys_b, match):
    """`divergence._compare`: (the kind of divergence at s, 0 for none; the number of common
    successors, in out_a, when there is none: 0 where s ends or fails under both). `match`
    gets each move's place among the other reading's."""
    ta = _flag(ctx_a, ctx_a[8][1], s)
    if ta < 0:
        return 0, 0
    tb = _flag(ctx_b, ctx_b[8][1], s)
    if tb < 0:
        return 0, 0
    if ta != tb:
        return TERMINAL_DIFFERS, 0
    if ta == 1:
        pc = ctx_a[8][6]
        if pc >= 0 and _value(ctx_a, pc, s, s) != _value(ctx_b, pc, s, s):
            return OUTCOME_DIFFERS, 0
        return 0, 0
    na = _moves(s, out_ia, out_a, keys_a, ctx_a, with_actor)
    nb = _moves(s, out_ib, out_b, keys_b, ctx_b, with_actor)
    if (na < 0) != (nb < 0):
        return ERROR_DIFFERS, 0
    if na < 0:
        return 0, 0
    if na != nb:
        return MOVES_DIFFER, 0
    for j in range(na):
        match[j] = -1
        for k in range(nb):
            if out_ib[k] == out_ia[j] and keys_b[k] == keys_a[j]:
                match[j] = k
                break
        if match[j] < 0:
            return MOVES_DIFFER, 0
    for j in range(na):
        if not same(out_a[j], out_b[match[j]]):
            return RESULT_DIFFERS, 0
    return 0, na


@kernel
def seed_divergence(meta, states, parent, depth, table, init):
    """The initial states in order (duplicates once), at depth 0."""
    shift = table_shift(table)
    words = states.shape[1]
    n = meta[0]
    for j in range(init.shape[0]):
        t = init[j]
        slot, frag = lookup(states, table, t, shift)
        if table[slot] != EMPTY:
            continue
        for k in range(words):
            states[n, k] = t[k]
        parent[n] = -1
        depth[n] = 0
        table[slot] = (frag << 32) | n
        n += 1
    meta[0] = n


@kernel
def expand_divergence(meta, states, parent, depth, table, ctx_a, ctx_b, with_actor, limit):
    """`divergence.find_divergence`'s loop, state for state: breadth first along the diagonal of
    the two readings' product, each state compared under both; stops at the first divergence
    or when a new state would pass the budget."""
    words = states.shape[1]
    NI = ctx_a[8][7]
    out_ia = np.empty(NI, np.int64)
    out_a = np.empty((NI, words), np.int64)
    keys_a = np.empty(NI, np.int64)
    out_ib = np.empty(NI, np.int64)
    out_b = np.empty((NI, words), np.int64)
    keys_b = np.empty(NI, np.int64)
    match = np.empty(NI, np.int64)
    frags = np.empty(NI, np.int64)
    shift = table_shift(table)
    n = meta[0]
    i = meta[1]
    done = 0
    while i < n:
        if done >= limit:
            break
        if n + NI > states.shape[0] or (n + NI) * 4 > table.shape[0] * 3:
            meta[0] = n
            meta[1] = i
            return 4
        s = states[i]
        if depth[i] > meta[2]:
            meta[2] = depth[i]
        kind, k = _compare(s, ctx_a, ctx_b, with_actor, out_ia, out_a, keys_a, out_ib, out_b, keys_b, match)
        i += 1
        done += 1
        if kind != 0:
            meta[0] = n
            meta[1] = i
            meta[4] = i - 1
            meta[5] = kind
            return 3
        hint_slots(table, out_a, k, frags, shift)
        for j in range(k):
            t = out_a[j]
            frag = frags[j]
            slot = lookup_at(states, table, t, frag, shift)
            if table[slot] == EMPTY:
                if n >= meta[3]:
                    meta[0] = n
                    meta[1] = i
                    return 2
                for w in range(words):
                    states[n, w] = t[w]
                parent[n] = i - 1
                depth[n] = depth[i - 1] + 1
                table[slot] = (frag << 32) | n
                n += 1
    meta[0] = n
    meta[1] = i
    return 1 if i >= n else 0


# -- seeded random play (checker/engines/simulate.py, simulate_natively) ------------------------------------------
# Python's `random.Random` draws, exactly: its Mersenne Twister (`mt`: the 624 words and, at 624,
# the position `getstate()` gives) and the ways `choice` and `choices` consume it, so a game
# takes the moves `simulate.simulate` takes with the same seed.
# meta: 0 the next game, 1 moves played. status: 0 every game played, 1 a modelling error in the
# successors of the state in `at` (game meta[0]: Python words it, then play goes on with the
# next game), 2 another error (the Python simulation then runs from the start and raises it).
# results per game: 0 finished (outcomes: its code), 1 unfinished, 2 stuck; lengths: the steps.


@per_state
def _mt_word(mt):
    """The next 32-bit output (CPython's genrand_uint32)."""
    if mt[624] >= 624:
        for k in range(624):
            y = (mt[k] & 0x80000000) | (mt[(k + 1) % 624] & 0x7FFFFFFF)
            mt[k] = mt[(k + 397) % 624] ^ (y >> 1) ^ (0x9908B0DF if y & 1 else 0)
        mt[624] = 0
    y = mt[mt[624]]
    mt[624] += 1
    y ^= y >> 11
    y ^= (y << 7) & 0x9D2C5680
    y ^= (y << 15) & 0xEFC60000
    y ^= y >> 18
    return y & 0xFFFFFFFF


@per_state
def _below(mt, n):
    """`_randbelow(n)` for 0 < n < 2**32: bit_length(n) bits a word, until one is below n."""
    k = 0
    while (n >> k) != 0:
        k += 1
    r = _mt_word(mt) >> (32 - k)
    while r >= n:
        r = _mt_word(mt) >> (32 - k)
    return r


@per_state
def _uniform(mt):
    """`random()`: 53 bits from two words."""
    a = _mt_word(mt) >> 5
    b = _mt_word(mt) >> 6
    return (a * 67108864.0 + b) * (1.0 / 9007199254740992.0)


@per_state
def _draw(state, n, out_i, keys, distinct, options, cum, mt, ranks, rules_key, ctx):
    """The move `simulate.choose_move` draws among the n successors of `state` (-1: a mover or
    weight that cannot be evaluated, or weights summing to nothing): the movers sorted (chance,
    the players by name, the rules) and one drawn, then a chance move by weight (`random.choices`)
    or a player's uniformly (`random.choice`)."""
    entries = ctx[8]
    err = ctx[5]
    count = np.int64(0)  # not a literal 0: `_below` compiled for one argument type
    for j in range(n):
        mover = entries[entries[8] + out_i[j]]
        if mover == -1:
            key = 0
        elif mover == -2:
            key = rules_key
        else:
            value = run(ctx[0], mover, state, state, ctx[6], ctx[7], ctx[2], ctx[1], ctx[3], ctx[4], err, ctx[9], ctx[10], NO_NODE)
            if err[0] != 0 or value < 0 or value >= ranks.shape[0]:
                return -1
            key = 1 + ranks[value]
        keys[j] = key
        d = 0
        while d < count and distinct[d] < key:
            d += 1
        if d == count or distinct[d] != key:  # a new mover: kept sorted
            for e in range(count, d, -1):
                distinct[e] = distinct[e - 1]
            distinct[d] = key
            count += 1
    chosen_key = distinct[_below(mt, count)]
    m = np.int64(0)
    for j in range(n):
        if keys[j] == chosen_key:
            options[m] = j
            m += 1
    if chosen_key == 0:
        total = 0
        for k in range(m):
            weight = entries[entries[9] + out_i[options[k]]]
            if weight < 0:
                total += 1
            else:
                total += run(ctx[0], weight, state, state, ctx[6], ctx[7], ctx[2], ctx[1], ctx[3], ctx[4], err, ctx[9], ctx[10], NO_NODE)
                if err[0] != 0:
                    return -1
            cum[k] = total
        if total <= 0:
            return -1
        x = _uniform(mt) * float(total)
        lo = 0
        hi = m - 1
        while lo < hi:
            mid = (lo + hi) // 2
            if x < cum[mid]:
                hi = mid
            else:
                lo = mid + 1
        pick = options[lo]
    else:
        pick = options[_below(mt, m)]
    return pick


@kernel
def play_games(meta, mt, init, games, max_steps, ranks, rules_key, name_of, results, codes, lengths, fired, stamp, at, ctx):
    """`simulate.simulate`'s games from game meta[0] on: a random initial state, then at each
    step the movers sorted (chance, the players by name, the rules) and one drawn, then a chance
    move by weight or a player's uniformly, as `simulate.choose_move` draws them."""
    words = init.shape[1]
    entries = ctx[8]
    NI = entries[7]
    out_i = np.empty(NI, np.int64)
    out = np.empty((NI, words), np.int64)
    keys = np.empty(NI, np.int64)
    distinct = np.empty(NI, np.int64)
    options = np.empty(NI, np.int64)
    cum = np.empty(NI, np.int64)
    err = ctx[5]
    state = np.empty(words, np.int64)
    outcome_pc = entries[6]
    for g in range(meta[0], games):
        meta[0] = g
        start = _below(mt, init.shape[0])
        for w in range(words):
            state[w] = init[start, w]
        stamp_now = g + 1
        for step in range(max_steps + 1):
            ended = run(ctx[0], entries[1], state, state, ctx[6], ctx[7], ctx[2], ctx[1], ctx[3], ctx[4], err, ctx[9], ctx[10], NO_NODE)
            if err[0] != 0:
                return 2
            if ended != 0:
                results[g] = 0
                lengths[g] = step
                if outcome_pc >= 0:
                    codes[g] = run(ctx[0], outcome_pc, state, state, ctx[6], ctx[7], ctx[2], ctx[1], ctx[3], ctx[4], err, ctx[9], ctx[10], NO_NODE)
                    if err[0] != 0:
                        return 2
                break
            if step == max_steps:
                results[g] = 1
                break
            n = moves(state, out_i, out, ctx)
            if n < 0:
                for w in range(words):
                    at[w] = state[w]
                meta[0] = g + 1
                results[g] = 3
                return 1
            if n == 0:
                results[g] = 2
                break
            pick = _draw(state, n, out_i, keys, distinct, options, cum, mt, ranks, rules_key, ctx)
            if pick < 0:
                return 2
            meta[1] += 1
            name = name_of[out_i[pick]]
            if stamp[name] != stamp_now:
                stamp[name] = stamp_now
                fired[name] += 1
            for w in range(words):
                state[w] = out[pick, w]
    meta[0] = games
    return 0


# -- the seeded witness walks (checker/analysis/witness_native.py) ------------------------------------
# `witness.find_verdict`'s walks, draw for draw. kind: 0 a stuck state, 1 a terminal state whose
# outcome code is marked in `matches` (from code `match_lo`; with no outcome, matches[0] says whether
# "finished" is the one sought), 2 a state from which no play ends (meta[3]: a stuck state is an
# end too). meta: 0 states spent, 1 the walks' length, 2 the budget, 3 stuck states end, 4 the
# witness's length (its states: `path`'s first rows). Returns WALK_NONE (the budget spent),
# WALK_FOUND, or WALK_ERROR (an error met: the Python walks run instead, and meet it).
WALK_NONE, WALK_FOUND, WALK_ERROR = 0, 1, 2
GONE = -2  # a walk table's slot whose state a loop dropped from the walk


@per_state
def _on_walk(path, at, t, shift):
    """The slot of state t in a walk's table (state -> its place in `path`): the slot holding
    it, or the empty one where it goes; and its hash fragment. Slots of dropped states are
    passed over (and not reused: a table is emptied for every walk)."""
    mask = at.shape[0] - 1
    frag = (state_hash(t) >> 32) & LOW
    slot = frag >> shift
    while True:
        e = at[slot]
        if e == EMPTY or (e != GONE and ((e >> 32) & LOW) == frag and same(path[e & LOW], t)):
            return slot, frag
        slot = (slot + 1) & mask


@per_state
def _outcome_matches(state, matches, match_lo, ctx):
    """Whether terminal `state`'s outcome is the one sought (-1: it cannot be evaluated)."""
    entries = ctx[8]
    if entries[6] < 0:
        return 1 if matches[0] != 0 else 0
    err = ctx[5]
    code = run(ctx[0], entries[6], state, state, ctx[6], ctx[7], ctx[2], ctx[1], ctx[3], ctx[4], err, ctx[9], ctx[10], NO_NODE)
    if err[0] != 0:
        return -1
    k = code - match_lo
    return 1 if 0 <= k < matches.shape[0] and matches[k] != 0 else 0


@kernel
def walk_witness(meta, mt, init, kind, matches, match_lo, ranks, rules_key, ctx):
    """`witness._Walker.search` for `find_verdict`'s three kinds: walks from initial states
    drawn as `random.choice` draws them, each dropping a loop it closes, until the witness or
    the budget; then the witness's states (as the second value)."""
    words = init.shape[1]
    entries = ctx[8]
    NI = entries[7]
    out_i = np.empty(NI, np.int64)
    out = np.empty((NI, words), np.int64)
    keys = np.empty(NI, np.int64)
    distinct = np.empty(NI, np.int64)
    options = np.empty(NI, np.int64)
    cum = np.empty(NI, np.int64)
    capacity = meta[1] + 2
    path = np.empty((capacity, words), np.int64)
    size = 1
    while size < 4 * capacity:
        size *= 2
    at = np.full(size, EMPTY, np.int64)
    budget = meta[2]
    while meta[0] < budget:
        length = meta[1]
        if length + 2 > capacity:  # a refuted candidate doubled the walks' length
            capacity = length + 2
            path = np.empty((capacity, words), np.int64)
            while size < 4 * capacity:
                size *= 2
            at = np.full(size, EMPTY, np.int64)
        else:
            at[:] = EMPTY
        shift = table_shift(at)
        start = _below(mt, init.shape[0])
        for w in range(words):
            path[0, w] = init[start, w]
        slot, frag = _on_walk(path, at, path[0], shift)
        at[slot] = (frag << 32) | 0
        plen = 1
        meta[0] += 1
        for steps in range(length + 1):
            state = path[plen - 1]
            ended = _flag(ctx, entries[1], state)
            if ended < 0:
                return WALK_ERROR, path
            if kind == 1 and ended == 1:
                hit = _outcome_matches(state, matches, match_lo, ctx)
                if hit < 0:
                    return WALK_ERROR, path
                if hit == 1:
                    meta[4] = plen
                    return WALK_FOUND, path
            if ended == 1:
                break
            n = moves(state, out_i, out, ctx)
            if n < 0:
                return WALK_ERROR, path
            if n == 0:
                if kind == 0 or (kind == 2 and meta[3] == 0):
                    meta[4] = plen
                    return WALK_FOUND, path
                break
            if steps == length or meta[0] >= budget:
                if kind != 2:
                    break
                found = _dead_end(meta, mt, state, init, out_i, out, keys, distinct, options, cum, ranks, rules_key, ctx)
                if found == WALK_ERROR:
                    return WALK_ERROR, path
                if found == WALK_FOUND:
                    meta[4] = plen
                    return WALK_FOUND, path
                meta[1] = length * 2  # plays run longer than the walks: the next ones go twice as far
                break
            pick = _draw(state, n, out_i, keys, distinct, options, cum, mt, ranks, rules_key, ctx)
            if pick < 0:
                return WALK_ERROR, path
            meta[0] += 1
            slot, frag = _on_walk(path, at, out[pick], shift)
            if at[slot] == EMPTY:
                for w in range(words):
                    path[plen, w] = out[pick, w]
                at[slot] = (frag << 32) | plen
                plen += 1
                continue
            back = at[slot] & LOW  # a return to a state of the walk: the loop dropped
            for k in range(back + 1, plen):
                dropped, _ = _on_walk(path, at, path[k], shift)
                at[dropped] = GONE
            plen = back + 1
    return WALK_NONE, path


@kernel_part
def _dead_end(meta, mt, candidate, init, out_i, out, keys, distinct, options, cum, ranks, rules_key, ctx):
    """`_Walker._dead_end` (kind 2): a few walks from the candidate that must all fail to end,
    then every state reachable from it explored (within half of what is left of the budget):
    WALK_FOUND when none is an end."""
    words = init.shape[1]
    entries = ctx[8]
    budget = meta[2]
    stuck_ends = meta[3] != 0
    steps = min(meta[1], (budget - meta[0]) // (4 * 8))  # witness.CANDIDATE_WALKS walks: at most a quarter of what is left
    state = np.empty(words, np.int64)
    for _ in range(8):
        for w in range(words):
            state[w] = candidate[w]
        ends = -1
        for _ in range(steps):
            ended = _flag(ctx, entries[1], state)
            if ended < 0:
                return WALK_ERROR
            if ended == 1 or meta[0] >= budget:
                ends = ended
                break
            n = moves(state, out_i, out, ctx)
            if n < 0:
                return WALK_ERROR
            if n == 0:
                ends = 1 if stuck_ends else 0
                break
            pick = _draw(state, n, out_i, keys, distinct, options, cum, mt, ranks, rules_key, ctx)
            if pick < 0:
                return WALK_ERROR
            for w in range(words):
                state[w] = out[pick, w]
            meta[0] += 1
        if ends < 0:
            ends = _flag(ctx, entries[1], state)
            if ends < 0:
                return WALK_ERROR
        if ends == 1:
            return WALK_NONE
    return _closure_has_no_end(meta, candidate, out_i, out, ctx)


@kernel_part
def _closure_has_no_end(meta, start, out_i, out, ctx):
    """`_Walker._closure_has_no_end`: breadth first from `start`, stopping at the first end or
    once past half of what is left of the budget; WALK_FOUND when complete with no end."""
    words = start.shape[0]
    entries = ctx[8]
    stuck_ends = meta[3] != 0
    allowed = (meta[2] - meta[0]) // 2
    capacity = max(allowed, 0) + 1
    seen = np.empty((capacity, words), np.int64)
    size = 1
    while size * 3 < capacity * 4:
        size *= 2
    table = np.full(max(size, 2), EMPTY, np.int64)
    shift = table_shift(table)
    for w in range(words):
        seen[0, w] = start[w]
    slot, frag = lookup(seen, table, start, shift)
    table[slot] = (frag << 32) | 0
    count = 1
    head = 0
    while head < count:
        state = seen[head]
        head += 1
        ended = _flag(ctx, entries[1], state)
        if ended < 0:
            return WALK_ERROR
        n = 0
        if ended == 0:
            n = moves(state, out_i, out, ctx)
            if n < 0:
                return WALK_ERROR
        if n == 0 and (stuck_ends or ended == 1):
            meta[0] += count
            return WALK_NONE
        for j in range(n):
            slot, frag = lookup(seen, table, out[j], shift)
            if table[slot] == EMPTY:
                if count >= allowed:
                    meta[0] += count
                    return WALK_NONE
                for w in range(words):
                    seen[count, w] = out[j, w]
                table[slot] = (frag << 32) | count
                count += 1
    meta[0] += 2 * count
    return WALK_FOUND


# -- the exploration loop -------------------------------------------------------------------------
# meta: 0 states, 1 next state to expand, 2 edges, 3 layers, 4 transitions, 5 status,
# 6 error state, 7 deadlock state, 8 branching state, 9 and 10 its two instances,
# 11 determinism still checked, 12 deadlock still checked, 13 store the graph, 14 state budget,
# 15 stop once every property asked is decided (only properties decided during the loop left),
# 16 return at each layer's end (a stopping run's coverage or cycle still open: `layer_checks.py`).
# status: 0 chunk done, 1 complete, 2 budget spent, 4 arrays full, 5 every property decided, 6 a
# layer's end (with meta[16]). A modelling error (or a
# property expression that cannot be evaluated) raises out of the loop.


@per_state
def same(a, b):
    for k in range(a.shape[0]):
        if a[k] != b[k]:
            return False
    return True


@per_state
def all_decided(status):
    """Whether no state or `after` property asked is still open (0: open, 1: decided, 2: not asked)."""
    for k in range(status.shape[0]):
        if status[k] == 0:
            return False
    return True


@per_state
def lookup(states, table, t, shift):
    """The slot of state t in the visited table (runtime.py): the slot that holds it, or the
    empty one where it belongs; and its hash fragment, to store with it."""
    frag = (state_hash(t) >> 32) & LOW
    return lookup_at(states, table, t, frag, shift), frag


@per_state
def lookup_at(states, table, t, frag, shift):
    """`lookup`'s slot, the fragment known (`hint_slots`)."""
    mask = table.shape[0] - 1
    slot = frag >> shift
    while True:
        e = table[slot]
        if e == EMPTY or (((e >> 32) & LOW) == frag and same(states[e & LOW], t)):
            return slot
        slot = (slot + 1) & mask


@per_state
def hint_slots(table, out, k, frags, shift):
    """The hash fragments of a state's k successors, each home slot asked into the cache
    (`runtime.prefetch`) before the first is probed: the loops then probe them in order, as
    before, and their cache misses overlap."""
    for j in range(k):
        frag = (state_hash(out[j]) >> 32) & LOW
        frags[j] = frag
        prefetch(table, frag >> shift)


@kernel
def seed(meta, states, parent, table, init, status, where, rd):
    """Discover the initial states in order (duplicates once), checking state properties."""
    shift = table_shift(table)
    words = states.shape[1]
    n = meta[0]
    for j in range(init.shape[0]):
        t = init[j]
        slot, frag = lookup(states, table, t, shift)
        if table[slot] != EMPTY:
            continue
        for k in range(words):
            states[n, k] = t[k]
        parent[n] = -1
        table[slot] = (frag << 32) | n
        check_state(t, n, status, where, rd)
        n += 1
    meta[0] = n


@kernel
def expand(meta, states, parent, table, layer_ends, starts, edges, term, fired, forced, status, where, where2, inst_at, rd, limit):
    """Expand up to `limit` states breadth first; stops early when an array is nearly full."""
    words = states.shape[1]
    NI = fired.shape[0]  # the instances: at most one successor each
    out_i = np.empty(NI, np.int64)
    out = np.empty((NI, words), np.int64)
    frags = np.empty(NI, np.int64)
    shift = table_shift(table)
    mask = table.shape[0] - 1
    n = meta[0]
    i = meta[1]
    ne = meta[2]
    nl = meta[3]
    transitions = meta[4]
    want_graph = meta[13] != 0
    max_states = meta[14]
    code = 0
    done = 0
    stop_decided = meta[15] != 0
    while i < n:
        if done >= limit:
            break
        if stop_decided and meta[11] == 0 and meta[12] == 0 and all_decided(status):
            code = 5  # as the Python engine: before the next state, once every property is decided
            break
        if n + NI > states.shape[0] or (n + NI) * 4 > table.shape[0] * 3 or nl + 2 > layer_ends.shape[0] or (want_graph and (ne + NI > edges.shape[0] or i + 2 > starts.shape[0])):
            code = 4
            break
        if i == layer_ends[nl - 1]:
            layer_ends[nl] = n
            nl += 1
            if meta[16] != 0:
                code = 6  # a layer's end: the caller decides coverage and looks for a cycle (`layer_checks`), then calls again
                break
        s = states[i]
        ended = terminal(s, rd)
        if want_graph:
            term[i] = 1 if ended else 0
        if ended:
            if want_graph:
                starts[i + 1] = ne
            i += 1
            done += 1
            continue
        k = successors(s, out_i, out, rd)
        if k == 0:
            if meta[12] != 0:
                meta[7] = i
                meta[12] = 0
            if want_graph:
                starts[i + 1] = ne
            i += 1
            done += 1
            continue
        transitions += k
        if meta[11] != 0 and k > 1 and forced[out_i[0]] != 0:
            for j in range(1, k):
                if not same(out[j], out[0]):
                    meta[8] = i
                    meta[9] = out_i[0]
                    meta[10] = out_i[j]
                    meta[11] = 0
                    break
        hint_slots(table, out, k, frags, shift)
        for j in range(k):
            inst = out_i[j]
            fired[inst] = 1
            t = out[j]
            # `lookup`, written out: inserting War 10's 16.9 M states through the call took
            # about 2.5 times as long as written out (3.2-3.9 against 1.2-2.1 CPU s).
            frag = frags[j]
            slot = frag >> shift
            while True:
                e = table[slot]
                if e == EMPTY:
                    break
                if ((e >> 32) & LOW) == frag:
                    hit = True
                    stored = e & LOW
                    for w in range(words):
                        if states[stored, w] != out[j, w]:
                            hit = False
                            break
                    if hit:
                        break
                slot = (slot + 1) & mask
            node = table[slot] & LOW
            if table[slot] == EMPTY:
                if n >= max_states:
                    code = 2
                    break
                node = n
                for w in range(words):
                    states[n, w] = out[j, w]
                parent[n] = i
                table[slot] = (frag << 32) | n
                n += 1
                check_state(t, node, status, where, rd)
            if want_graph:
                edges[ne] = node
                ne += 1
            check_after(inst, t, s, i, node, status, where, where2, inst_at, rd)
        if code == 2:
            break
        if want_graph:
            starts[i + 1] = ne
        i += 1
        done += 1
    if code == 0 and i >= n:
        code = 1
        if layer_ends[nl - 1] != n:
            layer_ends[nl] = n
            nl += 1
    meta[0] = n
    meta[1] = i
    meta[2] = ne
    meta[3] = nl
    meta[4] = transitions
    meta[5] = code
    return code
