"""Blocks that end where their value ends (SPEC 5.3 a): no close tag; the LALR parser
reads the structural JSON of grammars/common/json.lark token by token, and a block is
complete at the first token after which its start rule can end, so it ends exactly
where the value closes, fails at the next opener, or is truncated at the end."""

from __future__ import annotations

from pathlib import Path

import pytest

import toolparse
from conftest import all_chunkings, joined, shape, stream

# Mistral's shape: a call is its tag, then its JSON arguments; nothing closes it.
NO_CLOSE = r"""
// no_close.lark: a call tag and its JSON arguments, with no close tag.
//! toolparse: typing=json value_edges=none
%import common.json (json_value)

block: invoke
invoke: CALL_OPEN json_body
json_body: json_value

CALL_OPEN.3: /<call (?P<name>[a-z_]+)>/
WS: /\s+/
%ignore WS
"""

# harmony's shape: a close tag that may be missing, and several calls joined by `;`
# (Llama's).
OPTIONAL_CLOSE = r"""
// optional_close.lark: calls joined by `;`, then a close tag that may be missing.
//! toolparse: typing=json value_edges=none
%import common.json (json_value)

block: invoke (SEMI invoke)* CALL_END?
invoke: CALL_OPEN json_body
json_body: json_value

CALL_OPEN.3: /<call (?P<name>[a-z_]+)>/
CALL_END.3: "<end>"
SEMI.3: ";"
WS: /\s+/
%ignore WS
"""


def _dialect(tmp_path: Path, source: str, name: str) -> toolparse.Dialect:
    path = tmp_path / f"{name}.lark"
    path.write_text(source.lstrip(), encoding="utf-8")
    return toolparse.Dialect.from_file(path)


@pytest.fixture
def no_close(tmp_path: Path) -> toolparse.Dialect:
    return _dialect(tmp_path, NO_CLOSE, "no_close")


@pytest.fixture
def optional_close(tmp_path: Path) -> toolparse.Dialect:
    return _dialect(tmp_path, OPTIONAL_CLOSE, "optional_close")


def _same_for_every_chunking(text: str, dialect: toolparse.Dialect) -> list[tuple]:
    expected = shape(toolparse.parse(text, dialect).events)
    for label, chunks in all_chunkings(text):
        events = stream(chunks, dialect=dialect)
        assert joined(events) == text, label
        assert shape(events) == expected, label
    return expected


def test_the_block_ends_where_its_value_closes(no_close: toolparse.Dialect) -> None:
    # Brackets and the call tag inside strings end nothing; what follows the value is
    # text, its whitespace included.
    text = '<call f>{"a": "}]<call g>", "b": [1, {"c": "\\"}"}]}\n\nDone.'
    assert _same_for_every_chunking(text, no_close) == [
        ("block", text[:-7], [("f", {"a": "}]<call g>", "b": [1, {"c": '"}'}]})]),
        ("text", "\n\nDone.")]
    # Several in a row: each is a block of its own, and a value may be any JSON value
    # (an array is the call's to reject, SPEC 3.1: the block stays a block).
    text = '<call f>{}<call g> {"x": null}<call h>[1]'
    assert _same_for_every_chunking(text, no_close) == [
        ("block", "<call f>{}", [("f", {})]), ("block", '<call g> {"x": null}', [("g", {"x": None})]),
        ("block", "<call h>[1]", [("h", {})])]
    (call,) = toolparse.parse("<call h>[1]", no_close).calls
    assert call.status == "rejected"


def test_a_value_still_open_at_the_end_is_truncated(no_close: toolparse.Dialect) -> None:
    for text in ('<call f>{"a": [1, 2', '<call f>{"a": "x}', '<call f>{"a": 1}'[:-1]):
        result = toolparse.parse(text, no_close)
        assert result.calls == () and result.truncated, text
        (failure,) = result.failures
        assert failure.reason == "truncated"
        assert _same_for_every_chunking(text, no_close) == [("failed", text, "truncated")]


def test_a_tag_without_its_value_is_a_prose_mention(no_close: toolparse.Dialect) -> None:
    # The call starts at its value: before it, a failure ends at the failing token
    # and scanning resumes there (SPEC 3.2).
    text = "Write <call f> then <call g>{}"
    assert _same_for_every_chunking(text, no_close) == [
        ("text", "Write "), ("failed", "<call f> ", "unexpected_token"), ("text", "then "),
        ("block", "<call g>{}", [("g", {})])]


@pytest.mark.parametrize("after", [
    "", " \n", "\n\nThe weather is fine.", " <en", "<call g>{}",
])
def test_without_its_close_the_block_ends_at_its_value(optional_close: toolparse.Dialect,
                                                       after: str) -> None:
    # The end of the stream, prose, a close tag cut off, the next call: the block ends
    # exactly where the value closed, and what follows is read as if it came alone.
    text = '<call f>{"a": [1, "]"]}' + after
    found = _same_for_every_chunking(text, optional_close)
    assert found[0] == ("block", '<call f>{"a": [1, "]"]}', [("f", {"a": [1, "]"]})])
    assert found[1:] == shape(toolparse.parse(after, optional_close).events)


