"""CAPTURE mode: an open block, lexed as it arrives and fed to Lark's LALR parser.

This is the one place where tokens enter the parser. Per token: the parser state on top
of Lark's stack says which terminals may come next (`Dialect.lexer_for`, in Lark's
lexer order); the lexer matches one of them at the position (`lexer.match_terminal`);
an %ignore terminal is kept in the block's text but not fed; anything else goes to
`feed_token`, which runs the Transformer's rule methods inline as rules reduce. The
block is complete as soon as the parser can accept its end ($END), and fails at the
first token the parser rejects, text no terminal matches, or a Transformer refusal
(`BlockRejected`).

Lark internals read here (pinned by `lark>=1.3,<1.4` in pyproject.toml), because this
loop runs once per token and the public `choices()` costs a copy:

- `InteractiveParser.parser_state` (a `ParserState`) and its `feed_token`;
- `ParserState.parse_conf.parse_table.states`: state -> {terminal: action};
- `ParserState.state_stack`: the LALR stack, whose top is the current state.

A failed capture says why (`reason`), where (`at`), what the grammar would have
accepted there (`expected`), whether a call had started (`invoked`: an accepted call
tag makes the failure *broken calls*, SPEC 3.2) and how many sections were open.

Bound: the capture never reads past `limit` (its start + `max_capture`, or where held
output gives up); at the limit it fails (SPEC G7).
"""

from __future__ import annotations

from typing import Any, Final

from lark import Token
from lark.exceptions import UnexpectedInput

from toolparse._dialect import Dialect
from toolparse._dialect.lexer import NEED_MORE, RUN_HOLD, TerminalSpec, match_terminal
from toolparse._dialect.transform import BlockRejected, RawCall
from toolparse._stream.arriving import Arriving
from toolparse._syntax.dfa import dfa_for

__all__ = ["COMPLETE", "Capture", "FAILED", "WAITING", "make_token"]

_str_new = str.__new__

WAITING: Final = "waiting"
COMPLETE: Final = "complete"
FAILED: Final = "failed"


def make_token(name: str, value: str, start: int, end: int) -> Token:
    """A Lark Token without Token.__new__'s keyword handling (hot path: one per token)."""
    token = _str_new(Token, value)
    token.type = name
    token.value = value
    token.start_pos = start
    token.end_pos = end
    token.line = token.column = token.end_line = token.end_column = None
    return token


