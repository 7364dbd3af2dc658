"""Incremental events (SPEC 7): `StreamParser(incremental=True)`.

The invariants, as properties over generated answers and chunkings: the Text and
ToolCallBlock events are exactly those of `incremental=False`; calls are numbered from 0
as they start, each CallStarted before its deltas, with the id and name of the call the
block confirms; the deltas of an accepted call concatenate to its `arguments_json`; a
block that fails after calls started is announced by a CallsAborted right before its
text. Then the behaviour around them: latency, tools, Markdown, dialects.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterable, Sequence
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import toolparse
from toolparse import corpus
from toolparse import (
    ArgumentsDelta,
    CallsAborted,
    CallStarted,
    ConfigTypeError,
    Reasoning,
    Text,
    ToolCallBlock,
)
from test_properties import FRAGMENTS, cuts, split_at_fractions

STREAMING = [
    '<parameter name="s" string="true">', '<parameter name="t" string="true">\n',
    '<tool_calls><invoke name="w"><parameter name="content" string="true">\n  a &amp; b\n'
    "</parameter><parameter name=\"n\">7</parameter></invoke></tool_calls>",
    '<tool_calls><invoke name="c"><parameter name="s" string="true"><![CDATA[x\n ]]> y'
    "</parameter></invoke></tool_calls>",
    '<tool_calls><invoke name="r"><parameter name="p" string="true">a</parameter>'
    '<parameter name="p" string="true">b</parameter></invoke></tool_calls>',
    '<tool_calls><invoke name="j">\n{"a": "<b>", "c": [1]}\n</invoke></tool_calls>',
]
answers = st.lists(st.sampled_from(FRAGMENTS + STREAMING), max_size=30).map("".join)


def run(chunks: Iterable[str], **options: Any) -> list[list[Any]]:
    """The events of each feed() and of close(), one list each."""
    parser = toolparse.StreamParser(**options)
    out = [parser.feed(chunk) for chunk in chunks]
    out.append(parser.close())
    return out


def ids() -> Any:
    return map("id{}".format, itertools.count()).__next__


def plain(lists: Sequence[Sequence[Any]]) -> list[list[Any]]:
    return [[e for e in events if isinstance(e, (Text, ToolCallBlock, Reasoning))]
            for events in lists]


def flat(lists: Sequence[Sequence[Any]]) -> list[Any]:
    return [event for events in lists for event in events]


def repeats_a_name(raw: str) -> bool:
    names = [m for m in raw.split('<parameter name="')[1:]]
    keys = [name.split('"', 1)[0] for name in names]
    return len(keys) != len(set(keys))


def check_invariants(events: list[Any]) -> None:
    started: dict[int, CallStarted] = {}
    deltas: dict[int, str] = {}
    open_indexes: list[int] = []
    for n, event in enumerate(events):
        if isinstance(event, CallStarted):
            assert event.index == len(started)  # numbered from 0, in order, no gap
            started[event.index] = event
            open_indexes.append(event.index)
        elif isinstance(event, ArgumentsDelta):
            assert event.index in open_indexes and event.text
            deltas[event.index] = deltas.get(event.index, "") + event.text
        elif isinstance(event, CallsAborted):
            assert event.indexes == tuple(open_indexes)
            following = events[n + 1]
            assert isinstance(following, Text) and following.failure == event.failure
            open_indexes = []
        elif isinstance(event, ToolCallBlock):
            assert len(open_indexes) == len(event.calls)  # every call started, in order
            for index, call in zip(open_indexes, event.calls):
                assert (started[index].id, started[index].name) == (call.id, call.name)
                assert started[index].block_start == event.start
                if call.accepted and not repeats_a_name(call.raw):
                    assert deltas.get(index, "") == call.arguments_json
            open_indexes = []
        elif isinstance(event, Text) and event.failure is not None:
            pass
    assert not open_indexes  # nothing left started at the end of the stream


@settings(max_examples=300, deadline=None)
@given(answers, cuts)
def test_incremental_events_keep_every_invariant(text: str, points: list[float]) -> None:
    chunks = split_at_fractions(text, points)
    quiet = run(chunks, id_factory=ids())
    loud = run(chunks, id_factory=ids(), incremental=True)
    assert plain(loud) == quiet  # the other events are exactly the same, feed by feed
    check_invariants(flat(loud))


def chunked(text: str, size: int) -> list[str]:
    return [text[i:i + size] for i in range(0, len(text), size)]


def test_a_call_streams_name_first_then_its_arguments() -> None:
    text = ('Writing. <tool_calls><invoke name="write_file"><parameter name="path" '
            'string="true">notes.md</parameter><parameter name="lines">3</parameter>'
            "</invoke></tool_calls>")
    events = flat(run(chunked(text, 4), incremental=True, id_factory=ids()))
    kinds = [type(e).__name__ for e in events]
    first_delta = kinds.index("ArgumentsDelta")
    assert kinds.index("CallStarted") < first_delta < kinds.index("ToolCallBlock")
    assert events[kinds.index("CallStarted")] == CallStarted(0, "id0", "write_file", 9)
    assert "".join(e.text for e in events if isinstance(e, ArgumentsDelta)) == \
        '{"path":"notes.md","lines":3}'


def test_a_long_string_value_streams_before_its_close_tag() -> None:
    # SPEC 7 latency: a 20 KB string value fed in 4-char chunks is at least 95 % out
    # (as argument deltas) before its closing tag is fed.
    value = "".join(f"line {n}: some text & more\n" for n in range(800))[:20_000]
    escaped = value.replace("&", "&amp;")
    head = '<tool_calls><invoke name="w"><parameter name="content" string="true">'
    parser = toolparse.StreamParser(incremental=True)
    streamed = ""
    for chunk in chunked(head + escaped, 4):
        streamed += "".join(e.text for e in parser.feed(chunk) if isinstance(e, ArgumentsDelta))
    covered = len(json.loads('"' + streamed.split(':"', 1)[1] + '"'))
    assert covered >= 0.95 * len(value)
    rest = flat([parser.feed("</parameter></invoke></tool_calls>"), parser.close()])
    streamed += "".join(e.text for e in rest if isinstance(e, ArgumentsDelta))
    assert json.loads(streamed) == {"content": value}


def test_with_tools_deltas_wait_for_the_checked_call() -> None:
    tools = [{"name": "w", "parameters": {"type": "object", "properties": {
        "n": {"type": "integer"}, "s": {"type": "string"}}}}]
    text = ('<tool_calls><invoke name="w"><parameter name="s" string="true">abc</parameter>'
            '<parameter name="n">4</parameter></invoke></tool_calls>')
    lists = run(chunked(text, 3), incremental=True, tools=tools)
    block_feed = next(n for n, events in enumerate(lists)
                      if any(isinstance(e, ToolCallBlock) for e in events))
    deltas = [(n, e) for n, events in enumerate(lists) for e in events
              if isinstance(e, ArgumentsDelta)]
    assert [n for n, _ in deltas] == [block_feed]  # one delta, with the block
    block = next(e for e in lists[block_feed] if isinstance(e, ToolCallBlock))
    assert deltas[0][1].text == block.calls[0].arguments_json
    assert any(isinstance(e, CallStarted) for e in flat(lists[:block_feed]))  # early


def test_a_broken_block_aborts_its_started_calls_before_its_text() -> None:
    text = ('<tool_calls><invoke name="a"><parameter name="p" string="true">x</parameter>'
            '</invoke><invoke name="b"><parameter name="q">1</parameter></tool_calls> after')
    events = flat(run(chunked(text, 5), incremental=True))
    aborted = [e for e in events if isinstance(e, CallsAborted)]
    assert [a.indexes for a in aborted] == [(0, 1)]
    assert aborted[0].failure.reason == "unexpected_token"
    assert not any(isinstance(e, ToolCallBlock) for e in events)
    check_invariants(events)


def test_a_truncated_stream_aborts_at_close() -> None:
    parser = toolparse.StreamParser(incremental=True)
    early = parser.feed('<tool_calls><invoke name="a"><parameter name="p">')
    assert [type(e) for e in early] == [CallStarted]
    closing = parser.close()
    assert isinstance(closing[0], CallsAborted) and closing[0].failure.reason == "truncated"
    assert isinstance(closing[1], Text) and closing[1].failure == closing[0].failure


def test_a_block_that_may_be_in_code_holds_its_events_until_decided() -> None:
    # After an unmatched backtick the tag may be inside a code span (SPEC 4.3).
    block = '<tool_calls><invoke name="a"><parameter name="p" string="true">x</parameter></invoke></tool_calls>'
    parser = toolparse.StreamParser(incremental=True)
    before = parser.feed("see ` " + block)
    assert not any(isinstance(e, (CallStarted, ArgumentsDelta)) for e in before)
    in_code = flat([parser.feed(" ` done"), parser.close()])
    assert not any(isinstance(e, (CallStarted, ArgumentsDelta, ToolCallBlock)) for e in in_code)
    parser = toolparse.StreamParser(incremental=True)
    events = flat([parser.feed("see ` " + block), parser.feed("\n\nno code"), parser.close()])
    kinds = [type(e) for e in events]
    assert kinds.index(CallStarted) < kinds.index(ArgumentsDelta) < kinds.index(ToolCallBlock)
    check_invariants(events)


def test_a_repeated_name_stops_the_deltas_but_not_the_call() -> None:
    text = ('<tool_calls><invoke name="r"><parameter name="p" string="true">a</parameter>'
            '<parameter name="p" string="true">b</parameter></invoke></tool_calls>')
    events = flat(run(chunked(text, 4), incremental=True))
    sent = "".join(e.text for e in events if isinstance(e, ArgumentsDelta))
    block = next(e for e in events if isinstance(e, ToolCallBlock))
    assert block.calls[0].arguments == {"p": ["a", "b"]}
    assert sent == '{"p":"a"' and not block.calls[0].arguments_json.startswith(sent)


def test_a_json_body_streams_as_written_and_is_forwarded_as_written() -> None:
    body = '{"path": "a.md",\n "limit": 10}'
    text = f'<tool_calls><invoke name="read">\n{body}\n</invoke></tool_calls>'
    events = flat(run(chunked(text, 4), incremental=True))
    block = next(e for e in events if isinstance(e, ToolCallBlock))
    assert block.calls[0].arguments_json == body
    assert "".join(e.text for e in events if isinstance(e, ArgumentsDelta)) == body


def test_incremental_must_be_a_bool() -> None:
    with pytest.raises(ConfigTypeError, match="incremental"):
        toolparse.StreamParser(incremental="yes")  # type: ignore[arg-type]


CORPUS_CASES = corpus.find_cases()


@pytest.mark.parametrize("dialect", ["own", "auto"])
@pytest.mark.parametrize("case", CORPUS_CASES, ids=[case.id for case in CORPUS_CASES])
def test_every_corpus_case_in_every_dialect_keeps_the_invariants(case: corpus.Case,
                                                                dialect: str) -> None:
    # The corpus's own chunkings (whole, by character, random) and its tools: every
    # bundled dialect's grammar goes through the same incremental reading, alone and
    # under `auto` (where a contested block is read again by the grammar chosen).
    dialect = case.dialect if dialect == "own" else dialect
    for _, chunks in corpus.chunkings(case):
        options = {"dialect": dialect, "tools": case.tools}
        quiet = run(chunks, id_factory=ids(), **options)
        loud = run(chunks, id_factory=ids(), incremental=True, **options)
        assert plain(loud) == quiet
        check_invariants(flat(loud))


@pytest.mark.parametrize("size", [1, 4, 1 << 20])
def test_a_block_in_code_draws_no_id_in_either_mode(size: int) -> None:
    # A block held on a Markdown ticket draws its ids only once it is known to be a
    # block: the two modes give the same ids, and the in-code block none.
    block = ('<tool_calls><invoke name="f"><parameter name="a" string="true">v</parameter>'
             "</invoke></tool_calls>")
    text = block + " `" + block + "` " + block
    got = {}
    for incremental in (False, True):
        events = flat(run(chunked(text, size), id_factory=ids(), incremental=incremental))
        got[incremental] = [call.id for e in events if isinstance(e, ToolCallBlock)
                            for call in e.calls]
        started = [e.id for e in events if isinstance(e, CallStarted)]
        assert not incremental or started == got[incremental]
    assert got[False] == got[True] == ["id0", "id1"]
