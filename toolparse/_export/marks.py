"""What a grammar only accepts, as patterns the export leaves out (docs/grammars.md).

A `LENIENT_*` terminal is an alternative that Lark inlines into the terminals that use
it; the export reads its pattern off Lark (the one place it imports Lark) and leaves
out every alternative of a terminal that is exactly that pattern. The marks are those
of the grammar file and of the grammars it imports (common/python.lark's JSON
`true`/`false`/`null`, which Olmo 3 writes for Python's names).
"""

from __future__ import annotations

import re

from toolparse._dialect.grammar import _LENIENT_TERMINAL, Grammar
from toolparse._dialect.roles import own_name
from toolparse._syntax.files import import_paths

__all__ = ["banned"]

_IMPORT = re.compile(r"^[ \t]*%import[ \t]+([\w.]+)", re.MULTILINE)


def banned(grammar: Grammar) -> tuple[str, ...]:
    """The patterns of the accept-only terminals of `grammar` and of its imports."""
    from toolparse._dialect.from_lark import terminal_patterns  # (Lark: on first use)

    marks = sorted(m for m in grammar.accept_only if m.isupper() or m.startswith("_"))
    found = [pattern for name, pattern in terminal_patterns(
        grammar.source, grammar.path, grammar.starts) if name in marks] if marks else []
    for module in sorted(set(_IMPORT.findall(grammar.source))):
        path = next((p / (module.replace(".", "/") + ".lark")
                     for p in import_paths(grammar.path.parent)
                     if (p / (module.replace(".", "/") + ".lark")).is_file()), None)
        if path is None:
            continue
        text = path.read_text(encoding="utf-8")
        names = set(_LENIENT_TERMINAL.findall(text))
        prefix = module.replace(".", "__") + "__"
        starts = sorted({own_name(r.origin) for r in grammar.record.rules
                         if r.origin.lstrip("_").startswith(prefix)})
        if names and starts:
            found += [pattern for name, pattern in terminal_patterns(text, path, starts[:1])
                      if name in names]
    return tuple(found)
