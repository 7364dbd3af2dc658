"""Forwarding: which headers go where, reading a bounded body, the proxy's own errors.

Errors the proxy makes itself are OpenAI-shaped (`{"error": {"message", "type",
"code"}}`), so the openai client raises them as `APIStatusError` with that message.
Errors the upstream makes pass through as they came (status, body, content type).
"""

from __future__ import annotations

import functools
import time
from collections.abc import AsyncIterator, Iterable, Mapping
from typing import Any
from urllib.parse import quote, unquote_to_bytes

import httpx2
from starlette.requests import ClientDisconnect, Request
from starlette.responses import Response

from toolparse._serve.codec import dumps

__all__ = ["INFO", "ProxyError", "RequestInfo", "body_of", "error_response", "info_of",
           "path_under_v1", "read_body", "request_headers", "response_headers",
           "upstream_failure", "upstream_request"]

INFO = "toolparse.request"
"""The key of a request's `RequestInfo` in its ASGI scope."""


class RequestInfo:
    """What the access log and the metrics need to know of one request, filled in as
    it is answered (`app._AccessLog` makes it; the routes fill it)."""

    __slots__ = ("request_id", "started", "route", "upstream_sent", "first_read")

    def __init__(self, request_id: str, started: float) -> None:
        self.request_id = request_id
        self.started = started
        self.route: Any = None
        """The route it took (a `routing.RouteRuntime`), once known."""
        self.upstream_sent: float | None = None
        """When its upstream request was sent (`time.perf_counter()`)."""
        self.first_read: float | None = None
        """When the upstream's answer first arrived: its first read of a stream, or the
        whole of a JSON answer."""


def info_of(request: Request) -> RequestInfo:
    """The request's `RequestInfo` (a fresh one when the app runs without its access
    log, as a test may)."""
    info = request.scope.get(INFO)
    if info is None:
        info = request.scope[INFO] = RequestInfo("-", time.perf_counter())
    return info


_HOP_BY_HOP = frozenset({
    "connection", "keep-alive", "proxy-authenticate", "proxy-authorization", "te",
    "trailer", "trailers", "transfer-encoding", "upgrade",
})
"""Headers that belong to one connection (RFC 9110 section 7.6.1), never forwarded."""

_NOT_FORWARDED = _HOP_BY_HOP | {"host", "content-length", "accept-encoding"}
"""Request headers the upstream client sets itself. Everything else, `Authorization`
included, goes to the upstream unchanged."""

_IDENTITY = ("accept-encoding", "identity")
"""What the proxy asks of the upstream instead: the answer as it is (the proxy reads
every byte of it, and a stream of small events gains little from compression)."""

_NOT_RETURNED = _HOP_BY_HOP | {"content-length", "content-encoding", "date", "server"}
"""Response headers the proxy's own server sets (the body it sends is decoded)."""


class ProxyError(Exception):
    """A request the proxy answers itself, with this status and message."""

    def __init__(self, status: int, message: str, kind: str, code: str) -> None:
        super().__init__(message)
        self.status = status
        self.kind = kind
        self.code = code

    def response(self) -> Response:
        return error_response(self.status, str(self), self.kind, self.code)


def error_response(status: int, message: str, kind: str, code: str) -> Response:
    body = {"error": {"message": message, "type": kind, "param": None, "code": code}}
    return Response(dumps(body), status_code=status, media_type="application/json")


def upstream_request(client: httpx2.AsyncClient, request: Request, path: bytes,
                     body: bytes, api_key: str | None = None) -> httpx2.Request:
    """The request to send upstream for `request`: its method, body and end-to-end
    headers, to `path` (raw, percent-encoded) under the upstream's base URL, with the
    query string it came with (if any). With `api_key` (the upstream's own), that key
    is sent in place of the client's `Authorization` header."""
    base = str(client.base_url)
    url = _under(base, path) if len(path) <= 256 else _under.__wrapped__(base, path)
    headers = request_headers(request.headers.items(), api_key)
    query = request.url.query
    if query:
        return client.build_request(request.method, url, content=body, headers=headers,
                                    params=query)
    return client.build_request(request.method, url, content=body, headers=headers)


