"""`toolparse serve` (SPEC 9), end to end: the official openai client against a real
uvicorn server on 127.0.0.1, in front of a fake upstream that replays answers whose
tool calls are text (test_serve_support.py). The client must see exactly what SPEC 8
makes of `parse()`'s view.
"""

from __future__ import annotations

import asyncio
import json
import logging
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2
import openai
import pytest
from openai.lib.streaming.chat import ChatCompletionStreamState

from toolparse._serve import ServeConfig
from test_openai_support import TOOLS, call_text, expected_view
from test_serve_support import (
    Running,
    UpstreamLog,
    fake_upstream,
    running,
    running_proxy,
    wait_until,
)

REPO = Path(__file__).resolve().parents[1]
READ = call_text("read_file", path="a.md")
RECORDED = sorted((REPO / "corpus" / "realistic").glob("*.txt"))[:12]
ANSWERS = [
    "Let me read it.\n" + READ + "\nDone.",
    "In Markdown, write `<tool_calls>` like this:\n```\n" + READ + "\n```\nThat was an example.",
    "Two: " + READ + call_text("add", a="1", b="2"),
    "Cut off: " + READ[:40],
    *(path.read_text(encoding="utf-8") for path in RECORDED),
]


@pytest.fixture(scope="module")
def upstream() -> Iterator[tuple[Running, UpstreamLog]]:
    log = UpstreamLog()
    with running(fake_upstream(log)) as server:
        yield server, log


@pytest.fixture(scope="module")
def proxy(upstream: tuple[Running, UpstreamLog]) -> Iterator[Running]:
    config = ServeConfig(upstream=upstream[0].url + "/v1", timeout=1.0, max_body=64 * 1024)
    with running_proxy(config) as server:
        yield server


@pytest.fixture
def client(proxy: Running) -> Iterator[openai.OpenAI]:
    with openai.OpenAI(base_url=proxy.url + "/v1", api_key="sk-secret-key", max_retries=0,
                       timeout=20) as client:
        yield client


def ask(client: openai.OpenAI, text: str, model: str = "replay", **options: Any) -> Any:
    return client.chat.completions.create(
        model=model, messages=[{"role": "user", "content": text}], **options)


def streamed(client: openai.OpenAI, text: str, **options: Any) -> Any:
    state = ChatCompletionStreamState()
    for chunk in ask(client, text, stream=True, stream_options={"include_usage": True}, **options):
        state.handle_chunk(chunk)
    return state.get_final_completion()


def calls_of(message: Any) -> list[tuple[str, str]]:
    return [(call.function.name, call.function.arguments) for call in message.tool_calls or []]


def without_ids(calls: list[tuple[str, str, str]]) -> list[tuple[str, str]]:
    return [(name, arguments) for _, name, arguments in calls]


# ---- the client sees parse()'s view ---------------------------------------------------------

@pytest.mark.parametrize("answer", ANSWERS, ids=range(len(ANSWERS)))
def test_streaming_with_tools_is_parse_view(client: openai.OpenAI, answer: str) -> None:
    final = streamed(client, answer, tools=TOOLS)
    expected = expected_view(answer, tools=TOOLS)
    choice = final.choices[0]
    assert (choice.message.content or "") == expected.content
    assert calls_of(choice.message) == without_ids(expected.calls)
    assert choice.finish_reason == expected.finish
    assert final.usage is not None and final.usage.total_tokens == 12


@pytest.mark.parametrize("answer", ANSWERS[:4], ids=range(4))
def test_non_streaming_with_tools_is_parse_view(client: openai.OpenAI, answer: str) -> None:
    completion = ask(client, answer, tools=TOOLS)
    expected = expected_view(answer, tools=TOOLS)
    choice = completion.choices[0]
    assert (choice.message.content or "") == expected.content
    assert calls_of(choice.message) == without_ids(expected.calls)
    assert choice.finish_reason == expected.finish
    assert all(call.id.startswith("call_") for call in choice.message.tool_calls or [])


