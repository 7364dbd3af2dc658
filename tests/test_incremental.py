"""Incremental events (SPEC 7): `StreamParser(incremental=True)`.

The invariants, as properties over generated answers and chunkings: the Text and
ToolCallBlock events are exactly those of `incremental=False`; calls are numbered from 0
as they start, each CallStarted before its deltas, with the id and name of the call the
block confirms; the deltas of an accepted call concatenate to its `arguments_json`, and
a call whose pieces cannot is withdrawn (`diverged`) before its block; a block that
fails after calls started is announced by a CallsAborted right before its text
(`test_incremental_support.check_invariants`; test_properties.py states them over every
dialect). Then the behaviour around them: latency, tools, Markdown, dialects.
"""

from __future__ import annotations

import itertools
import json
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
    Text,
    ToolCallBlock,
)
from test_properties import FRAGMENTS, cuts, split_at_fractions
from test_incremental_support import check_invariants, flat, plain, run

STREAMING = [
    '<parameter name="s" string="true">', '<parameter name="t" string="true">\n',
    '<tool_calls><invoke name="w"><parameter name="content" string="true">\n  a &amp; b\n'
    "</parameter><parameter name=\"n\">7</parameter></invoke></tool_calls>",
    '<tool_calls><invoke name="c"><parameter name="s" string="true"><![CDATA[x\n ]]> y'
    "</parameter></invoke></tool_calls>",
    '<tool_calls><invoke name="r"><parameter name="p" string="true">a</parameter>'
    '<parameter name="p" string="true">b</parameter></invoke></tool_calls>',
    '<tool_calls><invoke name="j">\n{"a": "<b>", "c": [1]}\n</invoke></tool_calls>',
    '<tool_calls><invoke name="j">{"a": 1,, }</invoke><invoke name="k">{</invoke></tool_calls>',
    '<tool_calls><invoke name="j">[1, 2]</invoke></tool_calls>',
]
answers = st.lists(st.sampled_from(FRAGMENTS + STREAMING), max_size=30).map("".join)


def ids() -> Any:
    return map("id{}".format, itertools.count()).__next__


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


def test_with_tools_a_call_goes_out_whole_and_checked_when_it_is_complete() -> None:
    # SPEC 7: with tools a call is typed and checked by its own schema once its invoke
    # is complete: one delta, in the feed that brought `</invoke>`, before its block
    # ends; the block's confirmation still comes with the ToolCallBlock.
    tools = [{"name": "w", "parameters": {"type": "object", "properties": {
        "n": {"type": "integer"}, "s": {"type": "string"}}}}]
    call = ('<invoke name="w"><parameter name="s" string="true">abc</parameter>'
            '<parameter name="n">4</parameter></invoke>')
    text = f"<tool_calls>{call}\n{call}</tool_calls>"
    lists = run(chunked(text, 3), incremental=True, tools=tools)
    block_feed = next(n for n, events in enumerate(lists)
                      if any(isinstance(e, ToolCallBlock) for e in events))
    deltas = [(n, e) for n, events in enumerate(lists) for e in events
              if isinstance(e, ArgumentsDelta)]
    first_end = (len("<tool_calls>") + len(call) - 1) // 3   # the feeds with their last `>`
    second_end = (len("<tool_calls>") + 2 * len(call)) // 3
    assert [(n, e.index) for n, e in deltas] == [(first_end, 0), (second_end, 1)]
    assert second_end < block_feed
    block = next(e for e in lists[block_feed] if isinstance(e, ToolCallBlock))
    assert [e.text for _, e in deltas] == [c.arguments_json for c in block.calls]
    assert block.calls[0].arguments == {"s": "abc", "n": 4}
    assert any(isinstance(e, CallStarted) for e in flat(lists[:first_end]))  # early


def test_with_tools_a_rejected_call_gets_no_delta() -> None:
    tools = [{"name": "w", "parameters": {"type": "object", "properties": {
        "n": {"type": "integer"}}, "required": ["n"]}}]
    text = ('<tool_calls><invoke name="w"><parameter name="m">1</parameter></invoke>'
            '<invoke name="w"><parameter name="n">2</parameter></invoke></tool_calls>')
    events = flat(run(chunked(text, 4), incremental=True, tools=tools))
    block = next(e for e in events if isinstance(e, ToolCallBlock))
    assert [c.status for c in block.calls] == ["rejected", "valid"]
    assert [(e.index, e.text) for e in events if isinstance(e, ArgumentsDelta)] == [
        (1, '{"n":2}')]
    assert not any(isinstance(e, CallsAborted) for e in events)
    check_invariants(events)


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


