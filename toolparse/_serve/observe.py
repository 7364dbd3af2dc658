"""What a request's parsers find, counted and logged as it goes out (SPEC 9): calls by
status, failed blocks and rejected calls with their reasons in words
(`toolparse._reasons`), reasoning characters, and markup of other dialects
(`foreign.py`).

The proxy sees the parser's events only through the OpenAI adapter, which makes one
parser per choice with `toolparse.openai._parsers.make_parser` (looked up on that
module at each call: the adapter's own seam). `install()` wraps that function once per
process: while a request's `Watch` is current (`watching(watch)`, a context variable
set around the adapter's calls), each parser the adapter makes comes back wrapped in a
`WatchedParser`, which hands the adapter exactly the events the parser gave and reads
them on the way. With no watch current (any other use of `toolparse.openai` in the
process), the adapter's parser comes back as it was made.

Cost per chunk: one call and a loop over the chunk's events (usually one `Text`); per
piece of content, the foreign-markup search (`foreign.Spotter`). Per failed block or
rejected call, a sentence and a log line.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from contextvars import ContextVar, Token
from typing import Any, Final

from toolparse._dialect import Dialect
from toolparse._events import Reasoning, StreamEvent, Text, ToolCallBlock
from toolparse._reasons import failure_message, quoted, rejection_message
from toolparse._serve.foreign import ForeignMarkup, Spotter
from toolparse._serve.logs import EXCERPT, excerpt, log_event
from toolparse._serve.metrics import RouteMetrics
from toolparse.openai import _parsers

__all__ = ["Watch", "WatchedParser", "install", "watching"]

_CURRENT: Final[ContextVar[Watch | None]] = ContextVar("toolparse_serve_watch", default=None)


def install() -> None:
    """Wrap the adapter's `make_parser` (once per process; idempotent)."""
    made = _parsers.make_parser
    if getattr(made, "watched", False):
        return

    def make_parser(settings: _parsers.Settings) -> _parsers.ParserLike:
        parser = made(settings)
        watch = _CURRENT.get()
        return parser if watch is None else WatchedParser(parser, watch)

    make_parser.watched = True  # type: ignore[attr-defined]
    _parsers.make_parser = make_parser


class watching:  # noqa: N801  (a context manager, used as a function is)
    """`with watching(watch):` parsers the adapter makes inside the block report to
    `watch`. (A class: the generator-based form costs several times as much, and the
    proxy enters it once per upstream read.)"""

    __slots__ = ("_watch", "_token")
    _token: Token[Watch | None]

    def __init__(self, watch: Watch) -> None:
        self._watch = watch

    def __enter__(self) -> None:
        self._token = _CURRENT.set(self._watch)

    def __exit__(self, *exc: object) -> None:
        _CURRENT.reset(self._token)


class Watch:
    """One request's counts and log lines, on its route."""

    __slots__ = ("request_id", "route", "dialect", "metrics", "markup", "policy", "reading",
                 "foreign_seen", "parsers")

    def __init__(self, request_id: str, route: str, metrics: RouteMetrics, reading: Dialect,
                 markup: ForeignMarkup | None, policy: str) -> None:
        self.request_id = request_id
        self.route = route
        self.metrics = metrics
        self.dialect = metrics.dialect
        """The route's dialect, as labels and log lines name it."""
        self.reading = reading
        """The dialect the parsers read with (under `parse`, with every other bundled one)."""
        self.markup = markup
        """The other dialects' openers (None: the route reads them all, `auto`)."""
        self.policy = policy
        self.foreign_seen: set[str] = set()
        """The other dialects whose markup this request's answer held."""
        self.parsers: list[WatchedParser] = []
        """The request's parsers (one per choice)."""

    def finish(self) -> None:
        """The request is over (its parsers may never be closed: a client that left):
        the log lines that wait for more of an excerpt are written now."""
        for parser in self.parsers:
            parser.flush()

    def failed(self, event: Text, line: int) -> None:
        failure = event.failure
        assert failure is not None
        dialect = self._reader(event.text)
        self.metrics.failed_block(failure.reason, dialect)
        log_event(logging.WARNING, "failed_block", request_id=self.request_id,
                  route=self.route, dialect=dialect, reason=failure.reason,
                  message=failure_message(failure, event.text, self.reading, first_line=line),
                  excerpt=excerpt(event.text, failure.at - failure.start))

    def block(self, block: ToolCallBlock, line: int) -> str:
        """Count a block's calls and log its rejected ones; returns the dialect that
        read it (under `parse`, maybe another one)."""
        dialect = self._reader(block.raw)
        metrics = self.metrics
        for call in block.calls:
            metrics.call(call.status, dialect)
            if call.status != "rejected":
                continue
            metrics.rejected(call.reason or "unknown", dialect)
            at = line + block.raw.count("\n", 0, max(call.start - block.start, 0))
            log_event(logging.INFO, "rejected_call", request_id=self.request_id,
                      route=self.route, dialect=dialect, reason=call.reason,
                      message=rejection_message(call, line=at), call_id=call.id,
                      excerpt=excerpt(call.raw or block.raw))
        return dialect

    def foreign(self, seen: str) -> None:
        """Markup of the dialect `seen` was in the answer (counted at once)."""
        self.foreign_seen.add(seen)
        self.metrics.foreign(seen)

    def sighted(self, seen: str, text: str, line: int, read: bool) -> None:
        """The log line of a sighting: markup of the dialect `seen` at the start of
        `text` (what followed it, at most `EXCERPT` characters), at `line`; sent as
        content, or (`read`) read as calls under `parse`."""
        opener = self.markup.opener_text(text) if self.markup is not None else ""
        done = "read as a call (on_foreign_markup: parse)" if read else "sent as content"
        level = logging.DEBUG if self.policy == "pass" else \
            logging.INFO if read else logging.WARNING
        log_event(level, "foreign_markup", request_id=self.request_id, route=self.route,
                  dialect=self.dialect, seen=seen, reason="read" if read else "sent_as_content",
                  message=f"`{quoted(opener)}` at line {line} is {seen} markup, which this "
                          f"route ({self.dialect}) does not read: {done}",
                  excerpt=text[:EXCERPT])

    def reasoning(self, characters: int) -> None:
        self.metrics.reasoning.inc(characters)

    def _reader(self, text: str) -> str:
        """The dialect that read a block: the route's, or under `parse` another one
        whose opener starts it."""
        if self.policy != "parse" or self.markup is None:
            return self.dialect
        return self.markup.opener(text) or self.dialect


