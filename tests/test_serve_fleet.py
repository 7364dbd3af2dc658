"""`toolparse serve --config` for a fleet (SPEC 9, issue 44), end to end: a real uvicorn
server with a TOML configuration, in front of fake upstreams on 127.0.0.1 that stream
real-looking answers of several formats, driven by the official openai client.

Each route's model gets its calls; a model no route takes gets a 404; `/metrics`, read
by prometheus-client's own parser, shows exactly the counts the test caused; the JSON
log lines hold the reasons in words and never a key; markup of another dialect is
counted, logged, reported on the response and, under `parse`, read; 200 concurrent
streams over three routes all come out right, and the metrics add up.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import json
import logging
import os
import resource
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
from prometheus_client.parser import text_string_to_metric_families
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route
from starlette.types import ASGIApp

from toolparse._serve import ServeConfig, create_app
from toolparse._serve.fleet import load_fleet
from toolparse._serve.server import uvicorn_settings
from test_serve_support import Running, answer_chunks, running, wait_until, whole_completion

UPSTREAM_KEY_VARIABLE = "TOOLPARSE_TEST_UPSTREAM_KEY"
UPSTREAM_KEY = "sk-upstream-secret-4242"
CLIENT_KEY = "sk-client-secret-9191"

QWEN = ("I'll read the file first.\n\n<tool_call>\n<function=read_file>\n<parameter=path>\n"
        "src/main.py\n</parameter>\n</function>\n</tool_call>")
GLM_THOUGHT = "The user wants the weather in Paris; the tool gives it."
GLM = (f"<think>{GLM_THOUGHT}</think>Checking the weather.\n<tool_call>get_weather\n"
       "<arg_key>city</arg_key>\n<arg_value>Paris</arg_value>\n</tool_call>")
HERMES = ('Let me check.\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}'
          "\n</tool_call>")
DEEPSEEK_R1 = ("<think>\nI need to read the file.\n</think>\n\nLet me read it.\n\n"
               "<｜DSML｜function_calls>\n<｜DSML｜invoke name=\"read_file\">\n"
               "<｜DSML｜parameter name=\"path\" string=\"true\">README.md</｜DSML｜parameter>\n"
               "</｜DSML｜invoke>\n</｜DSML｜function_calls>")
QWEN_BROKEN = ("Reading.\n<tool_call>\n<function=read_file>\n<parameter=path>\na.md\n"
               "</parameter>\nstray words\n</function>\n</tool_call>")

TOOLS: list[Any] = [
    {"type": "function", "function": {"name": name, "parameters": {
        "type": "object", "properties": {key: {"type": "string"}}, "required": [key]}}}
    for name, key in (("read_file", "path"), ("get_weather", "city"))]

CONFIG = """
[upstreams.local]
url = "{local}"

[upstreams.remote]
url = "{remote}"
api_key_env = "{variable}"
timeout = 20

[upstreams.down]
url = "{down}"

[[routes]]
name = "qwen"
model = "Qwen/Qwen3-Coder-*"
upstream = "local"
dialect = "qwen3_coder"

[[routes]]
name = "glm"
model = "zai-org/GLM-4.6"
upstream = "local"
dialect = "glm45"
reasoning = "think"

[[routes]]
name = "hermes"
model = "NousResearch/*"
upstream = "remote"
dialect = "hermes"

[[routes]]
name = "hermes-parse"
model = "parse/*"
upstream = "remote"
dialect = "hermes"
on_foreign_markup = "parse"

[[routes]]
name = "hermes-pass"
model = "pass/*"
upstream = "remote"
dialect = "hermes"
on_foreign_markup = "pass"

[[routes]]
name = "deepseek"
model = "deepseek-ai/*"
upstream = "local"
dialect = "auto"

[[routes]]
name = "gone"
model = "gone/*"
upstream = "down"
dialect = "deepseek"
"""


# ---- the fake upstreams ----------------------------------------------------------------------

class Seen:
    """What a fake upstream saw: each request's path and headers."""

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []


