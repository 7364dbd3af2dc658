"""Dialects: tool-call grammar files, compiled for the stream engine.

- `dialect`: the public `Dialect` (one grammar file, or every bundled one for `auto`).
- `loader`: reading a grammar file, with the checks the engine needs; the registry.
- `from_lark`: the one module that imports Lark: compiling a grammar file on a cache
  miss, read off into `records`.
- `records`: what Lark compiles (terminals, rules, the LALR table) as plain records,
  the form the warm start reads from the cache.
- `header`: the `//! toolparse:` header (typing, value edges: rows of `syntaxes`).
- `grammar`: a grammar file compiled: its table, terminals, openers, roles, builders.
- `table`: the LALR table as dictionaries, and the driver that steps it.
- `lexer`: the terminals compiled for streaming, one pattern per parser state.
- `roles`: what each terminal does in a block, read from the rules.
- `openers`: where a block can start, as one search pattern.
- `build`: what each rule the engine knows builds (calls, arguments, values).
- `syntaxes`: the value syntaxes, one row per way of writing values (`VALUE_SYNTAXES`):
  what the header's `typing=` and `value_edges=` name.
- `values`, `value_stream`: the pieces of a value (entities, CDATA, SPEC 3.1's edges),
  and the certain prefix of one still arriving.
"""

from toolparse._dialect.dialect import Dialect
from toolparse._dialect.loader import AUTO, bundled_dialects, dialects, resolve_dialect

__all__ = ["AUTO", "Dialect", "bundled_dialects", "dialects", "resolve_dialect"]
