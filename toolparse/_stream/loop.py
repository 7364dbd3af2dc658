"""The mode loop: the stream's modes, and the blocks they open, decide and settle.

`ModeLoop` holds the state every mode reads (the tail, the stream offset, the open
capture, the failed span, the contest, the waiting block) and runs the modes over a
text, as far as it goes (`_process`). `Engine` (`engine.py`) adds
`feed`'s fast paths around it; each of them ends here when its guard fails.

The loop keeps the text that is not decided yet (its *tail*) and moves between the
modes of `modes.py`:

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
CHOOSING Under `auto`, a block-start tag that several grammars open: each reads the
         text after it until one is chosen (`contest.py`).
START, REASONING, CONTENT
         A reasoning region at the stream's start, or a message's parts (`reasoning.py`,
         SPEC 11).

Every move goes through `next_mode`, the one table of moves. A decision that sends text
back (a contest decided, a waiting block decided) returns it, and `_process` runs it
again from `_base`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final, cast

from toolparse._calls import CallPolicy
from toolparse._dialect import Dialect
from toolparse._dialect.grammar import Grammar
from toolparse._dialect.lexer import TerminalSpec
from toolparse._dialect.loader import MESSAGE_RULES
from toolparse._reasoning import Regions
from toolparse._stream.arriving import Arriving
from toolparse._stream.capture import COMPLETE, WAITING, Capture
from toolparse._stream.contest import Choice, Contest, Entrant, entrant_openers
from toolparse._stream.endings import (
    broken_span, complete_block, prose_mention, waiting_block)
from toolparse._stream.modes import Mode, Move, next_mode
from toolparse._stream.output import Output
from toolparse._stream.progress import CallProgress
from toolparse._stream.reasoning import Thinking, message
from toolparse._stream.scan import Opener, Scanner, scan
from toolparse._stream.skip import ENDED, OPEN, FailedSpan
from toolparse._stream.undecided import Undecided

__all__ = ["ModeLoop"]

_NO_LIMIT: Final = 1 << 62
"""`_limit` with no capture open: far away."""


class ModeLoop:
    """The modes run over a text, and the blocks they open and settle (see the module's
    docstring); `Engine` is the one subclass."""

    __slots__ = (
        "_dialect", "_policy", "_max_capture", "_output", "_mode", "_tail", "_base",
        "_capture", "_span", "_undecided", "_limit", "_arriving", "_new_id", "_grammar",
        "_incremental", "_scanner", "_contest", "_thinking",
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

    def _lex(self, text: str, pos: int, base: int, final: bool, quiet: bool = False
             ) -> tuple[int, bool]:
        """Lex text[pos:] into the open capture (`Capture.lex`; `quiet`: as there)."""
        capture = self._capture
        if capture is None:  # the mode table guarantees a capture in CAPTURE mode
            raise AssertionError("CAPTURE mode without a capture")
        pos, outcome = capture.lex(self._arriving, text, pos, base, final, quiet)
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