def fleet_upstream(models: list[str], seen: Seen) -> ASGIApp:
    """A model server without a tool parser: it replays the last message as the answer
    (streamed in 5-character chunks, or whole), and lists `models`."""
    async def chat(request: Request) -> Response:
        body = await request.json()
        seen.requests.append({"path": request.url.path, "headers": dict(request.headers)})
        text = body["messages"][-1]["content"]
        if not body.get("stream"):
            return JSONResponse(whole_completion(text))

        async def chunks() -> Any:
            for data in answer_chunks(text):
                yield data
                await asyncio.sleep(0)

        return StreamingResponse(chunks(), media_type="text/event-stream")

    async def listing(request: Request) -> Response:
        seen.requests.append({"path": request.url.path, "headers": dict(request.headers)})
        return JSONResponse({"object": "list", "data": [
            {"id": model, "object": "model", "created": 0, "owned_by": "me"}
            for model in models]})

    return Starlette(routes=[Route("/v1/chat/completions", chat, methods=["POST"]),
                             Route("/v1/models", listing, methods=["GET"])])


class Fleet:
    def __init__(self, local: Running, remote: Running, seen_local: Seen, seen_remote: Seen,
                 config_file: Path) -> None:
        self.local, self.remote = local, remote
        self.seen_local, self.seen_remote = seen_local, seen_remote
        self.config_file = config_file


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture(scope="module")
def fleet(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Fleet]:
    seen_local, seen_remote = Seen(), Seen()
    local_models = ["Qwen/Qwen3-Coder-30B-A3B-Instruct", "zai-org/GLM-4.6", "zai-org/GLM-4.5",
                    "deepseek-ai/DeepSeek-R1"]
    remote_models = ["NousResearch/Hermes-4-70B", "Qwen/Qwen3-Coder-480B"]
    with running(fleet_upstream(local_models, seen_local)) as local, \
            running(fleet_upstream(remote_models, seen_remote)) as remote:
        config_file = tmp_path_factory.mktemp("fleet") / "fleet.toml"
        config_file.write_text(CONFIG.format(
            local=local.url + "/v1", remote=remote.url + "/v1", variable=UPSTREAM_KEY_VARIABLE,
            down=f"http://127.0.0.1:{_closed_port()}/v1"), encoding="utf-8")
        yield Fleet(local, remote, seen_local, seen_remote, config_file)


@contextlib.contextmanager
def proxy_for(fleet: Fleet) -> Iterator[Running]:
    """A fresh proxy (its own metrics) for the fleet's configuration, in this process."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(UPSTREAM_KEY_VARIABLE, UPSTREAM_KEY)
        config = load_fleet(fleet.config_file, ServeConfig(timeout=20))
        app = create_app(config)
    with running(app, **uvicorn_settings("warning")) as server:
        yield server


@pytest.fixture(scope="module")
def proxy(fleet: Fleet) -> Iterator[Running]:
    with proxy_for(fleet) as server:
        yield server


def client_of(server: Running) -> openai.OpenAI:
    return openai.OpenAI(base_url=server.url + "/v1", api_key=CLIENT_KEY, max_retries=0,
                         timeout=20)


def ask(client: openai.OpenAI, model: str, answer: str, stream: bool = True,
        **options: Any) -> Any:
    """The final message of an answer, streamed (and accumulated) or whole."""
    messages = [{"role": "user", "content": answer}]
    if not stream:
        return client.chat.completions.create(model=model, messages=messages,  # type: ignore
                                              **options).choices[0]
    state = ChatCompletionStreamState()
    for chunk in client.chat.completions.create(model=model, messages=messages,  # type: ignore
                                                stream=True, **options):
        state.handle_chunk(chunk)
    return state.get_final_completion().choices[0]


def calls_of(choice: Any) -> list[tuple[str, Any]]:
    return [(call.function.name, json.loads(call.function.arguments))
            for call in choice.message.tool_calls or []]


def metrics_of(server: Running) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    """Every sample of /metrics but the `_created` ones, by name and labels."""
    text = httpx2.get(server.url + "/metrics").text
    samples = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            if not sample.name.endswith("_created"):
                samples[(sample.name, tuple(sorted(sample.labels.items())))] = sample.value
    return samples


def counters(samples: dict[tuple[str, tuple[tuple[str, str], ...]], float],
             name: str) -> dict[tuple[str, ...], float]:
    """The samples of `name`, by their label values in the labels' alphabetical order."""
    return {tuple(value for _, value in labels): value
            for (sample, labels), value in samples.items() if sample == name}


