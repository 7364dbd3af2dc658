"""The stream engine: chunks in, text and tool-call block events out (sans-I/O).

Theory of operation
-------------------
The engine is in one of two modes (`_Mode`):

SCAN     Outside any block. The text is Markdown. A compiled search finds the next
         character that can start a block (for DeepSeek, `<`); everything before it is
         emitted at once and queued for the Markdown tracker. At that character the
         lexer tries the dialect's opening terminals (`<tool_calls ...>`, `<invoke ...>`):
         no match -> one character of text; "could still match" -> the rest of the chunk
         waits for the next one; a match -> ask the Markdown tracker where we are:
           CODE     the tag is text (SPEC G3);
           TEXT     open a capture;
           PENDING  open a capture whose fate waits on a backtick run (SPEC 4.3).
CAPTURE  Inside a block. Tokens go one by one into Lark's interactive LALR parser as
         chunks arrive; the Markdown tracker sees nothing (SPEC G3a). A token the parser
         rejects (or text no terminal matches, or a Transformer refusal) fails the block:
         its text up to that token is released as text and fed to the Markdown tracker,
         and scanning resumes at that token (SPEC 3, G4). When the parser can accept the
         end, the block is complete: one `ToolCallBlock` with its exact raw text.

Held output. While a PENDING ticket is unresolved, everything from its block on is held
in `_held` (in order); a resolution turns the block into text (it was code) or keeps it
as a block, and the held prefix up to the next unresolved block is released.

Bounds (SPEC G6, G7). Every character is lexed once in its mode, plus once more by the
Markdown tracker if a failed block releases it. A capture longer than `max_capture`
fails at exactly `start + max_capture`; held output longer than `max_capture` gives up
there (every held block becomes text). What waits between chunks is at most one atom
(`_lexer.MAX_ATOM`) or the open capture, so memory is O(max_capture).

The plain-text fast path (no capture, nothing held, no block-start character in the
chunk) costs one search, one append and one event per chunk.
"""

from __future__ import annotations

import enum
import re
from collections import deque
from collections.abc import Callable
from typing import Any, Final

from lark import Token
from lark.exceptions import UnexpectedInput

from toolparse._calls import build_calls, make_policy
from toolparse._dfa import DFA, dfa_for
from toolparse._dialect import Dialect, resolve_dialect
from toolparse._errors import ChunkTypeError, StreamClosedError
from toolparse._events import Event, ParseResult, Text, ToolCallBlock
from toolparse._lexer import MAX_ATOM, NEED_MORE, RUN_HOLD, TerminalSpec, match_terminal
from toolparse._markdown import Context, MarkdownTracker
from toolparse._transform import BlockRejected, RawCall

__all__ = ["StreamParser", "parse", "DEFAULT_MAX_CAPTURE"]

DEFAULT_MAX_CAPTURE: Final = 1 << 20
"""Default `max_capture`: 1 MiB of characters."""

_MD_BATCH: Final = 1 << 16
"""Plain text is handed to the Markdown tracker in batches of about this many characters."""

# Fast construction of frozen Text events on the hot path (skips dataclass __init__).
_new = object.__new__
_set_text = Text.__dict__["text"].__set__


def _make_text(text: str) -> Text:
    event = _new(Text)
    _set_text(event, text)
    return event


_str_new = str.__new__


def _make_token(name: str, value: str, start: int, end: int) -> Token:
    """A Lark Token without Token.__new__'s keyword handling (hot path: one per token)."""
    token = _str_new(Token, value)
    token.type = name
    token.value = value
    token.start_pos = start
    token.end_pos = end
    token.line = token.column = token.end_line = token.end_column = None
    return token


def _absence_test(chars: str, search: Callable[[str], Any]) -> Callable[[str], bool]:
    """A function telling that a chunk holds none of `chars` (the fast path's test)."""
    if len(chars) == 1:
        def absent(chunk: str) -> bool:
            return chars not in chunk
    else:
        def absent(chunk: str) -> bool:
            return search(chunk) is None
    return absent


class _Mode(enum.Enum):
    SCAN = "scan"
    CAPTURE = "capture"


class _Capture:
    """An open block: the parser, its text so far, and where it must end."""

    __slots__ = ("parser", "start", "parts", "ticket", "limit")

    def __init__(self, parser: Any, start: int, ticket: int, limit: int) -> None:
        self.parser = parser
        self.start = start
        self.parts: list[str] = []
        self.ticket = ticket
        self.limit = limit


