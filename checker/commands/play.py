"""`rulecheck play PATH`: play a game's rules in the browser, from the start or from a trace.

The standard library's HTTP server is enough: one designer on this machine, a page and four
JSON answers, no sessions (a position is its own URL, see `evidence.play`). It listens on the
loopback interface only, answers only requests addressed to it by a loopback name (a page of
another site cannot reach it through a DNS name that resolves to 127.0.0.1), and stops on
Ctrl-C (or SIGTERM). Requests are answered one at a time: the interpreter's caches are not shared between
threads.
"""

from __future__ import annotations

import json
import signal
import sys
import webbrowser
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, HTTPServer
from ipaddress import ip_address
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

import click

from checker.commands.common import guarded, internal_error_message, pairs
from checker.errors import ModellingError, RulecheckError

DEFAULT_PORT = 8765  # the address the HTML report's "play from here" posts to
LOOPBACK_NAMES = ("127.0.0.1", "localhost")
MAX_BODY = 8 * 1024 * 1024  # a posted trace, at most


@click.command()
@click.argument("path", type=click.Path())
@click.option("--port", type=click.IntRange(min=0, max=65535), default=DEFAULT_PORT, show_default=True, help="The port on 127.0.0.1 (0: any free one). The HTML report's 'play from here' uses the default.")
@click.option("--trace", "trace_file", type=click.Path(), help="Start from a saved trace (a .json file from counterexamples/) ...")
@click.option("--step", type=click.IntRange(min=0), help="... after this many of its steps (default: all of them).")
@click.option("--reading", "pinned", multiple=True, metavar="NAME=OPTION", help="Start under this reading (changeable on the page).")
@click.option("--set", "constants", multiple=True, metavar="NAME=VALUE", help="Play with this constant's value.")
@click.option("--no-browser", is_flag=True, help="Do not open the page in a browser (it is opened only when the output is a terminal).")
@guarded
def play(path: str, port: int, trace_file: str | None, step: int | None, pinned: tuple[str, ...], constants: tuple[str, ...], no_browser: bool) -> None:
    """Play the rules of a game (a model folder, or one model file) in the browser: the state in
    players' words, every legal move with the clauses it applies and its chance, undo and redo,
    the readings (changeable, with where they part at the position), the properties the position
    breaks, and a suggested move (perfect play where the game is small enough)."""
    from checker.commands.trace_io import load_trace
    from checker.evidence.play import PlayGame, Request, request_from_trace
    from checker.evidence.trace import jsonable_constants
    from checker.pipeline.runner import CheckOptions, check_selection, load_games, parse_constants

    games = load_games([path])
    if len(games) != 1:
        raise RulecheckError(f"`play` takes one game: {path} holds {len(games)}", hint="name one folder of models/, or one model file")
    options = CheckOptions(pinned=pairs(pinned, "--reading"), constants=pairs(constants, "--set"))
    check_selection(games, options)
    game = PlayGame(games[0].folder, games[0].models, games[0].suite)
    chosen = [m for m in games[0].models if not m.abstract]
    if trace_file is not None:
        doc = load_trace(trace_file)
        start = request_from_trace(game, doc, len(doc.get("steps", [])) if step is None else step)
    else:
        model = chosen[0]
        sets = jsonable_constants(parse_constants(model, options.constants))
        readings = tuple(sorted((k, v) for k, v in options.pinned.items() if k in model.readings and v != model.readings[k].default))
        start = Request(model.id, readings, json.dumps(sets, sort_keys=True, separators=(",", ":")))
        game.position(start)  # a bad reading or constant is reported here, before the server starts
    server = _server(game, port)
    address = f"http://127.0.0.1:{server.server_address[1]}/?{urlencode(start.query())}"
    click.echo(f"rulecheck play: {game.folder} at {address}", err=True)
    click.echo("Ctrl-C stops the server.", err=True)
    if not no_browser and sys.stdout.isatty():
        webbrowser.open(address)
    signal.signal(signal.SIGTERM, _stop)  # a service manager's stop, as Ctrl-C
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        click.echo("rulecheck play: stopped", err=True)
    finally:
        server.server_close()


