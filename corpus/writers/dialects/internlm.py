"""internlm: `<|action_start|><|plugin|>`, one JSON object with a `parameters` member, `<|action_end|>`."""

from __future__ import annotations

import json
from typing import Any

from writers.cases import case
from writers.dialects import DialectWriter, Named, register
from writers.dialects.common import MARKDOWN_VALUE, common_cases
from writers.segments import Block, Call, Failed

OPEN = "<|action_start|><|plugin|>"
CLOSE = "<|action_end|>"


def internlm_block(body: str, name: str, arguments: dict[str, Any]) -> Block:
    return Block(f"{OPEN}\n{body}{CLOSE}",
                 (Call(name, json_body=json.dumps(arguments), json_value=arguments),))


def internlm_call(name: str, arguments: dict[str, Any]) -> Block:
    return internlm_block(json.dumps({"name": name, "parameters": arguments},
                                     ensure_ascii=False), name, arguments)


def internlm() -> None:
    g = d = "internlm"
    real = internlm_call("read_file", {"path": "README.md"})
    cut = real.raw[:real.raw.index("README") + 3]
    broken = f'{OPEN}\n{{"name": "run_command", "parameters": {{"command": "make"}}}} oops{CLOSE}'
    common_cases(g, d, truncated=Failed(cut, "truncated"),
                 broken=["Running it.\n", Failed(broken, "invalid_call", at=CLOSE), "\n",
                         internlm_call("run_command", {"command": "ls"}), "\n"],
                 markdown=internlm_call("write_file", {"path": "README.md",
                                                       "content": MARKDOWN_VALUE}),
                 typed=internlm_call("read_file", {"path": "a.py", "limit": 20, "follow": True}))
    case(g, "vllm-escaped-strings", "Escapes and unicode in the values, over several lines, "
         "as vLLM's internlm2 parser test writes them",
         internlm_block('{\n  "name": "test_function",\n  "parameters": {\n    "quoted": "He said '
                        '\\"hello\\"",\n    "path": "C:\\\\Users\\\\file.txt",\n    "newline": '
                        '"line1\\nline2",\n    "unicode": "emoji: 🎉"\n  }\n}', "test_function",
                        {"quoted": 'He said "hello"', "path": "C:\\Users\\file.txt",
                         "newline": "line1\nline2", "unicode": "emoji: 🎉"}), "\n", dialect=d)
    case(g, "interpreter-is-text", "An interpreter action is no tool call: it stays text",
         "Computing it.\n<|action_start|><|interpreter|>\nprint(6 * 7)\n<|action_end|>\n",
         dialect=d)
    case(g, "arguments-member", "\"arguments\" instead of \"parameters\", as hermes reads it",
         internlm_block('{"name": "get_weather", "arguments": {"city": "Tokyo"}}', "get_weather",
                        {"city": "Tokyo"}), "\n", dialect=d)


def _blocks(named: Named, nl: str) -> list[Block]:
    return [internlm_call(n, a) for n, a in named]


register(DialectWriter("internlm", _blocks, internlm, (OPEN, CLOSE),
                       tag_names=r"<\|(action_start|plugin|action_end|interpreter)\|>"))
