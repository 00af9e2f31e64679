"""The HTML report in a real browser: the system's Chromium (Debian's `chromium`, never a browser
downloaded at run time), headless, driven by Selenium through the system's `chromedriver`.

The trace player is stepped with real key presses and what it shows is read back as rendered:
the position, the values, the highlighted ones (their computed background), the current step of
the list and the ringed state of the state graph. A screenshot of each page type is checked for
structure, not pixels: the page's blocks in the expected order, each below the one before and
inside the page's column, the screenshot as large as the page, ink in every block's box and none
in the margin. The print style sheet is checked under emulated print media.

Skipped, saying what is missing, where Chromium, chromedriver, selenium or Pillow is not
installed (`.ci/run` installs the browser with apt-get where it may; the test extra has the
Python packages)."""

from __future__ import annotations

import base64
import io
import json
import shutil
from pathlib import Path

import pytest

from checker.pipeline.html import write_report
from checker.pipeline.runner import CheckOptions, check_paths
from checker.report.html.player import shown_states
from tests.conftest import write
from tests.test_html_report import LOOPING, parse

HERE = Path(__file__).parent
BROWSERS = ("chromium", "chromium-browser", "google-chrome")
WIDTH, HEIGHT = 1200, 900
HIGHLIGHT = "rgb(255, 241, 168)"  # --hi in the page's style sheet


def _browser() -> str | None:
    return next((found for name in BROWSERS if (found := shutil.which(name))), None)


def _missing() -> str | None:
    try:
        import PIL  # noqa: F401
        import selenium  # noqa: F401
    except ImportError as exc:
        return f"the Python package {exc.name} is not installed (pip install -e '.[test]')"
    if _browser() is None:
        return "no Chromium on PATH (Debian: apt-get install chromium chromium-driver)"
    if shutil.which("chromedriver") is None:
        return "no chromedriver on PATH (Debian: apt-get install chromium-driver)"
    return None


pytestmark = [pytest.mark.slow,  # a browser start and a report build per fixture
              pytest.mark.skipif(_missing() is not None, reason=f"browser tests need the system's Chromium: {_missing()}")]


@pytest.fixture(scope="module")
def driver():
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = _browser()
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--hide-scrollbars",
                     f"--window-size={WIDTH},{HEIGHT}", "--force-device-scale-factor=1"):
        options.add_argument(argument)
    # Both paths given: Selenium uses them as they are and never fetches a driver or a browser.
    browser = webdriver.Chrome(service=Service(shutil.which("chromedriver")), options=options)
    browser.set_page_load_timeout(30)
    yield browser
    browser.quit()


@pytest.fixture(scope="module")
def duel_site(tmp_path_factory) -> Path:
    """The test project's duel with a deck small enough (40 states) for the state graph, and its
    finding under tie=defender."""
    root = tmp_path_factory.mktemp("duel")
    shutil.copytree(HERE / "models", root / "models")
    shutil.copytree(HERE / "properties", root / "properties")
    results = check_paths([str(root / "models")], CheckOptions(constants={"low_cards": "0", "high_cards": "4"}))
    write_report(results, str(root / "site"))
    return root / "site"


