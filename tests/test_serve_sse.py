"""The server's SSE layer, sans-I/O: decoding under any split of the bytes, and the chat
stream's translator (what passes through as it came, what is rewritten)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from toolparse._serve.sse import EventTooLarge, SSEDecoder, StreamTranslator, fields
from toolparse.openai import rewrite_stream, stream_rewriter
from test_openai_support import call_text, chunk, client_view, counter_ids

STREAM = (b": keep-alive\n\n"
          b"data: {\"a\": 1}\n\n"
          b"event: message\r\ndata: line one\r\ndata: line two\r\n\r\n"
          b"id: 7\rdata:no space\r\r"
          b"event: error\ndata: {\"error\": \"x\"}\n\n"
          b"data: [DONE]\n\n")


def decode(parts: list[bytes]) -> list[tuple[bytes | None, bool]]:
    decoder = SSEDecoder()
    blocks = [block for part in parts for block in decoder.feed(part)] + decoder.close()
    return [fields(block) for block in blocks]


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


# ---- runs: the content-only chunks of one read, rewritten as one -----------------------

CONTENT = ("Let me read it. " + call_text("read_file", path="a.md") + " Then \"quoted\", "
           "caf\u00e9 and a line\nbreak, a tab\t, <b>tags</b> and `code <invoke>`.")


def encoded(data: dict[str, Any], spaced: bool) -> bytes:
    text = json.dumps(data, separators=(", ", ": ") if spaced else (",", ":"),
                      ensure_ascii=spaced)
    return b"data: " + text.encode() + b"\n\n"


def passed_on(chunks: list[dict[str, Any]]) -> list[tuple[str, Any]]:
    """What must pass through whatever the rewrite: logprobs, usage, other fields, and
    each change of id."""
    out: list[tuple[str, Any]] = []
    last_id = None
    for data in chunks:
        if data["id"] != last_id:
            out.append(("id", data["id"]))
            last_id = data["id"]
        out += [(key, value) for key, value in data.items()
                if key not in ("id", "object", "created", "model", "choices") and value is not None]
        out += [("logprobs", choice["logprobs"]) for choice in data.get("choices") or []
                if choice.get("logprobs") is not None]
    return out


@st.composite
def upstream_streams(draw: st.DrawFn) -> tuple[list[dict[str, Any]], bytes]:
    """A stream's chunks (content cut anywhere; now and then a chunk that must not join
    a run: logprobs, usage, an unknown field, another id, a role) and its bytes, each
    event encoded compactly (orjson's way) or with spaces and ASCII escapes."""
    cuts = sorted(draw(st.sets(st.integers(1, len(CONTENT) - 1), max_size=40)))
    pieces = [CONTENT[a:b] for a, b in zip([0, *cuts], [*cuts, len(CONTENT)])]
    chunks = [chunk(0, role="assistant", content="")]
    for n, piece in enumerate(pieces):
        odd = draw(st.sampled_from(["", "", "", "logprobs", "usage", "field", "id", "role"]))
        data = chunk(0, content=piece)
        if odd == "logprobs":
            data["choices"][0]["logprobs"] = {"content": [{"token": piece, "logprob": -n}]}
        elif odd == "usage":
            data["usage"] = {"completion_tokens": n}
        elif odd == "field":
            data["x_note"] = n
        elif odd == "id":
            data["id"] = f"chatcmpl-{n}"
        elif odd == "role":
            data["choices"][0]["delta"]["role"] = "assistant"
        chunks.append(data)
    chunks.append(chunk(0, "stop"))
    spaced = draw(st.lists(st.booleans(), min_size=len(chunks), max_size=len(chunks)))
    return chunks, b"".join(encoded(c, s) for c, s in zip(chunks, spaced)) + b"data: [DONE]\n\n"


@given(upstream_streams(), st.lists(st.integers(0, 4000), max_size=20))
def test_runs_change_where_chunks_are_cut_and_nothing_else(
        stream: tuple[list[dict[str, Any]], bytes], cuts: list[int]) -> None:
    chunks, data = stream
    points = sorted({0, len(data), *(c for c in cuts if c < len(data))})
    out = translate([data[a:b] for a, b in zip(points, points[1:])])
    sent = [json.loads(e[6:]) for e in events_of(out) if e != b"data: [DONE]"]
    reference = list(rewrite_stream(chunks, id_factory=counter_ids()))
    got, want = client_view(sent)[0], client_view(reference)[0]
    assert (got.content, got.call_list(), got.finish) == \
        (want.content, want.call_list(), want.finish)
    assert got.call_list() and got.call_list()[0][1] == "read_file"
    assert passed_on(sent) == passed_on(reference)
    assert events_of(out)[-1] == b"data: [DONE]"


def test_a_read_of_prose_events_goes_on_as_the_bytes_that_came() -> None:
    events = [encoded(chunk(0, content=f"word {n} \u00e9 \"q\" "), spaced=False)
              for n in range(30)]
    translator = StreamTranslator(stream_rewriter())
    assert translator.feed(b"".join(events)) == b"".join(events)
    assert translator.chunks == 30


def test_a_read_with_a_call_is_rewritten_as_one_chunk() -> None:
    text = "Hi " + call_text("read_file", path="a.md") + " bye"
    events = [encoded(chunk(0, content=text[k:k + 3]), spaced=False)
              for k in range(0, len(text), 3)]
    translator = StreamTranslator(stream_rewriter(id_factory=counter_ids()))
    out = translator.feed(b"".join(events))
    sent = [json.loads(e[6:]) for e in events_of(out)]
    assert len(sent) < len(events) / 4               # joined, not one out per event in
    view = client_view(sent)[0]
    assert view.content.startswith("Hi ") and view.calls[0]["name"] == "read_file"
    assert translator.chunks == len(events)


def test_a_chunk_that_only_looks_like_the_run_is_read_as_json() -> None:
    # The bytes start and end like the run's chunks, but the middle is not one string:
    # decoded as JSON, it is another chunk (content and an extra field), not joined.
    first = encoded(chunk(0, content="a"), spaced=False)
    prefix, _, suffix = first.partition(b'"a"')
    tricky = prefix + b'"b","role":"assistant"' + suffix
    out = translate([first + tricky])
    sent = [json.loads(e[6:]) for e in events_of(out) if e != b"data: [DONE]"]
    assert client_view(sent)[0].content == "ab"
    assert any(c["choices"] and c["choices"][0]["delta"].get("role") for c in sent)


def test_nothing_waits_for_a_later_read() -> None:
    # Runs never span reads: each read's events go out with that read, arguments too.
    text = ('Go. <tool_calls>\n<invoke name="write_file">\n<parameter name="content" '
            'string="true">' + "x" * 60 + "</parameter>\n</invoke>\n</tool_calls>")
    translator = StreamTranslator(stream_rewriter(id_factory=counter_ids(),
                                                  stream_arguments=True))
    sent: list[list[dict[str, Any]]] = []
    for k in range(0, len(text), 3):
        out = translator.feed(encoded(chunk(0, content=text[k:k + 3]), spaced=False))
        sent.append([json.loads(e[6:]) for e in events_of(out)])
    assert sent[0] and client_view(sent[0])[0].content == "Go."
    pieces = [entry for chunks in sent for c in chunks for entry in
              c["choices"][0]["delta"].get("tool_calls") or [] if "id" not in entry]
    assert len(pieces) > 15                       # the content's characters, read by read


@given(st.lists(st.text(max_size=12), min_size=1, max_size=8), st.booleans(),
       st.sampled_from(["raw", "m(1)+[x]*", "café\\n"]))
def test_a_read_of_the_templates_events_is_found_at_once_as_event_by_event(
        contents: list[str], ascii_escapes: bool, model: str) -> None:
    # A read whose events are all the template's is taken at once; it must be taken
    # exactly when the per-event comparison takes each of them, with their contents,
    # whatever the strings hold (escapes, quotes, backslashes, line breaks, non-ASCII)
    # and whatever the envelope holds (a model name with pattern characters).
    from toolparse._serve.runs import Template

    def event(content: str) -> bytes:
        data = chunk(0, content=content)
        data["model"] = model
        return b"data: " + json.dumps(data, separators=(",", ":"),
                                      ensure_ascii=ascii_escapes).encode() + b"\n\n"

    template = Template.of({**chunk(0, content="x"), "model": model})
    assert template is not None
    events = [event(content) for content in contents]
    one_by_one = [template.content(block[:-2]) for block in events]
    end, found, count = template.leading(b"".join(events) + events[0][:9])
    if None in one_by_one:      # one is not the template's: the per-event way decides
        assert (end, found, count) == (0, "", 0)
    else:
        assert (found, count) == ("".join(contents), len(contents))
        assert end == sum(map(len, events))
    if not ascii_escapes:       # orjson's own encoding: every event fits
        assert found == "".join(contents)
    # An event of another shape among them: all of the read goes the per-event way.
    finish = encoded(chunk(0, "stop"), spaced=False)
    assert template.leading(b"".join(events) + finish)[0] == 0


def test_only_whole_one_line_events_of_one_string_each_are_taken_at_once() -> None:
    from toolparse._serve.runs import Template
    template = Template.of(chunk(0, content="x"))
    assert template is not None
    prefix, suffix = template.prefix, template.suffix
    assert template.leading(prefix + b'"a"' + suffix + b"\n\n" + prefix + b'"b') == \
        (len(prefix) + 3 + len(suffix) + 2, "a", 1)      # the second has not ended
    for middle in (b'"a","b"', b'1', b'', b'"a"\n', b'\n"a"', b'"a\\"', b'"a" "b"'):
        # two strings in one event, no string, a line break (the event's data ends
        # there), a string that does not end: the per-event way decides
        assert template.leading(prefix + middle + suffix + b"\n\n")[0] == 0, middle
    assert template.leading(prefix + b' "a"\t' + suffix + b"\n\n")[1:] == ("a", 1)
    for pieces in ([b'"a","b"', b'["c"', b'"d"]'], [b'"a","b"', b'{"k":"c"', b'"j":"d"}'],
                   [b'"a"', b'', b'"b"'], [b'"a"\r', b'"b"']):
        # one event with two values, made up for by a value spread over two events
        # (the array's length comes out right), or an event with none: refused
        read = b"".join(prefix + piece + suffix + b"\n\n" for piece in pieces)
        assert template.leading(read)[0] == 0, pieces
