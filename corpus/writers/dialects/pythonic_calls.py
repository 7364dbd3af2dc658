"""The dialects that write calls as Python (SPEC 5.3 c): olmo3, lfm2, pythonic. A
helper, not a dialect: each dialect's module registers its writer with
`pythonic_dialect`.

A call is written `name(key=literal, ...)`, each literal as Python writes it (`repr`:
single quotes, `True`, `None`); what toolparse reads back is the JSON of the same value.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from writers.cases import case
from writers.dialects import DialectWriter, Named, register
from writers.dialects.common import MARKDOWN_VALUE, common_cases
from writers.segments import Block, Call, Failed


def literal(value: Any) -> str:
    """A JSON value as a Python literal."""
    if isinstance(value, dict):
        return "{" + ", ".join(f"{literal(k)}: {literal(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(literal(v) for v in value) + "]"
    return repr(value)


def call_text(name: str, arguments: dict[str, Any]) -> str:
    return f"{name}(" + ", ".join(f"{k}={literal(v)}" for k, v in arguments.items()) + ")"


def py_call(name: str, arguments: dict[str, Any]) -> Call:
    return Call(name, json_body=json.dumps(arguments, ensure_ascii=False), json_value=arguments)


class PyCalls:
    """How one dialect writes its calls: its tags, and a list `[a(), b()]` or one call
    per line."""

    def __init__(self, open_tag: str, close_tag: str, *, listed: bool) -> None:
        self.open_tag, self.close_tag, self.listed = open_tag, close_tag, listed

    def body(self, calls: list[str]) -> str:
        return "[" + ", ".join(calls) + "]" if self.listed else "\n".join(calls)

    def block(self, named: Named, written: list[str] | None = None,
              meant: Named | None = None) -> Block:
        """The block of `named` (or of the calls `written` as given, meaning `meant`)."""
        texts = written if written is not None else [call_text(n, a) for n, a in named]
        return Block(f"{self.open_tag}{self.body(texts)}{self.close_tag}",
                     tuple(py_call(n, a) for n, a in (meant if meant is not None else named)))


def pythonic_dialect(name: str, calls: PyCalls, *, tag_names: str,
                     reasoning: str | None = "think", own: Callable[[], None] | None = None,
                     rank: int | None = None) -> None:
    """Register the writer of a pythonic dialect, with the cases every one has."""

    def define() -> None:
        g = d = name
        real = calls.block([("read_file", {"path": "README.md"})])
        cut = real.raw[:real.raw.index("README") + 3]
        broken = calls.block([], written=["run_command(command=make)"]).raw
        common_cases(g, d, truncated=Failed(cut, "truncated"),
                     broken=["Running it.\n", Failed(broken, "not_literal", at="make"), "\n",
                             calls.block([("run_command", {"command": "ls"})]), "\n"],
                     markdown=calls.block([("write_file", {"path": "README.md",
                                                           "content": MARKDOWN_VALUE})]),
                     typed=calls.block([("read_file", {"path": "a.py", "limit": 20,
                                                       "follow": True})]))
        case(g, "two-calls-unicode", "Two calls in one block, unicode in a value",
             "Checking both.\n", calls.block([("get_weather", {"city": "東京 😀"}),
                                              ("get_time", {"tz": "Asia/Tokyo"})]), "\n", dialect=d)
        case(g, "markup-in-a-string", "The block's close tag and brackets inside a string end "
             "nothing: the Python is read structurally",
             calls.block([("echo", {"text": f")]}}{calls.close_tag} [<x>"})]), "\n", dialect=d)
        evaluated = calls.block([], written=['get_weather(city=__import__("os").getcwd())']).raw
        case(g, "never-evaluated", "A value that is no literal is never evaluated: the block "
             "fails as its text (not_literal, SPEC 5.3 c)",
             Failed(evaluated, "not_literal", at="__import__"), "\n", dialect=d)
        if own is not None:
            own()

    def blocks(named: Named, nl: str) -> list[Block]:
        return [calls.block(named)]

    register(DialectWriter(name, blocks, define, (calls.open_tag, calls.close_tag),
                           tag_names=tag_names, reasoning=reasoning, rank=rank))
