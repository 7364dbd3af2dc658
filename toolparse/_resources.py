"""Where the bundled grammar files are.

In a wheel they ship inside the package (`toolparse/grammars/`); in a source checkout or
an editable install they sit at the top of the repository (`grammars/`), where users
edit them. The packaged copy wins when both exist.
"""

from __future__ import annotations

import functools
import getpass
import hashlib
import json
import os
import tempfile
from pathlib import Path
from typing import NamedTuple

from toolparse._errors import GrammarError

__all__ = ["grammars_dir", "grammar_path", "TerminalText", "terminal_table"]

_PACKAGE_DIR = Path(__file__).resolve().parent


@functools.cache
def grammars_dir() -> Path:
    """The directory that holds the bundled `*.lark` files."""
    for candidate in (_PACKAGE_DIR / "grammars", _PACKAGE_DIR.parent / "grammars"):
        if candidate.is_dir() and any(candidate.glob("*.lark")):
            return candidate
    raise GrammarError(
        f"no grammar files found in {_PACKAGE_DIR / 'grammars'} or "
        f"{_PACKAGE_DIR.parent / 'grammars'}; the installation is incomplete")


def grammar_path(name: str) -> Path:
    """The path of the bundled grammar file `name` (for example `deepseek.lark`)."""
    path = grammars_dir() / name
    if not path.is_file():
        raise GrammarError(f"bundled grammar {name!r} is missing from {grammars_dir()}")
    return path


class TerminalText(NamedTuple):
    """One terminal of a grammar file, as Lark compiled it."""

    regexp: str
    max_width: int
    literal: str | None
    """The string, for a terminal written as a string literal."""


def terminal_table(path: Path) -> dict[str, TerminalText]:
    """Every terminal of a terminals-only grammar file (grammars/markdown.lark).

    Lark parses a grammar file with a parser of its own, which it builds (and checks)
    on first use at a cost of about half a second; Lark's cache avoids that only for
    LALR grammars. So the compiled terminals are cached here the same way, keyed by the
    file's content and Lark's version, in the temporary directory. The cache is best
    effort: a missing, stale or unwritable cache just means compiling again.
    """
    import lark  # noqa: PLC0415  (kept local: only the first load needs Lark's loader)

    text = path.read_text(encoding="utf-8")
    key = hashlib.sha256(f"{lark.__version__}\0{text}".encode()).hexdigest()[:32]
    try:
        user = getpass.getuser()
    except Exception:  # no user name in some containers; the cache is still per key
        user = "unknown"
    cache = Path(tempfile.gettempdir()) / f".toolparse_terminals_{user}_{key}.json"
    try:
        raw = json.loads(cache.read_text(encoding="utf-8"))
        return {name: TerminalText(*entry) for name, entry in raw.items()}
    except (OSError, ValueError, TypeError):
        pass
    try:
        grammar = lark.Lark(text, parser=None, lexer="basic")
    except lark.exceptions.LarkError as exc:  # a broken grammar file is API misuse
        raise GrammarError(f"{path}: {exc}") from exc
    table = {
        t.name: TerminalText(
            t.pattern.to_regexp(), t.pattern.max_width,
            t.pattern.value if isinstance(t.pattern, lark.lexer.PatternStr) else None)
        for t in grammar.terminals
    }
    try:
        partial = cache.with_suffix(f".{os.getpid()}.tmp")
        partial.write_text(json.dumps(table), encoding="utf-8")
        partial.replace(cache)
    except OSError:
        pass
    return table
