"""kimi_k2: `<|tool_calls_section_begin|>` sections of calls with JSON arguments."""

from __future__ import annotations

import json
from typing import Any

from writers.cases import case
from writers.dialects import DialectWriter, Named, register
from writers.dialects.common import MARKDOWN_VALUE, common_cases
from writers.segments import Block, Call, Failed

KIMI_BEGIN, KIMI_END = "<|tool_calls_section_begin|>", "<|tool_calls_section_end|>"


def kimi_calls(*calls: tuple[str, str, dict[str, Any]], section: bool = True) -> Block:
    """Kimi-K2's sections: each call (name, arguments as written, as meant)."""
    body = "\n".join(f"<|tool_call_begin|>functions.{name}:{i}<|tool_call_argument_begin|>"
                     f"{written}<|tool_call_end|>" for i, (name, written, _) in enumerate(calls))
    raw = f"{KIMI_BEGIN}\n{body}\n{KIMI_END}" if section else f"{body}\n{KIMI_END}"
    return Block(raw, tuple(Call(n, json_body=w, json_value=m) for n, w, m in calls))




def kimi_k2() -> None:
    g = d = "kimi_k2"
    real = kimi_calls(("read_file", '{"path": "README.md"}', {"path": "README.md"}))
    cut = real.raw[:real.raw.index("README") + 3]
    broken = (f"{KIMI_BEGIN}\n<|tool_call_begin|>functions.run_command:0"
              '<|tool_call_argument_begin|>{"command": "make"}<|tool_call_end|>\noops\n'
              "<|tool_call_begin|>functions.run_command:1<|tool_call_argument_begin|>"
              f'{{"command": "rm -rf build"}}<|tool_call_end|>\n{KIMI_END}')
    common_cases(g, d, truncated=Failed(cut, "truncated"),
                 broken=["Running it.\n", Failed(broken, at="oops"), "\nDone.\n"],
                 markdown=kimi_calls(("write_file", json.dumps({"content": MARKDOWN_VALUE}),
                                 {"content": MARKDOWN_VALUE})),
                 typed=kimi_calls(("read_file", '{"path": "a.py", "limit": 20, "follow": true}',
                              {"path": "a.py", "limit": 20, "follow": True})))
    case(g, "missing-section-begin", "Calls followed by a section end, without the section "
         "begin: a block from the first call (leniency, SPEC 5.2)", "Calling:\n",
         kimi_calls(("read_file", '{"path": "a.py"}', {"path": "a.py"}), section=False), "\n",
         dialect=d)
    case(g, "no-section-end", "Calls with no section end after them are text (a failure: "
         "the calls broke at the prose)", "Calling:\n",
         Failed('<|tool_call_begin|>functions.read_file:0<|tool_call_argument_begin|>'
                '{"path": "a.py"}<|tool_call_end|>\nand that is all.\n', at="and"),
         dialect=d)
    case(g, "arguments-not-json", "Arguments that are not JSON reject their call, never the "
         "block (SPEC 3.1): the block is not accepted",
         kimi_calls(("run_command", '{"command": "make",}', {})), "\n", dialect=d,
         status={0: "rejected"})


def _blocks(named: Named, nl: str) -> list[Block]:
    return [kimi_calls(*((n, json.dumps(a, ensure_ascii=False), a) for n, a in named))]


def _quote(call: Call) -> Block:
    # Kimi's section opener ends a region (SPEC G3b): a model quotes a call alone.
    arguments = {p.name: p.value for p in call.params}
    return kimi_calls((call.name, json.dumps(arguments, ensure_ascii=False), arguments),
                      section=False)


register(DialectWriter("kimi_k2", _blocks, kimi_k2,
                       (KIMI_BEGIN, "<|tool_call_begin|>functions.{name}:0"), quote=_quote,
                       rank=5))