@pytest.mark.parametrize("size", [1, 4, 1000])
def test_a_repeated_name_withdraws_the_call_before_its_block(size: int) -> None:
    # SPEC 7: the final value is a list, which `{"p":"a"` cannot become. The call is
    # withdrawn (`diverged`) before its block, which still holds it; a second name's
    # value never streams, and the other call of the block is untouched.
    text = ('<tool_calls><invoke name="r"><parameter name="p" string="true">a</parameter>'
            '<parameter name="p" string="true">bbbb</parameter></invoke>'
            '<invoke name="s"><parameter name="q">1</parameter></invoke></tool_calls>')
    events = flat(run(chunked(text, size), incremental=True))
    kinds = [type(e) for e in events]
    aborted = next(e for e in events if isinstance(e, CallsAborted))
    block = next(e for e in events if isinstance(e, ToolCallBlock))
    assert aborted.indexes == (0,) and aborted.failure.reason == "diverged"
    assert kinds.index(CallsAborted) < kinds.index(ToolCallBlock)
    second = text.index('<parameter name="p"', 40)
    assert (aborted.failure.start, aborted.failure.end, aborted.failure.at) == (
        block.calls[0].start, block.calls[0].end, second)
    assert block.calls[0].arguments == {"p": ["a", "bbbb"]}
    sent = "".join(e.text for e in events if isinstance(e, ArgumentsDelta) and e.index == 0)
    assert sent == '{"p":"a"' and "b" not in sent
    assert "".join(e.text for e in events if isinstance(e, ArgumentsDelta) and e.index == 1) \
        == block.calls[1].arguments_json
    check_invariants(events)


@pytest.mark.parametrize("body", ['{"a": 1,, }', "{", '{"a": 1, "a": 2}', '{"a": "x"} y'])
@pytest.mark.parametrize("size", [1, 3, 1000])
def test_a_json_body_that_is_not_one_object_is_withdrawn(body: str, size: int) -> None:
    # Its pieces went out as written; without tools the call is rejected (`{}`): the
    # call is withdrawn before its block, and the block still holds it. Whole, the
    # call is complete before any piece goes out: nothing is sent, nothing withdrawn.
    text = f'<tool_calls><invoke name="j">{body}</invoke></tool_calls>'
    events = flat(run(chunked(text, size), incremental=True))
    block = next(e for e in events if isinstance(e, ToolCallBlock))
    assert block.calls[0].status == "rejected"
    sent = "".join(e.text for e in events if isinstance(e, ArgumentsDelta))
    aborts = [(e.indexes, e.failure.reason) for e in events if isinstance(e, CallsAborted)]
    if size < len(text):
        assert sent and body.startswith(sent)
        assert aborts == [((0,), "diverged")]
    else:
        assert (sent, aborts) == ("", [])
    check_invariants(events)


@pytest.mark.parametrize("size", [1, 4])
@pytest.mark.parametrize("end", ["", "</tool_calls", " and then prose"])
def test_a_block_that_fails_after_its_only_call_was_withdrawn_still_says_so(
        size: int, end: str) -> None:
    # The call is withdrawn (its body is not one object) and waits on its block, which
    # then fails (cut short, or prose where a tag must come): SPEC 7, a failed block's
    # CallsAborted comes before its text. It names no call (the one there was is
    # withdrawn already), and says that the block that call waited on failed.
    text = '<tool_calls><invoke name="j">{"a": 1,, }</invoke>' + end
    events = flat(run(chunked(text, size), incremental=True))
    aborts = [(e.indexes, e.failure.reason) for e in events if isinstance(e, CallsAborted)]
    assert aborts[0] == ((0,), "diverged") and len(aborts) == 2
    assert aborts[1][0] == () and aborts[1][1] != "diverged"
    last = next(n for n, e in enumerate(events) if isinstance(e, CallsAborted) and not e.indexes)
    failed = events[last + 1]
    assert isinstance(failed, Text) and failed.failure == events[last].failure
    assert not any(isinstance(e, ToolCallBlock) for e in events)
    check_invariants(events)


def test_an_array_body_sends_no_piece_and_is_not_withdrawn() -> None:
    # Seen before a piece went out (SPEC 7: the piece waits): an array is never one
    # object, so nothing of it streams, and there is nothing to withdraw.
    events = flat(run(chunked('<tool_calls><invoke name="j">[1, 2]</invoke></tool_calls>', 2),
                      incremental=True))
    assert not any(isinstance(e, (ArgumentsDelta, CallsAborted)) for e in events)
    check_invariants(events)


