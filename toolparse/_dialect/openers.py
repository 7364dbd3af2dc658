"""Where a block can start: the opener terminals as one search pattern.

The engine looks for block starts at C speed, with one compiled pattern over every
terminal that can open a block; a lookahead on the first two characters (read from the
patterns' syntax) makes a `<` that no opener can continue fail at once.

`BlockStarts` is that search and its companions, for one grammar's openers or, under
`dialect="auto"`, for every bundled grammar's at once (SPEC 5.2).
"""

from __future__ import annotations

import functools
import re
from typing import TYPE_CHECKING, Any

from toolparse._dialect.lexer import StateLexer, TerminalSpec, plain_pattern
from toolparse._syntax.dfa import DFA, dfa_for
from toolparse._syntax.regexp import (
    leading_literal, literal_first, literal_text, lookahead_consumed, partial_pattern,
    second_chars)

if TYPE_CHECKING:
    import regex

__all__ = ["BlockStarts", "starts_pattern", "with_lookahead"]


def _second_chars(openers: tuple[TerminalSpec, ...]) -> dict[str, set[str]] | None:
    """First character -> the characters that can follow it, over all openers; None
    when some opener's second character is not known."""
    table: dict[str, set[str]] = {}
    for spec in openers:
        pairs = _pairs(plain_pattern(spec))
        if pairs is None:
            return None
        for first, seconds in pairs.items():
            table.setdefault(first, set()).update(seconds)
    return table


def _pairs(pattern: str) -> dict[str, frozenset[str]] | None:
    """An opener's first characters -> the characters that can follow each."""
    found = second_chars(pattern)
    return {found[0]: found[1]} if found is not None else _automaton_pairs(pattern)


def _automaton_pairs(pattern: str) -> dict[str, frozenset[str]] | None:
    """First character -> the characters that can follow it, read off the pattern's
    automaton, for an opener that starts with no one literal (gpt-oss's optional
    `<|start|>assistant` before `<|channel|>`); None when it has none, or when some first
    or second character is any character but a few."""
    dfa = dfa_for(pattern)
    if dfa is None or dfa.default[dfa.initial] >= 0:
        return None
    pairs: dict[str, frozenset[str]] = {}
    for first, state in dfa.table[dfa.initial].items():
        if state < 0:
            continue
        if dfa.default[state] >= 0 or dfa.final[state]:
            return None
        pairs[first] = frozenset(c for c, after in dfa.table[state].items() if after >= 0)
    return pairs


_PAIR_LEXERS_KEPT = 256
"""`BlockStarts.pair_lexer`'s lexers kept, at most (SCAN asks only where a complete
opener was found, so the pairs are the openers' own, bar those not known)."""


def _char_class(chars: set[str]) -> str:
    return "[" + "".join(re.escape(c) for c in sorted(chars)) + "]"


def with_lookahead(openers: tuple[TerminalSpec, ...], dispatch: bool = True) -> str:
    """The openers' alternation behind a lookahead on their first two characters; with
    one first character, that character leads the pattern (`leading_literal`), so that
    a search skips to it at C speed; with several, a branch per first two characters
    (`_dispatched`), unless `dispatch` is False (the partial matcher's pattern)."""
    plain = [plain_pattern(spec) for spec in openers]
    alternation = "|".join(f"(?:{pattern})" for pattern in plain)
    table = _second_chars(openers)
    if not table:
        return alternation
    found = leading_literal(plain)
    if found is not None and len(table) == 1:
        first, rests = found
        rest = "|".join(f"(?:{pattern})" for pattern in rests)
        return f"{re.escape(first)}(?={_char_class(table[first])})(?:{rest})"
    dispatched = _dispatched(openers) if dispatch else None
    if dispatched is not None:
        return dispatched
    heads = "|".join(re.escape(first) + _char_class(rest) for first, rest in table.items())
    return f"(?=(?:{heads}))(?:{alternation})"


def _dispatched(openers: tuple[TerminalSpec, ...]) -> str | None:
    """With several first characters (`dialect="auto"`): one branch per first two
    characters, `<(?=t)(?:...)`, holding the openers (in lexer order) that can begin so,
    each without its first character. Every branch begins with a literal, so the
    standard library's engine skips at C speed to the next first character, where a
    pattern that begins with a lookahead is tried at every position (and here tries
    only the openers that can match, not all of them: 2-4x faster on prose and markup).
    None when an opener cannot be written to begin with a literal (`literal_first`)."""
    groups: dict[tuple[str, str], list[str]] = {}
    for spec in openers:
        pattern = plain_pattern(spec)
        pairs = _pairs(pattern)
        branches = literal_first(pattern)
        if pairs is None or branches is None:
            return None
        for first, seconds in pairs.items():
            rests = [found[1][0] for branch in branches
                     if (found := leading_literal([branch])) is not None and found[0] == first]
            for second in sorted(seconds):
                groups.setdefault((first, second), []).extend(rests)
    return "|".join(f"{re.escape(first)}(?={re.escape(second)})(?:"
                    + "|".join(f"(?:{rest})" for rest in rests) + ")"
                    for (first, second), rests in groups.items() if rests)


