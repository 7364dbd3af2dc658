"""gemma4 (issue 49, SPEC 5.3 d): Gemma's value notation into JSON, FunctionGemma, bad
input (values that never close, deep nesting, tags inside strings, the token in prose),
typing with tools, and `auto`. The texts are those vLLM's Gemma 4 parser tests parse
(tests/tool_parsers/test_gemma4_tool_parser.py), rewritten here."""

from __future__ import annotations

from typing import Any

import pytest

import toolparse
from conftest import check_chunkings, joined, shape, stream  # noqa: F401  (the fixture)

Q = '<|"|>'


def call(name: str, body: str) -> str:
    return f"<|tool_call>call:{name}{body}<tool_call|>"


@pytest.mark.parametrize(("body", "arguments"), [
    ("{}", {}),
    (f"{{location:{Q}Paris, France{Q}}}", {"location": "Paris, France"}),
    (f"{{location:{Q}San Francisco{Q},unit:{Q}celsius{Q}}}",
     {"location": "San Francisco", "unit": "celsius"}),
    ("{count:42,score:3.14,flag:true,off:false,param:null}",
     {"count": 42, "score": 3.14, "flag": True, "off": False, "param": None}),
    (f"{{nested:{{inner:{Q}value{Q}}},list:[{Q}a{Q},{Q}b{Q}]}}",
     {"nested": {"inner": "value"}, "list": ["a", "b"]}),
    (f"{{record_map:{{{Q}3{Q}:{Q}new text{Q}}}}}", {"record_map": {"3": "new text"}}),
    (f"{{outer:{{inner:{{{Q}3{Q}:{Q}x{Q}}}}}}}", {"outer": {"inner": {"3": "x"}}}),
    (f"{{a:[[{Q}a]b{Q},{Q}c{Q}],{Q}tail{Q}],n:[42,true,3.14,-1e3]}}",
     {"a": [["a]b", "c"], "tail"], "n": [42, True, 3.14, -1000.0]}),
    (f'{{content:{Q}<!DOCTYPE html>\n<html lang="zh-CN">\n<head>{Q}}}',
     {"content": '<!DOCTYPE html>\n<html lang="zh-CN">\n<head>'}),
    (f'{{s:{Q}"quoted", {{braces}} [brackets] \\n <tool_call|> <|tool_call> 😀{Q}}}',
     {"s": '"quoted", {braces} [brackets] \\n <tool_call|> <|tool_call> 😀'}),
])
def test_gemma_values_become_json(body: str, arguments: dict[str, Any], check_chunkings) -> None:
    text = call("get_weather", body)
    assert check_chunkings("Let me check. " + text + " Done.", dialect="gemma4") == [
        ("text", "Let me check. "), ("block", text, [("get_weather", arguments)]),
        ("text", " Done.")]


@pytest.mark.parametrize("name", ["get-weather", "weather.get", "mcp:files.read_x"])
def test_names_with_hyphens_dots_and_colons(name: str) -> None:
    (found,) = toolparse.parse(call(name, "{}"), "gemma4").calls
    assert found.name == name


def test_function_gemma_writes_escape_tokens(check_chunkings) -> None:
    text = ("<start_function_call>call:read_file{max_chars:500,path:<escape>notes, "
            '"a" <|"|> }<escape>}<end_function_call>')
    assert check_chunkings(text, dialect="gemma4") == [
        ("block", text, [("read_file", {"max_chars": 500, "path": 'notes, "a" <|"|> }'})])]


def test_several_calls_are_several_blocks() -> None:
    text = call("get_weather", f"{{location:{Q}London{Q}}}") + call("get_time", "{}")
    result = toolparse.parse(text, "gemma4")
    assert [(c.name, c.arguments) for c in result.calls] == [
        ("get_weather", {"location": "London"}), ("get_time", {})]
    assert sum(isinstance(e, toolparse.ToolCallBlock) for e in result.events) == 2


