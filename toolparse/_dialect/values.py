"""Parameter values as SPEC section 3 reads them: entities, CDATA and edges.

Text runs are entity-decoded once, CDATA is verbatim; one newline after the opening tag
and one newline plus indentation before the closing tag are removed when they fall in
text; a value with no newline left that is not exactly one CDATA section is trimmed.
Typing the value (string, number, JSON) is a later stage's (`toolparse._calls`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

__all__ = ["Cdata", "decode_entities", "value_text"]


@dataclass(frozen=True, slots=True)
class Cdata:
    """A CDATA section's text, verbatim."""

    text: str


_ENTITY = re.compile(r"&(?:(lt|gt|amp|quot|apos)|#([0-9]+)|#[xX]([0-9A-Fa-f]+));")
_NAMED = {"lt": "<", "gt": ">", "amp": "&", "quot": '"', "apos": "'"}


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


_LEADING_NEWLINE = re.compile(r"\r?\n")
_TRAILING_NEWLINE = re.compile(r"\r?\n[ \t]*\Z")


def value_text(pieces: tuple[Any, ...]) -> tuple[str, bool]:
    """A parameter value from its text tokens and CDATA sections (SPEC 3)."""
    # Merge adjacent text tokens (runs are cut at chunk ends, `<` comes alone).
    parts: list[str | Cdata] = []
    for piece in pieces:
        if isinstance(piece, Cdata) or not parts or isinstance(parts[-1], Cdata):
            parts.append(piece if isinstance(piece, Cdata) else str(piece))
        else:
            parts[-1] = parts[-1] + piece
    if not parts:
        return "", False
    # Edges: one newline after the opening tag; one newline and its indentation before
    # the closing tag; only where they fall in text.
    if isinstance(parts[0], str):
        parts[0] = _LEADING_NEWLINE.sub("", parts[0], count=1) if parts[0][:1] in "\r\n" else parts[0]
    if isinstance(parts[-1], str):
        parts[-1] = _TRAILING_NEWLINE.sub("", parts[-1], count=1)
    parts = [p for p in parts if not (isinstance(p, str) and p == "")]
    exactly_cdata = len(parts) == 1 and isinstance(parts[0], Cdata)
    has_newline = any("\n" in (p.text if isinstance(p, Cdata) else p) or
                      "\r" in (p.text if isinstance(p, Cdata) else p) for p in parts)
    if not has_newline and not exactly_cdata:
        # Trim the text at the value's edges; CDATA content stays verbatim.
        if parts and isinstance(parts[0], str):
            parts[0] = parts[0].lstrip()
        if parts and isinstance(parts[-1], str):
            parts[-1] = parts[-1].rstrip()
        parts = [p for p in parts if not (isinstance(p, str) and p == "")]
        exactly_cdata = len(parts) == 1 and isinstance(parts[0], Cdata)
    text = "".join(p.text if isinstance(p, Cdata) else decode_entities(p) for p in parts)
    return text, exactly_cdata
