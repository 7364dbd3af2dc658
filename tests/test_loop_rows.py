"""Rows of loop tokens (`StateLexer.loop_run`, `Capture.lex`): one match stands for
several pieces of a value in a row, and reads exactly what the state's alternation
would, token by token; near the end of the text it decides nothing, so no event and the
feed it comes out in change (SPEC G2, G5)."""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache

from hypothesis import example, given, settings, strategies as st

import toolparse
from toolparse._dialect import bundled_dialects
from toolparse._dialect.grammar import Grammar
from toolparse._dialect.lexer import MAX_ATOM, StateLexer, row_safe
from toolparse._dialect.loader import resolve_dialect
from conftest import joined
from test_properties import cuts, split_at_fractions


@cache
def rows() -> list[tuple[Grammar, int, StateLexer, str]]:
    """Every state of every bundled grammar with a row pattern, with an alphabet of the
    characters its terminals spell."""
    found = []
    for name in bundled_dialects():
        for grammar in resolve_dialect(name)._grammars:
            alphabet = "".join(sorted({c for spec in grammar.terminals.values()
                                       for c in spec.pattern if c.isprintable()}))
            for state in range(len(grammar.table.actions)):
                lexer = grammar.lexer(state)
                if lexer.loop_run is not None:
                    found.append((grammar, state, lexer, alphabet + " \n"))
    return found


def token_by_token(grammar: Grammar, state: int, lexer: StateLexer, text: str) -> int:
    """Where the alternation stops reading row tokens, one match at a time."""
    loops = grammar.table.loops[state] - grammar.ignored
    pos = 0
    while True:
        m = lexer.master.match(text, pos)
        if m is None or m.end() == pos:
            return pos
        spec = lexer.by_group[m.lastindex or 0]
        if spec is None or spec.name not in loops or not row_safe(spec) or (
                not spec.is_run and m.end() - pos > MAX_ATOM):
            return pos
        pos = m.end()


def test_the_bundled_grammars_have_rows() -> None:
    names = {grammar.name for grammar, *_ in rows()}
    assert {"deepseek", "qwen3_coder", "glm45"} <= names


@settings(max_examples=400)
@given(st.data())
def test_a_row_reads_what_the_alternation_reads(data: st.DataObject) -> None:
    grammar, state, lexer, alphabet = data.draw(st.sampled_from(rows()))
    text = data.draw(st.text(alphabet=alphabet, max_size=40))
    assert lexer.loop_run is not None
    row = lexer.loop_run.match(text)
    assert (row.end() if row else 0) == token_by_token(grammar, state, lexer, text)


@contextmanager
def without_rows(dialect: toolparse.Dialect) -> Iterator[None]:
    """The dialect's grammars lexing one token at a time: no rows, and no whitespace
    read with the token after it (`StateLexer.lead`)."""
    saved = []
    for grammar in dialect._grammars:
        saved.append(dict(grammar.state_lexers))
        grammar.state_lexers.clear()
        grammar.lexer = (lambda g: lambda state: g.state_lexers.setdefault(  # type: ignore
            state, StateLexer.build(g.candidates(state))))(grammar)
    try:
        yield
    finally:
        for grammar, lexers in zip(dialect._grammars, saved):
            del grammar.lexer
            grammar.state_lexers.clear()
            grammar.state_lexers.update(lexers)


def per_feed(dialect: toolparse.Dialect, chunks: list[str], max_capture: int
             ) -> list[list[toolparse.Event]]:
    ids = itertools.count()
    parser = toolparse.StreamParser(dialect, max_capture=max_capture,
                                    id_factory=lambda: f"call_{next(ids)}")
    return [parser.feed(chunk) for chunk in chunks] + [parser.close()]


BRACKETS = ('<tool_calls>\n<invoke name="a">\n<parameter name="p"><![CDATA[x = a[b[0]]> 1'
            ' ]] ]]>x < y <![CDATA[in]]> ]]]]></parameter>\n<parameter name="q">a < b << c'
            ' </param </parameter>\n</invoke>\n</tool_calls> after')
VALUE = st.text(alphabet="ab ]<>[!\n", max_size=30)


@st.composite
def bracket_texts(draw: st.DrawFn) -> str:
    first, second = draw(VALUE), draw(VALUE)
    return ('<tool_calls>\n<invoke name="a">\n<parameter name="p"><![CDATA['
            f'{first}]]></parameter>\n<parameter name="q">{second}</parameter>\n'
            '</invoke>\n</tool_calls> tail')


@settings(max_examples=150, deadline=None)
@given(bracket_texts(), st.data(), st.sampled_from([40, 120, 1 << 20]))
@example(BRACKETS, None, 1 << 20)
def test_rows_change_no_event_and_no_feed(text: str, data: st.DataObject | None,
                                          max_capture: int) -> None:
    dialect = resolve_dialect("deepseek")
    chunkings = [[text], [text[i:i + 1] for i in range(len(text))],
                 [text[i:i + 4] for i in range(0, len(text), 4)]]
    if data is not None:
        chunkings.append(split_at_fractions(text, data.draw(cuts)))
    for chunks in chunkings:
        with_rows = per_feed(dialect, chunks, max_capture)
        with without_rows(dialect):
            one_by_one = per_feed(dialect, chunks, max_capture)
        assert with_rows == one_by_one
        assert joined(e for feed in with_rows for e in feed) == text


class Counting:
    """A row pattern that counts the characters its matches span."""

    def __init__(self, pattern: re.Pattern[str]) -> None:
        self.pattern = pattern
        self.spanned = 0

    def match(self, text: str, pos: int, endpos: int) -> re.Match[str] | None:
        m = self.pattern.match(text, pos, endpos)
        if m is not None:
            self.spanned += m.end() - pos
        return m


def test_a_long_row_near_the_end_is_read_once() -> None:
    # A value of one-character tokens that ends near the end of a chunk: the row found
    # there is not taken (the end decides nothing), and no row is tried again inside it
    # (token by token, that would read the rest of the value at each token).
    value = "]<" * 2_000
    text = (f'<tool_calls>\n<invoke name="a">\n<parameter name="p"><![CDATA[{value}'
            ']]></parameter>\n</invoke>\n</tool_calls>')
    grammar = resolve_dialect("deepseek")._grammars[0]
    rows()
    counters = []
    for lexer in grammar.state_lexers.values():
        if lexer.loop_run is not None:
            counters.append(Counting(lexer.loop_run))
            object.__setattr__(lexer, "loop_run", counters[-1])
    try:
        parser = toolparse.StreamParser(max_capture=1 << 20)
        events = parser.feed(text[:-33]) + parser.feed(text[-33:]) + parser.close()
    finally:
        for lexer, counter in zip([lx for lx in grammar.state_lexers.values()
                                   if isinstance(lx.loop_run, Counting)], counters):
            object.__setattr__(lexer, "loop_run", counter.pattern)
    calls = [c for e in events if isinstance(e, toolparse.ToolCallBlock) for c in e.calls]
    assert [c.arguments for c in calls] == [{"p": value}]
    assert 0 < sum(c.spanned for c in counters) <= 2 * len(value)
