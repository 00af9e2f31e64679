"""How the generated successor code lays out its blocks: instances whose guards start alike
share their leading tests, and a field is read in the innermost block that uses it. The
grouped code must give the moves, in the order, of one block per instance (and the
interpreter's: `tests.conformance.backends.successor_differences`)."""

from __future__ import annotations

from checker.lang.build import load_model
from checker.lang.compile import CompiledModel
from tests.conformance.backends import successor_differences
from tests.conftest import write


def _shared_prefix_model(shared_tests: int) -> str:
    """A model whose parameterised action's guard starts with `shared_tests` tests that do not
    read its parameter, then one that does: the instances share that prefix."""
    prefix = " and ".join(f"step != {9 + k}" for k in range(shared_tests))
    return f"""\
game: Shared prefix
id: shared
players: [ann, bob]
domains:
  pos: {{range: [0, 3]}}
state:
  mark: {{type: "int[0..2]", of: pos}}
  step: "int[0..200]"
  turn: player
init: {{mark: 0, step: 0, turn: ann}}
terminal: step >= 6
actions:
  place:
    by: turn
    for: {{p: pos}}
    when: {prefix} and mark[p] < 2
    do:
      mark[p]: mark[p] + 1
      step: step + 1
      turn: succ(turn)
    rule: s-1
  roll:
    by: chance
    for: {{p: pos}}
    when: {prefix} and mark[p] == 2 and step < 3
    weight: p + 1
    do: {{step: step + 2}}
    rule: s-1
clauses:
  s-1: {{at: "1", says: "Place a marker, or roll."}}
"""


def test_instances_sharing_leading_tests_test_them_once_with_the_same_moves_in_the_same_order(tmp_path):
    """Consecutive guarded blocks whose guards start alike are nested under one `if` of the shared
    test (`CompiledModel._plain_run`): the moves, their order and the interpreter's agreement must
    be what one block per instance gives, and a prefix deeper than Python's block limit must
    still compile (the nesting stops at `MAX_BLOCK_DEPTH`)."""
    from checker.lang import compile as compile_module

    for shared in (3, compile_module.MAX_BLOCK_DEPTH + 40):
        model = load_model(write(tmp_path, _shared_prefix_model(shared), f"shared{shared}.yaml", f"shared{shared}"))
        config = model.default_config()
        grouped = CompiledModel(model, config)
        source = grouped._successor_source().text
        if shared == 3:  # once for the eight instances of `place` and `roll`, not once each
            assert source.count(" != 9)") == 1, source
        states, problems = successor_differences(model, config)
        assert not problems and states > 100, problems
        ungrouped_run = compile_module.CompiledModel._plain_run
        compile_module.CompiledModel._plain_run = lambda self, emitter, pending, pad: [
            line for item in pending for line in self._plain_block(emitter, item, pad)]
        try:
            namespace = dict(compile_module.HELPERS)
            exec(compile(grouped._successor_source().text, "<ungrouped>", "exec"), namespace)  # noqa: S102
        finally:
            compile_module.CompiledModel._plain_run = ungrouped_run
        ungrouped = namespace["successors"]
        seen, frontier = set(grouped.initial), list(grouped.initial)
        while frontier:
            s = frontier.pop()
            if grouped.terminal(s):
                continue
            moves = grouped.successors(s)
            assert moves == ungrouped(s)
            for _, t in moves:
                if t not in seen:
                    seen.add(t)
                    frontier.append(t)
        assert len(seen) == states


def test_a_field_is_read_in_the_innermost_block_that_holds_its_uses():
    """`place_reads`: a field read by one dispatch branch only is read in that branch, one read
    by two sibling branches (or an `elif` and its `if`) in their parent, one read in a test of
    the top level at the top; an unused one not at all."""
    from checker.lang.compile import place_reads

    body = [
        "    d1 = s_4",
        "    if d1 == 0:",
        "        if s_9 == 1:",
        "            r.append((0, s_9 | s_12))",
        "    elif d1 == 3:",
        "        r.append((1, s_12))",
        "        if s_20 and not 0 <= s_12: _range('a', 'b', 0, 0, 1)",
        "    return r",
    ]
    reads = {k: f"s_{k} = (s >> {k}) & 1" for k in (4, 9, 12, 20, 30)}
    assert place_reads(body, reads) == [
        "    s_4 = (s >> 4) & 1",
        "    s_12 = (s >> 12) & 1",
        "    d1 = s_4",
        "    if d1 == 0:",
        "        s_9 = (s >> 9) & 1",
        "        if s_9 == 1:",
        "            r.append((0, s_9 | s_12))",
        "    elif d1 == 3:",
        "        s_20 = (s >> 20) & 1",
        "        r.append((1, s_12))",
        "        if s_20 and not 0 <= s_12: _range('a', 'b', 0, 0, 1)",
        "    return r",
    ]
