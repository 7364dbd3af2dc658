"""granite's and phi4_mini's bad input (issue 49): arrays and objects that never close,
brackets inside strings, the heads in prose, deep nesting, and `auto`. The texts of the
serving engines' tests are corpus cases (corpus/granite/engine-*, corpus/phi4_mini/engine-*)."""

from __future__ import annotations

import pytest

import toolparse
from conftest import check_chunkings, joined, shape, stream  # noqa: F401  (the fixture)

HEADS = {"granite": ("<|tool_call|>[", "<tool_call> [", "<function_call> "),
         "phi4_mini": ("functools[", "functools [")}
CASES = [(d, head) for d, heads in HEADS.items() for head in heads]


def call(head: str, body: str) -> str:
    """One call after `head`: in an array, or alone after <function_call>."""
    return head + body + ("" if head.startswith("<function_call>") else "]")


@pytest.mark.parametrize(("dialect", "head"), CASES)
def test_json_that_never_closes_fails_at_max_capture_with_its_text_kept(dialect: str,
                                                                        head: str) -> None:
    text = "Sure.\n" + head + '{"name": "f", "arguments": {"a": "' + "x" * 1_000_000
    result = toolparse.parse(text, dialect, max_capture=100_000)
    assert result.calls == () and joined(result.events) == text
    assert [f.reason for f in result.failures] == ["max_capture"]
    result = toolparse.parse(text, dialect)
    assert result.calls == () and [f.reason for f in result.failures] == ["truncated"]


@pytest.mark.parametrize(("dialect", "head"), CASES)
def test_brackets_and_heads_inside_strings_end_nothing(dialect: str, head: str,
                                                       check_chunkings) -> None:
    value = "] } ]} " + " ".join(h for heads in HEADS.values() for h in heads) + " [x"
    block = call(head, '{"name": "echo", "arguments": {"text": "' + value + '"}}')
    assert check_chunkings(block + " Done.", dialect=dialect) == [
        ("block", block, [("echo", {"text": value})]), ("text", " Done.")]


@pytest.mark.parametrize(("dialect", "head"), CASES)
def test_ten_thousand_levels_give_events(dialect: str, head: str) -> None:
    depth = 10_000
    text = call(head, '{"name": "f", "arguments": {"a": ' + "[" * depth + "]" * depth + "}}") + " ok"
    events = stream([text[i:i + 64] for i in range(0, len(text), 64)], dialect=dialect)
    assert joined(events) == text
    assert shape(events)[-1] == ("text", " ok")


@pytest.mark.parametrize("dialect", ["granite", "phi4_mini", "auto"])
@pytest.mark.parametrize("prose", [
    "Python's functools module has functools.partial and functools.reduce.",
    "The functools word, then prose: functools is handy.",
    "Use <function_call> and then write the JSON.",
    "<function_call> [not an object]",
    "The <|tool_call|> token starts calls; <|tool_call|> {not a list}.",
    'A bare list [{"name": "f", "arguments": {}}] is not a call.',
])
def test_the_heads_in_prose_are_text(dialect: str, prose: str) -> None:
    result = toolparse.parse(prose, dialect)
    assert result.calls == () and not result.failures and result.text == prose


@pytest.mark.parametrize(("dialect", "text"), [
    ("granite", '<|tool_call|>[{"name": "get_weather", "arguments": {"city": "Paris"}}, '
                '{"arguments": {}, "name": "get_time"}]'),
    ("granite", '<tool_call>[{"name": "get_weather", "arguments": {"city": "Paris"}}, '
                '{"name": "get_time", "parameters": {}}]'),
    ("granite", '<function_call> {"name": "get_weather", "arguments": {"city": "Paris"}}\n'
                '<function_call> {"name": "get_time", "arguments": {}}'),
    ("phi4_mini", 'functools[{"name": "get_weather", "arguments": {"city": "Paris"}}, '
                  '{"name": "get_time", "arguments": {}}]'),
])
def test_auto_finds_the_calls_and_the_text_after_them(dialect: str, text: str) -> None:
    for reader in (dialect, "auto"):
        result = toolparse.parse("Checking.\n" + text + "\nDone.", reader)
        assert [(c.name, c.arguments) for c in result.calls] == [
            ("get_weather", {"city": "Paris"}), ("get_time", {})], reader
        # (the newline between two <function_call> blocks is text)
        assert result.text == "Checking.\n" + "\n" * text.count("\n") + "\nDone.", reader


def test_granite_3_1_head_is_granite_under_auto_and_hermes_keeps_its_own() -> None:
    text = '<tool_call>[1]\n</tool_call>'
    (rejected,) = toolparse.parse(text, "auto").calls
    assert (rejected.status, rejected.reason) == ("rejected", "not_a_call")
    hermes = '<tool_call>\n{"name": "f", "arguments": {"a": 1}}\n</tool_call>'
    assert [(c.name, c.arguments) for c in toolparse.parse(hermes, "auto").calls] == [
        ("f", {"a": 1})]


def test_with_tools_the_arguments_are_checked_as_json() -> None:
    tools = [{"name": "read_file", "parameters": {"type": "object", "properties": {
        "limit": {"type": "integer"}}}}]
    (good,) = toolparse.parse('functools[{"name": "read_file", "arguments": {"limit": 2}}]',
                              "phi4_mini", tools=tools).calls
    (bad,) = toolparse.parse('<|tool_call|>[{"name": "read_file", "arguments": {"limit": "2"}}]',
                             "granite", tools=tools).calls
    assert (good.status, bad.status) == ("valid", "rejected")
