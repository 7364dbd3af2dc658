"""Where the bundled grammar files are.

In a wheel they ship inside the package (`toolparse/grammars/`); in a source checkout or
an editable install they sit at the top of the repository (`grammars/`), where users
edit them. The packaged copy wins when both exist.
"""

from __future__ import annotations

import functools
import hashlib
import marshal
import os
import stat
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple, TypeVar, overload

from toolparse._errors import GrammarError

__all__ = ["GRAMMAR_FOLDERS", "grammars_dir", "grammar_path", "import_paths", "TerminalText", "cache_dir", "cache_key", "cached_json",
           "terminal_table"]

_PACKAGE_DIR = Path(__file__).resolve().parent.parent  # toolparse/

T = TypeVar("T")


@functools.cache
def grammars_dir() -> Path:
    """The directory that holds the bundled grammar files (`markdown.lark`, and the
    folders of `GRAMMAR_FOLDERS`)."""
    for candidate in (_PACKAGE_DIR / "grammars", _PACKAGE_DIR.parent / "grammars"):
        if candidate.is_dir() and any(candidate.glob("*.lark")):
            return candidate
    raise GrammarError(
        f"no grammar files found in {_PACKAGE_DIR / 'grammars'} or "
        f"{_PACKAGE_DIR.parent / 'grammars'}; the installation is incomplete")


def grammar_path(name: str) -> Path:
    """The path of the bundled grammar file `name`, relative to the grammars' folder
    (`markdown.lark`, `dialects/deepseek.lark`, `reasoning/think.lark`)."""
    path = grammars_dir() / name
    if not path.is_file():
        raise GrammarError(f"bundled grammar {name!r} is missing from {grammars_dir()}")
    return path


GRAMMAR_FOLDERS = ("dialects", "common", "reasoning")
"""The bundled grammars' folders (docs/grammars.md): one file per tool-call format,
the sub-grammars formats `%import`, one file per reasoning format."""


def import_paths(base: Path) -> list[Path]:
    """Where an `%import` in a grammar file at `base` (its folder) is looked for, in
    order: beside the file, then among the bundled dialects (so a user's grammar can
    `%import deepseek (...)`), then the grammars' folder itself (`%import
    common.json (...)`)."""
    top = grammars_dir()
    return [base, top / "dialects", top]


class TerminalText(NamedTuple):
    """One terminal of a grammar file, as Lark compiled it."""

    regexp: str
    max_width: int
    literal: str | None
    """The string, for a terminal written as a string literal."""


@functools.cache
def cache_dir() -> Path | None:
    """The directory for what toolparse (and Lark, for it) caches from grammar files: a
    directory only this user can write, `$TOOLPARSE_CACHE_DIR` or `toolparse-<uid>` in
    the temporary directory, created with mode 0700. None (build every time) when it
    cannot be made, or when it is someone else's or others can write to it: a cache
    another local user can plant files in would choose how markup parses, and Lark's
    cache is a pickle (loading one runs code)."""
    chosen = os.environ.get("TOOLPARSE_CACHE_DIR")
    owner = os.getuid() if hasattr(os, "getuid") else None
    path = Path(chosen) if chosen else Path(tempfile.gettempdir()) / f"toolparse-{_user() if owner is None else owner}"
    try:
        path.mkdir(mode=0o700, parents=True, exist_ok=True)
        found = os.lstat(path)
    except OSError:
        return None
    if not stat.S_ISDIR(found.st_mode):
        return None   # a symlink or a file in its place
    if owner is not None and (found.st_uid != owner or found.st_mode & 0o022):
        return None
    return path


def _user() -> str:
    import getpass  # noqa: PLC0415  (only where there is no os.getuid)

    try:
        return getpass.getuser()
    except Exception:  # no user name in some containers
        return "unknown"


def cache_key(*parts: str) -> str:
    """A file-name-safe digest of `parts` and of the installed Lark (whose output the
    cached values are)."""
    return hashlib.sha256("\0".join((_lark_stamp(), *parts)).encode()).hexdigest()[:32]


@functools.cache
def _lark_stamp() -> str:
    """Which Lark is installed, found without importing it (that costs tens of
    milliseconds, which a warm start does not pay): its `__init__.py`'s path, size,
    modification time and a digest of its text (which holds `__version__`), so that
    another version or a reinstall makes new keys."""
    import importlib.util  # noqa: PLC0415  (cheap once toolparse's imports are in)

    spec = importlib.util.find_spec("lark")
    if spec is None or spec.origin is None:
        return "no lark"
    try:
        found = os.stat(spec.origin)
        digest = hashlib.sha256(Path(spec.origin).read_bytes()).hexdigest()
    except OSError:
        return f"lark at {spec.origin}"
    return f"lark {spec.origin} {found.st_size} {found.st_mtime_ns} {digest}"


@overload
def cached_json(kind: str, source: str, build: Callable[[], Any]) -> Any: ...
@overload
def cached_json(kind: str, source: str, build: Callable[[], Any],
                read: Callable[[Any], T]) -> T: ...


def cached_json(kind: str, source: str, build: Callable[[], Any],
                read: Callable[[Any], Any] | None = None) -> Any:
    """`build()`'s JSON-shaped value, cached in `cache_dir()` under `kind` and a hash
    of `source` (and of the installed Lark); with `read`, what `read` makes of it.

    For what is slow to compute from a grammar file and never changes with it: what
    Lark compiles from a dialect's grammar (`_dialect/records.py`; a warm start then
    never imports Lark), the terminals Lark compiles from markdown.lark (Lark builds its
    own grammar parser for that, about half a second, which its cache avoids only for
    LALR grammars), the Markdown tracker's automata and the terminals' automata. Stored
    with `marshal`, which reads the largest (the Markdown automata, 0.7 MB as JSON) in a
    third of the time JSON takes, and unlike a pickle runs no code; only this user can
    write the directory. The cache is best effort: a missing, stale, broken or
    unwritable file just means building again, and so does a value that `read` refuses
    (ValueError, TypeError, KeyError, IndexError, AttributeError: a file of another
    shape). A freshly built value goes through `read` too, so that a cached value and a
    fresh one are read by the same code.
    """
    convert = read or _as_is
    directory = cache_dir()
    if directory is None:
        return convert(build())
    cache = directory / f"{kind}_{cache_key(kind, source)}.marshal"
    try:
        return convert(marshal.loads(cache.read_bytes()))
    except (OSError, ValueError, EOFError, TypeError, KeyError, IndexError, AttributeError):
        pass
    value = build()
    try:
        partial = cache.with_suffix(f".{os.getpid()}.tmp")
        partial.write_bytes(marshal.dumps(value))
        partial.replace(cache)
    except (OSError, ValueError):
        pass
    return convert(value)


def _as_is(value: Any) -> Any:
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

    def read(data: Any) -> dict[str, TerminalText]:
        return {name: TerminalText(*entry) for name, entry in data.items()}

    return cached_json("terminals", text, build, read)
