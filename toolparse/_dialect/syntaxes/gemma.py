"""`typing=gemma`: a call's arguments in Gemma 4's value notation (SPEC 5.3 d).

- Its rule: `gemma_body`, one object as `grammars/common/gemma.lark` reads it: bare
  keys, `<|"|>` strings (anything between two quote tokens), numbers, `true`, `false`,
  `null`, nested objects and arrays. The builder turns its tokens into one JSON text,
  in one pass over them (no recursion, no evaluation): a key becomes a JSON string, a
  string's pieces one JSON string, the rest is JSON as written.
- Typing: then as `typing=json` (SPEC 6): with tools, checked and repaired like an
  OpenAI arguments string; without, the values as written.
- While a body streams (SPEC 7), nothing of it is given out before it is complete: a
  piece of Gemma text is no prefix of the JSON it becomes.

A string is the one rule built on its own (`gemma_string`: its text between its two
quote tokens, a `Quoted`), so no quote token is spelled here (SPEC 5: the grammar file
holds every tag); every other token arrives as its text.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, Final

from toolparse._dialect.build import joined
from toolparse._dialect.syntaxes.base import TYPING
from toolparse._dialect.syntaxes.json import JsonBody, _Json
from toolparse._dialect.table import flat
from toolparse._dialect.value_stream import ValueStream

__all__ = ["GEMMA", "Quoted", "as_json"]

_PUNCTUATION: Final = frozenset("{}[],:")


class Quoted:
    """A Gemma string (`gemma_string`): its text between its two quote tokens."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text


def as_json(pieces: Sequence[str | Quoted]) -> str:
    """The JSON text of a Gemma value, from its tokens' texts and strings in order."""
    out: list[str] = []
    for i, piece in enumerate(pieces):
        if isinstance(piece, Quoted):
            out.append(json.dumps(piece.text, ensure_ascii=False))
        elif piece in _PUNCTUATION or piece.isspace():
            out.append(piece)
        elif i + 1 < len(pieces) and pieces[i + 1] == ":":
            out.append(json.dumps(piece, ensure_ascii=False))   # a bare key
        else:
            out.append(piece)   # a number, true, false or null: JSON as written
    return "".join(out)


def _texts(children: list[Any]) -> list[str | Quoted]:
    return [child if isinstance(child, Quoted) else joined([child])
            for child in flat(children) if child is not None]


def gemma_string(children: list[Any]) -> Quoted:
    return Quoted("".join(joined([child]) for child in flat(children[1:-1])
                          if child is not None))


def gemma_body(children: list[Any]) -> JsonBody:
    return JsonBody(as_json(_texts(children)))


class _Held(ValueStream):
    """Gives out nothing while the value arrives (see the module)."""

    __slots__ = ()

    def text(self, piece: str) -> str:
        return ""

    def cdata(self, piece: str) -> str:
        return ""

    def fast(self, piece: str) -> str | None:
        return ""

    def fast_cdata(self, piece: str) -> str | None:
        return ""


class _Gemma(_Json):
    __slots__ = ()

    def value_text(self, pieces: Sequence[Any]) -> tuple[str, bool]:
        return as_json(_texts(list(pieces))), False

    def stream(self) -> ValueStream:
        return _Held()

    def builder(self, rule: str, shape: Any) -> Any:
        return self.builders[rule]


GEMMA: Final = _Gemma("gemma", TYPING, builders={"gemma_body": gemma_body,
                                                "gemma_string": gemma_string})
