"""`value_edges=trim`: the edges and trimming of `xml`, without entities (MiniMax-M2,
Anthropic).

These models write values as they are: `&amp;` in an HTML file stays `&amp;`. A
multi-line value keeps every line's indentation; only a newline right after the tag and
a newline with its indentation before the close go, and a one-line value is trimmed
(`values.edged_text`, text read `as_is`). While a value streams, its undecided start
and its blank end wait (`value_stream.EdgedStream`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

from toolparse._dialect.syntaxes.base import VALUE_EDGES, ValueSyntax
from toolparse._dialect.value_stream import EdgedStream, ValueStream
from toolparse._dialect.values import as_is, edged_text

__all__ = ["TRIM"]


class _Trim(ValueSyntax):
    __slots__ = ()

    def value_text(self, pieces: Sequence[Any]) -> tuple[str, bool]:
        return edged_text(pieces, as_is)

    def stream(self) -> ValueStream:
        return EdgedStream(False)


TRIM: Final = _Trim("trim", VALUE_EDGES)
