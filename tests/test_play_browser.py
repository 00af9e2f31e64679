"""`rulecheck play` in a real browser (the system's Chromium, headless, through Selenium, as the
report's browser tests): a bundled game played from the start into one of its findings by
clicking the moves, undone and redone; and a report's trace player opening its position in the
server at the step it shows.

Skipped, saying what is missing, where Chromium, chromedriver or selenium is not installed."""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator
from http.server import HTTPServer
from threading import Thread

import pytest

from checker.commands.play import handler_for
from checker.commands.trace_io import load_trace
from tests.test_html_browser import _missing, driver, duel_site  # noqa: F401 - the browser and the duel's site, shared
from tests.test_play import play_game

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# Ultimate's "no winner" finding: under `bust_who=anyone` both players go bust together and the
# game ends with nobody named (`finished-game-has-winner` breaks), five moves from the start.
FINDING_TRACE = os.path.join(ROOT, "counterexamples", "ultimate", "finished-game-has-winner.b40c5172bac1.json")

pytestmark = [pytest.mark.slow,  # a browser start per module
              pytest.mark.skipif(_missing() is not None, reason=f"browser tests need the system's Chromium: {_missing()}")]


def _serve(paths: list[str]) -> Iterator[str]:
    httpd = HTTPServer(("127.0.0.1", 0), handler_for(play_game(paths)))
    Thread(target=httpd.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


@pytest.fixture(scope="module")
def ultimate() -> Iterator[str]:
    yield from _serve([os.path.join(ROOT, "models", "ultimate", "two-player.yaml")])


@pytest.fixture(scope="module")
def duel(duel_site) -> Iterator[str]:  # noqa: F811 - the shared fixture
    yield from _serve([str(duel_site.parent / "models")])


def _wait(driver, condition, seconds: float = 30.0):  # noqa: F811
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        found = driver.execute_script(condition)
        if found:
            return found
        time.sleep(0.1)
    raise AssertionError(f"the page never showed: {condition}")


def _settled(driver, steps: int):  # noqa: F811
    """Wait until the page shows the position after `steps` moves."""
    want = "Start" if steps == 0 else f"After step {steps}"
    _wait(driver, f"return document.getElementById('status').textContent.indexOf({json.dumps(want)}) === 0 && document.querySelectorAll('#history li').length === {steps}")


def _click_move(driver, text: str) -> None:  # noqa: F811
    from selenium.webdriver.common.by import By

    buttons = [b for b in driver.find_elements(By.CSS_SELECTOR, "button.move") if text in b.find_element(By.CSS_SELECTOR, ".text").text]
    assert len(buttons) == 1, f"{len(buttons)} moves read {text!r}: {[b.text for b in driver.find_elements(By.CSS_SELECTOR, 'button.move')]}"
    buttons[0].click()


def _breaks(driver) -> dict[str, str]:  # noqa: F811
    return driver.execute_script("return Object.fromEntries([...document.querySelectorAll('#watched li[data-property]')].map(li => [li.dataset.property, li.className]))")


def test_a_bundled_game_is_played_by_clicks_into_its_finding(driver, ultimate):  # noqa: F811
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    driver.get(ultimate + "/")
    _settled(driver, 0)
    Select(driver.find_element(By.CSS_SELECTOR, "select[data-reading=bust_who]")).select_by_value("anyone")
    _wait(driver, "return location.search.indexOf('r.bust_who=anyone') >= 0")
    _settled(driver, 0)
    steps = load_trace(FINDING_TRACE)["steps"]
    for number, step in enumerate(steps, start=1):
        assert "finished-game-has-winner" not in _breaks(driver) or _breaks(driver)["finished-game-has-winner"] != "breaks"
        _click_move(driver, step["text"])
        _settled(driver, number)
    assert "the game is over" in driver.find_element(By.ID, "status").text
    assert _breaks(driver)["finished-game-has-winner"] == "breaks"
    history = [li.text for li in driver.find_elements(By.CSS_SELECTOR, "#history li")]
    assert [h.split(": ", 1)[1] for h in history] == [s["text"] for s in steps]
    driver.find_element(By.ID, "undo").click()
    _settled(driver, len(steps) - 1)
    assert _breaks(driver).get("finished-game-has-winner") != "breaks"
    offered = driver.execute_script("return [...document.querySelectorAll('button.move')].map(b => [b.querySelector('.text').textContent, (b.querySelector('.cites') || {}).textContent || ''])")
    cites = dict(offered)[steps[-1]["text"]]  # the undone move is offered again, citing what its step cites
    assert [part.split(" (")[0] for part in cites.split("; ") if part] == [c["id"] for c in steps[-1]["clauses"]]
    driver.find_element(By.ID, "redo").click()
    _settled(driver, len(steps))
    assert _breaks(driver)["finished-game-has-winner"] == "breaks"
    driver.refresh()  # the address is the position
    _settled(driver, len(steps))
    assert _breaks(driver)["finished-game-has-winner"] == "breaks"


def test_a_reports_trace_player_opens_its_step_in_the_server(driver, duel_site, duel):  # noqa: F811
    from selenium.webdriver.common.by import By

    page = duel_site / "duel.html"
    driver.get(page.as_uri())
    player = driver.find_element(By.CSS_SELECTOR, ".player")
    driver.execute_script("arguments[0].focus()", player)
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.keys import Keys

    ActionChains(driver).send_keys(Keys.ARROW_RIGHT).send_keys(Keys.ARROW_RIGHT).perform()
    form = player.find_element(By.CSS_SELECTOR, "form.play-from")
    assert form.find_element(By.CSS_SELECTOR, "input[name=step]").get_attribute("value") == "2"
    assert form.get_attribute("action") == "http://127.0.0.1:8765/from-trace"  # the server's default address
    driver.execute_script("arguments[0].action = arguments[1]", form, duel + "/from-trace")  # this test's server
    before = set(driver.window_handles)
    form.find_element(By.CSS_SELECTOR, "button").click()
    end = time.monotonic() + 30
    while set(driver.window_handles) == before and time.monotonic() < end:
        time.sleep(0.1)
    (opened,) = set(driver.window_handles) - before
    driver.switch_to.window(opened)
    try:
        _settled(driver, 2)
        assert driver.current_url.startswith(duel + "/?")
    finally:
        driver.close()
        driver.switch_to.window(next(iter(before)))


def test_a_small_games_position_is_played_from_the_report_without_a_server(driver, duel_site):  # noqa: F811
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    driver.get((duel_site / "duel.html").as_uri())
    player = driver.find_element(By.CSS_SELECTOR, ".player")
    driver.execute_script("arguments[0].focus()", player)
    ActionChains(driver).send_keys(Keys.ARROW_RIGHT).send_keys(Keys.ARROW_RIGHT).perform()
    link = player.find_element(By.CSS_SELECTOR, "a.play-offline").get_attribute("href")
    assert link.startswith("file://") and "-play-" in link  # a page beside the report, opened from the disk
    steps = [li.text for li in player.find_elements(By.CSS_SELECTOR, ".steps > li")]
    driver.get(link)
    _settled(driver, 2)
    history = [li.text.split(": ", 1)[1] for li in driver.find_elements(By.CSS_SELECTOR, "#history li")]
    assert [step.startswith(text) for step, text in zip(steps, history)] == [True, True]
    moves = driver.find_elements(By.CSS_SELECTOR, "button.move")
    assert moves
    moves[0].click()
    _settled(driver, 3)
    driver.find_element(By.ID, "undo").click()
    _settled(driver, 2)
    assert driver.find_element(By.CSS_SELECTOR, "select[data-reading]").get_attribute("disabled")  # one reading per page offline
