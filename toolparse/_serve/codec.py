"""JSON on the wire, both ways: whatever the proxy decodes, it can encode again.

`loads` reads with orjson (about a microsecond a chunk) and, for what orjson refuses,
with the standard module: a lone surrogate escape (`"\\ud83d"`: half of a UTF-16 pair,
as an `ensure_ascii` encoder writes an emoji that a tokenizer split across two chunks),
`NaN` and `Infinity`, a number past a double's range. Nesting is read to
`MAX_DEPTH` levels (orjson's limit); deeper text raises `TooDeep`, a `ValueError`
like any other text that is not read, never a `RecursionError`.

`dumps` writes with orjson and, for what orjson will not write, with `_dumps_any`, an
iterative encoder with no depth limit (orjson stops at 254 levels, the standard
module at the interpreter's recursion limit). Decisions, the same on both paths:
- a lone surrogate is kept, written as the `\\uXXXX` escape it came as: the text the
  upstream sent, unchanged. A client that joins the two halves of a split emoji gets
  the emoji back (JavaScript strings are UTF-16; Python's `json` joins an escaped
  pair), and two halves that reach the proxy in one read are one string here, written
  as a valid pair. U+FFFD instead would lose the emoji exactly where it can be saved;
- a float that is not finite (from `NaN`, `Infinity` or `1e999` in the upstream's
  text) is `null`, as orjson writes it: the output stays RFC 8259 JSON (SPEC G11).

Cost: one orjson call on the common path; the fallbacks only for the rare value
that needs them, linear in its size.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any, Final

import orjson

__all__ = ["MAX_DEPTH", "TooDeep", "dumps", "loads"]

MAX_DEPTH: Final = 1024
"""The deepest nesting `loads` reads: orjson's limit, and checked on what the standard
module reads (which may stop sooner, at the interpreter's recursion limit)."""

_SURROGATE: Final = re.compile("[\ud800-\udfff]")


class TooDeep(ValueError):
    """JSON text nested deeper than the decoder reads."""


def loads(data: bytes | str) -> Any:
    """JSON text to a value. Raises ValueError for text that is not JSON, and its
    subclass `TooDeep` for text nested deeper than `MAX_DEPTH`."""
    try:
        return orjson.loads(data)
    except orjson.JSONDecodeError as error:
        if "depth limit" in error.msg:     # no need to recurse that deep again
            raise TooDeep(f"nested deeper than {MAX_DEPTH} levels") from None
    try:
        value = json.loads(data)
    except RecursionError:
        raise TooDeep(f"nested deeper than {MAX_DEPTH} levels") from None
    if _deeper_than(value, MAX_DEPTH):       # the same limit, whatever the recursion limit
        raise TooDeep(f"nested deeper than {MAX_DEPTH} levels")
    return value


def _deeper_than(value: Any, limit: int) -> bool:
    """Whether `value` nests more than `limit` arrays and objects (iterative)."""
    if not isinstance(value, (dict, list)):
        return False
    stack: list[tuple[dict[str, Any] | list[Any], int]] = [(value, 1)]
    while stack:
        node, depth = stack.pop()
        if depth > limit:
            return True
        children = node.values() if isinstance(node, dict) else node
        stack.extend((child, depth + 1) for child in children
                     if isinstance(child, (dict, list)))
    return False


def dumps(value: Any) -> bytes:
    """`value` as compact JSON (UTF-8). TypeError only for a value no JSON decoder
    made (an object of another type)."""
    try:
        return orjson.dumps(value)
    except TypeError:
        return _dumps_any(value)


class _Text(str):
    """Punctuation on `_dumps_any`'s stack, written as it is."""


_CLOSE_OBJECT: Final = _Text("}")
_CLOSE_ARRAY: Final = _Text("]")


def _dumps_any(value: Any) -> bytes:
    """`dumps` without orjson's limits: iterative, so any depth; lone surrogates as
    escapes; integers of any size; non-finite floats as null."""
    out: list[str] = []
    stack: list[Any] = [value]
    while stack:
        item = stack.pop()
        if type(item) is _Text:
            out.append(item)
        elif isinstance(item, str):
            out.append(_string(item))
        elif item is None or item is True or item is False:
            out.append("null" if item is None else "true" if item else "false")
        elif isinstance(item, int):
            out.append(int.__repr__(item))
        elif isinstance(item, float):
            out.append(float.__repr__(item) if math.isfinite(item) else "null")
        elif isinstance(item, dict):
            out.append("{")
            stack.append(_CLOSE_OBJECT)
            entries = list(item.items())
            for index in range(len(entries) - 1, -1, -1):
                key, child = entries[index]
                if not isinstance(key, str):
                    raise TypeError(f"a JSON object's key is a string, not {type(key).__name__}")
                stack.append(child)
                stack.append(_Text(("," if index else "") + _string(key) + ":"))
        elif isinstance(item, (list, tuple)):
            out.append("[")
            stack.append(_CLOSE_ARRAY)
            for index in range(len(item) - 1, -1, -1):
                stack.append(item[index])
                if index:
                    stack.append(_Text(","))
        else:
            raise TypeError(f"{type(item).__name__} is not a JSON value")
    return "".join(out).encode()


def _string(text: str) -> str:
    literal = json.dumps(text, ensure_ascii=False)
    if _SURROGATE.search(literal) is None:
        return literal
    return _SURROGATE.sub(lambda found: f"\\u{ord(found.group()):04x}", literal)
