"""What the committed evidence of the bundled games claims, checked against itself and the models
(issue 14's audit): every saved can-end trace ends where the game can no longer end, re-explored
in the reference interpreter; no finding a growth re-check shows vanishing is published as a
defect; every reading option on a page has a divergence scenario or says why it is moot; every
filed finding has its place on its page.

These read `counterexamples/` and `docs/errata/` as committed (the integrator regenerates them),
so they fail when a regeneration publishes what the checks here forbid; the generator's own
behaviour is tested on small games in tests/test_errata.py, test_growth.py and
test_reading_growth.py.
"""

from __future__ import annotations

import glob
import json
import os
import re

import pytest

from checker.commands.trace_io import load_trace
from checker.evidence.findings import load_findings
from checker.evidence.trace import config_from_json, states_from_json
from checker.lang.build import load_model
from checker.lang.interp import Interpreter, freeze

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GAMES = sorted(os.path.basename(p) for p in glob.glob(os.path.join(ROOT, "models", "*")) if os.path.isdir(p))
# A saved can-end trace whose dead end is larger than this is left to the engines that found it:
# the interpreter re-explores about 1,000 states a second, and the Fatal Four Way Elimination's
# dead ends (about 30,000 states) would take minutes; the Birdcage's, which once were the
# pre-draft state (`all()` over nobody in the ring), are about 1,500.
MAX_DEAD_END = 3_000


def _can_end_traces() -> list[tuple[str, dict, int]]:
    out = []
    for path in sorted(glob.glob(os.path.join(ROOT, "counterexamples", "*", "*.json"))):
        with open(path, encoding="utf-8") as handle:
            doc = json.load(handle)
        trace = doc.get("trace") if isinstance(doc, dict) else None
        if not trace or trace["property"]["kind"] != "can-end":
            continue
        if "no rule applies there and the game is not over" in trace["note"]:  # a stuck state: a dead end of one state
            out.append((path, trace, 1))
            continue
        claimed = re.search(r"the ([\d,]+) state\(s\) reachable from it", trace["note"])
        assert claimed, f"{path}: the note does not say how many states the dead end has: {trace['note']}"
        out.append((path, trace, int(claimed.group(1).replace(",", ""))))
    return out


CAN_END = _can_end_traces()


def test_the_bundled_can_end_traces_are_found():
    """The check below is not vacuous: Supershow's no-dead-match traces, among others, are here."""
    assert sum("no-dead-match" in path for path, _, _ in CAN_END) >= 10
    assert sum(size <= MAX_DEAD_END for _, _, size in CAN_END) >= 10


@pytest.mark.parametrize("path", [p for p, _, size in CAN_END if size <= MAX_DEAD_END], ids=lambda p: os.path.relpath(p, ROOT))
@pytest.mark.slow
def test_a_saved_can_end_trace_ends_where_the_game_can_no_longer_end(path):
    """From the trace's last state the interpreter reaches exactly the states the note counts, none
    of them terminal (a stuck state, with no move at all, is a dead end too)."""
    trace = load_trace(path)
    game = os.path.basename(os.path.dirname(path))
    model = load_model(os.path.join(ROOT, "models", game, trace["model"] + ".yaml"))
    interp = Interpreter(model, config_from_json(model, trace))
    last = states_from_json(model, trace)[-1]
    seen, todo = {freeze(last)}, [last]
    while todo:
        state = todo.pop()
        assert not interp.terminal(state), f"{path}: a terminal state is reachable from the last state"
        for move in interp.transitions(state):
            key = freeze(move.post)
            if key not in seen:
                seen.add(key)
                todo.append(move.post)
        assert len(seen) <= MAX_DEAD_END, f"{path}: more states reachable than the note says"
    size = next(s for p, _, s in CAN_END if p == path)
    assert len(seen) == size, f"{path}: {len(seen)} states reachable from the last state, the note says {size}"


def _page(game: str) -> str:
    """The details page: every finding in full, the readings' analysis, the appendices."""
    with open(os.path.join(ROOT, "docs", "errata", f"{game}-details.md"), encoding="utf-8") as handle:
        return handle.read()


@pytest.mark.parametrize("game", GAMES)
def test_no_published_finding_is_one_the_growth_recheck_shows_vanishing(game):
    """A finding that vanishes with a bound one step larger is a bound artefact: the page lists it
    among the failures that are not defects of the text, never among the findings. Every finding
    carries its re-check's outcome, so one that was not decided says so."""
    defects = _page(game).split("\n## Findings\n", 1)[1].split("\n## Failures that are not defects", 1)[0].split("\n## Filed findings", 1)[0].split("\n## Assumptions\n", 1)[0]
    entries = re.split(r"\n(?=### \d+\. )", defects)[1:]
    growth = re.findall(r"^\*\*Growth re-check\*\* \(the model's bounds one step larger\): (.*)$", defects, flags=re.M)
    assert len(growth) == len(entries), [e.splitlines()[0] for e in entries if "**Growth re-check**" not in e]
    assert not [line for line in growth if line.startswith("vanishes")]


