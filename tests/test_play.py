"""`rulecheck play`: positions named by their moves and replayed in the interpreter, the legal
moves with their clauses and chances, the properties a position breaks, readings that cut a play
short or part at a position, perfect play suggested, a trace opened at any step, and a server
that answers only loopback requests addressed to a loopback name and stops on Ctrl-C."""

from __future__ import annotations

import http.client
import json
import os
import signal
import subprocess
import sys
import time
from urllib.parse import parse_qs, urlencode, urlsplit

import pytest

from checker.commands.play import handler_for
from checker.commands.trace_io import load_trace
from checker.errors import RulecheckError
from checker.evidence.play import PlayGame, Request, request_from_trace
from checker.pipeline.runner import load_games
from tests.symbolic_support import write_game
from tests.test_can_end_value import NIM

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Ann and Bob toss a coin in turn, heads three times in four; heads scores, and under
# `tails=scores_too` tails scores as well. Two points win.
COIN = """\
game: Coin
id: coin
players: [ann, bob]
domains:
  face: [heads, tails]
readings:
  tails:
    clause: c-1
    question: Does tails score as well?
    options: {scores_nothing: only heads scores, scores_too: both faces score}
    default: scores_nothing
state:
  score: {type: "int[0..2]", of: player}
  turn: player
  tossed: bool
  winner: [none, ann_wins, bob_wins]
init: {score: 0, turn: ann, tossed: false, winner: none}
terminal: "winner != none"
outcome: winner
actions:
  toss:
    by: chance
    for: {f: face}
    when: "not tossed and winner == none"
    weight: "3 if f == heads else 1"
    do:
      "score[turn]": "score[turn] + 1 if f == heads or reading.tails == scores_too else score[turn]"
      tossed: true
    rule: c-1
  pass:
    by: turn
    when: "tossed and winner == none"
    do: {turn: succ(turn), tossed: false}
    rule: c-2
  crown:
    by: rules
    when: "winner == none and (score[ann] == 2 or score[bob] == 2)"
    do: {winner: "ann_wins if score[ann] == 2 else bob_wins"}
    rule: c-3
clauses:
  c-1: {at: "1", says: "Toss the coin: heads scores a point."}
  c-2: {at: "2", says: "Then pass the coin."}
  c-3: {at: "3", says: "Two points win."}
"""
COIN_PROPERTIES = """\
- {id: bob-never-scores, kind: invariant, says: Bob never scores., expr: "score[bob] == 0", clauses: [c-1], expect: fails}
- {id: ann-can-win, kind: reachable, says: Ann can win., expr: "winner == ann_wins", clauses: [c-3]}
- {id: a-pass-hands-over, kind: after, action: pass, says: A pass hands the coin over., expr: "turn != old(turn)", clauses: [c-2]}
- {id: tails-scores-nothing, kind: after, action: toss, says: Tails scores nothing., expr: "f == heads or score[turn] == old(score[turn])", clauses: [c-1], expect: {default: holds, tails=scores_too: fails}}
"""


def play_game(paths: list[str]) -> PlayGame:
    """The game `rulecheck play` serves for these paths."""
    game = load_games(paths)[0]
    return PlayGame(game.folder, game.models, game.suite)


@pytest.fixture
def coin(tmp_path) -> PlayGame:
    return play_game([write_game(str(tmp_path), "coin", COIN, COIN_PROPERTIES)])


def key(action: str, **params: object) -> str:
    return json.dumps([action, params], sort_keys=True, separators=(",", ":"))


def watched(position: dict) -> dict[str, dict]:
    """What the page lists of a position's properties, worked out from the answer as the page's
    script does (a property shown by a state or a step of the play, `now` when by the last, or a
    return to an earlier position): the script's rule restated to test the data it reads."""
    out = {}
    last = len(position["shows"]) - 1
    for prop in position["properties"]:
        pid, kind = prop["id"], prop["kind"]
        if kind == "after":
            hits = [i + 1 for i, h in enumerate(position["history"]) if pid in h["after"]]
            now = bool(hits) and hits[-1] == last
        elif kind == "terminates":
            hits = [earlier for i, earlier in enumerate(position["same_as"]) if earlier != i][:1]
            now = bool(hits)
        else:
            hits = [i for i, shown in enumerate(position["shows"]) if pid in shown]
            now = pid in position["shows"][last]
        out[pid] = {"status": ("reached" if kind == "reachable" else "breaks") if hits else "", "step": hits[0] if hits else None, "now": now}
    return out


