"""What leaves the engine: text and blocks in input order, and the Markdown they make.

Every character the engine gives out as text is also Markdown, so it goes to the
`MarkdownTracker` too (in batches of about `MD_BATCH` characters while nothing waits on
the tracker; at once while something does). A block is given out at once when the
tracker said TEXT at its opening tag; when it said PENDING (SPEC 4.3), the block is
*held output*: it and everything after it wait, in order, until the tracker resolves the
block's ticket (code: the block becomes text; not code: it stays a block). Held output
gives up at `max_capture` characters past its first block: every held block becomes
text there (fail closed, SPEC G7).

Cost: each piece is appended once and joined once; held output is O(max_capture).
"""

from __future__ import annotations

from collections import deque
from typing import Final

from toolparse._events import Event, Text, ToolCallBlock
from toolparse._markdown import Context, MarkdownTracker, Resolution

__all__ = ["MD_BATCH", "Output", "make_text"]

MD_BATCH: Final = 1 << 16
"""Plain text is handed to the Markdown tracker in batches of about this many characters."""

# Fast construction of frozen Text events on the hot path (skips dataclass __init__).
_new = object.__new__
_set_text = Text.__dict__["text"].__set__


def make_text(text: str) -> Text:
    """A `Text` event, built without the dataclass constructor's overhead."""
    event = _new(Text)
    _set_text(event, text)
    return event


class HeldBlock:
    """A complete block whose fate waits on a Markdown ticket."""

    __slots__ = ("event", "ticket", "in_code")

    def __init__(self, event: ToolCallBlock, ticket: int) -> None:
        self.event = event
        self.ticket = ticket
        self.in_code: bool | None = None
        """None while the ticket is open; then whether the block was in code."""


class Output:
    """The engine's output queue, its held output and the Markdown tracker behind it."""

    __slots__ = ("md", "md_queue", "md_flush_at", "ready", "held", "waiting", "held_limit",
                 "max_capture", "saw_tool_syntax")

    def __init__(self, max_capture: int) -> None:
        self.md = MarkdownTracker()
        self.md_queue: list[str] = []
        """Text given out but not yet fed to the tracker (the batch)."""
        self.md_flush_at = MD_BATCH
        """The batch goes to the tracker once the stream passes this offset."""
        self.ready: list[str | ToolCallBlock] = []
        """Output certain since the last `take()`: text pieces and blocks."""
        self.held: deque[str | ToolCallBlock | HeldBlock] = deque()
        """Held output: everything from the first unresolved block on, in order."""
        self.waiting: dict[int, HeldBlock] = {}
        """Unresolved tickets -> their held blocks."""
        self.held_limit = -1
        """Stream offset where held output gives up; -1 while nothing is held."""
        self.max_capture = max_capture
        self.saw_tool_syntax = False
        """A wrapper or invoke tag was seen outside Markdown code."""

    # ---- giving out ----------------------------------------------------------------------

    def text(self, piece: str, offset: int) -> None:
        """Give out `piece` (starting at stream offset `offset`) as text, and feed it to
        the Markdown tracker. While output is held, the tracker is fed at once, so that
        its resolutions arrive with the text that decided them, and held output gives up
        exactly at its limit."""
        if not self.waiting:
            self.ready.append(piece)
            self.md_queue.append(piece)
            if offset + len(piece) > self.md_flush_at:
                self.flush_md(offset + len(piece))
            return
        if offset + len(piece) > self.held_limit >= offset:
            cut = self.held_limit - offset
            self.text(piece[:cut], offset)
            if self.waiting:
                self._give_up()
            self.text(piece[cut:], offset + cut)
            return
        self._emit(piece)
        self._resolve(self.md.feed(piece))

    def block(self, event: ToolCallBlock, ticket: int) -> None:
        """Give out a complete block whose opening tag the tracker answered with
        `ticket` (-1: TEXT, certain), and tell the tracker the block is an atom."""
        if ticket < 0:
            self._emit(event)
        else:
            held = HeldBlock(event, ticket)
            self.waiting[ticket] = held
            if self.held_limit < 0:
                self.held_limit = event.start + self.max_capture
            self.held.append(held)
        self.flush_md(event.end)
        self._resolve(self.md.opaque(event.raw))

    def _emit(self, item: str | ToolCallBlock) -> None:
        if self.waiting:
            self.held.append(item)
        else:
            self.ready.append(item)

    def take(self) -> list[Event]:
        """The events made certain since the last call, adjacent text merged."""
        ready = self.ready
        if not ready:
            return []
        self.ready = []
        events: list[Event] = []
        pending: list[str] = []
        for item in ready:
            if isinstance(item, str):
                pending.append(item)
            else:
                if pending:
                    events.append(make_text("".join(pending)))
                    pending = []
                events.append(item)
        if pending:
            events.append(make_text("".join(pending)))
        return events

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
                self.ready.append(item.event.raw if item.in_code else item.event)
            else:
                queue.popleft()
                self.ready.append(item)
        if not self.waiting:
            self.held_limit = -1
        else:
            first = next(i for i in queue if isinstance(i, HeldBlock))
            self.held_limit = first.event.start + self.max_capture

    def _give_up(self) -> None:
        """Held output reached max_capture: every held block becomes text (fail closed)."""
        for held in list(self.waiting.values()):
            self._settle(held, in_code=True)
