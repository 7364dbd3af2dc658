"""longcat: hermes's JSON object under `<longcat_tool_call>`, one per call."""

from __future__ import annotations

import json
from typing import Any

from writers.cases import case
from writers.dialects import DialectWriter, Named, register
from writers.dialects.common import MARKDOWN_VALUE, common_cases
from writers.segments import Block, Call, Failed


def longcat_block(body: str, name: str, arguments: dict[str, Any]) -> Block:
    return Block(f"<longcat_tool_call>\n{body}\n</longcat_tool_call>",
                 (Call(name, json_body=json.dumps(arguments), json_value=arguments),))


def longcat_call(name: str, arguments: dict[str, Any]) -> Block:
    return longcat_block(json.dumps({"name": name, "arguments": arguments}, ensure_ascii=False),
                         name, arguments)


def longcat() -> None:
    g = d = "longcat"
    real = longcat_call("read_file", {"path": "README.md"})
    cut = real.raw[:real.raw.index("README") + 3]
    broken = ('<longcat_tool_call>\n{"name": "run_command", "arguments": {"command": "make"}} '
              'oops\n</longcat_tool_call>')
    common_cases(g, d, truncated=Failed(cut, "truncated"),
                 broken=["Running it.\n", Failed(broken, "invalid_call", at="</longcat_tool_call>"),
                         "\n", longcat_call("run_command", {"command": "ls"}), "\n"],
                 markdown=longcat_call("write_file", {"path": "README.md",
                                                      "content": MARKDOWN_VALUE}),
                 typed=longcat_call("read_file", {"path": "a.py", "limit": 20, "follow": True}))
    case(g, "vllm-various-types", "Every JSON type in the arguments, spread over lines, as "
         "vLLM's longcat parser test writes them",
         longcat_block('{\n  "name": "test_function",\n  "arguments": {"s": "hello", "i": 42, '
                       '"f": 3.14, "b": true, "n": null, "a": ["x"], "o": {"k": "v"}}\n}',
                       "test_function", {"s": "hello", "i": 42, "f": 3.14, "b": True, "n": None,
                                         "a": ["x"], "o": {"k": "v"}}), "\n", dialect=d)
    case(g, "two-calls", "Two calls, each its own block, unicode in a value",
         longcat_call("get_weather", {"city": "東京 😀"}), "\n",
         longcat_call("get_time", {"tz": "Asia/Tokyo"}), "\n", dialect=d)


def _blocks(named: Named, nl: str) -> list[Block]:
    return [longcat_call(n, a) for n, a in named]


register(DialectWriter("longcat", _blocks, longcat,
                       ("<longcat_tool_call>", "</longcat_tool_call>"),
                       tag_names=r"</?(longcat_tool_call)>"))
