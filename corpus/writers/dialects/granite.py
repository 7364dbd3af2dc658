"""granite: `<|tool_call|>[{"name": ..., "arguments": {...}}, ...]` (Granite 3.x) and
`<function_call> {...}` once per call (Granite 20B FC); nothing closes a call (SPEC 5.3
a, e)."""

from __future__ import annotations

import json
from typing import Any

from writers.cases import case
from writers.dialects.json_heads import element, json_head_dialect, list_block
from writers.segments import Block, Call, Failed

HEAD = "<|tool_call|>["
FC = "<function_call> "


def function_call(name: str, arguments: dict[str, Any]) -> Block:
    """One call as Granite 20B FC writes it."""
    return Block(FC + element(name, arguments),
                 (Call(name, json_body=json.dumps(arguments), json_value=arguments),))


def _own(g: str) -> None:
    weather, time = ("get_weather", {"city": "Tokyo"}), ("get_time", {"timezone": "Asia/Tokyo"})
    case(g, "text-tag-3-1", "Granite 3.1 and later write the text <tool_call> where 3.0 "
         "writes its token", list_block("<tool_call>[", [weather]), "\n", dialect=g)
    case(g, "arguments-first", "A call may write its arguments before its name",
         list_block(HEAD, [weather, time], [
             '{"arguments": {"city": "Tokyo"}, "name": "get_weather"}',
             '{"arguments": {"timezone": "Asia/Tokyo"}, "name": "get_time"}']), dialect=g)
    case(g, "function-call-20b", "Granite 20B FC: <function_call> and one call object, once "
         "per call; each is a block that ends where its object closes",
         "Let me check.\n", function_call(*weather), "\n", function_call(*time), dialect=g)
    case(g, "function-call-in-prose", "<function_call> followed by anything but an object is "
         "text, and so is an array after it", "Write <function_call> and then the JSON.\n"
         '<function_call> [{"name": "f", "arguments": {}}]\n', dialect=g)
    case(g, "function-call-truncated", "A call object still open at the end of the stream "
         "is truncated, never a call", Failed(FC + '{"name": "get_weather", "arguments": {"ci',
                                                "truncated"), dialect=g)


json_head_dialect("granite", HEAD, word="<|tool_call|>",
                  tag_names=r"<\|?(tool_call|function_call)\|?>", own=_own)
