"""The upstream leg's transport (httpx2 over aiohttp): what goes out is what httpx2
built, connections are pooled and never reused half read, and every failure is the
httpx2 exception the proxy maps to 502 or 504. Against a raw asyncio server on
127.0.0.1 that records every byte and answers by the request's path."""

from __future__ import annotations

import asyncio
import gzip
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import httpx2
import pytest

from toolparse._serve.transport import AiohttpTransport

Answer = Callable[[asyncio.StreamWriter], Awaitable[None]]


class Server:
    """Answers each request by its path (`answers`); records heads and connections."""

    def __init__(self) -> None:
        self.heads: list[bytes] = []
        self.bodies: list[bytes] = []
        self.connections = 0
        self.closed = 0
        self.port = 0
        self._server: asyncio.Server | None = None

    async def __aenter__(self) -> Server:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]
        return self

    async def __aexit__(self, *exc: object) -> None:
        assert self._server is not None
        self._server.close()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                length = next((int(line.split(b":")[1]) for line in head.split(b"\r\n")
                               if line.lower().startswith(b"content-length:")), 0)
                self.heads.append(head)
                self.bodies.append(await reader.readexactly(length))
                path = head.split(b" ")[1]
                await ANSWERS.get(path.split(b"?")[0], _ok)(writer)
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            self.closed += 1
            writer.close()


async def _ok(writer: asyncio.StreamWriter) -> None:
    writer.write(b"HTTP/1.1 200 OK\r\ncontent-length: 5\r\nx-up: 1\r\nx-up: 2\r\n\r\nhello")
    await writer.drain()


