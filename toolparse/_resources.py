"""Where the bundled grammar files are.

In a wheel they ship inside the package (`toolparse/grammars/`); in a source checkout or
an editable install they sit at the top of the repository (`grammars/`), where users
edit them. The packaged copy wins when both exist.
"""

from __future__ import annotations

import functools
from pathlib import Path

from toolparse._errors import GrammarError

__all__ = ["grammars_dir", "grammar_path"]

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
