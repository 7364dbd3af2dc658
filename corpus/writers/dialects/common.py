"""What every dialect's group has: a truncated call, a broken one, a value holding
Markdown, typing with tools."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from writers.cases import case
from writers.segments import Block, Failed, Segment


def tool(name: str, properties: dict[str, Any], required: Sequence[str] = ()) -> dict[str, Any]:
    return {"type": "function", "function": {"name": name, "parameters": {
        "type": "object", "properties": properties, "required": list(required)}}}


READ_TOOL = tool("read_file", {"path": {"type": "string"}, "limit": {"type": "integer"},
                                "follow": {"type": "boolean"}}, ["path"])
MARKDOWN_VALUE = ("## Usage\n\n```python\nif a < b:\n    print(\"<done>\")\n```\n\n"
                  "- **bold** and `code` <br/>")
PROSE_INTRO = "Let me read the file first.\n\n"


def dumps(arguments: dict[str, Any]) -> str:
    """Arguments as the templates write them: JSON, characters as themselves."""
    return json.dumps(arguments, ensure_ascii=False)


def common_cases(g: str, dialect: str, *, truncated: Failed, broken: list[Segment | str],
                 markdown: Block, typed: Block) -> None:
    """The group cases every dialect has (its answers in prose, with examples in code and
    several calls, are in `realistic`): a truncated call, a broken one, a value holding
    Markdown and `<`, typing with tools."""
    def c(name: str, description: str, *segments: Segment | str, **kw: Any) -> None:
        case(g, name, description, *segments, dialect=dialect, **kw)

    c("truncated", "A call cut off by the end of the stream fails with reason truncated "
      "(SPEC 3.2)", PROSE_INTRO, truncated)
    c("broken-call", "A call that does not parse is one failed span, released as its exact "
      "text; none of it runs (SPEC 3.2, G4)", *broken)
    c("value-with-markdown-and-lt", "A value holding Markdown, a fence and `<` comes through "
      "whole: inside a block nothing is Markdown (SPEC G3a)", "Writing the README:\n\n",
      markdown, "\n")
    c("typed-by-schema", "With tools, values are typed by the tool's schema and checked",
      typed, "\n", tools=[READ_TOOL], status={0: "valid"})


