"""Inside a value: a gate in a string's text ends nothing, and the engine need not lex
the text kept to learn that (`toolparse/_dialect/inside.py`, `Keeping.follow`).

The oracle is the engine without gates, which lexes every chunk as it comes: with the
keeping following a string's text, every feed must give the same events."""

from __future__ import annotations

import itertools
from collections.abc import Iterator

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from test_gates import no_gates
from test_whole import no_wholes

import toolparse
from toolparse._dialect.inside import LEFT, MAX_PENDING, inside_of
from toolparse._dialect.lexer import MAX_ATOM, StateLexer, TerminalSpec, row_safe
from toolparse._dialect.loader import resolve_dialect



@pytest.fixture(autouse=True)
def _calls_by_tokens() -> Iterator[None]:
    """Granite's and Phi-4-mini's calls are read whole (`whole.py`, tests/test_whole.py),
    so no string of theirs is followed; here they are read by their tokens, as they are
    with incremental events or where the decoder refuses a value."""
    with no_wholes(resolve_dialect("granite")), no_wholes(resolve_dialect("phi4_mini")):
        yield


# A string value in each dialect whose body is JSON or Python, `{}` where its text goes.
TEMPLATES = {
    "granite": '<function_call> {"name": "f", "arguments": {"a": "{}", "b": 2}} after',
    "mistral": '[TOOL_CALLS]f[ARGS]{"a": "{}", "b": [1]} after',
    "llama3_json": '<|python_tag|>{"name": "f", "parameters": {"a": "{}"}} after',
    "phi4_mini": 'functools[{"name": "f", "arguments": {"a": "{}"}}] after',
    "gemma4": '<|tool_call>call:f{a:<|"|>{}<|"|>,b:1}<tool_call|> after',
    "pythonic": "<|python_start|>[f(a='{}', b=[1])]<|python_end|> after",
}

# String texts with gates (`]`, `}`, `{`, `[`, `>`) among escapes: whole and split
# escapes, an escaped quote, escapes that are none, a run of escapes longer than what
# is kept unsettled, a quote that ends the string early, an end tag inside the string.
VALUES = [
    r"x = a[b[0]] > 1 {ok}\n}]\n    return {1: [2]}\t]",
    r"\u00e9]}\u0041[\"]}\\]",
    r"a]}\x]} and }]",
    r"a]}\q]<|python_end|>}]",
    "\\n" * 200 + "]}",
    r"ab]'] after the quote }]<|python_end|>",
    r'ab]"] after the quote }]',
    r"<x>]</x>}<tool_call|>]",
    "\\",
    r"tail \u00",
]


def feeds(dialect: toolparse.Dialect, chunks: list[str], incremental: bool
          ) -> list[list[toolparse.StreamEvent]]:
    ids = itertools.count()
    parser = toolparse.StreamParser(dialect, incremental=incremental,
                                    id_factory=lambda: f"call_{next(ids)}")
    return [*(parser.feed(chunk) for chunk in chunks), parser.close()]


def same_feeds(name: str, text: str, chunks: list[str], incremental: bool) -> None:
    dialect = resolve_dialect(name)
    followed = feeds(dialect, chunks, incremental)
    with no_gates(dialect):
        assert followed == feeds(dialect, chunks, incremental), (text, chunks)


@pytest.mark.parametrize("name", sorted(TEMPLATES))
@pytest.mark.parametrize("incremental", [False, True])
def test_every_chunking_inside_a_string_gives_the_feeds_of_lexing_every_chunk(
        name: str, incremental: bool) -> None:
    for value in VALUES:
        text = TEMPLATES[name].replace("{}", value, 1)
        for size in range(1, 8):
            chunks = [text[i:i + size] for i in range(0, len(text), size)]
            same_feeds(name, text, chunks, incremental)


@pytest.mark.parametrize("name", sorted(TEMPLATES))
def test_each_dialect_follows_its_strings(name: str) -> None:
    # The comparisons above are only worth something where the keeping does follow a
    # string: in each of these dialects it does, at some chunk of code in a string.
    text = TEMPLATES[name].replace("{}", VALUES[0], 1)
    parser = toolparse.StreamParser(name)
    followed = 0
    for at in range(0, len(text), 4):
        parser.feed(text[at:at + 4])
        keeping = parser._engine._keeping
        followed += keeping is not None and keeping.inside is not None
    assert followed >= 3, followed


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(sorted(TEMPLATES)),
       st.text(alphabet='ab \\"\']}{[)(<>|nux0e\n', max_size=40),
       st.lists(st.integers(1, 9), min_size=1, max_size=12), st.booleans())
@example("granite", '\\u00]}"}', [3], False)
@example("pythonic", "\\0]\\07]'", [1, 2], False)
def test_any_string_text_in_any_chunking_gives_the_feeds_of_lexing_every_chunk(
        name: str, value: str, sizes: list[int], incremental: bool) -> None:
    text = TEMPLATES[name].replace("{}", value, 1)
    chunks, at = [], 0
    for size in itertools.cycle(sizes):
        if at >= len(text):
            break
        chunks.append(text[at:at + size])
        at += size
    same_feeds(name, text, chunks, incremental)


