"""`typing=pythonic`: calls written as Python, `name(key=value, ...)` (SPEC 5.3 c).

The grammar decides what a call is (`grammars/common/python.lark`): the LALR parser
steps its tokens as the text arrives, and the builders here turn what each `py_*` rule
reduces into JSON. Nothing is evaluated, and nothing is parsed twice: a string's pieces
are decoded once, a number's text rewritten once, and a collection holds the values its
children built, so a value of any size costs time linear in its text.

- `py_string`: a string in either quote, its escapes decoded (an escape Python does
  not know, `\\,`, stays the two characters, as Python reads it).
- `py_scalar`: a number (underscores dropped, a sign, leading zeros and a bare point
  rewritten the way JSON writes it), `True`/`False`/`None` (and JSON's own names).
- `py_list`, `py_tuple`, `py_set`: a JSON array; `py_paren`: the value inside;
  `py_dict`, `py_pair`: a JSON object.
- `py_keyword`: one argument; `py_arguments`: the call's arguments, a JSON object
  (`PythonicArguments`, a `Body`: the `invoke` that holds it gives the call its name).
- `py_positional` and `py_not_literal`: refuse the call (`BlockRejected`, reason
  `not_literal`): the block fails there, as its exact text (SPEC G4).

A built value is a tuple `(kind, payload)`, never a list (a list is what an inlined
rule's children are spliced from): `(TEXT, json_text)` for a scalar or a string,
`(ARRAY, values)`, `(OBJECT, ((key_json, value), ...))`. The arguments are written out
with an explicit stack, so a value nested 10,000 deep gives its text, never a
`RecursionError`; typing then reads that text exactly as a `typing=json` body (SPEC 6):
without tools one valid JSON object is the arguments, with tools it is checked and
repaired like an OpenAI arguments string (a number too large for a float, `1e999`, is
no JSON: `invalid_json`, SPEC G11).
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any, Final

from toolparse._dialect.build import BlockRejected, Body, joined
from toolparse._dialect.syntaxes.base import TYPING, ValueSyntax
from toolparse._dialect.syntaxes.json import JsonStream
from toolparse._dialect.table import Tag, flat
from toolparse._dialect.value_stream import ValueStream

__all__ = ["PYTHONIC", "PythonicArguments", "arguments_json"]

TEXT: Final = 0
ARRAY: Final = 1
OBJECT: Final = 2
PAIR: Final = 3
"""The kinds of a built value: `(TEXT, json_text)`, `(ARRAY, values)`, `(OBJECT,
pairs)`; and a dict's or a call's member before it joins its object, `(PAIR,
key_json, value)`."""

_SIMPLE_ESCAPES: Final = {"\\": "\\", "'": "'", '"': '"', "a": "\a", "b": "\b", "f": "\f",
                          "n": "\n", "r": "\r", "t": "\t", "v": "\v", "\n": ""}
"""Python's one-character escapes (a backslash before a newline continues the line)."""

_NAMES: Final = {"True": "true", "False": "false", "None": "null",
                 "true": "true", "false": "false", "null": "null"}
# (A raw pattern: `re` reads the escapes, since mypyc takes no surrogate in a literal.)
_SURROGATE: Final = re.compile(r"[\ud800-\udfff]")


class PythonicArguments(Body):
    """A call's keyword arguments as one JSON object text (`py_arguments`)."""

    __slots__ = ()


_ESCAPE: Final = re.compile(r"\\(x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|.)", re.S)
"""An escape, as python.lark reads one (which decided that each is well formed)."""


def _escape(m: re.Match[str]) -> str:
    """The character(s) an escape stands for."""
    code = m.group(1)
    simple = _SIMPLE_ESCAPES.get(code)
    if simple is not None:
        return simple
    if len(code) > 1:     # `\x41`, `\u00e9`, `\U0001F600`
        return chr(int(code[1:], 16))
    if "0" <= code <= "7":   # `\0`: one octal digit (python.lark reads no longer one)
        return chr(ord(code) - ord("0"))
    return m.group(0)     # an escape Python does not know (`\9`, `\٣`): the two characters


def _json_string(text: str) -> str:
    if _SURROGATE.search(text) is not None:
        return json.dumps(text)   # a lone surrogate only escaped is standard JSON
    return json.dumps(text, ensure_ascii=False)


