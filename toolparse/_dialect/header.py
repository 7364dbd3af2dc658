"""The `//! toolparse:` header of a grammar file: what Python cannot see in the rules.

    //! toolparse: typing=attribute|schema|json  value_edges=xml|trim|newline|none

`typing` says how argument values are typed (SPEC 5.1): `attribute` (DeepSeek's
`string="true|false"`, and SPEC 3's reading of the text), `schema` (the raw text; with
tools, the tool's JSON Schema types it; without tools it stays a string) or `json` (the
arguments are JSON text, repaired like an OpenAI arguments string). `value_edges` says
how a value's text reads (see `values.py`). The first `//` comment line of the file
(after its file name) is the dialect's one-line description.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from toolparse._dialect.values import VALUE_EDGES
from toolparse._errors import GrammarError

__all__ = ["Header", "read_header"]

TYPINGS = ("attribute", "schema", "json")

_LINE = re.compile(r"^\s*//!\s*toolparse:(.*)$", re.M)
_FIRST_COMMENT = re.compile(r"^\s*//(?!!)\s*(.*?)\s*$", re.M)


class Header(NamedTuple):
    """What a grammar file says about itself."""

    typing: str = "attribute"
    value_edges: str = "xml"
    description: str = ""


def read_header(text: str, path: str) -> Header:
    """The header of a grammar file; raises GrammarError for an unknown key or value."""
    options: dict[str, str] = {}
    lines: dict[str, int] = {}
    for m in _LINE.finditer(text):
        line = text.count("\n", 0, m.start()) + 1
        for item in m.group(1).split():
            key, sep, value = item.partition("=")
            if not sep or key not in ("typing", "value_edges"):
                raise GrammarError(f"unknown header item {item!r}; the header takes "
                                   "typing= and value_edges=", path=path, line=line)
            options[key] = value
            lines[key] = line
    typing = options.get("typing", "attribute")
    if typing not in TYPINGS:
        raise GrammarError(f"typing={typing!r}: expected one of {', '.join(TYPINGS)}", path=path,
                           line=lines.get("typing"))
    edges = options.get("value_edges", "xml")
    if edges not in VALUE_EDGES:
        raise GrammarError(f"value_edges={edges!r}: expected one of {', '.join(VALUE_EDGES)}",
                           path=path, line=lines.get("value_edges"))
    first = _FIRST_COMMENT.search(text)
    description = first.group(1) if first else ""
    head, sep, rest = description.partition(":")
    if sep and head.endswith(".lark"):  # "deepseek.lark: what it is"
        description = rest.strip()
    return Header(typing=typing, value_edges=edges, description=description)