def test_an_optional_close_after_the_value_is_text(optional_close: toolparse.Dialect) -> None:
    # The block ends at the first point its rule can end: the optional close is text.
    text = '<call f>{"a": 1}<end>'
    assert shape(toolparse.parse(text, optional_close).events) == [
        ("block", '<call f>{"a": 1}', [("f", {"a": 1})]), ("text", "<end>")]


def test_a_broken_call_runs_to_the_next_block(no_close: toolparse.Dialect) -> None:
    # No `}` closes a block (it closes every object inside one too): a broken call's
    # span runs to the next call tag (SPEC 3.2), which is a block of its own.
    text = '<call f>{"a": 1 "b": 2} and } more <call g>{}'
    assert _same_for_every_chunking(text, no_close) == [
        ("failed", '<call f>{"a": 1 "b": 2} and } more ', "unexpected_token"),
        ("block", "<call g>{}", [("g", {})])]


def test_a_value_past_the_capture_limit_fails_there(no_close: toolparse.Dialect) -> None:
    text = '<call f>{"a": "' + "x" * 5000
    result = toolparse.parse(text, no_close, max_capture=1000)
    assert result.calls == () and joined(result.events) == text
    assert result.failures[0].reason == "max_capture"


def test_deep_nesting_gives_events(no_close: toolparse.Dialect) -> None:
    # 10,000 levels: the driver's stack is a list and a container's pieces are one
    # piece of its parent (never copied up), so no recursion and no quadratic copy.
    depth = 10_000
    text = '<call f>{"a": ' + "[" * depth + "]" * depth + "}after"
    for chunks in ([text], [text[i:i + 7] for i in range(0, len(text), 7)]):
        events = stream(chunks, dialect=no_close)
        assert joined(events) == text
        block = events[0]
        assert isinstance(block, toolparse.ToolCallBlock) and block.raw == text[:-5]
    (call,) = toolparse.parse(text, no_close).calls
    assert call.status == "rejected"   # deeper than the typing reads (SPEC G8)


def test_incremental_events_add_up(optional_close: toolparse.Dialect) -> None:
    for text in ('<call f>{"a": 1, "b": "x y"} <end>', '<call f>{"a": 1} hi'):
        for size in (1, 3, 50):
            parser = toolparse.StreamParser(dialect=optional_close, incremental=True)
            events = []
            for at in range(0, len(text), size):
                events += parser.feed(text[at:at + size])
            events += parser.close()
            deltas = "".join(e.text for e in events if isinstance(e, toolparse.ArgumentsDelta))
            (block,) = [e for e in events if isinstance(e, toolparse.ToolCallBlock)]
            assert deltas == block.calls[0].arguments_json, (text, size)


# ---- block_end=value: a block may go on after a point where it can end ---------------------

@pytest.fixture
def goes_on(tmp_path: Path) -> toolparse.Dialect:
    source = OPTIONAL_CLOSE.replace("value_edges=none", "value_edges=none block_end=value")
    return _dialect(tmp_path, source, "goes_on")


@pytest.mark.parametrize(("text", "blocks", "rest"), [
    ('<call f>{"a": 1}<end> ok', ['<call f>{"a": 1}<end>'], " ok"),
    ('<call f>{"a": 1} ;\n<call g>[2] <end>', ['<call f>{"a": 1} ;\n<call g>[2] <end>'], ""),
    ('<call f>{"a": 1}  Done; <end>', ['<call f>{"a": 1}'], "  Done; <end>"),
    ('<call f>{"a": 1}\n\n<call g>{}', ['<call f>{"a": 1}', "<call g>{}"], "\n\n"),
    ('<call f>{"a": 1}  ', ['<call f>{"a": 1}'], "  "),
])
def test_with_block_end_value_the_next_token_decides_whether_the_block_goes_on(
        goes_on: toolparse.Dialect, text: str, blocks: list[str], rest: str) -> None:
    # After a value the rule could end at, the block goes on with a token it takes
    # there (`<end>`, `;`), past whitespace; anything else, or the end, ends it there.
    found = _same_for_every_chunking(text, goes_on)
    assert [e[1] for e in found if e[0] == "block"] == blocks
    assert "".join(e[1] for e in found if e[0] == "text") == rest


def test_with_block_end_value_a_dangling_joiner_fails_the_block(
        goes_on: toolparse.Dialect) -> None:
    # `;` promises another call: the stream ending there leaves the block truncated.
    (failure,) = toolparse.parse('<call f>{"a": 1};', goes_on).failures
    assert failure.reason == "truncated"


def test_block_end_takes_tag_or_value(tmp_path: Path) -> None:
    with pytest.raises(toolparse.GrammarError, match="block_end='close'"):
        _dialect(tmp_path, OPTIONAL_CLOSE.replace("value_edges=none",
                                                  "value_edges=none block_end=close"), "bad")