def _nowhere(text: str) -> None:
    return None


class _Pending:
    """A sighting whose log line waits for what follows its opener (the excerpt)."""

    __slots__ = ("seen", "line", "parts", "size")

    def __init__(self, seen: str, line: int, text: str) -> None:
        self.seen = seen
        self.line = line
        self.parts = [text]
        self.size = len(text)


class WatchedParser:
    """A parser the adapter made, read on the way: the same events, in the same lists."""

    __slots__ = ("_parser", "_watch", "_lines", "_spotter", "_failure", "_seen", "_pending",
                 "_fresh", "_may_open")

    def __init__(self, parser: _parsers.ParserLike, watch: Watch) -> None:
        self._parser = parser
        self._watch = watch
        watch.parsers.append(self)
        self._lines = 0
        """Line ends in the input so far (events' `raw`), for the line numbers."""
        self._spotter = Spotter(watch.markup, self._sighted) if watch.markup is not None \
            else None
        self._may_open = watch.markup.may_open if watch.markup is not None else _nowhere
        """Where in a text an opener of another dialect could start."""
        self._failure: Any = None
        """The failure last reported (a long failed span comes in several pieces)."""
        self._seen: set[tuple[str, bool]] = set()
        """The other dialects whose markup this choice held, sent as content (False) or
        read (True): each is reported once per choice, at its first sighting."""
        self._pending: _Pending | None = None
        self._fresh = False
        """The pending sighting was found in the piece of text being read."""

    def feed(self, chunk: str) -> Sequence[StreamEvent]:
        events = self._parser.feed(chunk)
        if len(events) == 1:    # the common case, a piece of plain content, first
            event = events[0]
            if type(event) is Text and event.failure is None:
                spotter = self._spotter
                if spotter is not None and (spotter.carry or self._pending is not None
                                            or self._may_open(event.text) is not None):
                    self._content(event.text)
                self._lines += event.raw.count("\n")
                return events
        if events:
            self._read(events)
        return events

    def close(self) -> Sequence[StreamEvent]:
        events = self._parser.close()
        if events:
            self._read(events)
        self.flush()
        return events

    def flush(self) -> None:
        """Write the log line of a sighting still waiting for its excerpt."""
        pending, self._pending = self._pending, None
        if pending is not None:
            self._watch.sighted(pending.seen, "".join(pending.parts), pending.line, False)

    def _read(self, events: Sequence[StreamEvent]) -> None:
        spotter = self._spotter
        for event in events:
            if type(event) is Text:
                if event.failure is None:
                    if spotter is not None:
                        self._content(event.text)
                else:
                    self._gap()
                    if event.failure != self._failure:
                        self._failure = event.failure
                        self._watch.failed(event, self._lines + 1)
                raw = event.raw
            elif type(event) is ToolCallBlock:
                self._gap()
                dialect = self._watch.block(event, self._lines + 1)
                if dialect != self._watch.dialect:   # `parse`: another dialect's block
                    self._sighted(dialect, event.raw, self._lines + 1, read=True)
                raw = event.raw
            elif type(event) is Reasoning:
                self._gap()
                self._watch.reasoning(len(event.text))
                raw = event.raw
            else:    # SPEC 7's incremental events carry no text
                continue
            self._lines += raw.count("\n")

    def _content(self, text: str) -> None:
        """A piece of content going out: searched, and kept for a waiting excerpt."""
        assert self._spotter is not None
        self._spotter.text(text, self._lines + 1)
        pending = self._pending
        if pending is None:
            return
        if self._fresh:       # found in this very piece: it holds the rest of the piece
            self._fresh = False
            return
        pending.parts.append(text)
        pending.size += len(text)
        if pending.size >= EXCERPT:
            self.flush()

    def _gap(self) -> None:
        if self._spotter is not None:
            self._spotter.gap()
        self.flush()

    def _sighted(self, seen: str, text: str, line: int, read: bool = False) -> None:
        if (seen, read) in self._seen:
            return
        self._seen.add((seen, read))
        self._watch.foreign(seen)
        if read:
            self._watch.sighted(seen, text, line, True)
            return
        self.flush()
        self._pending = _Pending(seen, line, text)
        self._fresh = True
        if len(text) >= EXCERPT:
            self.flush()
            self._fresh = False
