"""CAPTURE mode: an open block, lexed as it arrives and fed to the LALR driver.

This is the one place where tokens enter the parser. Per token: the parser state on top
of the driver's stack says which terminals may come next (`Grammar.lexer(state)`, one
compiled alternation in Lark's order); the lexer matches one at the position
(`lexer.next_token`); an %ignore terminal is kept in the block's text but not fed; a
loop token (a piece of a value, `table.py`) is appended to its list; anything else goes
to `Driver.feed`, which calls the rules' builders as they reduce. The block is complete
as soon as the parser can accept its end, and fails at the first token the parser
rejects, text no terminal matches, a builder's refusal (`BlockRejected`), the capture
limit or the end of the stream.

A run that reaches the end of the text (`[^<]+` in a value) is fed as far as it goes,
and the next chunk, when it is all more of that run (`TerminalSpec.continues`), is
appended without a lexer pass (`extend`): inside a value, a chunk costs an append.

Where a `json_call` of the bundled JSON grammar begins (`Grammar.wholes`), its text is
handed to Python's JSON decoder instead (`_whole`, `_dialect/whole.py`): a complete value
is pushed as the rule's value in one step; one still arriving waits, unlexed, as the
tail; text the decoder refuses is lexed token by token, as any other.

A block of a grammar whose blocks end where their value ends (`block_end=value`, SPEC
5.3 a) may reach a point where its rule can end but could also go on (a Llama `;` before
the next call, an optional close tag). The block then ends there (`end_at`) unless the
next token, after any ignored whitespace, is one the rule takes there (`_ahead`): the
text from that point waits, unlexed, as the tail, until that token has arrived, or the
stream ends (the block ends there), or more than `MAX_ATOM` characters of whitespace
came (the block ended before them).

A failed capture says why (`reason`), where (`at`), what the grammar would have
accepted there (`expected`), whether a call had started (`invoked`: an accepted call
tag makes the failure *broken calls*, SPEC 3.2) and how many sections were open.

Bound: the capture never reads past `limit` (its start + `max_capture`, or where held
output gives up); at the limit it fails (SPEC G7).
"""

from __future__ import annotations

import re
from typing import Any, Final

from toolparse._dialect.build import BlockRejected, RawCall
from toolparse._dialect.gates import Closers
from toolparse._dialect.grammar import Grammar
from toolparse._dialect.lexer import (
    MAX_ATOM, NEED_MORE, StateLexer, TerminalSpec, next_token, settle_state)
from toolparse._dialect.table import Driver, Rejected, Tag
from toolparse._dialect.whole import INCOMPLETE, INVALID, Trying, Whole
from toolparse._stream.arriving import Arriving
from toolparse._stream.keeping import Keeping, kept
from toolparse._stream.progress import CallProgress

__all__ = ["COMPLETE", "Capture", "FAILED", "WAITING"]

_PAUSED: Final = "paused"
"""`_read`'s outcome at a point where the block can end but may go on (`end_at`)."""

_NO_WHOLES: Final[frozenset[str]] = frozenset()
"""With incremental events: no `json_call` is read whole (its pieces stream)."""
_NO_PLAN: Final[dict[str, Whole]] = {}

WAITING: Final = "waiting"
COMPLETE: Final = "complete"
FAILED: Final = "failed"