def test_a_position_offers_every_legal_move_with_its_clauses_and_chance(coin):
    start = coin.position(Request("coin"))
    assert start["history"] == [] and not start["terminal"]
    moves = {m["key"]: m for m in start["moves"]}
    assert set(moves) == {key("toss", f="heads"), key("toss", f="tails")}
    heads = moves[key("toss", f="heads")]
    assert heads["by"] == "Chance" and heads["probability"] == pytest.approx(0.75)
    assert moves[key("toss", f="tails")]["probability"] == pytest.approx(0.25)
    assert heads["clauses"] == [{"id": "c-1", "at": "1", "says": "Toss the coin: heads scores a point."}]
    assert ["score[ann]", "0", "1"] in heads["changes"]
    after = coin.position(Request("coin", moves=(key("toss", f="heads"),)))
    assert [m["key"] for m in after["moves"]] == [key("pass")] and after["moves"][0]["by"] == "ann"
    assert after["state"]["score[ann]"] == "1" and "score[ann]" in after["changed"]
    assert "probability" not in after["moves"][0]


def test_the_properties_a_position_breaks_are_shown_when_it_breaks_them(coin):
    path = (key("toss", f="heads"), key("pass"), key("toss", f="heads"))
    shown = watched(coin.position(Request("coin", moves=path[:2])))
    assert shown["bob-never-scores"]["status"] == "" and shown["a-pass-hands-over"]["status"] == ""
    broken = watched(coin.position(Request("coin", moves=path)))["bob-never-scores"]
    assert broken["status"] == "breaks" and broken["now"] and broken["step"] == 3
    win = (key("toss", f="heads"), key("pass"), key("toss", f="tails"), key("pass"), key("toss", f="heads"), key("crown"))
    over = coin.position(Request("coin", moves=win))
    assert over["terminal"] and over["outcome"] == "ann_wins" and over["moves"] == []
    assert watched(over)["ann-can-win"]["status"] == "reached"
    tails = Request("coin", readings=(("tails", "scores_too"),), moves=(key("toss", f="tails"),))
    assert watched(coin.position(tails))["tails-scores-nothing"]["now"]  # an `after` property reads its move's parameters
    assert not watched(coin.position(Request("coin", moves=(key("toss", f="tails"),))))["tails-scores-nothing"]["now"]


def test_a_reading_that_forbids_a_move_cuts_the_play_there_and_says_why(coin):
    path = (key("toss", f="tails"), key("pass"), key("toss", f="heads"), key("pass"), key("toss", f="tails"), key("crown"))
    assert coin.position(Request("coin", moves=path))["cut"]["step"] == 6  # only one point under the default
    under = coin.position(Request("coin", readings=(("tails", "scores_too"),), moves=path))
    assert under["cut"] is None and under["outcome"] == "ann_wins"


def test_the_page_says_where_the_readings_part_at_a_position(coin):
    start = coin.differs(Request("coin"))
    assert [(d["reading"], d["option"]) for d in start] == [("tails", "scores_too")]
    assert start[0]["only_here"] and start[0]["only_there"]  # the tails toss scores under one, not the other
    passing = coin.differs(Request("coin", moves=(key("toss", f="heads"),)))
    assert passing == []  # a pass is the same move under both


def test_a_malformed_or_unknown_position_is_refused_with_a_message(coin):
    with pytest.raises(RulecheckError, match="no model `chess`"):
        coin.position(Request("chess"))
    with pytest.raises(RulecheckError, match="not an option of `tails`"):
        coin.position(Request("coin", readings=(("tails", "maybe"),)))
    with pytest.raises(RulecheckError, match="initial state 3 does not exist"):
        coin.position(Request("coin", init=3))
    with pytest.raises(RulecheckError, match="malformed"):
        Request.parse({"model": ["coin"], "moves": ["not json"]})
    with pytest.raises(RulecheckError, match="no constant `deck`"):
        coin.position(Request("coin", constants='{"deck":3}'))


