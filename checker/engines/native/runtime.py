"""Compiled helpers of the bytecode interpreter and its loops, and the graph passes.

Nothing here depends on a model: the interpreter and its loops call the small helpers (field
access across 64-bit words, an `after` property's decision, the visited table's hash), and the
engine calls the graph passes (Tarjan's SCCs, the termination and leads-to sweeps, shortest
paths inside a subgraph) on the stored edge arrays. Each pass mirrors, step for step, its
pure-Python counterpart in `checker.engines.explicit` and `checker.engines.graph`, so the two
back-ends pick the same components, the same entries and the same paths: the differential tests
compare traces, not only verdicts.

Every function a loop calls per state or per move (here, in `vm.py`, and in the interpreter's
and the driver's templates) is compiled without numba's reference counting
(`_nrt=False`). With it, a call increments and decrements the count of every array it is
passed, one atomic operation each way: the interpreter's `run` takes twelve arrays, and the
helpers around it the tuple of run-time inputs, so counting cost about 60 ns a call, two
thirds of evaluating a one-field predicate and half of an exploration's time (measured on the
Saturday Morning Showdown). These functions allocate nothing (numba refuses to compile one that
does without the runtime), and their callers, compiled with it, hold the arrays for the call.
"""

from __future__ import annotations

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic

# The decorator of every function a loop calls per state or per move: compiled without numba's
# reference counting (the module's docstring says why). `_nrt` is numba's own option, which its
# type stubs leave out.
per_state = njit(cache=True, _nrt=False)  # type: ignore[call-overload]
# The decorator of every loop over a space's states or moves that Python calls: it lets go of
# the GIL while it runs, so the check's Readings re-check (a thread of the main process, whose
# explorations run such loops for seconds) and the main thread's Python work (collecting the
# matrix, submitting the findings' growth re-checks) go on together.
kernel = njit(cache=True, nogil=True)
# A loop's part kept apart for reading, compiled into the loop that calls it (numba's own inlining)
# rather than as a function of its own: every compiled function links its own copy of the
# interpreter's `run`, and compiling that copy is most of a small function's cost (a second or
# so each, cold).
kernel_part = njit(cache=True, nogil=True, inline="always")
WORD = 64


# -- helpers the loops call ----------------------------------------------------------------------
@per_state
def _after(k, status, where, where2, inst_at, pre, node, inst):
    """`after` property k fails on the transition pre -> node by instance inst."""
    status[k] = 1
    where[k] = pre
    where2[k] = node
    inst_at[k] = inst


@per_state
def _rd(s, offset, mask):
    """The field at a bit offset computed at run time (it may straddle two words)."""
    w = offset // WORD
    o = offset % WORD
    if o != 0 and (mask >> (WORD - o)) != 0:
        return ((s[w] >> o) & ((np.int64(1) << (WORD - o)) - 1)) | ((s[w + 1] << (WORD - o)) & mask)
    value = (s[w] >> o) & mask
    return value


@per_state
def _wr(t, offset, mask, value):
    """Write a field at a bit offset computed at run time."""
    w = offset // WORD
    o = offset % WORD
    t[w] = (t[w] & ~(mask << o)) | (value << o)
    if o != 0 and (mask >> (WORD - o)) != 0:
        rest = mask >> (WORD - o)
        t[w + 1] = (t[w + 1] & ~rest) | ((value >> (WORD - o)) & rest)


@intrinsic
def prefetch(typingctx, array, index):
    """Ask the processor to bring element `index` (of a 1-D array, or the row of a 2-D one)
    into its cache: a hint (`llvm.prefetch`), no effect on any result. A loop that found a
    state's successors asks for their table slots first, then probes them one after another:
    the misses overlap instead of each waiting for the last, which the property and end
    programs run between two probes kept the processor from doing on its own."""
    if not isinstance(array, types.Array) or array.ndim > 2 or not isinstance(index, types.Integer):
        return None

    def codegen(context, builder, signature, args):
        array_type = signature.args[0]
        data = context.make_array(array_type)(context, builder, args[0])
        place = [args[1]] + [ir.Constant(args[1].type, 0)] * (array_type.ndim - 1)
        pointer = cgutils.get_item_pointer(context, builder, array_type, data, place)
        i32 = ir.IntType(32)
        hint = cgutils.get_or_insert_function(builder.module, ir.FunctionType(ir.VoidType(), [pointer.type, i32, i32, i32]), "llvm.prefetch.p0")
        builder.call(hint, [pointer, ir.Constant(i32, 0), ir.Constant(i32, 3), ir.Constant(i32, 1)])  # a read, kept close, data
        return context.get_dummy_value()

    return types.void(array, index), codegen


