"""SKIP mode: a block that failed after a call started, waiting for the end of its span.

SPEC 3.2: once an invoke tag of a block was accepted, the model was writing calls, so a
failure does not end the failed text at the failing token. The failed *span* runs on to
whichever comes first: the next block close outside a section (included in the span), a
new block open (not included: it starts a fresh block), or the end of the stream. None
of the span's calls runs, and no call starts inside it (the missing-opening-wrapper form
included). The span goes out as one `Text` whose `failure` says why, as soon as its end
is certain.

Sections (CDATA) hide block closes: a section open raises the depth, a section close
lowers it, and only at depth 0 does a block close or open end the span. Every spelling
comes from the grammar, through `Dialect.roles` and the patterns built from it.

Bound (SPEC G7): when the span reaches its limit (its start + `max_capture`, or where
held output gives up) before its end is certain, its first part goes out at once with
its failure, and the rest of the span goes out as it arrives, with the same failure,
until the span ends as above.
"""

from __future__ import annotations

import sys
from typing import Final

from toolparse._dialect.grammar import Grammar
from toolparse._dialect.lexer import MAX_ATOM
from toolparse._events import BlockFailure
from toolparse._stream.arriving import Arriving
from toolparse._stream.output import Output
from toolparse._stream.progress import Aborted, Call

__all__ = ["FailedSpan", "log_failure"]

OPEN: Final = "open"
"""The span is still running (more of it may come)."""
ENDED: Final = "ended"
"""The span ended at the position reached: scanning resumes there."""


def log_failure(failure: BlockFailure) -> None:
    """One debug record per failed block: its reason and offsets, never its content.
    Nothing while no module has imported `logging`: then nothing can have turned the
    record on, and importing it here would cost every start-up about 5 ms."""
    logging = sys.modules.get("logging")
    if logging is None:
        return
    logger = logging.getLogger("toolparse.stream")
    if logger.isEnabledFor(logging.DEBUG):
        logger.debug("block failed reason=%s start=%d at=%d end=%d expected=%s",
                     failure.reason, failure.start, failure.at, failure.end,
                     ",".join(failure.expected) or "-")


class FailedSpan:
    """A failed block's span while its end is not certain yet."""

    __slots__ = ("reason", "start", "at", "expected", "parts", "size", "depth", "limit",
                 "failure", "aborted", "grammar")

    def __init__(self, reason: str, start: int, at: int, expected: tuple[str, ...],
                 depth: int, limit: int, aborted: tuple[Call, ...] | None = None,
                 grammar: Grammar | None = None) -> None:
        self.reason = reason
        self.start = start
        """Stream offset of the block's first character."""
        self.at = at
        """Where the block failed (the failing token, the limit, the end of stream)."""
        self.expected = expected
        self.parts: list[str] = []
        """The span's text not given out yet."""
        self.size = 0
        """Characters of the span so far (given out or not)."""
        self.depth = depth
        """Sections open at the span's current end."""
        self.limit = limit
        """Stream offset where the span's first part must go out (SPEC G7)."""
        self.failure: BlockFailure | None = None
        """Set once the first part went out at the limit: the rest streams with it."""
        self.aborted = aborted
        """The block's calls that had started and were not withdrawn (incremental
        events; None if no call started): a CallsAborted for them goes out just before
        the span's first text, with the span's failure (`CallProgress.started`)."""
        self.grammar = grammar
        """The grammar that read the block (for the failure's `message`)."""

    def skip(self, grammar: Grammar, output: Output, arriving: Arriving, text: str, pos: int,
             base: int, final: bool) -> tuple[int, str]:
        """Take text[pos:] (text[0] at stream offset `base`) into the span as far as it
        goes; returns (position reached, OPEN or ENDED). At OPEN the rest of the text is
        a span terminal still arriving (described in `arriving`), or nothing."""
        end = len(text)
        while pos < end:
            search = grammar.section_search if self.depth else grammar.span_search
            m = search.search(text, pos)
            if m is None:
                if final:
                    self.add(output, text, pos, end, base)
                    self.finish(output)
                    return end, ENDED
                stop = self._arriving_at(grammar, arriving, text, pos)
                self.add(output, text, pos, stop, base)
                return stop, OPEN
            name = m.lastgroup or ""
            roles = grammar.roles
            if self.depth and name in roles.section_closes and name not in roles.section_opens:
                self.depth -= 1
            elif name in roles.section_opens:
                self.depth += 1
            elif name in roles.block_closes:
                self.add(output, text, pos, m.end(), base)
                self.finish(output)
                return m.end(), ENDED
            else:  # a block open: it starts a fresh block
                self.add(output, text, pos, m.start(), base)
                self.finish(output)
                return m.start(), ENDED
            self.add(output, text, pos, m.end(), base)
            pos = m.end()
        if final:
            self.finish(output)
            return pos, ENDED
        return pos, OPEN

    def _arriving_at(self, grammar: Grammar, arriving: Arriving, text: str, pos: int) -> int:
        """Where a span terminal may still be arriving at the end of text[pos:] (the
        text waits from there), else the end."""
        end = len(text)
        dfa, partial, starts = grammar.span_arriving(self.depth > 0)
        for candidate in starts.finditer(text, max(pos, end - MAX_ATOM + 1), end):
            at = candidate.start()
            if dfa is not None:
                if dfa.advance(dfa.initial, text[at:end]) >= 0:
                    arriving.atom(dfa, partial.match, text, at)
                    return at
                continue
            m = partial.match(text, at, end, partial=True)
            if m is not None and m.partial:
                arriving.atom(None, partial.match, text, at)
                return at
        return end

    def add(self, output: Output, text: str, start: int, stop: int, base: int) -> None:
        """text[start:stop] belongs to the span; past the limit it goes out at once."""
        if stop <= start:
            return
        piece = text[start:stop]
        if self.failure is not None:
            output.text(piece, base + start, self.failure)
            return
        room = self.limit - (self.start + self.size)
        self.parts.append(piece)
        self.size += len(piece)
        if len(piece) >= room:
            # The bound: the first part goes out now, the rest as it arrives.
            head = "".join(self.parts)
            cut = self.limit - self.start
            self.failure = BlockFailure(self.reason, self.start, self.limit, self.at,
                                        self.expected, context=(head[:cut], self.grammar))
            self._fail(output, self.failure)
            self.parts = []
            output.text(head[:cut], self.start, self.failure)
            if cut < len(head):
                output.text(head[cut:], self.limit, self.failure)

    def _fail(self, output: Output, failure: BlockFailure) -> None:
        log_failure(failure)
        if self.aborted is not None:
            output.progress([Aborted(self.aborted, failure)])
            self.aborted = None

    def finish(self, output: Output) -> None:
        """The span's end is certain: give out what is left of it."""
        if self.failure is not None:
            return
        text = "".join(self.parts)
        self.failure = BlockFailure(self.reason, self.start, self.start + self.size, self.at,
                                    self.expected, context=(text, self.grammar))
        self._fail(output, self.failure)
        output.text(text, self.start, self.failure)
        self.parts = []
