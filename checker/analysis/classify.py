"""What a reading option changes, in one word a designer can act on.

- game-breaking: it changes whether the game can always still end, whether it can get stuck
  (a state where no rule applies), or whether it ends with probability 1;
- outcome-changing: it changes who can win: the reachable outcomes, or which side can force a
  win;
- odds-shifting: only the outcomes' probabilities under the stated policy move (including the
  probability of never ending, when both are above 0); the reasons name the largest shift, so a
  shift in the fourth decimal is not mistaken for a change of who can win;
- rules-visible: legal play differs somewhere (there is a divergence scenario) but none of the
  above changes; a change of the longest game alone is reported here;
- moot: no reachable position tells the two apart, within the bound stated.

The most severe class of a reading's options is the reading's class.
"""

from __future__ import annotations

from checker.analysis.divergence import Divergence
from checker.analysis.outcomes import NEVER, POLICIES, UNFINISHED, Impact

ODDS_CHANGED = "outcome odds change"  # how a reason that the odds move begins (the page words it in whole points)
ORDER = ("game-breaking", "outcome-changing", "odds-shifting", "rules-visible", "moot")
TOLERANCE = 1e-9


def most_severe(labels: list[str]) -> str:
    return min(labels, key=ORDER.index) if labels else "moot"


def classify(divergence: Divergence, base: Impact | None, alt: Impact | None, unconsulted: bool = False) -> tuple[str, list[str]]:
    """(class, reasons) for one option against the default."""
    if unconsulted:
        return "moot", ["no expression or `only` of the model consults this reading"]
    if not divergence.found:
        return "moot", [divergence.bound]
    if base is None or alt is None:
        return "rules-visible", ["impact not computed"]
    if not (base.complete and alt.complete):
        return _estimated(base, alt)
    breaking = []
    if base.can_end != alt.can_end:
        breaking.append(f"whether the game can always still end changes ({_yes(base.can_end)} \u2192 {_yes(alt.can_end)})")
    if bool(base.stuck_states) != bool(alt.stuck_states):
        breaking.append("a state where no rule applies is reachable under one reading only")
    never_base, never_alt = (base.probabilities or {}).get(NEVER, 0.0), (alt.probabilities or {}).get(NEVER, 0.0)
    if (never_base > TOLERANCE) != (never_alt > TOLERANCE):
        breaking.append(f"the game ends with probability 1 under one reading only (never ends: {_pair(never_base, never_alt)})")
    if breaking:
        return "game-breaking", breaking
    changing = []
    if set(base.outcomes) != set(alt.outcomes):
        gained = sorted(set(alt.outcomes) - set(base.outcomes))
        lost = sorted(set(base.outcomes) - set(alt.outcomes))
        parts = ([f"gains {', '.join(gained)}"] if gained else []) + ([f"loses {', '.join(lost)}"] if lost else [])
        changing.append("reachable outcomes change: " + ", ".join(parts))
    if [(f.side, f.chance_adversarial, f.chance_cooperative) for f in base.forced] != [(f.side, f.chance_adversarial, f.chance_cooperative) for f in alt.forced]:
        changing.append("which side can force a win changes")
    shifts = _shifts(base.probabilities or {}, alt.probabilities or {})
    odds = [f"{ODDS_CHANGED} (largest shift {_largest(base.probabilities or {}, alt.probabilities or {})}): " + ", ".join(shifts)] if shifts else []
    for policy in POLICIES:  # the same players choosing as a sensible player would (`outcomes.POLICIES`)
        b, a = base.by_policy.get(policy), alt.by_policy.get(policy)
        if b is not None and a is not None and _shifts(b, a):
            odds.append(f"with {policy} players, {ODDS_CHANGED} (largest shift {_largest(b, a)}): " + ", ".join(_shifts(b, a)))
    if changing:
        return "outcome-changing", changing + odds
    if odds:
        return "odds-shifting", odds
    reasons = [divergence.summary]
    if (base.longest, base.endless) != (alt.longest, alt.endless):
        reasons.append(f"the longest game changes from {_length(base)} to {_length(alt)}")
    return "rules-visible", reasons


