"""Search patterns that lead with their terminals' common first character
(`leading_literal`), and state lexers whose terminals have no capturing groups
(`without_captures`), try the cheaper of two that never both match first
(`cheap_first`) and read ignored whitespace with the token after it (`lead`): the same
matches as the plain alternation in Lark's order, found faster."""

from __future__ import annotations

import re
from functools import cache
from typing import Any

from hypothesis import given, settings, strategies as st

from toolparse._dialect import bundled_dialects
from toolparse._dialect.gates import _closing
from toolparse._dialect.grammar import Grammar
from toolparse._dialect.loader import resolve_dialect
from toolparse._dialect.lexer import (
    NEED_MORE, StateLexer, TerminalSpec, _first_prefix, next_token)
from toolparse._dialect.openers import BlockStarts, with_lookahead
from toolparse._syntax.regexp import leading_literal, literal_first, literal_text, without_captures

_NAMED_GROUP = re.compile(r"\(\?P<[A-Za-z_][A-Za-z0-9_]*>")


def plain_pattern(spec: Any) -> str:
    """The reference: a terminal's pattern with its named groups made plain, nothing
    else changed."""
    return _NAMED_GROUP.sub("(", spec.full.pattern)


def test_a_common_first_character_is_taken_out() -> None:
    assert leading_literal(["<a", "</b", r"<\|c"]) == ("<", ["a", "/b", r"\|c"])
    assert leading_literal([r"\|a", "|b"]) is None          # `|b` is an alternation
    assert leading_literal([r"\|a", r"\|b"]) == ("|", ["a", "b"])
    assert leading_literal(["<[|]a", "<(?:x|y)", "<[]|]z"]) == ("<", ["[|]a", "(?:x|y)", "[]|]z"])


def test_capturing_groups_become_non_capturing() -> None:
    assert without_captures(r'<a(\s+(\w+)="([^"]*)")*>') == r'<a(?:\s+(?:\w+)="(?:[^"]*)")*>'
    # Escaped parentheses, parentheses in a class, and groups that capture nothing stay.
    assert without_captures(r"\((x)[(](?:y)(?=z)(?!w)") == r"\((?:x)[(](?:y)(?=z)(?!w)"
    assert without_captures(r"[^]()](a)[\]()](b)") == r"[^]()](?:a)[\]()](?:b)"


def test_a_pattern_that_refers_to_a_group_is_left_alone() -> None:
    for pattern in (r"(a)\1", r"(?P<q>a)(?P=q)", r"(a)?(?(1)b|c)", r"(?P<n>a)"):
        assert without_captures(pattern) == pattern


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


@cache
def state_lexers() -> list[tuple[str, StateLexer, re.Pattern[str], tuple[Any, ...]]]:
    """Each bundled grammar's state lexers, with the reference: the plain alternation
    of their candidates in Lark's order, inner groups kept."""
    found = []
    for name in bundled_dialects():
        for grammar in resolve_dialect(name)._grammars:
            for state in range(len(grammar.table.actions)):
                lexer = grammar.lexer(state)
                order = tuple(grammar.candidates(state))
                plain = re.compile("|".join(f"({plain_pattern(s)})" for s in order) or r"(?!)")
                found.append((grammar.name, lexer, plain, order))
    return found


def test_a_state_lexers_alternation_has_one_group_a_terminal() -> None:
    lexers = state_lexers()
    assert any(plain.groups > len(lexer.candidates) for _, lexer, plain, _ in lexers)
    for name, lexer, _, order in lexers:
        assert lexer.master.groups == len(lexer.candidates), name
        assert set(lexer.candidates) == set(order), name


def test_a_tag_is_tried_before_its_self_closing_form() -> None:
    # `<parameter ...>` and `<parameter .../>` never both match; the shorter pattern
    # goes first, and Lark's order puts the longer first.
    moved = [(lexer.candidates, order) for name, lexer, _, order in state_lexers()
             if name == "deepseek" and lexer.candidates != order]
    assert moved
    for candidates, order in moved:
        names = [spec.name for spec in candidates]
        if "PARAMETER_EMPTY" in names:
            assert names.index("PARAMETER_OPEN") < names.index("PARAMETER_EMPTY")
            lark = [spec.name for spec in order]
            assert lark.index("PARAMETER_OPEN") > lark.index("PARAMETER_EMPTY")


@settings(max_examples=300)
@given(st.data())
def test_a_state_lexer_matches_what_the_plain_alternation_matches(data: st.DataObject) -> None:
    name, lexer, plain, order = data.draw(st.sampled_from(state_lexers()))
    pieces = st.sampled_from(["<", "</", ">", "/>", "invoke", "parameter", "｜DSML｜", "|",
                              " ", "name=\"a\"", "string='true'", "=", "\"", "]]>",
                              "<![CDATA[", "x", "\n", "function=f", "arg_key", "{", "}"])
    text = "".join(data.draw(st.lists(pieces, max_size=10)))
    for pos in range(len(text) + 1):
        got, want = lexer.master.match(text, pos), plain.match(text, pos)
        assert (got is None) == (want is None), (name, text, pos)
        if got is not None and want is not None:
            assert got.end() == want.end(), (name, text, pos)
            assert lexer.by_group[got.lastindex or 0] is _candidate_of(order, want)


