"""`value_edges=xml`: SPEC 3.1's values (the DeepSeek family's XML and DSML).

Text runs are entity-decoded once and CDATA is verbatim; one newline after the opening
tag and one newline plus indentation before the closing tag are removed when they fall
in text; a value with no newline left that is not exactly one CDATA section is trimmed
(`values.edged_text`). While a value streams, its undecided start, its blank end and a
cut entity wait (`value_stream.EdgedStream`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

from toolparse._dialect.syntaxes.base import VALUE_EDGES, ValueSyntax
from toolparse._dialect.value_stream import EdgedStream, ValueStream
from toolparse._dialect.values import decode_entities, edged_text

__all__ = ["XML"]


class _Xml(ValueSyntax):
    __slots__ = ()

    def value_text(self, pieces: Sequence[Any]) -> tuple[str, bool]:
        return edged_text(pieces, decode_entities)

    def stream(self) -> ValueStream:
        return EdgedStream(True)


XML: Final = _Xml("xml", VALUE_EDGES)
