"""`POST /v1/chat/completions`: forwarded, and the answer rewritten by SPEC 8 with the
request's own `tools`.

A streaming answer is rewritten and sent on one upstream read at a time, never
buffered. If the upstream stops mid-stream (a dropped connection, a read timeout) the
client's stream still ends cleanly: the text held so far, each open choice's
finish_reason by SPEC 8's rules, and `[DONE]`. If the client goes away, the upstream
request is closed with it (shielded from the cancellation, so the connection is
released whatever happens).
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Mapping
from typing import Any

import anyio
import httpx2
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse

from toolparse._errors import ChunkFormatError, ToolparseError
from toolparse._serve.config import ServeConfig
from toolparse._serve.proxy import (
    ProxyError,
    body_of,
    read_body,
    response_headers,
    upstream_failure,
    upstream_request,
)
from toolparse._serve.sse import EventTooLarge, StreamTranslator, dumps, loads
from toolparse.openai import StreamRewriter, rewrite_completion, stream_rewriter

__all__ = ["chat_completions"]

log = logging.getLogger("toolparse.serve")

_UPSTREAM_ENDED = (httpx2.TransportError, httpx2.StreamError, EventTooLarge)
"""What an upstream that stops mid-answer raises (a drop, a read timeout, a protocol
error, bytes that are not SSE): the client's stream is ended cleanly instead."""


async def chat_completions(request: Request, client: httpx2.AsyncClient,
                           config: ServeConfig) -> Response:
    body = await read_body(request, config.max_body)
    payload = _request_object(body)
    tools = payload.get("tools")
    rewriter = _rewriter(tools, config)
    try:
        upstream = await client.send(upstream_request(client, request, b"chat/completions", body),
                                     stream=True)
    except httpx2.TransportError as error:
        raise upstream_failure(error, config.timeout) from None
    content_type = upstream.headers.get("content-type", "")
    headers = response_headers(upstream.headers)   # x-request-id, rate limits, ...
    if upstream.status_code == 200 and content_type.startswith("text/event-stream"):
        headers.update({"cache-control": "no-cache", "x-accel-buffering": "no"})
        return StreamingResponse(_rewritten(upstream, StreamTranslator(rewriter)),
                                 media_type="text/event-stream", headers=headers)
    try:
        answer = await upstream.aread()
    except httpx2.TransportError as error:
        raise upstream_failure(error, config.timeout) from None
    finally:
        await upstream.aclose()
    if upstream.status_code != 200:   # the upstream's own error, as it came
        return Response(answer, status_code=upstream.status_code, headers=headers)
    return Response(_rewritten_completion(answer, tools, config), headers=headers,
                    media_type="application/json")


def _request_object(body: bytes) -> Mapping[str, Any]:
    try:
        payload = loads(body)
    except ValueError as error:
        raise ProxyError(400, f"the request body is not JSON: {error}",
                         "invalid_request_error", "invalid_json") from None
    if not isinstance(payload, dict):
        raise ProxyError(400, "the request body must be a JSON object, not "
                         f"{type(payload).__name__}", "invalid_request_error", "invalid_json")
    return payload


def _rewriter(tools: Any, config: ServeConfig) -> StreamRewriter[Any]:
    """The request's rewriter; its tools are checked here (a bad one: 400)."""
    try:
        return stream_rewriter(tools=tools, dialect=config.dialect,
                               stream_arguments=config.stream_arguments,
                               on_rejected=config.on_rejected)
    except ToolparseError as error:
        raise ProxyError(400, f"tools: {error}", "invalid_request_error", "invalid_tools") from None


def _rewritten_completion(answer: bytes, tools: Any, config: ServeConfig) -> bytes:
    try:
        completion = loads(answer)
        rewritten = rewrite_completion(completion, tools=tools, dialect=config.dialect,
                                       on_rejected=config.on_rejected)
    except (ValueError, ChunkFormatError) as error:
        log.warning("upstream answer passed on unchanged: %s", type(error).__name__)
        return answer
    return dumps(rewritten)


async def _rewritten(upstream: httpx2.Response, translator: StreamTranslator) -> AsyncIterator[bytes]:
    try:
        async for data in body_of(upstream):
            out = translator.feed(data)
            if out:
                yield out
    except _UPSTREAM_ENDED as error:
        log.warning("upstream stream ended early (%s); ending the client's stream",
                    type(error).__name__)
    finally:
        with anyio.CancelScope(shield=True):
            await upstream.aclose()
    yield translator.finish()
