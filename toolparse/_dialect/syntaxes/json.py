"""`typing=json`: a call's arguments are one JSON text (Hermes, Kimi-K2; SPEC 3.1, 5.1).

- Its rule: `json_body`, the arguments as written, surrounding whitespace aside; never
  refused when built (whether it is JSON, and an object, is the call's status, decided
  with the tool's schema when there is one). A call whose tags give no name takes it
  from the body's `name` member (Hermes), its arguments from the `arguments` or
  `parameters` member (an object, or a JSON text in a string).
- Typing: the text types itself, exactly like OpenAI's `function.arguments`: without
  tools one valid object is the arguments, anything else rejects the call; with tools it
  is repaired like an OpenAI arguments string. A JSON value is never re-typed by the
  schema, and nothing is guessed; a parameter, if the grammar has one, is its text.
- While a body streams (as written), whitespace at the end of the text so far waits.

- Its other rule: `json_call`, a whole call written as one JSON value, its members
  declared in the grammar's header (`json_calls.py`: arrays of calls, JSON lines, the
  name as the single key; SPEC 5.3 e).

The rule is built wherever a grammar writes it: the deepseek family's invoke may hold a
JSON body too, under its own typing.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial
from typing import Any, Final

from toolparse._dialect.build import BlockRejected, Body, RawCall, joined
from toolparse._dialect.syntaxes.base import TYPING, Builder, ValueSyntax
from toolparse._dialect.syntaxes.json_calls import DEFAULT_SHAPE, json_call
from toolparse._dialect.table import flat
from toolparse._dialect.value_stream import ValueStream
from toolparse._json import NOT_JSON, dumps_strict, strict_json

__all__ = ["JSON", "JsonBody", "JsonStream"]


NAME_MEMBER: Final = "name"
"""The member of a whole-call JSON object (Hermes) that holds the call's name."""
ARGUMENTS_MEMBERS: Final = ("arguments", "parameters")
"""The members that may hold its arguments; the first is the one a generator writes."""
ARGUMENTS_MEMBER: Final = ARGUMENTS_MEMBERS[0]


class JsonBody(Body):
    """A JSON body (`json_body`): a call's arguments, or a whole call (Hermes)."""

    __slots__ = ()

    def call(self, start: int, end: int) -> RawCall:
        """A call written as one JSON object with its name inside (Hermes): the `name`
        member is the name, the `arguments` (or `parameters`) member the arguments."""
        value = strict_json(self.text)
        if value is NOT_JSON or not isinstance(value, dict):
            raise BlockRejected("invalid_call", "the call is not one JSON object")
        name = value.get(NAME_MEMBER)
        if not isinstance(name, str) or not name.strip():
            raise BlockRejected("invalid_name", "the call's JSON has no name")
        keys = [key for key in ARGUMENTS_MEMBERS if key in value]
        if len(keys) > 1 or set(value) - {NAME_MEMBER, *ARGUMENTS_MEMBERS}:
            raise BlockRejected("invalid_call", "the call's JSON has other members than a "
                                "name and its arguments")
        arguments = value[keys[0]] if keys else {}
        if isinstance(arguments, str):  # some models write the arguments as a JSON string
            text_args: str | None = arguments
        else:
            text_args = dumps_strict(arguments)
        return (name.strip(), (), text_args if text_args is not None else "", start, end)


def json_body(children: list[Any]) -> JsonBody:
    return JsonBody(joined(flat(children)).strip())


class JsonStream(ValueStream):
    """The certain prefix of a JSON body: all but its blank end so far."""

    __slots__ = ("pending",)

    def __init__(self) -> None:
        self.pending = ""
        """The end of the text so far, not given out yet (whitespace)."""

    def text(self, piece: str) -> str:
        pending = self.pending
        if pending:
            piece = pending + piece
            self.pending = ""
        if piece[-1:].isspace():
            out = piece.rstrip()
            self.pending = piece[len(out):]
            return out
        return piece

    # Every piece of a JSON body is read the same way, at the cost of the common case.
    def cdata(self, piece: str) -> str:
        return self.text(piece)

    def fast(self, piece: str) -> str | None:
        return self.text(piece)

    def fast_cdata(self, piece: str) -> str | None:
        return self.text(piece)


class _Json(ValueSyntax):
    __slots__ = ()

    def value_text(self, pieces: Sequence[Any]) -> tuple[str, bool]:
        return joined(pieces).strip(), False

    def stream(self) -> ValueStream:
        return JsonStream()

    def builder(self, rule: str, shape: Any) -> Builder:
        if rule == "json_call":   # a whole call, read by the dialect's declared shape
            return partial(json_call, shape=shape)
        return self.builders[rule]


JSON: Final = _Json("json", TYPING, builders={"json_body": json_body,
                                              "json_call": partial(json_call, shape=DEFAULT_SHAPE)})
