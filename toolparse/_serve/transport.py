"""The upstream leg's wire: an httpx2 transport over aiohttp's connection pool.

The proxy speaks to the upstream through `httpx2.AsyncClient` (its request building,
URL handling, timeouts, decoding and errors). What goes over the socket is aiohttp's:
its connection pool and its C HTTP parser (llhttp). With httpx2's own transport
(httpcore2 and h11, pure Python) the upstream leg was the largest fixed cost of a
request (docs/serve.md, "Where a request's time goes"); this one does the same
work in about a third of the time.

What the transport keeps of httpx2's contract:
- the request goes out as built: method, URL (as encoded, never re-parsed or
  normalised), headers and body; aiohttp adds no header the request has and asks
  for no compression, and cookies are not kept;
- the body comes back raw (`auto_decompress=False`): httpx2 decodes it, as it does
  over its own transport;
- the request's `timeout` extension applies: pool wait, connect, and each read;
- the environment's proxy settings (`HTTP_PROXY`, `HTTPS_PROXY`, `ALL_PROXY`,
  `NO_PROXY`) apply, as they do to httpx2's own transport, read once per upstream
  origin (aiohttp's `trust_env` would read them, and `~/.netrc`, in a thread on every
  request); credentials from `~/.netrc` are never added, as httpx2 adds none;
  TLS uses aiohttp's default context (the system's certificates);
- failures are httpx2's exceptions: `ConnectTimeout`, `ReadTimeout`, `PoolTimeout`,
  `ConnectError`, `ReadError`, `RemoteProtocolError`;
- closing a response before its end closes its connection (never back to the pool
  with an answer half read); a fully read one goes back to the pool.
"""

from __future__ import annotations

import asyncio
import urllib.request
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager
from types import TracebackType

import aiohttp
import httpx2
import yarl

__all__ = ["AiohttpTransport"]

_SKIP_AUTO_HEADERS = ("Accept", "Accept-Encoding", "User-Agent", "Content-Type")
"""What aiohttp would add on its own: httpx2 builds every header a request sends."""


class AiohttpTransport(httpx2.AsyncBaseTransport):
    """Requests over one aiohttp session, with `limits` as its connection pool."""

    def __init__(self, limits: httpx2.Limits) -> None:
        self._limits = limits
        self._session: aiohttp.ClientSession | None = None
        self._proxies: dict[tuple[str, str, int | None], yarl.URL | None] = {}
        """Origin (scheme, host, port) -> the proxy the environment names for it."""

    def _client(self) -> aiohttp.ClientSession:
        # Made on first use: an aiohttp session belongs to the running event loop.
        if self._session is None:
            limits = self._limits
            connector = aiohttp.TCPConnector(
                limit=limits.max_connections or 0, limit_per_host=0,
                keepalive_timeout=limits.keepalive_expiry or 5.0, force_close=False)
            self._session = aiohttp.ClientSession(
                connector=connector, auto_decompress=False, cookie_jar=aiohttp.DummyCookieJar(),
                skip_auto_headers=_SKIP_AUTO_HEADERS, timeout=aiohttp.ClientTimeout(total=None),
                trust_env=False)   # the proxy settings: _proxy; ~/.netrc: never
        return self._session

    def _proxy(self, url: yarl.URL) -> yarl.URL | None:
        origin = (url.scheme, url.host or "", url.port)
        if origin not in self._proxies:
            self._proxies[origin] = environment_proxy(url)
        return self._proxies[origin]

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        timeout = request.extensions.get("timeout", {})
        client_timeout = aiohttp.ClientTimeout(
            total=None, connect=timeout.get("pool"), sock_connect=timeout.get("connect"),
            sock_read=timeout.get("read"))
        headers = [(name, value) for name, value in request.headers.multi_items()
                   if name.lower() != "content-length"]
        url = yarl.URL(str(request.url), encoded=True)
        with _mapped(request, connecting=True):
            response = await self._client().request(
                request.method, url, data=request.content, headers=headers,
                allow_redirects=False, timeout=client_timeout, compress=None, chunked=None,
                read_until_eof=True, proxy=self._proxy(url))
        return httpx2.Response(
            status_code=response.status, headers=list(response.raw_headers),
            stream=_Body(response, request), extensions={"http_version": b"HTTP/1.1"})

    async def aclose(self) -> None:
        if self._session is not None:
            session, self._session = self._session, None
            await session.close()

    async def __aexit__(self, exc_type: type[BaseException] | None = None,
                        exc_value: BaseException | None = None,
                        traceback: TracebackType | None = None) -> None:
        await self.aclose()


class _Body(httpx2.AsyncByteStream):
    """A response body as aiohttp reads it: what each read has, as it comes."""

    def __init__(self, response: aiohttp.ClientResponse, request: httpx2.Request) -> None:
        self._response = response
        self._request = request

    async def __aiter__(self) -> AsyncIterator[bytes]:
        with _mapped(self._request, connecting=False):
            async for data in self._response.content.iter_any():
                yield data

    async def aclose(self) -> None:
        response = self._response
        if response.content.at_eof():
            response.release()   # read to its end: the connection goes back to the pool
        else:
            response.close()     # half read: the connection is closed, never reused


def environment_proxy(url: yarl.URL) -> yarl.URL | None:
    """The proxy the environment names for `url` (`<scheme>_PROXY`, else `ALL_PROXY`),
    or None: none named, or `NO_PROXY` covers its host."""
    proxies = urllib.request.getproxies_environment()
    proxy = proxies.get(url.scheme) or proxies.get("all")
    if not proxy or urllib.request.proxy_bypass(url.host or ""):
        return None
    return yarl.URL(proxy if "://" in proxy else "http://" + proxy)


@contextmanager
def _mapped(request: httpx2.Request, connecting: bool) -> Iterator[None]:
    """aiohttp's failures as httpx2's (the proxy answers those: 502, 504)."""
    try:
        yield
    except aiohttp.ConnectionTimeoutError as error:
        raise httpx2.ConnectTimeout(str(error) or "connect timeout", request=request) from error
    except (aiohttp.SocketTimeoutError, aiohttp.ServerTimeoutError) as error:
        raise httpx2.ReadTimeout(str(error) or "read timeout", request=request) from error
    except asyncio.TimeoutError as error:   # the pool wait ("connect" in aiohttp's terms)
        kind = httpx2.PoolTimeout if connecting else httpx2.ReadTimeout
        raise kind(str(error) or "timeout", request=request) from error
    except aiohttp.ClientConnectorError as error:
        raise httpx2.ConnectError(str(error), request=request) from error
    except (aiohttp.ClientPayloadError, aiohttp.ServerDisconnectedError,
            aiohttp.ClientResponseError) as error:
        raise httpx2.RemoteProtocolError(str(error), request=request) from error
    except aiohttp.ClientError as error:
        raise httpx2.ReadError(str(error), request=request) from error
