"""How events and results show in a notebook (`_repr_html_`) and at a prompt (the repr
functions in toolparse._display)."""

from __future__ import annotations

from html.parser import HTMLParser

import toolparse
from toolparse import _display

BLOCK = ('<tool_calls><invoke name="read_file"><parameter name="path">a&lt;b.md</parameter>'
         '<parameter name="limit">20</parameter></invoke></tool_calls>')
ANSWER = "Look: <script>alert(1)</script> & more\n" + BLOCK + "\nDone."


class _Balance(HTMLParser):
    """Checks that every element opened is closed, in order; collects the text."""

    VOID = {"br", "hr", "img"}

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.open: list[str] = []
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag not in self.VOID:
            self.open.append(tag)

    def handle_endtag(self, tag: str) -> None:
        assert self.open and self.open[-1] == tag, f"</{tag}> closes {self.open[-1:]}"
        self.open.pop()

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def rendered(markup: str) -> str:
    """The text a browser shows for `markup`, after checking the markup is balanced."""
    checker = _Balance()
    checker.feed(markup)
    checker.close()
    assert checker.open == [], f"unclosed: {checker.open}"
    return "".join(checker.text)


def test_result_html_shows_the_text_escaped_and_the_block_highlighted() -> None:
    result = toolparse.parse(ANSWER)
    markup = result._repr_html_()
    assert "<script>" not in markup and "&lt;script&gt;" in markup
    assert "<tool_calls>" not in markup and "&lt;tool_calls&gt;" in markup
    assert "&amp; more" in markup
    shown = rendered(markup)
    assert "Look: <script>alert(1)</script> & more\n" in shown  # the text as written
    assert BLOCK in shown                                          # the block's source as written
    assert "ParseResult: 1 block, 1 call, saw_tool_syntax=True" in shown
    assert 'path = "a<b.md"' in shown and "limit = 20" in shown  # the calls table
    assert "read_file" in shown and "unchecked" in shown


def test_each_block_is_numbered_in_the_text_and_the_table() -> None:
    second = BLOCK.replace("read_file", "write_file")
    markup = toolparse.parse("a " + BLOCK + " b " + second)._repr_html_()
    assert 'title="block 1: characters 2-' in markup and 'title="block 2: characters' in markup
    assert "<th" in markup and ">block</th>" in markup


def test_result_without_calls_has_no_table() -> None:
    markup = toolparse.parse("just <b>text</b>")._repr_html_()
    assert "<table" not in markup and "just &lt;b&gt;text&lt;/b&gt;" in markup
    rendered(markup)


def test_block_html() -> None:
    block = toolparse.parse(ANSWER).events[1]
    assert isinstance(block, toolparse.ToolCallBlock)
    shown = rendered(block._repr_html_())
    assert f"ToolCallBlock, characters {block.start}-{block.end}, 1 call" in shown
    assert BLOCK in shown and 'path = "a<b.md"' in shown


def test_call_html_shows_name_status_and_arguments() -> None:
    call = toolparse.ToolCall("search", {"q": "<b> & 'x'", "n": [1, 2], "deep": {"a": None}})
    shown = rendered(call._repr_html_())
    assert "search" in shown and "unchecked" in shown
    assert "q = \"<b> & 'x'\"" in shown and "n = [1, 2]" in shown and 'deep = {"a": null}' in shown
    assert "&lt;b&gt; &amp; " in call._repr_html_()


def test_call_html_without_arguments_and_with_json_errors() -> None:
    assert "no arguments" in rendered(toolparse.ToolCall("ping", {})._repr_html_())
    call = toolparse.ToolCall("t", {"v": "oops"}, json_errors=("v",))
    assert "not JSON, kept as text: v" in rendered(call._repr_html_())


def test_text_html() -> None:
    shown = rendered(toolparse.Text("a < b & c")._repr_html_())
    assert "Text, 9 characters" in shown and "a < b & c" in shown


def test_long_text_is_cut_and_says_so() -> None:
    long = "x" * (_display.MAX_SHOWN_CHARS + 5000)
    shown = rendered(toolparse.parse(long + " " + BLOCK)._repr_html_())
    assert "x" * _display.MAX_SHOWN_CHARS in shown and "x" * (_display.MAX_SHOWN_CHARS + 1) not in shown
    assert f"{5000 + 1 + len(BLOCK):,} characters more not shown" in shown
    shown = rendered(toolparse.Text(long)._repr_html_())
    assert "5,000 characters more not shown" in shown


def test_long_values_and_many_calls_are_cut() -> None:
    call = toolparse.ToolCall("w", {"v": "y" * (_display.MAX_VALUE_CHARS * 2)})
    assert "more not shown" in rendered(call._repr_html_())
    many = "".join('<tool_calls><invoke name="t"/></tool_calls>' for _ in range(_display.MAX_SHOWN_CALLS + 3))
    shown = rendered(toolparse.parse(many)._repr_html_())
    assert "3 calls more not shown" in shown


# ---- plain repr ----------------------------------------------------------------------------

def test_text_repr() -> None:
    assert _display.text_repr(toolparse.Text("hi\n")) == "Text('hi\\n')"
    long = _display.text_repr(toolparse.Text("a" * 100 + "z"))
    assert long.startswith("Text('aaa") and "…" in long and long.endswith("az')")
    assert len(long) <= _display.REPR_CHARS + len("Text()")


def test_call_repr() -> None:
    call = toolparse.parse(ANSWER).calls[0]
    assert _display.call_repr(call) == (
        f"ToolCall(name='read_file', arguments={{'path': 'a<b.md', 'limit': 20}}, "
        f"status='unchecked', start={call.start}, end={call.end})")
    flagged = toolparse.ToolCall("t", {"v": "x"}, json_errors=("v",))
    assert "json_errors=('v',)" in _display.call_repr(flagged)


def test_block_repr() -> None:
    block = toolparse.parse(ANSWER).events[1]
    assert isinstance(block, toolparse.ToolCallBlock)
    text = _display.block_repr(block)
    assert text.startswith(f"ToolCallBlock({block.start}-{block.end}: "
                           "read_file(path='a<b.md', limit=20); raw='<tool_calls>")
    assert "…" in text


def test_result_repr_lists_events() -> None:
    text = _display.result_repr(toolparse.parse(ANSWER))
    lines = text.splitlines()
    assert lines[0] == "ParseResult(saw_tool_syntax=True, calls=1, events=["
    assert lines[1].startswith("  Text('Look: <script>")
    assert lines[2].startswith("  ToolCallBlock(") and "read_file(path='a<b.md', limit=20)" in lines[2]
    assert lines[3] == "  Text('\\nDone.'),"
    assert lines[-1] == "])"


def test_result_repr_is_bounded() -> None:
    many = " ".join('<tool_calls><invoke name="t"/></tool_calls>' for _ in range(50))
    lines = _display.result_repr(toolparse.parse(many)).splitlines()
    assert len(lines) == _display.REPR_EVENTS + 3
    assert lines[-2] == f"  ... {99 - _display.REPR_EVENTS} more events"
