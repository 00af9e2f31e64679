"""A configuration's successor and terminal functions, run by the bytecode interpreter.

The searches that walk a game one state at a time from Python (the growth re-checks' seeded
witness searches, `ends_surely`'s adversarial closure) call `CompiledModel.successors` and
`terminal` per state, which meant generating the configuration's Python successor code first:
0.1 to 2 s a configuration, where the walks themselves often took less. Here the same two
functions run the model's bytecode (one program per model and constants, cached on disk):
packed states in, the Python engine's instance numbers and packed states out, in its order. A
modelling error is raised by the Python engine's own functions, built then (so in its words;
the interpreter does not word errors).
"""

from __future__ import annotations

import numpy as np

from checker.engines.native import engine
from checker.lang.compile import CompiledModel

ENDS_KEPT = 1 << 18  # states whose terminal flag a stepper keeps (a few tens of MB at most)


class Stepper:
    """`successors` and `terminal` of one configuration, in the interpreter."""

    def __init__(self, compiled: CompiledModel) -> None:
        source, self.module, self.ctx = engine.build_vm(compiled, [], checks=False)
        self.model, self.config = compiled.model, compiled.config
        self.size = 8 * source.words
        self.python_ids = source.python_ids
        rows = max(len(source.instances), 1)
        self.out_i = np.empty(rows, np.int64)
        self.out = np.empty((rows, source.words), np.int64)
        self.reference: CompiledModel | None = None
        self.ended: dict[int, bool] = {}  # `terminal`'s answers so far (up to `ENDS_KEPT`)

    def _row(self, s: int) -> np.ndarray:
        """`s` as a writable row: numba compiles its functions again for a read-only array
        (`frombuffer` of bytes), and `run` is 3 to 4 CPU s of compiling."""
        return np.frombuffer(bytearray(s.to_bytes(self.size, "little")), np.int64)

    def successors(self, s: int) -> list[tuple[int, int]]:
        try:
            n = self.module.successors(self._row(s), self.out_i, self.out, self.ctx)
        except engine.RUNTIME_ERRORS:
            return self._python().successors(s)  # raises the modelling error in the Python engine's words
        data, size, ids = self.out[:n].tobytes(), self.size, self.python_ids
        return [(ids[i], int.from_bytes(data[k * size : (k + 1) * size], "little")) for k, i in enumerate(self.out_i[:n].tolist())]

    def terminal(self, s: int) -> bool:
        """Whether `s` is terminal, each state asked of the interpreter once: the searches ask
        again of the states they pass (a walk's last state, a closure's every state, an outcome
        sought), about twice per state met."""
        known = self.ended.get(s)
        if known is not None:
            return known
        try:
            known = bool(self.module.terminal(self._row(s), self.ctx))
        except engine.RUNTIME_ERRORS:
            return self._python().terminal(s)
        if len(self.ended) < ENDS_KEPT:
            self.ended[s] = known
        return known

    def warm(self, s: int) -> None:
        """Compile (or load) the two functions on state `s`, under their compile lock: the
        Readings re-checks step from the main process while the workers compile the loops
        that call the same functions."""
        with engine.compiling(self.module.__name__, "step"):
            try:
                self.module.terminal(self._row(s), self.ctx)
                self.module.successors(self._row(s), self.out_i, self.out, self.ctx)
            except engine.RUNTIME_ERRORS:
                pass  # a modelling error there: reported in the Python engine's words when a walk meets it

    def _python(self) -> CompiledModel:
        if self.reference is None:
            self.reference = CompiledModel(self.model, self.config)
        return self.reference


def attach(compiled: CompiledModel) -> CompiledModel:
    """`compiled` with the interpreter's successor and terminal functions, when it has not built
    its own (else, or for a model the interpreter cannot run, unchanged)."""
    if compiled.built:
        return compiled
    try:
        stepper = Stepper(compiled)
        if not all(engine.in_range(compiled, s) for s in compiled.initial):
            return compiled  # a value outside its slot's range: the Python engine reports it
    except (engine.NativeUnsupported, engine.NativeDeferred):
        return compiled
    if compiled.initial:
        stepper.warm(compiled.initial[0])
    compiled.use_functions(stepper.successors, stepper.terminal)
    return compiled
