"""The `//! toolparse:` header of a grammar file: what Python cannot see in the rules.

    //! toolparse: typing=attribute|schema|json  value_edges=xml|trim|newline|none
                   reasoning=NAME  ends_reasoning=TERMINAL,...  anchored=TERMINAL,...
                   block_end=tag|value  type_attribute=NAME

`typing` says how argument values are typed (SPEC 5.1): `attribute` (DeepSeek's
`string="true|false"`, and SPEC 3's reading of the text), `schema` (the raw text; with
tools, the tool's JSON Schema types it; without tools it stays a string) or `json` (the
arguments are JSON text, repaired like an OpenAI arguments string). `value_edges` says
how a value's text reads. Each names a row of `syntaxes.VALUE_SYNTAXES`, and the
header holds the row, not the name. `reasoning` names the dialect's default
reasoning format (SPEC 11: a file of `grammars/reasoning/`; none when absent), and
`ends_reasoning` the block-opening terminals that end a reasoning region (SPEC G3b:
Kimi-K2.5 opens its tool section before it closes its thinking). `anchored` names the
block-opening terminals that open a block only at the start of the answer (SPEC 5.3 b:
after nothing but whitespace and a reasoning region; anywhere else their text is text:
Llama's bare JSON call). `block_end` says where a block ends (SPEC 5.3 a): `tag` (the
default), as soon as its start rule can end, which a closing tag makes certain; `value`,
where its value ends: the rule may go on after a point where it could end (Llama's
calls joined by `;`, an optional close tag), and the block ends there unless the next
token goes on with it (`_stream/capture.py`). `call_name` and
`call_arguments` declare the members of a call written as one JSON object
(`syntaxes/json_calls.py`). `type_attribute` names an argument's attribute that
gives its JSON type (Kimi K3's `type="string"`): `string` keeps the text as written, any
other type says the text is JSON, as DSML's `string="true|false"` does. The first `//`
comment line of the file (after its file name) is the dialect's one-line description.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from toolparse._dialect.syntaxes import DEFAULTS, TYPING, VALUE_EDGES, ValueSyntax, named
from toolparse._dialect.syntaxes.json_calls import DEFAULT_SHAPE, SHAPE_KEYS, CallShape, read_shape
from toolparse._errors import GrammarError
from toolparse._reasoning.formats import reasoning_formats

__all__ = ["BLOCK_ENDS", "Header", "read_header"]

_KEYS = (TYPING, VALUE_EDGES, "reasoning", "ends_reasoning", "anchored", "block_end",
         "type_attribute", *SHAPE_KEYS)
_ATTRIBUTE_NAME = re.compile(r"[A-Za-z_][\w.:-]*")

BLOCK_ENDS = ("tag", "value")
"""The values of `block_end=`, the default first."""

_LINE = re.compile(r"^\s*//!\s*toolparse:(.*)$", re.M)
_FIRST_COMMENT = re.compile(r"^\s*//(?!!)\s*(.*?)\s*$", re.M)


class Header(NamedTuple):
    """What a grammar file says about itself."""

    typing: ValueSyntax = DEFAULTS[TYPING]
    """How values are typed (`typing=`)."""
    value_edges: ValueSyntax = DEFAULTS[VALUE_EDGES]
    """How a parameter's value text reads (`value_edges=`)."""
    description: str = ""
    reasoning: str | None = None
    """The default reasoning format's name; None: no regions by default."""
    ends_reasoning: tuple[str, ...] = ()
    """Terminals that end a reasoning region (the loader checks they open blocks)."""
    anchored: tuple[str, ...] = ()
    """Terminals that open a block only at the start of the answer (SPEC 5.3 b; the
    loader checks they open blocks)."""
    value_ends: bool = False
    """`block_end=value`: a block whose rule can end may still go on with the next token."""
    call_shape: CallShape = DEFAULT_SHAPE
    """The members of a call written as a JSON object (`call_name=`, `call_arguments=`:
    `syntaxes/json_calls.py`, SPEC 5.3 e)."""
    type_attribute: str | None = None
    """The argument attribute that gives its JSON type (`type_attribute=`), if any."""


def read_header(text: str, path: str) -> Header:
    """The header of a grammar file; raises GrammarError for an unknown key or value."""
    options: dict[str, str] = {}
    lines: dict[str, int] = {}
    for m in _LINE.finditer(text):
        line = text.count("\n", 0, m.start()) + 1
        for item in m.group(1).split():
            key, sep, value = item.partition("=")
            if not sep or key not in _KEYS:
                raise GrammarError(f"unknown header item {item!r}; the header takes "
                                   f"{'= '.join(_KEYS)}=", path=path, line=line)
            options[key] = value
            lines[key] = line
    typing = named(TYPING, options.get(TYPING), path, lines.get(TYPING))
    edges = named(VALUE_EDGES, options.get(VALUE_EDGES), path, lines.get(VALUE_EDGES))
    reasoning = options.get("reasoning")
    if reasoning is not None and reasoning not in reasoning_formats():
        raise GrammarError(f"reasoning={reasoning!r}: expected one of "
                           f"{', '.join(reasoning_formats())}", path=path,
                           line=lines.get("reasoning"))
    ends = tuple(name for name in options.get("ends_reasoning", "").split(",") if name)
    type_attribute = options.get("type_attribute")
    if type_attribute is not None and not _ATTRIBUTE_NAME.fullmatch(type_attribute):
        raise GrammarError(f"type_attribute={type_attribute!r}: expected an attribute name",
                           path=path, line=lines.get("type_attribute"))
    anchored = tuple(name for name in options.get("anchored", "").split(",") if name)
    block_end = options.get("block_end", BLOCK_ENDS[0])
    if block_end not in BLOCK_ENDS:
        raise GrammarError(f"block_end={block_end!r}: expected one of {', '.join(BLOCK_ENDS)}",
                           path=path, line=lines.get("block_end"))
    first = _FIRST_COMMENT.search(text)
    description = first.group(1) if first else ""
    head, sep, rest = description.partition(":")
    if sep and head.endswith(".lark"):  # "deepseek.lark: what it is"
        description = rest.strip()
    return Header(typing=typing, value_edges=edges, description=description,
                  reasoning=reasoning, ends_reasoning=ends, anchored=anchored,
                  value_ends=block_end == "value",
                  call_shape=read_shape(options, path, lines), type_attribute=type_attribute)
