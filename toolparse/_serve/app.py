"""The ASGI application: routes, the pooled upstream clients, errors, the access log,
the metrics.

Routes: `POST /v1/chat/completions` (rewritten, `chat.py`), `GET /v1/models` (every
upstream's models, each with the route it takes: `models.py`), every other `/v1/*`
path and method passed through to the upstream of the route its body's `model` takes
(or the first route's, for a request that names no model), `GET /healthz`,
`GET /metrics`. The app holds no state beyond one request but the upstream
connection pools and the metrics, so any number of processes can serve behind a load
balancer.

Logging (logger `toolparse.serve`, `logs.py`): one INFO line per request with its id,
route, method, path without its query, status and time taken; one line per failed
block, rejected call and foreign-markup sighting (`observe.py`). Never a header, a
query string, a body or a whole answer.
"""

from __future__ import annotations

import contextlib
import logging
import time
from collections.abc import AsyncIterator, Mapping
from typing import Any

import anyio
import httpx2
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from toolparse._serve.chat import chat_completions, no_route, upstream_error
from toolparse._serve.codec import loads
from toolparse._serve.config import CLIENT_TIMEOUTS, ClientTimeouts, ServeConfig, Upstream
from toolparse._serve.logs import log, log_event, new_request_id
from toolparse._serve.metrics import CONTENT_TYPE, Metrics
from toolparse._serve.models import list_models
from toolparse._serve.observe import install
from toolparse._serve.proxy import (
    INFO,
    ProxyError,
    RequestInfo,
    body_of,
    error_response,
    info_of,
    path_under_v1,
    read_body,
    response_headers,
    upstream_request,
)
from toolparse._serve.routing import Router, RouteRuntime
from toolparse._serve.transport import AiohttpTransport

__all__ = ["REQUEST_ID_HEADER", "create_app"]

REQUEST_ID_HEADER = "x-toolparse-request-id"
"""The id of the request in the proxy's log lines, sent back on every answer."""


def create_app(config: ServeConfig, metrics: Metrics | None = None) -> ASGIApp:
    """The proxy for `config`, as an ASGI app (run it with uvicorn, or any ASGI server).
    `metrics`: where it counts (a registry of its own by default)."""
    install()
    metrics = metrics or Metrics()
    router = Router(config, metrics)
    clients: dict[str, httpx2.AsyncClient] = {}

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[dict[str, Any]]:
        async with contextlib.AsyncExitStack() as stack:
            for upstream in router.upstreams.values():
                clients[upstream.name] = await stack.enter_async_context(
                    _client(upstream, config.max_connections))
            # For the server's protocol (protocol.py), which times each client's request.
            yield {CLIENT_TIMEOUTS: ClientTimeouts(config.header_timeout, config.body_timeout)}

    async def chat(request: Request) -> Response:
        return await chat_completions(request, router, clients, config)

    async def models(request: Request) -> Response:
        return await list_models(request, router, clients)

    async def passthrough(request: Request) -> Response:
        return await _passthrough(request, router, clients, config)

    async def exposition(request: Request) -> Response:
        return Response(metrics.exposition(), media_type=CONTENT_TYPE)

    app = Starlette(
        routes=[Route("/healthz", _health, methods=["GET"]),
                Route("/metrics", exposition, methods=["GET"]),
                Route("/v1/chat/completions", chat, methods=["POST"]),
                Route("/v1/models", models, methods=["GET"]),
                Route("/v1/{path:path}", passthrough,
                      methods=["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"])],
        exception_handlers={ProxyError: _proxy_error, Exception: _internal_error},
        lifespan=lifespan)
    return _AccessLog(app, router)


def _client(upstream: Upstream, max_connections: int) -> httpx2.AsyncClient:
    limits = httpx2.Limits(max_connections=max_connections,
                           max_keepalive_connections=min(max_connections, 100))
    timeout = httpx2.Timeout(upstream.timeout, connect=upstream.connect_timeout
                             if upstream.connect_timeout is not None else upstream.timeout)
    return httpx2.AsyncClient(base_url=upstream.url.rstrip("/") + "/", timeout=timeout,
                              transport=AiohttpTransport(limits), follow_redirects=False)