def test_gates_inside_a_string_lex_nothing_until_it_may_end() -> None:
    # Granite's gates are `[]{}`; code in a string holds them. Once the block's lexing
    # has ended inside the string, chunks of its text are kept without a lexer pass,
    # escapes and gates and all, until a quote comes.
    parser = toolparse.StreamParser("granite")
    head = '<function_call> {"name": "f", "arguments": {"a": "x'
    assert parser.feed(head) == []
    keeping = parser._engine._keeping
    assert keeping is not None and keeping.inside is not None
    kept = len(keeping.chunks)
    for chunk in ["a[b", "[0]", "]}\\", "n{x", "}\\u0", "041]", "]]}"]:
        assert parser.feed(chunk) == []
        assert parser._engine._keeping is keeping and keeping.inside is not None
    assert len(keeping.chunks) == kept + 7
    events = parser.feed('"}} d')
    assert parser._engine._keeping is None or parser._engine._keeping.inside is None
    events += parser.feed("one") + parser.close()
    (block,) = [event for event in events if isinstance(event, toolparse.ToolCallBlock)]
    assert block.calls[0].arguments == {"a": "xa[b[0]]}\n{x}A]]]}"}


def string_state(name: str, run: str) -> tuple[StateLexer, TerminalSpec, frozenset[str]]:
    grammar = resolve_dialect(name)._grammars[0]
    for state, loops in enumerate(grammar.table.loops):
        for loop in loops:
            if loop.endswith(run):
                return (grammar.lexer(state), grammar.terminals[loop],
                        loops - grammar.ignored)
    raise AssertionError(run)


def test_a_json_strings_inside_reads_settled_pending_or_left() -> None:
    lexer, run, loops = string_state("granite", "STRING_TEXT")
    inside = inside_of(lexer, run, loops)
    assert inside is not None
    assert inside.stops == frozenset('"\\<')
    assert inside.margin == lexer.margin < 16
    assert inside.read("abc") == ""
    assert inside.read("ab\\ncdefghijk") == ""           # the escape is far enough back
    assert inside.read("ab\\ncd") == "ab\\ncd"           # not yet: kept, read again
    assert inside.read("ab\\u00") == "ab\\u00"           # an escape still arriving
    assert inside.read("ab\\") == "ab\\"
    assert inside.read("ab<") == "ab<"                   # a `<` is the string's too
    assert inside.read('ab"') is LEFT                    # the string may end
    assert inside.read('ab\\"') == 'ab\\"'               # an escaped quote
    assert inside.read("ab\\x") is LEFT                  # no JSON escape: it fails
    assert inside.read("\\n" * MAX_PENDING) is LEFT      # too long unsettled


def test_a_python_strings_inside_takes_its_escapes_in_the_row() -> None:
    # `\0` is an escape only when no octal digit follows (a negative lookahead): it
    # stands in the row, which a lookahead that reads far enough back decides.
    lexer, run, loops = string_state("pythonic", "SQ_TEXT")
    inside = inside_of(lexer, run, loops)
    assert inside is not None and inside.stops == frozenset("'\\")
    assert inside.read("a\\0bcdefghijklmnop") == ""
    assert inside.read("a\\0") == "a\\0"
    assert inside.read("a\\07") is LEFT                  # a longer octal escape: unread
    assert inside.read("a'") is LEFT


def spec(name: str, pattern: str, priority: int = 0) -> TerminalSpec:
    return TerminalSpec.compile(name, pattern, (), priority, len(pattern))


def test_no_inside_where_a_token_could_begin_in_the_runs_text() -> None:
    text, escape, quote = spec("TEXT", r'[^"\\]+', 1), spec("ESC", r"\\.", 0), spec("Q", '"')
    loops = frozenset({"TEXT", "ESC"})
    lexer = StateLexer.build([text, escape, quote], loops)
    assert inside_of(lexer, text, loops) is not None
    # A tag tried before the text that begins with a letter: it could begin anywhere
    # in the text, so no chunk of it can be known to stay inside.
    tag = spec("TAG", "ab", 2)
    lexer = StateLexer.build([tag, text, escape, quote], loops)
    assert lexer.candidates.index(tag) < lexer.candidates.index(text)
    assert inside_of(lexer, text, loops) is None
    # A candidate of unbounded width (an atom that reads any length) decides nothing
    # within reach: no inside either.
    wide = spec("WIDE", r'"[a-z]*"', 0)
    lexer = StateLexer.build([text, escape, wide], loops)
    assert lexer.margin == MAX_ATOM
    assert inside_of(lexer, text, loops) is None


def test_a_states_margin_is_what_its_candidates_read() -> None:
    lexer, _, _ = string_state("granite", "STRING_TEXT")
    assert lexer.margin == 7   # `\u0041` and one more character
    number = resolve_dialect("granite")._grammars[0].terminals
    assert any(name.endswith("NUMBER") for name in number)
    lexer = StateLexer.build([spec("NUMBER", r"-?[0-9]+(?![0-9])"), spec("C", ",")])
    assert lexer.margin == MAX_ATOM


def test_a_row_takes_a_bounded_negative_lookahead_only() -> None:
    assert row_safe(spec("ESC", r"\\(?:[0-7](?![0-7])|n)"))
    assert not row_safe(spec("ESC", r"\\n(?=x)"))
    assert not row_safe(spec("ESC", r"\\n(?!x*y)"))
