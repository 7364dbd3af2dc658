"""The dialects that write calls as Python (SPEC 5.3 c): olmo3, lfm2, pythonic. The
serving engines' own test texts are corpus cases (corpus/<dialect>/engine-*); here, what
a case cannot say: `auto`'s choice, bad input, and chunking over whole answers."""

from __future__ import annotations

from typing import Any

import pytest

import toolparse
from conftest import check_chunkings  # noqa: F401  (the fixture)

OLMO3 = "<function_calls>get_weather(city='Martha\\'s Vineyard', n=[1, (2,)])\ng()</function_calls>"


def _calls(text: str, dialect: str, **options: Any) -> list[tuple[str, Any]]:
    return [(c.name, c.arguments) for c in toolparse.parse(text, dialect=dialect, **options).calls]


def test_olmo3_under_auto_is_chosen_by_the_token_after_the_wrapper(check_chunkings: Any) -> None:
    expected = [("get_weather", {"city": "Martha's Vineyard", "n": [1, [2]]}), ("g", {})]
    assert _calls(OLMO3, "olmo3") == _calls(OLMO3, "auto") == expected
    anthropic = ('<function_calls>\n<invoke name="read_file">\n<parameter name="path">a.py'
                 '</parameter>\n</invoke>\n</function_calls>')
    assert _calls(anthropic, "auto") == [("read_file", {"path": "a.py"})]
    check_chunkings(f"Both: {OLMO3}\n{anthropic} done", dialect="auto")


def test_olmo3_brackets_and_the_close_tag_inside_strings_end_nothing(check_chunkings: Any) -> None:
    text = "<function_calls>f(a=')]}</function_calls>', b=\"'([\")</function_calls> after"
    assert _calls(text, "olmo3") == [("f", {"a": ")]}</function_calls>", "b": "'(["})]
    check_chunkings(text, dialect="olmo3")


@pytest.mark.parametrize("value", ["__import__('os').system('x')", "os.environ", "open('f')",
                                   "x", "[1, y]", "{'k': eval('1')}"])
def test_olmo3_no_value_is_ever_evaluated(value: str) -> None:
    result = toolparse.parse(f"<function_calls>f(a={value})</function_calls>", dialect="olmo3")
    assert result.calls == () and [f.reason for f in result.failures] == ["not_literal"]


def test_lfm2_reads_python_calls_or_json_calls_but_not_both_in_one_list(
        check_chunkings: Any) -> None:
    python = "<|tool_call_start|>[f(a=1), g()]<|tool_call_end|>"
    json_form = '<|tool_call_start|>[{"name": "f", "arguments": {"a": 1}}, {"name": "g"}]<|tool_call_end|>'
    assert _calls(python, "lfm2") == _calls(json_form, "lfm2") == [("f", {"a": 1}), ("g", {})]
    assert _calls(python, "auto") == _calls(json_form, "auto") == [("f", {"a": 1}), ("g", {})]
    mixed = toolparse.parse('<|tool_call_start|>[f(a=1), {"name": "g"}]<|tool_call_end|>',
                            dialect="lfm2")
    assert mixed.calls == () and [f.reason for f in mixed.failures] == ["unexpected_token"]
    check_chunkings(f"A {python} B {json_form} C", dialect="lfm2")


def test_lfm2_an_empty_list_is_a_block_of_no_call() -> None:
    for text in ("<|tool_call_start|>[]<|tool_call_end|>", "<|tool_call_start|>[ \n]<|tool_call_end|>"):
        result = toolparse.parse(text + "\nok", dialect="lfm2")
        (block, after) = result.events
        assert isinstance(block, toolparse.ToolCallBlock) and block.calls == () and block.raw == text
        assert after.text == "\nok" and result.failures == ()


def test_pythonic_a_missing_end_token_ends_the_block_where_the_list_closes(
        check_chunkings: Any) -> None:
    for end in ("<|python_end|>", ""):
        text = f"<|python_start|>[f(a=']'), g()]{end} The answer."
        result = toolparse.parse(text, dialect="pythonic")
        block, after = result.events
        assert isinstance(block, toolparse.ToolCallBlock)
        assert [(c.name, c.arguments) for c in block.calls] == [("f", {"a": "]"}), ("g", {})]
        assert after.text == " The answer."
        check_chunkings(text, dialect="pythonic")


def test_pythonic_a_failed_list_runs_to_its_end_token_not_to_a_bracket_inside(
        check_chunkings: Any) -> None:
    text = "<|python_start|>[f(a=[1]), g(b=x)]<|python_end|> after"
    result = toolparse.parse(text, dialect="pythonic")
    assert result.calls == ()
    assert [e.text for e in result.events] == [text[:-6], " after"]
    check_chunkings(text, dialect="pythonic")


@pytest.mark.parametrize("dialect", ["pythonic", "auto"])
def test_a_python_list_in_the_middle_of_an_answer_is_text(dialect: str,
                                                         check_chunkings: Any) -> None:
    # SPEC 5.3 b: the bare list counts only at the answer's start; in an answer it is
    # text, never a call.
    for text in ("I will check. [get_weather(city='Tokyo')]\n",
                 "Use `[f(a=1)]` or [g(b=2), h()] here.", "[1, 2] and [f()]"):
        result = toolparse.parse(text, dialect=dialect)
        assert result.calls == () and result.failures == () and result.text == text
        check_chunkings(text, dialect=dialect)


@pytest.mark.parametrize("dialect", ["pythonic", "auto"])
def test_a_bare_list_at_the_start_of_the_answer_is_a_block(dialect: str,
                                                          check_chunkings: Any) -> None:
    # SPEC 5.3 b: after whitespace, or after a reasoning region, and only a `[` that a
    # call's name and `(` follow.
    for text, calls in (("[get_weather(city='Tokyo'), get_time()] Done.",
                         [("get_weather", {"city": "Tokyo"}), ("get_time", {})]),
                        (" \n[f(a=[1, ']'])]", [("f", {"a": [1, "]"]})]),
                        ("<think>Tokyo.</think>[f(a=1)]", [("f", {"a": 1})])):
        result = toolparse.parse(text, dialect=dialect)
        assert [(c.name, c.arguments) for c in result.calls] == calls
        check_chunkings(text, dialect=dialect)
    for text in ("[1] Smith (2020) [f(a=1)]", "[link](x) [f(a=1)]", "[] [f(a=1)]",
                 "[f(a=1)][g(b=2)]"):
        result = toolparse.parse(text, dialect=dialect)
        assert len(result.calls) <= 1 and result.failures == ()
        assert [c.name for c in result.calls] == (["f"] if text.startswith("[f") else [])
        check_chunkings(text, dialect=dialect)


def test_pythonic_a_value_that_never_closes_fails_at_max_capture_with_its_text() -> None:
    text = "<|python_start|>[f(a='" + "x" * 5000 + "]<|python_end|>" + " tail"
    result = toolparse.parse(text, dialect="pythonic", max_capture=2000)
    assert result.calls == () and result.failures[0].reason == "max_capture"
    assert "".join(e.text for e in result.events) == text