def test_without_tools_calls_come_out_unchecked(client: openai.OpenAI) -> None:
    answer = "Sure. " + call_text("anything_at_all", x="1")
    final = streamed(client, answer)
    assert calls_of(final.choices[0].message) == [("anything_at_all", '{"x":1}')]
    assert final.choices[0].finish_reason == "tool_calls"
    assert final.choices[0].message.content == "Sure. "


def test_a_rejected_call_comes_back_as_text(client: openai.OpenAI) -> None:
    answer = "Deleting. " + call_text("rm_rf", path="/")
    final = streamed(client, answer, tools=TOOLS)
    assert final.choices[0].message.tool_calls in (None, [])
    assert final.choices[0].message.content == answer
    assert final.choices[0].finish_reason == "stop"


def test_upstream_answers_json_to_a_stream_request(client: openai.OpenAI) -> None:
    completion = ask(client, "Hi " + READ, model="json", stream=False)
    assert calls_of(completion.choices[0].message) == [("read_file", '{"path":"a.md"}')]
    raw = httpx2.post(client.base_url.join("chat/completions"), json={
        "model": "json", "stream": True, "messages": [{"role": "user", "content": READ}]})
    assert raw.json()["choices"][0]["message"]["tool_calls"][0]["function"]["name"] == "read_file"


def test_authorization_is_forwarded_and_other_routes_pass_through(
        client: openai.OpenAI, upstream: tuple[Running, UpstreamLog]) -> None:
    models = client.models.list()
    assert [model.id for model in models.data] == ["raw-model"]
    assert upstream[1].requests[-1]["headers"]["authorization"] == "Bearer sk-secret-key"
    ask(client, "hello")
    assert upstream[1].requests[-1]["headers"]["authorization"] == "Bearer sk-secret-key"


def test_the_query_string_is_forwarded_on_every_route(
        client: openai.OpenAI, upstream: tuple[Running, UpstreamLog]) -> None:
    ask(client, "hi", extra_query={"api-version": "2024-10-21"})
    assert upstream[1].requests[-1]["query"] == "api-version=2024-10-21"
    ask(client, "hi")
    assert upstream[1].requests[-1]["query"] == ""
    client.models.list(extra_query={"a": "1", "b": "x y"})
    assert upstream[1].requests[-1]["query"] == "a=1&b=x+y"


@pytest.mark.parametrize("trick", ["http://127.0.0.1:{port}/v1/models",
                                   "/127.0.0.1:{port}/v1/models", "%2F%2F127.0.0.1:{port}/v1/models"])
def test_a_path_never_sends_the_request_to_another_host(
        proxy: Running, upstream: tuple[Running, UpstreamLog], trick: str) -> None:
    # `/v1/<path>` goes to `<upstream>/<path>` whatever the path holds: a URL, a
    # network-path reference or an encoded one must not reach another server.
    elsewhere = UpstreamLog()
    with running(fake_upstream(elsewhere)) as other:
        path = trick.format(port=other.port)
        seen = len(upstream[1].requests)
        with socket.create_connection(("127.0.0.1", proxy.port), timeout=10) as sock:
            sock.sendall(f"GET /v1/{path} HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n"
                         .encode())
            answer = b"".join(iter(lambda: sock.recv(65536), b""))
        assert elsewhere.requests == []
        assert answer.startswith(b"HTTP/1.1 404")   # the upstream's own: it has no such path
        assert len(upstream[1].requests) == seen    # (404s are not logged by the fake)
    response = httpx2.get(proxy.url + "/v1/models?x=1")
    assert response.status_code == 200 and upstream[1].requests[-1]["query"] == "x=1"


@pytest.mark.parametrize("trick", ["../admin", "%2e%2E/admin", "..%2Fadmin", "a/./b",
                                   "a/..", "..\\admin", "x/%2e/y?q=1"])
