"""Dialects: tool-call grammar files, loaded and compiled for the stream engine.

- `dialect`: the `Dialect` a grammar file becomes.
- `loader`: reading a grammar file (bundled or the user's), with the checks the engine
  needs; the registry of bundled dialects.
- `openers`: where a block can start, as one search pattern.
- `lexer`: the grammar's terminals compiled for streaming, tried per parser state.
- `transform`: the Lark Transformer that builds calls from the parsed markup.
- `values`: parameter values as SPEC 3 reads them (entities, CDATA, edges).
"""

from toolparse._dialect.dialect import Dialect
from toolparse._dialect.loader import bundled_dialects, resolve_dialect

__all__ = ["Dialect", "bundled_dialects", "resolve_dialect"]