def starts_pattern(openers: tuple[TerminalSpec, ...], firsts: set[str]) -> str:
    table = _second_chars(openers)
    if not table:
        return _char_class(firsts)
    # The second character is looked at, not taken: a match is one character wide, so
    # that finditer also finds a start right after another (`]<` then `<｜`).
    return "|".join(re.escape(first) + "(?=" + _char_class(rest) + r"|\Z)"
                    for first, rest in table.items())


class BlockStarts:
    """The block-start terminals of one grammar (or several), compiled for SCAN.

    Each piece is built when first needed and kept."""

    def __init__(self, openers: tuple[TerminalSpec, ...]) -> None:
        self.openers = openers
        """The terminals that can start a block, in lexer order (names unique)."""
        self.entrants: dict[str, tuple[Any, ...]] = {}
        """For the union of several grammars' openers (`auto`): by a block start's first
        two characters, the grammars whose own openers can begin with them
        (`contest.entrant_openers`, which fills it)."""
        self.pair_lexers: dict[str, StateLexer] = {}
        """`pair_lexer`'s lexers, by pair."""

    @functools.cached_property
    def lexer(self) -> StateLexer:
        """The openers as one lexer state, in Lark's order (confirms a block start)."""
        return StateLexer.build(self.openers)

    def pair_lexer(self, pair: str) -> StateLexer:
        """`lexer` for a place where the text begins with the two characters `pair`:
        the lexer of the openers that can begin so (and of those whose first two
        characters are not known), in `lexer`'s order. No other opener can match
        there, nor be arriving, so it matches what `lexer` matches (or finds an opener
        arriving where `lexer` does: which one may differ, as they are tried in another
        order, and SCAN does not read it), trying a few alternatives where `lexer` tries
        them all (`auto`: 47, at every tag that SCAN confirms). Kept by `pair`; `lexer`
        itself when every opener can begin so."""
        found = self.pair_lexers.get(pair)
        if found is None:
            subset = tuple(spec for spec, pairs in self._pairs_of
                           if pairs is None or pair[1] in pairs.get(pair[0], ()))
            found = (self.lexer if len(subset) == len(self.openers)
                     else StateLexer.build(subset))
            if len(self.pair_lexers) < _PAIR_LEXERS_KEPT:
                self.pair_lexers[pair] = found
        return found

    @functools.cached_property
    def pairs_differ(self) -> bool:
        """Some `pair_lexer` is smaller than `lexer`: the openers do not all begin with
        the same first two characters (`auto`'s do; Hermes' one does not)."""
        return len({None if pairs is None else frozenset(pairs.items())
                    for _, pairs in self._pairs_of}) > 1

    @functools.cached_property
    def _pairs_of(self) -> tuple[tuple[TerminalSpec, dict[str, frozenset[str]] | None], ...]:
        """Each opener in `lexer`'s order, with its first characters and the characters
        that can follow each (`_pairs`; None: not known)."""
        return tuple((spec, _pairs(plain_pattern(spec))) for spec in self.lexer.candidates)

    @functools.cached_property
    def chars(self) -> frozenset[str]:
        """The characters a block can start with (the plain-text fast path's test)."""
        chars: set[str] = set()
        for spec in self.openers:
            chars |= spec.starts or set()
        return frozenset(chars)

    @functools.cached_property
    def search(self) -> re.Pattern[str]:
        """All openers in one pattern, in lexer order (named groups made plain), behind
        a lookahead on their first two characters when those are known, so that a `<`
        no opener can continue fails at once: finds the next complete block start at C
        speed."""
        return re.compile(with_lookahead(self.openers))

    @functools.cached_property
    def start_search(self) -> re.Pattern[str]:
        """Where a block start could begin: an opener's first character followed by one
        that can come second, or by the end of the text (for the arriving check)."""
        return re.compile(starts_pattern(self.openers, set(self.chars)))

    @functools.cached_property
    def dfa(self) -> DFA | None:
        """The openers' automaton, for stepping a tag that is arriving (an opener that
        ends in a lookahead, Gemma 4's `call:NAME(?=\\{)`, with it read as characters)."""
        return dfa_for("|".join(f"(?:{lookahead_consumed(plain_pattern(spec))})"
                                for spec in self.openers))

    @functools.cached_property
    def literals(self) -> tuple[tuple[str, TerminalSpec], ...] | None:
        """When every opener is a plain literal (Hermes' `<tool_call>`): each with its
        terminal, in the order of `lexer`'s alternation, whose first match at a
        position is then the first of these the text starts with there; else None.
        (`auto`'s contest asks many grammars whether the same tag opens their block:
        a few `str.startswith` calls instead of a regex match each.)"""
        found = []
        for spec in self.lexer.candidates:
            text = literal_text(plain_pattern(spec))
            if text is None or spec.has_lookahead:
                return None
            found.append((text, spec))
        return tuple(found)

    @functools.cached_property
    def probe(self) -> regex.Pattern[str]:
        """The search pattern in `regex`: can the end of a chunk still become a block
        start?"""
        return partial_pattern(with_lookahead(self.openers, dispatch=False))
