"""Reasoning through `toolparse serve` (SPEC 8, 9, 11): the official openai client reads
`reasoning_content` from a real proxy, streaming and not, never as content, and no call
quoted while the model thinks is forwarded."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import openai
import pytest

from toolparse._serve import ServeConfig
from test_openai_support import call_text
from test_serve_support import Running, UpstreamLog, fake_upstream, running, running_proxy

QUOTED = call_text("rm", path="build")
REAL = call_text("read_file", path="a.md")
THINKING = f"I could write {QUOTED}, but first I ask."


@pytest.fixture(scope="module")
def upstream() -> Iterator[Running]:
    with running(fake_upstream(UpstreamLog())) as server:
        yield server


def _proxy(upstream: Running, **options: Any) -> Any:
    return running_proxy(ServeConfig(upstream=upstream.url + "/v1", timeout=2.0, **options))


@pytest.fixture(scope="module")
def proxy(upstream: Running) -> Iterator[Running]:
    with _proxy(upstream) as server:
        yield server


@pytest.fixture(scope="module")
def forced(upstream: Running) -> Iterator[Running]:
    """A route whose template opens the region in the prompt (`--in-reasoning`)."""
    with _proxy(upstream, in_reasoning=True) as server:
        yield server


def _client(server: Running) -> openai.OpenAI:
    return openai.OpenAI(base_url=server.url + "/v1", api_key="sk-x", max_retries=0, timeout=20)


def _streamed(server: Running, text: str, model: str = "replay",
              **options: Any) -> tuple[str, str, list[str], str | None]:
    """(reasoning, content, call names, finish_reason) of a streamed answer, read delta
    by delta as a client that shows thinking reads it."""
    reasoning, content, names, finish = [], [], [], None
    with _client(server) as client:
        for chunk in client.chat.completions.create(
                model=model, messages=[{"role": "user", "content": text}], stream=True,
                **options):
            for choice in chunk.choices:
                delta = choice.delta
                reasoning.append(getattr(delta, "reasoning_content", None) or "")
                content.append(delta.content or "")
                names += [call.function.name for call in delta.tool_calls or []
                          if call.function and call.function.name]
                finish = choice.finish_reason or finish
    return "".join(reasoning), "".join(content), names, finish


def _whole(server: Running, text: str, **options: Any) -> tuple[str, str, list[str], str]:
    with _client(server) as client:
        completion = client.chat.completions.create(
            model="replay", messages=[{"role": "user", "content": text}], **options)
    message = completion.choices[0].message
    return (getattr(message, "reasoning_content", None) or "", message.content or "",
            [call.function.name for call in message.tool_calls or []],
            completion.choices[0].finish_reason)


def test_a_think_model_streams_its_thinking_as_reasoning_content(proxy: Running) -> None:
    answer = f"<think>{THINKING}</think>Reading it.\n{REAL}"
    assert _streamed(proxy, answer) == (THINKING, "Reading it.\n", ["read_file"], "tool_calls")


def test_a_think_model_whole_answer_has_reasoning_content(proxy: Running) -> None:
    answer = f"<think>{THINKING}</think>Reading it.\n{REAL}"
    assert _whole(proxy, answer) == (THINKING, "Reading it.\n", ["read_file"], "tool_calls")


def test_a_forced_reasoning_model_and_the_request_that_turns_it_off(forced: Running) -> None:
    answer = f"{THINKING}</think>Done."
    assert _streamed(forced, answer) == (THINKING, "Done.", [], "stop")
    assert _whole(forced, answer)[:2] == (THINKING, "Done.")
    off = {"extra_body": {"chat_template_kwargs": {"enable_thinking": False}}}
    plain = f"No thinking: {REAL}"
    assert _streamed(forced, plain, **off) == ("", "No thinking: ", ["read_file"], "tool_calls")
    # The same text with thinking on is all reasoning: nothing runs.
    assert _streamed(forced, plain) == (plain, "", [], "stop")


def test_an_upstream_that_splits_reasoning_keeps_it(proxy: Running) -> None:
    got = _streamed(proxy, f"{THINKING}|||Here.\n{REAL}", model="split")
    assert got == (THINKING, "Here.\n", ["read_file"], "tool_calls")


def test_bad_reasoning_flags_are_bad_use(capsys: pytest.CaptureFixture[str]) -> None:
    from toolparse._cli import main

    assert main(["serve", "--upstream", "http://127.0.0.1:9/v1", "--reasoning", "thinkers"]) == 2
    assert "seed_think" in capsys.readouterr().err


@pytest.fixture(scope="module")
def harmony(upstream: Running) -> Iterator[Running]:
    """A gpt-oss route: harmony's messages (SPEC 11), headers and end tokens framing."""
    with _proxy(upstream, dialect="gpt_oss") as server:
        yield server


def test_gpt_oss_analysis_is_reasoning_content_and_framing_never_content(
        harmony: Running) -> None:
    quoted = ('<|start|>assistant<|channel|>commentary to=functions.rm <|constrain|>json'
              '<|message|>{"path": "build"}')
    thinking = f"I could write {quoted}, but first I read."
    call = ('<|start|>assistant<|channel|>commentary to=functions.read_file <|constrain|>json'
            '<|message|>{"path": "a.md"}<|call|>')
    answer = f"<|channel|>analysis<|message|>{thinking}<|end|>{call}"
    assert _streamed(harmony, answer) == (thinking, "", ["read_file"], "tool_calls")
    assert _whole(harmony, answer) == (thinking, "", ["read_file"], "tool_calls")
    final = ("<|channel|>analysis<|message|>Greet.<|end|>"
             "<|start|>assistant<|channel|>final<|message|>Hello **there**.<|return|>")
    assert _streamed(harmony, final) == ("Greet.", "Hello **there**.", [], "stop")
