"""The pieces of a parameter value, and the edges the `xml` and `trim` syntaxes share.

A value arrives as text tokens (`str`) and CDATA sections (`Cdata`). How a dialect's
values read is its value syntax (`syntaxes/`, named by the header's `value_edges=`);
this module holds what several rows use:

- `decode_entities`: the five XML entities and numeric references, once (SPEC 3.1);
- `as_written`: the pieces joined, CDATA as its text (`none`, `newline`, `json`);
- `edged_text`: SPEC 3.1's edges (`xml`, and `trim` without entities): one newline
  after the opening tag and one newline plus indentation before the closing tag are
  removed when they fall in text; a value with no newline left that is not exactly one
  CDATA section is trimmed; CDATA is verbatim.

Typing the value (string, number, JSON) is a later stage's (`toolparse._calls`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any, Final

__all__ = ["Cdata", "as_is", "as_written", "decode_entities", "drop_first_newline", "edged_text"]


class Cdata:
    """A CDATA section's text, verbatim. (A plain class: one is made per section; see
    the records of `build.py`.)"""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text: Final = text

    def __repr__(self) -> str:
        return f"Cdata({self.text!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Cdata) and other.text == self.text

    def __hash__(self) -> int:
        return hash(self.text)


# Numeric references: at most 7 decimal or 6 hexadecimal digits, as many as the largest
# code point (U+10FFFF) needs; a longer one is no reference and stays as written (SPEC 3.1).
_ENTITY: Final = re.compile(r"&(?:(lt|gt|amp|quot|apos)|#([0-9]{1,7})|#[xX]([0-9A-Fa-f]{1,6}));")
_NAMED: Final = {"lt": "<", "gt": ">", "amp": "&", "quot": '"', "apos": "'"}


def _entity(m: re.Match[str]) -> str:
    named, decimal, hexadecimal = m.groups()
    if named:
        return _NAMED[named]
    code = int(decimal) if decimal else int(hexadecimal, 16)
    if code == 0 or code > 0x10FFFF or 0xD800 <= code <= 0xDFFF:
        return m.group(0)  # not a character XML allows: stays as written
    return chr(code)


def decode_entities(text: str) -> str:
    """Decode the five XML entities and numeric references, once (SPEC 3.1)."""
    return _ENTITY.sub(_entity, text) if "&" in text else text


_TEXT_ONLY: Final = frozenset({str})
"""The types of the pieces of a value without CDATA."""

_TRAILING_NEWLINE: Final = re.compile(r"\r?\n[ \t]*\Z")

Part = str | Cdata


def edged_text(pieces: Sequence[Any], decode: Callable[[str], str]) -> tuple[str, bool]:
    """A value read by SPEC 3.1's edges from its text tokens and CDATA sections, its
    text runs read by `decode` (`decode_entities`, or `as_is`); returns the text and
    whether it was written as exactly one CDATA section. Linear in the value: each
    piece is joined once."""
    if len(pieces) == 1 and type(pieces[0]) is Cdata:  # the common shape, verbatim
        return pieces[0].text, True
    if len(pieces) == 1 and type(pieces[0]) is str:
        return _plain_value(pieces[0], decode), False
    if {*map(type, pieces)} <= _TEXT_ONLY:   # (a value streamed as it arrived has a
        return _plain_value("".join(pieces), decode), False   # piece per chunk)
    parts = _runs(pieces)
    if not parts:
        return "", False
    _strip_edges(parts)
    parts = [p for p in parts if not (isinstance(p, str) and p == "")]
    if not _has_newline(parts) and not _exactly_cdata(parts):
        # Trim the text at the value's edges; CDATA content stays verbatim.
        if parts and isinstance(parts[0], str):
            parts[0] = parts[0].lstrip()
        if parts and isinstance(parts[-1], str):
            parts[-1] = parts[-1].rstrip()
        parts = [p for p in parts if not (isinstance(p, str) and p == "")]
    text = "".join(p.text if isinstance(p, Cdata) else decode(p) for p in parts)
    return text, _exactly_cdata(parts)


def as_is(text: str) -> str:
    """A text run as written (`trim`: no entities)."""
    return text


def as_written(pieces: Sequence[Any]) -> str:
    """The pieces joined as written, a CDATA section as its text."""
    return "".join(p.text if isinstance(p, Cdata) else str(p) for p in pieces)


def _plain_value(text: str, decode: Callable[[str], str]) -> str:
    """`edged_text` for a value with no CDATA: one text run (the common case)."""
    text = drop_first_newline(text)
    if "\n" in text or "\r" in text:
        stripped = text.rstrip(" \t")
        if stripped.endswith("\n"):
            text = stripped[:-2] if stripped.endswith("\r\n") else stripped[:-1]
    if "\n" not in text and "\r" not in text:
        text = text.strip()
    return decode(text) if "&" in text else text


def drop_first_newline(text: str) -> str:
    """The text less one newline (`\\n` or `\\r\\n`) at its very start."""
    if text.startswith("\n"):
        return text[1:]
    return text[2:] if text.startswith("\r\n") else text


def _runs(pieces: Sequence[Any]) -> list[Part]:
    """Adjacent text tokens joined into one run (runs are cut at chunk ends, and `<`
    comes alone), CDATA sections between them."""
    parts: list[Part] = []
    pending: list[str] = []
    for piece in pieces:
        if isinstance(piece, Cdata):
            if pending:
                parts.append("".join(pending))
                pending = []
            parts.append(piece)
        else:
            pending.append(str(piece))
    if pending:
        parts.append("".join(pending))
    return parts


def _strip_edges(parts: list[Part]) -> None:
    """One newline after the opening tag; one newline and its indentation before the
    closing tag; only where they fall in text."""
    first = parts[0]
    if isinstance(first, str):
        parts[0] = drop_first_newline(first)
    last = parts[-1]
    if isinstance(last, str):
        parts[-1] = _TRAILING_NEWLINE.sub("", last, count=1)


def _has_newline(parts: list[Part]) -> bool:
    return any("\n" in text or "\r" in text
               for text in (p.text if isinstance(p, Cdata) else p for p in parts))


def _exactly_cdata(parts: list[Part]) -> bool:
    return len(parts) == 1 and isinstance(parts[0], Cdata)
