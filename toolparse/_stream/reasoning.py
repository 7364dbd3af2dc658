"""START and REASONING modes: a reasoning region at the start of the stream (SPEC 11).

    START      the stream's first characters: whitespace, then perhaps a region's
               opener (`<think>`); until that is decided the text waits
    REASONING  inside the region: its text goes out as `Reasoning` events as it
               arrives, held back only while a closer may be arriving at its end
               (SPEC G5); it ends at its closer, at a tool opener the dialect declares
               as ending it (Kimi's tool section), or at the end of the stream

A region opens only at the start of the stream, after optional whitespace, or the
stream starts inside one (`in_reasoning=True`: the prompt opened it); the same markers
anywhere else are text. Nothing inside a region is a call (SPEC G3b) and nothing of it
reaches the Markdown tracker: the answer after it is a fresh Markdown document. The
markers are in the `Reasoning` events' `raw`, never in their `text` (SPEC G1); the
whitespace before the opener is text, given out at once (SPEC G5), and Markdown only
when no region opens.

Cost: one search per chunk from where the last one stopped (`_reasoning.Regions`), and
at most a marker's length held back; linear, and nothing when no format is active.
"""

from __future__ import annotations

from typing import Final

from toolparse._reasoning import NO_REGION, WAIT, Regions
from toolparse._stream.modes import Move
from toolparse._stream.output import Output

__all__ = ["ANY_FORMAT", "Thinking"]

ANY_FORMAT: Final = -1
"""The region's format when the stream started inside it (any closer ends it)."""

_BLANKS: Final = " \t\r\n\f\v\ufeff"
"""What may come before a region's opener: whitespace, and a byte-order mark."""
MAX_BLANKS: Final = 1024
"""The most of it a region's opener may follow: past it, the stream has no region, and
nothing waits longer (SPEC G5, G7)."""


class Thinking:
    """The reasoning region of one stream: how it opens and where it ends."""

    __slots__ = ("regions", "format", "blanks")

    def __init__(self, regions: Regions) -> None:
        self.regions = regions
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
        """REASONING: (where the text goes on, whether it waits, the move made when
        the region ended)."""
        text_end, region_end = self.regions.closing(self.format, text, pos, final)
        if text_end > pos:
            piece = text[pos:text_end]
            output.reasoning(piece, piece)
        if region_end == WAIT:
            return text_end, True, None
        if region_end > text_end:
            output.reasoning("", text[text_end:region_end])
        return region_end, False, Move.REGION_ENDS
