"""What leaves the engine: text and blocks in input order, and the Markdown they make.

Every character the engine gives out as text is also Markdown, so it goes to the
`MarkdownTracker` too (in batches of about `MD_BATCH` characters while nothing waits on
the tracker; at once while something does). A block is given out at once when the
tracker said TEXT at its opening tag; when it said PENDING (SPEC 4.3), the block is
*held output*: it and everything after it wait, in order, until the tracker resolves the
block's ticket (code: the block becomes text; not code: it stays a block). Held output
gives up at `max_capture` characters past its first block: every held block becomes
text there (fail closed, SPEC G7).

Incremental events (SPEC 7) travel the same queue, in order: the calls they are about
get their stream `index` here, as their `CallStarted` goes out, so the calls of a block
found in code (whose events are dropped with it) leave no gap in the numbering.

Cost: each piece is appended once and joined once; held output is O(max_capture).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Sequence
from typing import Final

from toolparse._events import (
    ArgumentsDelta,
    BlockFailure,
    CallsAborted,
    CallStarted,
    Reasoning,
    StreamEvent,
    Text,
    ToolCallBlock,
)
from toolparse._markdown import Context, MarkdownTracker, Resolution
from toolparse._stream.progress import Aborted, Delta, ProgressEvent, Started, make_delta

__all__ = ["MD_BATCH", "Output", "joined_events", "make_text", "plain_text", "missed_plain_text",
           "plain_events", "plain_event", "kept_event",
           "PLAIN_EVENTS"]

MD_BATCH: Final = 1 << 16
"""Plain text is handed to the Markdown tracker in batches of about this many characters."""

# Fast construction of frozen Text events on the hot path (skips dataclass __init__).
_new: Final = object.__new__
_set_text: Final = Text.__dict__["text"].__set__
_set_failure: Final = Text.__dict__["failure"].__set__
_set_raw: Final = Text.__dict__["raw"].__set__


def make_text(text: str, failure: BlockFailure | None = None, raw: str | None = None) -> Text:
    """A `Text` event, built without the dataclass constructor's overhead (`raw`, the
    input it stands for, is `text` unless given)."""
    event = _new(Text)
    _set_text(event, text)
    _set_failure(event, failure)
    _set_raw(event, text if raw is None else raw)
    return event


PLAIN_EVENTS: Final[dict[str, Text]] = {}
"""The plain-text events of short texts, shared by every parser: a stream's chunks are
mostly tokens, and tokens repeat (`Text` is immutable, so one event serves them all)."""
PLAIN_KEPT: Final = 8192
"""How many events `PLAIN_EVENTS` keeps at most. When it is full it starts over: one
generation of 8,192 reuses more chunks, for less work, than the two generations of
4,096 with texts carried from the older one that it replaced (the same bound on what
is kept; docs/performance.md, eighteenth sitting)."""
PLAIN_LENGTH: Final = 16
"""The longest text whose event is kept."""


def plain_text(text: str) -> Text:
    """The `Text` event of plain `text`: kept in `PLAIN_EVENTS` when short."""
    if len(text) > PLAIN_LENGTH:
        return make_text(text)  # (not hashed: a long text is rarely seen twice)
    event = PLAIN_EVENTS.get(text)
    if event is None:
        event = missed_plain_text(text)
    return event


def missed_plain_text(text: str) -> Text:
    """`plain_text` of a text the caller did not find in `PLAIN_EVENTS` (`feed`'s fast
    path looks there first)."""
    if len(text) > PLAIN_LENGTH:
        return make_text(text)
    if len(PLAIN_EVENTS) >= PLAIN_KEPT:
        PLAIN_EVENTS.clear()  # (the same dictionary: the engine holds its `get`)
    event = PLAIN_EVENTS[text] = make_text(text)
    return event


_PLAIN_BY_STARTS: Final[dict[str, dict[str, Text]]] = {}
"""`plain_events`' tables, by the block starts they were tested against."""


def plain_events(starts: str) -> dict[str, Text]:
    """The table of short chunks in which no block can start, and their events, for the
    block starts whose `start_search` pattern is `starts`: one per set of openers,
    shared by every parser that has them (a cold table costs each new chunk a look-up
    more). It starts over when full, as `PLAIN_EVENTS` does. A chunk found in it is
    plain with no test at all (so not `PLAIN_EVENTS`, which holds texts with `<` too:
    the text before a tag, a dead tail's). It holds chunks without any of the openers'
    first characters (`plain_event`) and, keyed by the openers themselves, chunks with
    one where none of them can begin (`Scanner.keep_plain`: `<t` where no opener starts
    so)."""
    table = _PLAIN_BY_STARTS.get(starts)
    if table is None:
        if len(_PLAIN_BY_STARTS) >= 64:  # (user grammars: not kept for ever)
            _PLAIN_BY_STARTS.clear()
        table = _PLAIN_BY_STARTS[starts] = {}
    return table