@pytest.fixture(scope="module")
def lasso_site(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("lasso")
    write(root, LOOPING, "mini.yaml")
    (root / "properties").mkdir()
    (root / "properties" / "game.yaml").write_text("properties:\n  - {id: ends, kind: terminates, expect: fails}\n")
    write_report(check_paths([str(root / "models")], CheckOptions()), str(root / "site"))
    return root / "site"


LOOK = """
const player = document.querySelector('.player');
const cells = [...player.querySelectorAll('.state td.changed')];
const ringed = player.querySelector('.state-graph .sg-node.current');
return {
  where: player.querySelector('.view .where').textContent,
  values: Object.fromEntries([...player.querySelectorAll('.state tr[data-el]')].map(tr => [tr.dataset.el, tr.querySelector('td').textContent])),
  changed: cells.map(td => td.parentElement.dataset.el),
  backgrounds: cells.map(td => getComputedStyle(td).backgroundColor),
  current: [...player.querySelectorAll('.steps > li')].findIndex(li => li.classList.contains('current')),
  loop: !!player.querySelector('.view .loop-note'),
  ringed: ringed ? ringed.getAttribute('data-at').split(' ').map(Number) : null,
  ring: ringed ? getComputedStyle(ringed.querySelector('circle, rect')).strokeWidth : null,
  edge: [...player.querySelectorAll('.state-graph .sg-edge.current')].map(g => g.getAttribute('data-steps')),
  focused: document.activeElement === player,
};
"""


def _open(driver, page: Path) -> dict:
    """Load a page; returns its first player's data, as the page holds it."""
    driver.get(page.as_uri())
    return json.loads(next(iter(parse(page.read_text(encoding="utf-8")).data.values())))


def _press(driver, keys: list[str], focus_player: bool = True) -> list[dict]:
    """Real key presses (through the browser's input pipeline) to the focused element; what the
    first player shows before and after each."""
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.keys import Keys

    if focus_player:
        driver.execute_script("document.querySelector('.player').focus()")
    seen = [driver.execute_script(LOOK)]
    for key in keys:
        ActionChains(driver).send_keys(getattr(Keys, key, key)).perform()
        seen.append(driver.execute_script(LOOK))
    return seen


def test_keys_step_the_player_and_highlight_what_changed(driver, duel_site):
    data = _open(driver, duel_site / "duel.html")
    n, states = len(data["steps"]), shown_states(data)
    seen = _press(driver, ["ARROW_RIGHT", "ARROW_RIGHT", "ARROW_LEFT", "END", "HOME", "j", "j", "k"])
    assert seen[0]["focused"]
    for shown, at in zip(seen, [0, 1, 2, 1, n, 0, 1, 2, 1]):
        assert shown["where"] == (f"Step {at} of {n}" if at else f"Start (step 0 of {n})"), shown
        assert shown["values"] == states[at]
        changed = sorted({c[0] for c in data["steps"][at - 1]["changes"]}) if at else []
        assert sorted(shown["changed"]) == changed and (not at or changed)  # every step of the duel changes something
        assert shown["backgrounds"] == [HIGHLIGHT] * len(changed)  # highlighted as rendered, not only classed
        assert shown["current"] == at - 1 and not shown["loop"]
        assert shown["ringed"] is not None and at in shown["ringed"] and float(shown["ring"].rstrip("px")) >= 3  # the graph rings where play is
        assert [int(s) for steps in shown["edge"] for s in steps.split()].count(at) == (1 if at else 0)  # and marks the move that got there


def test_a_lasso_goes_round_its_loop(driver, lasso_site):
    data = _open(driver, lasso_site / "game.html")
    n, loop = len(data["steps"]), data["loop_start"]
    assert loop is not None
    _, end, again = _press(driver, ["END", "ARROW_RIGHT"])
    assert end["where"] == f"Step {n} of {n}" and end["loop"] and end["values"] == shown_states(data)[loop]
    assert again["where"] == f"Step {loop + 1} of {n}" and not again["loop"]
    assert loop in end["ringed"] and n in end["ringed"]  # the loop ends on the state where it began


def test_n_focuses_the_next_findings_player(driver, duel_site):
    _open(driver, duel_site / "duel.html")
    before, after = _press(driver, ["n"], focus_player=False)
    assert not before["focused"] and after["focused"]
    top, bottom = driver.execute_script("const r = document.activeElement.getBoundingClientRect(); return [r.top, r.bottom];")
    assert top < HEIGHT and bottom > 0  # scrolled to it


OUTLINE = """
const body = document.body, style = getComputedStyle(body);
const blocks = [...body.children].filter(e => e.tagName !== 'SCRIPT' && getComputedStyle(e).display !== 'none').map(e => {
  const r = e.getBoundingClientRect();
  return {tag: e.tagName.toLowerCase() + (e.classList.length ? '.' + e.classList[0] : ''), x: r.left, y: r.top + scrollY, w: r.width, h: r.height};
});
const r = body.getBoundingClientRect();
return {blocks, left: r.left + parseFloat(style.paddingLeft), right: r.right - parseFloat(style.paddingRight),
        width: document.documentElement.scrollWidth, height: document.documentElement.scrollHeight};
"""

# The page types and the outline of their blocks (what a designer sees, top to bottom).
PAGES = {
    "index.html": ["h1", "table"],
    "duel.html": ["p.no-print", "h1", "p", "h2", "ol", "section.finding", "h2", "table", "h2", "p", "table", "h2", "h3", "svg", "p.muted"],  # results, clause index, phases
}


@pytest.mark.parametrize("name", sorted(PAGES))
def test_each_page_types_screenshot_has_its_structure(driver, duel_site, name):
    from PIL import Image, ImageChops

    driver.get((duel_site / name).as_uri())
    outline = driver.execute_script(OUTLINE)
    assert [b["tag"] for b in outline["blocks"]] == PAGES[name]
    assert outline["width"] <= WIDTH  # nothing wider than the window
    for above, below in zip(outline["blocks"], outline["blocks"][1:]):
        assert below["y"] >= above["y"] + above["h"] - 1, (above, below)  # stacked, none over another
    for block in outline["blocks"]:
        assert block["w"] > 0 and block["h"] > 0 and outline["left"] - 1 <= block["x"] and block["x"] + block["w"] <= outline["right"] + 1, block
    shot = driver.execute_cdp_cmd("Page.captureScreenshot", {"format": "png", "captureBeyondViewport": True,
                                                              "clip": {"x": 0, "y": 0, "width": WIDTH, "height": outline["height"], "scale": 1}})
    image = Image.open(io.BytesIO(base64.b64decode(shot["data"]))).convert("RGB")
    assert image.size == (WIDTH, outline["height"])

    def ink(box: tuple[float, float, float, float]) -> bool:
        region = image.crop(tuple(round(v) for v in box))
        return ImageChops.difference(region, Image.new("RGB", region.size, "white")).getbbox() is not None

    for block in outline["blocks"]:
        assert ink((block["x"], block["y"], block["x"] + block["w"], block["y"] + block["h"])), block  # every block shows something
    assert not ink((0, 0, outline["left"] - 2, outline["height"]))  # the left margin is blank
    if name == "duel.html":
        graph = driver.execute_script("const r = document.querySelector('.state-graph').getBoundingClientRect(); return [r.left, r.top + scrollY, r.right, r.bottom + scrollY];")
        assert graph[2] - graph[0] > 300 and ink(tuple(graph))  # the state graph is drawn, at a readable size


def test_print_keeps_every_step_and_drops_the_buttons(driver, duel_site):
    data = _open(driver, duel_site / "duel.html")
    driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"media": "print"})
    try:
        shown = driver.execute_script("""
          const player = document.querySelector('.player'), visible = e => e.getClientRects().length > 0;
          return {controls: [...player.querySelectorAll('.controls')].some(visible),
                  steps: [...player.querySelectorAll('.steps > li')].filter(visible).length,
                  back: [...document.querySelectorAll('.no-print')].some(visible)};""")
    finally:
        driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"media": ""})
    assert not shown["controls"] and not shown["back"] and shown["steps"] == len(data["steps"])
