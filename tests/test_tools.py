"""SPEC section 6 through the parser: `tools=`, `model=`, `repair=` on parse and
StreamParser; schema typing of XML values, tool policy, repair outcomes on calls."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

import toolparse
from conftest import stream

SCHEMA = {
    "type": "object",
    "properties": {
        "path": {"type": "string"},
        "limit": {"type": "integer"},
        "verbose": {"type": "boolean"},
        "files": {"type": "array", "items": {"type": "string"}},
    },
    "required": ["path"],
    "additionalProperties": False,
}
TOOLS = [{"type": "function", "function": {"name": "read_file", "parameters": SCHEMA}}]


def call(*params: str, name: str = "read_file") -> str:
    return f'<tool_calls><invoke name="{name}">{"".join(params)}</invoke></tool_calls>'


def p(name: str, value: str, attrs: str = "") -> str:
    return f'<parameter name="{name}"{attrs}>{value}</parameter>'


def test_schema_typing_string_keeps_text_integer_decodes() -> None:
    result = toolparse.parse(call(p("path", "123"), p("limit", "42"), p("verbose", "true")), tools=TOOLS)
    (c,) = result.calls
    assert c.arguments == {"path": "123", "limit": 42, "verbose": True}
    assert c.status == "valid" and c.repair is not None and c.repair.status == "valid"


def test_without_tools_calls_are_unchecked_and_typed_by_spec_3() -> None:
    (c,) = toolparse.parse(call(p("path", "123"))).calls
    assert c.arguments == {"path": 123} and c.status == "unchecked" and c.repair is None


def test_string_true_always_wins() -> None:
    (c,) = toolparse.parse(call(p("path", "a"), p("limit", "42", ' string="true"')), tools=TOOLS).calls
    # The text stays text; the schema wants an integer, so the call cannot validate.
    assert c.status == "rejected" and c.reason == "schema"
    assert c.arguments == {"path": "a", "limit": "42"}
    assert c.hint and "limit" in c.hint


def test_repeated_names_become_a_typed_array() -> None:
    (c,) = toolparse.parse(call(p("path", "a"), p("files", "1"), p("files", "b")), tools=TOOLS).calls
    assert c.arguments == {"path": "a", "files": ["1", "b"]} and c.status == "valid"


def test_stringified_array_is_repaired_where_the_schema_wants_one() -> None:
    (c,) = toolparse.parse(call(p("path", "a"), p("files", '["x", "y"]', ' string="true"')), tools=TOOLS).calls
    assert c.status == "repaired" and c.arguments["files"] == ["x", "y"]
    assert c.repair is not None and "parse_stringified_collections" in c.repair.rules


def test_unknown_tool_is_rejected_by_policy_and_kept_in_its_block() -> None:
    text = call(p("path", "a")) + call(p("cmd", "rm -rf /"), name="shell")
    result = toolparse.parse(text, tools=TOOLS)
    assert [c.status for c in result.calls] == ["valid", "rejected"]
    shell = result.calls[1]
    assert shell.reason == "unknown_tool" and shell.arguments == {"cmd": "rm -rf /"}
    assert shell.hint and "read_file" in shell.hint
    assert result.rejected_tool_names == ("shell",) and result.rejected_by_policy
    assert len([e for e in result.events if isinstance(e, toolparse.ToolCallBlock)]) == 2


def test_missing_required_is_rejected_with_a_hint() -> None:
    (c,) = toolparse.parse(call(p("limit", "3")), tools=TOOLS).calls
    assert c.status == "rejected" and c.reason == "missing_required"
    assert c.hint and "path" in c.hint


def test_plain_definitions_and_openai_definitions_are_both_accepted() -> None:
    plain = [{"name": "read_file", "parameters": SCHEMA}]
    assert toolparse.parse(call(p("path", "a")), tools=plain).calls[0].status == "valid"


def test_json_body_valid_text_is_forwarded_byte_for_byte() -> None:
    body = '{"path":  "a",   "limit": 3}'
    (c,) = toolparse.parse(f'<tool_calls><invoke name="read_file">\n{body}\n</invoke></tool_calls>',
                           tools=TOOLS).calls
    assert c.status == "valid" and c.to_openai()["function"]["arguments"] == body


def test_repaired_call_forwards_fresh_json() -> None:
    (c,) = toolparse.parse(call(p("path", "a"), p("files", '["x"]', ' string="true"')), tools=TOOLS).calls
    openai = c.to_openai()
    assert json.loads(openai["function"]["arguments"]) == {"path": "a", "files": ["x"]}


def test_invalid_schema_raises_when_the_tools_are_given() -> None:
    bad = [{"name": "broken", "parameters": {"type": "object", "properties": {"x": {"type": "nope"}}}}]
    with pytest.raises(toolparse.SchemaError, match="broken"):
        toolparse.StreamParser(tools=bad)
    with pytest.raises(toolparse.SchemaError, match="broken"):
        toolparse.parse("no calls here", tools=bad)


def test_bad_repair_option_raises_naming_the_key() -> None:
    with pytest.raises(toolparse.ConfigError, match="fuzzyNames"):
        toolparse.StreamParser(tools=TOOLS, repair={"fuzzyNames": True})
    with pytest.raises(toolparse.ConfigTypeError, match="repair"):
        toolparse.StreamParser(tools=TOOLS, repair=3)
    with pytest.raises(toolparse.ConfigTypeError, match="model"):
        toolparse.StreamParser(tools=TOOLS, model=7)  # type: ignore[arg-type]


def test_repair_config_and_model_route_reach_repair() -> None:
    tools = [{"name": "bash", "parameters": {
        "type": "object", "properties": {"command": {"type": "string"}},
        "required": ["command"], "additionalProperties": False}}]
    text = call(p("command", "ls&lt;/arg_value&gt;"), name="bash")
    plain = toolparse.parse(text, tools=tools).calls[0]
    assert plain.status == "valid" and plain.arguments == {"command": "ls</arg_value>"}
    config = toolparse.RepairConfig(grammar_leak_models=("glm",))
    # A leaked boundary token at the end of a value is stripped only on a GLM route, and
    # only when the call does not validate as it is; this one does, so it stays.
    glm = toolparse.parse(text, tools=tools, model="zai/glm-4.6", repair=config).calls[0]
    assert glm.status == "valid"


def test_streaming_gives_the_same_statuses() -> None:
    text = "x " + call(p("path", "a"), p("limit", "4")) + call(name="other")
    whole = toolparse.parse(text, tools=TOOLS)
    events = stream(list(text), tools=TOOLS)
    blocks = [e for e in events if isinstance(e, toolparse.ToolCallBlock)]
    assert [c.status for b in blocks for c in b.calls] == [c.status for c in whole.calls]
    assert [c.arguments for b in blocks for c in b.calls] == [c.arguments for c in whole.calls]


# --- Tool definitions from the openai SDK, and misuse of the options ------------------------

def test_openai_sdk_tool_objects_are_accepted() -> None:
    from openai.types.chat import ChatCompletionFunctionTool, ChatCompletionFunctionToolParam
    from openai.types.shared import FunctionDefinition

    definition = FunctionDefinition(name="read_file", parameters=SCHEMA)
    as_params: ChatCompletionFunctionToolParam = {
        "type": "function", "function": {"name": "read_file", "parameters": SCHEMA}}
    text = call(p("path", "a"), p("limit", "2"))
    for tools in ([ChatCompletionFunctionTool(type="function", function=definition)],
                  [definition], [as_params]):
        (c,) = toolparse.parse(text, tools=tools).calls
        assert c.status == "valid" and c.arguments == {"path": "a", "limit": 2}
    no_parameters = ChatCompletionFunctionTool(
        type="function", function=FunctionDefinition(name="ping"))
    (ping,) = toolparse.parse(call(name="ping"), tools=[no_parameters]).calls
    assert ping.status == "valid" and ping.arguments == {}
    bad = ChatCompletionFunctionTool(type="function", function=FunctionDefinition(
        name="bad", parameters={"type": "object", "properties": {"a": {"$ref": "urn:x"}}}))
    with pytest.raises(toolparse.SchemaError, match="'bad'"):
        toolparse.StreamParser(tools=[bad])


def test_a_model_dump_that_fails_or_gives_no_mapping_is_a_schema_error() -> None:
    class Broken:
        def model_dump(self) -> Any:
            raise RuntimeError("no")

    class NotAMapping:
        def model_dump(self) -> Any:
            return ["read_file"]

    with pytest.raises(toolparse.SchemaError, match=r"tool #0.*Broken.*RuntimeError"):
        toolparse.StreamParser(tools=[Broken()])
    with pytest.raises(toolparse.SchemaError, match="tool #1.*not a mapping"):
        toolparse.StreamParser(tools=[TOOLS[0], NotAMapping()])
    with pytest.raises(toolparse.SchemaError, match="tool #0.*mapping or an object"):
        toolparse.StreamParser(tools=[42])


def test_tools_may_be_any_iterable_read_once() -> None:
    reads: list[int] = []

    def definitions() -> Iterator[dict[str, Any]]:
        reads.append(1)
        yield from TOOLS

    (c,) = toolparse.parse(call(p("path", "a")), tools=definitions()).calls
    assert c.status == "valid" and reads == [1]
    (t,) = toolparse.parse(call(p("path", "a")), tools=tuple(TOOLS)).calls
    assert t.status == "valid"


@pytest.mark.parametrize("options, named", [
    ({"tools": "read_file"}, "tools"),
    ({"tools": 123}, "tools"),
    ({"tools": TOOLS[0]}, "one mapping"),
    ({"tools": TOOLS, "model": 123}, "model"),
    ({"model": 123}, "model"),
    ({"tools": TOOLS, "repair": 3}, "repair"),
    ({"tools": TOOLS, "repair": ["glm"]}, "repair"),
    ({"repair": "glm"}, "repair"),
])
def test_options_of_the_wrong_type_are_config_type_errors(options: dict[str, Any],
                                                          named: str) -> None:
    with pytest.raises(toolparse.ConfigTypeError, match=named) as caught:
        toolparse.StreamParser(**options)
    assert isinstance(caught.value, (toolparse.ToolparseError, TypeError))
    with pytest.raises(toolparse.ConfigTypeError, match=named):
        toolparse.parse("text", **options)


def test_repair_without_tools_warns_that_it_has_no_effect() -> None:
    with pytest.warns(UserWarning, match="repair= has no effect without tools="):
        toolparse.StreamParser(repair={"dropOptionalNulls": False})
    with pytest.warns(UserWarning, match="no effect"):
        toolparse.parse("x", repair=toolparse.RepairConfig())
    with pytest.raises(toolparse.ConfigError, match="fuzzy"):
        toolparse.StreamParser(repair={"fuzzy": True})   # still checked
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        toolparse.StreamParser(tools=TOOLS, repair={"dropOptionalNulls": False})
        toolparse.StreamParser()


def test_public_option_types_are_exported() -> None:
    from toolparse._calls import RepairOption, SupportsModelDump, ToolDefinitions

    from openai.types.chat import ChatCompletionFunctionTool

    assert isinstance(ChatCompletionFunctionTool(type="function", function={"name": "x"}),
                      SupportsModelDump)
    assert not isinstance({"name": "x"}, SupportsModelDump)
    sdk_tool = ChatCompletionFunctionTool(type="function", function={"name": "x"})
    tools: ToolDefinitions = [sdk_tool, {"name": "y"}]
    repair: RepairOption = {"dropOptionalNulls": False}
    assert toolparse.StreamParser(tools=tools, repair=repair) is not None