def test_a_path_never_leaves_the_upstream_base_path(
        proxy: Running, upstream: tuple[Running, UpstreamLog], trick: str) -> None:
    # `/v1/../admin` would be `<upstream>/../admin`, which httpx2 resolves to the
    # upstream's `/admin` (and an upstream may resolve the encoded spellings): refused.
    seen = len(upstream[1].requests)
    with socket.create_connection(("127.0.0.1", proxy.port), timeout=10) as sock:
        sock.sendall(f"GET /v1/{trick} HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n"
                     .encode())
        answer = b"".join(iter(lambda: sock.recv(65536), b""))
    assert answer.startswith(b"HTTP/1.1 400")
    assert b"'.' or '..' segment" in answer
    assert len(upstream[1].requests) == seen
    # Dots inside a segment are a name like any other: forwarded (the upstream's 404).
    assert httpx2.get(proxy.url + "/v1/models/a..b/.well").status_code == 404


def test_the_upstream_is_asked_for_identity_and_a_compressed_answer_is_still_read(
        client: openai.OpenAI, upstream: tuple[Running, UpstreamLog]) -> None:
    answer = "Reading. " + READ
    final = streamed(client, answer, model="gzip", tools=TOOLS)
    assert upstream[1].requests[-1]["headers"]["accept-encoding"] == "identity"
    assert calls_of(final.choices[0].message) == without_ids(expected_view(answer, tools=TOOLS).calls)
    assert final.choices[0].message.content == "Reading. "


def test_upstream_response_headers_pass_through(client: openai.OpenAI) -> None:
    for stream in (False, True):
        raw = client.chat.completions.with_raw_response.create(
            model="replay", messages=[{"role": "user", "content": READ}], stream=stream)
        assert raw.headers["x-request-id"] == "req-1"
        assert raw.headers["content-type"].startswith(
            "text/event-stream" if stream else "application/json")
        parsed = raw.parse()
        if stream:
            assert any(chunk.choices and chunk.choices[0].delta.tool_calls for chunk in parsed)
        else:
            assert parsed.choices[0].message.tool_calls


def test_no_key_and_no_content_is_logged(client: openai.OpenAI,
                                          caplog: pytest.LogCaptureFixture) -> None:
    secret_text = "Zanzibar-4471 " + call_text("read_file", path="Zanzibar-4471.md")
    with caplog.at_level(logging.DEBUG):
        streamed(client, secret_text, tools=TOOLS)
        ask(client, secret_text, tools=TOOLS)
        ask(client, "x", model="drop", stream=True).close()
    assert any(record.name == "toolparse.serve" for record in caplog.records)
    assert "sk-secret-key" not in caplog.text
    assert "Zanzibar" not in caplog.text


def test_healthz(proxy: Running) -> None:
    assert httpx2.get(proxy.url + "/healthz").json() == {"status": "ok"}


# ---- faults ----------------------------------------------------------------------------------

def test_upstream_error_status_and_body_pass_through(client: openai.OpenAI) -> None:
    with pytest.raises(openai.InternalServerError) as caught:
        ask(client, "x", model="error", stream=True)
    assert caught.value.status_code == 500
    assert caught.value.body == {"message": "upstream exploded", "type": "server_error",
                                 "code": "boom"}


def test_upstream_timeout_is_504(client: openai.OpenAI) -> None:
    with pytest.raises(openai.APIStatusError) as caught:
        ask(client, "x", model="slow", stream=True)
    assert caught.value.status_code == 504
    assert "did not answer within 1 s" in str(caught.value)


def test_upstream_drop_mid_stream_ends_the_stream_cleanly(client: openai.OpenAI) -> None:
    answer = "Some text first, then a call. " + READ + " and more text after it."
    chunks = list(ask(client, answer, model="drop", stream=True))
    state = ChatCompletionStreamState()
    for chunk in chunks:
        state.handle_chunk(chunk)
    choice = state.get_final_completion().choices[0]
    sent = (choice.message.content or "")
    assert sent and answer.startswith(sent)          # the text so far, nothing invented
    assert choice.finish_reason == "stop"            # the block was open: text, stop
    assert not choice.message.tool_calls


