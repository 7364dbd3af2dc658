"""SPEC 4.1-4.3 through the whole engine: fences, code spans and the streaming decision,
each pinned with a positive and a negative case and checked under several chunkings."""

from __future__ import annotations

import toolparse
from conftest import joined, shape, stream

CALL = '<tool_calls><invoke name="read_file"><parameter name="path">a.md</parameter></invoke></tool_calls>'
CALLS = [("read_file", {"path": "a.md"})]


def names(text: str) -> list[str]:
    return [c.name for c in toolparse.parse(text).calls]


def test_backtick_fence_hides_a_block_and_a_later_one_is_real(check_chunkings) -> None:
    text = "Example:\n```xml\n" + CALL + "\n```\nNow:\n" + CALL
    events = check_chunkings(text)
    assert [kind for kind, *_ in events] == ["text", "block"]
    assert events[0][1] == "Example:\n```xml\n" + CALL + "\n```\nNow:\n"


def test_tilde_fence_containing_a_backtick_fence_line(check_chunkings) -> None:
    text = "~~~\n```\n" + CALL + "\n```\n~~~\n" + CALL
    events = check_chunkings(text)
    assert [kind for kind, *_ in events] == ["text", "block"]


def test_backtick_line_does_not_close_a_tilde_fence(check_chunkings) -> None:
    assert check_chunkings("~~~\n```\n" + CALL + "\n") == [("text", "~~~\n```\n" + CALL + "\n")]


def test_four_backtick_fence_containing_a_three_backtick_fence(check_chunkings) -> None:
    inner = "````markdown\n```xml\n" + CALL + "\n```\n"
    assert check_chunkings(inner) == [("text", inner)]  # ``` does not close ````
    text = inner + "````\n" + CALL
    assert [kind for kind, *_ in check_chunkings(text)] == ["text", "block"]


def test_unclosed_fence_runs_to_the_end(check_chunkings) -> None:
    text = "```\ncode\n\n\n" + CALL + "\nmore"
    assert check_chunkings(text) == [("text", text)]


def test_closing_fence_with_an_info_string_does_not_close(check_chunkings) -> None:
    text = "```\nx\n```js\n" + CALL + "\n"
    assert check_chunkings(text) == [("text", text)]
    closed = "```\nx\n```  \n" + CALL
    assert [kind for kind, *_ in check_chunkings(closed)] == ["text", "block"]


def test_indented_fence_of_four_spaces_is_not_a_fence(check_chunkings) -> None:
    # Four spaces after a paragraph: a paragraph continuation, not a fence.
    text = "Text\n    ```\n" + CALL + "\n"
    assert [kind for kind, *_ in check_chunkings(text)] == ["text", "block", "text"]


def test_fence_marker_split_across_chunks() -> None:
    text = "Intro\n```go\nx := 1\n```\nRun:\n" + CALL + "\nthen `z` end"
    for cut in range(len("Intro\n"), len("Intro\n```go\nx := 1\n```\n") + 1):
        events = stream([text[:cut], text[cut:]])
        assert [c.name for e in events if isinstance(e, toolparse.ToolCallBlock) for c in e.calls] == ["read_file"], cut
        assert joined(events) == text
    assert names("Intro\n```go\n" + CALL + "\n```\n") == []


def test_whitespace_only_chunk_right_before_a_fence() -> None:
    chunks = ["Here is an example:", "\n\n", "```xml\n", CALL, "\n```\n", "Done."]
    events = stream(chunks)
    assert not any(isinstance(e, toolparse.ToolCallBlock) for e in events)
    assert joined(events) == "".join(chunks)


def test_stray_backtick_then_real_call_executes_at_paragraph_end() -> None:
    parser = toolparse.StreamParser()
    first = parser.feed("note with a stray ` before the call " + CALL)
    assert first == [toolparse.Text("note with a stray ` before the call ")]
    assert parser.feed(" and more") == []  # held: the run might still be matched
    events = parser.feed("\n\nNext paragraph.")
    assert [type(e).__name__ for e in events] == ["ToolCallBlock", "Text"]
    assert parser.close() == []


def test_stray_backtick_matched_after_the_block_makes_it_text(check_chunkings) -> None:
    text = "note ` stray " + CALL + " and `x` later"
    assert check_chunkings(text) == [("text", text)]