@pytest.mark.parametrize("text", [
    f"<|tool_call>call:get_weather{{location:{Q}London",       # vLLM: no end marker
    f"<|tool_call>call:get_weather{{location:{Q}London{Q}}}",  # the object closed, no tag
])
def test_a_call_without_its_close_tag_is_truncated(text: str) -> None:
    result = toolparse.parse(text, "gemma4")
    assert result.calls == () and result.truncated and joined(result.events) == text


def test_a_value_that_never_closes_fails_at_max_capture_with_its_text_kept() -> None:
    text = f"Sure. <|tool_call>call:f{{a:{Q}" + "x" * 1_000_000
    result = toolparse.parse(text, "gemma4", max_capture=100_000)
    assert result.calls == () and joined(result.events) == text
    assert [f.reason for f in result.failures] == ["max_capture"]


def test_ten_thousand_levels_give_events() -> None:
    depth = 10_000
    text = call("f", "{a:" + "[" * depth + "]" * depth + "}") + " ok"
    events = stream([text[i:i + 64] for i in range(0, len(text), 64)], dialect="gemma4")
    assert joined(events) == text
    assert shape(events)[-1] == ("text", " ok")
    (deep,) = toolparse.parse(text, "gemma4").calls
    assert (deep.status, deep.reason) == ("rejected", "too_deep")   # SPEC G8


@pytest.mark.parametrize("bad", [
    "{command:make}",            # a bare word is no value
    "{a:1,}",                    # a trailing comma
    "{a 1}",                     # no colon
    "{a:[1,2}",                  # a bracket the wrong kind
    "{a:__import__}",            # nothing is evaluated
])
def test_what_is_no_gemma_value_fails_its_block_with_its_text_kept(bad: str) -> None:
    text = call("run", bad) + "\n" + call("ok", "{}")
    result = toolparse.parse(text, "gemma4")
    assert [c.name for c in result.calls] == ["ok"]
    assert joined(result.events) == text and result.failures


@pytest.mark.parametrize("dialect", ["gemma4", "auto"])
@pytest.mark.parametrize("prose", [
    "Gemma writes <|tool_call> before a call and <tool_call|> after it.",
    "The form is <|tool_call>call:NAME then the arguments.",
    "FunctionGemma's <start_function_call> token, and <escape> around strings.",
])
def test_the_tokens_in_prose_are_text(dialect: str, prose: str) -> None:
    result = toolparse.parse(prose, dialect)
    assert result.calls == () and not result.failures and result.text == prose


def test_auto_finds_both_forms() -> None:
    text = ("Hi. " + call("get_weather", f"{{city:{Q}Paris{Q}}}")
            + " <start_function_call>call:get_time{}<end_function_call> Bye.")
    result = toolparse.parse(text, "auto")
    assert [(c.name, c.arguments) for c in result.calls] == [
        ("get_weather", {"city": "Paris"}), ("get_time", {})]
    assert result.text == "Hi.   Bye."


TOOLS = [{"name": "f", "parameters": {"type": "object", "properties": {
    "n": {"type": "integer"}, "s": {"type": "string"}, "z": {"type": ["string", "null"]}},
    "required": ["n"]}}]


@pytest.mark.parametrize(("body", "status"), [
    (f"{{n:3,s:{Q}x{Q},z:null}}", "valid"),
    (f"{{n:{Q}3{Q}}}", "rejected"),      # a string where the schema wants an integer
    (f"{{s:{Q}x{Q}}}", "rejected"),      # a required value missing: never invented
])
def test_with_tools_the_values_are_checked_as_json(body: str, status: str) -> None:
    (found,) = toolparse.parse(call("f", body), "gemma4", tools=TOOLS).calls
    assert found.status == status


def test_without_tools_the_values_are_as_written() -> None:
    (found,) = toolparse.parse(call("f", f"{{n:{Q}007{Q},m:7}}"), "gemma4").calls
    assert (found.status, found.arguments) == ("unchecked", {"n": "007", "m": 7})


def test_gemma4_reasoning_is_its_channel() -> None:
    text = "<|channel>thought\nPlan: " + call("rm", "{}") + "<channel|>" + call("ls", "{}")
    result = toolparse.parse(text, "gemma4")
    assert [c.name for c in result.calls] == ["ls"] and "Plan: " in result.reasoning
