"""Strict JSON, shared by every stage that reads JSON text (SPEC 3.1 and 6).

Strict means: exactly one JSON value (surrounding whitespace allowed), no `NaN` or
`Infinity`, no number too large for a float (`1e999` would become `inf`, which no JSON
text can carry back out: G11), no object that repeats a key, and no nesting deeper than
`MAX_JSON_DEPTH` arrays and objects. A duplicate key and too deep a nesting are reported
apart (`DuplicateKey`, `TooDeep`), because repair must reject such a call with its own
reason rather than call it not JSON; every other failure is `NOT_JSON`.

Cost: linear in the length of the text. The depth check costs two `str.count` calls,
and a string-aware scan only when the text holds more brackets than the limit; Python's
parser itself recurses, so the limit is checked before it runs and never left to a
`RecursionError` that would depend on how deep the caller's stack already is.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any, Final, NoReturn

__all__ = ["MAX_JSON_DEPTH", "NOT_JSON", "DuplicateKey", "TooDeep", "dumps_strict",
           "json_depth_exceeds", "loads_strict", "strict_json"]

MAX_JSON_DEPTH = 64
"""Deepest nesting of arrays and objects read as JSON (the outermost counts 1)."""


class _NotJson:
    __slots__ = ()

    def __repr__(self) -> str:
        return "NOT_JSON"


NOT_JSON: Any = _NotJson()
"""Returned for text that is not exactly one strict JSON value."""


class DuplicateKey(Exception):
    """The text is JSON except that an object repeats a key."""


class TooDeep(Exception):
    """The text nests arrays and objects deeper than `MAX_JSON_DEPTH`."""


class _NonJsonConstant(Exception):
    pass


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result = dict(pairs)
    if len(result) != len(pairs):
        raise DuplicateKey
    return result


def _no_constant(name: str) -> NoReturn:
    raise _NonJsonConstant(name)


def _finite_float(text: str) -> float:
    value = float(text)
    if math.isinf(value):
        raise _NonJsonConstant(text)   # `1e999`: not a finite number (SPEC 3.1)
    return value


_BRACKET = re.compile(r"[\[\]{}]")


def json_depth_exceeds(text: str, limit: int = MAX_JSON_DEPTH) -> bool:
    """Whether `text` opens more than `limit` arrays/objects inside one another, outside
    double-quoted strings. Linear; the common case is two `str.count` calls, and the
    next commonest (brackets in strings: code sent to a tool) the same after the strings
    are taken out at C speed."""
    if text.count("[") + text.count("{") <= limit:
        return False
    structure = _outside_strings(text)
    if structure.count("[") + structure.count("{") <= limit:
        return False
    depth = 0
    for token in _BRACKET.findall(structure):
        if token in ("[", "{"):
            depth += 1
            if depth > limit:
                return True
        else:
            depth = max(depth - 1, 0)
    return False


def _outside_strings(text: str) -> str:
    """`text` without its double-quoted strings (one running to the end of the text
    when it never closes), at C speed: escaped backslashes and escaped quotes go first,
    then every other piece between quotes is a string. (Where a backslash stands
    outside a string, the text is no JSON from there on, and no decoder reads further.)"""
    return "".join(text.replace("\\\\", "").replace('\\"', "").split('"')[::2])


def loads_strict(text: str, *, control_characters: bool = False) -> Any:
    """The JSON value `text` is exactly, else NOT_JSON; raises `DuplicateKey` for an
    object that repeats a key and `TooDeep` for nesting beyond `MAX_JSON_DEPTH`.
    `control_characters` lets strings hold raw control characters (a literal newline),
    which strict JSON forbids. The value never holds NaN or an infinity."""
    first = text[:1]
    if first.isdigit() and len(text) <= 64 and text.isascii() and text.isdigit() \
            and (first != "0" or len(text) == 1):
        return int(text)   # the commonest value, a plain integer, without the decoder
    if text in _CONSTANTS:
        return _CONSTANTS[text]   # the next commonest, as written
    if first not in _VALUE_STARTS:
        first = text.lstrip(" \t\n\r")[:1]
        if not first or first not in _VALUE_STARTS:
            return NOT_JSON   # no JSON value starts so (a path, a word)
    if json_depth_exceeds(text):
        raise TooDeep
    try:
        return _DECODERS[control_characters].decode(text)
    except (_NonJsonConstant, ValueError, RecursionError):
        # ValueError also covers an integer of more digits than Python converts.
        return NOT_JSON


def strict_json(text: str) -> Any:
    """The JSON value `text` is exactly, else NOT_JSON (a duplicate key and too deep a
    nesting included)."""
    try:
        return loads_strict(text)
    except (DuplicateKey, TooDeep):
        return NOT_JSON


def dumps_strict(value: Any) -> str | None:
    """`value` as compact standard JSON (RFC 8259: no NaN or Infinity), or None when it
    cannot be written so (a non-finite float, a non-JSON type, an integer too long to
    print, nesting Python's encoder cannot follow)."""
    try:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    except (TypeError, ValueError, RecursionError):
        return None


_CONSTANTS: Final[dict[str, Any]] = {"true": True, "false": False, "null": None}
"""The literal names, each exactly as JSON writes it."""

_VALUE_STARTS: Final = frozenset('{["-0123456789tfn')
"""The characters a JSON value can start with (after whitespace)."""

_DECODERS: Final = {
    lenient: json.JSONDecoder(strict=not lenient, object_pairs_hook=_no_duplicates,
                              parse_constant=_no_constant, parse_float=_finite_float)
    for lenient in (False, True)}
"""`loads_strict`'s decoders, made once (`json.loads` with options builds one per call)."""
