"""Reading a reasoning region as it arrives: where it opens, and where it ends (SPEC 11).

`Markers` finds the first of several markers in a text, and tells whether one may still
be arriving at its end: a region's text goes out as it arrives (SPEC G5), held back only
from the first position where a marker may have begun. `Regions` holds the markers of
the formats a parser reads (one, or every bundled one under `auto`) and answers the two
questions the stream engine asks:

- at the start of the stream, after optional whitespace: does a region open here, and
  where does its text begin (after the opener and the format's label)? (`opening`)
- inside a region: where does its text end, and where does the region end? At the
  first closer, or at a tool opener the dialect declares as ending the region (then
  the region ends before it: it opens a block), or nowhere yet. (`closing`)

Both are chunking-invariant: a complete marker counts only where no marker that may
still be arriving began before it, so the answer is the one the whole text would give.

Cost: one compiled search per call from where the last one stopped, and at most
`MAX_MARKER` characters stepped through the automata at the end of the text; linear.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Final

from toolparse._reasoning.formats import Marker, ReasoningFormat

__all__ = ["Markers", "NO_REGION", "Regions", "WAIT", "closing"]

WAIT: Final = -1
"""Not decided yet: the text ends where a marker may still be arriving."""
NO_REGION: Final = -2
"""No region opens here."""


class Markers:
    """Several markers, searched for together."""

    __slots__ = ("markers", "_search", "_first", "_longest")

    @property
    def first_chars(self) -> str:
        """The characters a marker can begin with."""
        return self._first

    def __init__(self, markers: Sequence[Marker]) -> None:
        self.markers = tuple(markers)
        self._search = re.compile("|".join(f"(?P<m{n}>{m.pattern})"
                                           for n, m in enumerate(self.markers))
                                  or r"(?!)").search   # (none: a search that finds nothing)
        firsts: set[str] = set()
        for marker in self.markers:
            dfa = marker.dfa
            row = dfa.table[dfa.initial]
            firsts.update(ch for ch, state in row.items() if state >= 0)
        self._first = "".join(sorted(firsts))
        self._longest = max((marker.longest for marker in self.markers), default=0)

    def first(self, text: str, pos: int, final: bool) -> tuple[int, int, int] | None:
        """The first complete marker in text[pos:] (of those that match there, the
        first listed, as the search takes it), unless a marker that may still be
        arriving begins at or before it (the whole text could then find another):
        (which, start, end); None when there is none yet. At the end of the stream
        nothing is arriving any more."""
        found = self._search(text, pos)
        if found is None:
            return None
        if not final:
            arriving = self.arriving(text, pos)
            if 0 <= arriving <= found.start():
                return None
        which = int((found.lastgroup or "m0")[1:])
        return which, found.start(), found.end()

    def arriving(self, text: str, pos: int) -> int:
        """The first position (from `pos`) where a marker may have begun but not ended:
        the text ends inside it; -1 when none may."""
        at = max(pos, len(text) - self._longest + 1)
        first = self._first
        while at < len(text):
            if text[at] in first and any(_alive(m, text, at) for m in self.markers):
                return at
            at += 1
        return -1

    def at(self, text: str, pos: int, final: bool) -> tuple[int, int]:
        """Whether a marker starts exactly at `pos`: (which, end) for a complete one
        (the longest, when several complete there), (-1, WAIT) while one may still be
        arriving (the text ends inside it, and the stream goes on), (-1, NO_REGION)
        when none can."""
        best, best_end, arriving = -1, -1, False
        for which, marker in enumerate(self.markers):
            dfa = marker.dfa
            state = dfa.initial
            for n in range(pos, len(text)):
                state = dfa.table[state].get(text[n], dfa.default[state])
                if state < 0:
                    break
                if dfa.final[state]:
                    if n + 1 > best_end:
                        best, best_end = which, n + 1
                    break
            else:
                arriving = arriving or state >= 0
        if arriving and not final:
            return -1, WAIT
        return (best, best_end) if best >= 0 else (-1, NO_REGION)


def _alive(marker: Marker, text: str, at: int) -> bool:
    """Whether text[at:] is a proper start of `marker` (it may still complete)."""
    dfa = marker.dfa
    state = dfa.initial
    for n in range(at, len(text)):
        state = dfa.table[state].get(text[n], dfa.default[state])
        if state < 0 or dfa.final[state]:
            return False
    return True


class Regions:
    """The reasoning formats one parser reads, and the dialect's tool openers that end
    a region (SPEC G3b: Kimi opens its tool section before it closes its thinking)."""

    __slots__ = ("formats", "openers", "_starting", "_closers", "_any", "_labels")

    def __init__(self, formats: Sequence[ReasoningFormat], enders: Sequence[Marker] = ()
                 ) -> None:
        self.formats = tuple(formats)
        # A channels format's regions open through the dialect's block starts, wherever
        # a message begins: never by its opener alone at the stream start.
        self.openers = Markers([f.open for f in self.formats if not f.channels])
        self._starting = tuple(n for n, f in enumerate(self.formats) if not f.channels)
        """Opener index -> format index."""
        # Per format: its closer first, then the enders.
        self._closers = tuple(Markers([f.close, *enders]) for f in self.formats)
        # A region the stream started inside (in_reasoning): any format's closer.
        closes = list({f.close.pattern: f.close for f in self.formats}.values())
        self._any = Markers([*closes, *enders]), len(closes)
        self._labels = tuple(Markers([f.label]) if f.label is not None else None
                             for f in self.formats)

    @property
    def at_start(self) -> bool:
        """Whether a region may open at the start of the stream (a format that is not a
        channels format is read)."""
        return bool(self.openers.markers)

    def may_open(self, text: str) -> bool:
        """Whether `text` may open a region (its first character that is not whitespace
        can begin an opener): a quick test for callers that skip the engine."""
        stripped = text.lstrip()
        return bool(stripped) and stripped[0] in self.openers.first_chars

    def opening(self, text: str, pos: int, final: bool) -> tuple[int, int]:
        """At the stream start, from `pos` (the first character that is not
        whitespace): (format, where its text begins) when a region opens; (-1, WAIT)
        while it cannot tell yet; (-1, NO_REGION) when none opens."""
        which, end = self.openers.at(text, pos, final)
        if which < 0:
            return -1, end
        which = self._starting[which]
        label = self._labels[which]
        if label is not None:
            found, label_end = label.at(text, end, final)
            if found >= 0:
                end = label_end
            elif label_end == WAIT:
                return -1, WAIT
        return which, end

    def closing(self, fmt: int, text: str, pos: int, final: bool) -> tuple[int, int]:
        """Inside a region of format `fmt` (-1: the stream started inside a region, and
        any format's closer ends it), from `pos`: (where its text ends, where the
        region ends). The region ends after its closer, or before an ender (a tool
        opener: the two offsets are equal), or at the end of the stream; while it goes
        on, the second is WAIT and the first is where the text that may go out ends."""
        closers, ends_after = (self._closers[fmt], 1) if fmt >= 0 else self._any
        return closing(closers, ends_after, text, pos, final)


def closing(closers: Markers, ends_after: int, text: str, pos: int, final: bool
            ) -> tuple[int, int]:
    """Inside a region (or a message) that `closers` end, from `pos`: (where its text
    ends, where it ends). The first `ends_after` markers end it after themselves; the
    others (tool openers) before. At the end of the stream it ends there; while it goes
    on, the second is WAIT and the first is where the text that may go out ends."""
    found = closers.first(text, pos, final)
    if found is not None:
        which, start, end = found
        return start, (end if which < ends_after else start)
    if final:
        return len(text), len(text)
    arriving = closers.arriving(text, pos)
    return (arriving if arriving >= 0 else len(text)), WAIT
