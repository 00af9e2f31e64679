"""From an engine's finding to evidence a designer can trust.

Whatever engine found a failure, its path is replayed step by step in the reference interpreter
and the final situation is checked against the property's meaning (the invariant really is
false there, the loop really returns to its start, the two forced rules really disagree). Only
then does it become a `Trace`. Any disagreement raises `ReplayMismatch`: an engine bug must not
be able to produce a false counterexample.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from checker.engines.backend import stepping
from checker.engines.sure_end import ends_surely
from checker.engines.verdict import Branches, Evidence, Lasso, Path, PropertyError, Strategy
from checker.errors import ModellingError
from checker.evidence import verdict_cache
from checker.evidence.trace import ReplayMismatch, Trace, display_info, make_step, replay_path
from checker.lang.expr import Expr
from checker.lang.interp import Interpreter, State, freeze, shared_interpreter
from checker.lang.model import Config, Model
from checker.lang.properties import BoundProperty
from checker.lang.property_kinds import KINDS

# The largest reachable graph on which `ends_surely` is decided for a chance-sustained loop (a
# larger one leaves the claim undecided, and the finding game-breaking). The answer explores the
# whole graph in Python (about 10,000 states a second on a loaded 2-core machine): Supershow's
# match-ends asks it for 23 of its 66 failures, 30,000-state games answering no.
SURE_END_STATES = 100_000


def build_trace(
    model: Model,
    config: Config,
    prop: BoundProperty,
    evidence: Evidence,
    note: str,
    classify_loop: bool = True,
    reuse: bool = False,
) -> Trace:
    """Replay the evidence's states and confirm that they break `prop`; returns the trace. An
    endless loop (a `terminates` lasso, whichever engine found it) is classified here, from the
    replayed steps: who chooses to go round it, and (when the engine knows) whether it can be left.
    `classify_loop` False skips that classification (it may explore the whole game): the growth
    re-check's witness search only needs the trace confirmed, within its own budget. `reuse`
    takes whether the game ends surely from the verdict cache when it is there (the replay and
    its confirmation are made in every case)."""
    states = evidence.states
    actions: list[str | None] | None = None
    if isinstance(evidence, (Path, PropertyError)) and evidence.last_action is not None and len(states) > 1:
        actions = [None] * (len(states) - 2) + [evidence.last_action]
    steps = replay_path(model, config, states, actions)
    interp = shared_interpreter(model, config)
    trace = Trace(
        game=model.game, model=model.id, property_id=prop.id, property_kind=prop.kind, says=prop.prop.says,
        config=config, reading_label=config.reading_label(model), initial=states[0], steps=steps,
        shape=evidence.shape, loop_start=evidence.loop_start if isinstance(evidence, (Lasso, Strategy)) else None,
        note=note, display=display_info(model),
    )
    confirm(interp, prop, trace, evidence.moves if isinstance(evidence, Branches) else ())
    if prop.kind == "terminates" and isinstance(evidence, Lasso) and classify_loop:
        trace.loop_deciders = loop_deciders(interp, trace)
        left = trace.loop_left = loop_left_surely(interp, trace)
        if left:
            def decide() -> bool | None:
                return ends_surely(stepping(model, config), SURE_END_STATES)

            trace.game_ends_surely = verdict_cache.remembered(f"ends-surely-{SURE_END_STATES}", model, config, decide) if reuse else decide()
        trace.note = loop_note(trace.loop_deciders, evidence.exits, left, trace.game_ends_surely)
    final = trace.states()[-1]
    if model.outcome is not None and interp.terminal(final):
        trace.outcome = interp.eval(model.outcome, final)
    return trace


def loop_deciders(interp: Interpreter, trace: Trace) -> frozenset[str]:
    """Who decides to go round a trace's loop: for each step of the loop whose state offers
    moves to other states too, the kind of mover taking it ('rules', 'chance' or a player's
    `by`). A step that is the only possible move decides nothing."""
    states = trace.states()
    start = trace.loop_start or 0
    deciders = set()
    for step, pre in zip(trace.steps[start:], states[start:]):
        if len({freeze(m.post) for m in interp.transitions(pre)}) < 2:
            continue
        deciders.add(interp.model.actions[step.action].by)
    return frozenset(deciders)


def describe_deciders(deciders: frozenset[str]) -> str:
    return "decided by: " + (", ".join(sorted(deciders)) or "nobody (every step is the only move)")


def loop_left_surely(interp: Interpreter, trace: Trace) -> bool:
    """Whether only chance keeps play on the trace's loop and play leaves it with probability 1,
    whatever anyone chooses, decided from the replayed states. It is what makes the whole-game
    question worth asking (`checker.engines.sure_end`, on which a finding's severity rests): a loop a
    player can repeat already answers it.

    At every state of the loop that offers more than one next state, each move that stays among
    the loop's states must be chance's (a player's or a rule's choice that stays could repeat the
    loop for ever), and some chance outcome must leave them. Then every step round the loop has a
    positive probability, so from anywhere on it a leaving outcome comes with a probability
    bounded below, and play is left with probability 1: only how many times it goes round first
    has no bound. Where play goes after leaving is not part of the claim."""
    states = trace.states()
    start = trace.loop_start or 0
    on_loop = {freeze(s) for s in states[start:]}
    leaks = False
    for pre in states[start:-1]:
        moves = interp.transitions(pre)
        if len({freeze(m.post) for m in moves}) < 2:
            continue
        for move in moves:
            stays = freeze(move.post) in on_loop
            by_chance = interp.model.actions[move.action].by == "chance"
            if stays and not by_chance:
                return False
            leaks = leaks or (by_chance and not stays)
    return leaks


def loop_note(deciders: frozenset[str], exits: bool | None, left: bool = False, game_ends: bool | None = None) -> str:
    """The words for an endless loop, the same whichever engine found it: what goes round it
    (nothing but the rules, only chance, only players' choices, or both chance and choices) and,
    when known, whether it can be left. `deciders` are `loop_deciders`; `exits` is the engine's
    answer whether the loop's strongly connected component has a way out (None: not known);
    `left` is `loop_left_surely`; `game_ends` is the whole game's answer (`checker.engines.sure_end`), asked only for a loop that
    chance alone keeps going (None: not asked or not decided)."""
    players = bool(deciders - {"rules", "chance"})
    if not deciders or deciders == {"rules"}:
        return "Forced loop: every step round this cycle is the only move the rules allow, so once here the game never ends."
    if exits is False:
        tail = "no exit exists, so the game never ends once here"
    elif left and game_ends:
        tail = "no player can keep the game going, here or elsewhere, so it ends with probability 1, but how many times it goes round first has no bound"
    elif left:
        tail = "chance leaves it with probability 1, " + (
            "but the game can still fail to end elsewhere (a loop players can stay in, or a stuck state)" if game_ends is False
            else "but whether the whole game ends with probability 1 was not established")
    elif exits is None:
        tail = "whether it can be left was not established"
    else:
        tail = "an exit exists, but whether play leaves it with probability 1 was not established"
    if not players:
        return f"Chance-only loop: only random outcomes keep the game in this cycle; {tail}."
    if "chance" in deciders:
        return f"Loop of chance and choice: going round this cycle takes both random outcomes and players' choices; {tail}."
    return "A loop players can choose to stay in: the players' own choices can repeat this cycle forever, so the rules do not force the game to end."


def reaches_terminal(interp: Interpreter, start: State, stuck_ends: bool = False) -> bool:
    """Whether some play from `start` reaches a terminal state (with `stuck_ends`, or a state
    where no rule applies: an end of play all the same, so a `False` then shows a play that can
    never end at all): the whole closed set of states reachable from it is explored
    (`closed_set`), so a `False` is the proof that the game cannot end."""
    return closed_set(interp, start, stuck_ends) is None


def closed_set(interp: Interpreter, start: State, stuck_ends: bool = False) -> int | None:
    """How many states are reachable from `start` (itself included) when none of them is
    terminal (with `stuck_ends`, none is stuck either), the size a `can-end` trace's note
    states; None when some play from `start` ends.

    The closed set is explored with the compiled successor function of the same configuration
    (held equal to this interpreter state by state by the differential tests), because walking
    it in the interpreter took over half of a Supershow check; the first expansion is checked
    against the interpreter's own moves here, so a disagreement at the trace's end is caught."""
    if interp.terminal(start):
        return None
    compiled = stepping(interp.model, interp.config)
    first = compiled.layout.pack(start)
    interpreted = {freeze(move.post) for move in interp.transitions(start)}
    if interpreted != {freeze(compiled.layout.unpack(post)) for _, post in compiled.successors(first)}:
        raise ReplayMismatch("the compiled and interpreted moves differ at the trace's last state")
    seen = {first}
    stack = [first]
    while stack:
        state = stack.pop()
        if compiled.terminal(state):
            return None
        moves = compiled.successors(state)
        if not moves and stuck_ends:
            return None
        for _, post in moves:
            if post not in seen:
                seen.add(post)
                stack.append(post)
    return len(seen)


def confirm(interp: Interpreter, prop: BoundProperty, trace: Trace, branch_actions: tuple[tuple[str, dict[str, Any]], ...]) -> None:
    """Check, in the interpreter, that the trace's last situation really breaks the property."""
    states = trace.states()
    last = states[-1]
    kind = prop.kind

    def require(condition: bool, what: str) -> None:
        if not condition:
            raise ReplayMismatch(f"{prop.id}: the replayed trace does not show {what}")

    if trace.shape == "property-error":
        params = trace.steps[-1].params if trace.steps and kind == "after" else {}
        old = states[-2] if kind == "after" and len(states) > 1 else None
        exprs = [e for e in (prop.expr, prop.source, prop.target) if e is not None]
        for expr in exprs:
            try:
                interp.eval(expr, last, params, old=old)
            except ModellingError as exc:
                trace.error = exc
                return
        raise ReplayMismatch(f"{prop.id}: the property's expression evaluates without error in the interpreter")
    if trace.shape == "error":
        try:
            interp.transitions(last)
        except ModellingError as exc:
            trace.error = exc
            return
        raise ReplayMismatch(f"{prop.id}: the modelling error does not recur in the interpreter")
    if trace.shape == "lasso":
        # the loop must have at least one step: a "loop" starting at the last state is no loop
        loop = trace.loop_start
        require(loop is not None and 0 <= loop < len(states) - 1 and states[loop] == last, "a loop of at least one step back to an earlier state")
    check = CONFIRM.get(kind)
    if check is not None:
        check(Replay(interp, prop, trace, states, require), branch_actions)


@dataclass
class Replay:
    """A replayed trace under confirmation, with the check that reports what it fails to show."""

    interp: Interpreter
    prop: BoundProperty
    trace: Trace
    states: list[State]
    require: Callable[[bool, str], None]

    @property
    def last(self) -> State:
        return self.states[-1]

    def expr(self) -> Expr:
        assert self.prop.expr is not None, "bound for every kind with `expr`"
        return self.prop.expr

    def loops_back(self) -> bool:
        loop = self.trace.loop_start
        return loop is not None and self.states[loop] == self.last


Moves = tuple[tuple[str, dict[str, Any]], ...]


def _invariant(e: Replay, _branches: Moves) -> None:
    e.require(not e.interp.eval(e.expr(), e.last), KINDS["invariant"].confirms)


def _state_satisfies(e: Replay, _branches: Moves) -> None:
    e.require(bool(e.interp.eval(e.expr(), e.last)), KINDS[e.prop.kind].confirms)


def _after(e: Replay, _branches: Moves) -> None:
    step = e.trace.steps[-1]
    e.require(step.action == e.prop.action, f"a final `{e.prop.action}` step")
    e.require(not e.interp.eval(e.expr(), e.last, step.params, old=e.states[-2]), KINDS["after"].confirms)


def _deadlock_free(e: Replay, _branches: Moves) -> None:
    e.require(not e.interp.terminal(e.last) and not e.interp.transitions(e.last), KINDS["deadlock-free"].confirms)


def _deterministic(e: Replay, branches: Moves) -> None:
    moves = e.interp.transitions(e.last)
    chosen = []
    for name, params in branches:
        match = next((m for m in moves if m.action == name and dict(m.params) == params), None)
        if match is None or e.interp.model.actions[name].by != "rules":
            raise ReplayMismatch(f"{e.prop.id}: the replayed trace does not show forced action `{name}` enabled at the end")
        chosen.append(match)
    e.require(len(chosen) == 2 and chosen[0].post != chosen[1].post, KINDS["deterministic"].confirms)
    e.trace.branches = [make_step(e.interp, m, e.last) for m in chosen]


def _terminates(e: Replay, _branches: Moves) -> None:
    if e.trace.shape == "lasso":
        e.require(e.loops_back(), "a loop back to an earlier state")
        e.require(not any(e.interp.terminal(s) for s in e.states), "a loop of non-terminal states")
    else:
        within = e.prop.prop.within
        e.require(within is not None and len(e.trace.steps) > within, f"a play longer than {within} steps")


def _value(e: Replay, _branches: Moves) -> None:
    ends = e.interp.terminal(e.last) or not e.interp.transitions(e.last)
    e.require(ends or e.loops_back(), KINDS["value"].confirms)


def _can_end(e: Replay, _branches: Moves) -> None:
    e.require(not reaches_terminal(e.interp, e.last), KINDS["can-end"].confirms)


def _leads_to(e: Replay, _branches: Moves) -> None:
    """Some state where `from` holds, after which (and round the loop) `to` never holds; it need
    not be the first state where `from` holds (`to` may hold at an earlier one)."""
    source, target, trace, states = e.prop.source, e.prop.target, e.trace, e.states
    assert source is not None and target is not None

    def avoids(i: int) -> bool:
        first = min(i, trace.loop_start) if trace.shape == "lasso" and trace.loop_start is not None else i
        return not any(e.interp.eval(target, s) for s in states[first:])

    e.require(any(e.interp.eval(source, s) for s in states), "a state where `from` holds")
    e.require(any(e.interp.eval(source, s) and avoids(i) for i, s in enumerate(states)), KINDS["leads-to"].confirms)
    if trace.shape == "lasso":
        e.require(e.loops_back(), "a loop back to an earlier state")
    else:
        e.require(not e.interp.transitions(e.last), "a play that ends (or sticks) without `to`")


# What the end of a trace must show, per kind (`coverage` has no trace: its evidence is a list).
CONFIRM: dict[str, Callable[[Replay, Moves], None]] = {
    "invariant": _invariant,
    "reachable": _state_satisfies,
    "unreachable": _state_satisfies,
    "after": _after,
    "deadlock-free": _deadlock_free,
    "deterministic": _deterministic,
    "terminates": _terminates,
    "value": _value,
    "can-end": _can_end,
    "leads-to": _leads_to,
}
assert set(CONFIRM) | {"coverage"} == set(KINDS), "every property kind has its confirmation"
