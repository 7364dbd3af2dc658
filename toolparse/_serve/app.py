"""The ASGI application: routes, the pooled upstream client, errors, the access log.

Routes: `POST /v1/chat/completions` (rewritten, `chat.py`), every other `/v1/*` path
and method passed through, `GET /healthz`. The app holds no state beyond one request
but the upstream connection pool, so any number of processes can serve behind a load
balancer.

Logging (logger `toolparse.serve`): one INFO line per request with the method, the
path without its query, the status and the time taken. Never a header, a query
string, a body or any content.
"""

from __future__ import annotations

import contextlib
import logging
import time
from collections.abc import AsyncIterator
from typing import Any

import anyio
import httpx2
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from toolparse._serve.chat import chat_completions
from toolparse._serve.config import CLIENT_TIMEOUTS, ClientTimeouts, ServeConfig
from toolparse._serve.proxy import (
    ProxyError,
    body_of,
    error_response,
    path_under_v1,
    read_body,
    response_headers,
    upstream_failure,
    upstream_request,
)
from toolparse._serve.transport import AiohttpTransport

__all__ = ["create_app"]

log = logging.getLogger("toolparse.serve")


def create_app(config: ServeConfig) -> ASGIApp:
    """The proxy for `config`, as an ASGI app (run it with uvicorn, or any ASGI server)."""
    holder: dict[str, httpx2.AsyncClient] = {}

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[dict[str, Any]]:
        limits = httpx2.Limits(max_connections=config.max_connections,
                               max_keepalive_connections=min(config.max_connections, 100))
        async with httpx2.AsyncClient(base_url=config.upstream.rstrip("/") + "/",
                                      timeout=httpx2.Timeout(config.timeout),
                                      transport=AiohttpTransport(limits),
                                      follow_redirects=False) as client:
            holder["client"] = client
            # For the server's protocol (protocol.py), which times each client's request.
            yield {CLIENT_TIMEOUTS: ClientTimeouts(config.header_timeout, config.body_timeout)}

    async def chat(request: Request) -> Response:
        return await chat_completions(request, holder["client"], config)

    async def passthrough(request: Request) -> Response:
        return await _passthrough(request, holder["client"], config)

    app = Starlette(
        routes=[Route("/healthz", _health, methods=["GET"]),
                Route("/v1/chat/completions", chat, methods=["POST"]),
                Route("/v1/{path:path}", passthrough,
                      methods=["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"])],
        exception_handlers={ProxyError: _proxy_error, Exception: _internal_error},
        lifespan=lifespan)
    return _AccessLog(app)


async def _health(request: Request) -> Response:
    return JSONResponse({"status": "ok"})


async def _passthrough(request: Request, client: httpx2.AsyncClient,
                       config: ServeConfig) -> Response:
    body = await read_body(request, config.max_body)
    try:
        upstream = await client.send(
            upstream_request(client, request, path_under_v1(request), body), stream=True)
    except httpx2.TransportError as error:
        raise upstream_failure(error, config.timeout) from None
    return StreamingResponse(_relayed(upstream), status_code=upstream.status_code,
                             headers=response_headers(upstream.headers))


async def _relayed(upstream: httpx2.Response) -> AsyncIterator[bytes]:
    try:
        async for data in body_of(upstream):
            yield data
    except (httpx2.TransportError, httpx2.StreamError) as error:
        log.warning("upstream answer ended early (%s)", type(error).__name__)
    finally:
        with anyio.CancelScope(shield=True):
            await upstream.aclose()


async def _proxy_error(request: Request, error: Exception) -> Response:
    assert isinstance(error, ProxyError)
    return error.response()


async def _internal_error(request: Request, error: Exception) -> Response:
    # The type only: an exception's message could quote content.
    log.error("internal error: %s", type(error).__name__)
    log.debug("internal error", exc_info=error)
    return error_response(500, f"internal error in toolparse serve ({type(error).__name__})",
                          "server_error", "internal_error")


class _AccessLog:
    """One line per request, at its end: method, path (no query), status, milliseconds."""

    def __init__(self, app: ASGIApp) -> None:
        self._app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self._app(scope, receive, send)
            return
        started = time.perf_counter()
        status: list[int] = [0]

        async def sending(message: Message) -> None:
            if message["type"] == "http.response.start":
                status[0] = message["status"]
            await send(message)

        try:
            await self._app(scope, receive, sending)
        finally:
            log.info("%s %s %d %.1f ms", scope["method"], scope["path"], status[0],
                     (time.perf_counter() - started) * 1000)