@pytest.mark.parametrize("with_tools", [False, True])
def test_a_kimi_call_goes_out_when_it_ends_not_when_its_section_ends(with_tools: bool) -> None:
    # SPEC 7 latency: call 0 is complete at its `<|tool_call_end|>`, which arrives with
    # the last piece of its arguments; its deltas are all out in that feed, while call 1
    # is still being written (with tools: typed and checked then, as one delta).
    tools = [{"name": "read_file", "parameters": {"type": "object", "properties": {
        "path": {"type": "string"}}}}] if with_tools else None
    head = ("<|tool_calls_section_begin|>\n<|tool_call_begin|>functions.read_file:0"
            '<|tool_call_argument_begin|>{"path": "a.')
    call_end = 'md"}<|tool_call_end|>'
    rest = ("\n<|tool_call_begin|>functions.read_file:1<|tool_call_argument_begin|>"
            '{"path": "b.md"}<|tool_call_end|>\n<|tool_calls_section_end|>')
    lists = run([head, call_end, rest[:30], rest[30:]], dialect="kimi_k2", incremental=True,
                tools=tools)
    sent = "".join(e.text for e in flat(lists[:2]) if isinstance(e, ArgumentsDelta))
    assert sent == '{"path": "a.md"}'
    assert not any(isinstance(e, ToolCallBlock) for e in flat(lists[:3]))
    block = next(e for e in flat(lists) if isinstance(e, ToolCallBlock))
    assert sent == block.calls[0].arguments_json
    check_invariants(flat(lists))


def test_a_call_s_closing_brace_goes_out_with_its_end_tag() -> None:
    # Without tools the last piece (`"}`) arrives with `</invoke>`: it goes out in that
    # feed, not with the wrapper's close.
    head = '<tool_calls>\n<invoke name="w">\n<parameter name="s" string="true">ab'
    lists = run([head, "c</parameter>\n</invoke>\n", '<invoke name="v"/>\n', "</tool_calls>"],
                incremental=True)
    assert "".join(e.text for e in flat(lists[:2]) if isinstance(e, ArgumentsDelta)) == \
        '{"s":"abc"}'
    assert not any(isinstance(e, ToolCallBlock) for e in flat(lists[:3]))
    check_invariants(flat(lists))


def test_a_json_body_streams_as_written_and_is_forwarded_as_written() -> None:
    body = '{"path": "a.md",\n "limit": 10}'
    text = f'<tool_calls><invoke name="read">\n{body}\n</invoke></tool_calls>'
    events = flat(run(chunked(text, 4), incremental=True))
    block = next(e for e in events if isinstance(e, ToolCallBlock))
    assert block.calls[0].arguments_json == body
    assert "".join(e.text for e in events if isinstance(e, ArgumentsDelta)) == body


@pytest.mark.parametrize("text", [
    '<tool_calls><invoke name="w"><parameter name="s" string="true">\n  a &amp; b  \nc'
    "defghijklmnopq</parameter></invoke></tool_calls>",
    '<tool_calls><invoke name="c"><parameter name="s" string="true"><![CDATA[x\n ]]> y z'
    "abcdefghijklmnopq</parameter></invoke></tool_calls>",
    '<tool_calls><invoke name="j">\n{"a": "<b>", "c": [1],  "d": 2}\n</invoke></tool_calls>',
])
def test_an_empty_chunk_while_a_value_streams_changes_nothing(text: str) -> None:
    # An empty chunk is normal mid-stream (SPEC G2): in a value that streams it
    # once raised IndexError.
    chunks = chunked(text, 4)
    padded = [piece for chunk in chunks for piece in (chunk, "")]
    expected = run(chunks, id_factory=ids(), incremental=True)
    got = run(padded, id_factory=ids(), incremental=True)
    assert flat(got) == flat(expected)
    assert any(isinstance(e, ArgumentsDelta) for e in flat(got[:-2]))
    check_invariants(flat(got))


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


CODE_VALUE = (
    '<tool_calls><invoke name="edit"><parameter name="code" string="true">\n'
    "    if (a &lt; b &amp;&amp; c) {  \n\treturn x;   \n}\u3000\u3000 tail &#x41;"
    "&amp \n z  \x85y\u2028  end \t\u3000\x85\n\t\t\t\t\t\t\t\t</parameter></invoke></tool_calls>")


@pytest.mark.parametrize("size", [1, 2, 3, 4, 5, 7])
def test_a_streamed_value_in_its_body_sends_what_its_final_text_begins_with(size: int) -> None:
    # `Engine.feed`'s own path for more text of a value that streams (3b): blanks at a
    # chunk's end wait (Unicode ones too: what `str.rstrip` strips), an entity split
    # across chunks waits whole, and every piece is the value's final text so far.
    chunks = chunked(CODE_VALUE, size)
    events = run(chunks, id_factory=ids(), incremental=True)
    check_invariants(flat(events))
    (block,) = [e for e in flat(events) if isinstance(e, ToolCallBlock)]
    arguments = block.calls[0].arguments_json
    close = CODE_VALUE.index("</parameter>")
    sent, at, before_close = "", 0, ""
    for chunk, out in zip(chunks, events):
        at += len(chunk)
        sent += "".join(e.text for e in out if isinstance(e, ArgumentsDelta))
        assert arguments.startswith(sent)   # after every feed: a prefix of the final text
        if at < close:
            before_close = sent
    assert sent == arguments
    assert "\\treturn x;" in before_close and " tail" in before_close and "z" in before_close