def nonzero(samples: dict[tuple[str, ...], float]) -> dict[tuple[str, ...], float]:
    return {labels: value for labels, value in samples.items() if value}


# ---- routes ------------------------------------------------------------------------------------

ROUTED = [
    ("Qwen/Qwen3-Coder-30B-A3B-Instruct", QWEN, [("read_file", {"path": "src/main.py"})],
     "I'll read the file first.\n\n"),
    ("zai-org/GLM-4.6", GLM, [("get_weather", {"city": "Paris"})], "Checking the weather.\n"),
    ("NousResearch/Hermes-4-70B", HERMES, [("get_weather", {"city": "Paris"})],
     "Let me check.\n"),
    ("deepseek-ai/DeepSeek-R1", DEEPSEEK_R1, [("read_file", {"path": "README.md"})],
     "\n\nLet me read it.\n\n"),
]


@pytest.mark.parametrize("stream", [True, False], ids=["stream", "json"])
@pytest.mark.parametrize(("model", "answer", "calls", "content"), ROUTED,
                         ids=[case[0].split("/")[0] for case in ROUTED])
def test_each_routes_model_gets_its_calls(proxy: Running, model: str, answer: str,
                                          calls: list[tuple[str, Any]], content: str,
                                          stream: bool) -> None:
    with client_of(proxy) as client:
        choice = ask(client, model, answer, stream=stream, tools=TOOLS)
    assert calls_of(choice) == calls
    assert (choice.message.content or "") == content
    assert choice.finish_reason == "tool_calls"


def test_a_route_reads_only_its_own_dialect(proxy: Running) -> None:
    # The same GLM answer through the Qwen route is not read as a GLM call: <tool_call>
    # is Qwen3-Coder's own opener there, and the block fails (as text, never a call).
    with client_of(proxy) as client:
        choice = ask(client, "Qwen/Qwen3-Coder-30B-A3B-Instruct", GLM)
    assert calls_of(choice) == [] and choice.finish_reason == "stop"
    assert GLM.endswith(choice.message.content)


def test_a_model_no_route_takes_is_a_404_naming_it(proxy: Running) -> None:
    with client_of(proxy) as client, pytest.raises(openai.NotFoundError) as caught:
        ask(client, "meta-llama/Llama-4-Scout", "hello")
    assert "'meta-llama/Llama-4-Scout'" in str(caught.value)
    assert caught.value.code == "model_not_found"
    other = httpx2.post(proxy.url + "/v1/embeddings", json={"model": "mistral/x", "input": "a"})
    assert other.status_code == 404 and "'mistral/x'" in other.json()["error"]["message"]


def test_the_upstreams_key_replaces_the_clients(fleet: Fleet, proxy: Running) -> None:
    with client_of(proxy) as client:
        ask(client, "NousResearch/Hermes-4-70B", HERMES, stream=False)
        ask(client, "Qwen/Qwen3-Coder-30B-A3B-Instruct", QWEN, stream=False)
    assert fleet.seen_remote.requests[-1]["headers"]["authorization"] == f"Bearer {UPSTREAM_KEY}"
    assert fleet.seen_local.requests[-1]["headers"]["authorization"] == f"Bearer {CLIENT_KEY}"


def test_models_lists_each_model_with_the_route_it_takes(proxy: Running) -> None:
    with client_of(proxy) as client:
        listed = {model.id: model.toolparse_route  # type: ignore[attr-defined]
                  for model in client.models.list().data}
    # GLM-4.5 takes no route; Qwen3-Coder-480B takes the qwen route, whose upstream is
    # the local one, which does not list it.
    assert listed == {"Qwen/Qwen3-Coder-30B-A3B-Instruct": "qwen", "zai-org/GLM-4.6": "glm",
                      "deepseek-ai/DeepSeek-R1": "deepseek",
                      "NousResearch/Hermes-4-70B": "hermes"}


def test_a_request_id_comes_back_on_every_answer(proxy: Running) -> None:
    with client_of(proxy) as client:
        raw = client.chat.completions.with_raw_response.create(
            model="zai-org/GLM-4.6", messages=[{"role": "user", "content": GLM}])
    assert len(raw.headers["x-toolparse-request-id"]) == 16
    missing = httpx2.post(proxy.url + "/v1/chat/completions", json={"model": "nope"})
    assert len(missing.headers["x-toolparse-request-id"]) == 16