def _candidate_of(order: tuple[Any, ...], m: re.Match[str]) -> Any:
    """The candidate whose group in the reference matched (its groups count the inner
    ones)."""
    group = 1
    for spec in order:
        if m.group(group) is not None:
            return spec
        group += 1 + re.compile(plain_pattern(spec)).groups
    return None


def test_whitespace_is_read_with_the_next_tag_where_nothing_else_begins_with_it() -> None:
    folding = [(name, lexer) for name, lexer, _, _ in state_lexers() if lexer.folds]
    assert {"deepseek", "qwen3_coder", "glm45"} <= {name for name, _ in folding}
    for name, lexer in folding:
        assert lexer.lead is not lexer.master
        assert "WS" not in {spec.name for spec in lexer.lead_groups if spec is not None}


@settings(max_examples=300)
@given(st.data())
def test_a_lead_match_is_the_ignored_token_then_the_next(data: st.DataObject) -> None:
    # Where `lead` matches, `master` reads the same: the ignored whitespace as one
    # token (when there is some), then the same terminal to the same end.
    name, lexer = data.draw(st.sampled_from(
        [(name, lexer) for name, lexer, _, _ in state_lexers() if lexer.folds]))
    pieces = st.sampled_from([" ", "\n", "\t", "  \n ", "<", "</", ">", "/>", "invoke",
                              "parameter", "｜DSML｜", "name=\"a\"", "x", "<!--", "-->",
                              "tool_calls", "function=f", "arg_key", "{}"])
    text = "".join(data.draw(st.lists(pieces, max_size=10)))
    for pos in range(len(text) + 1):
        m = lexer.lead.match(text, pos)
        if m is None:
            continue
        spec = lexer.lead_groups[m.lastindex or 0]
        begin = m.start(m.lastindex or 0)
        at = pos
        if begin > pos:
            ws = lexer.master.match(text, pos)
            assert ws is not None and ws.end() == begin, (name, text, pos)
            assert lexer.by_group[ws.lastindex or 0].name == "WS"
            at = begin
        token = lexer.master.match(text, at)
        assert token is not None and token.end() == m.end(), (name, text, pos)
        assert lexer.by_group[token.lastindex or 0] is spec, (name, text, pos)


def test_a_pattern_that_begins_with_a_group_is_written_literal_first() -> None:
    assert literal_first("<a") == ["<a"]
    assert literal_first(r"(?:<\|x\|>|<y>)\s*\[") == [r"<\|x\|>\s*\[", r"<y>\s*\["]
    assert literal_first(r"(?:<\|start\|>a)?<\|c\|>") == [r"<\|start\|>a<\|c\|>", r"<\|c\|>"]
    assert literal_first(r"(?:<a)*<b") is None          # a repeat cannot be distributed
    assert literal_first(r"(?:<a)?+<b") is None
    assert literal_first(r"(?:<a|\w)b") is None          # a branch with no literal first
    assert literal_first(r"[<>]a") is None


auto_starts = resolve_dialect("auto")._starts


@cache
def _undispatched() -> re.Pattern[str]:
    return re.compile(with_lookahead(auto_starts.openers, dispatch=False))


opener_samples = [s for s in ["<tool_call>", "<tool_calls>", "<|channel|>commentary to=functions.f",
                              "<|start|>assistant<|channel|>analysis<|message|>", "[TOOL_CALLS]f[ARGS]",
                              "functools[", "]<]minimax[>[<tool_call>", "<|tool_call>call:f{",
                              "<｜tool▁calls▁begin｜>", "<function=f>", "<|python_tag|>", "<div>",
                              "<tool_call|>[", "<function_call> {", "<seed:tool_call>", "f", "<", "["]]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(st.sampled_from(opener_samples), st.text(alphabet="<[]f|t >x", max_size=4)),
                max_size=12).map("".join))
def test_the_dispatched_auto_search_finds_what_the_alternation_finds(text: str) -> None:
    # `dialect="auto"`'s search is one branch per first two characters (`_dispatched`),
    # written literal-first: every match (start and end) is the plain alternation's.
    dispatched = auto_starts.search
    assert dispatched.pattern != _undispatched().pattern
    for at in range(len(text) + 1):
        a, b = dispatched.search(text, at), _undispatched().search(text, at)
        assert (a and a.span()) == (b and b.span()), at


def _lookahead_terminals() -> list[Any]:
    found = {}
    for name in bundled_dialects():
        for grammar in resolve_dialect(name)._grammars:
            for spec in grammar.terminals.values():
                if spec.consumed_dfa is not None:
                    found[spec.full.pattern] = spec
    return list(found.values())


