"""gemma4: `<|tool_call>call:NAME{key:<|"|>v<|"|>,n:1}<tool_call|>`, one block per call,
and FunctionGemma's `<start_function_call>call:NAME{...}<end_function_call>` (SPEC 5.3 d).

The arguments are written in Gemma's value notation, as the Gemma 4 chat template writes
them: bare keys, strings between `<|"|>` tokens (FunctionGemma: `<escape>`), numbers,
booleans, null, nested objects and arrays."""

from __future__ import annotations

import json
import re
from typing import Any

from writers.cases import case
from writers.dialects import DialectWriter, Named, register
from writers.dialects.common import MARKDOWN_VALUE, READ_TOOL, common_cases
from writers.segments import Block, Call, Failed

D = "gemma4"
OPEN, CLOSE = "<|tool_call>", "<tool_call|>"
FG_OPEN, FG_CLOSE = "<start_function_call>", "<end_function_call>"
_BARE_KEY = re.compile(r"[A-Za-z_$][A-Za-z0-9_$.\-]*")


def gemma(value: Any, quote: str = '<|"|>') -> str:
    """A value in Gemma's notation."""
    if isinstance(value, str):
        return quote + value + quote
    if isinstance(value, bool) or value is None:
        return json.dumps(value)
    if isinstance(value, (int, float)):
        return json.dumps(value)
    if isinstance(value, list):
        return "[" + ",".join(gemma(v, quote) for v in value) + "]"
    return "{" + ",".join((k if _BARE_KEY.fullmatch(k) else quote + k + quote) + ":"
                          + gemma(v, quote) for k, v in value.items()) + "}"


def call_block(name: str, arguments: dict[str, Any], *, function_gemma: bool = False,
               written: str | None = None) -> Block:
    """One call as Gemma 4 (or FunctionGemma) writes it."""
    opener, closer, quote = ((FG_OPEN, FG_CLOSE, "<escape>") if function_gemma
                             else (OPEN, CLOSE, '<|"|>'))
    body = written if written is not None else gemma(arguments, quote)
    return Block(f"{opener}call:{name}{body}{closer}",
                 (Call(name, json_body=json.dumps(arguments), json_value=arguments),))


def _blocks(named: Named, nl: str) -> list[Block]:
    return [call_block(n, a) for n, a in named]


def gemma4() -> None:
    g = D
    real = call_block("read_file", {"path": "README.md"})
    cut = real.raw[:real.raw.index("README") + 3]
    broken = call_block("run_command", {}, written="{command:make}").raw
    common_cases(g, D, truncated=Failed(cut, "truncated"),
                 broken=["Running it.\n", Failed(broken, at="make}"), "\n",
                         call_block("run_command", {"command": "ls"}), "\n"],
                 markdown=call_block("write_file", {"path": "README.md",
                                                    "content": MARKDOWN_VALUE}),
                 typed=call_block("read_file", {"path": "a.py", "limit": 20, "follow": True}))
    weather = ("get_weather", {"location": "Paris, France", "days": 3})
    case(g, "several-in-a-row", "Calls in a row: each is a block of its own",
         call_block(*weather), call_block("get_time", {}), dialect=D)
    case(g, "values", "Every kind of value: strings, numbers, booleans, null, nested "
         "objects and arrays, a quoted key", call_block("probe", {
             "s": "x", "n": -2.5e3, "i": 42, "t": True, "f": False, "z": None,
             "list": ["a", 1, [True]], "obj": {"inner": {"deep": "v"}}, "3": "quoted key"}),
         dialect=D)
    case(g, "markup-in-a-string", "Quotes, braces, brackets, commas and the close tag "
         "inside a string end nothing", call_block("echo", {
             "text": f'He said "hi", {{}} ] [ {CLOSE} {OPEN} 東京 😀'}), "\n", dialect=D)
    case(g, "function-gemma", "FunctionGemma: <start_function_call>, strings between "
         "<escape> tokens", "Checking.\n", call_block(*weather, function_gemma=True), "\n",
         dialect=D)
    case(g, "typed-by-schema-rejected", "With tools, the arguments are checked as JSON "
         "ones: a number written as a string rejects the call",
         call_block("read_file", {}, written='{path:<|"|>a.py<|"|>,limit:<|"|>20<|"|>}'),
         dialect=D, tools=[READ_TOOL], status={0: "rejected"})
    case(g, "token-in-prose", "The call token named in prose is text: the opener is the "
         "token, `call:`, the name and the `{` after it",
         f"Gemma writes {OPEN} before a call and {CLOSE} after it.\n", dialect=D)


register(DialectWriter(D, _blocks, gemma4, (OPEN, OPEN + "call:{name}{{...}}" + CLOSE),
                       tag_names=r"<\|?(tool_call|start_function_call|end_function_call)\|?>",
                       reasoning="gemma4", mention_fails=False))