class _HeldBlock:
    """A complete block whose fate waits on a Markdown ticket."""

    __slots__ = ("event", "ticket", "in_code")

    def __init__(self, event: ToolCallBlock, ticket: int) -> None:
        self.event = event
        self.ticket = ticket
        self.in_code: bool | None = None


class StreamParser:
    """Finds tool calls in a text stream, chunk by chunk.

    `feed(chunk)` returns the events that chunk made certain; `close()` ends the stream
    and returns the rest. Joining every event's text (`Text.text`, `ToolCallBlock.raw`)
    gives back the input exactly, however it was chunked.
    """

    __slots__ = (
        "_dialect", "_policy", "_max_capture", "_md", "_md_queue",
        "_mode", "_tail", "_base", "_capture", "_held", "_unresolved", "_held_limit",
        "_out", "_closed", "_saw", "_resume",
        "_held_run", "_held_atom", "_held_dfa", "_held_state", "_plain", "_opener_absent",
        "_opener_char", "_md_flush_at",
    )

    def __init__(self, dialect: str | Dialect = "deepseek", *,
                 max_capture: int = DEFAULT_MAX_CAPTURE,
                 tools: Any = None, model: str | None = None, repair: Any = None) -> None:
        if isinstance(max_capture, bool) or not isinstance(max_capture, int) or max_capture < 1:
            raise ValueError(f"max_capture must be a positive int, not {max_capture!r}")
        self._dialect = resolve_dialect(dialect)
        self._policy = make_policy(tools, model, repair)
        self._max_capture = max_capture
        self._md = MarkdownTracker()
        self._md_queue: list[str] = []
        self._md_flush_at = _MD_BATCH   # queued text goes to the tracker past this offset
        self._mode = _Mode.SCAN
        self._tail = ""
        self._base = 0            # stream offset of self._tail[0]
        self._capture: _Capture | None = None
        self._held: deque[str | ToolCallBlock | _HeldBlock] = deque()
        self._unresolved: dict[int, _HeldBlock] = {}
        self._held_limit = -1     # offset where held output gives up; -1: nothing held
        self._out: list[str | ToolCallBlock] = []
        self._closed = False
        self._saw = False
        # Where a retry after NEED_MORE may resume: (stream offset, candidate index).
        self._resume = (-1, 0)
        # A run that reached the end of the last chunk inside a block and waits (RUN_HOLD).
        self._held_run: TerminalSpec | None = None
        # The atom that asked for more at the start of the tail (CAPTURE), or the opener
        # probe (SCAN); a chunk that leaves it still partial needs no other work.
        self._held_atom: Any = None
        # The same, stepped incrementally: the automaton of that atom and its state after
        # the tail, so that a chunk costs a look-up per character (see _dfa).
        self._held_dfa: DFA | None = None
        self._held_state = 0
        chars = self._dialect.opener_chars
        self._opener_absent = _absence_test(chars, re.compile("[" + re.escape(chars) + "]").search)
        # The fast path tests one character with `in`; a dialect whose blocks can start
        # with several characters takes the general path (correct, just slower).
        self._opener_char = chars if len(chars) == 1 else ""
        # True when the fast path applies: SCAN mode, nothing waiting, nothing held.
        self._plain = bool(self._opener_char)

    # ---- public API --------------------------------------------------------------------

    @property
    def dialect(self) -> Dialect:
        """The dialect this parser reads."""
        return self._dialect

    @property
    def saw_tool_syntax(self) -> bool:
        """A wrapper or invoke tag has been seen outside Markdown code."""
        return self._saw

    def feed(self, chunk: str) -> list[Event]:
        """Consume one chunk; return the events it made certain, in order."""
        if self._plain and type(chunk) is str and self._opener_char not in chunk:
            # Fast path: plain text, nothing open, nothing held. One search, one append,
            # one event.
            if not chunk:
                return []
            self._base += len(chunk)
            self._md_queue.append(chunk)
            if self._base > self._md_flush_at:
                self._flush_md()
            event = _new(Text)
            _set_text(event, chunk)
            return [event]
        return self._feed(chunk)

    def _feed(self, chunk: str) -> list[Event]:
        if type(chunk) is not str:
            if isinstance(chunk, str):
                chunk = str(chunk)
            else:
                raise ChunkTypeError(
                    f"feed() takes a str chunk, not {type(chunk).__name__}"
                    + (" (decode bytes first)" if isinstance(chunk, (bytes, bytearray)) else ""))
        if self._closed:
            raise StreamClosedError("feed() called after close(); start a new StreamParser")
        held_dfa = self._held_dfa
        if held_dfa is not None and chunk:
            # A tag (or marker) is still arriving: step its automaton over the chunk.
            state = held_dfa.advance(self._held_state, chunk)
            size = len(self._tail) + len(chunk)
            if (state >= 0 and size < MAX_ATOM
                    and (self._capture is None or self._base + size < self._capture.limit)):
                self._tail += chunk
                self._held_state = state
                return []
            if (state == -1 and self._mode is _Mode.SCAN and not self._unresolved
                    and self._opener_absent(chunk) and self._opener_absent(self._tail[1:])):
                # It was no tag after all (`<div`, `a < b`), and nothing else in the
                # text can start one: all of it is plain text.
                text = self._tail + chunk
                self._tail = ""
                self._held_dfa = None
                self._plain = bool(self._opener_char)
                self._base += len(text)
                self._md_queue.append(text)
                if self._base > self._md_flush_at:
                    self._flush_md()
                return [_make_text(text)]
        held_atom = self._held_atom
        if held_atom is not None and chunk:
            # A tag (or marker) is still arriving: one partial match says whether this
            # chunk completes or breaks it; otherwise it keeps waiting.
            window = self._tail + chunk
            m = held_atom(window, 0, min(len(window), MAX_ATOM), partial=True)
            if (m is not None and m.partial and len(window) < MAX_ATOM
                    and (self._capture is None or self._base + len(window) < self._capture.limit)):
                self._tail = window
                return []
        elif self._held_run is not None:
            # Inside a block, the chunk only extends the run that is waiting.
            tail = self._tail
            capture = self._capture
            if (len(tail) + len(chunk) < RUN_HOLD and self._held_run.full.fullmatch(chunk)
                    and capture is not None
                    and self._base + len(tail) + len(chunk) < capture.limit):
                self._tail = tail + chunk
                return []
        self._process(self._tail + chunk, final=False)
        self._plain = (self._mode is _Mode.SCAN and not self._tail and not self._unresolved
                       and bool(self._opener_char))
        return self._take()

    def close(self) -> list[Event]:
        """End the stream; return the remaining events. The parser cannot be fed again."""
        if self._closed:
            raise StreamClosedError("close() called twice")
        self._closed = True
        self._plain = False
        self._process(self._tail, final=True)
        self._flush_md()
        self._resolve(self._md.finish())
        # Fail closed: a ticket the tracker left open keeps its block as text.
        for held in list(self._unresolved.values()):
            self._settle(held, in_code=True)
        return self._take()

    # ---- the loop ----------------------------------------------------------------------

    def _process(self, text: str, final: bool) -> None:
        self._held_run = None
        self._held_atom = None
        self._held_dfa = None
        pos = 0
        end = len(text)
        while True:
            if self._mode is _Mode.CAPTURE:
                pos, waiting = self._lex(text, pos, final)
            else:
                pos, waiting = self._scan(text, pos, final)
            if waiting or pos >= end:
                break
        self._tail = text[pos:]
        self._base += pos

    def _scan(self, text: str, pos: int, final: bool) -> tuple[int, bool]:
        """SCAN mode from `pos`; returns (position reached, waiting for more text)."""
        end = len(text)
        openers = self._dialect.openers
        find = self._dialect.opener_search.search
        while pos < end:
            # The next complete block-start tag, found at C speed (runs of `<` included).
            m = find(text, pos)
            while m is not None and m.end() - m.start() > MAX_ATOM:
                m = find(text, m.start() + 1)
            at = m.start() if m is not None else end
            if not final:
                # Before it, only the last MAX_ATOM characters can hold a tag that is
                # still arriving (`<tool_` at the end of the chunk).
                hold = self._arriving_opener(text, max(pos, end - MAX_ATOM + 1), min(at, end))
                if hold >= 0:
                    if hold > pos:
                        self._text(text, pos, hold)
                    self._hold_atom(self._dialect.opener_dfa, self._dialect.opener_probe.match,
                                    text, hold)
                    return hold, True
            if at > pos:
                self._text(text, pos, at)
            if at >= end:
                return end, False
            spec, token_end, _ = match_terminal(openers, text, at, end, final)
            if token_end == NEED_MORE:  # a longer opener could still match here
                self._hold_atom(self._dialect.opener_dfa, self._dialect.opener_probe.match,
                                text, at)
                return at, True
            if spec is None:
                self._text(text, at, at + 1)
                pos = at + 1
                continue
            context, ticket = self._context()
            if context is Context.CODE:
                self._text(text, at, token_end)
                pos = token_end
                continue
            if context is Context.TEXT:
                self._saw = True
            if self._open(spec, text, at, token_end, ticket):
                return token_end, False
            # The opening tag alone does not fit in the capture limit: it is text.
            self._text(text, at, at + 1)
            pos = at + 1
        return pos, False

    def _hold_atom(self, dfa: DFA | None, partial: Any, text: str, pos: int) -> None:
        """text[pos:] could still become an atom: remember how to test the next chunk
        cheaply (its automaton, stepped; else a partial re-match)."""
        if dfa is not None:
            state = dfa.advance(dfa.initial, text[pos:])
            if state >= 0:
                self._held_dfa = dfa
                self._held_state = state
                return
        self._held_atom = partial

    def _arriving_opener(self, text: str, start: int, stop: int) -> int:
        """The first position in text[start:stop] where a block start could still be
        arriving (a prefix of one reaching the end of the text), or -1."""
        dialect = self._dialect
        end = len(text)
        dfa = dialect.opener_dfa
        for candidate in dialect.opener_start_search.finditer(text, start, stop + 1):
            at = candidate.start()
            if at >= stop:
                break
            if dfa is not None:
                # Alive to the end without completing: a prefix of a block start.
                if dfa.advance(dfa.initial, text[at:end]) >= 0:
                    return at
                continue
            m = dialect.opener_probe.match(text, at, end, partial=True)
            if m is not None and m.partial:
                return at
        return -1

    def _open(self, spec: TerminalSpec, text: str, at: int, token_end: int, ticket: int) -> bool:
        """Start a capture with its opening token text[at:token_end]; False if it cannot
        fit within the capture limit."""
        start = self._base + at
        limit = start + self._max_capture
        if self._held_limit >= 0:
            limit = min(limit, self._held_limit)
        if start + (token_end - at) > limit:
            return False
        rule = self._dialect.opener_rule[spec.name]
        capture = _Capture(self._dialect.lark.parse_interactive(start=rule), start, ticket, limit)
        value = text[at:token_end]
        # An opener is a valid first token of its start rule, and a first shift runs no
        # Transformer method, so this cannot fail.
        capture.parser.feed_token(_make_token(spec.name, value, start, start + len(value)))
        capture.parts.append(value)
        self._capture = capture
        self._mode = _Mode.CAPTURE
        return True

    def _lex(self, text: str, pos: int, final: bool) -> tuple[int, bool]:
        """CAPTURE mode from `pos`; returns (position reached, waiting for more text)."""
        capture = self._capture
        assert capture is not None
        dialect = self._dialect
        parser = capture.parser
        state = parser.parser_state
        feed_token = state.feed_token
        base = self._base
        end = len(text)
        limit = capture.limit - base
        stop = min(end, limit)
        hard = limit <= end or final
        ignored = dialect.ignored_names
        parts = capture.parts
        resume_at, resume_index = self._resume
        # Lark's parse table and state stack, read directly: this loop runs per token.
        actions = state.parse_conf.parse_table.states
        stack = state.state_stack
        lexers = dialect.state_lexers
        while True:
            if pos >= stop:
                if not hard:
                    return pos, True
                # The capture limit or the end of stream, inside an open block.
                return self._fail(text, pos), False
            current = stack[-1]
            lexer = lexers.get(current) or dialect.lexer_for(current, actions[current])
            candidates = lexer.by_char.get(text[pos], lexer.others)
            first = resume_index if resume_at == base + pos else 0
            spec, token_end, index = match_terminal(candidates, text, pos, stop, hard, first)
            if token_end == NEED_MORE:
                self._resume = (base + pos, index)
                spec = candidates[index]  # the tail starts at pos
                self._hold_atom(None if spec.has_lookahead else dfa_for(spec.full.pattern),
                                spec.partial.match, text, pos)
                return pos, True
            if spec is None:
                return self._fail(text, pos), False
            if spec.is_run and token_end == stop and not hard and token_end - pos < RUN_HOLD:
                # Wait for the rest of the run rather than feed it in pieces.
                self._held_run = spec
                self._resume = (base + pos, index)
                return pos, True
            value = text[pos:token_end]
            if spec.name in ignored:
                parts.append(value)
                pos = token_end
                continue
            try:
                feed_token(_make_token(spec.name, value, base + pos, base + token_end))
            except (UnexpectedInput, BlockRejected):
                return self._fail(text, pos), False
            parts.append(value)
            pos = token_end
            if "$END" in actions[stack[-1]]:
                try:
                    calls = parser.feed_eof()
                except (UnexpectedInput, BlockRejected):
                    parts.pop()
                    return self._fail(text, pos - len(value)), False
                self._complete(calls)
                return pos, False

    def _complete(self, raw_calls: tuple[RawCall, ...]) -> None:
        capture = self._capture
        assert capture is not None
        self._capture = None
        self._mode = _Mode.SCAN
        raw = "".join(capture.parts)
        calls = build_calls(raw_calls, raw, capture.start, self._policy)
        event = ToolCallBlock(calls, raw, capture.start, capture.start + len(raw))
        if capture.ticket < 0:
            self._emit(event)
        else:
            held = _HeldBlock(event, capture.ticket)
            self._unresolved[capture.ticket] = held
            if self._held_limit < 0:
                self._held_limit = capture.start + self._max_capture
            self._held.append(held)
        self._flush_md()
        self._resolve(self._md.opaque(raw))

    def _fail(self, text: str, pos: int) -> int:
        """Fail the open capture at text[pos]: release its text; scanning resumes at pos."""
        capture = self._capture
        assert capture is not None
        self._capture = None
        self._mode = _Mode.SCAN
        released = "".join(capture.parts)
        if released:
            self._release(released, capture.start)
        return pos

    # ---- output ------------------------------------------------------------------------

    def _text(self, text: str, start: int, end: int) -> None:
        """text[start:end] is plain text at the current position: emit it, and queue it
        for the Markdown tracker."""
        self._release(text[start:end], self._base + start)

    def _release(self, piece: str, offset: int) -> None:
        """Emit `piece` (starting at stream offset `offset`) as text and feed it to the
        Markdown tracker. While output is held, the tracker is fed at once so that its
        resolutions arrive with the text that decided them, and held output gives up
        exactly at its limit."""
        if not self._unresolved:
            self._emit(piece)
            self._md_queue.append(piece)
            if offset + len(piece) > self._md_flush_at:
                self._flush_md()
            return
        if offset + len(piece) > self._held_limit >= offset:
            cut = self._held_limit - offset
            self._release(piece[:cut], offset)
            if self._unresolved:
                self._give_up()
            self._release(piece[cut:], offset + cut)
            return
        self._emit(piece)
        self._resolve(self._md.feed(piece))

    def _emit(self, item: str | ToolCallBlock) -> None:
        if self._unresolved:
            self._held.append(item)
        else:
            self._out.append(item)

    def _context(self) -> tuple[Context, int]:
        self._flush_md()
        return self._md.context()

    def _flush_md(self) -> None:
        if self._md_queue:
            text = "".join(self._md_queue) if len(self._md_queue) > 1 else self._md_queue[0]
            self._md_queue.clear()
            self._md_flush_at = self._base + _MD_BATCH
            self._resolve(self._md.feed(text))

    def _resolve(self, resolutions: list[tuple[int, bool]]) -> None:
        for ticket, in_code in resolutions:
            if not in_code:
                self._saw = True
            held = self._unresolved.get(ticket)
            if held is not None:
                self._settle(held, in_code)

    def _settle(self, held: _HeldBlock, in_code: bool) -> None:
        held.in_code = in_code
        del self._unresolved[held.ticket]
        queue = self._held
        while queue:
            item = queue[0]
            if isinstance(item, _HeldBlock):
                if item.in_code is None:
                    break
                queue.popleft()
                self._out.append(item.event.raw if item.in_code else item.event)
            else:
                queue.popleft()
                self._out.append(item)
        if not self._unresolved:
            self._held_limit = -1
        else:
            first = next(i for i in queue if isinstance(i, _HeldBlock))
            self._held_limit = first.event.start + self._max_capture

    def _give_up(self) -> None:
        """Held output reached max_capture: every held block becomes text (fail closed)."""
        for held in list(self._unresolved.values()):
            self._settle(held, in_code=True)

    def _take(self) -> list[Event]:
        """The events collected since the last call, adjacent text merged."""
        out = self._out
        if not out:
            return []
        self._out = []
        events: list[Event] = []
        pending: list[str] = []
        for item in out:
            if isinstance(item, str):
                pending.append(item)
            else:
                if pending:
                    events.append(_make_text("".join(pending)))
                    pending = []
                events.append(item)
        if pending:
            events.append(_make_text("".join(pending)))
        return events


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
            merged[-1] = _make_text(merged[-1].text + event.text)
        else:
            merged.append(event)
    return ParseResult(events=tuple(merged), saw_tool_syntax=parser.saw_tool_syntax)
