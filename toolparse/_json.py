"""Strict JSON, shared by every stage that reads JSON text (SPEC 3.1 and 6).

Strict means: exactly one JSON value (surrounding whitespace allowed), no `NaN` or
`Infinity`, and no object that repeats a key. A duplicate key is reported apart
(`DuplicateKey`), because repair must reject such a call rather than guess which of two
values the model meant; every other failure is `NOT_JSON`.
"""

from __future__ import annotations

import json
from typing import Any, NoReturn

__all__ = ["NOT_JSON", "DuplicateKey", "loads_strict", "strict_json"]


class _NotJson:
    __slots__ = ()

    def __repr__(self) -> str:
        return "NOT_JSON"


NOT_JSON: Any = _NotJson()
"""Returned for text that is not exactly one strict JSON value."""


class DuplicateKey(Exception):
    """The text is JSON except that an object repeats a key."""


class _NonJsonConstant(Exception):
    pass


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result = dict(pairs)
    if len(result) != len(pairs):
        raise DuplicateKey
    return result


def _no_constant(name: str) -> NoReturn:
    raise _NonJsonConstant(name)


def loads_strict(text: str, *, control_characters: bool = False) -> Any:
    """The JSON value `text` is exactly, else NOT_JSON; raises `DuplicateKey` for an
    object that repeats a key. `control_characters` lets strings hold raw control
    characters (a literal newline), which strict JSON forbids."""
    try:
        return json.loads(text, strict=not control_characters,
                          object_pairs_hook=_no_duplicates, parse_constant=_no_constant)
    except (_NonJsonConstant, ValueError, RecursionError):
        return NOT_JSON


def strict_json(text: str) -> Any:
    """The JSON value `text` is exactly, else NOT_JSON (a duplicate key included)."""
    try:
        return loads_strict(text)
    except DuplicateKey:
        return NOT_JSON