def py_string(children: list[Any]) -> tuple[int, str]:
    # The pieces are the string's text as written, cut anywhere (a row of text runs and
    # escapes can be one piece): the escapes are decoded in the joined text.
    text = "".join(piece for piece in flat(children) if not isinstance(piece, Tag))
    if "\\" in text:
        text = _ESCAPE.sub(_escape, text)
    return (TEXT, _json_string(text))


def _number(text: str) -> str:
    """A Python number's text as JSON writes it: `+`, `_` and leading zeros dropped,
    a bare point given its zero (`5.` is `5.0`, `.5` is `0.5`)."""
    text = text.replace("_", "")
    sign = "-" if text[0] == "-" else ""
    text = text.lstrip("+-")
    mantissa, e, exponent = text.partition("e") if "e" in text else text.partition("E")
    whole, point, fraction = mantissa.partition(".")
    whole = whole.lstrip("0") or "0"
    if point:
        fraction = fraction or "0"
    return f"{sign}{whole}{point}{fraction}{'e' if e else ''}{exponent}"


def py_scalar(children: list[Any]) -> tuple[int, str]:
    token = flat(children)[0]
    text = token.text if isinstance(token, Tag) else str(token)
    name = _NAMES.get(text)
    return (TEXT, name if name is not None else _number(text))


def _values(children: list[Any]) -> tuple[Any, ...]:
    """The values a collection's children built (its brackets and commas left out)."""
    return tuple(child for child in flat(children) if type(child) is tuple)


def py_list(children: list[Any]) -> tuple[int, tuple[Any, ...]]:
    return (ARRAY, _values(children))


def py_paren(children: list[Any]) -> Any:
    return _values(children)[0]


def py_pair(children: list[Any]) -> tuple[int, str, Any]:
    key, value = _values(children)
    return (PAIR, key[1], value)


def py_dict(children: list[Any]) -> tuple[int, tuple[Any, ...]]:
    return (OBJECT, tuple((pair[1], pair[2]) for pair in _values(children)))


def py_keyword(children: list[Any]) -> tuple[int, str, Any]:
    pieces = flat(children)
    head = pieces[0]
    key = head.text.rstrip(" \t=") if isinstance(head, Tag) else str(head).rstrip(" \t=")
    return (PAIR, _json_string(key), _values(pieces)[0])


def py_arguments(children: list[Any]) -> PythonicArguments:
    pairs = tuple((pair[1], pair[2]) for pair in _values(children))
    return PythonicArguments(arguments_json((OBJECT, pairs)))


def not_literal(children: list[Any]) -> Any:
    what = joined(flat(children))
    raise BlockRejected("not_literal", f"{what!r} is no Python literal: the call is refused")


def positional(children: list[Any]) -> Any:
    raise BlockRejected("not_literal", "a positional argument: the call is refused")


def arguments_json(value: Any) -> str:
    """A built value as JSON text, written with a stack (no recursion), separated as
    Python's `json.dumps` separates (`", "`, `": "`)."""
    out: list[str] = []
    todo: list[Any] = [value]
    while todo:
        item = todo.pop()
        if type(item) is str:
            out.append(item)
            continue
        kind, payload = item
        if kind == TEXT:
            out.append(payload)
        elif kind == ARRAY:
            out.append("[")
            todo.append("]")
            for i in range(len(payload) - 1, -1, -1):
                todo.append(payload[i])
                if i:
                    todo.append(", ")
        else:
            out.append("{")
            todo.append("}")
            for i in range(len(payload) - 1, -1, -1):
                key, member = payload[i]
                todo.append(member)
                todo.append(f"{key}: ")
                if i:
                    todo.append(", ")
    return "".join(out)


class _Pythonic(ValueSyntax):
    __slots__ = ()

    def value_text(self, pieces: Sequence[Any]) -> tuple[str, bool]:
        return joined(pieces).strip(), False

    def stream(self) -> ValueStream:
        return JsonStream()


PYTHONIC: Final = _Pythonic("pythonic", TYPING, builders={
    "py_string": py_string, "py_scalar": py_scalar, "py_list": py_list, "py_tuple": py_list,
    "py_set": py_list, "py_paren": py_paren, "py_dict": py_dict, "py_pair": py_pair,
    "py_keyword": py_keyword, "py_arguments": py_arguments,
    "py_positional": positional, "py_not_literal": not_literal})
"""The row: calls written as Python; their arguments typed as a JSON body (SPEC 6)."""
