"""Reasoning formats: the markers of a model's thinking, read from grammar files (SPEC 11).

A reasoning format is syntax, so it lives in a grammar file like every dialect
(`grammars/reasoning/<name>.lark`), and Python never spells a marker. The file holds
terminals only:

    OPEN     the marker that opens a region (`<think>`)
    CLOSE    the marker that ends it (`</think>`)
    LABEL    optional: a role label that comes right after OPEN and belongs to the
             markers, not to the reasoning text (Gemma 4's `thought` and a newline)

Each must be bounded (a marker is at most `MAX_MARKER` characters) and end where it
ends: a marker that a longer match of itself could continue would end wherever a chunk
ends (SPEC G2), so it is refused at load with a `GrammarError` naming the terminal. The
file's first comment is its one-line description, and its header says what it is:

    //! toolparse: reasoning
    //! toolparse: reasoning channels

A *channels* format (harmony) frames every message: its regions open at each message
boundary, not only at the start of the stream, through the block starts of a dialect
that imports its terminals (`reasoning_message`, `content_message` and `framing` rules;
docs/reasoning.md, "Channels"). Its OPEN is then never looked for at the start of the
stream by itself: a header there is read by the dialect like any other.

What Lark compiles from the file (each terminal as a regular expression) is cached with
the other grammar data, so a warm start does not import Lark (`_syntax/files.py`).
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from pathlib import Path

from toolparse._errors import GrammarError, UnknownDialectError
from toolparse._syntax.dfa import DFA, dfa_for
from toolparse._syntax.files import grammars_dir, terminal_table
from toolparse._syntax.regexp import widths

__all__ = ["MAX_MARKER", "ReasoningFormat", "bundled_formats", "load_format",
           "reasoning_formats", "resolve_format"]

MAX_MARKER = 256
"""The longest a marker may be, in characters (what a region holds back while a marker
may be arriving)."""

_HEADER = re.compile(r"^\s*//!\s*toolparse:(.*)$", re.M)
_FIRST_COMMENT = re.compile(r"^\s*//(?!!)\s*(.*?)\s*$", re.M)
_TERMINALS = ("OPEN", "CLOSE", "LABEL")


@dataclass(frozen=True, slots=True)
class Marker:
    """One marker terminal, compiled: its pattern and its automaton."""

    name: str
    pattern: str
    dfa: DFA
    longest: int
    literal: str | None = None
    """The string, for a marker written as a string literal."""


@dataclass(frozen=True, slots=True, eq=False)
class ReasoningFormat:
    """The markers of one reasoning format (a `grammars/reasoning/*.lark` file).

    Attributes:
        name: The format's name: the file's stem (`think`).
        path: The grammar file.
        description: The file's first comment: the markers and the models.
    """

    name: str
    path: Path
    description: str
    open: Marker
    close: Marker
    label: Marker | None
    channels: bool = False
    """A channels format: its regions open at every message boundary, through the
    dialect's block starts (see the module's docstring)."""

    def __repr__(self) -> str:
        return f"ReasoningFormat({self.name!r}, {self.path.name!r})"

    @classmethod
    def bundled(cls, name: str) -> ReasoningFormat:
        """A bundled reasoning format by name (`toolparse.reasoning_formats()`).

        Raises:
            UnknownDialectError: No such format; the message lists the bundled ones.
        """
        return resolve_format(name)

    @classmethod
    def from_file(cls, path: str | Path, *, name: str | None = None) -> ReasoningFormat:
        """Load a reasoning format from a grammar file (terminals OPEN, CLOSE and an
        optional LABEL; see `grammars/reasoning/`): pass it as `reasoning=`.

        Raises:
            GrammarError: The file cannot be read or used; the message names the file
                and the terminal.
        """
        return load_format(Path(path), name)

    def spelled(self, terminal: str) -> str:
        """The literal a marker terminal (`OPEN`, `CLOSE`, `LABEL`) is written as;
        raises ValueError for a pattern that is not one string."""
        marker = {"OPEN": self.open, "CLOSE": self.close, "LABEL": self.label}.get(terminal)
        if marker is None or marker.literal is None:
            raise ValueError(f"{self.name}: {terminal} is not a string literal")
        return marker.literal


def bundled_formats() -> dict[str, Path]:
    """Name -> grammar file of every bundled reasoning format."""
    return dict(_bundled_files())


@functools.cache
def _bundled_files() -> tuple[tuple[str, Path], ...]:
    # Listed once: a parser is made per stream, and `dialect="auto"` reads every format
    # (listing the folder for each was most of the 0.8 ms a parser took to make).
    folder = grammars_dir() / "reasoning"
    return tuple((path.stem, path) for path in sorted(folder.glob("*.lark")))


def reasoning_formats() -> tuple[str, ...]:
    """The names of the bundled reasoning formats (`toolparse.reasoning_formats()`), in
    alphabetical order: each is a grammar file in `grammars/reasoning/`."""
    return tuple(bundled_formats())


def resolve_format(name: str) -> ReasoningFormat:
    """A bundled reasoning format by name; raises `UnknownDialectError` naming the
    bundled ones for any other name."""
    available = bundled_formats()
    if name not in available:
        raise UnknownDialectError(
            f"unknown reasoning format {name!r}; bundled reasoning formats: "
            f"{', '.join(available) or 'none'} (or None for no reasoning regions, or "
            "'auto' for the dialect's own)")
    return _bundled(name)


@functools.cache
def _bundled(name: str) -> ReasoningFormat:
    return load_format(bundled_formats()[name])


def load_format(path: Path, name: str | None = None) -> ReasoningFormat:
    """The reasoning format of a grammar file; raises `GrammarError` naming the file
    (and the terminal) for a file that cannot be read or used."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise GrammarError(f"cannot read reasoning grammar: {e}", path=str(path)) from e
    words = {word for m in _HEADER.finditer(text) for word in m.group(1).split()}
    if "reasoning" not in words:
        raise GrammarError("not a reasoning grammar: its header must say "
                           "`//! toolparse: reasoning`", path=str(path))
    terminals = terminal_table(path)
    markers = {key: _marker(key, terminals[key].regexp, terminals[key].literal, path)
               for key in _TERMINALS if key in terminals}
    for key in ("OPEN", "CLOSE"):
        if key not in markers:
            raise GrammarError(f"a reasoning grammar needs a terminal {key}", path=str(path),
                               rule=key)
    first = _FIRST_COMMENT.search(text)
    description = first.group(1) if first else ""
    head, sep, rest = description.partition(":")
    if sep and head.endswith(".lark"):
        description = rest.strip()
    return ReasoningFormat(name or path.stem, path, description, markers["OPEN"],
                           markers["CLOSE"], markers.get("LABEL"), "channels" in words)