def _stop(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def _server(game: Any, port: int) -> HTTPServer:
    try:
        return HTTPServer(("127.0.0.1", port), handler_for(game))
    except OSError as exc:
        raise RulecheckError(f"cannot listen on 127.0.0.1:{port}: {exc.strerror or exc}", hint="another server holds the port? --port 0 picks a free one") from None


def handler_for(game: Any) -> type[BaseHTTPRequestHandler]:
    """The request handler of one game's server."""
    from checker.evidence.play import Request, request_from_trace
    from checker.report.html.play_page import play_page

    class Handler(BaseHTTPRequestHandler):
        server_version = "rulecheck-play"

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the standard library's name
            return  # no line per request: the terminal says where the server is and how to stop it

        def _refused(self) -> bool:
            """A request from outside this machine, or addressed to another name than a
            loopback one (a DNS-rebinding page), is refused."""
            host = (self.headers.get("Host") or "").rsplit(":", 1)[0].strip("[]")
            client = ip_address(self.client_address[0])
            if client.is_loopback and host in LOOPBACK_NAMES:
                return False
            self._send(HTTPStatus.FORBIDDEN, "text/plain", b"rulecheck play answers only requests to 127.0.0.1 or localhost from this machine\n")
            return True

        def do_GET(self) -> None:  # noqa: N802 - the standard library's name
            if self._refused():
                return
            url = urlsplit(self.path)
            query = parse_qs(url.query)
            answers = {
                "/api/game": lambda: game.describe(),
                "/api/position": lambda: game.position(Request.parse(query)),
                "/api/differs": lambda: game.differs(Request.parse(query)),
                "/api/suggest": lambda: game.suggest(Request.parse(query)),
            }
            if url.path == "/favicon.ico":
                self._send(HTTPStatus.NO_CONTENT, "image/x-icon", b"")
            elif url.path == "/":
                self._send(HTTPStatus.OK, "text/html; charset=utf-8", play_page(game.folder).encode())
            elif url.path in answers:
                self._json(answers[url.path])
            else:
                self._send(HTTPStatus.NOT_FOUND, "text/plain", b"not found\n")

        def do_POST(self) -> None:  # noqa: N802 - the standard library's name
            """`/from-trace`: a trace player's 'play from here' (a form with the trace and the
            step), answered with a redirect to the position's page."""
            if self._refused():
                return
            if urlsplit(self.path).path != "/from-trace":
                self._send(HTTPStatus.NOT_FOUND, "text/plain", b"not found\n")
                return
            length = int(self.headers.get("Content-Length") or 0)
            if length > MAX_BODY:
                self._send(HTTPStatus.REQUEST_ENTITY_TOO_LARGE, "text/plain", b"trace too large\n")
                return
            form = parse_qs(self.rfile.read(length).decode("utf-8", "replace"))
            try:
                doc = json.loads(form.get("trace", ["{}"])[0])
                step = int(form.get("step", ["0"])[0])
                request = request_from_trace(game, doc if isinstance(doc, dict) else {}, step)
            except (ValueError, RulecheckError) as exc:
                message = exc.message if isinstance(exc, RulecheckError) else str(exc)
                self._send(HTTPStatus.BAD_REQUEST, "text/plain; charset=utf-8", f"cannot play from this trace: {message}\n".encode())
                return
            self.send_response(HTTPStatus.SEE_OTHER)
            self.send_header("Location", "/?" + urlencode(request.query()))
            self.end_headers()

        def _json(self, answer: Any) -> None:
            try:
                body, status = answer(), HTTPStatus.OK
            except RulecheckError as exc:
                body, status = {"error": exc.message + (f" ({exc.hint})" if exc.hint else "")}, HTTPStatus.BAD_REQUEST
            except ModellingError as exc:
                body, status = {"error": exc.located()}, HTTPStatus.OK
            except Exception as exc:  # noqa: BLE001 - the page shows it; the server goes on
                body, status = {"error": f"internal error: {internal_error_message(exc)} (a bug in rulecheck)"}, HTTPStatus.INTERNAL_SERVER_ERROR
            self._send(status, "application/json", json.dumps(body, default=str).encode())

        def _send(self, status: HTTPStatus, kind: str, body: bytes) -> None:
            self.send_response(status)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Cache-Control", "no-store")
            self.end_headers()
            self.wfile.write(body)

    return Handler
