"""The stream engine: chunks in, text and tool-call block events out (sans-I/O).

Theory of operation
-------------------
`StreamParser` keeps the text that is not decided yet (its *tail*) and moves between
the modes of `modes.py`:

SCAN     Outside any block (`scan.py`): plain text goes out at once, and to the
         Markdown tracker; a block-start tag outside code opens a capture.
CAPTURE  Inside a block (`capture.py`): tokens go one by one into Lark's interactive
         LALR parser as chunks arrive; the Markdown tracker sees nothing (SPEC G3a).
         When the parser can accept the end, the block is complete: one
         `ToolCallBlock` with its exact raw text. A token the parser rejects (or text no
         terminal matches, or a Transformer refusal) fails the block: its text up to
         that token goes out as text, and scanning resumes at that token (SPEC 3, G4).

Two kinds of waiting, under two names:

- a token still *arriving* at the end of the text (`arriving.py`): the tail waits, and
  the next chunk costs a cheap test unless it completes or breaks that token;
- *held output* (`output.py`): output waiting on a Markdown ticket (SPEC 4.3).

Bounds (SPEC G6, G7). Every character is lexed once in its mode, plus once more by the
Markdown tracker if a failed block releases it. A capture longer than `max_capture`
fails at exactly `start + max_capture`; held output longer than `max_capture` gives up
there (every held block becomes text). What waits between chunks is at most one atom
(`lexer.MAX_ATOM`) or the open capture, so memory is O(max_capture).

The plain-text fast path (SCAN, nothing arriving, nothing held, no block-start
character in the chunk) costs one search, one append and one event per chunk.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, Final

from toolparse._calls import build_calls, make_policy
from toolparse._dialect import Dialect, resolve_dialect
from toolparse._errors import ChunkTypeError, StreamClosedError
from toolparse._events import Event, ParseResult, Text, ToolCallBlock
from toolparse._stream.arriving import DEAD, EXTENDS, Arriving
from toolparse._stream.capture import COMPLETE, FAILED, WAITING, Capture
from toolparse._stream.modes import Mode, Move, next_mode
from toolparse._stream.output import Output, make_text
from toolparse._stream.scan import Opener, scan

__all__ = ["StreamParser", "parse", "DEFAULT_MAX_CAPTURE"]

DEFAULT_MAX_CAPTURE: Final = 1 << 20
"""Default `max_capture`: 1 MiB of characters."""

_new = object.__new__
_set_text = Text.__dict__["text"].__set__
_NO_LIMIT: Final = 1 << 62
_CLOSED: Final = Mode.CLOSED


def _absence_test(chars: str) -> Callable[[str], bool]:
    """A function telling that a chunk holds none of `chars` (the fast path's test)."""
    if len(chars) == 1:
        def absent(chunk: str) -> bool:
            return chars not in chunk
        return absent
    search = re.compile("[" + re.escape(chars) + "]").search

    def absent_any(chunk: str) -> bool:
        return search(chunk) is None
    return absent_any


class StreamParser:
    """Finds tool calls in a text stream, chunk by chunk.

    `feed(chunk)` returns the events that chunk made certain; `close()` ends the stream
    and returns the rest. Joining every event's text (`Text.text`, `ToolCallBlock.raw`)
    gives back the input exactly, however it was chunked.
    """

    __slots__ = (
        "_dialect", "_policy", "_max_capture", "_output", "_md_queue", "_mode", "_tail",
        "_base", "_capture", "_limit", "_arriving", "_plain", "_opener_absent", "_opener_char",
    )

    def __init__(self, dialect: str | Dialect = "deepseek", *,
                 max_capture: int = DEFAULT_MAX_CAPTURE,
                 tools: Any = None, model: str | None = None, repair: Any = None) -> None:
        if isinstance(max_capture, bool) or not isinstance(max_capture, int) or max_capture < 1:
            raise ValueError(f"max_capture must be a positive int, not {max_capture!r}")
        self._dialect = resolve_dialect(dialect)
        self._policy = make_policy(tools, model, repair)
        self._max_capture = max_capture
        self._output = Output(max_capture)
        self._md_queue = self._output.md_queue   # the same list: the fast path appends
        self._mode = Mode.SCAN
        self._tail = ""
        """Text not decided yet: a token still arriving (see `_arriving`)."""
        self._base = 0
        """Stream offset of `_tail[0]`."""
        self._capture: Capture | None = None
        self._limit = _NO_LIMIT
        """Stream offset where the open capture must end (no capture: far away)."""
        self._arriving = Arriving()
        chars = self._dialect.opener_chars
        self._opener_absent = _absence_test(chars)
        # The fast path tests one character with `in`; a dialect whose blocks can start
        # with several characters takes the general path (correct, just slower).
        self._opener_char = chars if len(chars) == 1 else ""
        self._plain = bool(self._opener_char)
        """True when the fast path applies: SCAN, nothing arriving, nothing held."""

    # ---- public API --------------------------------------------------------------------

    @property
    def dialect(self) -> Dialect:
        """The dialect this parser reads."""
        return self._dialect

    @property
    def saw_tool_syntax(self) -> bool:
        """A wrapper or invoke tag has been seen outside Markdown code."""
        return self._output.saw_tool_syntax

    def feed(self, chunk: str) -> list[Event]:
        """Consume one chunk; return the events it made certain, in order."""
        if self._plain and type(chunk) is str and self._opener_char not in chunk:
            # Fast path: plain text, nothing open, nothing held. One search, one append,
            # one event.
            if not chunk:
                return []
            self._base += len(chunk)
            self._md_queue.append(chunk)
            if self._base > self._output.md_flush_at:
                self._output.flush_md(self._base)
            event = _new(Text)
            _set_text(event, chunk)
            return [event]
        return self._feed(chunk)

    def close(self) -> list[Event]:
        """End the stream; return the remaining events. The parser cannot be fed again."""
        if self._mode is Mode.CLOSED:
            raise StreamClosedError("close() called twice")
        self._plain = False
        self._process(self._tail, final=True)
        self._mode = next_mode(self._mode, Move.CLOSE)
        self._output.finish(self._base)
        return self._output.take()

    # ---- the loop ----------------------------------------------------------------------

    def _feed(self, chunk: str) -> list[Event]:
        if type(chunk) is not str:
            if isinstance(chunk, str):
                chunk = str(chunk)
            else:
                raise ChunkTypeError(
                    f"feed() takes a str chunk, not {type(chunk).__name__}"
                    + (" (decode bytes first)" if isinstance(chunk, (bytes, bytearray)) else ""))
        if self._mode is _CLOSED:
            raise StreamClosedError("feed() called after close(); start a new StreamParser")
        if chunk and self._tail:
            verdict = self._arriving.step(self._tail, chunk, self._limit - self._base)
            if verdict == EXTENDS:
                # The chunk only extends the token arriving at the end of the tail.
                self._tail += chunk
                return []
            if (verdict == DEAD and self._mode is Mode.SCAN and not self._output.waiting
                    and self._opener_absent(chunk) and self._opener_absent(self._tail[1:])):
                # It was no tag after all (`<div`, `a < b`), and nothing else in the
                # text can start one: all of it is plain text, at once.
                return self._plain_text(self._tail + chunk)
        self._process(self._tail + chunk, final=False)
        self._plain = (self._mode is Mode.SCAN and not self._tail
                       and not self._output.waiting and bool(self._opener_char))
        return self._output.take()

    def _plain_text(self, text: str) -> list[Event]:
        self._tail = ""
        self._arriving.clear()
        self._output.text(text, self._base)
        self._base += len(text)
        self._plain = bool(self._opener_char)
        return self._output.take()

    def _process(self, text: str, final: bool) -> None:
        """Run the modes over `text` (the tail and the new chunk) as far as it goes."""
        self._arriving.clear()
        pos = 0
        end = len(text)
        base = self._base
        while True:
            if self._mode is Mode.CAPTURE:
                pos, waiting = self._lex(text, pos, base, final)
            else:
                pos, waiting, opener = scan(self._dialect, self._output, self._arriving,
                                            text, pos, base, final)
                if opener is not None:
                    pos = self._open(opener, text, base)
            if waiting or pos >= end:
                break
        self._tail = text[pos:]
        self._base = base + pos

    def _open(self, opener: Opener, text: str, base: int) -> int:
        """Open a capture at the opener; returns where scanning goes on. An opening tag
        that does not fit within the capture limit alone is text."""
        at, token_end = opener.at, opener.end
        start = base + at
        limit = start + self._max_capture
        held_limit = self._output.held_limit
        if held_limit >= 0:
            limit = min(limit, held_limit)
        if start + (token_end - at) > limit:
            self._output.text(text[at:at + 1], start)
            return at + 1
        rule = self._dialect.opener_rule[opener.spec.name]
        capture = Capture(self._dialect, rule, start, opener.ticket, limit)
        capture.open(opener.spec, text[at:token_end])
        self._capture = capture
        self._limit = limit
        self._mode = next_mode(self._mode, Move.OPEN)
        return token_end

    def _lex(self, text: str, pos: int, base: int, final: bool) -> tuple[int, bool]:
        capture = self._capture
        if capture is None:  # the mode table guarantees a capture in CAPTURE mode
            raise AssertionError("CAPTURE mode without a capture")
        pos, outcome = capture.lex(self._dialect, self._arriving, text, pos, base, final)
        if outcome == WAITING:
            return pos, True
        self._capture = None
        self._limit = _NO_LIMIT
        if outcome == COMPLETE:
            self._mode = next_mode(self._mode, Move.COMPLETE)
            raw = capture.text
            calls = build_calls(capture.calls, raw, capture.start, self._policy)
            event = ToolCallBlock(calls, raw, capture.start, capture.start + len(raw))
            self._output.block(event, capture.ticket)
        elif outcome == FAILED:
            self._mode = next_mode(self._mode, Move.FAIL)
            released = capture.text
            if released:
                self._output.text(released, capture.start)
        return pos, False


def parse(text: str, dialect: str | Dialect = "deepseek", *,
          max_capture: int = DEFAULT_MAX_CAPTURE, tools: Any = None,
          model: str | None = None, repair: Any = None) -> ParseResult:
    """Parse a whole text at once; the same events as streaming it (SPEC G2)."""
    if not isinstance(text, str):
        raise ChunkTypeError(f"parse() takes a str, not {type(text).__name__}")
    parser = StreamParser(dialect, max_capture=max_capture, tools=tools, model=model,
                          repair=repair)
    events = parser.feed(text) + parser.close()
    merged: list[Event] = []
    for event in events:
        if isinstance(event, Text) and merged and isinstance(merged[-1], Text):
            merged[-1] = make_text(merged[-1].text + event.text)
        else:
            merged.append(event)
    return ParseResult(events=tuple(merged), saw_tool_syntax=parser.saw_tool_syntax)
