"""hermes: one JSON object per `<tool_call>`."""

from __future__ import annotations

import json
from typing import Any

from writers.cases import case
from writers.dialects import DialectWriter, Named, register
from writers.dialects.common import MARKDOWN_VALUE, common_cases
from writers.segments import Block, Call, Failed


def hermes_block(body: str, name: str, arguments: dict[str, Any]) -> Block:
    return Block(f"<tool_call>\n{body}\n</tool_call>",
                 (Call(name, json_body=json.dumps(arguments), json_value=arguments),))


def hermes_call(name: str, arguments: dict[str, Any]) -> Block:
    return hermes_block(json.dumps({"name": name, "arguments": arguments}, ensure_ascii=False),
                        name, arguments)



def hermes() -> None:
    g = d = "hermes"
    real = hermes_call("read_file", {"path": "README.md"})
    cut = real.raw[:real.raw.index("README") + 3]
    broken = '<tool_call>\n{"name": "run_command", "arguments": {"command": "make"}} oops\n</tool_call>'
    common_cases(g, d, truncated=Failed(cut, "truncated"),
                 broken=["Running it.\n", Failed(broken, "invalid_call", at="</tool_call>"), "\n",
                         hermes_call("run_command", {"command": "ls"}), "\n"],
                 markdown=hermes_call("write_file", {"path": "README.md", "content": MARKDOWN_VALUE}),
                 typed=hermes_call("read_file", {"path": "a.py", "limit": 20, "follow": True}))
    case(g, "reversed-keys", "The arguments before the name (leniency, SPEC 5.2)",
         hermes_block('{"arguments": {"path": "a.py"}, "name": "read_file"}', "read_file",
                      {"path": "a.py"}), "\n", dialect=d)
    case(g, "parameters-member", "\"parameters\" instead of \"arguments\" (SPEC 5.2)",
         hermes_block('{"name": "read_file", "parameters": {"path": "a.py"}}', "read_file",
                      {"path": "a.py"}), "\n", dialect=d)
    case(g, "arguments-as-a-string", "The arguments as a JSON text in a string, as OpenAI "
         "writes them", hermes_block('{"name": "read_file", "arguments": "{\\"path\\": \\"a.py\\"}"}',
                                     "read_file", {"path": "a.py"}), "\n", dialect=d)


def _blocks(named: Named, nl: str) -> list[Block]:
    return [hermes_call(n, a) for n, a in named]


register(DialectWriter("hermes", _blocks, hermes, ("<tool_call>", "</tool_call>"), rank=4))
