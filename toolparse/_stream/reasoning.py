"""START, REASONING and CONTENT modes: reasoning regions, and messages (SPEC 11).

    START      the stream's first characters: whitespace, then perhaps a region's
               opener (`<think>`); until that is decided the text waits
    REASONING  inside the region: its text goes out as `Reasoning` events as it
               arrives, held back only while a closer may be arriving at its end
               (SPEC G5); it ends at its closer, at a tool opener the dialect declares
               as ending it (Kimi's tool section), or at the end of the stream

A region opens only at the start of the stream, after optional whitespace, or the
stream starts inside one (`in_reasoning=True`: the prompt opened it); the same markers
anywhere else are text. In a dialect whose markup frames messages (harmony), a header
is a block start of its grammar (`reasoning_message`, `content_message`, `framing`),
read in SCAN like any, outside code; `message` then opens the message, which runs to
the end marker of the dialect's channels format:

    REASONING  an analysis message: its text is reasoning (content when regions are off)
    CONTENT    any other message: its text is content, but no block opens inside it
               and the Markdown tracker never reads it (a header the model writes there
               is text, as openai-harmony reads it)

A header ends the Markdown document before it, and the text after the message starts
a fresh one: each message is a document of its own. Nothing inside a region is a call (SPEC G3b) and nothing of it
reaches the Markdown tracker: the answer after it is a fresh Markdown document. The
markers are in the `Reasoning` events' `raw`, never in their `text` (SPEC G1); the
whitespace before the opener is text, given out at once (SPEC G5), and Markdown only
when no region opens.

Cost: one search per chunk from where the last one stopped (`_reasoning.Regions`), and
at most a marker's length held back; linear, and nothing when no format is active.
"""

from __future__ import annotations

from typing import Final

from toolparse._reasoning import NO_REGION, WAIT, Markers, Regions
from toolparse._reasoning.region import closing
from toolparse._stream.capture import Capture
from toolparse._stream.modes import Move
from toolparse._stream.output import Output

__all__ = ["ANY_FORMAT", "Thinking", "message"]

ANY_FORMAT: Final = -1
"""The region's format when the stream started inside it (any closer ends it)."""

_BLANKS: Final = " \t\r\n\f\v\ufeff"
"""What may come before a region's opener: whitespace, and a byte-order mark."""
MAX_BLANKS: Final = 1024
"""The most of it a region's opener may follow: past it, the stream has no region, and
nothing waits longer (SPEC G5, G7)."""


class Thinking:
    """The reasoning regions and messages of one stream: how they open and where they
    end."""

    __slots__ = ("regions", "format", "blanks", "closers", "content")

    def __init__(self, regions: Regions | None) -> None:
        self.regions = regions
        """The reasoning formats read; None: regions are off (a message is content)."""
        self.closers: Markers | None = None
        """In a message: what ends it (the dialect's channels format's end marker)."""
        self.content = False
        """In a message: its text is content, not reasoning."""
        self.format = ANY_FORMAT
        """The format whose opener opened the region (`ANY_FORMAT`: in_reasoning)."""
        self.blanks: list[str] = []
        """START: the whitespace given out so far, not yet Markdown."""

    def start(self, output: Output, text: str, pos: int, final: bool
              ) -> tuple[int, bool, Move | None]:
        """START: (where the text goes on, whether it waits, the move made: the region
        opens, or none does). Whitespace goes out at once, as text (SPEC G5), but reaches
        the Markdown tracker only if no region opens: the answer after a region is a
        fresh document."""
        first = pos
        while first < len(text) and text[first] in _BLANKS:
            first += 1
        if first > pos:
            blank = text[pos:first]
            output.blank(blank)
            self.blanks.append(blank)
        if sum(map(len, self.blanks)) > MAX_BLANKS:
            return self._no_region(output, first)
        if first == len(text) and not final:
            return first, False, None   # only whitespace so far: an opener may follow
        if self.regions is None:   # (the engine starts in START only with regions)
            return self._no_region(output, first)
        which, end = self.regions.opening(text, first, final)
        if which >= 0:
            self.format = which
            self.blanks = []
            output.reasoning("", text[first:end])
            return end, False, Move.REGION_OPENS
        if end == WAIT:
            return first, True, None
        assert end == NO_REGION
        return self._no_region(output, first)

    def _no_region(self, output: Output, pos: int) -> tuple[int, bool, Move | None]:
        output.markdown("".join(self.blanks))
        self.blanks = []
        return pos, False, Move.NO_REGION

    def read(self, output: Output, text: str, pos: int, final: bool
             ) -> tuple[int, bool, Move | None]:
        """REASONING or CONTENT: (where the text goes on, whether it waits, the move
        made when the region or message ended)."""
        closers, content = self.closers, self.content
        if closers is not None:
            text_end, region_end = closing(closers, 1, text, pos, final)
        elif self.regions is not None:
            text_end, region_end = self.regions.closing(self.format, text, pos, final)
        else:   # (REASONING comes with regions, or with a message's closers)
            raise AssertionError("REASONING mode with neither a region nor a message")
        if text_end > pos:
            piece = text[pos:text_end]
            if content:
                output.content(piece)
            else:
                output.reasoning(piece, piece)
        if region_end == WAIT:
            return text_end, True, None
        if region_end > text_end:
            if content:
                output.framing(text[text_end:region_end])
            else:
                output.reasoning("", text[text_end:region_end])
        self.closers, self.content = None, False
        return region_end, False, Move.MESSAGE_ENDS if content else Move.REGION_ENDS


def message(thinking: Thinking, output: Output, capture: Capture) -> Move:
    """A message header or framing markup, read outside code as a block start of the
    dialect (`MESSAGE_RULES`): it goes out as framing (or, for a reasoning message, in
    the region's `raw`), the Markdown document before it ends, and the message opens.
    Returns the move made. A header whose code context was still open when the document
    ended there, and turned out to be code, is text."""
    raw = capture.text
    if output.end_document(capture.start, capture.ticket):
        output.text(raw, capture.start)
        return Move.FRAMED
    closers = capture.grammar.message_closers
    if capture.rule == "framing" or closers is None:
        output.framing(raw)
        return Move.FRAMED
    reasoning = capture.rule == "reasoning_message" and thinking.regions is not None
    if reasoning:
        output.reasoning("", raw)
    else:
        output.framing(raw)
    thinking.closers, thinking.content = closers, not reasoning
    return Move.REASONING_MESSAGE if reasoning else Move.CONTENT_MESSAGE
