"""The dialects whose calls are a head and a JSON value that nothing closes (SPEC 5.3 a,
e): granite's `<|tool_call|>[...]` and phi4_mini's `functools[...]`. A helper, not a
dialect: each dialect's module registers its writer with `json_head_dialect`."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from writers.cases import case
from writers.dialects import DialectWriter, Named, register
from writers.dialects.common import MARKDOWN_VALUE, common_cases, dumps
from writers.segments import Block, Call, Failed


def element(name: str, arguments: dict[str, Any]) -> str:
    return dumps({"name": name, "arguments": arguments})


def list_block(head: str, named: Named, elements: list[str] | None = None) -> Block:
    """The calls as one array after `head` (which ends with the array's `[`)."""
    written = elements if elements is not None else [element(n, a) for n, a in named]
    return Block(head + ", ".join(written) + "]",
                 tuple(Call(n, json_body=json.dumps(a), json_value=a) for n, a in named))


def json_head_dialect(name: str, head: str, *, word: str, tag_names: str,
                      own: Callable[[str], None]) -> None:
    """Register the writer of a dialect whose block is `head` (its array's `[` included)
    and an array of calls with nothing after it, with the cases every dialect has."""

    def define() -> None:
        g = d = name
        real = list_block(head, [("read_file", {"path": "README.md"})])
        cut = real.raw[:real.raw.index("README") + 3]
        good = element("run_command", {"command": "make"})
        common_cases(g, d, truncated=Failed(cut, "truncated"),
                     broken=["Running it.\n",
                             # (nothing closes the array: its failed span runs to the
                             # next opener, the newline included, as mistral's does)
                             Failed(f"{head}{good}, oops]\n", "unexpected_token", at="oops"),
                             list_block(head, [("run_command", {"command": "ls"})]), "\n"],
                     markdown=list_block(head, [("write_file", {"path": "README.md",
                                                               "content": MARKDOWN_VALUE})]),
                     typed=list_block(head, [("read_file", {"path": "a.py", "limit": 20,
                                                            "follow": True})]))
        case(g, "two-calls-unicode", "Two calls in one array, unicode in a value",
             "Checking both.\n", list_block(head, [("get_weather", {"city": "東京 😀"}),
                                                   ("get_time", {"tz": "Asia/Tokyo"})]),
             "\n", dialect=d)
        case(g, "markup-in-a-string", "Brackets and the head inside a string end nothing: "
             "the array is read structurally", list_block(head, [("echo", {
                 "text": f"]}} {head} ] [<x>"})]), "\n", dialect=d)
        case(g, "text-after-call", "Nothing closes the block: the text after its array is "
             "content (SPEC 5.3 a)", list_block(head, [("read_file", {"path": "a.py"})]),
             "\n\nI am reading the file now.", dialect=d)
        case(g, "head-in-prose", f"{word} followed by prose is text: the opener is the "
             "whole head", f"The {word} marker starts calls; {word}, then a list.\n", dialect=d)
        own(g)

    def blocks(named: Named, nl: str) -> list[Block]:
        return [list_block(head, named)]

    register(DialectWriter(name, blocks, define, (word, head + '{{"name": "{name}"}}]'),
                           tag_names=tag_names, mention_fails=False))
