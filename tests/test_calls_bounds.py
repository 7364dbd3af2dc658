"""Bounded per character whatever the schema (G10), valid JSON out (G11), never raises
on content (G8): patterns, depth, budgets and numbers.

Nothing here measures speed. A pathological case is run under `bounded` (a test-level
timeout in a daemon thread, see test_schema_safety.py), and the test checks the
fail-closed result, which only a bounded engine can give in time."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import toolparse
from toolparse import SchemaError, repair_tool_call
from toolparse._calls.patterns import pattern_search, to_re2_syntax
from toolparse._calls.repair import MAX_DEPTH
from toolparse._calls.repair.keywords import VALIDATION_BASE_STEPS
from toolparse._calls.values import member_schema, type_arguments
from toolparse._json import (MAX_JSON_DEPTH, NOT_JSON, TooDeep, json_depth_exceeds,
                             loads_strict, strict_json)

from test_schema_safety import bounded

EVIL = "^(a+)+$"


def reject_constant(name: str) -> Any:
    raise AssertionError(f"{name} is not JSON")


def standard_json(text: str) -> Any:
    """`text` parsed as RFC 8259 JSON: NaN and Infinity fail the test."""
    return json.loads(text, parse_constant=reject_constant)


def schema_with(**properties: Any) -> dict[str, Any]:
    return {"type": "object", "properties": properties}


# --- Patterns: RE2, linear, fail closed -----------------------------------------------------

@pytest.mark.parametrize("length", [27, 10_000])
def test_catastrophic_pattern_is_bounded_and_fails_closed(length: int) -> None:
    value = "a" * (length - 1) + "!"
    schema = schema_with(a={"type": "string", "pattern": EVIL})
    outcome = bounded(lambda: repair_tool_call("t", json.dumps({"a": value}), schema), 5.0)
    assert outcome.status == "rejected" and outcome.reason == "schema"
    assert outcome.errors == (("/a", "pattern", "does not match the required pattern"),)
    matching = bounded(lambda: repair_tool_call("t", json.dumps({"a": "a" * length}), schema))
    assert matching.status == "valid"


def test_catastrophic_pattern_through_the_parser() -> None:
    tools = [{"name": "t", "parameters": schema_with(a={"type": "string", "pattern": EVIL})}]
    text = ('<tool_calls><invoke name="t"><parameter name="a">' + "a" * 26 + "!"
            + "</parameter></invoke></tool_calls>")
    (call,) = bounded(lambda: toolparse.parse(text, tools=tools)).calls
    assert call.status == "rejected" and call.reason == "schema"


def test_catastrophic_pattern_properties_and_property_names() -> None:
    evil_key = "a" * 26 + "!"
    schema = {"type": "object", "patternProperties": {EVIL: {"type": "integer"}},
              "additionalProperties": False}
    outcome = bounded(lambda: repair_tool_call("t", json.dumps({evil_key: 1}), schema))
    assert outcome.reason == "unknown_field"
    assert bounded(lambda: repair_tool_call("t", '{"aaaa": 1}', schema)).status == "valid"
    assert bounded(lambda: repair_tool_call("t", '{"aaaa": "x"}', schema)).reason == "schema"
    names = {"type": "object", "propertyNames": {"pattern": EVIL}}
    assert bounded(lambda: repair_tool_call("t", json.dumps({evil_key: 1}), names)).reason \
        == "schema"
    # Typing reads patternProperties too (member_schema), with the same engine.
    typing_schema = {"type": "object", "patternProperties": {EVIL: {"type": "integer"}}}
    assert bounded(lambda: member_schema(typing_schema, evil_key, typing_schema)) is None
    assert member_schema(typing_schema, "aaa", typing_schema) == {"type": "integer"}
    arguments, _ = bounded(lambda: type_arguments([(evil_key, "5", None, False)],
                                                  typing_schema))
    assert arguments == {evil_key: 5}   # undescribed: SPEC 3 typing


@pytest.mark.parametrize("pattern", [r"(a)\1", r"a(?=b)", r"(?<=a)b", r"(?!x)y", "(?>a)",
                                     "a++", "a{1001}"])
def test_patterns_re2_cannot_run_are_refused_when_the_tools_are_given(pattern: str) -> None:
    schema = schema_with(a={"type": "string", "pattern": pattern})
    with pytest.raises(SchemaError, match=r"'t'.*/properties/a/pattern.*linear time"):
        toolparse.StreamParser(tools=[{"name": "t", "parameters": schema}])
    keyed = {"type": "object", "patternProperties": {pattern: {}}}
    with pytest.raises(SchemaError, match="patternProperties"):
        repair_tool_call("t", "{}", keyed)


def test_unevaluated_properties_with_pattern_properties_is_refused() -> None:
    schema = {"type": "object", "patternProperties": {"^x-": {}},
              "unevaluatedProperties": False}
    with pytest.raises(SchemaError, match="unevaluatedProperties"):
        repair_tool_call("t", "{}", schema)
    alone = {"type": "object", "properties": {"a": {}}, "unevaluatedProperties": False}
    assert repair_tool_call("t", '{"a": 1}', alone).status == "valid"
    assert repair_tool_call("t", '{"b": 1}', alone).reason == "unknown_field"


@pytest.mark.parametrize("pattern, text, expected", [
    (r"^\u00e9t\u00e9$", "été", True),           # ECMA \uXXXX
    (r"^\u{1F600}$", "😀", True),                # ECMA \u{...}
    (r"^\ud83d\ude00$", "😀", True),             # an escaped surrogate pair
    (r"^\cJ$", "\n", True),                       # ECMA \cX
    (r"\Aabc\Z", "abc", True),                    # Python's \A ... \Z
    (r"\\u0041", "\\u0041", True),                # an escaped backslash stays one
    ("^[a-z]+$", "abc\n", False),                 # $ is the end of text, as in ECMA
    (r"^\d+$", "١٢", False),                       # \d is ASCII, as in ECMA
    ("^x", "\ud800x", None),                      # not valid Unicode: undecided
])
def test_pattern_semantics(pattern: str, text: str, expected: bool | None) -> None:
    assert pattern_search(pattern, text) is expected


def test_undecidable_values_fail_closed() -> None:
    schema = schema_with(a={"type": "string", "pattern": "^x"})
    assert repair_tool_call("t", '{"a": "x\\ud800"}', schema).reason == "schema"
    keyed = {"type": "object", "patternProperties": {"^x": {}}, "additionalProperties": False}
    assert repair_tool_call("t", '{"x\\ud800": 1}', keyed).status == "rejected"
    assert to_re2_syntax("plain") == "plain"


# --- Depth: too_deep, never RecursionError ---------------------------------------------------

def nested_array(depth: int) -> str:
    return "[" * depth + "]" * depth


def test_3000_deep_valid_json_against_a_recursive_schema_is_too_deep() -> None:
    tree = {"type": "object", "properties": {"c": {"type": "array", "items": {"$ref": "#"}}}}
    text = '{"c": [' * 1500 + "{}" + "]}" * 1500
    assert len(text) > 3000
    outcome = bounded(lambda: repair_tool_call("t", text, tree))
    assert outcome.reason == "too_deep" and outcome.text == text
    assert outcome.hint and "64 levels" in outcome.hint
    value: dict[str, Any] = {}
    for _ in range(5_000):
        value = {"c": [value]}
    assert bounded(lambda: repair_tool_call("t", value, tree)).reason == "too_deep"


def test_depth_limit_is_exact() -> None:
    any_object = {"type": "object"}
    at_limit = '{"a": ' + nested_array(MAX_DEPTH - 1) + "}"
    past_limit = '{"a": ' + nested_array(MAX_DEPTH) + "}"
    assert repair_tool_call("t", at_limit, any_object).status == "valid"
    assert repair_tool_call("t", past_limit, any_object).reason == "too_deep"
    assert repair_tool_call("t", json.loads(at_limit), any_object).status == "valid"
    assert repair_tool_call("t", {"a": json.loads(nested_array(MAX_DEPTH))},
                            any_object).reason == "too_deep"
    # Repair never walks deeper either: broken deep text is too_deep, not invalid_json.
    assert repair_tool_call("t", past_limit[:-1] + ",}", any_object).reason == "too_deep"


def test_deep_values_in_xml_parameters() -> None:
    tools = [{"name": "t", "parameters": schema_with(a={"type": "array"}, s={"type": "string"})}]

    def call(name: str, depth: int) -> Any:
        text = (f'<tool_calls><invoke name="t"><parameter name="{name}">{nested_array(depth)}'
                "</parameter></invoke></tool_calls>")
        (only,) = bounded(lambda: toolparse.parse(text, tools=tools)).calls
        return only

    deep = call("a", 10_000)
    assert deep.status == "rejected" and deep.reason == "too_deep"
    assert deep.repair is not None and deep.repair.errors[0][0] == "/a"
    assert call("s", 10_000).status == "valid"       # a string property keeps the text
    assert call("a", 10).status == "valid"
    # Without tools the text is not JSON for typing past the limit: it stays the string.
    text = f'<tool_calls><invoke name="t"><parameter name="a">{nested_array(100)}' \
           "</parameter></invoke></tool_calls>"
    (plain,) = toolparse.parse(text).calls
    assert plain.arguments == {"a": nested_array(100)}


def test_deep_json_bodies() -> None:
    body = '{"a": ' + nested_array(3_000) + "}"
    text = f'<tool_calls><invoke name="t">{body}</invoke></tool_calls>'
    (without_tools,) = bounded(lambda: toolparse.parse(text)).calls
    assert without_tools.status == "rejected" and without_tools.reason == "too_deep"
    tools = [{"name": "t", "parameters": {"type": "object"}}]
    (with_tools,) = bounded(lambda: toolparse.parse(text, tools=tools)).calls
    assert with_tools.reason == "too_deep" and with_tools.arguments == {}


def test_strict_json_depth() -> None:
    assert strict_json(nested_array(MAX_JSON_DEPTH)) is not NOT_JSON
    assert strict_json(nested_array(MAX_JSON_DEPTH + 1)) is NOT_JSON
    with pytest.raises(TooDeep):
        loads_strict(nested_array(10_000))
    # Brackets inside strings do not count.
    assert strict_json(json.dumps("[" * 10_000)) == "[" * 10_000


# --- Budget: exponential schemas, quadratic keywords ------------------------------------------

def test_exponential_alternation_fails_closed_on_its_budget() -> None:
    # Both branches recurse: a failing leaf makes jsonschema try 2**depth paths.
    schema = {"$defs": {"n": {"anyOf": [
        {"type": "array", "items": {"$ref": "#/$defs/n"}},
        {"type": "array", "items": {"$ref": "#/$defs/n"}, "minItems": 0}]}},
        "type": "object", "properties": {"v": {"$ref": "#/$defs/n"}}}
    value = '{"v": ' + "[" * 40 + '"leaf"' + "]" * 40 + "}"
    outcome = bounded(lambda: repair_tool_call("t", value, schema))
    assert outcome.status == "rejected" and outcome.reason == "schema"
    assert ("", "complexity", "is too costly to check against the schema") in outcome.errors
    shallow = '{"v": [[[]]]}'
    assert repair_tool_call("t", shallow, schema).status == "valid"
    assert VALIDATION_BASE_STEPS > 0


def test_unique_items_is_not_quadratic() -> None:
    schema = schema_with(items={"type": "array", "uniqueItems": True})
    many = [{"k": i} for i in range(50_000)]
    assert bounded(lambda: repair_tool_call("t", {"items": many}, schema)).status == "valid"
    repeated = many + [{"k": 7}]
    assert bounded(lambda: repair_tool_call("t", {"items": repeated}, schema)).reason == "schema"
    # JSON equality: 1 and 1.0 are the same value, true and 1 are not.
    assert repair_tool_call("t", '{"items": [1, 1.0]}', schema).reason == "schema"
    assert repair_tool_call("t", '{"items": [true, 1, [1], {"a": 1}, {"a": true}]}',
                            schema).status == "valid"


def test_arithmetic_overflow_in_a_keyword_fails_closed() -> None:
    schema = schema_with(n={"type": "integer", "multipleOf": 0.5})
    outcome = repair_tool_call("t", '{"n": ' + "9" * 400 + "}", schema)
    assert outcome.status == "rejected" and outcome.reason == "schema"
    assert repair_tool_call("t", '{"n": 4}', schema).status == "valid"


# --- Numbers: finite values, standard JSON out ------------------------------------------------

@pytest.mark.parametrize("text", ["1e999", "-1e999", "[1e999]", '{"a": 1E400}', "1" * 5_000])
def test_numbers_that_are_not_finite_floats_are_not_json(text: str) -> None:
    assert strict_json(text) is NOT_JSON


def test_1e999_without_a_schema_stays_the_string_as_written() -> None:
    text = ('<tool_calls><invoke name="t"><parameter name="a">1e999</parameter>'
            '<parameter name="b">-1e999</parameter></invoke></tool_calls>')
    (call,) = toolparse.parse(text).calls
    assert call.arguments == {"a": "1e999", "b": "-1e999"}
    assert standard_json(call.arguments_json) == {"a": "1e999", "b": "-1e999"}
    assert standard_json(call.to_openai()["function"]["arguments"]) == call.arguments


def test_1e999_where_the_schema_wants_a_number_is_rejected() -> None:
    tools = [{"name": "t", "parameters": schema_with(a={"type": "number"})}]
    xml = '<tool_calls><invoke name="t"><parameter name="a">1e999</parameter></invoke></tool_calls>'
    (call,) = toolparse.parse(xml, tools=tools).calls
    assert call.status == "rejected" and call.reason == "schema"
    assert call.repair is not None and call.repair.errors == (("/a", "type", "must be number"),)
    body = '<tool_calls><invoke name="t">{"a": 1e999}</invoke></tool_calls>'
    (json_call,) = toolparse.parse(body, tools=tools).calls
    assert json_call.reason == "invalid_json"
    assert json_call.repair is not None
    assert "too large" in json_call.repair.errors[0][2]
    assert repair_tool_call("t", '{"a": 1e999}', tools[0]["parameters"]).reason == "invalid_json"


def test_non_finite_dict_arguments_are_rejected_not_serialised() -> None:
    for value in (float("inf"), float("nan"), -float("inf")):
        outcome = repair_tool_call("t", {"a": value}, {"type": "object"})
        assert outcome.status == "rejected" and outcome.reason == "invalid_json"
        assert outcome.text is None


def test_huge_values_never_raise() -> None:
    schema = schema_with(n={"type": "number"}, s={"type": "string"})
    million = "9" * 1_000_000
    for text in ('{"n": ' + million + "}", '{"n": 0.' + million + "}",
                 '{"s": "' + million + '"}', '{"n": [' + ",".join(["1"] * 100_000) + "]}"):
        outcome = bounded(lambda: repair_tool_call("t", text, schema))
        assert outcome.status in ("valid", "rejected")
        if outcome.text is not None:
            assert outcome.text == text


# --- Property: never raises, never NaN/Infinity out ----------------------------------------------

json_scalars = (st.none() | st.booleans() | st.integers(min_value=-(10**30), max_value=10**30)
                | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=8)
                | st.sampled_from(["1e999", "-1e999", "NaN", "Infinity", "a" * 26 + "!"]))
json_values = st.recursive(
    json_scalars, lambda children: (st.lists(children, max_size=3)
                                    | st.dictionaries(st.text(max_size=4), children, max_size=3)),
    max_leaves=10)
leaf_schemas = st.sampled_from([
    {"type": "string"}, {"type": "number"}, {"type": "integer", "minimum": 0},
    {"type": "string", "pattern": EVIL}, {"type": "string", "pattern": "^[a-z]{1,3}$"},
    {"type": "array", "uniqueItems": True}, {"enum": [1, "a", None]}, {"const": 1.0},
    {"type": "number", "multipleOf": 0.25}, {"type": ["null", "boolean"]}, {},
    {"$ref": "#/$defs/node"}, {"$ref": "#"},
])
schemas = st.recursive(
    leaf_schemas,
    lambda children: (
        st.builds(lambda props, extra: {"type": "object", "properties": props,
                                        "additionalProperties": extra},
                  st.dictionaries(st.sampled_from(["a", "b", "c"]), children, max_size=3),
                  st.booleans() | children)
        | st.builds(lambda items: {"type": "array", "items": items}, children)
        | st.builds(lambda branches: {"anyOf": branches}, st.lists(children, min_size=1,
                                                                   max_size=3))
        | st.builds(lambda patterns: {"type": "object", "patternProperties": patterns},
                    st.dictionaries(st.sampled_from([EVIL, "^b", "c$"]), children, max_size=2))),
    max_leaves=6)


def tool_schema(properties: dict[str, Any]) -> dict[str, Any]:
    return {"type": "object", "properties": properties,
            "$defs": {"node": {"type": "object", "properties": {
                "next": {"$ref": "#/$defs/node"}}}}}


def argument_texts(value: dict[str, Any]) -> list[str]:
    text = json.dumps(value, allow_nan=False)
    return [text, text[:-1], text + ",", text.replace('"', "'"), text.replace("}", ",}", 1)]


@settings(max_examples=150, deadline=None)
@given(properties=st.dictionaries(st.sampled_from(["a", "b", "c", "d"]), schemas, max_size=3),
       value=st.dictionaries(st.sampled_from(["a", "b", "c", "x"]), json_values, max_size=4))
def test_repair_never_raises_and_never_emits_non_standard_json(
        properties: dict[str, Any], value: dict[str, Any]) -> None:
    schema = tool_schema(properties)
    for arguments in [value, *argument_texts(value)]:
        outcome = repair_tool_call("t", arguments, schema)
        assert outcome.status in ("valid", "repaired", "rejected")
        if outcome.status != "rejected":
            # What a gateway forwards: standard JSON, and exactly the arguments.
            assert outcome.text is not None
            assert standard_json(outcome.text) == outcome.arguments
        elif isinstance(arguments, str):
            assert outcome.text is arguments   # a rejected call keeps its text as written
        elif outcome.text is not None:
            assert standard_json(outcome.text) == arguments


@given(st.one_of(st.text(max_size=12), st.from_regex(r"\s*-?[0-9]{1,30}(\.[0-9]+)?\s*", fullmatch=True),
                 st.sampled_from(["0", "00", "007", "1" * 70, "٣", "²", "NaN", "-Infinity",
                                  " true", "\ufeff1", "[1]", ' "x"', "nul"])))
def test_loads_strict_takes_its_short_cuts_only_where_the_decoder_agrees(text: str) -> None:
    # A plain integer is read without the decoder and text no JSON value can start
    # with is refused without it: both must say what the decoder says.
    from toolparse._json import NOT_JSON, _DECODERS, loads_strict
    try:
        expected = _DECODERS[False].decode(text)
    except Exception:
        expected = NOT_JSON
    got = loads_strict(text)
    assert got == expected and type(got) is type(expected), (text, got, expected)


def _depth_outside_strings(text: str) -> int:
    """The deepest nesting of `[`/`{` outside double-quoted strings, read a character
    at a time (the reference `json_depth_exceeds` must agree with)."""
    depth = deepest = 0
    in_string = escaped = False
    for char in text:
        if in_string:
            escaped, in_string = (False, True) if escaped else (char == "\\", char != '"')
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif char in "]}":
            depth = max(depth - 1, 0)
    return deepest


json_values = st.recursive(
    st.text(alphabet='ab[]{}"\\\n', max_size=12),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(
        st.text(alphabet='a[{"\\', max_size=4), inner, max_size=3),
    max_leaves=40)


@settings(max_examples=300, deadline=None)
@given(json_values, st.floats(0, 1), st.integers(0, 6))
def test_json_depth_outside_strings(value: Any, cut: float, limit: int) -> None:
    # Brackets and escaped quotes inside strings count for nothing, whole or cut short
    # (a string cut after its backslash, or never closed, runs to the end).
    text = json.dumps(value)
    for piece in (text, text[:round(cut * len(text))]):
        assert json_depth_exceeds(piece, limit) == (_depth_outside_strings(piece) > limit)