@pytest.mark.parametrize("game", GAMES)
def test_every_reading_option_has_a_divergence_scenario_or_says_why_it_is_moot(game):
    """A reading is a finding's raw material: a designer needs the concrete play where the options
    part ways, or the reason (and bound) why the checked models show none."""
    readings = _page(game).split("\n## Readings\n", 1)[1].split("\n## Appendix A", 1)[0]
    blocks = re.split(r"\n(?=### `)", readings)[1:]
    assert blocks, f"{game}: no reading on the page"
    for block in blocks:
        name = block.split("`")[1]
        options = re.split(r"\n(?=\*\*`)", block)[1:]
        assert options, f"{game}: reading `{name}` shows no option"
        for option in options:
            if "*Divergence scenario*" in option:
                continue
            verdicts = [line for line in option.splitlines() if line.startswith("- ")]
            assert verdicts, f"{game}: {option.splitlines()[0]} has neither a divergence scenario nor a verdict"
            for line in verdicts:
                if "of the readings that gate it: still moot" in line:  # the moot option re-checked beside its gating readings
                    continue
                if line.startswith("- At the document's size"):  # the option played at the document's size: evidence beside the verdict
                    continue
                stopped = re.search(r"state budget of [\d,]+ reached: [\d,]+ states to depth \d+", line)  # moot within a search's stated bound
                assert "**moot" in line and ("no reachable state of the" in line or "no expression or `only` of the model consults" in line or stopped), (
                    f"{game}: {option.splitlines()[0]}: no divergence scenario, and this line does not say why: {line[:200]}")


@pytest.mark.parametrize("game", GAMES)
def test_every_filed_finding_has_its_place_on_its_page(game):
    """Nothing filed is dropped: a finding is among the findings, the failures that are not
    defects, or the filed findings the check does not show (Show'n'Go's long Kick, which one more
    card shows, was once missing altogether)."""
    page = _page(game)
    missing = [f.id for f in load_findings(os.path.join(ROOT, "properties", f"{game}.yaml")) if f'<a id="finding-{f.id.lower()}"></a>' not in page]
    assert not missing


@pytest.mark.parametrize("game", GAMES)
def test_the_main_page_reads_in_ten_minutes(game):
    """Each game's main page: under 500 lines, no step that changes nothing shown, no assumption
    text pasted into a step (assumptions are cited by name and listed once), and the details
    page beside it."""
    with open(os.path.join(ROOT, "docs", "errata", f"{game}.md"), encoding="utf-8") as handle:
        page = handle.read()
    assert len(page.splitlines()) < 500
    assert "nothing visible changes" not in page and "the model's assumption" not in page
    assert os.path.isfile(os.path.join(ROOT, "docs", "errata", f"{game}-details.md")) and f"({game}-details.md" in page


@pytest.mark.parametrize("game", GAMES)
def test_the_details_pages_full_traces_show_what_decides_each_step(game):
    """The full traces of the details page: no step that shows nothing (a step that changes
    nothing shown prints what decided it, bookkeeping runs are one line), and no assumption's
    text pasted into a step (cited by name, linked to the page's list)."""
    with open(os.path.join(ROOT, "docs", "errata", f"{game}-details.md"), encoding="utf-8") as handle:
        page = handle.read()
    assert "nothing visible changes" not in page and ", not the text: " not in page
    cited = _cited_assumptions(page)
    assert all(name == anchor and f'<a id="assumption-{anchor}"></a>' in page for name, anchor in cited)


def _cited_assumptions(page: str) -> set[tuple[str, str]]:
    return set(re.findall(r"the model's assumption \[`([^`]+)`\]\(#assumption-([^)]+)\)", page))


def test_the_traces_cite_assumptions_by_linked_name():
    """Most games' traces rest on assumptions (SMS's actions name none): they are cited so."""
    pages = {game: open(os.path.join(ROOT, "docs", "errata", f"{game}-details.md"), encoding="utf-8").read() for game in GAMES}
    assert sum(1 for page in pages.values() if _cited_assumptions(page)) >= 3


def test_a_reading_option_says_each_line_once_naming_every_model_it_holds_for():
    """The per-model lines of an option: a line said of several models is printed once with all
    of them (Supershow's `solo_co` is moot in `handicap` and `tag-team-3` alike), never twice."""
    grouped = 0
    for game in GAMES:
        readings = _page(game).split("\n## Readings\n", 1)[1].split("\n## Appendix A", 1)[0]
        for option in re.split(r"\n(?=\*\*`)", readings)[1:]:
            said = [m.group(2) for m in re.finditer(r"^- in ((?:`[^`]+`(?:, )?)+): (\*\*.*)$", option, flags=re.M)]
            assert len(said) == len(set(said)), f"{game}: {option.splitlines()[0]} says a line twice"
            grouped += len(re.findall(r"^- in `[^`]+`, `", option, flags=re.M))
    assert grouped > 0
