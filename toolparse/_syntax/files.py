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
from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple

from toolparse._errors import GrammarError

__all__ = ["grammars_dir", "grammar_path", "TerminalText", "cached_json", "terminal_table"]

_PACKAGE_DIR = Path(__file__).resolve().parent.parent  # toolparse/


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


def cached_json(kind: str, source: str, build: Callable[[], Any]) -> Any:
    """`build()`'s JSON value, cached in the temporary directory under `kind` and a hash
    of `source` (and of Lark's version, whose output the builders read).

    For what is slow to compute from a grammar file and never changes with it: the
    terminals Lark compiles from markdown.lark (Lark builds its own grammar parser for
    that, about half a second, which its cache avoids only for LALR grammars) and the
    Markdown tracker's automata. The cache is best effort: a missing, stale or
    unwritable file just means building again.
    """
    import lark  # noqa: PLC0415  (only the key needs it; Lark is loaded anyway)

    key = hashlib.sha256(f"{lark.__version__}\0{kind}\0{source}".encode()).hexdigest()[:32]
    try:
        user = getpass.getuser()
    except Exception:  # no user name in some containers; the cache is still per key
        user = "unknown"
    cache = Path(tempfile.gettempdir()) / f".toolparse_{kind}_{user}_{key}.json"
    try:
        return json.loads(cache.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        pass
    value = build()
    try:
        partial = cache.with_suffix(f".{os.getpid()}.tmp")
        partial.write_text(json.dumps(value), encoding="utf-8")
        partial.replace(cache)
    except (OSError, TypeError, ValueError):
        pass
    return value


def terminal_table(path: Path) -> dict[str, TerminalText]:
    """Every terminal of a terminals-only grammar file (grammars/markdown.lark), as Lark
    compiles it; cached (see `cached_json`)."""
    text = path.read_text(encoding="utf-8")

    def build() -> dict[str, list[Any]]:
        import lark  # noqa: PLC0415

        try:
            grammar = lark.Lark(text, parser=None, lexer="basic")
        except lark.exceptions.LarkError as exc:  # a broken grammar file is API misuse
            raise GrammarError(f"{path}: {exc}") from exc
        return {
            t.name: [t.pattern.to_regexp(), t.pattern.max_width,
                     t.pattern.value if isinstance(t.pattern, lark.lexer.PatternStr) else None]
            for t in grammar.terminals
        }

    try:
        return {name: TerminalText(*entry) for name, entry in
                cached_json("terminals", text, build).items()}
    except TypeError:  # a cache file of another shape: rebuild without the cache
        return {name: TerminalText(*entry) for name, entry in build().items()}
