"""`POST /v1/chat/completions`: forwarded, and the answer rewritten by SPEC 8 with the
request's own `tools`.

A streaming answer is rewritten and sent on one upstream read at a time, never
buffered. If the upstream stops mid-stream (a dropped connection, a read timeout, an
event over the size limit) the client's stream still ends cleanly: the text held so
far, each open choice's finish_reason by SPEC 8's rules, and `[DONE]`; so it does if
the rewrite itself fails (`sse.StreamTranslator`: a fault ends the stream the same
way, and the upstream is closed). If the client goes away, the upstream request is
closed with it (shielded from the cancellation, so the connection is released
whatever happens).

A JSON answer is rewritten whole; one that cannot be (not JSON, not a completion, or
a fault while rewriting) goes to the client as the upstream sent it, with an
`x-toolparse-warning` header saying why: never a 500 for content.

The request's `model` picks its route (`routing.py`): its upstream and how its answer
is read; a model no route takes is a 404 naming it. What the parsers find is counted
and logged as it goes out (`observe.py`); markup of another dialect is reported on the
response (`x-toolparse-foreign-markup`: a header on a JSON answer, an SSE comment
before a stream's `[DONE]`, whose headers went out first).
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import AsyncGenerator, AsyncIterator, Mapping
from typing import Any, Final

import anyio
import httpx2
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse

from toolparse._errors import ChunkFormatError, ToolparseError
from toolparse._serve.codec import TooDeep, dumps, loads
from toolparse._serve.config import Route, ServeConfig
from toolparse._serve.logs import log
from toolparse._serve.metrics import RouteMetrics
from toolparse._serve.observe import Watch, watching
from toolparse._serve.proxy import (
    ProxyError,
    RequestInfo,
    body_of,
    info_of,
    read_body,
    response_headers,
    upstream_failure,
    upstream_request,
)
from toolparse._serve.routing import Router, RouteRuntime
from toolparse._serve.sse import StreamTranslator
from toolparse.openai import StreamRewriter, rewrite_completion, stream_rewriter

__all__ = ["FOREIGN_HEADER", "WARNING_HEADER", "chat_completions", "no_route", "upstream_error"]

_UPSTREAM_ENDED = (httpx2.TransportError, httpx2.StreamError)
"""What an upstream that stops mid-answer raises (a drop, a read timeout, a protocol
error): the client's stream is ended cleanly instead."""

WARNING_HEADER: Final = "x-toolparse-warning"
"""Says why a JSON answer went to the client as the upstream sent it."""

FOREIGN_HEADER: Final = "x-toolparse-foreign-markup"
"""Names the other dialects whose markup the answer held (SPEC 9)."""


async def chat_completions(request: Request, router: Router,
                           clients: Mapping[str, httpx2.AsyncClient],
                           config: ServeConfig) -> Response:
    info = info_of(request)
    body = await read_body(request, config.max_body)
    payload = _request_object(body)
    model = payload.get("model")
    runtime = router.match(model if isinstance(model, str) else "")
    if runtime is None:
        raise no_route(model)
    info.route = runtime
    tools = payload.get("tools")
    in_reasoning = _in_reasoning(payload, runtime.route)
    watch = runtime.watch(info.request_id)
    with watching(watch):
        rewriter = _rewriter(tools, runtime, in_reasoning)
    client = clients[runtime.upstream.name]
    info.upstream_sent = time.perf_counter()
    try:
        upstream = await client.send(upstream_request(client, request, b"chat/completions",
                                                      body, runtime.api_key), stream=True)
    except httpx2.TransportError as error:
        raise upstream_error(error, runtime) from None
    content_type = upstream.headers.get("content-type", "")
    headers = response_headers(upstream.headers)   # x-request-id, rate limits, ...
    if upstream.status_code == 200 and content_type.startswith("text/event-stream"):
        headers.update({"cache-control": "no-cache", "x-accel-buffering": "no"})
        translator = StreamTranslator(rewriter, trailer=lambda: _foreign_comment(watch))
        return StreamingResponse(_rewritten(upstream, translator, watch, info),
                                 media_type="text/event-stream", headers=headers)
    try:
        answer = await upstream.aread()
    except httpx2.TransportError as error:
        raise upstream_error(error, runtime) from None
    finally:
        await upstream.aclose()
    info.first_read = time.perf_counter()
    if upstream.status_code != 200:   # the upstream's own error, as it came
        runtime.metrics.upstream_error(_status_kind(upstream.status_code))
        return Response(answer, status_code=upstream.status_code, headers=headers)
    with watching(watch):
        body, warning = _rewritten_completion(answer, tools, runtime, in_reasoning)
    if warning is not None:
        headers[WARNING_HEADER] = warning
    if watch.foreign_seen and watch.policy != "pass":
        headers[FOREIGN_HEADER] = ", ".join(sorted(watch.foreign_seen))
    return Response(body, headers=headers, media_type="application/json")


def no_route(model: Any) -> ProxyError:
    """404 for a model no route takes, naming it (OpenAI's `model_not_found`)."""
    shown = repr(model if len(str(model)) <= 200 else str(model)[:200] + "...")
    return ProxyError(404, f"no route of this toolparse serve takes the model {shown}",
                      "invalid_request_error", "model_not_found")


