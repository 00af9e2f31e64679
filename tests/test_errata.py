"""The generated errata page: findings ranked by severity, every failure filed, a compact appendix."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import textwrap
from types import SimpleNamespace

import pytest

from checker.errors import RulecheckError
from checker.pipeline.errata import errata_pages
from checker.pipeline.runner import CheckOptions, check_paths, load_games
from checker.report.findings import SEVERITIES, group_findings
from checker.report.summary import MAX_UNEXPECTED_LINES, summary_lines
from tests.conftest import HERE, write
from tests.test_property_kinds import COUNTER

# The counter, with a second reading under which a player may wait for ever, and an outcome
# (whose turn it is at the end) so that a property about `turn` is about the result.
MODEL = COUNTER.replace("readings:\n", "readings:\n  extra:\n    clause: c-2\n    question: May a player wait?\n    options: {same: no, other: yes}\n    default: same\n").replace(
    "terminal: done\n", "terminal: done\noutcome: turn\n").replace(
    "  finish:\n", "  wait:\n    by: turn\n    when: reading.extra == other and not done\n    do: {turn: succ(turn)}\n    rule: c-1\n  finish:\n")
PROPERTIES = """\
- {id: ends, kind: terminates, says: Every game ends., expect: {default: holds, extra=other: fails}}
- {id: ann-last, kind: invariant, says: Ann makes the last move., expr: "not done or turn == ann", clauses: [c-2], expect: {default: holds, extra=other: fails}}
- {id: below3, kind: invariant, says: The counter stays below three., expr: "x < 3", expect: fails}
- {id: three, kind: reachable, says: Three can be reached., expr: "x == 3", expect: {default: holds, step=two: fails}}
- {id: small, kind: invariant, expr: "x <= 4"}
- {id: coverage, kind: coverage, expect: {default: fails, extra=other: holds}}
"""
FINDINGS = """\
- id: waiting-changes-winner
  title: Waiting lets Bob make the last move
  class: ambiguity
  clauses: [c-2]
  scenario: Ann and Bob wait in turn until Bob's turn comes round at four.
  proposed: "Say: a player may not wait."
  properties: [ann-last]
- id: counter-passes-three
  title: The counter passes three
  class: contradiction
  clauses: [c-1]
  scenario: Ann moves, Bob moves, Ann moves.
  proposed: "Say: the counter stops at two."
  properties: [below3]
