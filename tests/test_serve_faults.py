"""Odd upstream events never cut the client's stream (SPEC 9; issue 47, items 2 and 10),
sans-I/O: the proxy's JSON codec, and the chat stream's translator fed events nested
past any decoder's depth, lone surrogates, an event over the size limit, and faults.
The same, end to end with the openai client, is in test_serve_odd.py."""

from __future__ import annotations

import json
import logging
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from toolparse._serve.codec import MAX_DEPTH, TooDeep, dumps, loads
from toolparse._serve.sse import SSEDecoder, StreamTranslator
from toolparse.openai import StreamRewriter, stream_rewriter
from test_openai_support import call_text, chunk, client_view, counter_ids, expected_view

DEEP = b"[" * 100_000 + b"]" * 100_000
READ = call_text("read_file", path="a.md")


# ---- the codec ---------------------------------------------------------------------------------

def nested(levels: int) -> Any:
    value: Any = "core"
    for level in range(levels):
        value = [value] if level % 2 else {"k": value}
    return value


def test_text_past_the_decoders_depth_is_a_value_error_never_a_recursion_error() -> None:
    # 100,000 levels: past the standard module's reach even where something (mypy, run
    # in-process by another test) has raised the recursion limit.
    for text in (DEEP, b'{"a": ' * 100_000 + b"1" + b"}" * 100_000, b'"\\ud83d", ' + DEEP):
        with pytest.raises(TooDeep):
            loads(b"[" + text + b"]" if text.startswith(b'"') else text)
    assert issubclass(TooDeep, ValueError)
    assert loads(b"[" * MAX_DEPTH + b"]" * MAX_DEPTH) is not None


@pytest.mark.parametrize("levels", [10, 254, 255, 600, MAX_DEPTH - 1])
def test_what_was_decoded_can_be_encoded_whatever_its_depth(levels: int) -> None:
    value = nested(levels)
    encoded = dumps(value)
    # Compared as text: == on values this deep would itself pass the recursion limit.
    text = '"core"'
    for level in range(levels):
        text = f"[{text}]" if level % 2 else '{"k":' + text + "}"
    assert encoded == text.encode()
    assert dumps(loads(encoded)) == encoded


def test_a_lone_surrogate_is_kept_as_its_escape() -> None:
    value = loads(b'{"content": "half \\ud83d of it", "pair": "\\ud83d\\ude00"}')
    assert value == {"content": "half \ud83d of it", "pair": "\U0001F600"}
    encoded = dumps(value)
    assert b"half \\ud83d of it" in encoded and "\U0001F600".encode() in encoded
    assert json.loads(encoded) == value
    # Two halves joined into one string (two reads' contents, say) go out as a pair.
    assert json.loads(dumps({"content": "\ud83d" + "\ude00"})) == {"content": "\U0001F600"}


def test_non_finite_numbers_are_null_and_big_integers_are_kept() -> None:
    assert json.loads(dumps(loads(b"[NaN, Infinity, -Infinity, 1e999, \"\\udc00\"]"))) == \
        [None, None, None, None, "\udc00"]
    big = 2 ** 80
    assert dumps([big, "\udc00"]) == b'[%d,"\\udc00"]' % big


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(st.characters(min_codepoint=0, max_codepoint=0xFFFF)),
    lambda inner: st.lists(inner, max_size=4)
    | st.dictionaries(st.text(max_size=4), inner, max_size=4), max_leaves=20)


@given(json_values)
def test_the_fallback_encoder_writes_what_the_standard_module_reads_back(value: Any) -> None:
    # Surrogates are drawn alone or in pairs; the standard module joins an escaped pair,
    # as any client's decoder does, so compare with its own round trip.
    assert json.loads(dumps(value)) == json.loads(json.dumps(value))


# ---- the translator -----------------------------------------------------------------------------

def event(data: dict[str, Any]) -> bytes:
    return b"data: " + json.dumps(data).encode() + b"\n\n"


