"""SPEC section 1 guarantees as properties: G1 lossless, G2 chunking-invariant (and
parse == stream), G4 fail closed, G5 low latency, G8 never raises on content.
(G3 against markdown-it-py lives in test_markdown_oracle.py; G6/G7 in test_bounds.py.)
At the end, SPEC 7's incremental events in every bundled dialect."""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from hypothesis import given, settings, strategies as st

import toolparse
from toolparse._dialect.gates import CALL_RULES, EVENT_RULES
from toolparse._dialect.loader import resolve_dialect
from conftest import joined, shape, split_at, stream
from test_incremental_support import (
    CODE, INVALID_BODIES, NESTED, TOOLS, WRITERS, Call, Value, check_invariants, flat, run)
from test_incremental_support import plain as plain_events

WELL_FORMED = [
    '<tool_calls><invoke name="read_file"><parameter name="path">a.md</parameter></invoke></tool_calls>',
    '<tool_calls>\n  <invoke name="w">\n    <parameter name="c"><![CDATA[x ]]> y]]></parameter>\n  </invoke>\n</tool_calls>',
    '<｜DSML｜tool_calls><｜DSML｜invoke name="b"><｜DSML｜parameter name="n">42</｜DSML｜parameter></｜DSML｜invoke></｜DSML｜tool_calls>',
    '<invoke name="o"/>\n</tool_calls>',
    '<tool_calls><invoke name="j">{"a": [1, "<"]}</invoke><!-- c --><invoke name="k"/></tool_calls>',
    '<|DSML|function_calls><invoke name="e"><parameter name="v" string="false">[1]</parameter></invoke></|DSML|function_calls>',
]

FRAGMENTS = [
    "<tool_calls>", "</tool_calls>", '<invoke name="a">', '<invoke name="b"/>', "</invoke>",
    '<parameter name="p">', '<parameter name="q" string="false">', "</parameter>",
    "<![CDATA[", "]]>", "<!--", "-->", "<｜DSML｜tool_calls>", "</｜DSML｜tool_calls>",
    '<|DSML|invoke name="c">', "</|DSML|invoke>", "<", ">", "</", "<tool_", "|DSML|", "｜",
    "`", "``", "```", "~~~", "\n", "\r\n", "\r", " ", "    ", "\t", "&amp;", "&lt;", "{", "}",
    '"', "'", "=", "/", "text", "42", "[1]", "\\", "-", "]", "中文", "😀",
] + WELL_FORMED

tool_text = st.lists(st.one_of(st.sampled_from(FRAGMENTS), st.text(max_size=8)), max_size=40).map("".join)
any_text = st.one_of(tool_text, st.text(max_size=300))
# Cut points as fractions of the text, so that short and long texts are cut as often.
cuts = st.lists(st.floats(min_value=0, max_value=1), max_size=60)


def split_at_fractions(text: str, fractions: list[float]) -> list[str]:
    return split_at(text, [round(f * len(text)) for f in fractions])


def g5_allows(emitted: str, held: str) -> bool:
    """What G5 lets wait: nothing, or a possible tag (or reasoning opener) from its `<`."""
    return held == "" or held[0] == "<"


def no_empty_text(events: list[toolparse.Event]) -> bool:
    """No Text event is empty: one with no text is framing markup (harmony's) in its raw."""
    return all(e.text or e.raw for e in events if isinstance(e, toolparse.Text))


@given(any_text, cuts)
def test_g1_lossless_and_g8_never_raises(text: str, points: list[float]) -> None:
    events = stream(split_at_fractions(text, points))
    assert joined(events) == text
    assert no_empty_text(events)


@given(any_text, cuts)
def test_g2_chunking_invariant_and_parse_equals_stream(text: str, points: list[float]) -> None:
    expected = shape(toolparse.parse(text).events)
    assert shape(stream(split_at_fractions(text, points))) == expected
    assert shape(stream(list(text) or [""])) == expected


@given(tool_text, cuts)
def test_g4_every_block_parses_alone_to_the_same_calls(text: str, points: list[float]) -> None:
    for event in stream(split_at_fractions(text, points)):
        if isinstance(event, toolparse.ToolCallBlock):
            alone = toolparse.parse(event.raw)
            assert len(alone.events) == 1
            (again,) = alone.events
            assert isinstance(again, toolparse.ToolCallBlock)
            assert [(c.name, c.arguments) for c in again.calls] == [
                (c.name, c.arguments) for c in event.calls]


@given(st.sampled_from(WELL_FORMED), st.data())
def test_g4_truncated_block_is_text(block: str, data: st.DataObject) -> None:
    cut = data.draw(st.integers(min_value=1, max_value=len(block) - 1))
    text = "prefix " + block[:cut]
    points = data.draw(cuts)
    events = stream(split_at_fractions(text, points))
    assert not any(isinstance(e, toolparse.ToolCallBlock) for e in events)
    assert joined(events) == text


