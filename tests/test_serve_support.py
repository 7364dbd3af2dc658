"""Helpers for the server tests (no tests here): a fake upstream that replays answers,
and real uvicorn servers on 127.0.0.1 ephemeral ports, each in its own thread.

The fake upstream is a chat-completions endpoint whose model writes tool calls as text.
The request's `model` picks what it does, and the last message's content is the answer
it replays:
  replay      the answer, as SSE chunks of 5 characters (or one JSON completion)
  error       500 with an OpenAI-shaped error body
  slow        waits 3 s before answering (for the proxy's timeout)
  drop        streams the first half of the answer, then drops the connection
  endless     streams a chunk every 20 ms for up to 20 s (for client disconnects)
  paced       the answer as replay does, a chunk every 5 ms (the proxy reads them
              apart; unpaced, they may come in one read and be rewritten as one)
  json        answers JSON even when asked to stream
  deep        the answer as replay does, with an event of data nested 100,000 deep
              in its middle (`[[[...]]]`, valid JSON past any decoder's depth)
  huge        the first half of the answer, then one event that never ends: 17 MiB
              of a content string, then a wait (for the proxy's 16 MiB event limit)
Answers are encoded as `json.dumps` does by default (ASCII, escapes for the rest). A
client cannot send a lone surrogate (the openai client encodes its request as UTF-8),
so `HALF_EMOJI` in the answer stands for U+D83D, half of an emoji's UTF-16 pair: the
upstream sends it as the escape `\\ud83d`, as such encoders write a split emoji.
"""

from __future__ import annotations

import contextlib
import gzip
import json
import socket
import threading
import time
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import anyio
import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route
from starlette.types import ASGIApp

from toolparse._serve import ServeConfig, create_app
from toolparse._serve.server import uvicorn_settings

CHUNK = 5

HALF_EMOJI = "<half-emoji>"
"""Stands for U+D83D in an answer (see the module's header)."""


@dataclass
class UpstreamLog:
    """What the fake upstream saw."""

    requests: list[dict[str, Any]] = field(default_factory=list)
    """Each request's headers (lower-case names) and JSON body."""
    streaming: int = 0
    """Streams being written right now."""
    cancelled: int = 0
    """Streams that ended because the reader went away."""


def sse(data: Any) -> bytes:
    return b"data: " + json.dumps(data).encode() + b"\n\n"


def completion_chunk(content: str | None = None, finish: str | None = None,
                     role: bool = False) -> dict[str, Any]:
    delta: dict[str, Any] = {}
    if role:
        delta["role"] = "assistant"
    if content is not None:
        delta["content"] = content
    return {"id": "chatcmpl-up", "object": "chat.completion.chunk", "created": 1700000000,
            "model": "raw-model", "system_fingerprint": "fp_up",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish, "logprobs": None}]}


def answer_chunks(text: str) -> Iterator[bytes]:
    yield sse(completion_chunk("", role=True))
    for start in range(0, len(text), CHUNK):
        yield sse(completion_chunk(text[start:start + CHUNK]))
    yield sse(completion_chunk(finish="stop"))
    yield sse({"id": "chatcmpl-up", "object": "chat.completion.chunk", "created": 1700000000,
               "model": "raw-model", "choices": [],
               "usage": {"prompt_tokens": 3, "completion_tokens": 9, "total_tokens": 12}})
    yield b"data: [DONE]\n\n"


def whole_completion(text: str) -> dict[str, Any]:
    return {"id": "chatcmpl-up", "object": "chat.completion", "created": 1700000000,
            "model": "raw-model",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": text},
                         "finish_reason": "stop", "logprobs": None}],
            "usage": {"prompt_tokens": 3, "completion_tokens": 9, "total_tokens": 12}}