def plain_event(table: dict[str, Text], chars: str, chunk: str) -> Text | None:
    """The event of `chunk` if none of `chars` is in it (kept in `table`, from
    `plain_events`, when short), else None; None for an empty chunk too (which
    gives no event: `feed` has it go the other way)."""
    for char in chars:
        if char in chunk:
            return None
    return kept_event(table, chunk) if chunk else None


def kept_event(table: dict[str, Text], chunk: str) -> Text:
    """The event of a plain `chunk` not in `table` (a table of `plain_events`), kept
    there when short: what a chunk that misses the plain fast path's table costs, so
    the two look-ups and their bounds are written out here, not called for (a stream
    with more distinct chunks than `PLAIN_KEPT` comes here for a tenth of them)."""
    if len(chunk) > PLAIN_LENGTH:
        return make_text(chunk)  # (not hashed: a long text is rarely seen twice)
    event = PLAIN_EVENTS.get(chunk)
    if event is None:
        event = missed_plain_text(chunk)
    if len(table) >= PLAIN_KEPT:
        table.clear()  # (the same dictionary: engines and scanners hold it)
    table[chunk] = event
    return event


def joined_events(first: Sequence[StreamEvent], then: Sequence[StreamEvent]
                  ) -> list[StreamEvent]:
    """Two lists of events in a row, as one `take` would give them: a call's piece that
    ends the first and one that begins the second are one piece."""
    if first and then:
        last, head = first[-1], then[0]
        if (type(last) is ArgumentsDelta and type(head) is ArgumentsDelta
                and last.index == head.index):
            return [*first[:-1], make_delta(last.index, last.text + head.text), *then[1:]]
    return [*first, *then]


class PendingBlock:
    """A complete block whose tag may sit in code: its calls are built when it goes out
    as a block, so that an id is drawn (from `id_factory`) only for a block that runs."""

    __slots__ = ("raw", "start", "end", "build")

    def __init__(self, raw: str, start: int, build: Callable[[], ToolCallBlock]) -> None:
        self.raw = raw
        self.start = start
        self.end = start + len(raw)
        self.build = build


class HeldBlock:
    """A complete block, or a failed block's text, whose fate waits on a Markdown
    ticket: in code, it is plain text; outside code, it is what it is."""

    __slots__ = ("event", "ticket", "in_code", "prelude")

    def __init__(self, event: ToolCallBlock | PendingBlock | Text, ticket: int,
                 prelude: list[ProgressEvent] | None = None) -> None:
        self.event = event
        self.ticket = ticket
        self.in_code: bool | None = None
        """None while the ticket is open; then whether the block was in code."""
        self.prelude = prelude or []
        """The block's incremental events: they go out before it, unless it was in code."""

    @property
    def start(self) -> int:
        event = self.event
        return event.start if not isinstance(event, Text) else (
            event.failure.start if event.failure is not None else 0)

    def settled(self) -> list[Item]:
        """What goes out once the ticket is resolved."""
        event = self.event
        if not self.in_code:
            return [*self.prelude, event.build() if isinstance(event, PendingBlock) else event]
        return [event.text if isinstance(event, Text) else event.raw]


Item = str | Text | ToolCallBlock | Reasoning | ProgressEvent
"""What the output queue holds: text pieces, failed text, blocks, reasoning pieces,
incremental events."""


