"""The outcome of a finding re-checked at the document's own size, as every report shows it.

The bundled models are scaled-down games (a few cards where the document deals eighteen), so
that every play can be explored. `checker.pipeline.full_size` plays each filed finding's
property again with every scaled constant at the value the document prints (`document:`),
where no exhaustive exploration fits: seeded random games count how often the violation
arises, and a walk guided by the small game's counterexample looks for one where the random
games meet none. This module is only the outcome and its words, so the reports depend on no
engine code.
"""

from __future__ import annotations

from dataclasses import dataclass

from checker.evidence.trace import Trace


@dataclass(frozen=True)
class SizeCheck:
    """One finding's representative failure played at the document's size."""

    finding: str
    variant: str
    prop: str
    reading: str
    sizes: tuple[str, ...]  # the document's values played ("hand_size 8", "deck[lead] 12")
    invented: tuple[str, ...] = ()  # invented sizes played at the middle of their plausible range ("n_kick 8")
    games: int = 0  # seeded random games played
    hits: int = 0  # of them, those that met a violation
    states: int = 0  # states the games and the guided walks stepped through
    trace: Trace | None = None  # a full-size violation, replayed in the interpreter
    guided: bool = False  # met by a walk guided by the small game's counterexample, not by the random games
    reason: str = ""  # why it was not played ("" when it was)

    @property
    def found(self) -> bool:
        return self.trace is not None

    @property
    def unseen(self) -> bool:
        """Played at the document's size and never met: so far a finding of the miniature."""
        return not self.reason and self.trace is None and self.games > 0

    def words(self, sizes: bool = True) -> str:
        """One line for the page (naming the values played when `sizes`)."""
        shown = [", ".join(self.sizes)] if self.sizes and sizes else []
        if self.invented and sizes:
            shown.append(f"sizes the document does not print at the middle of their plausible range: {', '.join(self.invented)}")
        at = f"At the document's size ({'; '.join(shown)})" if shown else "At the document's size"
        if self.reason:
            return f"{at}: not played ({self.reason})"
        if self.hits:
            rate = self.games / self.hits
            often = f"about 1 game in {rate:.0f} of seeded random play ({self.hits} of {self.games})" if rate >= 1.5 else f"{self.hits} of {self.games} games of seeded random play"
            steps = len(self.trace.steps) if self.trace else 0
            return f"{at}: happens in {often}; a full-size example of {steps} step(s), replayed in the reference interpreter, is saved with the evidence"
        if self.trace is not None:
            return (f"{at}: not met in {self.games:,} seeded random games; a walk guided by the small game's counterexample shows it "
                    f"({len(self.trace.steps)} steps, replayed in the reference interpreter, saved with the evidence): rare in random play")
        return (f"{at}: not found in {self.games:,} seeded random games and a guided search ({self.states:,} states): "
                "seen only in the scaled-down game so far")
