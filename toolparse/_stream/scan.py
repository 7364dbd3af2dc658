"""SCAN mode: outside any block, find the next tag that opens one, outside code.

The text is Markdown. One compiled search (`BlockStarts.search`) finds the next
complete block-start tag at C speed; everything before it is plain text. Before giving
that text out, the last `MAX_ATOM` characters are checked for a block start that is
still arriving (`<tool_` at the end of the chunk): from there on the text waits. At a
complete tag, the lexer confirms it in Lark's order (`match_terminal` over the
openers) and the Markdown tracker says where it stands:

    CODE     the tag is text (SPEC G3);
    TEXT     it opens a capture;
    PENDING  it opens a capture whose fate waits on a ticket (SPEC 4.3).

A grammar may declare openers that count only at the start of the answer (`anchored=`,
SPEC 5.3 b: Llama's bare JSON call). While nothing but whitespace has gone out since
the stream began (a reasoning region does not count: SCAN does not see it), the scanner
is *anchored*: at its position it tries those openers first; whitespace goes out at once
as text and keeps the anchor; any other character (or any block start) drops it for good
(`Scanner.settle`), and the same characters after that are text, whatever the chunking.
While anchored, the scanner offers the engine's fast paths nothing to go on (no plain
characters, and a start search that matches everywhere), so that every chunk reaches it.

Cost: one search per chunk while no block start is near; each candidate position is
probed once by an automaton over at most `MAX_ATOM` characters. The anchor costs one
lexer match at the answer's first non-blank character, then nothing.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from re import Match
from typing import Final, NamedTuple

from toolparse._dialect.openers import BlockStarts
from toolparse._dialect.lexer import MAX_ATOM, NEED_MORE, StateLexer, TerminalSpec, next_token
from toolparse._markdown import Context
from toolparse._stream.arriving import Arriving
from toolparse._events import Text
from toolparse._stream.output import Output, kept_event, plain_event, plain_events

__all__ = ["Opener", "Scanner", "arriving_at_end", "scan"]

_BLANKS: Final = " \t\r\n\f\v\ufeff"
"""What may come before an anchored opener (as before a reasoning region's opener)."""
_EVERYWHERE: Final = re.compile(r"(?s).")
"""The start search while the scanner is anchored: no chunk is plain to a fast path."""


_NO_EVENTS: Final[dict[str, Text]] = {}
"""The plain table of a scanner with no plain fast path (it stays empty)."""


class Scanner:
    """What SCAN reads of the block starts, taken once per parser: in the compiled
    build each attribute of a `BlockStarts` (an interpreted class with cached
    properties) is a generic look-up, and SCAN read several at every run."""

    __slots__ = ("starts", "lexer", "by_pair", "find", "start_search", "start_finditer",
                 "opener_char", "plain_chars", "plain_rest", "plain_table", "anchors")

    starts: BlockStarts
    lexer: StateLexer
    by_pair: dict[str, StateLexer] | None
    find: Callable[[str, int], Match[str] | None]
    start_search: Callable[[str, int], Match[str] | None]
    start_finditer: Callable[[str, int, int], Iterator[Match[str]]]
    opener_char: str
    plain_chars: tuple[str, dict[str, Text]]
    plain_rest: str
    plain_table: dict[str, Text]
    anchors: BlockStarts | None

    def __init__(self, starts: BlockStarts, anchors: BlockStarts | None = None) -> None:
        self.settle(starts)
        self.anchors = anchors
        """While the scanner is anchored (see the module's docstring): the openers that
        count only at the start of the answer; None once it is not (or never was)."""
        if anchors is not None:
            self.opener_char, self.plain_chars = "", ("", _NO_EVENTS)
            self.start_search = _EVERYWHERE.search

    def settle(self, starts: BlockStarts) -> None:
        """Read the block starts (dropping the anchor, if any): from now on only
        `starts` open blocks."""
        self.anchors = None
        self.starts = starts
        chars = "".join(sorted(starts.chars))
        self.opener_char = chars if len(chars) == 1 else ""
        """The one character every block starts with, or "" when they start with
        several."""
        few = 1 <= len(chars) <= 4
        self.plain_rest = chars[1:]
        self.plain_table = plain_events(starts.start_search.pattern) if few else _NO_EVENTS
        self.plain_chars = (chars[0] if few else "", self.plain_table)
        """What `feed`'s plain fast path reads: the table of the short chunks in which no
        block can start, if blocks start with four characters or fewer (else an empty
        table; `output.plain_events`: one look-up instead of an `in` for each:
        `auto` has `<`, Mistral's and the pythonic list's `[`, MiniMax-M3's `]` and
        Phi-4-mini's `f`), and the first of those characters (else ""), which a chunk
        not in it is tested for with `in` before `plain_event` tests the rest."""
        self.lexer = starts.lexer
        self.by_pair = starts.pair_lexers if starts.pairs_differ else None
        """The lexers that confirm a tag by its first two characters, where the openers'
        differ (`BlockStarts.pair_lexer`, which fills this dict: SCAN reads it first, a
        look-up in C where the method is interpreted); else None (`lexer` confirms every
        tag)."""
        self.find = starts.search.search
        self.start_search = starts.start_search.search
        self.start_finditer = starts.start_search.finditer

    def plain_event(self, chunk: str) -> Text | None:
        """The plain fast path's test of a chunk not in `plain_table` (the first
        character tested already): its event, kept there, or None."""
        return plain_event(self.plain_table, self.plain_rest, chunk)

    def keep_plain(self, chunk: str) -> Text:
        """The event of a chunk in which no block can start though it holds a
        block-start character (`start_search` found none), kept in `plain_table` as
        `plain_event` keeps a chunk without one."""
        return kept_event(self.plain_table, chunk)


class Opener(NamedTuple):
    """A block-start tag outside code: text[at:end] is its token."""

    spec: TerminalSpec
    at: int
    end: int
    ticket: int
    """The Markdown ticket (-1 when the tag is outside code for certain)."""
    anchored: bool = False
    """The tag is an anchored opener (`anchored=`), found at the start of the answer."""


def scan(scanner: Scanner, output: Output, arriving: Arriving, text: str, pos: int, base: int,
         final: bool) -> tuple[int, bool, Opener | None]:
    """SCAN text[pos:] (text[0] is at stream offset `base`), giving out plain text.

    Returns (position reached, waiting, opener): `waiting` when the rest of the text
    could still become a block start (described in `arriving`); `opener` when a tag
    outside code starts a block at the position.
    """
    if scanner.anchors is not None:
        pos, waiting, opener = _anchored(scanner, output, arriving, text, pos, base, final)
        if waiting or opener is not None or scanner.anchors is not None:
            return pos, waiting, opener
    end = len(text)
    openers = scanner.lexer
    find = scanner.find
    while pos < end:
        # The next complete block-start tag, found at C speed (runs of `<` included).
        m = find(text, pos)
        while m is not None and m.end() - m.start() > MAX_ATOM:
            m = find(text, m.start() + 1)
        at = m.start() if m is not None else end
        if not final:
            # Before it, only the last MAX_ATOM characters can hold a tag that is
            # still arriving (`<tool_` at the end of the chunk).
            hold, state = _arriving_opener(scanner, text, max(pos, end - MAX_ATOM + 1),
                                           min(at, end))
            if hold >= 0:
                starts = scanner.starts
                if hold > pos:
                    output.text(text[pos:hold], base + pos)
                if starts.dfa is not None and state >= 0:
                    arriving.stepped(starts.dfa, state)
                else:
                    arriving.atom(starts.dfa, starts.probe.match, text, hold)
                return hold, True, None
        if at > pos:
            output.text(text[pos:at], base + pos)
        if at >= end:
            return end, False, None
        lexer = openers
        by_pair = scanner.by_pair
        if by_pair is not None and end - at >= 2:
            pair = text[at:at + 2]
            kept = by_pair.get(pair)
            lexer = kept if kept is not None else scanner.starts.pair_lexer(pair)
        spec, token_end = next_token(lexer, text, at, end, final)
        if token_end == NEED_MORE:  # a longer opener could still match here
            starts = scanner.starts
            arriving.atom(starts.dfa, starts.probe.match, text, at)
            return at, True, None
        if spec is None:
            output.text(text[at:at + 1], base + at)
            pos = at + 1
            continue
        context, ticket = output.context(base + at)
        if context is Context.CODE:
            output.text(text[at:token_end], base + at)
            pos = token_end
            continue
        if context is Context.TEXT:
            output.saw_tool_syntax = True
        return at, False, Opener(spec, at, token_end, ticket)
    return pos, False, None


def _anchored(scanner: Scanner, output: Output, arriving: Arriving, text: str, pos: int,
              base: int, final: bool) -> tuple[int, bool, Opener | None]:
    """SCAN while anchored: whitespace goes out, and an anchored opener at the first
    other character opens a block (outside code); any other character drops the anchor
    (`settle`) and is left for the ordinary scan. Returns what `scan` does."""
    anchors = scanner.anchors
    assert anchors is not None
    end = len(text)
    while pos < end:
        spec, token_end = next_token(anchors.lexer, text, pos, end, final)
        if token_end == NEED_MORE:   # an anchored opener may still be arriving
            arriving.atom(anchors.dfa, anchors.probe.match, text, pos)
            return pos, True, None
        if spec is not None:
            scanner.settle(scanner.starts)
            context, ticket = output.context(base + pos)
            if context is Context.CODE:
                output.text(text[pos:token_end], base + pos)
                return token_end, False, None
            if context is Context.TEXT:
                output.saw_tool_syntax = True
            return pos, False, Opener(spec, pos, token_end, ticket, anchored=True)
        blank = pos
        while blank < end and text[blank] in _BLANKS:
            blank += 1
        if blank == pos:
            scanner.settle(scanner.starts)
            return pos, False, None
        output.text(text[pos:blank], base + pos)
        pos = blank
    return pos, False, None


def _arriving_opener(scanner: Scanner, text: str, start: int, stop: int
                     ) -> tuple[int, int]:
    """The first position in text[start:stop] where a block start could still be
    arriving (a prefix of one reaching the end of the text), or -1; and the state of
    the block starts' automaton after it (-1 without one)."""
    end = len(text)
    starts = scanner.starts
    dfa = starts.dfa
    char = scanner.opener_char
    if dfa is not None and char:
        # One opener character: each of its places, stepped to the end. No search to
        # set up; a place no opener goes on from dies at the next character, which
        # is all that is copied of it (`<<<<` costs no more than `<x`).
        at = text.find(char, start, stop)
        while at >= 0:
            state = dfa.advance(dfa.initial, text[at:at + 2])
            if state >= 0 and at + 2 < end:
                state = dfa.advance(state, text[at + 2:end])
            if state >= 0:
                return at, state
            at = text.find(char, at + 1, stop)
        return -1, -1
    for candidate in scanner.start_finditer(text, start, stop + 1):
        at = candidate.start()
        if at >= stop:
            break
        if dfa is not None:
            # Alive to the end without completing: a prefix of a block start.
            state = dfa.advance(dfa.initial, text[at:end])
            if state >= 0:
                return at, state
            continue
        m = starts.probe.match(text, at, end, partial=True)
        if m is not None and m.partial:
            return at, -1
    return -1, -1


def arriving_at_end(scanner: Scanner, arriving: Arriving, text: str, chunk_at: int,
                    first: int, room: int) -> int:
    """Where a block start is arriving at the end of `text` (a dead tail, then the
    chunk from `chunk_at`) from the chunk's last block-start character, when no other
    position of the text can begin one (`first`: the first position after the tail's
    dead one that can), within `room` characters of the limit; else -1. Sets the
    arriving state (`feed`'s path for a chunk that ends in `<`)."""
    dfa = scanner.starts.dfa
    if dfa is None or scanner.anchors is not None:   # (anchored: scan() decides)
        return -1
    char = scanner.opener_char
    # With one opener character, its last place; with several (`auto`), the first place
    # one can begin (`f` of `fu`, or an `f` at the end), which must then be arriving:
    # scan() would hold there too, as no block start can be complete before it.
    at = text.rfind(char, chunk_at) if char else first
    if at < 0 or len(text) - at >= min(MAX_ATOM, room - at):
        return -1
    # Every other position: no block-start character followed by one that can come
    # second (the tail's first is dead: the verdict).
    if first < at:
        return -1
    state = dfa.advance(dfa.initial, text[at:])
    if state < 0:
        return -1
    arriving.stepped(dfa, state)
    return at