# ---- foreign markup ----------------------------------------------------------------------------

def test_foreign_markup_is_counted_reported_and_passed_on(
        proxy: Running, caplog: pytest.LogCaptureFixture) -> None:
    before = metrics_of(proxy)
    with client_of(proxy) as client, caplog.at_level(logging.INFO, "toolparse.serve"):
        raw = client.chat.completions.with_raw_response.create(
            model="NousResearch/Hermes-4-70B",
            messages=[{"role": "user", "content": DEEPSEEK_R1}])
        choice = raw.parse().choices[0]
        streamed = httpx2.post(proxy.url + "/v1/chat/completions", json={
            "model": "NousResearch/Hermes-4-70B", "stream": True,
            "messages": [{"role": "user", "content": DEEPSEEK_R1}]}).text
    assert raw.headers["x-toolparse-foreign-markup"] == "deepseek"
    assert choice.finish_reason == "stop" and not choice.message.tool_calls
    assert DEEPSEEK_R1.endswith(choice.message.content)          # as content, whole
    # One line per answer, whole or streamed in 5-character pieces alike: the block from
    # its opener on (at most 200 characters), its line in the answer.
    block = DEEPSEEK_R1[DEEPSEEK_R1.index("<｜DSML｜function_calls>"):]
    lines = [record.toolparse for record in caplog.records  # type: ignore[attr-defined]
             if getattr(record, "toolparse", {}).get("event") == "foreign_markup"]
    assert [(line["seen"], line["excerpt"], line["reason"]) for line in lines] == \
        [("deepseek", block, "sent_as_content")] * 2
    assert all("at line 7 is deepseek markup" in line["message"] for line in lines)
    comment = ": x-toolparse-foreign-markup: deepseek\n\n"
    assert comment in streamed and streamed.index(comment) < streamed.index("data: [DONE]")
    after = metrics_of(proxy)
    key = ("toolparse_foreign_markup_total",
           (("dialect", "hermes"), ("route", "hermes"), ("seen", "deepseek")))
    assert after[key] - before.get(key, 0) == 2


def test_foreign_markup_is_read_under_parse(proxy: Running) -> None:
    with client_of(proxy) as client:
        raw = client.chat.completions.with_raw_response.create(
            model="parse/Hermes-4", messages=[{"role": "user", "content": DEEPSEEK_R1}],
            tools=TOOLS)  # type: ignore[arg-type]
        whole = raw.parse().choices[0]
        streamed = ask(client, "parse/Hermes-4", DEEPSEEK_R1 + "\n" + HERMES)
    assert raw.headers["x-toolparse-foreign-markup"] == "deepseek"
    assert calls_of(whole) == [("read_file", {"path": "README.md"})]
    assert whole.finish_reason == "tool_calls"
    assert calls_of(streamed) == [("read_file", {"path": "README.md"}),
                                  ("get_weather", {"city": "Paris"})]
    samples = counters(metrics_of(proxy), "toolparse_calls_total")
    assert samples[("deepseek", "hermes-parse", "valid")] == 1
    assert samples[("deepseek", "hermes-parse", "unchecked")] == 1
    assert samples[("hermes", "hermes-parse", "unchecked")] == 1


def test_foreign_markup_under_pass_is_counted_only(proxy: Running) -> None:
    with client_of(proxy) as client:
        raw = client.chat.completions.with_raw_response.create(
            model="pass/Hermes-4", messages=[{"role": "user", "content": DEEPSEEK_R1}])
    assert "x-toolparse-foreign-markup" not in raw.headers
    assert counters(metrics_of(proxy), "toolparse_foreign_markup_total")[
        ("hermes", "hermes-pass", "deepseek")] == 1


# ---- metrics -----------------------------------------------------------------------------------