def test_a_position_is_its_query_string(coin):
    request = Request("coin", (("tails", "scores_too"),), "{}", 0, (key("toss", f="heads"),))
    assert Request.parse({k: [v] for k, v in request.query().items()}) == request


def test_perfect_play_is_suggested_where_a_side_can_force_a_win(tmp_path):
    nim = play_game([write_game(str(tmp_path), "nim", NIM)])
    start = Request("m", constants='{"start":{"h1":1,"h2":2,"h3":0}}')  # heaps 1 and 2: the first player wins by evening them
    suggestion = nim.suggest(start)
    assert suggestion["key"] == key("remove", h="h2", n=1) and "perfect play: ann can force a win" in suggestion["why"]
    lost = Request("m", constants='{"start":{"h1":1,"h2":1,"h3":0}}')
    held = nim.suggest(lost)
    assert held["key"] is not None and "bob can force a win" in held["why"]


def test_a_random_move_is_suggested_where_nobody_can_force_a_win(coin):
    suggestion = coin.suggest(Request("coin", moves=(key("toss", f="heads"),)))
    assert suggestion["key"] == key("pass") and "random legal move" in suggestion["why"]


def test_a_saved_trace_opens_at_any_of_its_steps():
    game = play_game([os.path.join(ROOT, "models", "ultimate", "two-player.yaml")])
    doc = load_trace(os.path.join(ROOT, "counterexamples", "ultimate", "finished-game-has-winner.b40c5172bac1.json"))
    request = request_from_trace(game, doc, len(doc["steps"]))
    end = game.position(request)
    assert end["cut"] is None and [h["text"] for h in end["history"]] == [s["text"] for s in doc["steps"]]
    assert watched(end)["finished-game-has-winner"]["now"]
    middle = game.position(request_from_trace(game, doc, 2))
    assert len(middle["history"]) == 2 and not watched(middle)["finished-game-has-winner"]["now"]
    with pytest.raises(RulecheckError, match="which this game does not have"):
        request_from_trace(game, {**doc, "model": "three-player"}, 1)


# -- the server ------------------------------------------------------------------------------------

@pytest.fixture
def server(coin):
    from http.server import HTTPServer
    from threading import Thread

    httpd = HTTPServer(("127.0.0.1", 0), handler_for(coin))
    thread = Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield httpd.server_address[1]
    httpd.shutdown()
    httpd.server_close()


def _get(port: int, path: str, host: str | None = None, method: str = "GET", body: str | None = None) -> tuple[int, dict[str, str], bytes]:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    headers = {"Host": host or f"127.0.0.1:{port}"}
    if body is not None:
        headers["Content-Type"] = "application/x-www-form-urlencoded"
    connection.request(method, path, body=body, headers=headers)
    response = connection.getresponse()
    return response.status, dict(response.getheaders()), response.read()


def test_the_server_answers_the_page_and_positions(server):
    status, _, page = _get(server, "/")
    assert status == 200 and b"Play the rules" in page
    status, _, body = _get(server, "/api/position?" + urlencode(Request("coin").query()))
    assert status == 200 and len(json.loads(body)["moves"]) == 2
    status, _, body = _get(server, "/api/position?model=chess")
    assert status == 400 and "no model `chess`" in json.loads(body)["error"]


def test_an_internal_error_is_answered_and_the_server_goes_on(coin, server, monkeypatch):
    def broken(self, request):
        raise ZeroDivisionError("a bug")

    monkeypatch.setattr(PlayGame, "differs", broken)
    status, _, body = _get(server, "/api/differs?" + urlencode(Request("coin").query()))
    assert status == 500 and "internal error: ZeroDivisionError" in json.loads(body)["error"]
    assert _get(server, "/api/position?" + urlencode(Request("coin").query()))[0] == 200


def test_the_server_refuses_requests_addressed_to_another_name(server):
    for host in ("evil.example", f"evil.example:{server}", f"192.168.1.10:{server}"):
        status, _, body = _get(server, "/api/game", host=host)
        assert status == 403 and b"only requests to 127.0.0.1 or localhost" in body
    assert _get(server, "/api/game", host=f"localhost:{server}")[0] == 200


