"""Search patterns that lead with their terminals' common first character
(`leading_literal`): the same matches as the plain alternation, found faster."""

from __future__ import annotations

import re
from functools import cache

from hypothesis import given, settings, strategies as st

from toolparse._dialect import bundled_dialects
from toolparse._dialect.gates import _closing
from toolparse._dialect.grammar import Grammar
from toolparse._dialect.loader import resolve_dialect
from toolparse._dialect.openers import plain_pattern
from toolparse._syntax.regexp import leading_literal


def test_a_common_first_character_is_taken_out() -> None:
    assert leading_literal(["<a", "</b", r"<\|c"]) == ("<", ["a", "/b", r"\|c"])
    assert leading_literal([r"\|a", "|b"]) is None          # `|b` is an alternation
    assert leading_literal([r"\|a", r"\|b"]) == ("|", ["a", "b"])
    assert leading_literal(["<[|]a", "<(?:x|y)", "<[]|]z"]) == ("<", ["[|]a", "(?:x|y)", "[]|]z"])


def test_what_cannot_be_taken_out_is_left_alone() -> None:
    for patterns in (["<a", "[b"], ["<a|<b"], ["<*a"], ["<+a"], ["<{2}a"], ["(?:<a)"],
                     [r"\da"], ["(?i)<a"], ["a", "b"], [".a"]):
        assert leading_literal(patterns) is None, patterns


@cache
def searches() -> list[tuple[str, re.Pattern[str], re.Pattern[str]]]:
    """Each bundled grammar's search patterns, as built and as a plain alternation."""
    found = []
    for name in bundled_dialects():
        for grammar in resolve_dialect(name)._grammars:
            found += _pairs(grammar)
    return found


def _pairs(grammar: Grammar) -> list[tuple[str, re.Pattern[str], re.Pattern[str]]]:
    def plain(names: frozenset[str]) -> re.Pattern[str]:
        specs = sorted((grammar.terminals[n] for n in names), key=lambda t: t.sort_key)
        return re.compile("|".join(f"(?P<{s.name}>{plain_pattern(s)})" for s in specs)
                          or r"(?!)")

    roles = grammar.roles
    pairs = [(grammar.name, grammar.span_search,
              plain(roles.block_closes | roles.block_opens | roles.section_opens)),
             (grammar.name, grammar.section_search,
              plain(roles.section_opens | roles.section_closes)),
             (grammar.name, grammar.block_starts.search,
              re.compile("|".join(f"(?:{plain_pattern(s)})" for s in grammar.openers)))]
    if grammar.closers is not None:
        pairs.append((grammar.name, grammar.closers.full, plain(_closing(grammar))))
    return pairs


def test_the_bundled_grammars_searches_lead_with_a_character() -> None:
    leading = [name for name, built, _ in searches() if built.pattern.startswith("<")]
    assert {"deepseek", "hermes", "qwen3_coder"} <= set(leading)


@settings(max_examples=300)
@given(st.data())
def test_a_search_finds_what_the_plain_alternation_finds(data: st.DataObject) -> None:
    name, built, plain = data.draw(st.sampled_from(searches()))
    # Text made of pieces of the grammar's own tags, so that matches happen.
    pieces = st.sampled_from(["<", "</", ">", "/>", "tool_call", "tool_calls", "invoke",
                              "function", "｜DSML｜", "|", " ", "name=\"a\"", "]]>",
                              "<![CDATA[", "x", "\n", "seed:", "minimax:", "<|",
                              "tool_calls_section_begin|>", "parameter"])
    text = "".join(data.draw(st.lists(pieces, max_size=12)))
    got = [(m.span(), m.lastgroup) for m in built.finditer(text)]
    want = [(m.span(), m.lastgroup) for m in plain.finditer(text)]
    assert got == want, (name, text)