def _shifts(base: dict[str, float], alt: dict[str, float]) -> list[str]:
    out = []
    for name in sorted(set(base) | set(alt)):
        a, b = base.get(name, 0.0), alt.get(name, 0.0)
        if abs(a - b) > TOLERANCE:
            out.append(f"{name} {_pair(a, b)}")
    return out


def _largest(base: dict[str, float], alt: dict[str, float]) -> str:
    """The largest move of one outcome's probability: "0.04 percentage points (true_draw)"."""
    size, names = largest_move(base, alt)
    return f"{size:.2g} percentage points ({', '.join(names)})"


def largest_move(base: dict[str, float], alt: dict[str, float]) -> tuple[float, list[str]]:
    """The largest move of one outcome's probability, in percentage points, and the outcomes
    that move by it. Outcomes whose moves are as large within `TOLERANCE` are all named (with
    two outcomes, what one gains the other loses): which of them came out larger was the
    solver's rounding."""
    moves = {n: abs(base.get(n, 0.0) - alt.get(n, 0.0)) for n in set(base) | set(alt)}
    if not moves:
        return 0.0, []
    size = max(moves.values())
    return 100 * size, sorted(n for n, move in moves.items() if move >= size - TOLERANCE)


def _pair(a: float, b: float) -> str:
    """`a → b` with just enough significant digits to show that they differ."""
    digits = 4
    while digits < 12 and f"{a:.{digits}g}" == f"{b:.{digits}g}":
        digits += 1
    return f"{a:.{digits}g} \u2192 {b:.{digits}g}"


def _yes(flag: bool | None) -> str:
    return "yes" if flag else "no"


def _length(impact: Impact) -> str:
    return "infinite" if impact.endless else f"{impact.longest} steps"


def _estimated(base: Impact, alt: Impact) -> tuple[str, list[str]]:
    """Beyond the budget only seeded estimates exist: an outcome whose 95% intervals do not
    overlap is reported as an estimated change; otherwise the impact stays undecided. One side
    may be exact (its exploration fitted the budget, the other's did not): its probability is
    then a point, and is shown as exact, never as an interval it has none of (a missing
    interval read as [0, 0] would invent a shift). Games the simulation cut short ("unfinished
    after N steps") are a share of the estimate, not an outcome an exact side can have, so they
    are compared only between two estimates."""
    separated = separated_odds(base, alt)
    if separated:
        return "odds-shifting", ["estimated (seeded simulation, 95% intervals do not overlap): " + ", ".join(separated)]
    return "rules-visible", [f"impact not decided within the bound ({base.bound}; {alt.bound}); simulated outcome frequencies do not separate"]


def separated_odds(base: Impact, alt: Impact) -> list[str]:
    """The outcomes whose shares differ beyond doubt between two impacts, one of them at least
    an estimate (see `_estimated`): "heroes_win 0.9747 (exact) → [0.900, 0.930]"."""
    separated = []
    one_exact = base.intervals is None or alt.intervals is None
    for name in sorted(set(base.intervals or base.probabilities or {}) | set(alt.intervals or alt.probabilities or {})):
        if one_exact and name.startswith(UNFINISHED):
            continue
        (lo_a, hi_a), shown_a = _range(base, name)
        (lo_b, hi_b), shown_b = _range(alt, name)
        if hi_a < lo_b or hi_b < lo_a:
            separated.append(f"{name} {shown_a} \u2192 {shown_b}")
    return separated


def _range(impact: Impact, name: str) -> tuple[tuple[float, float], str]:
    """One side's share of an outcome: its 95% interval (an estimate) or its exact
    probability as a point, with its words."""
    if impact.intervals is not None:
        lo, hi = impact.intervals.get(name, (0.0, 0.0))
        return (lo, hi), f"[{lo:.3f}, {hi:.3f}]"
    p = (impact.probabilities or {}).get(name, 0.0)
    return (p, p), f"{p:.4g} (exact)"