# -- the visited table ---------------------------------------------------------------------------
# A slot holds a state's number in its low 32 bits and the top 32 bits of the state's hash above
# them (-1 is empty); a state's home slot is its hash's top bits. A probe compares these
# fragments before it reads a stored state (a random memory access), and the table doubles by
# walking the old one in order, without reading any state.
EMPTY = -1
LOW = 0xFFFFFFFF


@per_state
def state_hash(s):
    h = np.int64(-3750763034362895579)
    for k in range(s.shape[0]):
        h = (h ^ s[k]) * np.int64(1099511628211)
        h = h ^ (h >> 29)
    h = h * np.int64(-7046029254386353131)
    return h ^ ((h >> 32) & LOW)  # the top 32 bits, the table's fragment, stay the product's best


@per_state
def table_shift(table):
    """How far a 32-bit hash fragment is shifted to give a home slot (tables of 2**k slots)."""
    bits = 0
    while (1 << bits) < table.shape[0]:
        bits += 1
    return 32 - bits


@per_state
def grow_table(old, new):
    """Move every entry of `old` into the empty (all -1) `new`, a larger power of two."""
    mask = new.shape[0] - 1
    shift = table_shift(new)
    for k in range(old.shape[0]):
        e = old[k]
        if e == EMPTY:
            continue
        slot = ((e >> 32) & LOW) >> shift
        while new[slot] != EMPTY:
            slot = (slot + 1) & mask
        new[slot] = e


# -- graph passes ------------------------------------------------------------------------------
@kernel
def tarjan(starts, edges, keep):
    """Tarjan's SCCs of the subgraph of nodes with keep[node] != 0, sinks first, exactly as
    `graph.strongly_connected` emits them: `members` lists the components' nodes one after the
    other (each in pop order) and component c is members[bounds[c]:bounds[c + 1]]."""
    n = starts.shape[0] - 1
    index = np.full(n, -1, np.int32)
    low = np.zeros(n, np.int32)
    on_stack = np.zeros(n, np.uint8)
    stack = np.empty(n, np.int32)
    work_node = np.empty(n, np.int32)
    work_pos = np.empty(n, np.int64)
    members = np.empty(n, np.int32)
    bounds = np.empty(n + 1, np.int64)
    bounds[0] = 0
    ncomp = 0
    nmembers = 0
    sp = 0
    counter = 0
    for root in range(n):
        if index[root] != -1 or keep[root] == 0:
            continue
        wp = 0
        work_node[0] = root
        work_pos[0] = starts[root]
        wp = 1
        index[root] = counter
        low[root] = counter
        counter += 1
        stack[sp] = root
        sp += 1
        on_stack[root] = 1
        while wp > 0:
            node = work_node[wp - 1]
            pos = work_pos[wp - 1]
            end = starts[node + 1]
            advanced = False
            while pos < end:
                succ = edges[pos]
                pos += 1
                if keep[succ] == 0:
                    continue
                if index[succ] == -1:
                    work_pos[wp - 1] = pos
                    index[succ] = counter
                    low[succ] = counter
                    counter += 1
                    stack[sp] = succ
                    sp += 1
                    on_stack[succ] = 1
                    work_node[wp] = succ
                    work_pos[wp] = starts[succ]
                    wp += 1
                    advanced = True
                    break
                if on_stack[succ] == 1 and index[succ] < low[node]:
                    low[node] = index[succ]
            if advanced:
                continue
            wp -= 1
            if wp > 0:
                parent = work_node[wp - 1]
                if low[node] < low[parent]:
                    low[parent] = low[node]
            if low[node] == index[node]:
                while True:
                    sp -= 1
                    member = stack[sp]
                    on_stack[member] = 0
                    members[nmembers] = member
                    nmembers += 1
                    if member == node:
                        break
                ncomp += 1
                bounds[ncomp] = nmembers
    return members[:nmembers], bounds[: ncomp + 1]


@per_state
def _is_cyclic(starts, edges, members, lo, hi):
    if hi - lo > 1:
        return True
    node = members[lo]
    for pos in range(starts[node], starts[node + 1]):
        if edges[pos] == node:
            return True
    return False