"""


def project(tmp_path, findings: str = FINDINGS) -> str:
    path = write(tmp_path, MODEL, "m.yaml", "g")
    (tmp_path / "properties").mkdir(exist_ok=True)
    suite = "game: g\nproperties:\n" + textwrap.indent(PROPERTIES, "  ") + "findings:\n" + textwrap.indent(findings, "  ")
    (tmp_path / "properties" / "g.yaml").write_text(suite)
    return path


@pytest.fixture
def results(tmp_path):
    return check_paths([project(tmp_path)], CheckOptions())


def errata_page(folder: str, results) -> str:
    """The details page: every finding in full, the readings, the appendices."""
    return errata_pages(folder, results)[1]


def main_page(folder: str, results) -> str:
    return errata_pages(folder, results)[0]


def findings_part(text: str) -> str:
    return text.split("## Findings", 1)[1].split("## Assumptions", 1)[0]


def test_the_page_opens_with_findings_ranked_by_severity(results):
    text = errata_page("g", results)
    assert text.index("## Findings") < text.index("## Assumptions") < text.index("## Readings") < text.index("## Appendix A")
    titles = re.findall(r"^### \d+\. (.+)$", text, flags=re.M)
    severities = re.findall(r"^\*\*Severity:\*\* ([a-z-]+):", text, flags=re.M)
    assert titles == ["Unfiled: a game can go on for ever", "Waiting lets Bob make the last move", "The counter passes three", "Unfiled: \u201cThree can be reached\u201d does not always hold", "Unfiled: some rules can never apply"]
    assert severities == ["game-breaking", "outcome-changing", "rules-visible", "rules-visible", "cosmetic"]
    assert [SEVERITIES.index(s) for s in severities] == sorted(SEVERITIES.index(s) for s in severities)


def test_every_failing_property_appears_in_some_finding(results):
    text = findings_part(errata_page("g", results))
    failing = {r.prop.id for r in results if r.status == "fails"}
    assert failing == {"ends", "ann-last", "below3", "three", "coverage"}
    for pid in failing:
        assert f"- `{pid}` (" in text, pid
    assert "`small`" not in text  # a property that holds is no finding
    assert "these rules never apply in any reachable position: wait (1) (`counter`, `counter` with `step=two`)" in text  # by heading
    assert "- `three`: no reachable position shows it (exhaustive exploration) (`counter` with `step=two`)" in text


def test_a_finding_quotes_the_rule_once_by_its_heading_and_folds_the_evidence(results):
    text = errata_page("g", results)
    entry = text.split("### 2. Waiting lets Bob make the last move", 1)[1].split("### 3.", 1)[0]
    assert entry.split("<details>")[0].count("\u201cAt four the game ends.\u201d") == 1  # the trace is evidence apart
    assert '> \u201cAt four the game ends.\u201d\n> \u2014 *2*' in entry  # located by the heading (the clause index holds the id's anchor)
    assert "**Scenario.** Ann and Bob wait in turn" in entry and "**Proposed wording** (not run: the finding gives it no `fix`). Say: a player may not wait." in entry
    assert "<details>" in entry and "</details>" in entry and entry.index("**Proposed wording**") < entry.index("<details>")
    assert "is false, but it should hold" not in text  # no model expression offered as the reason
    assert "rulecheck explain counterexamples/g/ann-last." in entry and "prints it step by step" in entry
    evidence = entry.split("</summary>", 1)[1].split("</details>", 1)[0].strip().split("\n\n")[0]
    assert evidence.startswith("(1) ") and "\n" not in evidence and "(2) " in evidence  # every step, in one paragraph


def test_the_verdict_appendix_lists_each_property_once(results):
    appendix = errata_page("g", results).split("## Appendix A", 1)[1].split("## Appendix B", 1)[0]
    listed = re.findall(r"^- `([^`]+)` \(", appendix, flags=re.M)
    assert sorted(listed) == sorted({r.prop.id for r in results}) and len(listed) == len(set(listed))
    assert "- `small` (invariant): holds in all 3 combinations" in appendix
    assert "- `below3` (invariant): fails in all 3 combinations" in appendix
    assert "- `three` (reachable): fails in 1 of 3 combinations: `counter` with `step=two`" in appendix


def test_assumptions_and_questions_are_shown_with_their_answers(results):
    model = results[0].model
    model.assumptions = [SimpleNamespace(id="no-skip", clauses=["c-1"], says="A move is never skipped.", why="The text never mentions skipping.", answers=["q-skip"], contested="")]
    model.questions = [
        SimpleNamespace(id="q-skip", clauses=["c-1"], kind="gap", raised_by="cold-reading", question="May a move be skipped?", out_of_scope=""),
        SimpleNamespace(id="q-wait", clauses=["c-2"], kind="ambiguity", raised_by="cold-reading", question="May a player wait?", out_of_scope=""),
        SimpleNamespace(id="q-colour", clauses=[], kind="gap", raised_by="faq", question="What colour is the counter?", out_of_scope="cosmetic"),
        SimpleNamespace(id="q-open", clauses=[], kind="gap", raised_by="designer", question="Who shuffles?", out_of_scope=""),
    ]
    model.readings["extra"].answers = ["q-wait"]
    results[0].prop.answers = []  # a property may answer questions too; none here
    text = errata_page("g", results)
    assert "- <a id=\"assumption-no-skip\"></a>**no-skip** (1): A move is never skipped. *Why:* The text never mentions skipping." in text  # the anchor a trace links
    questions = text.split("## Appendix B", 1)[1]
    assert "4 question(s)" in questions and "3 answered, 1 open" in questions
    assert "Answer: assumption `no-skip`" in questions and "Answer: reading `extra`" in questions
    assert "Answer: out of scope: cosmetic" in questions and "**open**" in questions
    # the main page counts them by what answers them and gives only the open one in full
    main = main_page("g", results).split("## Questions a careful reading raises", 1)[1].split("## Assumptions", 1)[0]
    assert "4 review questions of the text: 3 answered (1 by a reading, 1 by an assumption, 1 out of scope, with the reason)." in main
    assert "(g-details.md#appendix-b-review-questions)" in main
    assert '- <a id="q-open"></a>Who shuffles?' in main and "May a player wait?" not in main


def test_a_failure_under_a_named_reading_is_claimed_only_there(tmp_path):
    findings = FINDINGS + "- {id: only-two, title: Two steps skip three, class: ambiguity, scenario: Ann jumps from two to four., proposed: Say it., readings: [step=two], properties: [three]}\n"
    results = check_paths([project(tmp_path, findings)], CheckOptions())
    entries = {e.id: e for e in group_findings(results, load_games([str(tmp_path / "models" / "g")])[0].findings)}
    assert "unfiled-three" not in entries and {r.reading_label for r in entries["only-two"].results} == {"step=two"}


@pytest.mark.parametrize(("finding", "gist"), [
    ("- {id: x, title: T, class: gap, scenario: S, proposed: P, properties: [nowhere]}", "unknown property `nowhere`"),
    ("- {id: x, title: T, class: gap, scenario: S, proposed: P, readings: [step=three]}", "`three` is not an option of reading `step`"),
    ("- {id: x, title: T, class: oddity, scenario: S, proposed: P, properties: [three]}", "unknown finding class `oddity`"),
    ("- {id: x, title: T, class: gap, scenario: S, proposed: P}", "names its evidence"),
    ("- {id: x, title: T, class: gap, scenario: \"1\\n2\\n3\\n4\\n5\\n6\", proposed: P, properties: [three]}", "at most 5 lines"),
    ("- {id: x, title: T, class: gap, scenario: S, proposed: P, properties: [three], shows: [jump]}", "`shows` names an unknown action `jump`"),
    ("- {id: x, title: T, class: gap, scenario: S, proposed: P, properties: [three], evidence: {readings: {step: three}}}", "names `step=three`, which no model has"),
    ("- {id: x, title: T, class: gap, scenario: S, proposed: P, properties: [three], evidence: {variant: other}}", "unknown variant `other`"),
])
def test_bad_findings_are_located_errors(tmp_path, finding, gist):
    project(tmp_path, finding + "\n")
    with pytest.raises(RulecheckError) as caught:
        load_games([str(tmp_path / "models" / "g")])
    assert gist in str(caught.value) and "g.yaml:" in caught.value.render()


def test_the_old_per_property_texts_point_to_findings(tmp_path):
    project(tmp_path)
    suite = tmp_path / "properties" / "g.yaml"
    suite.write_text(suite.read_text().replace("- {id: small, kind: invariant,", "- {id: small, clarify: Say it., kind: invariant,"))
    with pytest.raises(RulecheckError, match="no longer a property key"):
        load_games([str(tmp_path / "models" / "g")])


def test_the_summary_has_a_line_per_game_and_caps_the_unexpected(results):
    lines = summary_lines(results, "counterexamples")
    assert len(lines) == 2 and lines[0].startswith("g: 1 model(s), 3 combinations, 8 properties; 5 finding(s) (1 game-breaking, 1 outcome-changing, 2 rules-visible, 1 cosmetic), 3 unfiled; 0 unexpected;")
    for r in results:
        r.expected = "holds" if r.status == "fails" else "fails"
    lines = summary_lines(results, "counterexamples")
    assert len(lines) == 1 + MAX_UNEXPECTED_LINES + 2 and lines[-2].startswith("... and ")
    assert any(line.startswith("unexpected g/counter ann-last [extra=other]: fails, expected holds \u2192 counterexamples/g/ann-last.") for line in lines)


def test_the_questions_a_finding_answers_keep_the_order_of_its_readings():
    """Pages must be byte-stable across processes: the order cannot come from a set of names
    (string hashing differs per process, which once made a committed page differ from CI's)."""
    from checker.report.appendix import finding_questions
    from checker.report.findings import FindingEvidence

    names = [f"r{i}" for i in range(9, 0, -1)]
    model = SimpleNamespace(readings={n: SimpleNamespace(answers=[f"q-{n}"]) for n in sorted(names)})
    finding = SimpleNamespace(readings=[f"{n}=other" for n in names])
    entry = FindingEvidence(id="f", title="t", cls="gap", finding=finding, results=[])
    assert finding_questions(entry, [model]) == [f"q-{n}" for n in names]


@pytest.mark.slow
def test_pages_and_traces_do_not_depend_on_string_hashing(tmp_path):
    """The same project checked under different hash seeds writes the same bytes."""
    outputs = []
    for seed in ("1", "2", "3"):
        work = tmp_path / seed
        shutil.copytree(os.path.join(HERE, "models"), work / "models")
        shutil.copytree(os.path.join(HERE, "properties"), work / "properties")
        env = {**os.environ, "PYTHONHASHSEED": seed, "PYTHONPATH": os.path.dirname(HERE)}
        run = subprocess.run([sys.executable, "-m", "checker.cli", "check", "--jobs", "1"], cwd=work, env=env, capture_output=True, text=True)
        assert run.returncode == 0, run.stdout + run.stderr
        outputs.append({p.relative_to(work).as_posix(): p.read_bytes() for folder in ("docs", "counterexamples") for p in (work / folder).rglob("*") if p.is_file()})
    assert outputs[0] and outputs[0] == outputs[1] == outputs[2]


HIDDEN = """\
- id: counter-too-small
  title: The counter could pass four with a longer board
  class: gap
  clauses: [c-1]
  scenario: With a board of five, Ann moves past four.
  proposed: "Say: the counter stops at four."
  properties: [small]
"""


def test_a_filed_finding_the_check_does_not_show_is_listed_apart_not_dropped(tmp_path):
    """A finding whose property holds at the checked bounds (one more card would show it, as with
    Show'n'Go's long Kick) keeps its place on the page, uncounted, with the verdict that hid it."""
    results = check_paths([project(tmp_path, FINDINGS + HIDDEN)], CheckOptions())
    text = errata_page("g", results)
    part = text.split("## Filed findings this check does not show", 1)[1].split("## Assumptions", 1)[0]
    assert "### The counter could pass four with a longer board" in part and '<a id="finding-counter-too-small"></a>' in part
    assert "**Scenario.** With a board of five, Ann moves past four." in part and "- `small`: holds in all 3 combinations" in part
    assert "The counter could pass four" not in findings_part(text).split("## Filed findings", 1)[0]  # not counted as shown
    assert "## Filed findings" not in errata_page("g", check_paths([project(tmp_path / "plain")], CheckOptions()))


def test_the_clause_index_gives_every_clause_its_state(tmp_path):
    """Formalised (a rule or property cites it), read, assumed, out of scope with its reason, or
    not handled: the page shows which, clause by clause, so no clause is settled silently."""
    model = MODEL.replace("clauses:\n", "assumptions:\n- {id: in-turn, clauses: [c-3], says: Players alternate., why: The text implies it.}\nclauses:\n") + (
        '  c-3: {at: "3", says: "Play in turn."}\n'
        '  c-4: {at: "4", says: "Enjoy the game.", status: out-of-scope, why: "advice, not a rule"}\n'
        '  c-5: {at: "5", says: "Keep score."}\n')
    path = write(tmp_path, model, "m.yaml", "g")
    (tmp_path / "properties").mkdir()
    (tmp_path / "properties" / "g.yaml").write_text("game: g\nproperties:\n" + textwrap.indent(PROPERTIES, "  "))
    appendix = errata_page("g", check_paths([path], CheckOptions())).split("## Appendix C: clause index", 1)[1]
    assert "5 clauses: 2 formalised, 2 read, 1 assumed, 1 out of scope, 1 not handled." in appendix
    assert "- <a id=\"c-1\"></a>`c-1` (1): formalised (rule `inc`, rule `wait`); read: `step`" in appendix
    assert "- <a id=\"c-2\"></a>`c-2` (2): formalised (rule `finish`, property `ann-last`); read: `extra`" in appendix
    assert "- <a id=\"c-3\"></a>`c-3` (3): assumed: `in-turn`" in appendix
    assert "- <a id=\"c-4\"></a>`c-4` (4): out of scope: advice, not a rule" in appendix
    assert "- <a id=\"c-5\"></a>`c-5` (5): **not handled**" in appendix


def test_model_text_on_the_page_is_text_not_html(tmp_path):
    """A clause quote, the game's name and an assumption come from the model's files: the page
    shows their characters, and a Markdown viewer that passes HTML through gets none of it."""
    from tests.conftest import MINI

    hostile = MINI.replace("game: Mini", 'game: "Mini </script><script>alert(1)</script>"')
    hostile += "assumptions:\n  - {id: a-1, clauses: [m-1], says: 'Take a card <img src=x onerror=alert(1)> &amp; go on.', why: 'The text is silent.'}\n"
    write(tmp_path, hostile)
    results = check_paths([str(tmp_path / "models")], CheckOptions())
    page = errata_page("game", results)
    outside_code = re.sub(r"`[^`]*`", "", page)
    assert "<img" not in outside_code and "<script" not in outside_code and "</script" not in outside_code
    assert "&lt;img src=x onerror=alert(1)> &amp;amp; go on" in page and "&lt;/script>" in page
    from checker.report.markdown_escape import escaped_page

    own = '<a id="finding-1"></a>\n<details>\n<summary>Evidence</summary>\n\n`n < 3` and `a & b`\n</details>\na<br>b'
    assert escaped_page(own) == own  # the page's own markup and code stay as they are


def test_the_main_page_is_the_findings_in_short_and_links_the_rest(results):
    """The page a designer reads: what was checked, the findings (one table, then each in
    short: what it does to the game, the text quoted once, scenario and wording, a short trace),
    the readings table, the questions and the assumptions; the rest is in the details page."""
    page = main_page("g", results)
    assert page.index("## Findings") < page.index("## Readings") < page.index("## Questions a careful reading raises") < page.index("## Assumptions")
    assert "[g-details.md](g-details.md)" in page and "## Appendix" not in page
    assert "| 2 | [Waiting lets Bob make the last move](#finding-waiting-changes-winner) | outcome-changing | Changes who wins: `ann-last` breaks (in 1 of 3 combinations) |" in page
    entry = page.split("### 2. Waiting lets Bob make the last move", 1)[1].split("### 3.", 1)[0]
    assert "**Changes who wins: `ann-last` breaks (in 1 of 3 combinations).** outcome-changing, ambiguity." in entry
    assert entry.count("\u201cAt four the game ends.\u201d") == 1
    assert "**Scenario.** Ann and Bob wait in turn" in entry and "<br>**Proposed wording** (not run: the finding gives it no `fix`). Say: a player may not wait." in entry
    assert "(g-details.md#finding-waiting-changes-winner)" in entry and "<details>" not in entry
    steps = [line for line in entry.splitlines() if re.match(r"\d+\. ", line)]
    assert steps[0].startswith("0. Start:") and len(steps) >= 2
    assert "nothing visible changes" not in page and "the model's assumption" not in page and "\u201d;" not in "".join(steps)
    assert "| [`extra`](g-details.md#extra) | May a player wait? |" in page  # each reading once, with what its options do


def test_a_long_trace_shows_the_steps_that_make_the_point_and_folds_the_rest():
    from checker.report.short_trace import MAX_STEPS, short_trace

    def step(i: int, element: str = "x", clause: str = "c-1") -> dict:
        return {"action": "a", "by": "rules", "params": {}, "text": f"move {i}", "clauses": [{"id": clause, "at": "1", "says": "s"}],
                "changes": [{"element": element, "before": i, "after": i + 1}], "assumptions": [{"id": "a-1", "says": "pasted"}]}

    doc = {"steps": [step(i, "y" if i != 7 else "x", "c-9" if i != 3 else "c-2") for i in range(30)], "initial": {"x": 0, "y": 0},
           "display": {"slots": {"x": {"label": "the counter"}, "y": {"label": "the other"}}}, "loop_start": None}
    lines = short_trace(doc, {"x"}, {"c-2"}, lambda c: f"[{c}]", lambda a: f"<{a}>")
    shown = [line for line in lines if re.match(r"\d+\. ", line)]
    numbers = [int(line.split(".", 1)[0]) for line in shown[1:]]
    assert len(numbers) <= MAX_STEPS and numbers[-3:] == [28, 29, 30]  # the steps before the violation
    assert 4 in numbers and 8 in numbers  # the step citing the finding's clause, the one changing what the property reads
    assert any("ordinary steps" in line for line in lines) and "pasted" not in "\n".join(lines)
    assert "8. move 7: the counter 7\u21928 ([c-9], <a-1>)" in lines


def test_the_details_page_gives_every_step_of_a_trace_in_one_paragraph():
    """Every step numbered, its assumptions linked by name (their texts are in the page's list),
    then the loop and the disagreeing forced rules; a trace of no step says so."""
    from checker.report.short_trace import play_in_one_line

    steps = [{"text": "Ann draws", "assumptions": [{"id": "a-1", "says": "pasted"}]}, {"text": "Bob passes"}]
    doc = {"steps": steps, "loop_start": 1, "branches": [{"text": "Ann wins"}, {"text": "Bob wins"}], "outcome": "stuck",
           "display": {"names": {"outcome": {"stuck": "nobody"}}}}
    line = play_in_one_line(doc, lambda a: f"<{a}>")
    assert line == ("(1) Ann draws (the model's assumption <a-1>). (2) Bob passes. From the position after step 1 the play repeats for ever. "
                    "The forced rules that disagree there: Ann wins; Bob wins. Outcome: nobody.")  # the outcome by its display name
    assert play_in_one_line({"steps": []}, str) == "(no step: the start position shows it)"


def test_the_trace_shown_is_the_one_the_scenario_tells(tmp_path):
    """`evidence:` picks the claimed failure the scenario speaks of (not the shortest), and
    `shows:` names the actions that play must take: a trace that does not take them is an error
    when the page is written, not evidence."""
    findings = FINDINGS.replace("  properties: [ann-last]\n", "  properties: [ann-last]\n  shows: [wait]\n")
    findings += "- {id: passes-under-two, title: Two steps pass three, class: contradiction, scenario: Ann moves two and Bob two., proposed: Say it., properties: [below3], evidence: {readings: {step: two}}}\n"
    results = check_paths([project(tmp_path, findings)], CheckOptions())
    entries = {e.id: e for e in group_findings(results, load_games([str(tmp_path / "models" / "g")])[0].findings)}
    chosen = entries["passes-under-two"].shown
    assert chosen is not None and chosen.config.readings["step"] == "two"
    assert {r.reading_label for r in entries["passes-under-two"].results} != {"step=two"}  # chosen among several
    main_page("g", results)  # the waiting finding's trace takes `wait`
    broken = FINDINGS.replace("  properties: [ann-last]\n", "  properties: [ann-last]\n  shows: [finish, inc]\n").replace("scenario: Ann moves, Bob moves", "scenario: Ann moves, Bob moves")
    results = check_paths([project(tmp_path / "b", broken.replace("properties: [below3]", "properties: [below3]\n  shows: [wait]"))], CheckOptions())
    with pytest.raises(RulecheckError, match="never takes"):
        main_page("g", results)


def test_a_findings_evidence_is_shown_under_the_defaults_among_equally_short_traces():
    """Ties between equally short traces go to the one under the fewest changed readings, not to
    the reading label that sorts first (`battle_last=...` before `default`): a finding that shows
    under the defaults is not shown under an unrelated reading."""
    from types import SimpleNamespace as Fake

    from checker.report.findings import evidence_order

    model = Fake(id="m", readings={"battle_last": Fake(default="belt_taken")})

    def result(option: str, steps: int) -> Fake:
        label = "default" if option == "belt_taken" else f"battle_last={option}"
        return Fake(model=model, config=Fake(readings={"battle_last": option}), trace=Fake(steps=[None] * steps), reading_label=label)

    default, other = result("belt_taken", 2), result("vacated", 2)
    assert min([other, default], key=evidence_order) is default
    shorter = result("vacated", 1)
    assert min([default, shorter], key=evidence_order) is shorter  # the shortest first, as before