def fake_upstream(log: UpstreamLog) -> ASGIApp:
    async def chat(request: Request) -> Response:
        body = await request.json()
        log.requests.append({"headers": dict(request.headers), "body": body,
                             "query": request.url.query})
        model, text = body.get("model"), body["messages"][-1]["content"]
        text = text.replace(HALF_EMOJI, "\ud83d")
        if model == "error":
            return JSONResponse({"error": {"message": "upstream exploded", "type": "server_error",
                                           "code": "boom"}}, status_code=500)
        if model == "slow":
            await anyio.sleep(3)
        if not body.get("stream") or model == "json":
            return Response(json.dumps(whole_completion(text)), media_type="application/json",
                            headers={"x-request-id": "req-1"})
        if model == "gzip":   # compressed whatever the request asked (not as HTTP says)
            return Response(gzip.compress(b"".join(answer_chunks(text))),
                            media_type="text/event-stream", headers={"content-encoding": "gzip"})
        chunks: AsyncIterator[bytes]
        if model == "drop":
            chunks = _dropping(text)
        elif model == "endless":
            chunks = _endless(log)
        elif model == "deep":
            chunks = _with_deep_event(text)
        elif model == "huge":
            chunks = _huge_event(text)
        elif model == "paced":
            chunks = _replayed(text, pause=0.005)
        elif model == "split":   # an upstream that splits reasoning itself: "THOUGHT|||ANSWER"
            chunks = _split(text)
        else:
            chunks = _replayed(text)
        return StreamingResponse(chunks, media_type="text/event-stream",
                                 headers={"x-request-id": "req-1"})

    async def models(request: Request) -> Response:
        log.requests.append({"headers": dict(request.headers), "body": None,
                             "query": request.url.query})
        return JSONResponse({"object": "list", "data": [{"id": "raw-model", "object": "model",
                                                         "created": 0, "owned_by": "me"}]})

    return Starlette(routes=[Route("/v1/chat/completions", chat, methods=["POST"]),
                             Route("/v1/models", models, methods=["GET"])])


async def _split(text: str) -> AsyncIterator[bytes]:
    thought, _, answer = text.partition("|||")
    yield sse(completion_chunk("", role=True))
    for start in range(0, len(thought), CHUNK):
        chunk = completion_chunk()
        chunk["choices"][0]["delta"]["reasoning_content"] = thought[start:start + CHUNK]
        yield sse(chunk)
    for data in list(answer_chunks(answer))[1:]:
        yield data


async def _replayed(text: str, pause: float = 0.0) -> AsyncIterator[bytes]:
    for data in answer_chunks(text):
        yield data
        if pause:
            await anyio.sleep(pause)


DEEP_EVENT = b"data: " + b"[" * 100_000 + b"]" * 100_000 + b"\n\n"

HUGE_EVENT_BYTES = 17 << 20


async def _with_deep_event(text: str) -> AsyncIterator[bytes]:
    chunks = list(answer_chunks(text))
    for number, data in enumerate(chunks):
        if number == len(chunks) // 2:
            yield DEEP_EVENT
        yield data


async def _huge_event(text: str) -> AsyncIterator[bytes]:
    chunks = list(answer_chunks(text))
    for data in chunks[:len(chunks) // 2]:
        yield data
    head = json.dumps(completion_chunk("x"))
    yield b"data: " + head[:head.index('"x"') + 2].encode()       # a content string opens
    piece = b"y" * (1 << 20)
    for _ in range(HUGE_EVENT_BYTES // len(piece)):
        yield piece
        await anyio.sleep(0)
    await anyio.sleep(30)        # the proxy ends the stream long before


async def _dropping(text: str) -> AsyncIterator[bytes]:
    chunks = list(answer_chunks(text))
    for data in chunks[:len(chunks) // 2]:
        yield data
        await anyio.sleep(0)
    raise ConnectionAbortedError("the fake upstream drops the connection")


async def _endless(log: UpstreamLog) -> AsyncIterator[bytes]:
    log.streaming += 1
    try:
        yield sse(completion_chunk("", role=True))
        for _ in range(1000):  # 20 s at most
            await anyio.sleep(0.02)
            yield sse(completion_chunk("more "))
    except BaseException:
        log.cancelled += 1
        raise
    finally:
        log.streaming -= 1


@dataclass
class Running:
    """A uvicorn server in a thread."""

    server: uvicorn.Server
    port: int
    thread: threading.Thread

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def connections(self) -> int:
        return len(self.server.server_state.connections)


@contextlib.contextmanager
def running(app: ASGIApp, **settings: Any) -> Iterator[Running]:
    """Serve `app` on 127.0.0.1 at an ephemeral port until the block ends, with
    uvicorn's defaults or `settings`."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    options: dict[str, Any] = {"log_level": "warning", "access_log": False, "lifespan": "on",
                               **settings}
    config = uvicorn.Config(app, timeout_graceful_shutdown=2, **options)
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    wait_until(lambda: server.started, what="the server to start")
    try:
        yield Running(server, sock.getsockname()[1], thread)
    finally:
        server.should_exit = True
        thread.join(timeout=10)
        sock.close()


def running_proxy(config: ServeConfig) -> contextlib.AbstractContextManager[Running]:
    """The proxy for `config`, served as `toolparse serve` serves it (its protocol, with
    the client time-outs, and its other uvicorn settings)."""
    return running(create_app(config), **uvicorn_settings("warning"))


def wait_until(condition: Callable[[], bool], what: str, seconds: float = 10.0) -> None:
    """Poll `condition` until it holds; fail (naming `what`) if it never does. A bound
    on waiting, not a timing assertion."""
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"gave up waiting for {what}")
        time.sleep(0.01)