def test_client_disconnect_cancels_the_upstream_request(
        proxy: Running, upstream: tuple[Running, UpstreamLog]) -> None:
    server, log = upstream
    cancelled = log.cancelled
    with httpx2.Client() as http:
        with http.stream("POST", proxy.url + "/v1/chat/completions", json={
                "model": "endless", "stream": True,
                "messages": [{"role": "user", "content": "go"}]}) as response:
            assert response.status_code == 200
            lines = response.iter_lines()
            for _ in range(3):
                next(lines)
            wait_until(lambda: log.streaming == 1, what="the upstream stream")
            busy = _busy_connections(server)
            assert len(busy) == 1
    wait_until(lambda: log.streaming == 0, what="the upstream stream to be cancelled")
    assert log.cancelled == cancelled + 1
    # No leaked connection: the one the stream used is closed, not left open or pooled.
    wait_until(lambda: busy[0] not in server.server.server_state.connections,
               what="the upstream connection to close")


def _busy_connections(server: Running) -> list[Any]:
    """The upstream's connections with a response in progress (uvicorn's protocol
    objects: `cycle` is the current request's)."""
    return [connection for connection in server.server.server_state.connections
            if getattr(connection, "cycle", None) is not None
            and not connection.cycle.response_complete]  # type: ignore[attr-defined]


def test_oversize_body_is_413(proxy: Running) -> None:
    big = {"model": "replay", "messages": [{"role": "user", "content": "x" * 70000}]}
    response = httpx2.post(proxy.url + "/v1/chat/completions", json=big)
    assert response.status_code == 413
    assert "--max-body" in response.json()["error"]["message"]


def test_bad_json_is_400_with_a_clear_message(proxy: Running) -> None:
    response = httpx2.post(proxy.url + "/v1/chat/completions", content=b"{not json",
                           headers={"content-type": "application/json"})
    assert response.status_code == 400
    assert response.json()["error"]["message"].startswith("the request body is not JSON")
    listed = httpx2.post(proxy.url + "/v1/chat/completions", content=b"[1, 2]")
    assert listed.status_code == 400 and "JSON object" in listed.json()["error"]["message"]


def test_bad_tools_are_400(client: openai.OpenAI) -> None:
    bad = [{"type": "function", "function": {"name": "f",
                                             "parameters": {"$ref": "http://example.com/x"}}}]
    with pytest.raises(openai.BadRequestError) as caught:
        ask(client, "x", tools=bad)
    assert "tools:" in str(caught.value)


def test_upstream_unreachable_is_502() -> None:
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    sock.close()                                     # nothing listens there now
    with running_proxy(ServeConfig(upstream=f"http://127.0.0.1:{port}/v1")) as proxy:
        response = httpx2.post(proxy.url + "/v1/chat/completions", json={
            "model": "replay", "messages": [{"role": "user", "content": "x"}]})
    assert response.status_code == 502
    assert response.json()["error"]["code"] == "upstream_unreachable"


# ---- load --------------------------------------------------------------------------------------

def test_200_concurrent_streams_are_all_correct(upstream: tuple[Running, UpstreamLog]) -> None:
    config = ServeConfig(upstream=upstream[0].url + "/v1", timeout=30)
    with running_proxy(config) as proxy:
        results = _load(proxy)
    for n, (content, calls) in enumerate(results):
        assert content == f"Answer {n}:  end {n}"
        assert calls == [("read_file", json.dumps({"path": f"f{n}.md"}, separators=(",", ":")))]