class Capture:
    """An open block: its parser, its text so far, and where it must end."""

    __slots__ = ("grammar", "rule", "driver", "start", "parts", "ticket", "limit", "calls", "run",
                 "run_list", "run_stops", "invoked", "reason", "at", "expected", "depth",
                 "progress", "end_at", "kept", "trying", "waiting_whole", "wholes")

    def __init__(self, grammar: Grammar, rule: str, start: int, ticket: int, limit: int,
                 progress: CallProgress | None = None) -> None:
        self.grammar = grammar
        self.rule = rule
        """The start rule it reads (`block`, `orphan_block`, or a message rule)."""
        self.progress = progress
        """With incremental events: what the block's calls have shown so far."""
        builders = grammar.builders if progress is None else progress.builders(grammar.builders)
        self.driver = Driver(grammar.table, rule, builders)
        self.start = start
        """Stream offset of the block's first character."""
        self.parts: list[str] = []
        """The block's text so far, token by token."""
        self.ticket = ticket
        """The Markdown ticket of its opening tag (-1: outside code for certain)."""
        self.limit = limit
        """Stream offset at which the capture fails (SPEC G7)."""
        self.calls: tuple[RawCall, ...] = ()
        """Once complete: the block's calls, as the builders made them."""
        self.run: TerminalSpec | None = None
        """The run that reached the end of the last text: the next chunk may go on."""
        self.run_list: list[Any] | None = None
        """When that run is a loop token with stop characters (a value's text): the list
        its pieces go to, so that the stream engine can append a chunk that holds none
        of `run_stops` without a lexer pass."""
        self.run_stops = ""
        self.invoked = False
        """A call's opening tag was accepted (SPEC 3.2: a failure is then broken calls)."""
        self.reason = ""
        """Once failed: why (a `BlockFailure.reason` code)."""
        self.at = -1
        """Once failed: the stream offset of the failing token (or limit, or end)."""
        self.expected: tuple[str, ...] = ()
        """Once failed: the terminals the parser would have accepted there."""
        self.depth = 0
        """Once failed: how many sections were open."""
        self.kept: Keeping | None = None
        """The engine's last keeping in this block, which its next one reuses
        (`Keeping.restart`)."""
        self.wholes = grammar.whole_opens if progress is None else _NO_WHOLES
        """The terminals a `json_call` read whole opens with (`whole.py`); none with
        incremental events, where its pieces stream."""
        self.trying: Trying | None = None
        """The last `json_call` tried whole (`_whole`); `waiting_whole`: the last read
        stopped before it, its text still arriving (the engine keeps that text, to be
        read again with more)."""
        self.waiting_whole = False
        self.end_at = -1
        """Where the block ends unless the next token continues it (`block_end=value`,
        SPEC 5.3 a: a stream offset; the text from there is not lexed yet), or -1."""

    @property
    def text(self) -> str:
        return "".join(self.parts)

    def open(self, spec: TerminalSpec, value: str) -> bool:
        """Feed the opening token; False when it is a call tag without a name (no call
        starts, and no block). An opener is a valid first token of its start rule."""
        token = (Tag(spec.name, value, self.start)
                 if spec.name in self.grammar.roles.delimiters else value)
        try:
            self._feed(spec.name, token, self.start)
        except (Rejected, BlockRejected) as refused:
            self.reason = getattr(refused, "reason", "unexpected_token")
            self.at = self.start
            return False
        self.parts.append(value)
        return True

    def ended_at_open(self) -> bool:
        """Whether the opening token is the whole block (a message header: SPEC 11);
        then `calls` is set (none)."""
        if self.grammar.enders.isdisjoint(self.grammar.opener_rule) or (
                not self.driver.accepts_end()):
            return False
        self.driver.finish()   # (a message rule builds no call)
        self.calls = ()
        return True

    def _feed(self, name: str, token: Any, start: int) -> None:
        """Feed a token (its text, or its `Tag` when the terminal delimits a rule)."""
        grammar = self.grammar
        if name in grammar.roles.call_starts:
            if grammar.name_at_tag:
                grammar.build.check_call_tag(token if isinstance(token, Tag)
                                             else Tag(name, token, start))
            progress = self.progress
            if progress is None:
                self.driver.feed(name, token)
            else:
                call = progress.opening(token)
                self.driver.feed(name, token)
                progress.opened(call)
            self.invoked = True
        else:
            self.driver.feed(name, token)

    def extend(self, chunk: str, base: int) -> bool:
        """The fast path: `chunk` (at stream offset `base`) is all more of the run the
        last text ended in, in a state where that run only extends a list (or is
        ignored). True when taken; False: lex it the usual way."""
        run = self.run
        if run is None or base + len(chunk) >= self.limit or not run.continues(chunk):
            return False
        name = run.name
        grammar = self.grammar
        if name not in grammar.ignored:
            driver = self.driver
            if name not in driver.loops[driver.stack[-1]]:
                return False
            driver.values[-1].append(chunk)
        self.parts.append(chunk)
        return True

    def keeping(self, tail: str, gates: str, closers: Closers | None, room: int) -> Keeping:
        """The engine keeps chunks unlexed in this block (`Keeping`, its arguments): the
        block's last keeping again, or a new one; when the text lexed ended in a value's
        run, following it (`Keeping.follow`)."""
        keeping = self.kept = kept(self.kept, tail, gates, closers, room)
        run, driver = self.run, self.driver
        if self.waiting_whole and not keeping.gate:
            # (With one gate `feed` keeps a chunk without it unread: the try reads the
            # text at each gate instead.)
            keeping.whole = self.trying
        elif self.run_list is not None and run is not None:
            keeping.follow(self.grammar.inside(driver.stack[-1], run))
        return keeping

    def forget_run(self) -> None:
        self.run = None
        self.run_list = None

    def lex(self, arriving: Arriving, text: str, pos: int, base: int, final: bool,
            quiet: bool = False) -> tuple[int, str]:
        """Lex text[pos:] (text[0] is at stream offset `base`) into the parser.

        Returns (position reached, outcome): WAITING (the rest of the text is a token
        still arriving, described in `arriving`, or nothing), COMPLETE (the block ended
        at the position; `calls` holds its calls) or FAILED (the block fails at the
        position). `final`: no more text will come (end of stream). `quiet`: the
        text was kept (`Keeping`), so nothing can go out before the block ends or a tag
        ends its failed span (a `json_call` read whole may wait without being read
        again: `Trying.read`).
        """
        while True:
            # The block can end here, unless the next token goes on with it (SPEC 5.3 a).
            if self.end_at >= 0:
                limit = self.limit - base
                ended = self._ahead(text, pos, min(len(text), limit), base,
                                    final or limit <= len(text))
                if ended is not None:
                    return pos, ended
            pos, outcome = self._read(arriving, text, pos, base, final, quiet)
            if outcome != _PAUSED:
                return pos, outcome

    def _read(self, arriving: Arriving, text: str, pos: int, base: int, final: bool,
              quiet: bool) -> tuple[int, str]:
        """`lex`, up to a point where the block can end but may go on (`_PAUSED`)."""
        grammar, driver, parts = self.grammar, self.driver, self.parts
        stack, lexers, loops, feed = driver.stack, grammar.state_lexers, driver.loops, driver.feed
        values, shifts, enders = driver.values, grammar.table.shifts, grammar.enders
        ignored, delimiters, calls = grammar.ignored, grammar.roles.delimiters, grammar.roles.call_starts
        limit = self.limit - base
        stop, hard, sure, run_end = _bounds(len(text), limit, final)
        self.run = self.run_list = None
        self.waiting_whole = False
        wholes = self.wholes
        no_row_before = 0
        while True:
            # 1. The end of the text, or of the capture's room: wait, or fail.
            if pos >= stop:
                return pos, self._stopped(pos, limit, base, hard)
            # 2. The token here: one match in the state's alternation (with the
            # whitespace before it: `StateLexer.lead`), or the careful way (`_settle`).
            state = stack[-1]
            lexer = lexers.get(state) or grammar.lexer(state)
            m = lexer.lead.match(text, pos, stop)
            if lexer.folds and m is not None and (begin := m.start(m.lastindex or 0)) > pos:
                parts.append(text[pos:begin])   # the ignored whitespace
                pos = begin
            if m is not None and (spec := lexer.lead_groups[m.lastindex or 0]) is not None and (
                    (token_end := m.end()) > pos) and token_end - pos <= spec.bound and (
                    pos < sure or token_end + lexer.second_look[spec.name] < stop):
                pass
            else:
                spec, token_end, outcome = self._settle(arriving, lexer, m, text, pos, stop,
                                                        limit, base, hard)
                if spec is None:
                    return pos, outcome
            # 3. Ignored whitespace, loop tokens (a value's pieces), or a token to parse.
            name = spec.name
            if name in ignored:
                value = text[pos:token_end]
                parts.append(value)
            elif name in loops[state]:
                # More loop tokens in a row go with this one (`StateLexer.loop_run`),
                # unless they end near the end of the text, where nothing is decided;
                # then no row is tried again before where that one ended.
                if token_end >= no_row_before:
                    token_end, no_row_before = _row(lexer, text, token_end, stop, hard,
                                                    no_row_before)
                value = text[pos:token_end]
                values[-1].append(value)
                parts.append(value)
            elif name in wholes and (
                    taken := self._whole(name, arriving, text, pos, stop, base, hard, quiet)
                    ) is not None:
                # A `json_call` read whole (`whole.py`), or its text waits for more.
                pos, outcome = taken
                if outcome:
                    return pos, outcome
                continue
            else:
                value = text[pos:token_end]
                token = Tag(name, value, base + pos) if name in delimiters else value
                try:
                    if name in calls:
                        self._feed(name, token, base + pos)
                    elif (target := shifts[state].get(name)) is not None:
                        stack.append(target)  # a plain shift (`Table.shifts`)
                        values.append(token)
                    else:
                        feed(name, token)
                except (Rejected, BlockRejected) as refused:
                    return pos, self._failed(getattr(refused, "reason", "unexpected_token"),
                                             base + pos)
                parts.append(value)
                # Only a block's last terminal can let the parser accept its end.
                if name in enders and driver.accepts_end():
                    return self._complete(token_end, value, base)
            # 4. A run that reaches the end of the text waits for more of it.
            pos = token_end
            if pos == run_end and spec.is_run:
                return self._wait_in_run(spec, pos)

    def _whole(self, name: str, arriving: Arriving, text: str, pos: int, stop: int,
               base: int, hard: bool, quiet: bool) -> tuple[int, str] | None:
        """A `json_call` may begin at `pos` with its opening token (`name`), once the
        table has made the reductions before it (`Driver.ready`): read it whole
        (`whole.py`): (where it ended, "") and its value pushed, or the block's end
        there; (pos, WAITING) when its text is still arriving (read again from `pos` with
        more); None: read it token by token (text the decoder refuses, the end of the
        stream or the capture's room, or `WHOLE_TRIES` tries of this value)."""
        whole = self.grammar.wholes.get(self.driver.ready(name), _NO_PLAN).get(name)
        if whole is None:
            return None
        trying = self.trying
        if trying is None or trying.at != base + pos:
            trying = self.trying = Trying(base + pos, whole.ends)
        end = trying.read(text, pos, base, stop, hard, quiet)
        if end == INVALID or (end == INCOMPLETE and (hard or not (
                whole.call_start or self.invoked))):
            return None
        if whole.call_start:
            self.invoked = True   # (as the opening token would have: it is taken here)
        if end == INCOMPLETE:
            self.waiting_whole = True
            arriving.clear()
            return pos, WAITING
        last = end - 1
        children = ([Tag(name, text[pos], base + pos), text[pos + 1:last],
                     Tag(whole.close, text[last], base + last)]
                    if whole.open_tag else [text[pos:end]])
        self.parts.append(text[pos:last])
        try:
            self.driver.pushed(whole.goto, whole.builder(children))
        except (Rejected, BlockRejected) as refused:
            return last, self._failed(getattr(refused, "reason", "unexpected_token"), base + last)
        self.parts.append(text[last])
        if whole.close in self.grammar.enders and self.driver.accepts_end():
            return self._complete(end, text[last], base)
        return end, ""

    def _ahead(self, text: str, pos: int, stop: int, base: int, hard: bool) -> str | None:
        """The block can end at `pos` (`end_at`): COMPLETE when the next token, after
        any ignored whitespace, is one the rule cannot take here, or none comes (the
        end of the stream, the capture's limit, text no terminal matches, more than
        `MAX_ATOM` characters of whitespace); WAITING while it has not arrived (nothing
        is taken: the text from `pos` waits); None when it goes on with the block,
        which `_read` then reads the usual way."""
        grammar, driver = self.grammar, self.driver
        lexer = grammar.lexer(driver.stack[-1])
        at = pos
        while True:
            if at >= stop:
                return self._complete_here(pos, base) if hard else WAITING
            if at - pos > MAX_ATOM:
                return self._complete_here(pos, base)
            spec, token_end = next_token(lexer, text, at, stop, hard)
            if token_end == NEED_MORE:
                return WAITING
            if spec is None:
                return self._complete_here(pos, base)
            if spec.name not in grammar.ignored:
                if not driver.takes(spec.name):
                    return self._complete_here(pos, base)
                self.end_at = -1
                return None
            at = token_end

    def _complete_here(self, pos: int, base: int) -> str:
        """The block ends at `pos`, where its rule could end (`end_at`)."""
        self.end_at = -1
        try:
            self.calls = self.driver.finish()
        except (Rejected, BlockRejected) as refused:
            return self._failed(getattr(refused, "reason", "unexpected_token"), base + pos)
        return COMPLETE

    def _stopped(self, pos: int, limit: int, base: int, hard: bool) -> str:
        """The text is lexed to its end (`pos`): wait for more, or, at the capture
        limit or the end of the stream, fail inside the open block."""
        if not hard:
            return WAITING
        return self._failed("max_capture" if pos >= limit else "truncated", base + pos)

    def _settle(self, arriving: Arriving, lexer: StateLexer, m: re.Match[str] | None,
                text: str, pos: int, stop: int, limit: int, base: int, hard: bool
                ) -> tuple[TerminalSpec | None, int, str]:
        """The lexer's careful cases (`settle_state`, `next_token`): no match, an atom
        too long, or, near the end of the text, a candidate an earlier atom could still
        beat or with a lookahead. Returns (the token's terminal, its end, "") or, when
        there is no token here, (None, pos, WAITING or FAILED). `m` is the state's
        `lead` match, read again with `master` when the two differ."""
        if lexer.lead is not lexer.master:
            m = lexer.master.match(text, pos, stop)
        spec, token_end, atom_state = settle_state(lexer, m, text, pos, stop, hard)
        if token_end == NEED_MORE and spec is not None:
            _remember(arriving, spec, atom_state, text, pos)
            return None, pos, WAITING
        if spec is None:
            return None, pos, self._cut_off(lexer, text, pos, stop, limit, base, hard)
        return spec, token_end, ""

    def _wait_in_run(self, spec: TerminalSpec, pos: int) -> tuple[int, str]:
        """The text ended in a run (`spec`): remember it, so that a next chunk that is
        all more of it only extends it (`extend`)."""
        driver = self.driver
        self.run = spec
        if spec.stops and spec.name in driver.loops[driver.stack[-1]]:
            self.run_list = driver.values[-1]
            self.run_stops = spec.stops
        return pos, WAITING

    def _complete(self, token_end: int, value: str, base: int) -> tuple[int, str]:
        """The parser can accept the end after `value`, which ends at `token_end`: the
        block is complete, unless its rule may go on there (`block_end=value`): then
        `_PAUSED`, the point kept in `end_at`."""
        if self.grammar.header.value_ends and self.driver.continues():
            self.end_at = base + token_end
            return token_end, _PAUSED
        try:
            self.calls = self.driver.finish()
        except (Rejected, BlockRejected) as refused:
            self.parts.pop()
            start = token_end - len(value)
            return start, self._failed(getattr(refused, "reason", "unexpected_token"),
                                       base + start)
        return token_end, COMPLETE

    def _cut_off(self, lexer: Any, text: str, pos: int, stop: int, limit: int, base: int,
                 hard: bool) -> str:
        """No token matches at `pos`: a token cut off by the limit or the end of the
        stream, or text the grammar cannot take."""
        if hard:
            spec, token_end = next_token(lexer, text, pos, stop, False)
            if token_end == NEED_MORE:
                if stop == limit:
                    return self._failed("max_capture", base + limit)
                return self._failed("truncated", base + len(text))
        return self._failed("unexpected_token", base + pos)

    def _failed(self, reason: str, at: int) -> str:
        """Record why and where the block failed, from the parser's state there."""
        self.reason, self.at = reason, at
        self.expected = self.driver.expected()
        self.depth = self.driver.open_values(self.grammar.roles.section_opens)
        self.forget_run()
        return FAILED


