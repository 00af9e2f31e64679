"""Reading impact: what each reading of the rule text changes, computed rather than guessed.

- `divergence`: the shortest play, legal under two configurations, where they part ways;
- `outcomes`: reachable outcomes, can-end, longest game, exact outcome probabilities under a
  stated policy, and forced wins (attractors) for two sides;
- `value`: the game value under perfect play (retrograde analysis), for the `value` property;
- `classify`: game-breaking, outcome-changing, odds-shifting, rules-visible or moot;
- `evidence`: the verdicts behind a game-breaking or outcome-changing class, decided by an
  early-stopping search (for the Readings growth re-check, `reading_growth`);
- `impact`: the whole analysis of a game's readings (and pairs of readings), for the command
  `rulecheck readings`, its JSON and the errata page's reading section.
"""
