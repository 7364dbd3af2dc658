"""Slow clients are dropped (SPEC 9; issue 47, item 9): the proxy served as `toolparse
serve` serves it (uvicorn with toolparse's protocol), short client time-outs, and raw
sockets that send part of a request and then wait. Each read has a bound; a connection
still open at the bound fails the test."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
from collections.abc import Iterator

import pytest

from toolparse._serve import ServeConfig
from test_serve_support import (
    Running,
    UpstreamLog,
    fake_upstream,
    running,
    running_proxy,
    wait_until,
)

HEADER_TIMEOUT = 1.0
BODY_TIMEOUT = 1.0
BOUND = 15.0
"""How long a test waits for the proxy to close a connection (a bound on waiting, far
above the time-outs: not a timing assertion)."""

CHAT = b"POST /v1/chat/completions HTTP/1.1\r\nhost: proxy\r\ncontent-type: application/json\r\n"


@pytest.fixture(scope="module")
def upstream() -> Iterator[tuple[Running, UpstreamLog]]:
    log = UpstreamLog()
    with running(fake_upstream(log)) as server:
        yield server, log


@pytest.fixture(scope="module")
def proxy(upstream: tuple[Running, UpstreamLog]) -> Iterator[Running]:
    config = ServeConfig(upstream=upstream[0].url + "/v1", header_timeout=HEADER_TIMEOUT,
                         body_timeout=BODY_TIMEOUT)
    with running_proxy(config) as server:
        yield server


def connect(proxy: Running) -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", proxy.port), timeout=BOUND)
    sock.settimeout(BOUND)
    return sock


def until_closed(sock: socket.socket) -> bytes:
    """Everything the proxy sends until it closes the connection (fails if it has not
    closed it within the bound)."""
    received = b""
    try:
        while data := sock.recv(65536):
            received += data
    except TimeoutError:
        pytest.fail(f"the connection was still open after {BOUND:g} s; got {received[:200]!r}")
    except ConnectionResetError:
        pass
    return received


def timeout_answer(received: bytes) -> dict[str, str]:
    head, _, body = received.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 408 "), received[:200]
    assert b"connection: close" in head.lower()
    error: dict[str, str] = json.loads(body)["error"]
    assert error["code"] == "request_timeout"
    return error


def test_partial_headers_get_408_and_the_connection_is_closed(
        proxy: Running, upstream: tuple[Running, UpstreamLog]) -> None:
    seen = len(upstream[1].requests)
    with connect(proxy) as sock:
        sock.sendall(CHAT + b"content-length: 2")          # no end of the headers
        error = timeout_answer(until_closed(sock))
    assert "--header-timeout" in error["message"]
    assert len(upstream[1].requests) == seen


def test_headers_sent_a_byte_at_a_time_are_still_timed_as_a_whole(proxy: Running) -> None:
    with connect(proxy) as sock:
        started = time.monotonic()
        received = b""
        for byte in CHAT:                                   # never complete
            try:
                sock.sendall(bytes([byte]))
            except (BrokenPipeError, ConnectionResetError):
                break
            if time.monotonic() - started > BOUND:
                pytest.fail("the proxy kept taking header bytes past the bound")
            time.sleep(0.05)
        received = until_closed(sock)
    assert "--header-timeout" in timeout_answer(received)["message"]


def test_a_body_shorter_than_its_length_gets_408_and_the_connection_is_closed(
        proxy: Running, upstream: tuple[Running, UpstreamLog]) -> None:
    seen = len(upstream[1].requests)
    with connect(proxy) as sock:
        sock.sendall(CHAT + b"content-length: 100\r\n\r\n" + b'{"model": "replay"')
        error = timeout_answer(until_closed(sock))
    assert "--body-timeout" in error["message"]
    assert len(upstream[1].requests) == seen
    assert _settles(proxy)          # its connection and its task are gone


def _settles(proxy: Running) -> bool:
    state = proxy.server.server_state
    deadline = time.monotonic() + BOUND
    while (state.connections or state.tasks) and time.monotonic() < deadline:
        time.sleep(0.01)
    return not state.connections and not state.tasks


def test_a_connection_that_sends_nothing_is_closed(proxy: Running) -> None:
    with connect(proxy) as sock:
        assert until_closed(sock) == b""


def test_a_later_request_on_a_kept_alive_connection_is_timed_too(proxy: Running) -> None:
    with connect(proxy) as sock:
        sock.sendall(b"GET /healthz HTTP/1.1\r\nhost: proxy\r\n\r\n")
        first = b""
        while b"\r\n\r\n" not in first or not first.endswith(b"}"):
            first += sock.recv(65536)
        assert first.startswith(b"HTTP/1.1 200")
        sock.sendall(b"GET /healthz HTTP/1.1\r\nhost: pro")
        assert "--header-timeout" in timeout_answer(until_closed(sock))["message"]


def test_a_body_that_keeps_coming_is_never_cut(proxy: Running) -> None:
    # Pieces a tenth of the body time-out apart, over twice the time-out in all.
    body = json.dumps({"model": "replay", "messages": [{"role": "user", "content": "hi"}]})
    pieces = [body[k:k + 2].encode() for k in range(0, len(body), 2)]
    with connect(proxy) as sock:
        sock.sendall(CHAT + b"connection: close\r\ncontent-length: %d\r\n\r\n" % len(body))
        started = time.monotonic()
        for piece in pieces:
            sock.sendall(piece)
            time.sleep(BODY_TIMEOUT / 10)
        assert time.monotonic() - started > 2 * BODY_TIMEOUT
        received = until_closed(sock)
    assert received.startswith(b"HTTP/1.1 200"), received[:200]
    assert json.loads(received.partition(b"\r\n\r\n")[2])["choices"][0]["message"]["content"] == "hi"


def test_a_slow_upstream_is_not_the_clients_fault(proxy: Running) -> None:
    # The fake upstream answers "slow" after 3 s: longer than both client time-outs,
    # which time the request only, never the answer.
    body = json.dumps({"model": "slow", "messages": [{"role": "user", "content": "late"}]})
    with connect(proxy) as sock:
        sock.sendall(CHAT + b"connection: close\r\ncontent-length: %d\r\n\r\n%s"
                     % (len(body), body.encode()))
        received = until_closed(sock)
    assert received.startswith(b"HTTP/1.1 200"), received[:200]



@pytest.mark.parametrize("workers", ["1", "2"])
def test_the_command_times_clients_in_every_worker(upstream: tuple[Running, UpstreamLog],
                                                   workers: str) -> None:
    # `toolparse serve` itself: the flag reaches uvicorn's protocol in each process.
    port = _free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "toolparse", "serve", "--upstream", upstream[0].url + "/v1",
         "--port", str(port), "--workers", workers, "--header-timeout", "0.5",
         "--log-level", "warning"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        wait_until(lambda: _healthy(port), what="toolparse serve to answer", seconds=60)
        for _ in range(4):       # with two workers, most likely both take one
            with socket.create_connection(("127.0.0.1", port), timeout=BOUND) as sock:
                sock.settimeout(BOUND)
                sock.sendall(CHAT)
                error = timeout_answer(until_closed(sock))
            assert "within 0.5 s (the server's --header-timeout)" in error["message"]
    finally:
        process.terminate()
        _, stderr = process.communicate(timeout=30)
    assert b"Traceback" not in stderr


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _healthy(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1) as sock:
            sock.sendall(b"GET /healthz HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n")
            return sock.recv(64).startswith(b"HTTP/1.1 200")
    except OSError:
        return False
