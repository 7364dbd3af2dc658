"""UNDECIDED mode: a block failed after a call started, but its tag may sit in code.

A block whose opening tag came after an unmatched backtick run (a PENDING ticket, SPEC
4.3) is code if that run is matched later, and a block otherwise. When such a block
fails after a call started, the two readings part ways at once: in code, its text is
plain text and scanning goes on right after the failing token; outside code, it is a
broken-calls span (SPEC 3.2) in which no call may start. Neither can be chosen without
the text that decides the ticket, so that text waits (SPEC G5 allows it) while a fork
of the Markdown tracker reads it ahead; the real tracker sees nothing until the fork
has answered. Then the waiting text is run again, as SCAN or SKIP text.

Bound: the waiting text is at most `max_capture` characters from the block's start;
past that the block is taken as outside code (fail closed: a broken span, none of its
calls runs). The fork reads a long text in steps that double from `STEP` characters
and stops at the answer, so a whole text given at once costs at most twice what comes
before the decision, not the rest of the text for every waiting block. And a block
whose ticket must resolve as an answered one's (`MarkdownTracker.shares_fate`) takes
that answer with no fork: many failing blocks in one paragraph, which only the
paragraph's end decides, cost one read-ahead, not one each.
"""

from __future__ import annotations

from toolparse._markdown import MarkdownTracker
from toolparse._stream.capture import Capture

__all__ = ["MAX_STEP", "SHARE_ANSWERS", "STEP", "Undecided"]

STEP = 64
"""How much the fork reads first while the answer has not come (then twice as much,
up to `MAX_STEP`)."""
SHARE_ANSWERS = True
"""Whether a block whose ticket shares its fate with one a fork has answered takes that
answer instead of forking (`Output.known_answer`). The tests turn it off to check that
it changes no event."""
MAX_STEP = 1 << 16


class Undecided:
    """A failed block with a PENDING ticket, and the text after it, waiting."""

    __slots__ = ("capture", "failed_text", "offset", "fork", "parts", "size", "in_code",
                 "group", "answered")

    def __init__(self, capture: Capture, fork: MarkdownTracker | None,
                 group: object | None = None, known: bool | None = None) -> None:
        self.capture = capture
        self.failed_text = capture.text
        """The block's text up to the failing token."""
        self.offset = capture.start + len(self.failed_text)
        """Stream offset where the waiting text starts (the failing token)."""
        self.fork = fork
        """The Markdown tracker's fork, fed ahead."""
        self.parts: list[str] = []
        """The waiting text."""
        self.size = 0
        self.in_code: bool | None = known
        """The answer: None while undecided."""
        self.group = group
        """The ticket's fate group (`MarkdownTracker.ticket_group`), or None."""
        self.answered = False
        """The fork gave the answer (not the fail-closed bound, not an earlier fork)."""
        if fork is not None:
            self._read(fork.feed(self.failed_text))

    def take(self, text: str, final: bool, max_capture: int) -> bool:
        """Add `text` to the waiting text; True once the ticket is decided."""
        if text:
            self.parts.append(text)
            self.size += len(text)
            at, step = 0, STEP
            while at < len(text) and self.in_code is None and self.fork is not None:
                self._read(self.fork.feed(text[at:at + step]))
                at += step
                step = min(step * 2, MAX_STEP)
        if self.in_code is None and final and self.fork is not None:
            self._read(self.fork.finish())
        if self.in_code is None and (final or self.offset + self.size
                                     >= self.capture.start + max_capture):
            self.in_code = False  # fail closed: outside code, a broken span
        return self.in_code is not None

    @property
    def waiting_text(self) -> str:
        return "".join(self.parts)

    def _read(self, resolutions: list[tuple[int, bool]]) -> None:
        for ticket, in_code in resolutions:
            if ticket == self.capture.ticket and self.in_code is None:
                self.in_code = in_code
                self.answered = True
