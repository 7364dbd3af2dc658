"""From parsed markup to calls: the Lark Transformer of a tool-call block.

Lark runs these methods inline, at each reduction inside `feed_token`, so a block's
calls are built while it streams and are ready the moment its wrapper closes. One
method per grammar rule; Lark `Tree`/`Token` objects never leave this module.

A method raises `BlockRejected` when the markup parses but breaks a rule the grammar
cannot state (an invoke without a name, a JSON body that is not an object, a repeated
attribute): the engine then fails the block at the token being fed, as for a syntax
error (SPEC G4).

Values follow SPEC section 3: text runs are entity-decoded once, CDATA is verbatim;
one newline after the opening tag and one newline plus indentation before the closing
tag are removed when they fall in text; a value with no newline left that is not
exactly one CDATA section is trimmed. Typing happens later (`_typing`), because it may
depend on the tool's schema.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from lark import Token, Transformer, v_args

from toolparse._dialect.values import Cdata, decode_entities, value_text

__all__ = ["BlockRejected", "BlockTransformer", "RawCall", "RawParam"]


class BlockRejected(Exception):
    """The block parsed but is not a valid block: `reason` is the failure's stable code
    (`invalid_name`, `repeated_attribute`); the message says why, for debugging."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason


@dataclass(frozen=True, slots=True)
class RawParam:
    """A parameter as written: its name and value text, before typing."""

    name: str
    text: str
    string_attr: bool | None
    """The `string` attribute: True, False, or None when absent (or not true/false)."""
    cdata_only: bool
    """The value was written as exactly one CDATA section."""


@dataclass(frozen=True, slots=True)
class RawCall:
    """An invoke as written: name, parameters (or a JSON body), and its offsets."""

    name: str
    params: tuple[RawParam, ...]
    json_text: str | None
    """A JSON body as written (surrounding whitespace aside): the call's arguments text,
    like OpenAI's `function.arguments` (SPEC 3.1); None for a parameter body."""
    start: int
    end: int


@dataclass(frozen=True, slots=True)
class _JsonBody:
    text: str


_COMMENT = object()

class BlockTransformer(Transformer[Token, Any]):
    """Builds `RawCall`s from the rules of a tool-call grammar."""

    attribute_pattern: re.Pattern[str]
    """The dialect's ATTRIBUTE terminal; set by the dialect loader."""

    def _attributes(self, tag: Token) -> dict[str, str]:
        found: dict[str, str] = {}
        for m in self.attribute_pattern.finditer(tag):
            key = m.group(1)
            if key in found:
                raise BlockRejected("repeated_attribute", f"attribute {key!r} repeated in a tag")
            value = next((g for g in m.groups()[1:] if g is not None), "")
            found[key] = decode_entities(value).strip()
        return found

    def _name(self, tag: Token) -> tuple[str, dict[str, str]]:
        attrs = self._attributes(tag)
        name = attrs.get("name", "")
        if not name:
            raise BlockRejected("invalid_name", "a tag has no name attribute")
        return name, attrs

    def check_call_tag(self, tag: str) -> None:
        """Refuse a call's opening tag that has no name (or repeats an attribute) as it
        arrives, before the parser accepts it: a nameless invoke is no call started."""
        self._name(tag)  # type: ignore[arg-type]  # reads the text only

    @v_args(inline=True)
    def block(self, _open: Token, *items: Any) -> tuple[RawCall, ...]:
        return tuple(item for item in items[:-1] if isinstance(item, RawCall))

    @v_args(inline=True)
    def orphan_block(self, *items: Any) -> tuple[RawCall, ...]:
        return tuple(item for item in items[:-1] if isinstance(item, RawCall))

    @v_args(inline=True)
    def invoke(self, open_tag: Token, *rest: Any) -> RawCall:
        name, _ = self._name(open_tag)
        if not rest:  # self-closing
            return RawCall(name, (), None, _start(open_tag), _end(open_tag))
        body, close_tag = rest[:-1], rest[-1]
        if len(body) == 1 and isinstance(body[0], _JsonBody):
            return RawCall(name, (), body[0].text, _start(open_tag), _end(close_tag))
        params = tuple(item for item in body if isinstance(item, RawParam))
        return RawCall(name, params, None, _start(open_tag), _end(close_tag))

    @v_args(inline=True)
    def json_body(self, *pieces: Token) -> _JsonBody:
        # Never refused here: whether it is JSON, and an object, is the call's status
        # (SPEC 3.1), decided with the tool's schema when there is one.
        return _JsonBody("".join(pieces).strip())

    @v_args(inline=True)
    def param(self, open_tag: Token, *rest: Any) -> RawParam:
        name, attrs = self._name(open_tag)
        string = attrs.get("string", "").lower()
        string_attr = True if string == "true" else False if string == "false" else None
        text, cdata_only = value_text(rest[:-1])
        return RawParam(name, text, string_attr, cdata_only)

    @v_args(inline=True)
    def cdata(self, _open: Token, *rest: Any) -> Cdata:
        return Cdata("".join(rest[:-1]))

    @v_args(inline=True)
    def nested_cdata(self, open_marker: Token, *rest: Any) -> str:
        # Inside an outer section, a nested one is content, markers included.
        return open_marker + "".join(rest)

    def comment(self, _children: list[Any]) -> object:
        return _COMMENT

    @v_args(inline=True)
    def attribute(self, token: Token) -> Token:
        return token


def _start(token: Token) -> int:
    return token.start_pos if token.start_pos is not None else 0


def _end(token: Token) -> int:
    return token.end_pos if token.end_pos is not None else 0
