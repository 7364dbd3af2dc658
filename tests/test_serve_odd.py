"""Odd upstream answers and odd requests, end to end (SPEC 9; issue 47, items 2 and 10):
the official openai client against a real uvicorn server, in front of a fake upstream
(test_serve_support.py). A stream is never cut: the client's stream iterates to its
end, with the text, the calls, a finish_reason and `[DONE]`; a request nested past
the decoder's depth is a 400, never a 500."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from typing import Any

import httpx2
import openai
import pytest
from openai.lib.streaming.chat import ChatCompletionStreamState

import toolparse._serve.chat
from toolparse._serve import ServeConfig
from test_openai_support import TOOLS, call_text, expected_view
from test_serve_faults import Faulty
from test_serve_support import (
    HALF_EMOJI,
    HUGE_EVENT_BYTES,
    Running,
    UpstreamLog,
    fake_upstream,
    running,
    running_proxy,
)

READ = call_text("read_file", path="a.md")
ANSWER = "Before the call. " + READ + " After it, " + call_text("add", a="1", b="2")


@pytest.fixture(scope="module")
def upstream() -> Iterator[tuple[Running, UpstreamLog]]:
    log = UpstreamLog()
    with running(fake_upstream(log)) as server:
        yield server, log


@pytest.fixture(scope="module")
def proxy(upstream: tuple[Running, UpstreamLog]) -> Iterator[Running]:
    with running_proxy(ServeConfig(upstream=upstream[0].url + "/v1", timeout=20)) as server:
        yield server


@pytest.fixture
def client(proxy: Running) -> Iterator[openai.OpenAI]:
    with openai.OpenAI(base_url=proxy.url + "/v1", api_key="k", max_retries=0,
                       timeout=60) as client:
        yield client


def streamed(client: openai.OpenAI, text: str, model: str = "replay", **options: Any) -> Any:
    state = ChatCompletionStreamState()
    for chunk in client.chat.completions.create(
            model=model, messages=[{"role": "user", "content": text}], stream=True,
            **options):
        state.handle_chunk(chunk)
    return state.get_final_completion().choices[0]


def raw_stream(proxy: Running, text: str, model: str) -> bytes:
    response = httpx2.post(proxy.url + "/v1/chat/completions", timeout=60, json={
        "model": model, "stream": True, "messages": [{"role": "user", "content": text}]})
    assert response.status_code == 200
    return response.content


def calls_of(message: Any) -> list[tuple[str, str]]:
    return [(call.function.name, call.function.arguments) for call in message.tool_calls or []]


def assert_is_parse_view(choice: Any, answer: str) -> None:
    expected = expected_view(answer, tools=TOOLS)
    assert (choice.message.content or "") == expected.content
    assert calls_of(choice.message) == [call[1:] for call in expected.calls]
    assert choice.finish_reason == expected.finish


# ---- item 2: odd upstream events ---------------------------------------------------------------

def test_an_event_nested_past_any_decoder_is_dropped_and_the_rest_arrives(
        client: openai.OpenAI, proxy: Running) -> None:
    # The event sits mid-stream, while the first call's block is open (held).
    choice = streamed(client, ANSWER, model="deep", tools=TOOLS)
    assert_is_parse_view(choice, ANSWER)
    assert len(calls_of(choice.message)) == 2
    assert raw_stream(proxy, ANSWER, "deep").endswith(b"data: [DONE]\n\n")


@pytest.mark.parametrize("stream", [True, False])
def test_a_lone_surrogate_is_kept_and_nothing_else_is_lost(client: openai.OpenAI,
                                                           stream: bool) -> None:
    # Half an emoji, escaped as ensure_ascii encoders write it ("\ud83d"), before and
    # inside a call; the upstream's chunks cut the text every 5 characters.
    asked = f"Half {HALF_EMOJI} here. " + call_text("read_file", path=f"{HALF_EMOJI}.md") + " end"
    answer = asked.replace(HALF_EMOJI, "\ud83d")
    if stream:
        choice = streamed(client, asked, tools=TOOLS)
    else:
        choice = client.chat.completions.create(
            model="replay", messages=[{"role": "user", "content": asked}],
            tools=TOOLS).choices[0]                               # type: ignore[arg-type]
    assert_is_parse_view(choice, answer)
    assert choice.message.content == "Half \ud83d here.  end"
    assert json.loads(choice.message.tool_calls[0].function.arguments) == {"path": "\ud83d.md"}


def test_nothing_of_an_event_over_the_limit_reaches_the_client(
        client: openai.OpenAI, proxy: Running, upstream: tuple[Running, UpstreamLog]) -> None:
    # The upstream sends the first half of the answer (its first block open, held),
    # then one event of 17 MiB that never ends.
    choice = streamed(client, ANSWER, model="huge", tools=TOOLS)
    half = "".join(json.loads(line[6:])["choices"][0]["delta"].get("content", "")
                   for line in _first_half_events(ANSWER))
    assert_is_parse_view(choice, half)
    sent = raw_stream(proxy, ANSWER, "huge")
    assert sent.endswith(b"data: [DONE]\n\n") and b"yyyy" not in sent
    assert len(sent) < HUGE_EVENT_BYTES // 100


def _first_half_events(text: str) -> list[bytes]:
    from test_serve_support import answer_chunks

    chunks = list(answer_chunks(text))
    return [data.strip() for data in chunks[:len(chunks) // 2]]


def test_a_fault_while_rewriting_ends_the_stream_cleanly(
        client: openai.OpenAI, monkeypatch: pytest.MonkeyPatch,
        caplog: pytest.LogCaptureFixture) -> None:
    # A bug, injected: the rewriter fails on its 12th chunk, inside a block that never
    # closes (so, however the upstream's events are grouped into reads, it is held).
    answer = "Before the call. " + READ.replace("</tool_calls>", "") + " and on" * 40
    made: list[Faulty] = []

    def faulty(**options: Any) -> Faulty:
        made.append(Faulty(fail_at=12))
        return made[-1]

    monkeypatch.setattr(toolparse._serve.chat, "stream_rewriter", faulty)
    with caplog.at_level(logging.INFO, "toolparse.serve"):
        choice = streamed(client, answer, model="paced")
    sent = choice.message.content or ""
    assert sent.startswith("Before the call. <tool_calls>") and answer.startswith(sent)
    assert len(sent) < len(answer)            # the stream ended at the fault
    assert choice.finish_reason == "stop" and not choice.message.tool_calls
    assert made[0].fed == 12
    errors = [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR]
    assert errors == ["rewriting the stream failed (RuntimeError); the client's stream ends "
                      "here with the text held so far"]


def test_a_fault_while_rewriting_a_whole_answer_gives_the_upstreams_answer(
        client: openai.OpenAI, monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(*args: Any, **options: Any) -> Any:
        raise RuntimeError("injected")

    monkeypatch.setattr(toolparse._serve.chat, "rewrite_completion", broken)
    raw = client.chat.completions.with_raw_response.create(
        model="replay", messages=[{"role": "user", "content": ANSWER}])
    assert raw.http_response.status_code == 200
    assert "RuntimeError" in raw.headers["x-toolparse-warning"]
    completion = raw.parse()
    assert completion.choices[0].message.content == ANSWER       # unrewritten
    assert not completion.choices[0].message.tool_calls


# ---- item 10: requests nested past the decoder's depth --------------------------------------------

def deep_schema(levels: int) -> str:
    return ('{"type": "object", "properties": {"a": ' * levels + '{"type": "string"}'
            + "}}" * levels)


def post_raw(proxy: Running, body: bytes) -> httpx2.Response:
    return httpx2.post(proxy.url + "/v1/chat/completions", content=body, timeout=60,
                       headers={"content-type": "application/json"})


@pytest.mark.parametrize("levels", [1000, 100_000])
def test_a_tool_schema_nested_past_the_decoder_is_400_invalid_json(proxy: Running,
                                                                  levels: int) -> None:
    body = ('{"model": "replay", "messages": [{"role": "user", "content": "x"}], "tools": '
            '[{"type": "function", "function": {"name": "deep", "parameters": '
            + deep_schema(levels) + "}}]}").encode()
    response = post_raw(proxy, body)
    assert response.status_code == 400, response.text
    error = response.json()["error"]
    assert error["code"] == "invalid_json" and "nested deeper than" in error["message"]


def test_a_body_nested_past_the_decoder_is_400_invalid_json(proxy: Running) -> None:
    for body in (b"[" * 100_000 + b"]" * 100_000, b'{"a": "\\ud83d", "b": ' + b"[" * 5000):
        response = post_raw(proxy, body)
        assert response.status_code == 400, response.text
        assert response.json()["error"]["code"] == "invalid_json"


def test_a_tool_schema_within_the_decoder_but_too_deep_is_400_invalid_tools(
        proxy: Running) -> None:
    body = ('{"model": "replay", "messages": [{"role": "user", "content": "x"}], "tools": '
            '[{"type": "function", "function": {"name": "deep", "parameters": '
            + deep_schema(300) + "}}]}").encode()
    response = post_raw(proxy, body)
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "invalid_tools" and "tool 'deep'" in error["message"]