def _load(proxy: Running) -> list[tuple[str, list[tuple[str, str]]]]:
    answers = [f"Answer {n}: " + call_text("read_file", path=f"f{n}.md") + f" end {n}"
               for n in range(200)]

    async def one(client: openai.AsyncOpenAI, answer: str) -> tuple[str, list[tuple[str, str]]]:
        state = ChatCompletionStreamState()
        stream = await client.chat.completions.create(
            model="replay", messages=[{"role": "user", "content": answer}], stream=True,
            tools=TOOLS)  # type: ignore[arg-type]
        async for chunk in stream:
            state.handle_chunk(chunk)
        message = state.get_final_completion().choices[0].message
        return message.content or "", calls_of(message)

    async def all_of_them() -> list[tuple[str, list[tuple[str, str]]]]:
        http = openai.DefaultAsyncHttpxClient(
            limits=httpx2.Limits(max_connections=200), timeout=50)
        async with openai.AsyncOpenAI(base_url=proxy.url + "/v1", api_key="k", max_retries=0,
                                      http_client=http) as client:
            with_deadline = asyncio.wait_for(
                asyncio.gather(*(one(client, answer) for answer in answers)), timeout=50)
            return await with_deadline

    return asyncio.run(all_of_them())


# ---- the command ---------------------------------------------------------------------------------

def test_serve_command_without_the_extra_says_so_in_one_line(tmp_path: Path) -> None:
    # Hide the server's packages from a fresh interpreter, as an install without the extra.
    hider = tmp_path / "sitecustomize.py"
    hider.write_text(
        "import importlib.abc, sys\n"
        "class Hide(importlib.abc.MetaPathFinder):\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name.split('.')[0] in ('starlette', 'uvicorn', 'orjson'):\n"
        "            raise ModuleNotFoundError(name)\n"
        "sys.meta_path.insert(0, Hide())\n")
    result = subprocess.run(
        [sys.executable, "-m", "toolparse", "serve", "--upstream", "http://127.0.0.1:1/v1"],
        capture_output=True, text=True, timeout=60,
        env={"PYTHONPATH": str(tmp_path), "PATH": "/usr/bin:/bin"})
    assert result.returncode == 2
    assert result.stderr.strip().count("\n") == 0
    assert "pip install '.[serve]'" in result.stderr
    assert "Traceback" not in result.stderr


def test_serve_command_binds_loopback_unless_told(monkeypatch: pytest.MonkeyPatch) -> None:
    import toolparse._serve
    from toolparse._cli.main import main

    started: list[tuple[ServeConfig, dict[str, Any]]] = []
    monkeypatch.setattr(toolparse._serve, "run",
                        lambda config, **where: started.append((config, where)))
    assert main(["serve", "--upstream", "http://127.0.0.1:8080/v1"]) == 0
    config, where = started[0]
    assert (where["host"], where["port"], config.on_rejected, config.stream_arguments,
            config.reasoning, config.in_reasoning, config.on_foreign_markup) == \
        ("127.0.0.1", 8000, "content", False, "auto", False, "warn")


def test_serve_command_passes_its_flags_to_the_server(monkeypatch: pytest.MonkeyPatch) -> None:
    import toolparse._serve
    from toolparse._cli.main import main

    started: list[tuple[ServeConfig, dict[str, Any]]] = []
    monkeypatch.setattr(toolparse._serve, "run",
                        lambda config, **where: started.append((config, where)))
    argv = ["serve", "--upstream", "http://127.0.0.1:9/v1", "--port", "9001",
            "--on-rejected", "drop", "--timeout", "5", "--max-body", "1000"]
    assert main(argv) == 0
    config, where = started[0]
    assert (config.upstream, config.on_rejected, config.timeout, config.max_body) == \
        ("http://127.0.0.1:9/v1", "drop", 5.0, 1000)
    assert where["host"] == "127.0.0.1" and where["port"] == 9001 and where["workers"] == 1
    assert not config.stream_arguments
    assert main(argv + ["--stream-arguments", "--workers", "3"]) == 0
    assert started[-1][0].stream_arguments and started[-1][1]["workers"] == 3


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _children(pid: int) -> list[int]:
    return [int(child) for child in
            Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]


