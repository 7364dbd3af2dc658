"""`value_edges=none`: a value is the text exactly as written (GLM-4.5, and the rare
parameter of a JSON dialect).

Every character between the tags is the model's (SPEC 5.2: `<arg_value>    x = 1
</arg_value>` keeps its spaces; edit tools need the indentation). A CDATA section
reads as its text. Nothing of a value waits while it streams.
"""

from __future__ import annotations

from typing import Final

from toolparse._dialect.syntaxes.base import VALUE_EDGES, ValueSyntax

__all__ = ["NONE"]

NONE: Final = ValueSyntax("none", VALUE_EDGES)
"""The base row: it reads a value as written."""
