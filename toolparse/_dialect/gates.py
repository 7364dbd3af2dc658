"""The characters that can make anything happen inside a call: a block's *gates*.

Once a call has started in a block whose tag is outside code for certain, and no other
output is held, nothing can come out of the stream until one of three things happens:

- the block completes: the parser takes its last token, which is one of the terminals a
  start rule can end with (`</tool_calls>`);
- the block fails: a failed block whose call had started runs on as a span (SPEC 3.2)
  that ends only at a block close or a block open (`skip.py`);
- the block reaches its limit, or the stream ends.

A terminal's match ends with one of a few characters (`>` for every tag of DeepSeek's
grammar). So until a chunk holds one of those *gates*, or reaches the limit, the chunk
cannot change what goes out, and the engine only keeps it (`Engine.feed`'s quiet
path), to lex it with the chunk that holds a gate. Each character is still lexed once.

A closing terminal is decided at one of its last characters, or later: one with a
negative lookahead waits for the characters after it, and so does one that a longer
atom could still beat (`]` when `]<|python_end|>` could be a token). The later ones
(`late_closers`) still give gates: the engine keeps no chunk while an atom is arriving
after the text lexed at a gate, so the chunk that decides it is lexed. A terminal that
ends in a positive lookahead is decided at the last character the lookahead reads
(`{` for Gemma 4's `call:NAME(?={)`). A terminal whose last characters are many (a
run) or unknown (no automaton), or more gates than `MAX_GATES`, and the grammar has no
gates: its blocks take every chunk the usual way. What a block ends with is read with
its openers' lookaheads (`Grammar.follows`): after Granite's `<function_call>(?={)` only
an object can come, so that block ends with a `}`, not with any JSON value's last
character (a number's digit). An anchored open is no closing
terminal: it opens a block only at the start of the answer, never in a span.

A gate is not yet a close: most tags end with `>` too. When every closing terminal
begins with the same character (`<`) and has it nowhere else, a closing tag that ends
at a gate begins at the last such character before it; so one full match of the
closing terminals there (`Closers`) tells whether anything can happen at that gate, and
a chunk whose gates end no closing tag is kept as well. Before that match, the first
three characters from that `<` are asked (`Closers.may_begin`): `</p` begins no closing
tag of DeepSeek's, so no later gate need look back to it either. The block is then lexed once,
when its close (or its limit, or the end) comes.

With incremental events (SPEC 7) more can go out inside a call: a call's name when its
tag completes, the rest of a call when it ends, and without tools an argument when it
closes and a value that streams from its opening tag on. So a stream with incremental
events keeps chunks against the *event* gates and closers (`events`): the same, with
the first and last terminals of the rules a call is made of among the closing
terminals (`CALL_RULES` with tools, `EVENT_RULES` without). Their tags are lexed when
they arrive; the text of a value that does not stream (and the inside of a section) is
kept until one. Under `typing=attribute` only a value marked `string="true"` streams,
so an argument's opening tag counts only when it says so (`Closers.counts`).

Everything here is read off the grammar: its rules, its roles and its terminals'
automata. Cost: once per grammar, when its first call starts.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Final, NamedTuple

from toolparse._dialect.lexer import TerminalSpec
from toolparse._dialect.roles import own_name
from toolparse._syntax.dfa import DFA

if TYPE_CHECKING:
    from toolparse._dialect.grammar import Grammar

__all__ = ["CALL_RULES", "Closers", "EVENT_RULES", "HEAD", "MAX_GATES", "NO_EVENTS", "closers_of",
           "gates_of", "last_chars", "late_closers"]

MAX_GATES: Final = 4
"""More characters than this end the closing terminals: the grammar has no gates (a
chunk would hold one too often for the quiet path to pay)."""


MAX_RECUR: Final = 32
"""A closing tag may hold its first character again within this many characters of its
start (`Closers.recur`); further, every gate lexes."""

HEAD: Final = 3
"""How many first characters of a tag `Closers.may_begin` is asked about."""
_HEADS_KEPT: Final = 1024


class Closers(NamedTuple):
    """The closing terminals, as the engine tests a gate against them."""

    start: str
    """The one character every closing tag begins with, and holds nowhere else but
    within its first `recur` characters."""
    full: re.Pattern[str]
    """Their alternation: a full match of the text from that character to the gate."""
    dfas: tuple[DFA, ...]
    """Their automata (`may_begin`)."""
    heads: dict[str, bool]
    """`may_begin`'s answers so far (at most `_HEADS_KEPT`), for this grammar."""
    counts: Callable[[re.Match[str]], bool] | None = None
    """Whether a match of them makes anything happen (None: every one does)."""
    recur: int = 0
    """The furthest from its start that a closing tag holds `start` again (MiniMax-M3's
    namespace token `]<]minimax[>[`: 2); 0 when only first. A tag may then begin at any
    `start` up to that many characters before the last one kept (`Keeping`)."""

    def may_begin(self, head: str) -> bool:
        """Whether a closing tag may begin with `head` (from `start` on, at most
        `HEAD` characters): `<pa` begins none of DeepSeek's, so no gate after it can
        end one that begins there, and the engine need not join the kept text to ask.
        An automaton that dies says no; one alive, or complete, says maybe."""
        found = self.heads.get(head)
        if found is None:
            found = any(dfa.advance(dfa.initial, head) != -1 for dfa in self.dfas)
            if len(self.heads) >= _HEADS_KEPT:
                self.heads.clear()
            self.heads[head] = found
        return found


