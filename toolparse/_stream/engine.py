"""The stream engine: chunks in, text and tool-call block events out (sans-I/O).

`StreamParser` (`parser.py`) is the public face: it checks the options and hands
`feed` and `close` straight to this module's `Engine`, which does the work (and which
the compiled build compiles, docs/performance.md, "The compiled build").

Theory of operation
-------------------
The engine keeps the text that is not decided yet (its *tail*) and moves between
the modes of `modes.py`:

SCAN     Outside any block (`scan.py`): plain text goes out at once, and to the
         Markdown tracker; a block-start tag outside code opens a capture.
CAPTURE  Inside a block (`capture.py`): tokens go one by one, as chunks arrive, into
         the LALR driver over the table Lark builds from the grammar
         (`_dialect/table.py`); the Markdown tracker sees nothing (SPEC G3a). When the
         driver can accept the end, the block is complete: one `ToolCallBlock` with its
         exact raw text. A token the table rejects (or text no terminal matches, or a
         builder's refusal, or the capture limit, or the end of the stream) fails the
         block (SPEC 3.2, G4):
         - before any call tag was accepted (a prose mention), its text up to that
           token goes out as one `Text` with its `failure`, and scanning resumes at
           that token;
         - after one was (broken calls), the failed span runs on in SKIP mode.
SKIP     A failed block's span (`skip.py`) runs to the next block close (included),
         the next block open (not included) or the end of the stream, and goes out as
         one `Text` with its failure; no call of it runs, none starts inside it.
UNDECIDED The same, for a block whose tag came after an unmatched backtick run: the
         text after it waits while a fork of the Markdown tracker reads ahead
         (`undecided.py`); in code, the block is plain text and the waiting text is
         scanned again; outside code, it is a SKIP span.

Two kinds of waiting, under two names:

- a token still *arriving* at the end of the text (`arriving.py`): the tail waits, and
  the next chunk costs a cheap test unless it completes or breaks that token;
- *held output* (`output.py`): output waiting on a Markdown ticket (SPEC 4.3).

Bounds (SPEC G6, G7). Every character is lexed once in its mode, plus once more by the
Markdown tracker if a failed block releases it. A capture longer than `max_capture`
fails at exactly `start + max_capture`; held output longer than `max_capture` gives up
there (every held block becomes text). What waits between chunks is at most one atom
(`lexer.MAX_ATOM`) or the open capture, so memory is O(max_capture). A chunk longer
than `WINDOW` is read a window at a time, so that the text a decision sends back to be
read again (UNDECIDED, CHOOSING) carries at most a window of new text, not the rest of
a whole transcript given to `parse()` (SPEC G6).

The plain-text fast path (SCAN, nothing arriving, nothing held) costs a chunk found
in the table of short chunks in which no block can start (`output.plain_events`, one
per set of openers) one look-up, one append and one event. A chunk not in it is tested
for the block-start characters; one whose start characters begin no block (kept in the
table then), or one only arriving at its end, costs a start search more
(`_quiet_text`); a contested tag's chunks go straight to its contenders.

Inside a started call (outside code for certain, nothing held), a chunk without one
of the grammar's *gates* cannot change what goes out: it is kept, unlexed, and so is a
chunk whose gates end no closing tag (`keeping.py`); the chunk that may end one lexes
the kept text up to its last gate (`_gated`). What a block's end gives out is
`endings.py`'s.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final, cast

from toolparse._calls import CallPolicy
from toolparse._dialect import Dialect
from toolparse._errors import StreamClosedError
from toolparse._events import Event, Text
from toolparse._dialect.grammar import Grammar
from toolparse._dialect.lexer import TerminalSpec
from toolparse._dialect.loader import MESSAGE_RULES
from toolparse._reasoning import Regions
from toolparse._stream.arriving import DEAD, EXTENDS, Arriving
from toolparse._stream.capture import COMPLETE, WAITING, Capture
from toolparse._stream.contest import Choice, Contest, Entrant, entrant_openers
from toolparse._stream.modes import Mode, Move, next_mode
from toolparse._stream.options import WINDOW, checked_chunk, windows
from toolparse._stream.output import (
    Output, joined_events, plain_text)
from toolparse._stream.endings import (
    broken_span, complete_block, prose_mention, waiting_block)
from toolparse._stream.keeping import KEPT_TAIL, Keeping
from toolparse._stream.progress import Argument, CallProgress
from toolparse._stream.reasoning import Thinking, message
from toolparse._stream.scan import Opener, Scanner, arriving_at_end, scan
from toolparse._stream.skip import ENDED, OPEN, FailedSpan
from toolparse._stream.undecided import Undecided

__all__ = ["Engine"]

_NO_LIMIT: Final = 1 << 62
_CLOSED: Final = Mode.CLOSED
_CHOOSING: Final = Mode.CHOOSING
_SCAN: Final = Mode.SCAN
_NO_TABLE: Final[dict[str, Text]] = {}
"""`Engine._plain_table` while the plain fast path does not apply: empty, and never
written (`Scanner.plain_event` and `keep_plain` keep chunks in the scanner's own
table)."""


class Engine:
    """The engine behind one `StreamParser` (see the module's docstring)."""

    __slots__ = (
        "_dialect", "_policy", "_max_capture", "_output", "_md_queue", "_mode", "_tail",
        "_base", "_capture", "_span", "_undecided", "_limit", "_arriving", "_plain",
        "_plain_table",
        "_new_id", "_grammar", "_run_list", "_run_stops", "_run_parts", "_run_from",
        "_incremental", "_scanner",
        "_contest", "_streaming", "_keeping", "_thinking",
    )

    def __init__(self, dialect: Dialect, max_capture: int, policy: CallPolicy | None,
                 new_id: Callable[[], str], incremental: bool,
                 regions: Regions | None = None, in_reasoning: bool = False) -> None:
        """The options as `StreamParser` checked them (`policy`: None without tools;
        `regions`: the reasoning formats read, None for none; `in_reasoning`: the stream
        starts inside a region)."""
        self._incremental = incremental
        self._dialect = dialect
        self._grammar = self._dialect._grammars[0]
        """The grammar of the block in hand (under `auto`, the one chosen for it)."""
        self._scanner = Scanner(self._dialect._starts, self._dialect._anchors)
        """What SCAN searches for: every grammar's block starts."""
        self._contest: Contest | None = None
        """In CHOOSING mode: the grammars reading a block-start tag they all open."""
        self._policy = policy
        self._new_id = new_id
        self._max_capture = max_capture
        self._output = Output(max_capture)
        self._md_queue = self._output.md_queue   # the same list: the fast path appends
        self._thinking = Thinking(regions)
        """Reasoning regions and messages (SPEC 11): `regions` None, none but messages."""
        self._mode = (Mode.REASONING if in_reasoning else
                      Mode.START if regions is not None and regions.at_start else Mode.SCAN)
        self._tail = ""
        """Text not decided yet: a token still arriving (see `_arriving`)."""
        self._base = 0
        """Stream offset of `_tail[0]` (while chunks are kept, of the kept text's)."""
        self._capture: Capture | None = None
        self._span: FailedSpan | None = None
        """In SKIP mode: the failed span waiting for its end."""
        self._undecided: Undecided | None = None
        """In UNDECIDED mode: the failed block waiting on its Markdown ticket."""
        self._limit = _NO_LIMIT
        """Stream offset where the open capture must end (no capture: far away)."""
        self._arriving = Arriving()
        self._run_list: list[Any] | None = None
        """Inside a value: the list a chunk that only continues its run is appended to (with
        `_run_stops`, what ends the run, and `_run_parts`, the block's text); else None."""
        self._run_stops = ""
        self._run_parts: list[str] = []
        self._run_from = 0
        """How long `_run_list` was when `feed` began to append to it: what it appends
        goes to `_run_parts` once, when the run ends (`_leave_run`)."""
        self._streaming: Argument | None = None
        """With incremental events, when the chunks `_run_list` takes are the text of the
        value being streamed: that argument (`Argument.piece`)."""
        self._keeping: Keeping | None = None
        """Inside a started call, when no chunk without a gate can change what goes
        out (`_keep_quiet`, `keeping.py`): the chunks kept since, unlexed; else None."""
        self._plain = ""
        """While `feed`'s plain fast path applies (SCAN, nothing arriving or held:
        `_quiet()`), the first of the (up to four) characters blocks start with, which it
        tests a chunk not in its table for; else "" (`_plain_on`)."""
        self._plain_table: dict[str, Text] = _NO_TABLE
        """While it applies, the table of short chunks in which no block can start, and
        their events (`Scanner.plain_chars`): a chunk found there is plain text with no
        other test; else an empty table."""
        self._plain_on(self._mode is Mode.SCAN)

    # ---- what StreamParser hands over -------------------------------------------------

    def dialect(self) -> Dialect:
        return self._dialect

    def saw_tool_syntax(self) -> bool:
        return self._output.saw_tool_syntax

    def feed(self, chunk: object) -> list[Event]:
        """`StreamParser.feed`. `chunk` may be anything: a chunk that is no str is
        refused with a `ChunkTypeError` (`checked_chunk`), never by the compiled build's own
        argument check. Five fast paths, each a named guard, before the mode loop:"""
        if type(chunk) is str:
            if self._plain:
                if (event := self._plain_table.get(chunk)) is not None:
                    # 1. Plain text (SCAN, nothing arriving or held; a chunk seen before
                    # in which no block can start): one look-up, one append, one event.
                    # (`_give_plain`, inlined.)
                    self._base += len(chunk)
                    self._md_queue.append(chunk)
                    if self._base > self._output.md_flush_at:
                        self._output.flush_md(self._base)
                    return [event]
                # 1b. The same, for a chunk not in the table: tested (and kept there if
                # plain and short), else read by `_quiet_text`.
                if self._plain not in chunk and (
                        event := self._scanner.plain_event(chunk)) is not None:
                    return self._give_plain(chunk, event)
                return self._quiet_text(chunk)
            keeping = self._keeping
            if keeping is not None:
                # 2. Inside a started call (keeping.py): a chunk without a gate (one
                # gate: one `in`; several: `quiet`), or whose gates end no closing tag
                # (`</parameter>`), changes nothing that goes out, and is kept to be
                # lexed with the chunk that may end one. (Few locals: each one costs
                # every call of `feed` its frame's set-up.)
                if keeping.gate not in chunk or keeping.quiet(chunk):
                    after = keeping.room - len(chunk)   # (the room after the chunk)
                    if after > 0:
                        if chunk:   # (Keeping.keep, inlined; an empty chunk is not kept)
                            keeping.room = after
                            keeping.chunks.append(chunk)
                            if keeping.closer_char in chunk:
                                keeping.marked()
                        return []
                    return self._feed(chunk)
                return self._gated(chunk, keeping)
            run_list = self._run_list
            if run_list is not None:
                # 3. Inside a value: a chunk without the run's stop characters only
                # continues it (Capture.extend, inlined for the hot path).
                for stop in self._run_stops:
                    if stop in chunk:
                        break
                else:
                    after = self._base + len(chunk)   # (the offset after the chunk)
                    if self._base < after < self._limit:   # (an empty chunk: `_feed`)
                        run_list.append(chunk)   # (and to the block's text: `_leave_run`)
                        self._base = after
                        streaming = self._streaming
                        if streaming is None:
                            return []
                        stream = streaming.quick
                        if stream is None or "&" in chunk:
                            return streaming.piece(run_list)
                        # 3b. More text of a string value streaming, in its body (no `&`
                        # waits: `Argument.quick`): `EdgedStream.fast`, inlined.
                        chunk = stream.pending + chunk   # (blanks, or nothing)
                        stream.pending = ""
                        if chunk[-1].isspace():   # (its blank end waits)
                            text = chunk.rstrip()
                            stream.pending, chunk = chunk[len(text):], text
                            if not chunk:
                                return []
                        delta = streaming.events.get(chunk) or streaming.event(chunk)
                        streaming.sent.append(delta.text)
                        return [delta]  # type: ignore[list-item]  # (as `_take` says)
            elif self._tail:
                # 4. A tag arriving (`arriving.py`): a chunk that only extends it is taken.
                return self._arriving_chunk(chunk)
            elif self._contest is not None:
                # 5. A block-start tag contested (CHOOSING, `contest.py`): the entrants
                # read the chunk, which is held until one is chosen.
                return self._contested(chunk)
        return self._feed(chunk)

    def _contested(self, chunk: str) -> list[Event]:
        """`feed`'s path 5 (a contest, nothing kept, no run, no tail)."""
        contest = self._contest
        if contest is None or not chunk or len(chunk) > WINDOW or self._mode is not _CHOOSING:
            return self._feed(chunk)
        self._base += len(chunk)   # (as `_run` counts held text)
        choice = contest.take(chunk, False)
        return [] if choice is None else self._run_modes(self._chosen(contest, choice))

    def _quiet_text(self, text: str, chunk_at: int = 0, search_from: int = 0
                    ) -> list[Event]:
        """SCAN, nothing held, `text` (a dead tail, then the chunk from `chunk_at`) holds a
        block-start character (`feed`'s path 1b). When no block can go on from any (`f` in
        prose under auto), all is plain; when one can only be arriving at its end (`... <`),
        the text before it is plain and the rest waits as the tail. Else the modes. (An
        empty chunk comes here too, from path 1: nothing.)"""
        if not text:
            return []
        first = self._scanner.start_search(text, search_from)
        at = len(text)
        if first is not None:
            at = arriving_at_end(self._scanner, self._arriving, text, chunk_at,
                                 first.start(), self._limit - self._base)
        if at < 0 or self._output.ready:
            if len(text) > WINDOW and not chunk_at:
                return windows(self.feed, text)   # (a chunk `feed` took whole)
            return self._run_modes(text)
        if first is None:
            if not self._plain:   # (the plain fast path is on again; from path 1b, still)
                self._plain_on(True)
            if chunk_at:   # (a dead tail)
                self._tail = ""
                self._arriving.clear()
            elif self._plain:
                # A chunk in which no block can start (under `auto`, the `f` of `of t`)
                # is plain wherever it comes while the fast path applies: path 1 takes
                # it from now on.
                return self._give_plain(text, self._scanner.keep_plain(text))
        else:
            self._tail = text[at:]
            self._plain_on(False)  # (a tail: the plain fast path is off)
            if not at:
                return []
            text = text[:at]
        # (As `_give_plain`, inlined.)
        self._base += at
        self._md_queue.append(text)
        if self._base > self._output.md_flush_at:
            self._output.flush_md(self._base)
        return [plain_text(text)]

    def _give_plain(self, text: str, event: Text) -> list[Event]:
        """Plain `text` goes out, as `event` (a chunk not in the plain table yet):
        counted, and queued for the Markdown tracker, which reads it in bulk
        (`Output.flush_md`)."""
        self._base += len(text)
        self._md_queue.append(text)
        if self._base > self._output.md_flush_at:
            self._output.flush_md(self._base)
        return [event]

    def _plain_on(self, on: bool) -> None:
        """`feed`'s plain fast path applies from now on, or not (`_plain`, `_plain_table`;
        the scanner's, which its settling may change: `Scanner.plain_chars`)."""
        if on:
            self._plain, self._plain_table = self._scanner.plain_chars
        else:
            self._plain, self._plain_table = "", _NO_TABLE

    def _arriving_chunk(self, chunk: str) -> list[Event]:
        """`feed`'s path 4 (nothing kept, no run, a tail)."""
        verdict = self._arriving.extends(self._tail, chunk, self._limit - self._base)
        if verdict == EXTENDS:
            self._tail += chunk
            return []
        if verdict == DEAD and self._mode is _SCAN and not self._output.waiting:
            return self._quiet_text(self._tail + chunk, len(self._tail), 1)   # (as in `_feed`)
        return self._feed(chunk, verdict)

    def _gated(self, chunk: str, keeping: Keeping) -> list[Event]:
        """Chunks are kept, nothing is arriving, and `chunk` holds a gate: when it fits
        before the limit, lex the kept text up to the chunk's last gate. What follows
        that gate holds none, so it is kept in turn, unlexed, while the block goes on;
        once the block has ended, it runs the modes with the rest of the text."""
        if len(chunk) >= keeping.room or len(chunk) > WINDOW:
            return self._feed(chunk)
        text, rest = keeping.cut(chunk)
        self._keeping = None
        pos, waiting = self._lex(text, 0, self._base, False)
        self._base += pos
        if not waiting:
            self._tail = ""
            return self._run_modes(text[pos:] + rest)
        self._tail = text[pos:]   # an atom still arriving, or nothing
        capture = self._capture
        if capture is not None and capture.progress is not None:
            self._progress(capture)   # the tags just lexed: their events go with the rest's
        kept_now = None if capture is None else self._keep_quiet(capture)
        if kept_now is None:
            return self._feed(rest)
        if rest:
            if kept_now.gates != keeping.gates and not kept_now.gateless(rest):
                # The keeping starts over with other gates (a JSON body may start
                # next: `{` is one), which the rest may hold.
                return cast("list[Event]", joined_events(self._take(), self.feed(rest)))
            kept_now.keep(rest)   # (after the tail, which it now holds)
        return [] if capture is None or capture.progress is None else self._take()

    def close(self) -> list[Event]:
        """`StreamParser.close`."""
        if self._mode is Mode.CLOSED:
            raise StreamClosedError("close() called twice")
        self._plain_on(False)
        self._unkeep()
        self._leave_run()
        self._process(self._tail, final=True)
        if self._span is not None:  # the end of the stream ends a failed span
            self._span.finish(self._output)
            self._end_span()
        self._mode = next_mode(self._mode, Move.CLOSE)
        self._output.finish(self._base)
        return self._take()

    # ---- the loop ----------------------------------------------------------------------

    def _feed(self, chunk: object, verdict: int | None = None) -> list[Event]:
        """`feed` beyond its fast paths; `verdict`: what `Arriving.extends` found of the chunk
        after the arriving tail, when it could tell."""
        if type(chunk) is not str or self._mode is _CLOSED:
            chunk = checked_chunk(chunk, closed=self._mode is _CLOSED)
        self._unkeep()
        if len(chunk) > WINDOW:
            return windows(self.feed, chunk)
        if self._run_list is not None:
            self._leave_run()
        if not self._tail and chunk:
            capture = self._capture
            if capture is not None:
                if capture.extend(chunk, self._base):
                    # Inside a value: the chunk only continues the run it is in.
                    self._base += len(chunk)
                    if capture.progress is None:
                        return []
                    self._progress(capture)
                    return self._take()
            elif self._quiet():
                return self._quiet_text(chunk)
        if chunk and self._tail:
            if verdict is None:
                verdict = self._arriving.step(self._tail, chunk, self._limit - self._base)
            if verdict == EXTENDS:
                # The chunk only extends the token arriving at the end of the tail (the
                # events of tags lexed just before, `_gated`, are taken all the same).
                self._tail += chunk
                return self._take() if self._output.ready else []
            if verdict == DEAD and self._mode is Mode.SCAN and not self._output.waiting:
                # It was no tag after all (`<div`, `a < b`): the text from the tail's
                # second character on, as a chunk that holds a block-start character.
                return self._quiet_text(self._tail + chunk, len(self._tail), 1)
        text = self._tail + chunk
        capture = self._capture
        if capture is not None and self._mode is Mode.CAPTURE:
            # Inside a block: straight to its lexer (`_run` does the same, and the rest).
            self._arriving.clear()
            pos, waiting = self._lex(text, 0, self._base, False)
            self._base += pos
            if waiting:
                self._tail = text[pos:]
                self._note_capture(capture)
                return self._take()
            self._tail = ""
            text = text[pos:]
        return self._run_modes(text)

    def _run_modes(self, text: str) -> list[Event]:
        """The end of a feed: run the modes over `text` (the tail and what is left of
        the chunk) and take the events made certain."""
        self._process(text, final=False)
        self._plain_on(self._mode is Mode.SCAN and not self._tail and not self._output.waiting)
        if self._capture is not None:
            self._note_capture(self._capture)
        return self._take()

    def _note_capture(self, capture: Capture) -> None:
        """After a chunk inside a block: its incremental events, and what the next chunk
        may skip: chunks kept until a gate (`_keep_quiet`), or the run it may only
        continue (for `feed`'s fast paths)."""
        progress = capture.progress
        if progress is not None:
            self._progress(capture)
        if self._keep_quiet(capture) is not None:
            return
        if not self._tail and capture.run_list is not None:
            self._run_list = capture.run_list
            self._run_stops = capture.run_stops
            self._run_parts = capture.parts
            self._run_from = len(capture.run_list)
            # (Its pieces go straight out: only a block outside code, nothing held.)
            self._streaming = (progress.follows(capture.run_list)
                               if progress is not None and capture.ticket < 0
                               and not self._output.waiting else None)

    def _keep_quiet(self, capture: Capture) -> Keeping | None:
        """Start keeping chunks unlexed when nothing can go out before a gate (`gates.py`):
        a call has started, its tag is outside code for certain, no output is held, no
        atom longer than `KEPT_TAIL` (none under `late_closers`) is arriving, there is
        room; with incremental events, the gates are the event tags' and nothing streams
        (`CallProgress.gates`). The keeping (holding that atom), or None."""
        grammar, progress = capture.grammar, capture.progress
        found = ((grammar.gates, grammar.closers) if progress is None
                 else progress.gates(capture.driver))
        if found is None:
            return None
        gates, closers = found
        tail = self._tail
        if (not gates or len(tail) > (0 if grammar.late_closers else KEPT_TAIL)
                or not capture.invoked or capture.ticket >= 0 or self._mode is not Mode.CAPTURE
                or self._output.waiting or capture.end_at >= 0):
            return None
        room = self._limit - self._base - len(tail)
        if room <= 0:
            return None
        # A short atom still arriving (`]]>`) is kept too, lexed again at the next gate.
        self._tail = ""
        keeping = self._keeping = capture.keeping(tail, gates, closers, room)
        return keeping

    def _leave_run(self) -> None:
        """`feed`'s fast path 3 ends: the chunks it appended to the run join the block's
        text, and the pieces it gave out itself are read (`Argument.caught_up`)."""
        run_list = self._run_list
        if run_list is not None:
            self._run_list = None
            if len(run_list) > self._run_from:
                self._run_parts += run_list[self._run_from:]
        streaming = self._streaming
        if streaming is not None:
            self._streaming = None
            streaming.caught_up()

    def _unkeep(self) -> None:
        """The text kept becomes the tail, to be lexed from its start."""
        keeping = self._keeping
        if keeping is None:
            return
        self._keeping = None
        if keeping.chunks:
            self._tail = keeping.text()
            self._arriving.clear()

    def _progress(self, capture: Capture) -> None:
        """After a chunk, with incremental events: what became certain of the open
        block's calls goes out, unless its opening tag may be in code (then it waits
        with the block)."""
        progress = capture.progress
        if progress is not None:
            progress.look(capture.driver)
            if capture.ticket < 0 and progress.events:
                self._output.progress(progress.take())

    def _take(self) -> list[Event]:
        """The events made certain so far. The list holds StreamEvents only when the
        parser was made with incremental=True; feed() keeps the narrower type the
        ordinary parser gives, which is what most callers match on (the incremental
        docstring says what else may come). (A method, not the output's bound `take`:
        the compiled build calls a method natively.)"""
        return self._output.take()  # type: ignore[return-value]  # (cast: a call)

    def _quiet(self) -> bool:
        """SCAN, nothing arriving, nothing held: plain text can go out at once."""
        return self._mode is Mode.SCAN and not self._tail and not self._output.waiting

    def _process(self, text: str, final: bool) -> None:
        """Run the modes over `text` (the tail and the new chunk) as far as it goes; a
        decided UNDECIDED block gives back its waiting text, which runs again."""
        replay: str | None = text
        while replay is not None:
            replay = self._run(replay, final)

    def _run(self, text: str, final: bool) -> str | None:
        self._arriving.clear()
        pos = 0
        end = len(text)
        base = self._base
        while True:
            mode = self._mode
            if mode is Mode.START or mode is Mode.REASONING or mode is Mode.CONTENT:
                pos, waiting = self._think(mode, text, pos, final)
            elif mode is Mode.CAPTURE:
                pos, waiting = self._lex(text, pos, base, final)
            elif mode is Mode.SKIP:
                pos, waiting = self._skip(text, pos, base, final)
            elif mode is Mode.UNDECIDED or mode is Mode.CHOOSING:
                rest = text[pos:]
                replay = self._wait(rest, final) if mode is Mode.UNDECIDED else self._choose(rest, final)
                if replay is not None:
                    return replay
                pos, waiting = end, False
            else:
                pos, waiting, opener = scan(self._scanner, self._output, self._arriving,
                                            text, pos, base, final)
                if opener is not None:
                    pos = self._open(opener, text, base)
            # At the end of the stream every open mode must run once more to its end
            # (a block opened by the last characters of a replayed text included).
            if waiting or (pos >= end and not (final and self._mode is not Mode.SCAN)):
                break
        self._tail = text[pos:]
        self._base = base + pos
        return None

    def _think(self, mode: Mode, text: str, pos: int, final: bool) -> tuple[int, bool]:
        """START, REASONING or CONTENT (`reasoning.py`): a region, or a message."""
        thinking = self._thinking
        step = thinking.start if mode is Mode.START else thinking.read
        pos, waiting, move = step(self._output, text, pos, final)
        self._mode = next_mode(mode, move) if move is not None else mode
        return pos, waiting

    def _open(self, opener: Opener, text: str, base: int) -> int:
        """Open a capture at the opener; returns where scanning goes on. An opening tag
        that does not fit within the capture limit alone is text. Under `auto`, a tag
        that several grammars open starts a contest among them (CHOOSING)."""
        at, token_end = opener.at, opener.end
        start = base + at
        limit = start + self._max_capture
        held_limit = self._output.held_limit
        if held_limit >= 0:
            limit = min(limit, held_limit)
        if start + (token_end - at) > limit:
            self._output.text(text[at:at + 1], start)
            return at + 1
        token = text[at:token_end]
        grammars = self._dialect._grammars
        openers = (entrant_openers(self._dialect, text, opener) if len(grammars) > 1
                   else [(self._grammar, opener.spec)])
        if len(openers) > 1:
            entrants = [Entrant(Capture(grammar, grammar.opener_rule[spec.name], start,
                                        opener.ticket, limit), spec, token)
                        for grammar, spec in openers]
            self._contest = Contest(entrants, start, token)
            self._mode = next_mode(self._mode, Move.CONTEST)
            return token_end
        grammar, spec = openers[0]
        if self._begin(grammar, spec, token, start, opener.ticket, limit):
            self._mode = next_mode(self._mode, Move.OPEN)
            capture = cast(Capture, self._capture)
            if capture.ended_at_open():   # a message header (SPEC 11)
                self._settle(capture, COMPLETE)
        return token_end

    def _begin(self, grammar: Grammar, spec: TerminalSpec, token: str, start: int,
               ticket: int, limit: int) -> bool:
        """The capture of a block of `grammar` that `token` opens; False when the tag
        is a call tag without a name: no call starts, and the tag is a failed block."""
        self._grammar = grammar
        progress = (CallProgress(grammar, policy=self._policy, new_id=self._new_id,
                                 block_start=start, held=ticket >= 0)
                    if self._incremental else None)
        capture = Capture(grammar, grammar.opener_rule[spec.name], start, ticket, limit,
                          progress)
        if not capture.open(spec, token):
            prose_mention(self._output, token, capture)
            return False
        self._capture = capture
        self._limit = limit
        return True

    def _choose(self, text: str, final: bool) -> str | None:
        """CHOOSING: read `text` in every contending grammar; once one is chosen, its
        capture goes on (or ends, as it already did) and the held text after the point
        it reached is returned to run again (from `self._base`)."""
        contest = self._contest
        if contest is None:  # the mode table guarantees it in CHOOSING mode
            raise AssertionError("CHOOSING mode without a contest")
        choice = contest.take(text, final)
        return None if choice is None else self._chosen(contest, choice)

    def _chosen(self, contest: Contest, choice: Choice) -> str:
        """The contest is decided (`choice`): the text to run again, from `self._base`."""
        self._contest = None
        self._mode = next_mode(self._mode, Move.CHOSEN)
        entrant, capture = choice.entrant, choice.entrant.capture
        self._tail = ""
        if self._incremental:
            # Read again from the tag, by a capture that reports its calls as they come.
            self._base = contest.start + len(entrant.token)
            if not self._begin(entrant.grammar, entrant.spec, entrant.token, contest.start,
                               capture.ticket, capture.limit):
                self._mode = next_mode(self._mode, Move.FAIL)
            return "".join(contest.held)[len(entrant.token):]
        self._grammar = entrant.grammar
        self._base = entrant.base
        if entrant.outcome == WAITING:
            self._capture = capture
            self._limit = capture.limit
        else:
            self._settle(capture, entrant.outcome)
        return choice.rest

    def _lex(self, text: str, pos: int, base: int, final: bool) -> tuple[int, bool]:
        capture = self._capture
        if capture is None:  # the mode table guarantees a capture in CAPTURE mode
            raise AssertionError("CAPTURE mode without a capture")
        pos, outcome = capture.lex(self._arriving, text, pos, base, final)
        if outcome == WAITING:
            return pos, True
        self._settle(capture, outcome)
        return pos, False

    def _settle(self, capture: Capture, outcome: str) -> None:
        """The capture ended (COMPLETE or FAILED): its block, or its failure, goes out
        and the mode moves on."""
        self._capture = None
        self._limit = _NO_LIMIT
        if outcome == COMPLETE and capture.rule in MESSAGE_RULES:
            self._mode = next_mode(self._mode, message(self._thinking, self._output, capture))
        elif outcome == COMPLETE:
            self._mode = next_mode(self._mode, Move.COMPLETE)
            complete_block(self._output, capture, self._policy, self._new_id)
        elif capture.invoked and capture.ticket >= 0:
            # Broken calls, unless the tag was in code: wait for the tracker to say.
            self._mode = next_mode(self._mode, Move.WAIT)
            self._undecided = waiting_block(self._output, capture)
        elif capture.invoked:
            # Broken calls (SPEC 3.2): the failed span runs on to its end.
            self._mode = next_mode(self._mode, Move.BREAK)
            self._span = broken_span(self._output, capture)
        else:
            self._mode = next_mode(self._mode, Move.FAIL)
            prose_mention(self._output, capture.text, capture)

    def _wait(self, text: str, final: bool) -> str | None:
        """UNDECIDED: take `text` into the waiting text; once the ticket is decided,
        settle the block and return the waiting text to run again (from the failing
        token, at `self._base`)."""
        undecided = self._undecided
        if undecided is None:  # the mode table guarantees it in UNDECIDED mode
            raise AssertionError("UNDECIDED mode without a waiting block")
        if not undecided.take(text, final, self._max_capture):
            return None
        self._undecided = None
        capture = undecided.capture
        if undecided.answered and undecided.group is not None:
            self._output.answered = (undecided.group, capture.ticket, bool(undecided.in_code))
        if undecided.in_code:
            self._mode = next_mode(self._mode, Move.IN_CODE)
            self._output.text(undecided.failed_text, capture.start)
        else:
            self._mode = next_mode(self._mode, Move.NOT_CODE)
            self._span = broken_span(self._output, capture)
        self._base = undecided.offset
        self._tail = ""
        return undecided.waiting_text

    def _skip(self, text: str, pos: int, base: int, final: bool) -> tuple[int, bool]:
        span = self._span
        if span is None:  # the mode table guarantees a span in SKIP mode
            raise AssertionError("SKIP mode without a failed span")
        pos, state = span.skip(self._grammar, self._output, self._arriving, text, pos, base, final)
        if state == ENDED:
            self._end_span()
        return pos, state == OPEN and pos < len(text)

    def _end_span(self) -> None:
        self._span = None
        self._mode = next_mode(self._mode, Move.SPAN_END)

