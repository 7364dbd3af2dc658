"""A chunk-aware lexer over Lark terminals.

Lark's own lexer cannot stream: it lexes only the text it is given and would read the
end of a chunk (`<tool_`) as something else. This lexer matches one terminal at a time
and can say "not yet": the end of the text could still become a match.

Terminals are of two kinds (see the header of grammars/deepseek.lark):

* A **run** is one character class repeated (`[^<]+`, `\\s+`). Any piece of a run is a
  run, so a run that reaches the end of the available text is cut there and the rest
  arrives as another token of the same type. Runs never wait for more input.
* An **atom** is everything else (a tag, `<![CDATA[`, `]]>`). It must arrive whole and
  is at most `MAX_ATOM` characters long: a longer one does not match. While the text
  ends inside what could still become an atom, the lexer answers NEED_MORE.

Candidates are tried in Lark's order (priority, then longest pattern, then name); the
first that matches wins, and an earlier candidate that could still match stops the
search (NEED_MORE), so a later, shorter one never steals its text.

Cost: a full match is one `re` call per candidate tried. A partial match (the `regex`
module's `partial=True`) is attempted only when fewer than MAX_ATOM characters remain,
so re-trying a held atom costs at most MAX_ATOM per chunk.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable
from dataclasses import dataclass, field
from typing import Final

import regex

from toolparse._syntax.regexp import first_chars, partial_pattern

__all__ = ["MAX_ATOM", "NEED_MORE", "RUN_HOLD", "StateLexer", "TerminalSpec", "match_terminal"]

MAX_ATOM: Final = 1024
"""The longest an atom (a tag, a marker) may be. A longer one does not match."""

RUN_HOLD: Final = 256
"""A run that reaches the end of a chunk inside a block waits for the next chunk while
it is shorter than this, so that a value arriving in small chunks costs one token, not
one per chunk. (The block is not emitted before it ends, so this delays nothing.)"""

NEED_MORE: Final = -1
"""`match_terminal` result: the text ends where a candidate could still match."""

# A run: one character class (or class escape) repeated one or more times.
_RUN_SHAPE = re.compile(r"(?:\[(?:\\.|[^\]\\])+\]|\\[sSdDwW]|\\.|[^\\\[\](){}|.*+?^$])\+")


@dataclass(frozen=True, slots=True)
class TerminalSpec:
    """One terminal of a grammar, compiled for streaming."""

    name: str
    priority: int
    pattern: str
    is_run: bool
    has_lookahead: bool
    full: re.Pattern[str]
    """The pattern for complete matches (the fast `re` engine)."""
    sort_key: tuple[int, int, int, str]
    starts: frozenset[str] | None = field(default=None)
    """The characters a match can start with; None when it could be almost any."""

    @property
    def partial(self) -> regex.Pattern[str]:
        """The pattern in the `regex` engine, which can report a partial match.
        Compiled on first use: most terminals never need it, and `regex` compiles
        slowly (tens of milliseconds for a grammar), which start-up would pay."""
        return partial_pattern(self.full.pattern)

    @classmethod
    def compile(cls, name: str, pattern: str, flags: Collection[str], priority: int,
                max_width: int) -> TerminalSpec:
        inline_flags = "".join(sorted(flags))
        source = f"(?{inline_flags}:{pattern})" if inline_flags else pattern
        unwrapped = pattern
        while unwrapped.startswith("(?:") and unwrapped.endswith(")"):
            unwrapped = unwrapped[3:-1]
        return cls(
            name=name,
            priority=priority,
            pattern=pattern,
            is_run=_RUN_SHAPE.fullmatch(unwrapped) is not None,
            has_lookahead="(?=" in pattern or "(?!" in pattern,
            full=re.compile(source),
            # Lark's own order for a contextual lexer state.
            sort_key=(-priority, -max_width, -len(pattern), name),
            starts=first_chars(source),
        )


@dataclass(frozen=True, slots=True)
class StateLexer:
    """The terminals to try in one parser state, in order, bucketed by the character at
    the position: most positions need one or two regex calls, not one per terminal."""

    by_char: dict[str, tuple[TerminalSpec, ...]]
    """Candidates when the text at the position is this character."""
    others: tuple[TerminalSpec, ...]
    """Candidates for any other character: the terminals that can start with anything."""

    @classmethod
    def build(cls, ordered: Iterable[TerminalSpec]) -> StateLexer:
        ordered = tuple(ordered)
        anywhere = tuple(t for t in ordered if t.starts is None)
        chars = {c for t in ordered if t.starts is not None for c in t.starts}
        by_char = {c: tuple(t for t in ordered if t.starts is None or c in t.starts)
                   for c in chars}
        return cls(by_char=by_char, others=anywhere)


def match_terminal(candidates: tuple[TerminalSpec, ...], text: str, pos: int, end: int,
                   final: bool, first: int = 0) -> tuple[TerminalSpec | None, int, int]:
    """Match one token at `text[pos:end]`.

    Returns `(spec, token_end, index)` for a match; `(None, NEED_MORE, index)` when more
    text could still make candidate `index` match (never when `final`); `(None, pos, -1)`
    when nothing can match here. `end` is where the usable text stops; `final` says no
    more will come before it (end of stream, or a capture limit).

    `first` skips candidates already ruled out at this position: one that is not a
    prefix of a match now never becomes one as text is appended, so a retry after
    NEED_MORE may start at the candidate that asked for more.
    """
    for index in range(first, len(candidates)):
        spec = candidates[index]
        if spec.is_run:
            m = spec.full.match(text, pos, end)
            if m is not None:
                return spec, m.end(), index
            continue
        atom_end = pos + MAX_ATOM
        m = spec.full.match(text, pos, min(end, atom_end))
        if m is not None:
            # An atom with a lookahead that matched right at the end of the available
            # text may not match once more text arrives: only sure when `final`.
            if final or m.end() < end or not spec.has_lookahead:
                return spec, m.end(), index
            return None, NEED_MORE, index
        if not final and end < atom_end:
            p = spec.partial.match(text, pos, end, partial=True)
            if p is not None and p.partial:
                return None, NEED_MORE, index
    return None, pos, -1