@given(st.sampled_from(WELL_FORMED), st.data())
def test_g4_corrupted_block_never_half_executes(block: str, data: st.DataObject) -> None:
    # Replace one character; whatever comes out is lossless, and every block that still
    # comes out is a complete block on its own.
    i = data.draw(st.integers(min_value=0, max_value=len(block) - 1))
    c = data.draw(st.sampled_from(["x", "<", ">", '"', " ", "/", "`", "]"]))
    text = block[:i] + c + block[i + 1:]
    events = stream(split_at_fractions(text, data.draw(cuts)))
    assert joined(events) == text
    for event in events:
        if isinstance(event, toolparse.ToolCallBlock):
            assert shape(toolparse.parse(event.raw).events)[0][0] == "block"


plain = st.text(alphabet=st.characters(blacklist_characters="<`"), max_size=200)


@given(plain, cuts)
def test_g5_plain_text_is_emitted_by_the_feed_that_brought_it(text: str, points: list[float]) -> None:
    parser = toolparse.StreamParser()
    for chunk in split_at_fractions(text, points):
        assert "".join(e.text for e in parser.feed(chunk)) == chunk  # type: ignore[union-attr]
    assert parser.close() == []


@given(st.text(alphabet=st.characters(blacklist_characters="`"), max_size=200).map(
    lambda s: s) | tool_text.filter(lambda s: "`" not in s), cuts)
def test_g5_only_a_possible_tag_or_an_open_block_is_held(text: str, points: list[float]) -> None:
    # Without backticks nothing waits on Markdown: what has not been emitted after a
    # feed starts at a `<` (a partial tag, or an open block).
    parser = toolparse.StreamParser()
    seen = ""
    emitted = ""
    for chunk in split_at_fractions(text, points):
        seen += chunk
        emitted += joined(parser.feed(chunk))
        assert seen.startswith(emitted)
        held = seen[len(emitted):]
        assert g5_allows(emitted, held)


# Text dense with `<` and block-start prefixes (no quotes: a held prefix then holds no
# second `<`), with whole blocks among them.
lt_text = st.lists(st.sampled_from(
    ["<", "<<", "<<<<", "<tool_", "<tool_calls", "<｜DSML｜", "<｜DSML｜tool_calls", "<|DSML|",
     "<invok", "x", " ", "\n", "a<b", WELL_FORMED[0], WELL_FORMED[2]]), max_size=30).map("".join)


@given(lt_text, cuts)
def test_g5_after_dead_prefixes_only_the_last_one_waits(text: str, points: list[float]) -> None:
    # A `<` that can no longer start a block goes out in the feed that made that
    # certain, whatever comes after it: what waits is one prefix, from its `<`. And
    # the blocks among them are found under every chunking.
    parser = toolparse.StreamParser()
    seen = emitted = ""
    events: list[toolparse.Event] = []
    for chunk in split_at_fractions(text, points):
        seen += chunk
        out = parser.feed(chunk)
        events += out
        emitted += joined(out)
        held = seen[len(emitted):]
        assert seen.startswith(emitted) and g5_allows(emitted, held)
        assert held.count("<") <= 1 or held.startswith(("<tool_calls>", "<｜DSML｜tool_calls>"))
    events += parser.close()
    assert shape(events) == shape(toolparse.parse(text).events)


# ---- SPEC 7 (incremental events) in every bundled dialect -----------------------------------
#
# Calls are described once (`test_incremental_support.Call`) and written in each
# dialect's markup: repeated argument names, JSON bodies that are not one object, typed
# values nested in arrays and objects, long values of code; with and without tools.
# Under every chunking (whole, one character at a time, random cuts) the pieces of a
# call join to exactly its final `arguments_json` or the call is withdrawn before its
# block (`check_invariants`), every call's pieces are out by the feed that completes
# the call, and the other events are those of `incremental=False`, feed by feed.

_keys = st.sampled_from(["path", "n", "tree", "items", "code"])   # few: names repeat
_long = st.lists(st.sampled_from(CODE), min_size=1, max_size=40).map("\n".join)
_values = st.one_of(
    st.builds(Value, st.sampled_from(NESTED), st.sampled_from([None, None, False, True])),
    st.builds(Value, _long, st.sampled_from([None, True]), st.booleans()),
    st.builds(Value, st.text(st.characters(blacklist_categories=["Cs"],
                                           blacklist_characters="<"), max_size=12),
              st.sampled_from([None, True])),
)
_bodies = st.one_of(st.sampled_from(INVALID_BODIES),
                    st.dictionaries(_keys, st.sampled_from(NESTED).map(json.loads),
                                    max_size=3).map(json.dumps))
