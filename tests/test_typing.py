"""Typing of XML parameter values: SPEC 3 without a schema, SPEC 6 with one."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from toolparse._json import NOT_JSON, strict_json
from toolparse._calls.values import (
    schema_types,
    type_arguments,
    type_by_schema,
    type_value,
)

ROOT = {"type": "object", "$defs": {"count": {"type": "integer"}, "words": {
    "type": "array", "items": {"type": "string"}}}, "properties": {}}


def typed(text: str, schema: Any, *, string_attr: bool | None = None,
          cdata_only: bool = False, root: Any = None) -> tuple[Any, bool]:
    return type_by_schema(text, string_attr=string_attr, cdata_only=cdata_only, schema=schema,
                          root=root)


@pytest.mark.parametrize("text, schema, cdata_only, expected", [
    # A string-typed property keeps the text, whatever it looks like.
    ("123", {"type": "string"}, False, "123"),
    ("true", {"type": "string"}, False, "true"),
    ('["a"]', {"type": "string"}, False, '["a"]'),
    ('"quoted"', {"type": "string"}, False, '"quoted"'),
    ("a < b", {"type": "string"}, True, "a < b"),
    ("us", {"enum": ["us", "eu"]}, False, "us"),
    # Other types are decoded when the text is exactly such a value, CDATA or not.
    ("42", {"type": "integer"}, False, 42),
    ("42", {"type": "integer"}, True, 42),
    ("-7", {"type": "number"}, False, -7),
    ("1e3", {"type": "number"}, False, 1000.0),
    ("true", {"type": "boolean"}, False, True),
    ("false", {"type": "boolean"}, True, False),
    ("null", {"type": "null"}, False, None),
    ('["*.rs", "*.toml"]', {"type": "array"}, False, ["*.rs", "*.toml"]),
    ('["*.rs"]', {"type": "array", "items": {"type": "string"}}, True, ["*.rs"]),
    ('{"a": 1}', {"type": "object"}, False, {"a": 1}),
    ('{"a": 1}', {"type": "object"}, True, {"a": 1}),
    ("3", {"anyOf": [{"type": "integer"}, {"type": "null"}]}, False, 3),
    ("null", {"type": ["integer", "null"]}, False, None),
    ("2", {"enum": [1, 2, 3]}, False, 2),
    ("true", {"const": True}, False, True),
    ("5", {"allOf": [{"type": ["integer", "string"]}, {"type": "integer"}]}, False, 5),
    # Both string and the decoded type allowed: keep the text (no guessing).
    ("5", {"type": ["string", "integer"]}, False, "5"),
    # ... except that a property that admits null decodes the exact text `null` (SPEC 6:
    # MiniMax's template writes None so); only-strings keeps it, and so does CDATA.
    ("null", {"anyOf": [{"type": "string"}, {"type": "null"}]}, False, None),
    ("null", {"type": ["string", "null"]}, False, None),
    ("null", {"oneOf": [{"type": "string", "maxLength": 3}, {"type": "null"}]}, False, None),
    ("null", {"type": ["string", "null"]}, True, "null"),
    (" null", {"type": ["string", "null"]}, False, " null"),
    ("NULL", {"type": ["string", "null"]}, False, "NULL"),
    ("None", {"type": ["string", "null"]}, False, "None"),
    ("null", {"type": "string"}, False, "null"),
    ("null", {"enum": ["a", "null"]}, False, "null"),
    ('["a"]', {"type": ["array", "string"]}, False, '["a"]'),
    # Not a value of an allowed type: SPEC 3 decides, validation reports the mismatch.
    ("abc", {"type": "integer"}, False, "abc"),
    ('"42"', {"type": "integer"}, False, '"42"'),
    ("4.5", {"type": "integer"}, False, 4.5),
    ("True", {"type": "boolean"}, False, "True"),
    ("NaN", {"type": "number"}, False, "NaN"),
    ('{"a": 1, "a": 2}', {"type": "object"}, False, '{"a": 1, "a": 2}'),
    ("*.py", {"type": "array"}, False, "*.py"),
    ("1", {"type": "array"}, True, "1"),
    # A property the schema does not describe is typed as SPEC 3 says.
    ("5", {}, False, 5),
    ("5", {}, True, "5"),
    ("5", {"description": "a number, maybe"}, False, 5),
    ('"x"', {"not": {"type": "string"}}, False, '"x"'),
])
def test_type_by_schema(text: str, schema: Any, cdata_only: bool, expected: Any) -> None:
    value, json_error = typed(text, schema, cdata_only=cdata_only)
    assert value == expected and type(value) is type(expected)
    assert json_error is False


@pytest.mark.parametrize("text, schema, expected", [
    ("5", {"type": "integer"}, "5"),
    ("true", {"type": "boolean"}, "true"),
    ("[1]", {"type": "array"}, "[1]"),
    ("", {"type": "integer"}, ""),
])
def test_string_true_always_wins(text: str, schema: Any, expected: Any) -> None:
    assert typed(text, schema, string_attr=True) == (expected, False)


@pytest.mark.parametrize("text, schema, expected", [
    ("5", {"type": "integer"}, (5, False)),
    ('"x"', {"type": "string"}, ("x", False)),
    ("5", {"type": "string"}, ("5", False)),
    ("[1", {"type": "array"}, ("[1", True)),
    ("abc", {"type": "string"}, ("abc", True)),
    ("[1, 2]", {"type": "array"}, ([1, 2], False)),
    ("7", None, (7, False)),
    ("oops", None, ("oops", True)),
])
def test_string_false_promises_json(text: str, schema: Any, expected: Any) -> None:
    assert typed(text, schema, string_attr=False) == expected


def test_local_refs_are_followed_through_root() -> None:
    assert typed("5", {"$ref": "#/$defs/count"}, root=ROOT) == (5, False)
    assert typed('["a"]', {"$ref": "#/$defs/words"}, root=ROOT) == (["a"], False)
    # Unresolvable: not described, so SPEC 3 (which decodes numbers but not CDATA).
    assert typed("5", {"$ref": "#/$defs/missing"}, root=ROOT, cdata_only=True) == ("5", False)
    assert typed("5", {"$ref": "https://example.com/s.json"}) == (5, False)


def test_schema_none_is_spec_3() -> None:
    for text in ("5", "true", '"q"', "[1]", "x", "null", "1e400"):
        for cdata_only in (False, True):
            for string_attr in (None, True, False):
                assert typed(text, None, string_attr=string_attr, cdata_only=cdata_only) == \
                    type_value(text, string_attr=string_attr, cdata_only=cdata_only)


@pytest.mark.parametrize("schema, expected", [
    ({"type": "integer"}, {"integer"}),
    ({"type": "number"}, {"number", "integer"}),
    ({"type": ["string", "null"]}, {"string", "null"}),
    ({"enum": ["a", None]}, {"string", "null"}),
    ({"anyOf": [{"type": "string"}, {"$ref": "#/$defs/count"}]}, {"string", "integer"}),
    ({"oneOf": [{"type": "string"}, {}]}, None),
    ({"type": ["integer", "string"], "enum": [1]}, {"integer"}),
    ({}, None),
    (True, None),
    (False, set()),
])
def test_schema_types(schema: Any, expected: set[str] | None) -> None:
    types = schema_types(schema, ROOT)
    assert (None if types is None else set(types)) == expected


def test_cyclic_refs_terminate() -> None:
    root = {"$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/a"}}}
    assert schema_types({"$ref": "#/$defs/a"}, root) is None
    assert typed("5", {"$ref": "#/$defs/a"}, root=root) == (5, False)


# --- type_arguments --------------------------------------------------------------------

PARAMS_SCHEMA = {"type": "object", "properties": {
    "path": {"type": "string"},
    "limit": {"type": "integer"},
    "include": {"type": "array", "items": {"type": "string"}},
    "counts": {"type": "array", "items": {"type": "integer"}},
    "pair": {"type": "array", "prefixItems": [{"type": "integer"}, {"type": "string"}]},
    "flag": {"type": "boolean"},
    "tag": {"type": "string"}},
    "patternProperties": {"^n_": {"type": "integer"}},
    "additionalProperties": {"type": "boolean"}}


def test_type_arguments_by_schema() -> None:
    params = [
        ("path", "007", None, False),
        ("limit", "10", None, True),
        ("include", "*.py", None, False),
        ("counts", "1", None, False),
        ("include", "*.rs", None, False),
        ("counts", "2", None, False),
        ("pair", "1", None, False),
        ("pair", "1", None, False),
        ("flag", "true", None, False),
        ("tag", "a", None, False),
        ("tag", "1", None, False),
        ("n_max", "3", None, False),
        ("other", "false", None, False),
        ("undescribed_by_cdata", "4", None, True),
    ]
    arguments, json_errors = type_arguments(params, PARAMS_SCHEMA)
    assert arguments == {
        "path": "007", "limit": 10, "include": ["*.py", "*.rs"], "counts": [1, 2],
        "pair": [1, "1"], "flag": True, "tag": ["a", "1"], "n_max": 3, "other": False,
        "undescribed_by_cdata": "4"}
    assert list(arguments) == ["path", "limit", "include", "counts", "pair", "flag", "tag",
                               "n_max", "other", "undescribed_by_cdata"]
    assert json_errors == ()


def test_type_arguments_single_array_value_and_undescribed() -> None:
    schema = {"type": "object", "properties": {"include": {"type": "array"}}}
    arguments, _ = type_arguments([("include", '["a", "b"]', None, True),
                                   ("extra", "12", None, False)], schema)
    assert arguments == {"include": ["a", "b"], "extra": 12}


def test_type_arguments_json_errors_in_document_order() -> None:
    params = [("b", "{", False, False), ("a", "[", False, False), ("b", "}", False, False),
              ("c", "1", False, False)]
    arguments, json_errors = type_arguments(params, PARAMS_SCHEMA)
    assert json_errors == ("b", "a")
    assert arguments == {"b": ["{", "}"], "a": "[", "c": 1}


param_lists = st.lists(st.tuples(
    st.sampled_from(["a", "b", "c"]),
    st.sampled_from(["1", "true", "null", '"s"', "[1]", '{"k": 2}', "x", "", "1.5", "NaN"]),
    st.sampled_from([None, True, False]),
    st.booleans()), max_size=6)


@given(params=param_lists)
def test_type_arguments_without_schema_is_exactly_spec_3(params: list[Any]) -> None:
    arguments, json_errors = type_arguments(params, None)
    expected: dict[str, list[Any]] = {}
    flagged: list[str] = []
    for name, text, string_attr, cdata_only in params:
        value, json_error = type_value(text, string_attr=string_attr, cdata_only=cdata_only)
        expected.setdefault(name, []).append(value)
        if json_error and name not in flagged:
            flagged.append(name)
    assert arguments == {k: v if len(v) > 1 else v[0] for k, v in expected.items()}
    assert list(arguments) == list(expected)            # in document order
    assert json_errors == tuple(flagged)


def test_strict_json_unchanged() -> None:
    assert strict_json("NaN") is NOT_JSON
    assert strict_json('{"a": 1, "a": 1}') is NOT_JSON
    assert strict_json(" [1] ") == [1]
