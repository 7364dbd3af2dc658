"""`typing=schema`: values are text, and a schema alone types them (SPEC 5.1).

Without tools every value is its text, a string: `true`, `007` and `[1, 2]` stay
strings (no guessing), so every value streams as it arrives. With tools the tool's
schema types it (an integer property decodes `7`, a string property keeps `42`) and
checks it (SPEC 6). How the text reads is the header's `value_edges=`.
"""

from __future__ import annotations

from typing import Final

from toolparse._dialect.syntaxes.base import TYPING, ValueSyntax

__all__ = ["SCHEMA"]

SCHEMA: Final = ValueSyntax("schema", TYPING, schema_types=True)