class Capture:
    """An open block: its parser, its text so far, and where it must end."""

    __slots__ = ("parser", "start", "parts", "ticket", "limit", "calls", "resume", "invoked",
                 "reason", "at", "expected", "depth", "section_opens", "terminals")

    def __init__(self, dialect: Dialect, rule: str, start: int, ticket: int, limit: int) -> None:
        self.parser: Any = dialect.lark.parse_interactive(start=rule)
        self.start = start
        """Stream offset of the block's first character."""
        self.parts: list[str] = []
        """The block's text so far, token by token."""
        self.ticket = ticket
        """The Markdown ticket of its opening tag (-1: outside code for certain)."""
        self.limit = limit
        """Stream offset at which the capture fails (SPEC G7)."""
        self.calls: tuple[RawCall, ...] = ()
        """Once complete: the block's calls, as the Transformer built them."""
        self.resume = (-1, 0)
        """Where a retry after NEED_MORE may resume: (stream offset, candidate index)."""
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
        self.section_opens = dialect.roles.section_opens
        self.terminals = dialect.terminals

    def open(self, dialect: Dialect, spec: TerminalSpec, value: str) -> bool:
        """Feed the opening token; False when it is a call tag without a name (no call
        starts, and no block). An opener is a valid first token of its start rule, and a
        first shift runs no Transformer method, so feeding it cannot fail."""
        if spec.name in dialect.roles.call_starts:
            try:
                dialect.transformer.check_call_tag(value)
            except BlockRejected as refused:
                self.reason, self.at = refused.reason, self.start
                return False
            self.invoked = True
        start = self.start
        self.parser.feed_token(make_token(spec.name, value, start, start + len(value)))
        self.parts.append(value)
        return True

    @property
    def text(self) -> str:
        return "".join(self.parts)

    def lex(self, dialect: Dialect, arriving: Arriving, text: str, pos: int, base: int,
            final: bool) -> tuple[int, str]:
        """Lex text[pos:] (text[0] is at stream offset `base`) into the parser.

        Returns (position reached, outcome): WAITING (the rest of the text is a token
        still arriving, described in `arriving`), COMPLETE (the block ended at the
        position; `calls` holds its calls) or FAILED (the block fails at the position).
        `final`: no more text will come (end of stream).
        """
        parser = self.parser
        state = parser.parser_state
        feed_token = state.feed_token
        end = len(text)
        limit = self.limit - base
        stop = min(end, limit)
        hard = limit <= end or final
        ignored = dialect.ignored_names
        call_starts = dialect.roles.call_starts
        parts = self.parts
        resume_at, resume_index = self.resume
        actions = state.parse_conf.parse_table.states
        stack = state.state_stack
        lexers = dialect.state_lexers
        while True:
            if pos >= stop:
                if not hard:
                    return pos, WAITING
                # The capture limit or the end of stream, inside an open block.
                return pos, self._failed("max_capture" if pos >= limit else "truncated",
                                         base + pos)
            current = stack[-1]
            lexer = lexers.get(current) or dialect.lexer_for(current, actions[current])
            candidates = lexer.by_char.get(text[pos], lexer.others)
            first = resume_index if resume_at == base + pos else 0
            spec, token_end, index = match_terminal(candidates, text, pos, stop, hard, first)
            if token_end == NEED_MORE:
                self.resume = (base + pos, index)
                spec = candidates[index]  # the tail starts at pos
                arriving.atom(None if spec.has_lookahead else dfa_for(spec.full.pattern),
                              spec.partial.match, text, pos)
                return pos, WAITING
            if spec is None:
                if hard and match_terminal(candidates, text, pos, stop, False, first)[1] == NEED_MORE:
                    # A token cut off by the capture limit or the end of the stream.
                    if stop == limit:
                        return pos, self._failed("max_capture", base + limit)
                    return pos, self._failed("truncated", base + end)
                return pos, self._failed("unexpected_token", base + pos)
            if spec.is_run and token_end == stop and not hard and token_end - pos < RUN_HOLD:
                # Wait for the rest of the run rather than feed it in pieces.
                arriving.run = spec
                self.resume = (base + pos, index)
                return pos, WAITING
            value = text[pos:token_end]
            name = spec.name
            if name in ignored:
                parts.append(value)
                pos = token_end
                continue
            try:
                if name in call_starts:
                    dialect.transformer.check_call_tag(value)
                feed_token(make_token(name, value, base + pos, base + token_end))
            except UnexpectedInput:
                return pos, self._failed("unexpected_token", base + pos)
            except BlockRejected as refused:
                return pos, self._failed(refused.reason, base + pos)
            if name in call_starts:
                self.invoked = True
            parts.append(value)
            pos = token_end
            if "$END" in actions[stack[-1]]:
                try:
                    self.calls = parser.feed_eof()
                except (UnexpectedInput, BlockRejected) as refused:
                    parts.pop()
                    pos -= len(value)
                    reason = getattr(refused, "reason", "unexpected_token")
                    return pos, self._failed(reason, base + pos)
                return pos, COMPLETE

    def _failed(self, reason: str, at: int) -> str:
        """Record why and where the block failed, from the parser's state there."""
        state = self.parser.parser_state
        accepts = state.parse_conf.parse_table.states[state.state_stack[-1]]
        self.reason, self.at = reason, at
        self.expected = tuple(sorted(name for name in accepts if name in self.terminals))
        self.depth = sum(1 for value in state.value_stack
                         if isinstance(value, Token) and value.type in self.section_opens)
        return FAILED