def test_metrics_show_exactly_what_the_requests_caused(fleet: Fleet) -> None:
    rm = [{"type": "function", "function": {"name": "get_weather", "parameters": {
        "type": "object", "properties": {"city": {"type": "string"}}}}}]
    with proxy_for(fleet) as server, client_of(server) as client:
        for _ in range(2):
            ask(client, "Qwen/Qwen3-Coder-30B-A3B-Instruct", QWEN)
        ask(client, "Qwen/Qwen3-Coder-30B-A3B-Instruct", QWEN_BROKEN, stream=False)
        ask(client, "zai-org/GLM-4.6", GLM, stream=False)
        ask(client, "NousResearch/Hermes-4-70B",
            HERMES.replace("get_weather", "delete_everything"), tools=rm)
        ask(client, "NousResearch/Hermes-4-70B", DEEPSEEK_R1)
        with pytest.raises(openai.NotFoundError):
            ask(client, "nobody/none", "x")
        with pytest.raises(openai.APIStatusError) as caught:
            ask(client, "gone/model", "x")
        assert caught.value.status_code == 502
        samples = metrics_of(server)
    assert counters(samples, "toolparse_requests_total") == {
        ("200", "qwen"): 3, ("200", "glm"): 1, ("200", "hermes"): 2, ("404", "-"): 1,
        ("502", "gone"): 1}
    assert counters(samples, "toolparse_calls_total") == {
        ("qwen3_coder", "qwen", "unchecked"): 2, ("glm45", "glm", "unchecked"): 1,
        ("hermes", "hermes", "rejected"): 1}
    assert counters(samples, "toolparse_rejected_calls_total") == {
        ("hermes", "unknown_tool", "hermes"): 1}
    assert counters(samples, "toolparse_failed_blocks_total") == {
        ("qwen3_coder", "unexpected_token", "qwen"): 1}
    assert counters(samples, "toolparse_foreign_markup_total") == {
        ("hermes", "hermes", "deepseek"): 1}
    assert counters(samples, "toolparse_reasoning_chars_total")[("glm",)] == len(GLM_THOUGHT)
    assert counters(samples, "toolparse_upstream_errors_total") == {("unreachable", "gone"): 1}
    # Every route's gauge and histograms are there from the start (at 0).
    routes = {"qwen", "glm", "hermes", "hermes-parse", "hermes-pass", "deepseek", "gone", "-"}
    assert counters(samples, "toolparse_open_streams") == {(route,): 0 for route in routes}
    assert nonzero(counters(samples, "toolparse_request_seconds_count")) == {
        ("qwen",): 3, ("glm",): 1, ("hermes",): 2, ("-",): 1, ("gone",): 1}
    # The latency added before the first byte, for each answer that had one.
    assert nonzero(counters(samples, "toolparse_first_byte_seconds_count")) == {
        ("qwen",): 3, ("glm",): 1, ("hermes",): 2}
    assert counters(samples, "toolparse_chunk_seconds_count")[("qwen",)] >= 2


# ---- logs --------------------------------------------------------------------------------------

def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_json_log_lines_hold_the_reasons_and_never_a_key(fleet: Fleet) -> None:
    port = _free_port()
    environment = {**os.environ, UPSTREAM_KEY_VARIABLE: UPSTREAM_KEY}
    process = subprocess.Popen(
        [sys.executable, "-m", "toolparse", "serve", "--config", str(fleet.config_file),
         "--port", str(port), "--log-format", "json"],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=environment)
    try:
        wait_until(lambda: _healthy(port), what="the proxy to serve", seconds=60)
        with openai.OpenAI(base_url=f"http://127.0.0.1:{port}/v1", api_key=CLIENT_KEY,
                           max_retries=0, timeout=20) as client:
            ask(client, "Qwen/Qwen3-Coder-30B-A3B-Instruct", QWEN_BROKEN)
            ask(client, "NousResearch/Hermes-4-70B",
                HERMES.replace("get_weather", "delete_everything"), tools=TOOLS)
            ask(client, "NousResearch/Hermes-4-70B", DEEPSEEK_R1, stream=False)
    finally:
        process.terminate()
        _, stderr = process.communicate(timeout=30)
    text = stderr.decode()
    assert UPSTREAM_KEY not in text and CLIENT_KEY not in text
    lines = [json.loads(line) for line in text.splitlines() if line.strip()]
    events = {line["event"]: line for line in lines if line.get("event") != "log"}
    failed, rejected, foreign = (events["failed_block"], events["rejected_call"],
                                 events["foreign_markup"])
    assert (failed["route"], failed["dialect"], failed["reason"]) == \
        ("qwen", "qwen3_coder", "unexpected_token")
    assert failed["message"] == "expected `<parameter=…>` or `</function>` before `stray` at line 7"
    assert failed["excerpt"] in QWEN_BROKEN and len(failed["excerpt"]) <= 200
    assert (rejected["route"], rejected["reason"]) == ("hermes", "unknown_tool")
    assert rejected["message"] == "`delete_everything` at line 2 is not one of the request's tools"
    assert (foreign["route"], foreign["dialect"], foreign["seen"]) == \
        ("hermes", "hermes", "deepseek")
    assert foreign["message"].startswith("`<｜DSML｜function_calls>` at line 7 is deepseek markup")
    requests = [line for line in lines if line.get("event") == "request"]
    assert len(requests) == 3 and all(len(line["request_id"]) == 16 for line in requests)
    assert {failed["request_id"], rejected["request_id"], foreign["request_id"]} == \
        {line["request_id"] for line in requests}


