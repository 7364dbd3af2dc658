"""Where a transcript record keeps the answer text and the recorded tool calls.

A *field path* is dotted (`choices.0.message.content`): each part is a mapping key or,
on a list, an index (negative counts from the end: `messages.-1.content`). A key that
itself holds a dot cannot be named; such records need a `--field` that stops above it.

Without `--field`, the answer is the *assistant message*'s `content`, where the common
shapes keep it (docs/scan.md lists them, in the order tried here). `auto` for the
recorded calls means the `tool_calls` beside that text.

Everything here reads a record that `json.loads` (or Arrow's `to_pylist`) made; nothing
raises on content: a missing or ill-typed value is a `RecordError`, which the scanner
writes as the record's `error`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

__all__ = ["AUTO", "FieldPath", "RecordError", "RecordedCall", "answer_text", "record_id",
           "recorded_calls"]

AUTO: Final = "auto"
"""`--compare-recorded auto`: the `tool_calls` beside the answer text."""

_MISSING: Final = object()

_MESSAGE_PATHS: Final = (
    ("choices", 0, "message"),               # an OpenAI chat completion
    ("response", "choices", 0, "message"),   # a gateway log: {"request", "response"}
)
"""Where an assistant message sits in the common shapes (after the record itself and
before a `messages` list, which is searched from its end)."""


class RecordError(Exception):
    """A record the scan cannot read: written as its `error` (never fatal)."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason
        """A stable code (docs/scan.md): `no_field`, `not_text`, `bad_recorded`, ..."""
        self.message = message
        """One sentence for a person; never the record's content."""


@dataclass(frozen=True, slots=True)
class FieldPath:
    """A dotted path into a record, parsed once."""

    text: str
    """The path as written."""
    parts: tuple[str | int, ...]
    """Keys, and list indexes where a part is a whole number."""

    @classmethod
    def parse(cls, text: str) -> FieldPath:
        if not text or any(not part for part in text.split(".")):
            raise ValueError(f"a field path is dotted keys or indexes, like "
                             f"choices.0.message.content, not {text!r}")
        return cls(text, tuple(_part(part) for part in text.split(".")))

    def get(self, record: Any) -> Any:
        """The value at this path, or `_MISSING`."""
        return _lookup(record, self.parts)

    def sibling(self, key: str) -> FieldPath:
        """The path to `key` beside this path's last part (`a.content` -> `a.tool_calls`)."""
        parts = self.parts[:-1] + (key,)
        return FieldPath(".".join(str(part) for part in parts), parts)


def _part(text: str) -> str | int:
    digits = text[1:] if text.startswith("-") else text
    return int(text) if digits.isdigit() else text


def _lookup(value: Any, parts: Sequence[str | int]) -> Any:
    for part in parts:
        if isinstance(value, Mapping):
            value = value.get(str(part), _MISSING)
        elif isinstance(value, list) and isinstance(part, int) and -len(value) <= part < len(value):
            value = value[part]
        else:
            return _MISSING
        if value is _MISSING:
            return _MISSING
    return value


def assistant_message(record: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """The assistant message of a record in one of the common shapes, or None."""
    if record.get("role") == "assistant":
        return record
    for parts in _MESSAGE_PATHS:
        found = _lookup(record, parts)
        if isinstance(found, Mapping):
            return found
    messages = record.get("messages")
    if isinstance(messages, list):
        for message in reversed(messages):
            if isinstance(message, Mapping) and message.get("role") == "assistant":
                return message
    return None


def answer_text(record: Mapping[str, Any], field: FieldPath | None,
                ) -> tuple[str, Mapping[str, Any] | None]:
    """The text to parse, and the message it came from (for `auto` recorded calls)."""
    if field is None:
        message = assistant_message(record)
        if message is None:
            raise RecordError("no_field", "no assistant message (messages, choices.0.message, "
                                          "response.choices.0.message or the record itself)")
        return _as_text(message.get("content"), "the assistant message's content"), message
    value = field.get(record)
    if value is _MISSING:
        raise RecordError("no_field", f"no value at {field.text}")
    return _as_text(value, field.text), None


def _as_text(value: Any, where: str) -> str:
    """A string as it is; null as no text; a list of content parts (OpenAI's
    `[{"type": "text", "text": ...}]`) as its text parts joined."""
    if isinstance(value, str):
        text = value
    elif value is None:
        return ""
    elif isinstance(value, list) and all(_is_text_part(part) for part in value):
        text = "".join(part["text"] for part in value if isinstance(part.get("text"), str))
    else:
        raise RecordError("not_text", f"{where} is {_kind(value)}, not text")
    if not _is_unicode(text):
        raise RecordError("not_utf8", f"{where} holds a lone surrogate escape: not Unicode text")
    return text


def _is_text_part(part: Any) -> bool:
    return isinstance(part, Mapping) and (part.get("type") == "text"
                                          or isinstance(part.get("text"), str))


def _is_unicode(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _kind(value: Any) -> str:
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, Mapping):
        return "an object"
    if isinstance(value, list):
        return "a list"
    return "a " + type(value).__name__


def record_id(record: Mapping[str, Any], path: FieldPath | None) -> str | None:
    """The record's own id (a string, or a whole number as its digits), or None."""
    if path is None:
        return None
    value = path.get(record)
    if isinstance(value, str) and _is_unicode(value):
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    return None


@dataclass(frozen=True, slots=True)
class RecordedCall:
    """A tool call another system recorded (OpenAI's `tool_calls` shape)."""

    name: str
    arguments: Any
    """The arguments as JSON values (parsed from `function.arguments` when a string);
    `NOT_JSON` when that string is not JSON, which then matches no call."""


NOT_JSON: Final = object()
"""The arguments of a recorded call whose `arguments` string is not JSON."""


def recorded_calls(record: Mapping[str, Any], path: FieldPath | None, field: FieldPath | None,
                   message: Mapping[str, Any] | None) -> list[RecordedCall]:
    """The recorded calls at `path` (None: beside the answer text, for `auto`). Missing
    or null is no calls; anything but a list of calls is a `bad_recorded` error."""
    if path is not None:
        value, where = path.get(record), path.text
    elif message is not None:
        value, where = message.get("tool_calls", _MISSING), "the assistant message's tool_calls"
    elif field is not None:
        sibling = field.sibling("tool_calls")
        value, where = sibling.get(record), sibling.text
    else:
        value, where = _MISSING, "tool_calls"
    if value is _MISSING or value is None:
        return []
    if not isinstance(value, list):
        raise RecordError("bad_recorded", f"{where} is {_kind(value)}, not a list of tool calls")
    return [_recorded(item, f"{where}.{index}") for index, item in enumerate(value)]


def _recorded(item: Any, where: str) -> RecordedCall:
    if not isinstance(item, Mapping):
        raise RecordError("bad_recorded", f"{where} is {_kind(item)}, not a tool call")
    function = item.get("function", item)
    name = function.get("name") if isinstance(function, Mapping) else None
    if not isinstance(name, str) or not name or not _is_unicode(name):
        raise RecordError("bad_recorded", f"{where} has no function name")
    arguments = function.get("arguments", {}) if isinstance(function, Mapping) else {}
    return RecordedCall(name, _arguments(arguments))


def _arguments(arguments: Any) -> Any:
    """JSON values: a string is JSON text (empty: no arguments); null is none."""
    if not isinstance(arguments, str):
        return {} if arguments is None else arguments
    if not arguments.strip():
        return {}
    try:
        return json.loads(arguments)
    except (ValueError, RecursionError):
        return NOT_JSON
