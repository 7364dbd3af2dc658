"""A token still arriving: the end of the text could still become a token.

When the text ends inside something that could still become a token (a tag split across
chunks, `<tool_`; a text run inside a block), the engine keeps that end as its *tail* and
remembers here how to tell, cheaply, whether the next chunk merely extends it:

- an **atom** with an automaton (`_syntax.dfa`): the automaton is stepped over just the
  new characters, a look-up per character;
- an atom without one (its pattern has a lookahead): one partial match of tail + chunk
  with the `regex` module, over at most `MAX_ATOM` characters;

(A run that reaches the end of a chunk inside a block is no arriving token: it is fed
as far as it goes, and `Capture.extend` takes a chunk that only continues it.)

"Extends" means: wait for more, and nothing else happens. Anything else (the token
completes, breaks, or outgrows its bound) sends tail + chunk back through the lexer.

Bound: the tail is at most `MAX_ATOM` characters, and never reaches past the open
capture's limit.
"""

from __future__ import annotations

from typing import Any, Final

from toolparse._dialect.lexer import MAX_ATOM
from toolparse._syntax.dfa import DFA

__all__ = ["Arriving", "DEAD", "DECIDE", "EXTENDS"]

EXTENDS: Final = 0
"""The chunk only extends the arriving token: keep waiting."""
DEAD: Final = 1
"""The arriving atom can no longer become a token (its automaton died)."""
DECIDE: Final = 2
"""Something else: lex tail + chunk again."""


class Arriving:
    """What is known about the token arriving at the end of the tail (if any)."""

    __slots__ = ("dfa", "state", "partial")

    def __init__(self) -> None:
        self.dfa: DFA | None = None
        """The arriving atom's automaton, and its state after the tail."""
        self.state = 0
        self.partial: Any = None
        """Without an automaton: the atom's `regex` partial matcher."""

    def clear(self) -> None:
        self.dfa = None
        self.partial = None

    def atom(self, dfa: DFA | None, partial: Any, text: str, pos: int) -> None:
        """text[pos:] could still become an atom: remember how to test the next chunk
        cheaply (its automaton, stepped; else a partial re-match)."""
        if dfa is not None:
            state = dfa.advance(dfa.initial, text[pos:])
            if state >= 0:
                self.dfa = dfa
                self.state = state
                return
        self.partial = partial

    def stepped(self, dfa: DFA, state: int) -> None:
        """The atom arriving is `dfa`'s, in `state` after the tail (found alive)."""
        self.dfa = dfa
        self.state = state
        self.partial = None

    def extends(self, tail: str, chunk: str, room: int) -> int | None:
        """`step` for `Engine.feed`'s fast path, which keeps the tail (it adds `chunk`
        to it on EXTENDS): EXTENDS, DEAD or DECIDE; None when this path cannot tell (no
        automaton, or a size limit)."""
        dfa = self.dfa
        if dfa is None:
            return None
        size = len(tail) + len(chunk)
        if size >= MAX_ATOM or size >= room:
            return None
        state = self.state
        exits = dfa.loops[state]
        if exits is not None:
            for char in exits:
                if char in chunk:
                    break
            else:
                return EXTENDS
        table, default, final = dfa.table, dfa.default, dfa.final
        for char in chunk:
            state = table[state].get(char, default[state])
            if state < 0:
                return DEAD
            if final[state]:
                return DECIDE
        self.state = state
        return EXTENDS

    def step(self, tail: str, chunk: str, room: int) -> int:
        """EXTENDS, DEAD or DECIDE for `chunk` arriving after `tail`. `room` is how long
        tail + chunk may grow before the open capture's limit (no capture: unbounded)."""
        size = len(tail) + len(chunk)
        dfa = self.dfa
        if dfa is not None:
            state = dfa.advance(self.state, chunk)
            if state >= 0 and size < MAX_ATOM and size < room:
                self.state = state
                return EXTENDS
            return DEAD if state == -1 else DECIDE
        if self.partial is not None:
            window = tail + chunk
            m = self.partial(window, 0, min(size, MAX_ATOM), partial=True)
            if m is not None and m.partial and size < MAX_ATOM and size < room:
                return EXTENDS
        return DECIDE