async def _chunked(writer: asyncio.StreamWriter) -> None:
    writer.write(b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n")
    for n in range(40):
        writer.write(b"6\r\npart%02d\r\n" % n)
        await writer.drain()
        await asyncio.sleep(0.005)
    writer.write(b"0\r\n\r\n")
    await writer.drain()


async def _slow_head(writer: asyncio.StreamWriter) -> None:
    await asyncio.sleep(2)


async def _stalls(writer: asyncio.StreamWriter) -> None:
    writer.write(b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n4\r\nsome\r\n")
    await writer.drain()
    await asyncio.sleep(2)


async def _drops(writer: asyncio.StreamWriter) -> None:
    writer.write(b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n4\r\nsome\r\n")
    await writer.drain()
    raise ConnectionError("dropped")


async def _gzipped(writer: asyncio.StreamWriter) -> None:
    body = gzip.compress(b"unpacked")
    writer.write(b"HTTP/1.1 200 OK\r\ncontent-encoding: gzip\r\ncontent-length: %d\r\n\r\n%s"
                 % (len(body), body))
    await writer.drain()


ANSWERS: dict[bytes, Answer] = {b"/v1/chunked": _chunked, b"/v1/slow": _slow_head,
                                b"/v1/stalls": _stalls, b"/v1/drops": _drops,
                                b"/v1/gzip": _gzipped}


async def client_for(server: Server, timeout: float = 5) -> AsyncIterator[httpx2.AsyncClient]:
    async with httpx2.AsyncClient(
            base_url=f"http://127.0.0.1:{server.port}/v1/", timeout=httpx2.Timeout(timeout),
            transport=AiohttpTransport(httpx2.Limits(max_connections=10))) as client:
        yield client


def run(test: Callable[[Server, httpx2.AsyncClient], Awaitable[Any]], timeout: float = 5) -> Any:
    async def main() -> Any:
        async with Server() as server:
            async for client in client_for(server, timeout):
                return await test(server, client)
    return asyncio.run(main())


def test_the_request_goes_out_as_httpx2_built_it() -> None:
    async def test(server: Server, client: httpx2.AsyncClient) -> httpx2.Response:
        url = client.base_url.copy_with(raw_path=b"/v1/a%2Fb/c%7E?q=%20x")
        request = client.build_request("POST", url, content=b'{"k": 1}', headers=[
            ("authorization", "Bearer k"), ("user-agent", "the-client/1"),
            ("accept-encoding", "identity")])
        return await client.send(request)
    response = None

    async def main() -> None:
        nonlocal response
        async with Server() as server:
            async for client in client_for(server):
                response = await test(server, client)
            head = server.heads[0].decode().split("\r\n")
            assert head[0] == "POST /v1/a%2Fb/c%7E?q=%20x HTTP/1.1"   # never re-encoded
            fields = [line.lower() for line in head[1:] if line]
            assert "authorization: bearer k" in fields
            assert "user-agent: the-client/1" in fields            # not aiohttp's
            assert "accept-encoding: identity" in fields            # not gzip, deflate
            assert sum(f.startswith("accept-encoding") for f in fields) == 1
            assert "content-length: 8" in fields
            assert server.bodies == [b'{"k": 1}']
    asyncio.run(main())
    assert response is not None
    assert response.status_code == 200 and response.text == "hello"
    assert response.headers.get_list("x-up") == ["1", "2"]


def test_connections_are_pooled_and_a_half_read_one_is_closed() -> None:
    async def test(server: Server, client: httpx2.AsyncClient) -> None:
        for _ in range(3):
            assert (await client.get("ok")).text == "hello"
        assert server.connections == 1                        # kept alive, reused
        response = await client.send(client.build_request("GET", "chunked"), stream=True)
        parts = response.aiter_raw()
        assert await parts.__anext__() == b"part00"
        await response.aclose()                                # half read
        for _ in range(50):
            if server.closed == 1:
                break
            await asyncio.sleep(0.02)
        assert server.closed == 1                              # that connection is gone
        assert (await client.get("ok")).text == "hello"
        assert server.connections == 2                         # not reused half read
        whole = await client.get("chunked")
        assert whole.content == b"".join(b"part%02d" % n for n in range(40))
    run(test)


def test_a_compressed_body_comes_raw_and_httpx2_decodes_it() -> None:
    async def test(server: Server, client: httpx2.AsyncClient) -> None:
        response = await client.send(client.build_request("GET", "gzip"), stream=True)
        assert b"".join([part async for part in response.aiter_raw()]) != b"unpacked"
        response = await client.get("gzip")
        assert response.content == b"unpacked"
    run(test)


def test_failures_are_httpx2_exceptions() -> None:
    async def test(server: Server, client: httpx2.AsyncClient) -> None:
        with pytest.raises(httpx2.ReadTimeout):
            await client.get("slow")
        for path in ("stalls", "drops"):
            response = await client.send(client.build_request("GET", path), stream=True)
            with pytest.raises(httpx2.ReadTimeout if path == "stalls"
                               else httpx2.RemoteProtocolError):
                async for _ in response.aiter_raw():
                    pass
            await response.aclose()
    run(test, timeout=0.5)


def test_an_unreachable_upstream_is_a_connect_error() -> None:
    async def main() -> None:
        async with Server() as server:
            port = server.port
        async with httpx2.AsyncClient(transport=AiohttpTransport(httpx2.Limits())) as client:
            with pytest.raises(httpx2.ConnectError):
                await client.get(f"http://127.0.0.1:{port}/v1/ok")
    asyncio.run(main())


_PROXY_VARIABLES = ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY",
                    "http_proxy", "https_proxy", "all_proxy", "no_proxy")


@pytest.fixture
def clean_environment(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    for name in _PROXY_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    return monkeypatch


def test_the_environments_proxy_is_used_unless_no_proxy_names_the_host(
        clean_environment: pytest.MonkeyPatch) -> None:
    async def main() -> None:
        async with Server() as proxy, Server() as upstream:
            clean_environment.setenv("HTTP_PROXY", f"http://127.0.0.1:{proxy.port}")
            async with httpx2.AsyncClient(transport=AiohttpTransport(httpx2.Limits())) as client:
                assert (await client.get("http://upstream.invalid/v1/ok")).text == "hello"
                # The proxy saw the request in absolute form, for the named host.
                assert proxy.heads[0].startswith(b"GET http://upstream.invalid/v1/ok HTTP/1.1")
            clean_environment.setenv("NO_PROXY", "127.0.0.1")
            async with httpx2.AsyncClient(transport=AiohttpTransport(httpx2.Limits())) as client:
                assert (await client.get(f"http://127.0.0.1:{upstream.port}/v1/ok")).text == "hello"
            assert len(proxy.heads) == 1 and upstream.heads[0].startswith(b"GET /v1/ok ")
    asyncio.run(main())


def test_netrc_credentials_are_never_added(clean_environment: pytest.MonkeyPatch,
                                           tmp_path: Any) -> None:
    """httpx2 adds no ~/.netrc credentials on its own, and neither does its transport:
    a client of the proxy must not be sent upstream with the server's own login."""
    netrc = tmp_path / "netrc"
    netrc.write_text("machine 127.0.0.1 login operator password secret\n")
    netrc.chmod(0o600)
    clean_environment.setenv("NETRC", str(netrc))

    async def test(server: Server, client: httpx2.AsyncClient) -> None:
        assert (await client.get("ok")).text == "hello"
        assert (await client.get("ok", headers={"authorization": "Bearer client"})).text == "hello"
        assert b"authorization" not in server.heads[0].lower()
        assert b"authorization: bearer client" in server.heads[1].lower()
    run(test)
