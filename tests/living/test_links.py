"""masrl links, against a loopback server only: ok, dead, retried, rate-limited, refused."""

from __future__ import annotations

import http.server
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from masrl.living._links import DEAD, FAILING, OK, UNVERIFIED, HostGate, check_urls

HITS: dict[str, int] = {}


class Handler(http.server.BaseHTTPRequestHandler):
    """Each path behaves like a kind of real server."""

    def _answer(self, body: bool) -> None:
        HITS[self.path] = HITS.get(self.path, 0) + 1
        n = HITS[self.path]
        path = urlsplit(self.path).path
        if path == "/ok":
            self._send(200)
        elif path == "/gone":
            self._send(404)
        elif path == "/moved":
            self.send_response(301)
            self.send_header("Location", "/ok")
            self.end_headers()
        elif path == "/flaky":
            self._send(503 if n < 3 else 200)
        elif path == "/slow-down":
            if n < 2:
                self._send(429, {"Retry-After": "0"})
            else:
                self._send(200)
        elif path == "/always-busy":
            self._send(429, {"Retry-After": "0"})
        elif path == "/no-head":
            self._send(405 if self.command == "HEAD" else 200)
        elif path == "/robots-out":
            self._send(403)
        else:
            self._send(500)

    def _send(self, code: int, headers: dict[str, str] | None = None) -> None:
        self.send_response(code)
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_HEAD(self) -> None:
        self._answer(False)

    def do_GET(self) -> None:
        self._answer(True)

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture
def server() -> Iterator[str]:
    HITS.clear()
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


@pytest.mark.parametrize(
    ("path", "verdict", "detail"),
    [
        ("/ok", OK, "200 OK"),
        ("/moved", OK, "200 OK"),
        ("/gone", DEAD, "404 Not Found"),
        ("/flaky", OK, "200 OK"),
        ("/slow-down", OK, "200 OK"),
        ("/always-busy", UNVERIFIED, "429 Too Many Requests after 3 attempts"),
        ("/no-head", OK, "200 OK"),
        ("/robots-out", UNVERIFIED, "403 Forbidden"),
        ("/broken", FAILING, "500 Internal Server Error after 3 attempts"),
    ],
)
def test_verdicts(server: str, path: str, verdict: str, detail: str) -> None:
    outcome = check_urls([server + path], retries=2, backoff=0, interval=0, sleep=lambda s: None)[server + path]
    assert (outcome.verdict, outcome.detail) == (verdict, detail)


def test_flaky_server_is_retried_until_it_answers(server: str) -> None:
    check_urls([server + "/flaky"], retries=3, backoff=0, interval=0, sleep=lambda s: None)
    assert HITS["/flaky"] == 3


def test_unresolvable_and_refusing_hosts_are_dead() -> None:
    outcomes = check_urls(["http://127.0.0.1:9/nothing"], retries=1, backoff=0, interval=0, sleep=lambda s: None)
    assert outcomes["http://127.0.0.1:9/nothing"].verdict == DEAD


def test_host_gate_spaces_requests_to_one_host() -> None:
    now = [0.0]
    waits: list[float] = []

    def sleep(seconds: float) -> None:
        waits.append(seconds)
        now[0] += seconds

    gate = HostGate(per_host=1, interval=3.0, clock=lambda: now[0], sleep=sleep)
    for _ in range(3):
        gate.enter("arxiv.org")
        gate.leave("arxiv.org")
    gate.enter("example.org")  # another host is not held back
    gate.leave("example.org")
    assert waits == [3.0, 3.0]


def test_concurrency_is_bounded_per_host(server: str) -> None:
    in_flight = {"now": 0, "max": 0}
    lock = threading.Lock()
    original = Handler._answer

    def counting(self: Any, body: bool) -> None:
        # a request counts from its arrival until just before its answer goes out: once the client
        # has an answer it may start the next, and the server's thread could not yet have counted
        # this one out, so counting out after answering would see overlaps the client never made
        with lock:
            in_flight["now"] += 1
            in_flight["max"] = max(in_flight["max"], in_flight["now"])
        time.sleep(0.02)
        with lock:
            in_flight["now"] -= 1
        original(self, body)

    Handler._answer = counting  # type: ignore[method-assign]
    try:
        urls = [f"{server}/ok?n={i}" for i in range(12)]
        outcomes = check_urls(urls, concurrency=8, per_host=2, interval=0, sleep=time.sleep)
    finally:
        Handler._answer = original  # type: ignore[method-assign]
    assert all(o.verdict == OK for o in outcomes.values())
    assert in_flight["max"] <= 2


def test_cli_reports_dead_links_with_their_place(small: Path, run_cli: Any, server: str) -> None:
    # Arrange: point the fixture's links at the loopback server.
    for path in (small / "papers").glob("*.yaml"):
        text = path.read_text("utf-8")
        for old in (
            "https://arxiv.org/abs/2501.00001",
            "https://arxiv.org/abs/2406.00002",
            "https://example.org/gamma",
            "https://example.com/delta-2",
            "https://example.com/delta",
        ):
            target = {"https://example.org/gamma": "/gone", "https://example.com/delta-2": "/robots-out"}.get(
                old, "/ok"
            )
            text = text.replace(old, server + target + "?" + old.rsplit("/", 1)[-1])
        path.write_text(text, "utf-8")
    for path in (small / "exclusions").glob("*.yaml"):
        text = path.read_text("utf-8")
        text = text.replace("https://arxiv.org/abs/2305.00009", server + "/ok?e1").replace(
            "https://docs.example.com/agents", server + "/ok?e2"
        )
        path.write_text(text, "utf-8")
    # Act
    result = run_cli("links", "--interval", "0", "--retries", "1")
    # Assert
    assert result.exit_code == 1
    assert result.stdout.splitlines() == [
        f"papers/delta.yaml:11:5: more_urls[0]: unverified link {server}/robots-out?delta-2 (403 Forbidden)",
        f"papers/gamma.yaml:9:1: url: dead link {server}/gone?gamma (404 Not Found)",
    ]
    assert result.stderr == "7 links checked: 5 ok, 1 dead, 0 failing, 1 unverified\n"
    only_ok = run_cli("links", "--interval", "0", "--only", "/ok")
    assert only_ok.exit_code == 0