class Output:
    """The engine's output queue, its held output and the Markdown tracker behind it."""

    __slots__ = ("md", "md_queue", "md_flush_at", "ready", "held", "waiting", "held_limit",
                 "max_capture", "saw_tool_syntax", "next_call", "answered")

    def __init__(self, max_capture: int) -> None:
        self.md = MarkdownTracker()
        self.md_queue: list[str] = []
        """Text given out but not yet fed to the tracker (the batch)."""
        self.md_flush_at = MD_BATCH
        """The batch goes to the tracker once the stream passes this offset."""
        self.ready: list[Item] = []
        """Output certain since the last `take()`: text pieces, failed text (as `Text`
        events with their failure) and blocks."""
        self.held: deque[Item | HeldBlock] = deque()
        """Held output: everything from the first unresolved block on, in order."""
        self.waiting: dict[int, HeldBlock] = {}
        """Unresolved tickets -> their held blocks."""
        self.held_limit = -1
        """Stream offset where held output gives up; -1 while nothing is held."""
        self.max_capture = max_capture
        self.saw_tool_syntax = False
        """A wrapper or invoke tag was seen outside Markdown code."""
        self.next_call = 0
        """The stream index of the next call whose CallStarted goes out."""
        self.answered: tuple[object, int, bool] | None = None
        """The last answer a fork gave for a ticket with a fate group: (group, ticket,
        in code). A later ticket of the same group takes it without a fork."""

    # ---- giving out ----------------------------------------------------------------------

    def text(self, piece: str, offset: int, failure: BlockFailure | None = None) -> None:
        """Give out `piece` (starting at stream offset `offset`) as text (the text of a
        failed block when `failure` is given), and feed it to the Markdown tracker: a
        failed block's text is Markdown too (SPEC 3.2). While output is held, the
        tracker is fed at once, so that its resolutions arrive with the text that
        decided them, and held output gives up exactly at its limit."""
        if not self.waiting:
            self.ready.append(piece if failure is None else make_text(piece, failure))
            self.md_queue.append(piece)
            if offset + len(piece) > self.md_flush_at:
                self.flush_md(offset + len(piece))
            return
        if offset + len(piece) > self.held_limit >= offset:
            cut = self.held_limit - offset
            self.text(piece[:cut], offset, failure)
            if self.waiting:
                self._give_up()
            self.text(piece[cut:], offset + cut, failure)
            return
        self._emit(piece if failure is None else make_text(piece, failure))
        self._resolve(self.md.feed(piece))

    def blank(self, piece: str) -> None:
        """Give out whitespace at the start of the stream as text, without feeding it
        to the Markdown tracker yet (a reasoning region may follow: SPEC 11)."""
        self._emit(piece)

    def markdown(self, piece: str) -> None:
        """Feed text that went out earlier (`blank`) to the Markdown tracker."""
        if piece:
            self.md_queue.append(piece)

    def reasoning(self, text: str, raw: str) -> None:
        """Give out a piece of a reasoning region (SPEC 11): never Markdown, so the
        tracker never sees it."""
        self._emit(Reasoning(text, raw))

    def content(self, piece: str) -> None:
        """Give out a piece of a message's text that is content (SPEC 11, harmony's
        final channel): text, but no Markdown the tracker reads, since no block opens
        inside a message."""
        self._emit(piece)

    def framing(self, raw: str) -> None:
        """Give out framing markup (SPEC 11: a message's header or end token): in the
        event's `raw`, never in its text."""
        self._emit(make_text("", raw=raw))

    def end_document(self, offset: int, ticket: int) -> bool:
        """A message boundary at stream offset `offset` (SPEC 11): the Markdown document
        before it ends there, as at the end of a stream (every ticket settles; one still
        open fails closed), and the text after it starts a fresh one. Returns whether
        `ticket` (the boundary's own, -1: none) was in code."""
        self.flush_md(offset)
        in_code = False
        for answered, code in self.md.finish():
            if answered == ticket:
                in_code = code
            self._resolve([(answered, code)])
        for held in list(self.waiting.values()):
            self._settle(held, in_code=True)
        self.md = MarkdownTracker()
        self.md_flush_at = offset + MD_BATCH
        self.answered = None
        return in_code

    def block(self, event: ToolCallBlock | PendingBlock, ticket: int,
              prelude: list[ProgressEvent] | None = None) -> None:
        """Give out a complete block whose opening tag the tracker answered with
        `ticket` (-1: TEXT, certain), after its incremental events not given out yet,
        and tell the tracker the block is an atom. A `PendingBlock` is built when it goes
        out as a block."""
        if ticket < 0:
            for item in prelude or ():
                self._emit(item)
            self._emit(event.build() if isinstance(event, PendingBlock) else event)
        else:
            self._hold(HeldBlock(event, ticket, prelude))
        self.flush_md(event.end)
        self._resolve(self.md.opaque(event.raw))

    def failed(self, piece: str, offset: int, failure: BlockFailure, ticket: int) -> None:
        """Give out a failed block's text, whose opening tag the tracker answered with
        `ticket`: with a ticket, it is a failure only if the tag was outside code."""
        if ticket < 0 or not piece:
            self.text(piece, offset, failure)
            return
        self.flush_md(offset)
        self._hold(HeldBlock(make_text(piece, failure), ticket))
        self._resolve(self.md.feed(piece))

    def _hold(self, held: HeldBlock) -> None:
        self.waiting[held.ticket] = held
        if self.held_limit < 0:
            self.held_limit = held.start + self.max_capture
        self.held.append(held)

    def fork_tracker(self, offset: int) -> MarkdownTracker:
        """A copy of the Markdown tracker as it stands at stream offset `offset`."""
        self.flush_md(offset)
        return self.md.fork()

    def known_answer(self, offset: int, ticket: int) -> bool | None:
        """Whether `ticket` (just issued, its tag at stream offset `offset`) is in code,
        if an earlier fork's answer holds for it too (`MarkdownTracker.shares_fate`):
        without it, many waiting blocks in one paragraph would each read the rest of
        the paragraph again (quadratic, SPEC G6). None: a fork must read ahead."""
        self.flush_md(offset)
        answered = self.answered
        if answered is not None and self.md.shares_fate(ticket, answered[0], answered[1]):
            return answered[2]
        return None

    def progress(self, events: list[ProgressEvent]) -> None:
        """Give out incremental events of a block outside code for certain."""
        for item in events:
            self._emit(item)

    def _emit(self, item: Item) -> None:
        if self.waiting:
            self.held.append(item)
        else:
            self.ready.append(item)

    def take(self) -> list[StreamEvent]:
        """The events made certain since the last call, adjacent text with the same
        failure (or none) merged, and adjacent pieces of one call's arguments too (so
        that how a feed's text was lexed, at once or tag by tag, cuts no piece)."""
        ready = self.ready
        if not ready:
            return []
        self.ready = []
        if len(ready) == 1 and type(ready[0]) is str:   # the common case: one piece of text
            return [plain_text(ready[0])]
        events: list[StreamEvent] = []
        pending: list[str] = []
        for item in ready:
            if isinstance(item, str):
                pending.append(item)
                continue
            if pending:
                events.append(make_text("".join(pending)))
                pending = []
            last = events[-1] if events else None
            if type(item) is Delta:
                index = item.call.index
                if type(last) is ArgumentsDelta and last.index == index:
                    events[-1] = make_delta(index, last.text + item.text)
                else:
                    events.append(make_delta(index, item.text))
            elif isinstance(item, (Started, Delta, Aborted)):
                events.append(self._public(item))
            elif isinstance(item, Reasoning) and isinstance(last, Reasoning):
                events[-1] = Reasoning(last.text + item.text, last.raw + item.raw)
            elif (isinstance(item, Text) and isinstance(last, Text)
                    and last.failure is not None and last.failure == item.failure):
                events[-1] = make_text(last.text + item.text, item.failure)
            else:
                events.append(item)
        if pending:
            events.append(make_text("".join(pending)))
        return events

    def _public(self, item: ProgressEvent) -> CallStarted | ArgumentsDelta | CallsAborted:
        if isinstance(item, Started):
            call = item.call
            call.index = self.next_call
            self.next_call += 1
            return CallStarted(call.index, call.id, call.name or "", item.block_start)
        if isinstance(item, Delta):
            return make_delta(item.call.index, item.text)
        return CallsAborted(tuple(call.index for call in item.calls if call.index >= 0),
                            item.failure)

    # ---- the Markdown tracker ------------------------------------------------------------

    def context(self, offset: int) -> tuple[Context, int]:
        """Where the next character (a tag's `<`, at stream offset `offset`) stands:
        the tracker's `Context` and ticket."""
        self.flush_md(offset)
        return self.md.context()

    def flush_md(self, offset: int) -> None:
        """Feed the batch to the tracker; the next batch ends `MD_BATCH` past `offset`."""
        queue = self.md_queue
        if queue:
            text = "".join(queue) if len(queue) > 1 else queue[0]
            queue.clear()
            self.md_flush_at = offset + MD_BATCH
            self._resolve(self.md.feed(text))

    def finish(self, offset: int) -> None:
        """The stream ended at `offset`: settle every ticket (an open one fails closed:
        its block is text)."""
        self.flush_md(offset)
        self._resolve(self.md.finish())
        for held in list(self.waiting.values()):
            self._settle(held, in_code=True)

    def _resolve(self, resolutions: list[Resolution]) -> None:
        for ticket, in_code in resolutions:
            if not in_code:
                self.saw_tool_syntax = True
            held = self.waiting.get(ticket)
            if held is not None:
                self._settle(held, in_code)

    def _settle(self, held: HeldBlock, in_code: bool) -> None:
        held.in_code = in_code
        del self.waiting[held.ticket]
        queue = self.held
        while queue:
            item = queue[0]
            if isinstance(item, HeldBlock):
                if item.in_code is None:
                    break
                queue.popleft()
                self.ready.extend(item.settled())
            else:
                queue.popleft()
                self.ready.append(item)
        if not self.waiting:
            self.held_limit = -1
        else:
            first = next(i for i in queue if isinstance(i, HeldBlock))
            self.held_limit = first.start + self.max_capture

    def _give_up(self) -> None:
        """Held output reached max_capture: every held block becomes text (fail closed)."""
        for held in list(self.waiting.values()):
            self._settle(held, in_code=True)
