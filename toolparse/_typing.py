"""Typing parameter values (SPEC section 3, "Typing"; section 6 with a schema).

A parameter value arrives as text. Without a schema, SPEC 3 decides its type from the
text alone and from how it was written (a `string` attribute, a value that is exactly
one CDATA section). JSON here is strict: no NaN or Infinity, no duplicate keys.
"""

from __future__ import annotations

import json
from typing import Any

__all__ = ["strict_json", "type_value", "NOT_JSON"]


class _NotJson:
    __slots__ = ()

    def __repr__(self) -> str:
        return "NOT_JSON"


NOT_JSON: Any = _NotJson()
"""Returned by `strict_json` for text that is not exactly one JSON value."""


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result = dict(pairs)
    if len(result) != len(pairs):
        raise ValueError("duplicate key")
    return result


def strict_json(text: str) -> Any:
    """The JSON value `text` is exactly (surrounding whitespace allowed), else NOT_JSON."""
    try:
        return json.loads(text, parse_constant=_reject_constant,
                          object_pairs_hook=_no_duplicates)
    except (ValueError, RecursionError):
        return NOT_JSON


def type_value(text: str, *, string_attr: bool | None, cdata_only: bool) -> tuple[Any, bool]:
    """Type one value as SPEC 3 says; returns (value, json_error).

    `string_attr` is the parameter's `string="true|false"` attribute (None when absent);
    `cdata_only` says the value was written as exactly one CDATA section. `json_error`
    is True when `string="false"` promised JSON and the text is not JSON: the value is
    then the text, flagged for repair.
    """
    if string_attr:
        return text, False
    if string_attr is False:
        value = strict_json(text)
        return (text, True) if value is NOT_JSON else (value, False)
    if cdata_only:
        return text, False
    value = strict_json(text)
    if value is NOT_JSON or isinstance(value, str):
        # A quoted JSON string stays as written, quotes included.
        return text, False
    return value, False