def _healthy(port: int) -> bool:
    try:
        return httpx2.get(f"http://127.0.0.1:{port}/healthz", timeout=1).status_code == 200
    except httpx2.TransportError:
        return False


# ---- load --------------------------------------------------------------------------------------

LOAD = [("Qwen/Qwen3-Coder-30B-A3B-Instruct", "qwen", QWEN.replace("src/main.py", "f{n}.py"),
         ("read_file", "path", "f{n}.py")),
        ("zai-org/GLM-4.6", "glm", GLM.replace("Paris", "City {n}"),
         ("get_weather", "city", "City {n}")),
        ("deepseek-ai/DeepSeek-R1", "deepseek", DEEPSEEK_R1.replace("README.md", "r{n}.md"),
         ("read_file", "path", "r{n}.md"))]


def test_200_concurrent_streams_over_three_routes(fleet: Fleet) -> None:
    streams = [(n, *LOAD[n % 3]) for n in range(200)]

    async def one(client: openai.AsyncOpenAI, n: int, model: str, answer: str) -> Any:
        state = ChatCompletionStreamState()
        stream = await client.chat.completions.create(
            model=model, messages=[{"role": "user", "content": answer.format(n=n)}],
            stream=True)
        async for chunk in stream:
            state.handle_chunk(chunk)
        return state.get_final_completion().choices[0]

    async def all_of_them(url: str, count: int) -> list[Any]:
        http = openai.DefaultAsyncHttpxClient(limits=httpx2.Limits(max_connections=200),
                                              timeout=50)
        async with openai.AsyncOpenAI(base_url=url + "/v1", api_key="k", max_retries=0,
                                      http_client=http) as client:
            return await asyncio.wait_for(asyncio.gather(*(
                one(client, n, model, answer)
                for n, model, _, answer, _ in streams[:count])), 60)

    with proxy_for(fleet) as server:
        asyncio.run(all_of_them(server.url, 3))    # warm: each route's grammar loaded
        gc.collect()
        before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        choices = asyncio.run(all_of_them(server.url, 200))
        grown = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
        samples = metrics_of(server)
    for (n, _, _, _, (name, key, value)), choice in zip(streams, choices):
        assert calls_of(choice) == [(name, {key: value.format(n=n)})]
        assert choice.finish_reason == "tool_calls"
    # The metrics add up: 3 + 200 streams, every one counted once on its route.
    per_route = {route: 1 + sum(1 for stream in streams if stream[2] == route)
                 for _, route, _, _ in LOAD}
    assert counters(samples, "toolparse_requests_total") == {
        ("200", route): count for route, count in per_route.items()}
    assert counters(samples, "toolparse_calls_total") == {
        ("qwen3_coder", "qwen", "unchecked"): per_route["qwen"],
        ("glm45", "glm", "unchecked"): per_route["glm"],
        ("auto", "deepseek", "unchecked"): per_route["deepseek"]}
    assert set(counters(samples, "toolparse_open_streams").values()) == {0}
    assert sum(counters(samples, "toolparse_request_seconds_count").values()) == 203
    # Bounded memory: 200 streams at once (each route's grammar already loaded) raise
    # the peak of the whole test process (proxy, upstreams and clients) by little
    # (ru_maxrss: KiB), and nothing of a stream outlives it.
    print(f"200 streams: the process's peak grew by {grown} KiB")
    assert grown < 64 * 1024, f"the peak grew by {grown} KiB"
    gc.collect()
    from toolparse._serve.observe import WatchedParser
    assert not [obj for obj in gc.get_objects() if isinstance(obj, WatchedParser)]