def content_events(text: str, size: int = 4) -> list[bytes]:
    return [event(chunk(0, content=text[k:k + size])) for k in range(0, len(text), size)]


def client_side(out: bytes) -> tuple[Any, list[bytes]]:
    """What a client makes of the translator's bytes: the choice's view, and the raw
    events (each must be JSON or [DONE])."""
    events = [block for block in out.split(b"\n\n") if block]
    chunks = [json.loads(block[6:]) for block in events if block != b"data: [DONE]"]
    return client_view(chunks)[0], events


def test_an_event_past_any_decoders_depth_is_dropped_and_the_stream_goes_on(
        caplog: pytest.LogCaptureFixture) -> None:
    answer = "Before. " + READ + " After."
    parts = content_events(answer[:12]) + [b"data: " + DEEP + b"\n\n"] \
        + content_events(answer[12:]) + [event(chunk(0, finish="stop")), b"data: [DONE]\n\n"]
    translator = StreamTranslator(stream_rewriter(id_factory=counter_ids()))
    with caplog.at_level(logging.WARNING, "toolparse.serve"):
        out = b"".join(translator.feed(part) for part in parts) + translator.finish()
    view, events = client_side(out)
    expected = expected_view(answer)
    assert view.content == expected.content and view.finish == "tool_calls"
    assert [call[1:] for call in view.call_list()] == [("read_file", '{"path":"a.md"}')]
    assert events[-1] == b"data: [DONE]" and DEEP not in out
    assert "nests deeper than 1024 levels" in caplog.text


@pytest.mark.parametrize("split", [False, True])
def test_a_lone_surrogate_in_content_is_kept_and_the_call_still_comes(split: bool) -> None:
    answer = "Smile \ud83d and " + READ + " \ude00 end"
    parts = content_events(answer, 3)   # ensure_ascii escapes: "\ud83d" as six bytes
    translator = StreamTranslator(stream_rewriter(id_factory=counter_ids()))
    out = (b"".join(translator.feed(part) for part in parts) if split
           else translator.feed(b"".join(parts))) + translator.finish()
    view, events = client_side(out)
    assert view.content == expected_view(answer).content == "Smile \ud83d and  \ude00 end"
    assert [call[1] for call in view.call_list()] == ["read_file"]
    assert events[-1] == b"data: [DONE]"


def test_nothing_of_an_event_over_the_limit_is_sent(caplog: pytest.LogCaptureFixture) -> None:
    head = "Text first. <tool_calls>"          # the block is open: held
    translator = StreamTranslator(stream_rewriter(id_factory=counter_ids()), max_event=1000)
    out = b"".join(translator.feed(part) for part in content_events(head))
    opened = b'data: {"choices": [{"index": 0, "delta": {"content": "' + b"z" * 600
    with caplog.at_level(logging.WARNING, "toolparse.serve"):
        out += translator.feed(opened) + translator.feed(b"z" * 600)
    assert translator.ended
    assert translator.feed(b"zzz\n\n" + event(chunk(0, content="late"))) == b""
    assert translator.finish() == b""
    view, events = client_side(out)
    assert view.content == head and view.finish == "stop"
    assert b"zzz" not in out and events[-1] == b"data: [DONE]"
    assert "longer than 1000 bytes" in caplog.text


def test_an_event_the_upstream_broke_off_is_not_sent() -> None:
    translator = StreamTranslator(stream_rewriter(id_factory=counter_ids()))
    out = translator.feed(event(chunk(0, content="Hello")) + b'data: {"choices": [{"ind')
    out += translator.finish(complete=False)
    view, events = client_side(out)
    assert view.content == "Hello" and events[-1] == b"data: [DONE]"
    # An upstream that closes cleanly after a whole last event still has it sent.
    translator = StreamTranslator(stream_rewriter(id_factory=counter_ids()))
    out = translator.feed(event(chunk(0, content="Hello"))[:-2]) + translator.finish()
    assert client_side(out)[0].content == "Hello"


