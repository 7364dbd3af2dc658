"""CHOOSING mode (`dialect="auto"`, SPEC 5.2): a block-start tag that several grammars
open, read by each of them until one is chosen.

`<tool_call>` opens a block in Qwen3-Coder, GLM and Hermes alike; the tags after it
tell them apart (`<function=`, a bare name, `{`). At such a tag every grammar whose
openers match there gets an *entrant*: its own capture, fed the same text as it
arrives. Nothing of the block goes out while they read; the text is held.

The choice depends on the text alone, never on where chunks end:

- the entrant whose block completes first (the smallest end offset) wins, once no
  other entrant can still complete earlier (every other one failed, or has read past
  that end);
- while none has completed, a sole surviving entrant wins once it has read past the
  point where every other one failed (it can only complete, or fail later than they
  did);
- when all fail, the one that read furthest wins (its failure is the block's).

Ties go to the earlier grammar in `toolparse.dialects()` order (the default first).
The winner's capture goes on as the open block (CAPTURE mode), from where it stands.
With incremental events the winner is read again from the opening tag by a capture
that reports its calls (entrants report nothing), so no news of a grammar that was not
chosen ever goes out.

Bound: each entrant reads each character once; the held text is at most the capture
limit (every entrant fails there).
"""

from __future__ import annotations

from typing import NamedTuple

from toolparse._dialect.dialect import Dialect
from toolparse._dialect.grammar import Grammar
from toolparse._dialect.lexer import TerminalSpec, next_token
from toolparse._dialect.openers import BlockStarts
from toolparse._stream.arriving import EXTENDS, Arriving
from toolparse._stream.capture import COMPLETE, FAILED, WAITING, Capture
from toolparse._stream.scan import Opener

__all__ = ["Choice", "Contest", "Entrant", "entrant_openers"]


class Entrant:
    """One grammar's reading of the contested block."""

    __slots__ = ("capture", "spec", "token", "arriving", "tail", "base", "outcome", "stop")

    def __init__(self, capture: Capture, spec: TerminalSpec, token: str) -> None:
        self.capture = capture
        self.spec = spec
        """The grammar's opening terminal, and the token it matched (`token`)."""
        self.token = token
        self.arriving = Arriving()
        self.tail = ""
        """Text it has not read yet (a token still arriving), from offset `base`."""
        self.base = capture.start + len(token)
        self.outcome = WAITING
        self.stop = -1
        """Once COMPLETE: where the block ends; once FAILED: where it failed."""
        if not capture.open(spec, token):  # a call tag without a name: the tag fails
            capture.parts.append(token)
            self.outcome, self.stop = FAILED, capture.at

    @property
    def grammar(self) -> Grammar:
        return self.capture.grammar

    def read(self, text: str, final: bool) -> None:
        """Read on through `text` (what arrived after what it read before)."""
        if self.outcome != WAITING:
            return
        tail = self.tail
        if tail and text and not final and self.arriving.extends(
                tail, text, self.capture.limit - self.base) == EXTENDS:
            # The token arriving at the end of the tail only grows (its automaton,
            # stepped over the new characters): nothing to lex yet, as in
            # `Engine.feed`'s path 4.
            self.tail = tail + text
            return
        text = tail + text
        self.arriving.clear()
        pos, outcome = self.capture.lex(self.arriving, text, 0, self.base, final)
        self.outcome = outcome
        if outcome != WAITING:
            self.stop = self.base + pos if outcome == COMPLETE else self.capture.at
        self.tail = text[pos:]
        self.base += pos


def entrant_openers(dialect: Dialect, text: str, opener: Opener
                    ) -> list[tuple[Grammar, TerminalSpec]]:
    """The grammars (in priority order) that open a block with exactly the block-start
    tag SCAN found (`opener`, in `text`: an opener's lookahead reads past its token, as
    granite's `<function_call>` does for the `{` after it),
    each with the terminal that matches it (the first in its lexer order). A grammar
    that only accepts the tag (an accept-only spelling: qwen3_coder's
    `<seed:tool_call>`) gives way to those that write it (seed_oss), so the same block
    is not read twice (SPEC 5.2's cost bound). An anchored opener, found at the start
    of the answer (SPEC 5.3 b), is read by the grammars' anchored openers only.
    (`dialect`: several grammars, `auto`.)"""
    found = []
    for grammar, starts in _worth_asking(dialect, text, opener):
        literals = starts.literals
        if literals is not None:
            # Every opener of its a literal: the first the text starts with is the one
            # its lexer would match (`BlockStarts.literals`), without a regex match.
            for literal, literal_spec in literals:
                if text.startswith(literal, opener.at):
                    if opener.at + len(literal) == opener.end:
                        found.append((grammar, literal_spec))
                    break
            continue
        spec, end = next_token(starts.lexer, text, opener.at, len(text), True)
        if spec is not None and end == opener.end:
            found.append((grammar, spec))
    written = [(g, spec) for g, spec in found if spec.name not in g.lenient_openers]
    return written or found


def _worth_asking(dialect: Dialect, text: str, opener: Opener
                  ) -> tuple[tuple[Grammar, BlockStarts], ...]:
    """The grammars some opener of which begins with the tag's first two characters
    (each grammar's `start_search`, which reads no further than those: the same
    answer for every tag that begins with them, kept by the openers of them all), each
    with its openers (anchored or not, as the tag)."""
    union = dialect._anchors if opener.anchored else dialect._starts
    at = opener.at
    pair = text[at:at + 2]
    kept = union.entrants.get(pair) if union is not None and len(pair) == 2 else None
    if kept is not None:
        return kept
    worth = []
    for grammar in dialect._grammars:
        starts = grammar.anchored_starts if opener.anchored else grammar.block_starts
        if starts is not None and starts.start_search.match(text, at) is not None:
            worth.append((grammar, starts))
    if union is not None and len(pair) == 2:
        union.entrants[pair] = tuple(worth)
    return tuple(worth)


class Choice(NamedTuple):
    """The chosen entrant, and the held text from where it stands on (to read again)."""

    entrant: Entrant
    rest: str
    """The text after the point it reached (`entrant.base`), which the engine reads
    again in the mode the entrant's outcome leads to."""


class Contest:
    """The entrants of one contested block, in priority order, and its held text."""

    __slots__ = ("entrants", "start", "held")

    def __init__(self, entrants: list[Entrant], start: int, token: str) -> None:
        self.entrants = entrants
        self.start = start
        """Stream offset of the block-start tag (`token`, which every entrant read)."""
        self.held = [token]
        """The text from the tag on, as it arrived."""

    def take(self, text: str, final: bool) -> Choice | None:
        """Read `text` in every entrant still reading; the choice once it is certain."""
        if text:
            self.held.append(text)
        for entrant in self.entrants:
            entrant.read(text, final)
        winner = self._winner()
        if winner is None:
            return None
        held = "".join(self.held)
        return Choice(winner, held[winner.base - self.start:])

    def _winner(self) -> Entrant | None:
        entrants = self.entrants
        done = [e for e in entrants if e.outcome == COMPLETE]
        reading = [e for e in entrants if e.outcome == WAITING]
        if done:
            first = min(done, key=lambda e: e.stop)  # min keeps the earliest on a tie
            if all(e.base >= first.stop for e in reading):
                return first
            return None
        failed = [e for e in entrants if e.outcome == FAILED]
        if not reading:
            return max(failed, key=lambda e: e.stop)  # max keeps the earliest on a tie
        if len(reading) == 1 and all(reading[0].base > e.stop for e in failed):
            return reading[0]
        return None
