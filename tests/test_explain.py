"""Tags in Markdown code, for diagnostics (toolparse._explain)."""

from __future__ import annotations

import toolparse
from conftest import all_chunkings, stream
from toolparse._explain import CodeMention, code_mentions

BLOCK = '<tool_calls><invoke name="a"/></tool_calls>'


def mentions(text: str) -> list[tuple[str, int, str]]:
    found = code_mentions(toolparse.parse(text).events)
    return [(m.kind, m.line, text[m.start:m.end]) for m in found]


def test_each_kind_of_code_is_named_with_its_line() -> None:
    text = (f"Intro\n```xml\n{BLOCK}\n```\n\n    {BLOCK}\n\nInline `{BLOCK}` here.\n\n"
            f"Real:\n{BLOCK}\n")
    # Every block-start tag is named, the invokes of an example too.
    assert mentions(text) == [
        ("fenced", 3, "<tool_calls>"), ("fenced", 3, '<invoke name="a"/>'),
        ("indented", 6, "<tool_calls>"), ("indented", 6, '<invoke name="a"/>'),
        ("span", 8, "<tool_calls>"), ("span", 8, '<invoke name="a"/>')]


def test_real_calls_and_prose_mentions_are_not_code() -> None:
    assert mentions(f"Use <tool_calls> to wrap.\n\n{BLOCK}") == []
    # A backtick run never matched: the tag after it was outside code.
    assert mentions("A stray ` then <tool_calls> words\n\nnext") == []


def test_the_answer_does_not_depend_on_the_chunking() -> None:
    text = f"Say `<invoke name=\"x\">` and\n```\n{BLOCK}\n```\n{BLOCK}"
    expected = code_mentions(toolparse.parse(text).events)
    assert [m.kind for m in expected] == ["span", "fenced", "fenced"]  # invoke, wrapper, invoke
    assert all(isinstance(m, CodeMention) for m in expected)
    for _label, chunks in all_chunkings(text):
        assert code_mentions(stream(chunks)) == expected