class Faulty(StreamRewriter[Any]):
    """A real rewriter that fails on its `fail_at`-th chunk (and, if asked, when closed):
    a bug, injected."""

    def __init__(self, fail_at: int, close_fails: bool = False) -> None:
        real = stream_rewriter(id_factory=counter_ids())
        super().__init__(real._settings)
        self.fail_at, self.fed, self.close_fails = fail_at, 0, close_fails

    def feed(self, chunk: Any) -> list[Any]:
        self.fed += 1
        if self.fed == self.fail_at:
            raise RuntimeError("injected")
        return super().feed(chunk)

    def close(self) -> list[Any]:
        if self.close_fails:
            raise KeyError("injected too")
        return super().close()


def test_a_fault_ends_the_stream_with_the_held_text_finish_and_done(
        caplog: pytest.LogCaptureFixture) -> None:
    head = "Held: <tool_calls><invoke name=\"read_file\">"
    parts = [event(chunk(0, role="assistant", content=""))] + content_events(head) + \
        content_events(" more text that never comes") + [b"data: [DONE]\n\n"]
    rewriter = Faulty(fail_at=2 + len(content_events(head)))
    translator = StreamTranslator(rewriter)
    with caplog.at_level(logging.DEBUG, "toolparse.serve"):
        out = b"".join(translator.feed(part) for part in parts) + translator.finish()
    view, events = client_side(out)
    assert view.content == head and view.finish == "stop"
    assert events[-1] == b"data: [DONE]" and events.count(b"data: [DONE]") == 1
    assert translator.ended and rewriter.fed == 2 + len(content_events(head))
    errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert len(errors) == 1 and "RuntimeError" in errors[0].getMessage()
    assert "injected" not in errors[0].getMessage()      # the type only, never content


def test_a_fault_in_a_read_keeps_what_the_read_rewrote_before_it() -> None:
    parts = content_events("One. Two. Three.")
    translator = StreamTranslator(Faulty(fail_at=2))
    # Not one read: each event is its own run (a per-event read shape).
    out = b"".join(translator.feed(part) for part in parts)
    view, events = client_side(out)
    assert view.content == "One." and view.finish == "stop" and events[-1] == b"data: [DONE]"


def test_a_fault_that_also_breaks_closing_still_ends_the_stream(
        caplog: pytest.LogCaptureFixture) -> None:
    translator = StreamTranslator(Faulty(fail_at=3, close_fails=True))
    with caplog.at_level(logging.ERROR, "toolparse.serve"):
        out = b"".join(translator.feed(part) for part in content_events("abcdefghijkl"))
    view, events = client_side(out)
    assert view.content == "abcdefgh" and view.finish == "stop"
    assert events[-1] == b"data: [DONE]"
    assert len(caplog.records) == 1 and "KeyError" in caplog.records[0].getMessage()


def test_an_event_read_in_many_pieces_is_one_block() -> None:
    decoder = SSEDecoder()
    data = b"data: " + b"x" * (3 << 20) + b"\r\n\r\ndata: tail\r"
    blocks = [block for k in range(0, len(data), 4096) for block in decoder.feed(data[k:k + 4096])]
    assert blocks == [b"data: " + b"x" * (3 << 20)]
    assert decoder.close() == [b"data: tail"]


def test_the_depth_limit_holds_whatever_the_recursion_limit() -> None:
    # Text orjson refuses for another reason (a lone surrogate) goes to the standard
    # module, which reads as deep as the interpreter allows: the limit is checked on
    # what it gives, so a raised recursion limit (mypy raises it to 16,384) changes
    # nothing.
    import sys

    before = sys.getrecursionlimit()
    sys.setrecursionlimit(20_000)
    try:
        for depth, deep_ok in ((MAX_DEPTH, True), (MAX_DEPTH + 1, False), (3000, False)):
            text = b"[" * (depth - 1) + b'["\\ud83d"]' + b"]" * (depth - 1)
            if deep_ok:
                assert dumps(loads(text)) == text
            else:
                with pytest.raises(TooDeep):
                    loads(text)
    finally:
        sys.setrecursionlimit(before)
