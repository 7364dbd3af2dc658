"""JSON body shapes (SPEC 5.3 e): calls written as JSON objects with the name inside.

A grammar writes the shape; this module reads each call out of it. The rule is
`json_call`: one JSON value that should be one call, a rule of the `json` value syntax
(its builder is `json_call`), held by `invoke` as its only child. A grammar puts as many
as it likes in a block, so the shapes are the grammar's, not Python's:

- an array of calls: `block: OPEN LBRACKET invoke (COMMA invoke)* RBRACKET CLOSE`
  (Nemotron, Hunyuan-A13B, Cohere, Apertus);
- one call per line: `block: OPEN invoke+ CLOSE` (MiniMax-M1);
- one call alone: `block: OPEN invoke CLOSE`.

Which members of the object hold the name and the arguments is declared in the
grammar's header (`CallShape`, read by `read_shape`):

    //! toolparse: typing=json call_name=tool_name call_arguments=parameters

`call_name` lists the members that may hold the name (default `name`); `call_arguments`
those that may hold the arguments (default `arguments,parameters`); a call writes at
most one of each list. `call_ignored` lists members a call may also write that the call
does not need (Cohere's `tool_call_id`); any other member makes the value no call. `call_name=*` says the name is the object's single key and its
value the arguments (Apertus: `{"get_weather": {"city": "Paris"}}`).

An element that is not a call (not an object, no name, two names or two arguments
members, a member the shape does not declare) is still a call of its block, so its text
stays in the block and nothing after it is lost: a call with an empty name, which the
calls stage rejects (`not_a_call`, SPEC 3.1). Its arguments, when they are a JSON text
in a string, are that text; an object or anything else is written as compact JSON, and
whether it is an object is the call's status (`not_object`), as for a JSON body.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final, NamedTuple

from toolparse._dialect.build import Body, RawCall, joined
from toolparse._dialect.table import Tag, flat
from toolparse._errors import GrammarError
from toolparse._json import dumps_strict, strict_json

__all__ = ["DEFAULT_SHAPE", "CallShape", "JsonCall", "SHAPE_KEYS", "json_call", "read_shape"]

KEYED: Final = "*"
"""`call_name=*`: the name is the object's single key."""

SHAPE_KEYS: Final = ("call_name", "call_arguments", "call_ignored")
"""The header keys a grammar declares its calls' members with."""


class CallShape(NamedTuple):
    """Which members of a call's JSON object hold its name and its arguments."""

    names: tuple[str, ...] = ("name",)
    """Members that may hold the name (a call writes one)."""
    arguments: tuple[str, ...] = ("arguments", "parameters")
    """Members that may hold the arguments (a call writes at most one; none: `{}`)."""
    keyed: bool = False
    """The name is the object's single key, its value the arguments."""
    ignored: tuple[str, ...] = ()
    """Members a call may also write, which say nothing the call needs (Cohere's
    `tool_call_id`)."""


DEFAULT_SHAPE: Final = CallShape()


def read_shape(options: Mapping[str, str], path: str, lines: Mapping[str, int]) -> CallShape:
    """The shape the header's `call_name=`, `call_arguments=` and `call_ignored=`
    declare; raises GrammarError naming the file and line for an empty list."""
    found: dict[str, tuple[str, ...]] = {}
    for key in SHAPE_KEYS:
        if key not in options:
            continue
        members = tuple(m for m in options[key].split(",") if m)
        if not members or (KEYED in members and (key != "call_name" or len(members) > 1)):
            raise GrammarError(f"{key}={options[key]!r}: expected member names separated by "
                               f"commas{' or *' if key == 'call_name' else ''}", path=path,
                               line=lines.get(key))
        found[key] = members
    names = found.get("call_name", DEFAULT_SHAPE.names)
    return CallShape(names=names, arguments=found.get("call_arguments", DEFAULT_SHAPE.arguments),
                     keyed=names == (KEYED,), ignored=found.get("call_ignored", ()))


class JsonCall(Body):
    """One JSON value that should be a call (`json_call`), read by its dialect's shape."""

    __slots__ = ("shape",)

    def __init__(self, text: str, shape: CallShape) -> None:
        super().__init__(text)
        self.shape: Final = shape

    def call(self, start: int, end: int) -> RawCall:
        """The call the value is: its name and its arguments as a JSON text; an empty
        name for a value that is no call of this shape (rejected: `not_a_call`)."""
        value = strict_json(self.text)
        found = _read(value, self.shape) if isinstance(value, dict) else None
        if found is None:
            return ("", (), self.text, start, end)
        name, arguments = found
        text = arguments if isinstance(arguments, str) else dumps_strict(arguments)
        return (name, (), text if text is not None else "", start, end)


def _read(value: dict[str, Any], shape: CallShape) -> tuple[str, Any] | None:
    """(name, arguments value) of a call object, or None when it is no call."""
    if shape.keyed:
        if len(value) != 1:
            return None
        name, arguments = next(iter(value.items()))
        return (name.strip(), arguments) if name.strip() else None
    names = [key for key in shape.names if key in value]
    held = [key for key in shape.arguments if key in value]
    ignored = sum(1 for key in shape.ignored if key in value)
    if len(names) != 1 or len(held) > 1 or len(value) != len(names) + len(held) + ignored:
        return None
    written: Any = value[names[0]]   # (any JSON value: mypyc checks what `name` holds)
    if not isinstance(written, str) or not written.strip():
        return None
    return written.strip(), (value[held[0]] if held else {})


def json_call(children: list[Any], shape: CallShape) -> list[Any]:
    """`json_call`'s builder: the value's first and last tokens (its offsets, for the
    `invoke` that holds it) around the `JsonCall` it is."""
    pieces = flat(children)
    tags = [piece for piece in pieces if isinstance(piece, Tag)]
    call = JsonCall(joined(pieces).strip(), shape)
    return [tags[0], call, tags[-1]] if tags else [call]

