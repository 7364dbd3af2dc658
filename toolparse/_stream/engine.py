"""The stream engine: chunks in, text and tool-call block events out (sans-I/O).

`StreamParser` (`parser.py`) is the public face: it checks the options and hands
`feed` and `close` straight to this module's `Engine`, which does the work (and which
the compiled build compiles, docs/performance.md, "The compiled build").

Theory of operation
-------------------
`Engine` is the mode loop (`loop.py`: SCAN, CAPTURE, SKIP, UNDECIDED, CHOOSING and the
reasoning modes, with the blocks they open and settle) with `feed`'s fast paths in
front of it: each is a named guard that takes a chunk without the loop when nothing
can change but what it does itself, and hands the chunk to the loop otherwise.

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
from toolparse._reasoning import Regions
from toolparse._stream.arriving import DEAD, EXTENDS
from toolparse._stream.capture import Capture
from toolparse._stream.keeping import KEPT_TAIL, Keeping
from toolparse._stream.loop import ModeLoop
from toolparse._stream.modes import Mode, Move, next_mode
from toolparse._stream.options import WINDOW, checked_chunk, windows
from toolparse._stream.output import joined_events, plain_text
from toolparse._stream.progress import Argument
from toolparse._stream.scan import arriving_at_end

__all__ = ["Engine"]

_CLOSED: Final = Mode.CLOSED
_CHOOSING: Final = Mode.CHOOSING
_SCAN: Final = Mode.SCAN
_NO_TABLE: Final[dict[str, Text]] = {}
"""`Engine._plain_table` while the plain fast path does not apply: empty, and never
written (`Scanner.plain_event` and `keep_plain` keep chunks in the scanner's own
table)."""


class Engine(ModeLoop):
    """The engine behind one `StreamParser` (see the module's docstring)."""

    __slots__ = (
        "_md_queue", "_plain", "_plain_table", "_run_list", "_run_stops", "_run_parts",
        "_run_from", "_streaming", "_keeping",
    )

    def __init__(self, dialect: Dialect, max_capture: int, policy: CallPolicy | None,
                 new_id: Callable[[], str], incremental: bool,
                 regions: Regions | None = None, in_reasoning: bool = False) -> None:
        """As `ModeLoop`'s, then the fast paths' own state, each path's off."""
        super().__init__(dialect, max_capture, policy, new_id, incremental, regions,
                         in_reasoning)
        self._md_queue = self._output.md_queue   # the same list: the fast path appends
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
        pos, waiting = self._lex(text, 0, self._base, False, True)
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

    # ---- into the mode loop (`loop.py`) -----------------------------------------------

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
        if (not gates or (len(tail) > (0 if grammar.late_closers else KEPT_TAIL)
                          and not capture.waiting_whole)
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