def test_stray_backtick_at_end_of_stream_lets_the_block_count(check_chunkings) -> None:
    text = "note with stray ` before real call " + CALL
    assert check_chunkings(text) == [("text", "note with stray ` before real call "), ("block", CALL, CALLS)]


def test_mismatched_run_lengths_do_not_close(check_chunkings) -> None:
    text = "a `` b ` " + CALL + " c"
    assert [kind for kind, *_ in check_chunkings(text)] == ["text", "block", "text"]


def test_code_span_hides_a_block(check_chunkings) -> None:
    text = "示例：`" + CALL + "` 完毕。"
    assert check_chunkings(text) == [("text", text)]


def test_escaped_backtick_is_literal(check_chunkings) -> None:
    text = "a \\` b " + CALL + " c \\` d"
    assert [kind for kind, *_ in check_chunkings(text)] == ["text", "block", "text"]


def test_backticks_inside_a_block_open_no_code(check_chunkings) -> None:
    # G3a: the backtick in the value neither opens a span nor pairs with a later one.
    text = '<tool_calls><invoke name="Bash"><parameter name="command">echo ` hi</parameter></invoke></tool_calls> then `code` here'
    events = check_chunkings(text)
    assert events[0][0] == "block" and events[0][2] == [("Bash", {"command": "echo ` hi"})]


def test_fence_inside_a_cdata_value_opens_no_code(check_chunkings) -> None:
    text = ('<tool_calls><invoke name="w"><parameter name="c"><![CDATA[```python\nprint(1)\n'
            "```]]></parameter></invoke></tool_calls>\n" + CALL)
    assert [kind for kind, *_ in check_chunkings(text)] == ["block", "text", "block"]


def test_text_released_from_a_failed_block_counts_as_markdown(check_chunkings) -> None:
    # The wrapper fails at the fence line; the fence opens, so the block after is code.
    text = "<tool_calls>\n```\n" + CALL + "\n"
    assert check_chunkings(text) == [("failed", "<tool_calls>\n", "unexpected_token"),
                                     ("text", text[len("<tool_calls>\n"):])]


def test_crlf_fences(check_chunkings) -> None:
    text = "Example:\r\n```\r\n" + CALL + "\r\n```\r\nReal:\r\n" + CALL + "\r\n"
    events = check_chunkings(text)
    assert [kind for kind, *_ in events] == ["text", "block", "text"]


def test_indented_code_hides_a_block(check_chunkings) -> None:
    text = "Paragraph.\n\n    " + CALL + "\n\nAfter."
    assert check_chunkings(text) == [("text", text)]


def test_list_item_fence_hides_a_block_until_the_item_ends(check_chunkings) -> None:
    text = "1. Example:\n   ```\n   " + CALL + "\n   ```\n2. Real:\n   " + CALL + "\n"
    assert [kind for kind, *_ in check_chunkings(text)] == ["text", "block", "text"]


def test_block_quote_is_not_code(check_chunkings) -> None:
    text = "> quoted call:\n> " + CALL + "\n"
    assert [kind for kind, *_ in check_chunkings(text)] == ["text", "block", "text"]


def test_tag_split_across_chunks_is_held_only_while_it_could_be_a_tag() -> None:
    parser = toolparse.StreamParser()
    assert parser.feed("a <tool_") == [toolparse.Text("a ")]
    assert parser.feed("calls>") == []
    assert parser.feed('<invoke name="x"/></tool_calls>')[0].calls[0].name == "x"  # type: ignore[union-attr]
    parser = toolparse.StreamParser()
    assert parser.feed("b <｜DS") == [toolparse.Text("b ")]
    assert parser.feed("ML｜inv") == []
    assert parser.feed("x") == [toolparse.Text("<｜DSML｜invx")]


def test_shape_under_one_character_chunks_for_a_realistic_answer() -> None:
    text = ("I'll read the file. In XML the call looks like `<tool_calls>`; an example:\n\n"
            "```xml\n" + CALL + "\n```\n\nNow for real:\n\n" + CALL + "\n\nDone.")
    assert shape(stream(list(text))) == shape(toolparse.parse(text).events)
    assert names(text) == ["read_file"]