_calls = st.one_of(
    st.builds(Call, st.sampled_from("fgh"),
              st.lists(st.tuples(_keys, _values), max_size=5).map(tuple)),
    st.builds(Call, st.sampled_from("fgh"), st.just(()), _bodies))
_blocks = st.lists(st.lists(_calls, min_size=1, max_size=3), min_size=1, max_size=2)


def _ids() -> Any:
    return map("id{}".format, itertools.count()).__next__


def _complete_by_its_end(lists: list[list[Any]], chunks: list[str]) -> None:
    """Every call's last piece comes out no later than the feed that brought the call's
    last character (SPEC 7: a call's deltas go out when that call is complete), unless
    its block waits on the Markdown context (SPEC 4.3: its CallStarted came later than
    that too; all its events come with the block)."""
    ends = list(itertools.accumulate(len(chunk) for chunk in chunks))
    last_piece: dict[int, int] = {}
    started_in: dict[str, tuple[int, int]] = {}
    for feed, events in enumerate(lists):
        for event in events:
            if isinstance(event, toolparse.CallStarted):
                started_in[event.id] = (event.index, feed)
            elif isinstance(event, toolparse.ArgumentsDelta):
                last_piece[event.index] = feed
            elif isinstance(event, toolparse.ToolCallBlock):
                for call in event.calls:
                    index, started = started_in[call.id]
                    if index in last_piece:
                        brought = next(n for n, end in enumerate(ends) if end >= call.end)
                        assert last_piece[index] <= (brought if started <= brought else feed)


@pytest.mark.parametrize("dialect", toolparse.dialects())
@settings(max_examples=60, deadline=None)
@given(blocks=_blocks, points=cuts, with_tools=st.booleans(),
       cut=st.one_of(st.none(), st.floats(0.2, 1.0)))
def test_spec7_the_pieces_never_lie_in_every_dialect(
        dialect: str, blocks: list[list[Call]], points: list[float], with_tools: bool,
        cut: float | None) -> None:
    # `cut`: the stream ends there, as a model cut off does: the block it ends in fails
    # (truncated), perhaps after a call of it was withdrawn; its CallsAborted comes all
    # the same, naming the calls not withdrawn (none, at times).
    write = WRITERS.get(dialect)
    if write is None:
        pytest.fail(f"no writer for the bundled dialect {dialect!r}: add one to "
                    "test_incremental_support.WRITERS")
    text = "Sure.\n" + "\nThen:\n".join(write(calls) for calls in blocks) + "\nDone."
    if cut is not None:
        text = text[:int(len(text) * cut)]
    options: dict[str, Any] = {"dialect": dialect, "tools": TOOLS if with_tools else None}
    for chunks in ([text], list(text), split_at_fractions(text, points)):
        quiet = run(chunks, id_factory=_ids(), **options)
        loud = run(chunks, id_factory=_ids(), incremental=True, **options)
        assert plain_events(loud) == quiet
        check_invariants(flat(loud))
        _complete_by_its_end(loud, chunks)


@contextmanager
def _no_event_gates(dialect: str) -> Iterator[None]:
    """The dialect's grammars without event gates: with incremental events, every chunk
    inside a call is lexed as it comes."""
    grammars = resolve_dialect(dialect)._grammars
    saved = [dict(grammar._event_gates) for grammar in grammars]
    for grammar in grammars:
        for kind in (CALL_RULES, EVENT_RULES):
            grammar._event_gates[kind] = ("", None)
    try:
        yield
    finally:
        for grammar, gates in zip(grammars, saved):
            grammar._event_gates.clear()
            grammar._event_gates.update(gates)


@pytest.mark.parametrize("dialect", toolparse.dialects())
@settings(max_examples=30, deadline=None)
@given(blocks=_blocks, points=cuts, size=st.integers(1, 6), with_tools=st.booleans())
def test_spec7_keeping_chunks_unlexed_changes_no_event_and_no_feed(
        dialect: str, blocks: list[list[Call]], points: list[float], size: int,
        with_tools: bool) -> None:
    # With incremental events, chunks inside a call are kept unlexed until a tag that can
    # make an event (`Grammar.event_gates`): every event, and the feed it comes out of,
    # is the same as when every chunk is lexed as it comes.
    write = WRITERS.get(dialect)
    if write is None:
        pytest.fail(f"no writer for the bundled dialect {dialect!r}")
    text = "Sure.\n" + "\nThen:\n".join(write(calls) for calls in blocks) + "\nDone."
    options: dict[str, Any] = {"dialect": dialect, "tools": TOOLS if with_tools else None,
                               "incremental": True}
    for chunks in ([text[i:i + size] for i in range(0, len(text), size)],
                   split_at_fractions(text, points)):
        kept = run(chunks, id_factory=_ids(), **options)
        with _no_event_gates(dialect):
            lexed = run(chunks, id_factory=_ids(), **options)
        assert kept == lexed
