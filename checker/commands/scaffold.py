"""`rulecheck init`: the files of a new game, small enough to read at once and valid as written.

The scaffold is a complete little game (a race to a target total) rather than empty sections,
so that `rulecheck lint` and `rulecheck check` pass on it straight away and every part of the
pipeline (clause index, review questions, a reading, an assumption, properties with `expect`, a
filed finding) has one worked example to edit. Nothing is overwritten: every file is checked
first and none is written when any exists.
"""

from __future__ import annotations

import os
import re

from checker import DISTRIBUTION
from checker.errors import RulecheckError

GAME_ID = re.compile(r"^[a-z][a-z0-9_-]*$")

CLAUSES = """\
# yaml-language-server: $schema={schema}/clauses.json
# The clause index of the rule document: every rule sentence gets an id, where it is (`at`, in the
# document's own headings) and a short quote (`says`). Models cite these ids.
clauses:
  race-1: {{at: "Play, 1", says: "The players take turns; the youngest player starts."}}
  race-2: {{at: "Play, 2", says: "On your turn, add 1 or 2 to the running total."}}
  race-3: {{at: "Winning", says: "The player who brings the total to {target} wins."}}
  race-4:
    at: "Components"
    says: "You need a pencil and paper to keep the total."
    status: out-of-scope
    why: "Components, not rules of play."
"""

QUESTIONS = """\
# yaml-language-server: $schema={schema}/questions.json
# Review questions: what a careful reading of the document alone leaves open. The model answers
# each with a reading, an assumption or a property (`answers:`), or it says why it is out of scope.
questions:
  - id: q-overshoot
    clauses: [race-2, race-3]
    kind: gap
    raised_by: cold-reading
    question: "May a player add 2 when the total is one short of {target}, passing it?"
  - id: q-who-starts
    clauses: [race-1]
    kind: gap
    raised_by: cold-reading
    question: "Which seat does the youngest player take?"
"""

MODEL = """\
# yaml-language-server: $schema={schema}/model.json
# The base model of {title}: a transition system over the state below. docs/language.md of
# rulecheck describes every section.
game: {title}
id: base
source: {{document: "rules.txt"}}
players: [first, second]
domains:
  step: {{range: [1, 2]}}
constants:
  target: {{type: int, range: [2, 20], default: {target}, doc: "the total that wins"}}
readings:
  overshoot:
    clause: race-3
    question: May a player pass the target?
    options:
      forbidden: a move may not take the total past the target
      allowed: any move is legal; passing the target wins too
    default: forbidden
    answers: [q-overshoot]
assumptions:
  - id: seats
    clauses: [race-1]
    says: "The youngest player is `first`."
    why: "Seats are alike: another choice only renames the players."
    answers: [q-who-starts]
state:
  total: {{type: "int[0..21]", label: "the running total"}}
  turn: player
init:
  total: 0
  turn: first
terminal: total >= target
outcome: succ(turn)          # the player who moved last (two players)
actions:
  add:
    by: turn
    for: {{n: step}}
    when: total + n <= target or reading.overshoot == allowed
    do:
      total: total + n
      turn: succ(turn)
    rule: [race-1, race-2]
    cite:
      - {{when: total + n >= target, rule: [race-3]}}
    text: "{{by}} adds {{n}} to {{@total}}"
"""

PROPERTIES = """\
# yaml-language-server: $schema={schema}/properties.json
# What the rules promise, as properties checked on every model of models/{game}/ and every
# reading: `expect` says what each should give, so `rulecheck check` exits 0 when all agree.
game: {game}
properties:
  - id: game-ends
    kind: terminates
    says: Every game ends.
    clauses: [race-3]
    expect: holds
  - id: can-end
    kind: can-end
    says: From any position, the game can still be finished.
    expect: holds
  - id: total-within-target
    kind: invariant
    says: The total never passes the target.
    expr: total <= target
    clauses: [race-2, race-3]
    expect: {{default: holds, "overshoot=allowed": fails}}
  - id: first-can-win
    kind: reachable
    says: The first player can win.
    expr: total >= target and turn == second
    expect: holds
  # The generic properties run on every model anyway; listed here to show them.
  - {{id: deadlock-free, kind: deadlock-free, expect: holds}}
  - {{id: deterministic, kind: deterministic, expect: holds}}
  - {{id: coverage, kind: coverage, expect: holds}}
findings:
  - id: overshoot-unsaid
    title: The rules do not say whether the total may pass the target
    class: gap
    clauses: [race-3]
    scenario: At {below} a player adds 2; if that is legal the total passes {target}.
    proposed: "Race-3 should read: the player who brings the total to {target} or more wins."
    properties: [total-within-target]
    readings: [overshoot=allowed]
"""

README = """\
# {title}: rules model

Checked with [rulecheck](https://pypi.org/project/{distribution}/) (`python3 -m pip install {distribution}`,
which installs the `rulecheck` command):

- `models/{game}/clauses.yaml`: the clause index of the rule document (quote each rule sentence)
- `models/{game}/questions.yaml`: the questions a careful reading raises
- `models/{game}/base.yaml`: the model (add variants with `extends: base.yaml`)
- `properties/{game}.yaml`: what the rules promise, with the expected verdicts and filed findings

```sh
rulecheck lint models/{game}            # located errors, clause coverage, questions answered
rulecheck check --jobs 1 models/{game}  # every property under every reading; evidence in counterexamples/
rulecheck readings models/{game}        # what each reading changes
```

Editors with yaml-language-server complete and validate these files from the JSON Schemas in
`{schema_dir}/` (`rulecheck schema model|properties|clauses|questions` prints them again).
"""


def scaffold_files(root: str, game: str, schema_dir: str = ".rulecheck") -> dict[str, str]:
    """The files of a new game `game` under the project folder `root`, path -> text."""
    if not GAME_ID.match(game):
        raise RulecheckError(f"a game id is lower-case letters, digits, `-` and `_`, starting with a letter: `{game}`",
                             hint="it names models/GAME/ and properties/GAME.yaml; give one with --game")
    title = game.replace("-", " ").replace("_", " ").title()
    models = os.path.join(root, "models", game)
    values = {"game": game, "title": title, "target": 10, "below": 9, "schema_dir": schema_dir, "distribution": DISTRIBUTION}
    from_models = os.path.relpath(os.path.join(root, schema_dir), models)
    from_props = os.path.relpath(os.path.join(root, schema_dir), os.path.join(root, "properties"))
    return {
        os.path.join(models, "clauses.yaml"): CLAUSES.format(schema=from_models, **values),
        os.path.join(models, "questions.yaml"): QUESTIONS.format(schema=from_models, **values),
        os.path.join(models, "base.yaml"): MODEL.format(schema=from_models, **values),
        os.path.join(root, "properties", f"{game}.yaml"): PROPERTIES.format(schema=from_props, **values),
        os.path.join(models, "README.md"): README.format(**values),
    }


def write_new(files: dict[str, str]) -> None:
    """Write every file, or none when any exists (exit 2: nothing is overwritten)."""
    existing = sorted(path for path in files if os.path.exists(path))
    if existing:
        raise RulecheckError(f"{os.path.relpath(existing[0])} already exists: nothing was written",
                             hint="rulecheck init never overwrites; choose another --game or folder")
    for path, text in files.items():
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(text)
