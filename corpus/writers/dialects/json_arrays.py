"""The JSON-bodied dialects of SPEC 5.3 e: calls as JSON objects in one block, as an
array or one per line (nemotron, hunyuan_a13b, cohere, apertus, minimax_m1). A helper,
not a dialect: each dialect's module registers its writer with `json_calls_dialect`."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from writers.cases import case
from writers.dialects import DialectWriter, Named, register
from writers.dialects.common import MARKDOWN_VALUE, common_cases
from writers.segments import Block, Call, Failed

Element = Callable[[str, dict[str, Any]], dict[str, Any]]
"""A call's JSON object, from its name and arguments."""


def named_members(name_key: str, arguments_key: str) -> Element:
    return lambda name, arguments: {name_key: name, arguments_key: arguments}


def keyed(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {name: arguments}


class JsonCalls:
    """How one dialect writes its calls: tags, the element, array or lines."""

    def __init__(self, open_tag: str, close_tag: str, element: Element, *,
                 lines: bool = False) -> None:
        self.open_tag, self.close_tag, self.element, self.lines = open_tag, close_tag, element, lines

    def body(self, elements: list[str]) -> str:
        if self.lines:
            return "\n" + "\n".join(elements) + "\n"
        return "[" + ", ".join(elements) + "]"

    def block(self, named: Named, elements: list[str] | None = None) -> Block:
        written = elements if elements is not None else [
            json.dumps(self.element(n, a), ensure_ascii=False) for n, a in named]
        return Block(f"{self.open_tag}{self.body(written)}{self.close_tag}",
                     tuple(Call(n, json_body=json.dumps(a), json_value=a) for n, a in named))


def json_calls_dialect(name: str, calls: JsonCalls, *, tag_names: str,
                       reasoning: str | None = "think", own: Callable[[], None] | None = None,
                       rank: int | None = None) -> None:
    """Register the writer of a JSON-calls dialect, with the cases every dialect has."""

    def define() -> None:
        g = d = name
        real = calls.block([("read_file", {"path": "README.md"})])
        cut = real.raw[:real.raw.index("README") + 3]
        good = json.dumps(calls.element("run_command", {"command": "make"}))
        broken = f"{calls.open_tag}{calls.body([good])} oops{calls.close_tag}"
        common_cases(g, d, truncated=Failed(cut, "truncated"),
                     broken=["Running it.\n", Failed(broken, "unexpected_token", at="oops"), "\n",
                             calls.block([("run_command", {"command": "ls"})]), "\n"],
                     markdown=calls.block([("write_file", {"path": "README.md",
                                                           "content": MARKDOWN_VALUE})]),
                     typed=calls.block([("read_file", {"path": "a.py", "limit": 20,
                                                       "follow": True})]))
        case(g, "two-calls-unicode", "Two calls in one block, unicode in a value",
             "Checking both.\n", calls.block([("get_weather", {"city": "東京 😀"}),
                                              ("get_time", {"tz": "Asia/Tokyo"})]), "\n", dialect=d)
        case(g, "markup-in-a-string", "The block's close tag and brackets inside a string end "
             "nothing: the JSON is read structurally",
             calls.block([("echo", {"text": f"]}}{calls.close_tag} [<x>"})]), "\n", dialect=d)
        if own is not None:
            own()

    def blocks(named: Named, nl: str) -> list[Block]:
        return [calls.block(named)]

    register(DialectWriter(name, blocks, define, (calls.open_tag, calls.close_tag),
                           tag_names=tag_names, reasoning=reasoning, rank=rank))