def test_a_terminal_ending_in_a_lookahead_arrives_as_its_partial_matcher_says() -> None:
    # `_first_prefix` asks the automaton of the pattern with its lookahead read as
    # characters (`consumed_dfa`) where it asked `regex`'s partial matcher: the same
    # answer for every cut of every corpus text, from each place the terminal can begin.
    from toolparse.corpus import find_cases
    specs = _lookahead_terminals()
    assert {spec.name for spec in specs} >= {"CALL_OPEN", "FUNCTION_OPEN"}   # gemma4, granite
    texts = [case.text for case in find_cases()][::3]
    texts += ["<|tool_call>call:get_weather{", "<function_call> \\n {", "<function_call>x",
              "x]]>]]]>]]> ]]", "[ get_weather(city='x')]", "```\n```x",
              "get_weather <arg_key>", "name  <tool_sep>x", "ab d <steptml:invoke>"]
    for spec in specs:
        for text in texts:
            places = ([i for i, char in enumerate(text) if char in spec.starts] if spec.starts
                      else list(range(0, len(text), max(1, len(text) // 12))))
            for at in places[:12]:
                for end in range(at, min(len(text), at + 40) + 1):
                    p = spec.partial.match(text, at, end, partial=True)
                    found, _ = _first_prefix(((spec, None),), text, at, end)
                    assert (found is spec) == bool(p is not None and p.partial), \
                        (spec.name, text[at:end])


def test_a_plain_literal_pattern_gives_its_text() -> None:
    assert literal_text("<tool_call>") == "<tool_call>"
    assert literal_text(r"<\|python_tag\|>") == "<|python_tag|>"
    assert literal_text(r"\[TOOL_CALLS\]") == "[TOOL_CALLS]"
    assert literal_text("[<]a") == "<a"                    # (a one-character class)
    for pattern in ("(?i)<a>", "<a>+", "<a>(?=b)", "<a|b>", "[<>]a", "<a>\\s", "", "(?:<a>)?"):
        assert literal_text(pattern) is None, pattern


def _literal_starts() -> list[Any]:
    found = []
    for name in bundled_dialects():
        for grammar in resolve_dialect(name)._grammars:
            for starts in (grammar.block_starts, grammar.anchored_starts):
                if starts is not None and starts.literals is not None:
                    found.append(starts)
    return found


def _first_literal(starts: Any, text: str, at: int) -> tuple[Any, int]:
    """`entrant_openers`' reading of `BlockStarts.literals`: the first the text starts
    with at `at`, as `next_token` reports a match."""
    for literal, spec in starts.literals:
        if text.startswith(literal, at):
            return spec, at + len(literal)
    return None, at


def test_literal_openers_are_matched_as_their_lexer_matches_them() -> None:
    # The contest of `auto` asks a grammar whose openers are all literals with
    # `str.startswith` instead of its lexer's regex: the same terminal and end, from
    # every place in texts of every bundled opener, for every such grammar (and for a
    # made-up one whose literals are prefixes of each other, in both orders).
    literal = _literal_starts()
    assert {starts.literals[0][0] for starts in literal} >= {"<tool_call>", "<|python_tag|>"}

    def spec(name: str, pattern: str, order: int) -> Any:
        return TerminalSpec(name, 0, pattern, False, False, re.compile(pattern),
                            (0, 0, order, name))
    for order in ((0, 1), (1, 0)):
        literal.append(BlockStarts((spec("A", "<a>", order[0]), spec("B", "<a>b", order[1]))))
    texts = ["".join(opener_samples), "<a>bc<a>x<a", "<tool_calls><tool_call>" + "x" * 3]
    for starts in literal:
        for text in texts:
            for at in range(len(text) + 1):
                want = next_token(starts.lexer, text, at, len(text), True)
                assert _first_literal(starts, text, at) == want, (text, at)


def test_a_pair_lexer_matches_what_the_whole_openers_lexer_matches() -> None:
    # SCAN confirms a tag with the lexer of the openers that can begin with its first
    # two characters (`BlockStarts.pair_lexer`): the same terminal and end (or the same
    # terminal still arriving), from every place with two characters, cut anywhere, for
    # auto's openers and every bundled grammar's.
    auto = resolve_dialect("auto")
    all_starts = [auto._starts, auto._anchors]
    for name in bundled_dialects():
        for grammar in resolve_dialect(name)._grammars:
            all_starts += [grammar.block_starts, grammar.anchored_starts]
    text = "".join(opener_samples) + "<tool_calls:x>\n<|start|>assistant to=functions.f<|channel|>"
    smaller = 0
    for starts in all_starts:
        if starts is None:
            continue
        for at in range(len(text) - 1):
            pair_lexer = starts.pair_lexer(text[at:at + 2])
            smaller += len(pair_lexer.candidates) < len(starts.lexer.candidates)
            for end in {at + 2, at + 5, at + 12, at + 30, len(text)}:
                end = min(end, len(text))
                for final in (True, False):
                    got = next_token(pair_lexer, text, at, end, final)
                    want = next_token(starts.lexer, text, at, end, final)
                    if want[1] == NEED_MORE:   # (which one is arriving, SCAN does not read)
                        got, want = got[1:], want[1:]
                    assert got == want, (text[at:end], final)
    assert smaller > 0
    # SCAN asks for it only where the openers' first two characters differ.
    assert auto._starts.pairs_differ and resolve_dialect("qwen3_coder")._starts.pairs_differ
    assert not resolve_dialect("hermes")._starts.pairs_differ
