"""Values written as elements (SPEC 5.3, MiniMax-M3): a grammar's `member` rule, its
values made JSON objects and arrays by the builders and typed by the schema
(toolparse/_dialect/build.py, toolparse/_calls/values.py; docs/grammars.md, "Values
written as elements")."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import toolparse
from conftest import check_chunkings  # noqa: F401  (the fixture)

GRAMMAR = """\
// nest.lark: calls whose arguments may hold elements named by their keys.
//! toolparse: typing={typing} value_edges=none

block: CALLS_OPEN invoke+ CALLS_CLOSE
invoke: CALL_OPEN param* CALL_CLOSE
param: OPEN _value* CLOSE
member: OPEN _value* CLOSE
_value: TEXT | LT | member

CALLS_OPEN.3: "<<calls>>"
CALLS_CLOSE.3: "<</calls>>"
CALL_OPEN.3: /<<call (?P<name>[a-z_]+)>>/
CALL_CLOSE.3: "<</call>>"
OPEN.3: /<<(?P<name>[a-z_]+)>>/
CLOSE.3: /<<\\/(?P<name>[a-z_]+)>>/
TEXT.1: /[^<]+/
LT.1: "<"
WS: /\\s+/
%ignore WS
"""


def load(tmp_path: Path, typing: str = "schema") -> toolparse.Dialect:
    path = tmp_path / f"nest_{typing}.lark"
    path.write_text(GRAMMAR.format(typing=typing), encoding="utf-8")
    return toolparse.Dialect.from_file(path)


def el(key: str, *inner: str) -> str:
    return f"<<{key}>>" + "".join(inner) + f"<</{key}>>"


def block(*params: str, name: str = "order") -> str:
    return f"<<calls>><<call {name}>>" + "".join(params) + "<</call>><</calls>>"


def tools(properties: dict[str, Any], defs: dict[str, Any] | None = None) -> list[dict[str, Any]]:
    schema: dict[str, Any] = {"type": "object", "properties": properties}
    if defs:
        schema["$defs"] = defs
    return [{"name": "order", "parameters": schema}]


def test_members_are_an_object_and_a_repeated_key_a_list(tmp_path: Path, check_chunkings) -> None:
    nest = load(tmp_path)
    text = block(el("to", el("city", "Oslo"), "\n  ", el("zip", "0150")),
                 el("tags", el("t", "a"), el("t", "b < c")), el("note", " as is "))
    assert check_chunkings("Sending.\n" + text + " Done.", dialect=nest)[1][2] == [("order", {
        "to": {"city": "Oslo", "zip": "0150"}, "tags": {"t": ["a", "b < c"]},
        "note": " as is "})]


def test_the_schema_types_members_and_makes_arrays(tmp_path: Path) -> None:
    nest = load(tmp_path)
    text = block(el("to", el("zip", "150"), el("extra", "7")),
                 el("lines", el("item", el("qty", "2")), el("item", el("qty", "3"))),
                 el("ids", el("x", "1")), el("pair", el("a", "1"), el("b", "true")))
    given = tools({"to": {"type": "object", "properties": {"zip": {"type": "integer"}},
                          "additionalProperties": {"type": "number"}},
                   "lines": {"type": "array", "items": {"$ref": "#/$defs/line"}},
                   "ids": {"type": "array", "items": {"type": "integer"}},
                   "pair": {"type": "array", "prefixItems": [{"type": "integer"},
                                                             {"type": "boolean"}]}},
                  {"line": {"type": "object", "properties": {"qty": {"type": "integer"}}}})
    call = toolparse.parse(text, dialect=nest, tools=given).calls[0]
    assert call.status == "valid" and call.arguments == {
        "to": {"zip": 150, "extra": 7}, "lines": [{"qty": 2}, {"qty": 3}], "ids": [1],
        "pair": [1, True]}
    # A schema that wants a string gets the object, and validation says so.
    call = toolparse.parse(text, dialect=nest, tools=tools({"to": {"type": "string"}})).calls[0]
    assert call.status == "rejected" and call.arguments["to"] == {"zip": "150", "extra": "7"}


def test_members_are_guessed_where_the_typing_guesses(tmp_path: Path) -> None:
    nest = load(tmp_path, typing="attribute")
    text = block(el("to", el("n", "42"), el("ok", "true"), el("s", "x")))
    assert toolparse.parse(text, dialect=nest).calls[0].arguments == {
        "to": {"n": 42, "ok": True, "s": "x"}}


@pytest.mark.parametrize("value, reason", [
    (el("to", "by ship ", el("city", "Oslo")), "mixed_value"),
    ("<<to>><<city>>Oslo<</to>><</city>>", "mismatched_close"),
    # The arguments object, `to`'s value and 63 objects inside it: 65 levels of JSON.
    (el("to", "<<a>>" * 64 + "x" + "<</a>>" * 64), "too_deep"),
])
def test_what_is_no_value_fails_the_block(tmp_path: Path, check_chunkings, value: str,
                                          reason: str) -> None:
    nest = load(tmp_path)
    text = block(value) + " after"
    events = check_chunkings(text, dialect=nest)
    assert events[0][0] == "failed" and events[0][2] == reason
    assert "".join(event[1] for event in events) == text


def test_members_as_deep_as_json_reads_are_a_value(tmp_path: Path) -> None:
    nest = load(tmp_path)
    value: Any = "x"
    for _ in range(63):
        value = {"a": value}
    # 64 levels of JSON with the arguments object, as a JSON body may nest.
    text = block(el("to", "<<a>>" * 63 + "x" + "<</a>>" * 63))
    assert toolparse.parse(text, dialect=nest).calls[0].arguments == {"to": value}


def test_ten_thousand_levels_fail_the_block_without_recursion(tmp_path: Path) -> None:
    nest = load(tmp_path)
    text = block(el("to", "<<a>>" * 10_000 + "x" + "<</a>>" * 10_000))
    result = toolparse.parse(text, dialect=nest)
    assert result.calls == () and result.text == text
    assert [f.reason for f in result.failures] == ["too_deep"]
