"""`sure_end.ends_surely` over a whole explored graph, compiled.

`ends_surely` asks whether a game ends with probability 1 whatever anyone chooses: no reachable
non-terminal state is stuck and no end component exists among the non-terminal states. Over
the graph the interpreter explores (compressed sparse rows: node i's moves are positions
starts[i]..starts[i+1] of `targets`), the walk and the end-component search were Python loops
over sets and lists, about 30 CPU s of a whole cold check; here they are the same two steps
over arrays:

- `walk` visits the states in exactly the order `sure_end._walk` does (a depth-first stack,
  each state pushed once when first seen), so it stops at the same stuck state, or at the same
  point of the state bound, and gives the same answer when the graph is larger than the bound;
- `has_end_component` runs the fixed point of `sure_end._has_end_component`: drop options that
  leave the candidate states, and states left without an option (a worklist over reversed
  moves instead of repeated sweeps). The fixed point does not depend on the order of the
  drops, so the answer is the Python search's.

An option of a state is one of its non-chance moves (a single target), or chance's whole set of
outcomes (every chance move's target at once).
"""

from __future__ import annotations

import numpy as np

from checker.engines.native.runtime import kernel, per_state

STUCK, WALKED, PAST_BOUND = 0, 1, 2  # `walk`'s outcome: a stuck state, every state visited, the bound reached


@kernel
def walk(starts, targets, terminal, initial, max_states, expanded):
    """`sure_end._walk`'s visit from the initial nodes (distinct, in order): STUCK at the first
    non-terminal state without a move, PAST_BOUND when a new state would make more than
    `max_states`, else WALKED with expanded[node] = 1 for every non-terminal state visited."""
    n = terminal.shape[0]
    seen = np.zeros(n, np.uint8)
    stack = np.empty(max(n, initial.shape[0]), np.int32)
    sp = 0
    for node in initial:
        seen[node] = 1
        stack[sp] = node
        sp += 1
    count = sp
    while sp > 0:
        sp -= 1
        state = stack[sp]
        if terminal[state]:
            continue
        if starts[state] == starts[state + 1]:
            return STUCK
        expanded[state] = 1
        for position in range(starts[state], starts[state + 1]):
            post = targets[position]
            if seen[post] == 0:
                if count >= max_states:
                    return PAST_BOUND
                seen[post] = 1
                count += 1
                stack[sp] = post
                sp += 1
    return WALKED


@kernel
def has_end_component(starts, targets, chance, alive):
    """Whether some set of the states with alive[node] = 1 is an end component (`alive` is
    consumed): the options that leave the candidates are dropped, and with a state's last
    option the state, until none leaves (`sure_end._has_end_component`). chance[position] = 1
    marks a chance move."""
    n = alive.shape[0]
    m = targets.shape[0]
    option = np.zeros(m, np.uint8)  # a non-chance move's option, still kept
    drawn = np.zeros(n, np.uint8)  # the state's chance option, still kept
    options = np.zeros(n, np.int64)  # options kept per state
    owner = np.empty(m, np.int32)
    into = np.zeros(n + 1, np.int64)  # reversed moves of the candidates: into[t]..into[t + 1] of `source_of`
    for state in range(n):
        for position in range(starts[state], starts[state + 1]):
            owner[position] = state
            if alive[state]:
                into[targets[position] + 1] += 1
                if chance[position]:
                    drawn[state] = 1
                else:
                    option[position] = 1
                    options[state] += 1
        options[state] += drawn[state]
    for node in range(n):
        into[node + 1] += into[node]
    source_of = np.empty(into[n], np.int64)
    filled = into[:n].copy()
    for state in range(n):
        if alive[state]:
            for position in range(starts[state], starts[state + 1]):
                source_of[filled[targets[position]]] = position
                filled[targets[position]] += 1
    dead = np.empty(n, np.int32)  # states that lost their last option, not yet propagated
    top = np.int64(0)  # int64 from the start, as `_drop` returns it: one compilation of `_drop`
    for state in range(n):  # moves into the other states (terminal or unvisited) leave the candidates
        if alive[state]:
            for position in range(starts[state], starts[state + 1]):
                if alive[targets[position]] == 0:
                    top = _drop(np.int64(position), chance, option, drawn, options, owner, alive, dead, top)
    while top > 0:  # a state that leaves takes with it every option that can move into it
        top -= 1
        gone = dead[top]
        for k in range(into[gone], into[gone + 1]):
            position = source_of[k]
            if alive[owner[position]]:
                top = _drop(position, chance, option, drawn, options, owner, alive, dead, top)
    for state in range(n):
        if alive[state]:
            return True
    return False


@per_state
def _drop(position, chance, option, drawn, options, owner, alive, dead, top):
    """Drop the option a move belongs to (its own, or its state's chance option); a state left
    without options leaves the candidates and goes on the `dead` worklist."""
    state = owner[position]
    if chance[position]:
        if drawn[state] == 0:
            return top
        drawn[state] = 0
    else:
        if option[position] == 0:
            return top
        option[position] = 0
    options[state] -= 1
    if options[state] == 0 and alive[state]:
        alive[state] = 0
        dead[top] = state
        top += 1
    return top