def test_several_workers_serve_the_same_answers(upstream: tuple[Running, UpstreamLog],
                                                tmp_path: Path) -> None:
    # `--workers 2`: two processes behind one port, each built from the settings the
    # command left in the environment, a grammar file (a copy of deepseek's) included.
    grammar = tmp_path / "mine.lark"
    grammar.write_text((REPO / "grammars" / "dialects" / "deepseek.lark").read_text(encoding="utf-8"))
    port = _free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "toolparse", "serve", "--upstream", upstream[0].url + "/v1",
         "--port", str(port), "--workers", "2", "--grammar", str(grammar),
         "--log-level", "warning"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        wait_until(lambda: len(_children(process.pid)) >= 2 and _healthy(port),
                   what="two workers to serve", seconds=60)
        with openai.OpenAI(base_url=f"http://127.0.0.1:{port}/v1", api_key="k",
                           max_retries=0, timeout=20) as client:
            for answer in ANSWERS[:4] * 2:
                final = streamed(client, answer, tools=TOOLS)
                expected = expected_view(answer, tools=TOOLS)
                assert (final.choices[0].message.content or "") == expected.content
                assert calls_of(final.choices[0].message) == without_ids(expected.calls)
        assert len(_children(process.pid)) >= 2
        # Whichever worker answers /metrics counts the requests of both: the workers
        # count in files of one directory, each in its own.
        workers = _children(process.pid)
        environ = Path(f"/proc/{workers[0]}/environ").read_bytes().split(b"\0")
        shared = Path(next(item for item in environ if item.startswith(
            b"PROMETHEUS_MULTIPROC_DIR=")).split(b"=", 1)[1].decode())
        counted = {path.stem.rsplit("_", 1)[-1] for path in shared.glob("*.db")}
        assert len(counted) >= 2 and counted <= {str(pid) for pid in workers}
        for _ in range(4):
            scraped = httpx2.get(f"http://127.0.0.1:{port}/metrics", timeout=10).text
            assert 'toolparse_requests_total{code="200",route="default"} 8.0' in scraped
    finally:
        process.terminate()
        _, stderr = process.communicate(timeout=30)
    assert b"Traceback" not in stderr
    assert not shared.exists()          # the directory was the command's own: removed


def _healthy(port: int) -> bool:
    try:
        return httpx2.get(f"http://127.0.0.1:{port}/healthz", timeout=1).status_code == 200
    except httpx2.TransportError:
        return False


def test_worker_settings_go_through_the_environment(monkeypatch: pytest.MonkeyPatch,
                                                     tmp_path: Path) -> None:
    from toolparse import Dialect
    from toolparse._errors import ConfigError
    from toolparse._serve import server

    monkeypatch.delenv(server.CONFIG_VARIABLE, raising=False)
    with pytest.raises(ConfigError, match="--workers"):
        server.app_from_environment()
    grammar = tmp_path / "mine.lark"
    grammar.write_text((REPO / "grammars" / "dialects" / "glm45.lark").read_text(encoding="utf-8"))
    for dialect, sent in ((Dialect.from_file(grammar), ("mine", str(grammar))),
                          (Dialect.bundled("hermes"), ("hermes", None)), ("auto", ("auto", None))):
        config = ServeConfig(upstream="http://127.0.0.1:9/v1", dialect=dialect, timeout=3.0,
                             header_timeout=4.0, body_timeout=5.0)
        settings = json.loads(server.encode_config(config, "warning"))
        assert (settings["dialect"], settings["grammar"]) == sent
        assert settings["timeout"] == 3.0 and settings["log_level"] == "warning"
        assert (settings["header_timeout"], settings["body_timeout"]) == (4.0, 5.0)
        monkeypatch.setenv(server.CONFIG_VARIABLE, server.encode_config(config, "warning"))
        assert callable(server.app_from_environment())


def test_serve_command_refuses_a_bad_upstream() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "toolparse", "serve", "--upstream", "localhost:8080"],
        capture_output=True, text=True, timeout=60)
    assert result.returncode == 2 and "--upstream must be an http" in result.stderr