EVENT_RULES: Final = ("invoke", "param", "name", "key", "value", "json_call")
"""The rules a call is made of: their first and last terminals can make an incremental
event (SPEC 7) when no tools are given. A `json_call` (SPEC 5.3 e) is a whole call
whose `invoke` has no terminal of its own."""
CALL_RULES: Final = ("invoke", "name", "json_call")
"""With tools, a call's own tags alone: its arguments go out only once it is complete."""

NO_EVENTS: Final = ""
"""`events` for a stream without incremental events; else `CALL_RULES` or
`EVENT_RULES` (with tools, or without)."""


def _closing(grammar: Grammar, events: tuple[str, ...] | str = NO_EVENTS) -> frozenset[str]:
    """The terminals whose match can make something go out inside a started call: the
    last terminals of a block, and the block closes and opens a failed span ends at;
    with `events` (rule names), also the first and last terminals of those rules."""
    roles = grammar.roles
    found = grammar.enders | roles.block_closes | grammar.span_opens
    if events:
        found |= _rule_edges(grammar, events)
    return found


def _rule_edges(grammar: Grammar, rules: tuple[str, ...] | str) -> frozenset[str]:
    found: set[str] = set()
    for rule in grammar.record.rules:
        if own_name(rule.origin) in rules and rule.expansion:
            for symbol in (rule.expansion[0], rule.expansion[-1]):
                if symbol.is_term:
                    found.add(symbol.name)
    return frozenset(found)


def gates_of(grammar: Grammar, events: tuple[str, ...] | str = NO_EVENTS) -> str:
    """The characters that can end a block or a failed span of `grammar` (with
    `events`, or an incremental event's tag), sorted; "" when the engine must take
    every chunk inside a call the usual way."""
    chars: set[str] = set()
    for name in sorted(_closing(grammar, events)):
        ends = _deciding_chars(grammar.terminals[name])
        if ends is None:
            return ""
        chars |= ends
    if not chars or len(chars) > MAX_GATES:
        return ""
    if events and not all(_decided_at_end(grammar, name) for name in _closing(grammar, events)):
        return ""   # (an event tag decided late: no keeping with incremental events)
    return "".join(sorted(chars))


def _deciding_chars(spec: TerminalSpec) -> frozenset[str] | None:
    """The characters at which a match of `spec` can become certain: its last ones,
    or, for a terminal that ends in a positive lookahead (Gemma 4's `call:NAME(?={)`),
    the last ones of what the lookahead reads (`TerminalSpec.consumed_dfa`). None when
    any character can."""
    dfa = spec.dfa if spec.dfa is not None else spec.consumed_dfa
    return last_chars(dfa) if dfa is not None else None


def late_closers(grammar: Grammar) -> bool:
    """Whether a terminal a block of `grammar` ends with may be decided only after its
    last character: it has a lookahead, or a longer atom tried before it may still be
    arriving where it has matched (pythonic's `]`, which may yet become
    `]<|python_end|>`). Such a grammar still has gates, but the engine keeps no chunk
    while an atom is arriving after the text lexed at a gate (`Engine._keep_quiet`):
    the next chunk may decide it, gate or not. (With incremental events, an event tag
    decided late means no gates.)"""
    return not all(_decided_at_end(grammar, name) for name in grammar.enders)