def path_under_v1(request: Request) -> bytes:
    """What follows `/v1/` in the request's path, as it came (percent-encoded).

    ProxyError 400 for a path with a `.` or `..` segment, however spelled (`%2e`,
    `..%2f`, a backslash): httpx2 would resolve the literal ones (`/v1/../admin` would
    reach the upstream's `/admin`, outside the base path the proxy was given), and an
    upstream may resolve the encoded ones."""
    raw = request.scope.get("raw_path") or quote(request.scope["path"]).encode()
    path = raw[len(b"/v1/"):] if raw.startswith(b"/v1/") else \
        quote(request.path_params["path"]).encode()
    query = path.find(b"?")
    segments = unquote_to_bytes(path if query < 0 else path[:query]).replace(b"\\", b"/")
    if any(segment in (b".", b"..") for segment in segments.split(b"/")):
        raise ProxyError(400, "the path has a '.' or '..' segment: the proxy forwards "
                         "only paths under the upstream's base path",
                         "invalid_request_error", "invalid_path")
    return path


@functools.lru_cache(maxsize=256)
def _under(base: str, path: bytes) -> httpx2.URL:
    # The path is appended to the base URL's path, never read as a URL of its own: a
    # client's `/v1/http://elsewhere/...` or `/v1//elsewhere/...` stays on the upstream
    # (no request to another host). Each short path is built once (building a URL is
    # most of the cost of building a request in httpx2); long ones are not kept.
    url = httpx2.URL(base)
    return url.copy_with(raw_path=url.raw_path.rstrip(b"/") + b"/" + path.lstrip(b"/"))


def request_headers(headers: Iterable[tuple[str, str]],
                    api_key: str | None = None) -> list[tuple[str, str]]:
    if api_key is None:
        return [*((name, value) for name, value in headers
                  if name.lower() not in _NOT_FORWARDED), _IDENTITY]
    return [*((name, value) for name, value in headers
              if name.lower() not in _NOT_FORWARDED and name.lower() != "authorization"),
            ("authorization", f"Bearer {api_key}"), _IDENTITY]


def body_of(upstream: httpx2.Response) -> AsyncIterator[bytes]:
    """The upstream's body as it arrives, decoded: read raw when it came unencoded (as
    asked), which skips a decoding layer per read."""
    if upstream.headers.get("content-encoding", "identity").lower() == "identity":
        return upstream.aiter_raw()
    return upstream.aiter_bytes()


def response_headers(headers: Mapping[str, str] | httpx2.Headers) -> dict[str, str]:
    return {name: value for name, value in headers.items() if name.lower() not in _NOT_RETURNED}


async def read_body(request: Request, limit: int) -> bytes:
    """The request body, or ProxyError 413 as soon as it is known to exceed `limit`."""
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > limit:
        raise _too_large(limit)
    parts: list[bytes] = []
    size = 0
    try:
        async for part in request.stream():
            size += len(part)
            if size > limit:
                raise _too_large(limit)
            parts.append(part)
    except ClientDisconnect:
        # Gone before the whole body came (or dropped by --body-timeout): nobody reads
        # this answer, but the access log shows why the request ended (nginx's 499).
        raise ProxyError(499, "the client closed the connection before sending the whole "
                         "body", "invalid_request_error", "client_closed_request") from None
    return b"".join(parts)


def _too_large(limit: int) -> ProxyError:
    return ProxyError(413, f"request body larger than {limit} bytes (the server's --max-body)",
                      "invalid_request_error", "request_too_large")


def upstream_failure(error: httpx2.TransportError, timeout: float) -> ProxyError:
    """The proxy's answer when the upstream could not be reached or did not answer
    (its `code`: `upstream_timeout` or `upstream_unreachable`)."""
    if isinstance(error, httpx2.TimeoutException):
        return ProxyError(504, f"the upstream did not answer within {timeout:g} s "
                          "(the server's --timeout)", "upstream_error", "upstream_timeout")
    return ProxyError(502, f"the upstream could not be reached ({type(error).__name__})",
                      "upstream_error", "upstream_unreachable")
