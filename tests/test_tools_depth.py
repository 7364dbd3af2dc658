"""Tool schemas nested 1,000 levels and more (issue 47, item 10, the library's part):
every entry point that takes `tools=` refuses them with a `SchemaError` naming the
tool (SPEC 6.1: the document's depth is checked, iteratively, before anything
recurses into it), never a `RecursionError`, however the nesting is spelled."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

import toolparse
from toolparse import SchemaError
from toolparse.openai import rewrite_completion, rewrite_stream, stream_rewriter
from test_openai_support import completion_for


WRAPS: dict[str, Callable[[dict[str, Any]], dict[str, Any]]] = {
    "properties": lambda inner: {"type": "object", "properties": {"a": inner}},
    "items": lambda inner: {"type": "array", "items": inner},
    "anyOf": lambda inner: {"anyOf": [inner, {"type": "null"}]},
    "not": lambda inner: {"not": inner},
    "defs": lambda inner: {"$defs": {"d": inner}, "$ref": "#/$defs/d"},
}


def nested(kind: str, levels: int) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "string"}
    for _ in range(levels):
        schema = WRAPS[kind](schema)
    return {"type": "object", "properties": {"x": schema}}


ENTRY_POINTS: dict[str, Callable[[list[dict[str, Any]]], Any]] = {
    "parse": lambda tools: toolparse.parse("hi", tools=tools),
    "StreamParser": lambda tools: toolparse.StreamParser(tools=tools),
    "stream_rewriter": lambda tools: stream_rewriter(tools=tools),
    "rewrite_stream": lambda tools: rewrite_stream([], tools=tools),
    "rewrite_completion": lambda tools: rewrite_completion(completion_for("hi"), tools=tools),
}


@pytest.mark.parametrize("kind", list(WRAPS))
@pytest.mark.parametrize("levels", [1000, 50_000])
def test_a_deep_schema_is_a_schema_error_naming_the_tool(kind: str, levels: int) -> None:
    tools = [{"type": "function", "function": {"name": "deep_tool",
                                               "parameters": nested(kind, levels)}}]
    for name, entry in ENTRY_POINTS.items():
        with pytest.raises(SchemaError, match=r"tool 'deep_tool'.*nests deeper than 64"):
            entry(tools)
