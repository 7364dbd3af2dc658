"""The engine's LALR driver against Lark's own `InteractiveParser` (issue 13, item 3).

`table.Driver` runs the table Lark builds from each grammar, with two speed-ups read off
that table (default reductions, loop tokens). It must take and refuse exactly the token
sequences Lark's interactive parser takes and refuses, and say that a block may end
exactly where Lark can accept its end. Two sources of sequences:

- every block of the corpus, lexed the engine's way (the lexer of the driver's state,
  on the whole text) from each block-start tag: realistic sequences, the failures
  included;
- generated sequences: mostly a terminal the driver expects next, sometimes any
  terminal of the grammar, for every bundled dialect and start rule.

Per token: both take it or both refuse it; after each taken token, `accepts_end()` is
whether Lark's parser, copied, accepts the end of input, and the driver's values are
those of a driver that builds every rule the general way (`_general`): its in-place
list rules change nothing.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import toolparse
from toolparse._dialect.lexer import NEED_MORE, next_token
from toolparse._dialect.table import Driver, Rejected, RuleInfo, general_value
from toolparse.corpus import bundled_corpus, find_cases, random_chunks

lark = pytest.importorskip("lark")

DIALECTS = toolparse.dialects()


def _grammar(name: str) -> Any:
    return toolparse.Dialect.bundled(name)._grammars[0]


def _general(info: RuleInfo) -> Any:
    """A builder that makes a rule's value the general way (`general_value`, what
    `Driver._reduce` does without its shortcuts), keeping the driver off them."""
    return lambda children: general_value(children, info.left_list)


class Pair:
    """The driver and Lark's interactive parser, fed the same tokens (and a driver
    that builds every rule the general way, for the values)."""

    def __init__(self, grammar: Any, start: str) -> None:
        self.driver = Driver(grammar.table, start, tuple(None for _ in grammar.table.rules))
        self.general = Driver(grammar.table, start,
                              tuple(_general(info) for info in grammar.table.rules))
        self.lark = grammar.lark.parse_interactive(start=start)

    def feed(self, term: str, value: str) -> bool:
        """Feed both; True when both took it. Fails the test when they disagree."""
        try:
            self.driver.feed(term, value)
            driver_took = True
        except Rejected:
            driver_took = False
        try:
            self.lark.feed_token(lark.Token(term, value))
            lark_took = True
        except lark.exceptions.UnexpectedToken:
            lark_took = False
        assert driver_took == lark_took, (term, value, driver_took)
        if driver_took:
            assert self.driver.accepts_end() == self._lark_accepts_end(), (term, value)
            self.general.feed(term, value)
            assert self.driver.values == self.general.values, (term, value)
            assert self.driver.stack == self.general.stack, (term, value)
        return driver_took

    def _lark_accepts_end(self) -> bool:
        try:
            self.lark.copy(deepcopy_values=False).feed_eof()
        except lark.exceptions.UnexpectedToken:
            return False
        return True


def _blocks_of(grammar: Any, text: str) -> int:
    """Lex and feed every block of `text` (from each block-start tag) to a Pair; returns
    how many tokens were compared."""
    compared = 0
    openers = grammar.block_starts.lexer
    for m in grammar.block_starts.search.finditer(text):
        spec, pos = next_token(openers, text, m.start(), len(text), True)
        if spec is None or pos == NEED_MORE:
            continue
        pair = Pair(grammar, grammar.opener_rule[spec.name])
        value = text[m.start():pos]
        while pair.feed(spec.name, value):
            compared += 1
            if pair.driver.accepts_end():
                break
            while True:   # the next token, %ignore ones kept out of both parsers
                found, end = next_token(grammar.lexer(pair.driver.stack[-1]), text, pos,
                                        len(text), True)
                if found is None or end == NEED_MORE or end == pos:
                    break
                value, pos = text[pos:end], end
                if found.name not in grammar.ignored:
                    break
            if found is None or end == NEED_MORE or found.name in grammar.ignored:
                break
            spec = found
    return compared


@pytest.mark.parametrize("dialect", DIALECTS)
def test_the_driver_takes_every_corpus_block_as_lark_does(dialect: str) -> None:
    grammar = _grammar(dialect)
    cases = [case for case in find_cases(bundled_corpus())]
    compared = sum(_blocks_of(grammar, case.text) for case in cases)
    assert compared > 50      # the corpus holds blocks of every dialect's kind


@pytest.mark.parametrize("dialect", DIALECTS)
@settings(max_examples=150, deadline=None)
@given(choices=st.lists(st.tuples(st.booleans(), st.integers(0, 10_000)), max_size=40))
def test_the_driver_takes_generated_sequences_as_lark_does(
        dialect: str, choices: list[tuple[bool, int]]) -> None:
    grammar = _grammar(dialect)
    terminals = sorted(grammar.table.terminals)
    for start in grammar.table.starts:
        pair = Pair(grammar, start)
        for anything, pick in choices:
            expected = pair.driver.expected()
            pool = terminals if anything or not expected else expected
            term = pool[pick % len(pool)]
            if not pair.feed(term, "x"):
                break


class _StateIndexed(tuple):  # type: ignore[type-arg]
    """A state-indexed table that refuses an index that is no state (a negative one:
    a value read from the wrong variable, which Python would quietly wrap around)."""

    def __getitem__(self, state: Any) -> Any:
        if not isinstance(state, int) or state < 0:
            raise AssertionError(f"state table read at {state!r}")
        return tuple.__getitem__(self, state)


def test_the_capture_reads_the_loop_tokens_of_the_state_it_is_in(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # Capture.lex asks whether a token only extends the list of the driver's current
    # state (`loops[state]`). A lexing result stored under the same name once made it
    # read `loops[-1]`, another state's set, and which set that is depends on how Lark
    # numbered the states: here any index that is no state fails at once, on every
    # corpus case, whole and in random chunks.
    original = Driver.__init__

    def strict_init(self: Driver, *args: Any) -> None:
        original(self, *args)
        self.loops = _StateIndexed(self.loops)

    monkeypatch.setattr(Driver, "__init__", strict_init)
    for case in find_cases(bundled_corpus()):
        for chunks in ([case.text], random_chunks(case.text, seed=len(case.text)),
                       list(case.text)):
            parser = toolparse.StreamParser(case.dialect, tools=case.tools)
            for chunk in chunks:
                parser.feed(chunk)
            parser.close()