@kernel
def termination_pass(starts, edges, members, bounds, layer_ends):
    """`explicit.terminates` up to the lasso: the component whose smallest node is shallowest
    (first such in emission order) among the cyclic ones, and the longest play from each node of
    the acyclic part. Returns (best component or -1, its entry node, longest)."""
    n = starts.shape[0] - 1
    longest = np.zeros(n, np.int32)
    best = -1
    best_entry = -1
    best_depth = 0
    for c in range(bounds.shape[0] - 1):
        lo = bounds[c]
        hi = bounds[c + 1]
        if _is_cyclic(starts, edges, members, lo, hi):
            entry = members[lo]
            for k in range(lo, hi):
                if members[k] < entry:
                    entry = members[k]
            depth = np.searchsorted(layer_ends, entry, side="right")
            if best < 0 or depth < best_depth:
                best = c
                best_entry = entry
                best_depth = depth
            continue
        node = members[lo]
        value = 0
        for pos in range(starts[node], starts[node + 1]):
            candidate = longest[edges[pos]] + 1
            if candidate > value:
                value = candidate
        longest[node] = value
    return best, best_entry, longest


@kernel
def leads_to_pass(starts, edges, members, bounds, avoid):
    """`explicit.leads_to`'s sweep: `bad` marks nodes that can reach an end (a dead end, a
    terminal state or a cycle) while avoiding the target; `ends` marks the ends themselves."""
    n = starts.shape[0] - 1
    bad = np.zeros(n, np.uint8)
    ends = np.zeros(n, np.uint8)
    for c in range(bounds.shape[0] - 1):
        lo = bounds[c]
        hi = bounds[c + 1]
        cyclic = _is_cyclic(starts, edges, members, lo, hi)
        any_end = False
        for k in range(lo, hi):
            node = members[k]
            if cyclic or starts[node + 1] == starts[node]:
                ends[node] = 1
                any_end = True
        mark = cyclic or any_end
        if not mark:
            for k in range(lo, hi):
                node = members[k]
                for pos in range(starts[node], starts[node + 1]):
                    succ = edges[pos]
                    if avoid[succ] == 1 and bad[succ] == 1:
                        mark = True
                        break
                if mark:
                    break
        if mark:
            for k in range(lo, hi):
                bad[members[k]] = 1
    return bad, ends


@kernel
def shortest_path_within(starts, edges, source, goal, allowed, include_source):
    """`graph.shortest_path_within` with goal and allowed given as byte masks; an empty array
    when no path exists."""
    if include_source and goal[source] == 1:
        out = np.empty(1, np.int64)
        out[0] = source
        return out
    n = starts.shape[0] - 1
    parents = np.full(n, -1, np.int64)
    seen = np.zeros(n, np.uint8)
    queue = np.empty(n, np.int64)
    head = 0
    tail = 1
    queue[0] = source
    seen[source] = 1
    while head < tail:
        node = queue[head]
        head += 1
        for pos in range(starts[node], starts[node + 1]):
            succ = edges[pos]
            if allowed[succ] == 0:
                continue
            if goal[succ] == 1:
                length = 2
                walk = node
                while walk != source:
                    walk = parents[walk]
                    length += 1
                out = np.empty(length, np.int64)
                out[length - 1] = succ
                walk = node
                k = length - 2
                out[k] = walk
                while walk != source:
                    walk = parents[walk]
                    k -= 1
                    out[k] = walk
                return out
            if seen[succ] == 0:
                seen[succ] = 1
                parents[succ] = node
                queue[tail] = succ
                tail += 1
    return np.empty(0, np.int64)


@per_state
def has_exit(starts, edges, members, lo, hi, inside):
    """Whether some node of members[lo:hi] has an edge leaving the set marked by `inside`."""
    for k in range(lo, hi):
        node = members[k]
        for pos in range(starts[node], starts[node + 1]):
            if inside[edges[pos]] == 0:
                return True
    return False


@kernel
def can_reach(starts, edges, goal):
    """1 for every node from which some path reaches a node marked in `goal` (the goal nodes
    included): a backward search over the reversed edges, as `checker.engines.graph.reaches`."""
    n = starts.shape[0] - 1
    rstarts = np.zeros(n + 1, np.int64)
    for pos in range(edges.shape[0]):
        rstarts[edges[pos] + 1] += 1
    for node in range(n):
        rstarts[node + 1] += rstarts[node]
    fill = rstarts[:n].copy()
    preds = np.empty(edges.shape[0], np.int64)
    for node in range(n):
        for pos in range(starts[node], starts[node + 1]):
            succ = edges[pos]
            preds[fill[succ]] = node
            fill[succ] += 1
    reach = (goal != 0).astype(np.uint8)
    stack, top = _worklist_of(reach)
    while top > 0:
        top -= 1
        node = stack[top]
        for pos in range(rstarts[node], rstarts[node + 1]):
            pred = preds[pos]
            if reach[pred] == 0:
                reach[pred] = 1
                stack[top] = pred
                top += 1
    return reach


