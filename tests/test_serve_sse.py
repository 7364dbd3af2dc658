"""The server's SSE layer, sans-I/O: decoding under any split of the bytes, and the chat
stream's translator (what passes through as it came, what is rewritten)."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from toolparse._serve.sse import EventTooLarge, SSEDecoder, StreamTranslator
from toolparse.openai import stream_rewriter
from test_openai_support import call_text, chunk, client_view, counter_ids

STREAM = (b": keep-alive\n\n"
          b"data: {\"a\": 1}\n\n"
          b"event: message\r\ndata: line one\r\ndata: line two\r\n\r\n"
          b"id: 7\rdata:no space\r\r"
          b"event: error\ndata: {\"error\": \"x\"}\n\n"
          b"data: [DONE]\n\n")


def decode(parts: list[bytes]) -> list[tuple[bytes | None, bool]]:
    decoder = SSEDecoder()
    events = [event for part in parts for event in decoder.feed(part)] + decoder.close()
    return [(event.data, event.plain) for event in events]


@given(st.lists(st.integers(0, len(STREAM)), max_size=12))
def test_events_are_the_same_however_the_bytes_are_split(cuts: list[int]) -> None:
    points = sorted({0, len(STREAM), *cuts})
    parts = [STREAM[a:b] for a, b in zip(points, points[1:])]
    assert decode(parts) == [
        (None, True), (b'{"a": 1}', True), (b"line one\nline two", True), (b"no space", True),
        (b'{"error": "x"}', False), (b"[DONE]", True)]


def test_a_last_event_without_its_blank_line_is_kept() -> None:
    assert decode([b"data: tail"]) == [(b"tail", True)]


def test_an_event_that_never_ends_is_bounded() -> None:
    decoder = SSEDecoder(max_event=100)
    with pytest.raises(EventTooLarge):
        decoder.feed(b"data: " + b"x" * 200)


def translate(parts: list[bytes]) -> bytes:
    translator = StreamTranslator(stream_rewriter(id_factory=counter_ids()))
    return b"".join(translator.feed(part) for part in parts) + translator.finish()


def events_of(data: bytes) -> list[bytes]:
    return [block for block in data.split(b"\n\n") if block]


def test_unchanged_chunks_are_the_bytes_that_came_and_others_pass_through() -> None:
    prose = b"data: " + json.dumps(chunk(0, content="plain words")).encode() + b"\n\n"
    odd = [b": ping\n\n", b"event: error\ndata: {}\n\n", b"data: not json\n\n",
           b"data: 5\n\n"]
    out = translate([prose, *odd, b"data: [DONE]\n\n"])
    assert out.startswith(prose + b"".join(odd))
    assert events_of(out)[-1] == b"data: [DONE]"


def test_calls_are_rewritten_and_a_stream_without_done_still_ends() -> None:
    text = "Hi " + call_text("read_file", path="a.md")
    parts = [b"data: " + json.dumps(chunk(0, content=text[k:k + 4])).encode() + b"\n\n"
             for k in range(0, len(text), 4)]
    out = translate(parts)   # no finish_reason, no [DONE]: the upstream stopped
    chunks = [json.loads(e[6:]) for e in events_of(out) if e != b"data: [DONE]"]
    view = client_view(chunks)[0]
    assert view.content == "Hi "
    assert view.calls[0]["name"] == "read_file" and view.finish == "tool_calls"
    assert events_of(out)[-1] == b"data: [DONE]"


def test_nothing_after_done_is_rewritten() -> None:
    late = b"data: " + json.dumps(chunk(0, content="late")).encode() + b"\n\n"
    out = translate([b"data: [DONE]\n\n", late])
    assert out == b"data: [DONE]\n\n" + late
