"""A reading's options compared at the document's own size, by seeded random play.

The Readings analysis decides what an option does exactly, but in the miniature the model
explores (a 6-card deck for an 80-card game, 2 Turns for 15), where a rule that needs the
printed size cannot act and an odds shift means little. Here both the default and the option
are played at the document's size (`pipeline.full_size.document_constants`, invented sizes at
the middle of their plausible range) in the same seeded random games, and compared where the
difference is beyond the noise of that many games: an outcome's share whose 95% Wilson intervals
do not overlap, the share of games that stall or do not end, the mean length of the games that
end. A shift inside the intervals is not reported: it may be real, but these games cannot show
it, and the page says how wide that noise is.

The games are uniform random play (each mover equally likely, chance by its weights, a player's
moves uniformly): how a reading changes the odds under that policy, not under expert play.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from checker.analysis.outcomes import ERRORED, UNFINISHED, shares
from checker.engines.game_graph import STUCK
from checker.engines.simulate import simulate
from checker.lang.compile import CompiledModel
from checker.lang.model import Config, Model

GAMES = 500  # seeded games per side: 95% intervals of about +-4 points on an even share
MAX_STEPS = 2_000  # a game not over after this many steps counts as unfinished
SEED = 20_251_201
MIN_LENGTH_CHANGE = 0.05  # a mean length that moves by less than 5% is not a change of length a designer acts on
MIN_SHIFT = 0.01  # an outcome's share that moves by less than a point is not reported, however sure
ENDLESS = (STUCK, UNFINISHED, ERRORED)  # the outcomes of games that did not end as the rules say a game ends


@dataclass(frozen=True)
class Played:
    """One configuration's seeded games: each outcome's share with its 95% interval (stalled,
    unfinished and errored games are outcomes of their own), and the mean length of the games
    that ended with its standard error."""

    games: int
    shares: dict[str, float]
    intervals: dict[str, tuple[float, float]]
    mean_length: float
    length_error: float
    error: str = ""  # the first modelling error a game met, if any did

    def not_ending(self) -> float:
        """The share of games that stalled, were cut off unfinished, or met a modelling error."""
        return sum(share for name, share in self.shares.items() if name.startswith(ENDLESS))


@dataclass(frozen=True)
class SizedOption:
    """A reading option against the default at the document's size, in one model."""

    model: str
    reading: str
    option: str
    sizes: tuple[str, ...]  # the constants played, in words ("hand_size 8")
    base: Played | None = None
    alt: Played | None = None
    error: str = ""  # why it was not played

    def shifts(self) -> list[tuple[str, float, float]]:
        """The outcomes whose shares differ beyond the games' noise, by a point at least:
        (outcome, default, option)."""
        if self.base is None or self.alt is None:
            return []
        out = []
        for name in sorted(set(self.base.shares) | set(self.alt.shares)):
            lo_a, hi_a = self.base.intervals.get(name, (0.0, 0.0))
            lo_b, hi_b = self.alt.intervals.get(name, (0.0, 0.0))
            a, b = self.base.shares.get(name, 0.0), self.alt.shares.get(name, 0.0)
            if (hi_a < lo_b or hi_b < lo_a) and abs(a - b) >= MIN_SHIFT:
                out.append((name, a, b))
        return out

    def length_change(self) -> tuple[float, float] | None:
        """The mean lengths (default, option) when they differ beyond twice their standard
        errors and by at least `MIN_LENGTH_CHANGE`; otherwise None."""
        if self.base is None or self.alt is None or not self.base.mean_length or not self.alt.mean_length:
            return None
        a, b = self.base, self.alt
        noise = 1.96 * math.hypot(a.length_error, b.length_error)
        if abs(a.mean_length - b.mean_length) <= noise or abs(a.mean_length - b.mean_length) < MIN_LENGTH_CHANGE * a.mean_length:
            return None
        return a.mean_length, b.mean_length

    def noise(self) -> float:
        """The widest half-interval of an outcome's share, in points: what these games cannot tell apart."""
        if self.base is None:
            return 0.0
        return max((hi - lo) / 2 * 100 for lo, hi in self.base.intervals.values()) if self.base.intervals else 0.0


def play(model: Model, config: Config, games: int = GAMES, seed: int = SEED, max_steps: int = MAX_STEPS) -> Played:
    """`games` seeded random games of `config`."""
    report = simulate(CompiledModel(model, config, lazy=True), games, seed, max_steps)
    share, intervals = shares(report)
    lengths = report.lengths
    mean = sum(lengths) / len(lengths) if lengths else 0.0
    spread = math.sqrt(sum((n - mean) ** 2 for n in lengths) / (len(lengths) - 1)) if len(lengths) > 1 else 0.0
    error = next(iter(report.errors), "")
    return Played(report.games, share, intervals, mean, spread / math.sqrt(len(lengths)) if lengths else 0.0, error)


def outcome_words(name: str, model: Model) -> str:
    """An outcome as the page names it: the display name of an outcome value, or what a stalled,
    unfinished or errored game is."""
    if name == STUCK:
        return "games that stall (no rule applies)"
    if name.startswith(UNFINISHED):
        return f"games still unfinished after {MAX_STEPS:,} steps"
    if name == ERRORED:
        return "games stopped by a modelling error"
    shown = next((names[name] for names in model.names.values() if name in names), name)
    return f"{shown}"
