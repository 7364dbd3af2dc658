"""llama3_json (SPEC 5.3): Llama's JSON calls after `<|python_tag|>`, or as the whole
message with no marker (an anchored opener, 5.3 b), joined by `;` with nothing closing
them (5.3 a, `block_end=value`). The texts of vLLM's and SGLang's own parser tests read
as SPEC 5.3 says (docs/dialects.md says where that differs from them)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

import toolparse
from conftest import joined, random_chunks, shape, stream

TOOLS = [{"type": "function", "function": {"name": name, "parameters": {"type": "object"}}}
         for name in ("get_weather", "search")]


def calls(text: str, **options: Any) -> list[tuple[str, Any]]:
    return [(c.name, c.arguments) for c in toolparse.parse(text, "llama3_json", **options).calls]


def text_of(text: str) -> str:
    return toolparse.parse(text, "llama3_json").text


# ---- the peers' test texts -------------------------------------------------------------

@pytest.mark.parametrize(("text", "expected", "content"), [
    # vLLM tests/tool_parsers/test_llama3_json_tool_parser.py
    ('{"name": "searchTool", "parameters": {"query": "test query", "limit": 10}}',
     [("searchTool", {"query": "test query", "limit": 10})], ""),
    ('{"name": "searchTool", "arguments": {"query": "test"}}',
     [("searchTool", {"query": "test"})], ""),
    ('{"name": "searchTool", "parameters": {"query": "test1"}}; '
     '{"name": "getOpenIncidentsTool", "parameters": {}}; '
     '{"name": "searchTool", "parameters": {"query": "test2"}}',
     [("searchTool", {"query": "test1"}), ("getOpenIncidentsTool", {}),
      ("searchTool", {"query": "test2"})], ""),
    ('{"name": "a", "parameters": {}} ; {"name": "b", "parameters": {}} ; '
     '{"name": "c", "parameters": {}}', [("a", {}), ("b", {}), ("c", {})], ""),
    ('{"name": "complexTool", "parameters": {"level1": {"level2": {"level3": {"level4": '
     '{"value": "deep"}}}}}}',
     [("complexTool", {"level1": {"level2": {"level3": {"level4": {"value": "deep"}}}}})], ""),
    ('{"name": "searchTool", "parameters": {"query": "test {value} [complex]",'
     '"nested": {"inner": "more {brackets}"}}}',
     [("searchTool", {"query": "test {value} [complex]",
                      "nested": {"inner": "more {brackets}"}})], ""),
    ('{"name": "parserTool", "parameters": {"text": "He said \\"Hello {world}\\""}}',
     [("parserTool", {"text": 'He said "Hello {world}"'})], ""),
    ('{"name": "searchTool", "parameters": {"query": "test"}} I used {searchTool} for this.',
     [("searchTool", {"query": "test"})], " I used {searchTool} for this."),
    ('{"name": "searchTool", "parameters": {"query": "test"}} The arguments I passed were '
     '{"query": "test"}', [("searchTool", {"query": "test"})],
     ' The arguments I passed were {"query": "test"}'),
    ("This is just some text without any tool calls", [],
     "This is just some text without any tool calls"),
    # (vLLM: a call anywhere; SPEC 5.3 b: only at the start)
    ('Here is the result: {"name": "getOpenIncidentsTool", "parameters": {}} Would you like '
     'to know more?', [], 'Here is the result: {"name": "getOpenIncidentsTool", '
     '"parameters": {}} Would you like to know more?'),
    # (vLLM: content; here a call without arguments reads `{}`)
    ('{"name": "toolWithoutParams"}', [("toolWithoutParams", {})], ""),
    # SGLang test/registered/function_call: the Llama 3.2 detector
    ('<|python_tag|>{"name": "get_weather", "arguments": {"city": "Beijing"}}',
     [("get_weather", {"city": "Beijing"})], ""),
    ('Let me check. <|python_tag|>{"name": "get_weather", "arguments": {"city": "Tokyo"}}',
     [("get_weather", {"city": "Tokyo"})], "Let me check. "),
    ('<|python_tag|>{"name": "get_weather", "arguments": {"city": "Beijing"}};'
     '{"name": "search", "arguments": {"query": "restaurants"}}',
     [("get_weather", {"city": "Beijing"}), ("search", {"query": "restaurants"})], ""),
    ('{"arguments": {"city": "Tokyo"}, "name": "get_weather"}',
     [("get_weather", {"city": "Tokyo"})], ""),
    ('<|python_tag|>{"arguments": {"city": "Tokyo"}, "name": "get_weather"}',
     [("get_weather", {"city": "Tokyo"})], ""),
    ('{}', [], "{}"),
    ('{"a": 1} is a dict', [], '{"a": 1} is a dict'),
    ('{"nested": {"name": "get_weather"}, "items": [1, 2]}', [],
     '{"nested": {"name": "get_weather"}, "items": [1, 2]}'),
    ('{"a": 1} <|python_tag|>{"name": "get_weather", "arguments": {"city": "Tokyo"}}',
     [("get_weather", {"city": "Tokyo"})], '{"a": 1} '),
    ("{'name': 'get_weather', 'arguments': {'city': 'Tokyo'}}", [],
     "{'name': 'get_weather', 'arguments': {'city': 'Tokyo'}}"),
])
def test_the_peers_texts(text: str, expected: list[tuple[str, Any]], content: str) -> None:
    result = toolparse.parse(text, "llama3_json")
    assert [(c.name, c.arguments) for c in result.calls] == expected
    assert result.text == content
    for seed in range(3):
        events = stream(random_chunks(text, seed, 1, 7), dialect="llama3_json")
        assert joined(events) == text and shape(events) == shape(result.events)


@pytest.mark.parametrize("separator", ["; ", ";", ";\n", "\n", " ; "])
def test_every_separator_joins_calls_into_one_block(separator: str) -> None:
    # vLLM's streaming test of parallel calls: `; `, a bare `;`, or a newline.
    text = ('{"name": "searchTool", "parameters": {"query": "test1"}}' + separator
            + '{"name": "getOpenIncidentsTool", "parameters": {}}')
    result = toolparse.parse(text, "llama3_json")
    assert [(c.name, c.arguments) for c in result.calls] == [
        ("searchTool", {"query": "test1"}), ("getOpenIncidentsTool", {})]
    assert len([e for e in result.events if isinstance(e, toolparse.ToolCallBlock)]) == 1


def test_unknown_tools_and_bad_json_keep_their_text() -> None:
    (call,) = toolparse.parse('{"name": "unknown", "arguments": {"city": "Tokyo"}}',
                              "llama3_json", tools=TOOLS).calls
    assert (call.status, call.reason) == ("rejected", "unknown_tool")
    result = toolparse.parse('{"name": "invalidTool", "parameters": {invalid json}',
                             "llama3_json")
    assert result.calls == () and result.failures[0].reason == "unexpected_token"
    assert joined(result.events) == '{"name": "invalidTool", "parameters": {invalid json}'
    (call,) = toolparse.parse('{"parameters": {}}', "llama3_json").calls
    assert (call.name, call.status) == ("", "rejected")


def test_a_dangling_joiner_leaves_the_block_truncated() -> None:
    # `;` promises another call (G4: no call from a block cut short).
    for text in ('{"name": "f", "parameters": {}};', '{"name": "f", "parameters": {}}; {"na'):
        result = toolparse.parse(text, "llama3_json")
        assert result.calls == () and result.failures[0].reason == "truncated"
        assert joined(result.events) == text


def test_other_json_messages_are_text() -> None:
    for text in ('{"answer": 42}', '{"type": "object", "properties": {}}', "[1, 2]"):
        assert calls(text) == [] and text_of(text) == text


def test_a_type_function_member_is_allowed() -> None:
    assert calls('{"type": "function", "name": "f", "parameters": {"x": 1}}') == [
        ("f", {"x": 1})]


def test_after_reasoning_and_in_auto() -> None:
    text = '<think>Call {"name": "x", "parameters": {}}?</think>\n{"name": "f", "parameters": {}}'
    result = toolparse.parse(text, "llama3_json")
    assert [c.name for c in result.calls] == ["f"]
    assert result.reasoning == 'Call {"name": "x", "parameters": {}}?'
    for bare in ('{"name": "f", "parameters": {"a": 1}}; {"name": "g", "parameters": {}}',
                 '\n {"name": "f", "parameters": {"a": 1}}; {"name": "g", "parameters": {}}'):
        assert [c.name for c in toolparse.parse(bare, "auto").calls] == ["f", "g"]
        assert toolparse.parse("Sure. " + bare, "auto").calls == ()


# ---- properties --------------------------------------------------------------------------

values = st.recursive(
    st.none() | st.booleans() | st.integers(-1000, 1000)
    | st.text(st.sampled_from('ab {}[];"\\\n<|>中'), max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(
        st.text(st.sampled_from("abc{};"), max_size=3), inner, max_size=3),
    max_leaves=6)
named = st.lists(st.tuples(st.from_regex(r"[a-z][a-z_]{0,6}", fullmatch=True),
                           st.dictionaries(st.text(st.sampled_from("pq;"), min_size=1,
                                                   max_size=2), values, max_size=3)),
                 min_size=1, max_size=3)


@given(named=named, tag=st.booleans(), separator=st.sampled_from(["; ", ";", "\n", " ;\n"]),
       before=st.sampled_from(["", "  \n", "Sure. "]),
       after=st.sampled_from(["", "\n\nDone.", " {x} ", "\n{\"a\": 1}"]),
       seed=st.integers(0, 2**16))
def test_joined_calls_read_back_under_any_chunking(
        named: list[tuple[str, dict[str, Any]]], tag: bool, separator: str, before: str,
        after: str, seed: int) -> None:
    body = separator.join(json.dumps({"name": n, "parameters": a}, ensure_ascii=False)
                          for n, a in named)
    text = before + ("<|python_tag|>" if tag else "") + body + after
    whole = toolparse.parse(text, "llama3_json")
    read = tag or not before.strip()
    assert [(c.name, c.arguments) for c in whole.calls] == (named if read else [])
    assert whole.failures == ()
    events = stream(random_chunks(text, seed, 1, 9), dialect="llama3_json")
    assert joined(events) == text
    assert shape(events) == shape(whole.events)