async def _health(request: Request) -> Response:
    return JSONResponse({"status": "ok"})


async def _passthrough(request: Request, router: Router,
                       clients: Mapping[str, httpx2.AsyncClient], config: ServeConfig) -> Response:
    body = await read_body(request, config.max_body)
    path = path_under_v1(request)
    runtime = _route_of(router, body)
    info_of(request).route = runtime
    client = clients[runtime.upstream.name]
    try:
        upstream = await client.send(
            upstream_request(client, request, path, body, runtime.api_key), stream=True)
    except httpx2.TransportError as error:
        raise upstream_error(error, runtime) from None
    if upstream.status_code >= 400:
        runtime.metrics.upstream_error("status_5xx" if upstream.status_code >= 500
                                       else "status_4xx")
    return StreamingResponse(_relayed(upstream, runtime), status_code=upstream.status_code,
                             headers=response_headers(upstream.headers))


def _route_of(router: Router, body: bytes) -> RouteRuntime:
    """The route of a passed-through request: the one its JSON body's `model` takes (a
    404 when none does), or the first route's when it names no model."""
    model = None
    if body[:1] == b"{" or body.lstrip()[:1] == b"{":
        try:
            payload = loads(body)
        except ValueError:
            payload = None
        if isinstance(payload, dict) and isinstance(payload.get("model"), str):
            model = payload["model"]
    if model is None:
        return router.first()
    runtime = router.match(model)
    if runtime is None:
        raise no_route(model)
    return runtime


async def _relayed(upstream: httpx2.Response, runtime: RouteRuntime) -> AsyncIterator[bytes]:
    try:
        async for data in body_of(upstream):
            yield data
    except (httpx2.TransportError, httpx2.StreamError) as error:
        runtime.metrics.upstream_error("timeout" if isinstance(error, httpx2.TimeoutException)
                                       else "dropped")
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
    """Per request, at its end: one log line (id, route, method, path without its query,
    status, milliseconds) and its metrics (count by route and status, whole time, the
    latency added before the first byte). Each answer carries the request's id."""

    def __init__(self, app: ASGIApp, router: Router) -> None:
        self._app = app
        self._router = router

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not scope["path"].startswith("/v1/"):
            await self._app(scope, receive, send)
            return
        clock = time.perf_counter
        info = scope[INFO] = RequestInfo(new_request_id(), clock())
        status: list[int] = [0]
        first_out: list[float] = []
        request_id = info.request_id.encode()

        async def sending(message: Message) -> None:
            if message["type"] == "http.response.start":
                status[0] = message["status"]
                message = {**message, "headers": [*message.get("headers", ()),
                                                  (REQUEST_ID_HEADER.encode(), request_id)]}
            elif not first_out and message.get("body"):
                first_out.append(clock())
            await send(message)

        try:
            await self._app(scope, receive, sending)
        finally:
            self._done(info, scope, status[0], first_out[0] if first_out else None)

    def _done(self, info: RequestInfo, scope: Scope, status: int,
              first_out: float | None) -> None:
        ended = time.perf_counter()
        runtime = info.route
        metrics = runtime.metrics if runtime is not None else self._router.unrouted
        metrics.request(status)
        metrics.request_time.observe(ended - info.started)
        if first_out is not None and info.upstream_sent is not None \
                and info.first_read is not None:
            added = (info.upstream_sent - info.started) + max(first_out - info.first_read, 0.0)
            metrics.first_byte.observe(added)
        log_event(logging.INFO, "request", request_id=info.request_id, route=metrics.name,
                  method=scope["method"], path=scope["path"], status=status,
                  ms=round((ended - info.started) * 1000, 1))