@kernel
def _worklist_of(marked):
    """A stack of every node marked in `marked`, with room for every node, and its height: where
    a backward search over the graph starts."""
    stack = np.empty(marked.shape[0], np.int64)
    top = 0
    for node in range(marked.shape[0]):
        if marked[node]:
            stack[top] = node
            top += 1
    return stack, top


@kernel
def reachable_count(starts, edges, source):
    """How many nodes are reachable from `source` (itself included)."""
    n = starts.shape[0] - 1
    seen = np.zeros(n, np.uint8)
    stack = np.empty(n, np.int64)
    seen[source] = 1
    stack[0] = source
    top = 1
    count = 1
    while top > 0:
        top -= 1
        node = stack[top]
        for pos in range(starts[node], starts[node + 1]):
            succ = edges[pos]
            if seen[succ] == 0:
                seen[succ] = 1
                stack[top] = succ
                top += 1
                count += 1
    return count


# -- the outcome odds' layered solve (checker/analysis/outcomes.py, `absorbed`) -----------------
@kernel
def acyclic_layers(indptr, indices, data, absorb, x, self_loops, order, bounds, first, last):
    """Layers `first` to `last` - 1 of `absorbed`, none holding a cycle, in order: each state's
    values the absorbing moves plus its moves to solved states, over one minus its self-loop.
    The moves are summed as SciPy's sparse product sums them (a row's entries in their order,
    from zero, the absorbing term added after), so the values are numpy's to the last bit: a
    state's moves lead only to lower layers and to itself (not solved yet: zero there too)."""
    k = x.shape[1]
    acc = np.empty(k, np.float64)
    for d in range(first, last):
        for p in range(bounds[d], bounds[d + 1]):
            node = order[p]
            for c in range(k):
                acc[c] = 0.0
            for jj in range(indptr[node], indptr[node + 1]):
                j = indices[jj]
                a = data[jj]
                for c in range(k):
                    acc[c] += a * x[j, c]
            keep = 1.0 - self_loops[node]
            for c in range(k):
                x[node, c] = (absorb[node, c] + acc[c]) / keep
    return 0


# -- forced wins (checker/analysis/outcomes.py, `won_nodes`) ---------------------------------------
@kernel
def won_nodes(source, into, into_starts, friendly, has_moves, won):
    """The least set `outcomes.won_nodes` finds, grown from `won` (the goal, 1 per node) in
    place: a node with moves is won once every move the side does not make leads to a won node
    and, if the side can move there, one of its moves does. A worklist over the moves into each
    newly won node instead of numpy's frontier at a time (which sorted each frontier's
    predecessors); the least fixed point is the same set whatever the order."""
    n = won.shape[0]
    unfriendly_left = np.zeros(n, np.int64)
    has_friendly = np.zeros(n, np.uint8)
    for e in range(source.shape[0]):
        if friendly[e]:
            has_friendly[source[e]] = 1
        else:
            unfriendly_left[source[e]] += 1
    friendly_hit = np.zeros(n, np.uint8)
    stack, top = _worklist_of(won)
    while top > 0:
        top -= 1
        target = stack[top]
        for k in range(into_starts[target], into_starts[target + 1]):
            e = into[k]
            node = source[e]
            if won[node]:
                continue
            if friendly[e]:
                friendly_hit[node] = 1
            else:
                unfriendly_left[node] -= 1
            if unfriendly_left[node] == 0 and (friendly_hit[node] or not has_friendly[node]) and has_moves[node]:
                won[node] = 1
                stack[top] = node
                top += 1
    return 0


@kernel
def component_layers(indptr, indices, left, layer):
    """`absorbed`'s layers of the components' graph (predecessor lists `indptr`/`indices`;
    `left`, each component's successors not yet placed, consumed): a component's layer is the
    round in which its last successor was placed, sinks first. Returns (the number of layers,
    the components placed)."""
    count = left.shape[0]
    ready = np.empty(count, np.int64)
    upcoming = np.empty(count, np.int64)
    size = 0
    for c in range(count):
        if left[c] == 0:
            ready[size] = c
            size += 1
    depth = 0
    placed = 0
    while size > 0:
        placed += size
        found = 0
        for i in range(size):
            c = ready[i]
            layer[c] = depth
            for k in range(indptr[c], indptr[c + 1]):
                before = indices[k]
                left[before] -= 1
                if left[before] == 0:
                    upcoming[found] = before
                    found += 1
        ready, upcoming = upcoming, ready
        size = found
        depth += 1
    return depth, placed