def _marker(name: str, pattern: str, literal: str | None, path: Path) -> Marker:
    """One marker, checked: bounded, not empty, and not the start of a longer match of
    itself (it must end where it ends, whatever the chunking)."""
    span = widths(pattern)
    if span is None or span[1] is None or span[1] > MAX_MARKER or span[0] == 0:
        raise GrammarError(f"a marker must match between 1 and {MAX_MARKER} characters",
                           path=str(path), rule=name)
    dfa = dfa_for(pattern)
    if dfa is None:
        raise GrammarError("a marker must be a plain pattern (no lookaround)",
                           path=str(path), rule=name)
    if _extends(dfa):
        raise GrammarError("a match of this marker can go on to a longer match: where a "
                           "chunk ends inside it, it would end there", path=str(path),
                           rule=name)
    return Marker(name, pattern, dfa, span[1], literal)


def _extends(dfa: DFA) -> bool:
    """Whether a final state can reach a final state again by one or more characters."""
    successors = [set(row.values()) | {dfa.default[state]} for state, row in enumerate(dfa.table)]
    live = {state for state, final in enumerate(dfa.final) if final}
    changed = True
    while changed:  # the states from which a final state can be reached
        changed = False
        for state, targets in enumerate(successors):
            if state not in live and targets & live:
                live.add(state)
                changed = True
    return any(final and successors[state] & live for state, final in enumerate(dfa.final))