def test_a_posted_trace_redirects_to_its_position(server):
    doc = {"model": "coin", "readings": {"tails": "scores_nothing"}, "constants": {},
           "initial": {"score": {"ann": 0, "bob": 0}, "turn": "ann", "tossed": False, "winner": "none"},
           "steps": [{"action": "toss", "params": {"f": "heads"}}, {"action": "pass", "params": {}}]}
    status, headers, _ = _get(server, "/from-trace", method="POST", body=urlencode({"trace": json.dumps(doc), "step": "1"}))
    assert status == 303
    location = headers["Location"]
    assert location.startswith("/?")
    assert Request.parse(parse_qs(urlsplit(location).query)).moves == (key("toss", f="heads"),)
    status, _, body = _get(server, "/from-trace", method="POST", body=urlencode({"trace": "{}", "step": "1"}))
    assert status == 400 and b"cannot play from this trace" in body


def test_play_refuses_a_bad_reading_before_it_listens(tmp_path):
    path = write_game(str(tmp_path), "coin", COIN, COIN_PROPERTIES)
    done = subprocess.run([sys.executable, "-m", "checker.cli", "play", path, "--reading", "tails=maybe", "--no-browser"],
                          capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert done.returncode == 2 and "`maybe` is not an option of `tails`" in done.stderr


@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGTERM])
def test_play_stops_cleanly_on_ctrl_c(tmp_path, stop):
    path = write_game(str(tmp_path), "coin", COIN, COIN_PROPERTIES)
    child = subprocess.Popen([sys.executable, "-m", "checker.cli", "play", path, "--port", "0", "--no-browser"],
                             stderr=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd=tmp_path)
    try:
        assert child.stderr is not None
        line = child.stderr.readline()  # the address: the server is listening
        assert "rulecheck play: coin at http://127.0.0.1:" in line
        port = int(line.split("127.0.0.1:", 1)[1].split("/", 1)[0])
        assert _get(port, "/api/game")[0] == 200
        child.send_signal(stop)
        _, err = child.communicate(timeout=30)
    finally:
        if child.poll() is None:
            child.kill()
    assert child.returncode == 0 and "stopped" in err
    time.sleep(0.1)
    with pytest.raises(OSError):
        _get(port, "/api/game")


# -- the whole game, for a page without a server ----------------------------------------------------

def test_a_whole_game_answers_as_the_server_does(coin):
    from checker.engines.statespace import explore_space
    from checker.lang.compile import CompiledModel

    whole = coin.whole_game(Request("coin"))
    assert whole is not None and whole["initial"] == [0]
    model = coin.models["coin"]
    assert len(whole["nodes"]) == explore_space(CompiledModel(model, model.default_config())).size
    path = (key("toss", f="heads"), key("pass"), key("toss", f="heads"))
    node = whole["initial"][0]
    for move in path:
        node = next(m for m in whole["nodes"][node]["moves"] if m["key"] == move)["to"]
    served = coin.position(Request("coin", moves=path))
    here = whole["nodes"][node]
    assert here["shows"] == served["shows"][-1] == ["bob-never-scores"]
    assert [m["key"] for m in here["moves"]] == [m["key"] for m in served["moves"]]
    assert {whole["names"][k]: whole["values"][v] for k, v in here["state"]} == served["state"]


def test_a_game_past_the_bound_has_no_whole_game(coin):
    assert coin.whole_game(Request("coin"), max_states=3) is None


def test_the_report_writes_a_whole_game_only_for_a_small_configuration(project, monkeypatch):
    from checker.pipeline import html
    from checker.pipeline.html import write_report
    from checker.pipeline.runner import CheckOptions, check_paths

    results = check_paths([str(project / "models")], CheckOptions())
    small = write_report(results, str(project / "small"))
    assert any("duel-play-" in p for p in small)
    assert 'class="play-offline"' in (project / "small" / "duel.html").read_text()
    monkeypatch.setattr(html, "OFFLINE_STATES", 2)
    large = write_report(results, str(project / "large"))
    assert not any("duel-play-" in p for p in large)
    assert 'class="play-offline"' not in (project / "large" / "duel.html").read_text()