def upstream_error(error: httpx2.TransportError, runtime: RouteRuntime) -> ProxyError:
    """The answer for an upstream not reached or not answering, counted on its route."""
    failure = upstream_failure(error, runtime.upstream.timeout)
    runtime.metrics.upstream_error("timeout" if failure.status == 504 else "unreachable")
    return failure


def _status_kind(status: int) -> str:
    return "status_5xx" if status >= 500 else "status_4xx"


def _foreign_comment(watch: Watch) -> bytes:
    """The SSE comment that reports foreign markup at the end of a stream (clients skip
    comments), or nothing."""
    if not watch.foreign_seen or watch.policy == "pass":
        return b""
    return f": {FOREIGN_HEADER}: {', '.join(sorted(watch.foreign_seen))}\n\n".encode()


def _request_object(body: bytes) -> Mapping[str, Any]:
    try:
        payload = loads(body)
    except TooDeep as error:
        raise ProxyError(400, f"the request body is {error}, more than the proxy reads",
                         "invalid_request_error", "invalid_json") from None
    except ValueError as error:
        raise ProxyError(400, f"the request body is not JSON: {error}",
                         "invalid_request_error", "invalid_json") from None
    if not isinstance(payload, dict):
        raise ProxyError(400, "the request body must be a JSON object, not "
                         f"{type(payload).__name__}", "invalid_request_error", "invalid_json")
    return payload


_THINKING_KEYS = ("thinking", "enable_thinking")
"""The `chat_template_kwargs` keys by which a request turns thinking on or off (DeepSeek
V3.1's `thinking`; Qwen3's and GLM's `enable_thinking`)."""


def _in_reasoning(payload: Mapping[str, Any], route: Route) -> bool:
    """Whether the answer starts inside a reasoning region (SPEC 9, 11): the route's
    `in_reasoning` (its template opens the region in the prompt), unless the request
    turns thinking off; a request cannot turn it on where the template does not."""
    if not route.in_reasoning:
        return False
    options = payload.get("chat_template_kwargs")
    if isinstance(options, Mapping):
        for key in _THINKING_KEYS:
            if options.get(key) is False:
                return False
    return True


def _rewriter(tools: Any, runtime: RouteRuntime, in_reasoning: bool) -> StreamRewriter[Any]:
    """The request's rewriter; its tools are checked here (a bad one: 400)."""
    try:
        return stream_rewriter(tools=tools, stream_arguments=runtime.route.stream_arguments,
                               **runtime.parser_options(in_reasoning))
    except ToolparseError as error:
        raise ProxyError(400, f"tools: {error}", "invalid_request_error", "invalid_tools") from None


def _rewritten_completion(answer: bytes, tools: Any, runtime: RouteRuntime,
                          in_reasoning: bool) -> tuple[bytes, str | None]:
    """The answer rewritten, or as it came with the reason it was not (the warning)."""
    try:
        completion = loads(answer)
    except ValueError as error:
        return _unchanged(answer, "not JSON" if not isinstance(error, TooDeep) else str(error))
    try:
        rewritten = rewrite_completion(completion, tools=tools,
                                       **runtime.parser_options(in_reasoning))
        return dumps(rewritten), None
    except ChunkFormatError:
        return _unchanged(answer, "not a chat.completion")
    except Exception as error:       # SPEC 9: never a 500 for content
        log.error("rewriting the answer failed (%s); it is passed on unchanged",
                  type(error).__name__)
        log.debug("rewrite fault", exc_info=error)
        return answer, f"rewriting the answer failed ({type(error).__name__}); it is as the " \
                       "upstream sent it"


def _unchanged(answer: bytes, why: str) -> tuple[bytes, str]:
    log.warning("upstream answer passed on unchanged: %s", why)
    return answer, f"the upstream's answer is {why}; it is as the upstream sent it"


async def _rewritten(upstream: httpx2.Response, translator: StreamTranslator, watch: Watch,
                     info: RequestInfo) -> AsyncIterator[bytes]:
    async with contextlib.aclosing(_translated(upstream, translator, watch, info)) as outs:
        try:
            async for out in outs:
                yield out
        finally:       # the end, or a client that left: the last log lines go out
            watch.finish()


async def _translated(upstream: httpx2.Response, translator: StreamTranslator, watch: Watch,
                      info: RequestInfo) -> AsyncGenerator[bytes, None]:
    metrics: RouteMetrics = watch.metrics
    metrics.open_streams.inc()
    complete = True
    clock = time.perf_counter
    try:
        async for data in body_of(upstream):
            started = clock()
            if info.first_read is None:
                info.first_read = started
            with watching(watch):
                out = translator.feed(data)
            metrics.chunk.observe(clock() - started)
            if out:
                yield out
            if translator.ended:     # an event too large, or a fault: the stream is over
                break
    except _UPSTREAM_ENDED as error:
        complete = False
        metrics.upstream_error("timeout" if isinstance(error, httpx2.TimeoutException)
                               else "dropped")
        log.warning("upstream stream ended early (%s); ending the client's stream",
                    type(error).__name__)
    finally:
        metrics.open_streams.dec()
        with anyio.CancelScope(shield=True):
            await upstream.aclose()
    with watching(watch):
        tail = translator.finish(complete)
    yield tail