def _bounds(end: int, limit: int, final: bool) -> tuple[int, bool, int, int]:
    """Where `_read` stops in a text of length `end` whose room ends at `limit`, and
    whether no more can come there (`hard`: the limit, or the end of the stream). Below
    `sure`, or followed by more text than its second look reads
    (`StateLexer.second_look`), no token is near enough the end of the text to need
    one; a run that reaches `run_end` waits for more of it."""
    stop = min(end, limit)
    if limit <= end or final:
        return stop, True, stop, -1
    return stop, False, stop - MAX_ATOM, end


def _row(lexer: StateLexer, text: str, token_end: int, stop: int, hard: bool,
         no_row_before: int) -> tuple[int, int]:
    """After a loop token ending at `token_end`: where the row of loop tokens that
    follows it ends (`StateLexer.loop_run`), or `token_end` when there is none or it
    ends within the state's `margin` of `stop`, where nothing is decided; and the
    position before which no row is tried again (the end of a row not taken)."""
    row = lexer.loop_run
    more = None if row is None else row.match(text, token_end, stop)
    if more is None:
        return token_end, no_row_before
    if hard or stop - more.end() > lexer.margin:
        return more.end(), no_row_before
    return token_end, more.end()


def _remember(arriving: Arriving, spec: TerminalSpec, state: int, text: str, pos: int) -> None:
    """text[pos:] is `spec`'s atom still arriving: remember how to test the next chunk
    (`state`: its automaton's state after it, when the automaton found it alive)."""
    dfa = spec.dfa
    if dfa is not None and state >= 0:
        arriving.stepped(dfa, state)
    else:
        arriving.atom(dfa, spec.partial.match, text, pos)