def closers_of(grammar: Grammar, events: tuple[str, ...] | str = NO_EVENTS) -> Closers | None:
    """The closing terminals (with `events`, and the event tags) as one full match,
    when they all begin with one character that none of them holds elsewhere (their
    automata say); else None: every gate lexes."""
    names = sorted(_closing(grammar, events))
    specs = [grammar.terminals[name] for name in names]
    gates = gates_of(grammar, events) if events else grammar.gates
    if not gates or any(spec.starts is None for spec in specs):
        return None
    starts = {char for spec in specs for char in spec.starts or ()}
    if len(starts) != 1:
        return None
    (start,) = starts
    dfas = []
    recur = 0
    for spec in specs:
        dfa = spec.dfa
        again = None if dfa is None else _recurs(dfa, start)
        if dfa is None or again is None:
            return None
        dfas.append(dfa)
        recur = max(recur, again)
    counts = None
    if "param" in events and grammar.build.string_attribute:
        counts = _StreamingHeads(grammar).counts
    return Closers(start, re.compile(grammar.alternation(frozenset(names))), tuple(dfas), {},
                   counts, recur)


class _StreamingHeads:
    """Under `typing=attribute`, whether a closer's match makes an event: an argument's
    opening tag does only when its value streams (`string="true"`, as `Builders` reads
    it); every other closer does. A tag whose attributes cannot be read counts (its
    lexing says why)."""

    def __init__(self, grammar: Grammar) -> None:
        self.heads = grammar.roles.param_starts
        self.build = grammar.build
        self.seen: dict[str, bool] = {}
        """Tag text -> the answer (at most `_HEADS_KEPT`): a stream repeats its tags."""

    def counts(self, match: re.Match[str]) -> bool:
        text = match.group()
        found = self.seen.get(text)
        if found is None:
            found = self._counts(match.lastgroup, text)
            if len(self.seen) >= _HEADS_KEPT:
                self.seen.clear()
            self.seen[text] = found
        return found

    def _counts(self, name: str | None, text: str) -> bool:
        if name not in self.heads:
            return True
        try:
            return self.build.string_of(name or "", text) is True
        except Exception:  # noqa: BLE001 -- a repeated attribute: lex it, it fails there
            return True


def _recurs(dfa: DFA, char: str) -> int | None:
    """How far from its start a match of `dfa` may hold `char` again, when every match
    has `char` first: 0 when nowhere else, None when further than `MAX_RECUR` (or at any
    distance: a loop that can read it) or when a match may begin otherwise."""
    first = dfa.table[dfa.initial]
    if dfa.default[dfa.initial] >= 0 or set(first) - {char}:
        return None

    def reads(state: int) -> bool:
        return dfa.table[state].get(char, dfa.default[state]) >= 0

    def after(states: set[int]) -> set[int]:
        return {n for state in states
                for n in (*dfa.table[state].values(), dfa.default[state]) if n >= 0}

    level = after({dfa.initial})   # the states after the first character
    furthest = 0
    for depth in range(1, MAX_RECUR + 1):
        if any(map(reads, level)):
            furthest = depth
        level = after(level)
    deeper = set(level)   # every state further on
    while level:
        level = after(level) - deeper
        deeper |= level
    return None if any(map(reads, deeper)) else furthest


def last_chars(dfa: DFA) -> frozenset[str] | None:
    """The characters a match of `dfa` can end with; None when any character can."""
    found: set[str] = set()
    final = dfa.final
    for state, row in enumerate(dfa.table):
        default = dfa.default[state]
        if default >= 0 and final[default]:
            return None
        found.update(char for char, to in row.items() if to >= 0 and final[to])
    return frozenset(found)


def _decided_at_end(grammar: Grammar, name: str) -> bool:
    """Whether the lexer takes terminal `name` as soon as its last character arrives,
    in every parser state that takes it: no lookahead, and no atom tried before it
    there that could still be arriving where it has matched (`earlier_atoms`: the
    lexer would wait for that one)."""
    if grammar.terminals[name].has_lookahead:
        return False
    return all(not grammar.lexer(state).earlier_atoms[name]
               for state, row in enumerate(grammar.table.actions) if name in row)
