"""The quiet path inside a started call (`_dialect/gates.py`, `Engine.feed`): a chunk
without a gate character is kept unlexed, and that changes no event and the timing of
none (SPEC G2, G5); a grammar whose closing tags are not decided at their last
character has no gates."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from hypothesis import example, given, settings, strategies as st

import toolparse
from toolparse._dialect import bundled_dialects
from toolparse._dialect.gates import (
    CALL_RULES, EVENT_RULES, MAX_RECUR, NO_EVENTS, closers_of, last_chars)
from toolparse._dialect.loader import resolve_dialect
from toolparse._syntax.dfa import compile_dfa
from toolparse._syntax.files import grammar_path
from toolparse._syntax.regexp import WHITESPACE, lookahead_chars
from conftest import joined
from test_grammar import edited_copy
from test_properties import WELL_FORMED, cuts, split_at_fractions, tool_text

CLOSE = "</tool_calls>"
STARTED = '<tool_calls>\n<invoke name="a">\n<parameter name="p">'


@contextmanager
def no_gates(dialect: toolparse.Dialect) -> Iterator[None]:
    """The dialect's grammars without gates: every chunk taken the usual way."""
    grammars = dialect._grammars
    saved = [(grammar.gates, dict(grammar._event_gates)) for grammar in grammars]
    for grammar in grammars:
        grammar.__dict__["gates"] = ""
        for events in (CALL_RULES, EVENT_RULES):   # (and with incremental events)
            grammar._event_gates[events] = ("", None)
    try:
        yield
    finally:
        for grammar, (gates, event_gates) in zip(grammars, saved):
            grammar.__dict__["gates"] = gates
            grammar._event_gates.clear()
            grammar._event_gates.update(event_gates)


def per_feed(dialect: toolparse.Dialect, chunks: list[str], max_capture: int
             ) -> list[list[toolparse.Event]]:
    """The events of each feed, then of close, with ids that do not depend on the run."""
    ids = itertools.count()
    parser = toolparse.StreamParser(dialect, max_capture=max_capture,
                                    id_factory=lambda: f"call_{next(ids)}")
    out = [parser.feed(chunk) for chunk in chunks]
    return out + [parser.close()]


def test_every_bundled_grammar_has_the_tag_end_as_its_gate() -> None:
    for name in bundled_dialects():
        for grammar in resolve_dialect(name)._grammars:
            # (and a value read structurally ends at its last bracket: gpt_oss)
            # (mistral: its objects' and list's last brackets, and the next call's `[`)
            # (pythonic: its list's `]`, decided late since it may yet become
            # `]<|python_end|>`; its bare list's anchored `[` opens no span;
            # phi4_mini: its list's brackets; gemma4: `{`, where its opener's lookahead
            # is decided; llama3_json: its call's `}`; granite: its list's `]`, the `}`
            # of the object its `<function_call>(?=\{)` must be followed by, and the
            # characters its two openers are decided at)
            assert grammar.gates == {"gpt_oss": ">}", "mistral": "[]}", "phi4_mini": "[]",
                                     "pythonic": ">]", "granite": "[]{}", "gemma4": ">{",
                                     "llama3_json": ">}"}.get(name, ">"), name
            assert grammar.late_closers == (name == "pythonic"), name


GRANITE = grammar_path("dialects/granite.lark").read_text(encoding="utf-8")


@pytest.mark.parametrize(("old", "new", "enders"), [
    # As bundled: after `<function_call>`, only an object can begin, so the block ends
    # with its `}` (or the list's `]`), never with a bare number's last digit.
    ("", "", {"RBRACKET", "common__json__RBRACE"}),
    # A lookahead that admits a digit too: a number may end the block, and a number
    # ends with any digit: no gates.
    (r"(?=\{)", r"(?=[{0-9])", {"RBRACKET", "common__json__RBRACE", "common__json__NUMBER"}),
    # One that may match nothing admits anything.
    (r"(?=\{)", r"(?=\{?)", None),
])
def test_an_openers_lookahead_narrows_what_its_block_ends_with(
        tmp_path: Path, old: str, new: str, enders: set[str] | None) -> None:
    assert old in GRANITE
    path = tmp_path / "granite_edit.lark"
    path.write_text(GRANITE.replace(old, new, 1), encoding="utf-8")
    (grammar,) = toolparse.Dialect.from_file(path)._grammars
    if enders is None:   # (every JSON value's last terminal, as without a lookahead)
        assert "common__json__NUMBER" in grammar.enders and "common__json__TRUE" in grammar.enders
        assert grammar.gates == ""
    else:
        assert grammar.enders == enders
        assert grammar.gates == ("[]{}" if len(enders) == 2 else "")


def test_a_trailing_lookaheads_first_characters() -> None:
    assert lookahead_chars(r"<function_call>[ \t]{0,16}(?=\{)") == {"{"}
    assert lookahead_chars(r"call:\w+(?=[{(])") == {"{", "("}
    for none in (r"a(?!b)", r"a(?=b)|c", r"a(?=b?)", r"a(?=\{)b", r"abc", r"a(?=\w)"):
        assert lookahead_chars(none) is None, none
    # `\s` is a known set: the whitespace `re` matches.
    assert lookahead_chars(r"a(?=\s)") == WHITESPACE


def test_the_closers_are_the_tags_that_end_a_block_or_a_span() -> None:
    closers = resolve_dialect("deepseek")._grammars[0].closers
    assert closers is not None and closers.start == "<"
    for tag in ["</tool_calls>", "</｜DSML｜tool_calls >", "<tool_calls>", "<|DSML|tool_calls>"]:
        assert closers.full.fullmatch(tag), tag
    for tag in ["</parameter>", '<invoke name="a">', "</invoke>", "]]>", '<invoke name="b"/>']:
        assert not closers.full.fullmatch(tag), tag
    # The first characters of a tag tell whether a closing tag may begin there.
    for tag in ["</tool_calls>", "</｜DSML｜tool_calls >", "<tool_calls>", "<|DSML|tool_calls>",
                "</dsml_calls>", "<"]:
        assert all(closers.may_begin(tag[:n]) for n in range(1, 4)), tag
    for head in ["<pa", "</p", "<![", "</i", "<in", "<!-", "</ ", "<a"]:
        assert not closers.may_begin(head), head


def test_a_gate_that_ends_no_closing_tag_is_kept_too() -> None:
    parser = toolparse.StreamParser()
    parser.feed(STARTED)
    for chunk in ["v</parameter>", '<parameter name="q">w', "</parameter></invoke>", "\n</tool_"]:
        assert parser.feed(chunk) == []
        assert parser._engine._keeping is not None, chunk
    # The close arrives across two chunks: the one that ends it gives the block.
    block, after = parser.feed("calls> and")
    assert isinstance(block, toolparse.ToolCallBlock)
    assert block.calls[0].arguments == {"p": "v", "q": "w"}
    assert after == toolparse.Text(" and")


def test_closing_tags_that_begin_differently_mean_every_gate_lexes(tmp_path: Path) -> None:
    # `[/tool_calls>` closes a block too: a gate cannot be told from a close by the
    # last `<` before it, so each one lexes the text kept (and the block comes out in
    # the feed that ends its close).
    path = edited_copy(tmp_path, 'WRAPPER_CLOSE.3: "</" _WRAPPER_NAME _ATTRIBUTES _END',
                       'WRAPPER_CLOSE.3: ("</" | "[/") _WRAPPER_NAME _ATTRIBUTES _END')
    dialect = toolparse.Dialect.from_file(path)
    grammar = dialect._grammars[0]
    assert grammar.gates == ">" and grammar.closers is None
    parser = toolparse.StreamParser(dialect)
    assert parser.feed(STARTED + "v</parameter></invoke>[/tool_calls") == []
    events = parser.feed(">")
    assert isinstance(events[0], toolparse.ToolCallBlock)


def test_a_closing_tag_may_hold_its_first_character_again_near_its_start() -> None:
    # MiniMax-M3 writes a namespace token before every tag, `]<]minimax[>[`, which
    # holds `]` twice and `>` once: the closers begin with `]` and hold it again 2
    # characters in; a tag may then begin at any `]` up to 2 before the last one kept.
    closers = resolve_dialect("minimax_m3")._grammars[0].closers
    assert closers is not None and (closers.start, closers.recur) == ("]", 2)
    assert closers.full.fullmatch("]<]minimax[>[</tool_call>")
    assert closers.may_begin("]<]") and not closers.may_begin("]mi")
    assert resolve_dialect("deepseek")._grammars[0].closers.recur == 0   # type: ignore[union-attr]
    # So the text kept across the token's `>` and a value's `]` and `>` is not lexed.
    parser = toolparse.StreamParser("minimax_m3")
    parser.feed("]<]minimax[>[<tool_call>\n]<]minimax[>[<invoke name=\"f\">]<]minimax[>[<x>")
    for chunk in ["a[0]", "] > ", "1]<]", "mini", "max[", ">[</", "x>]<", "]min", "imax", "[>[<",
                  "/invoke>", "\n]<]minimax[>[</tool_c", "all"]:
        assert parser.feed(chunk) == [] and parser._engine._keeping is not None, chunk
    block, after = parser.feed("> ok")
    assert isinstance(block, toolparse.ToolCallBlock)
    assert block.calls[0].arguments == {"x": "a[0]] > 1"} and after == toolparse.Text(" ok")


MINIMAX_M3 = grammar_path("dialects/minimax_m3.lark").read_text(encoding="utf-8")


@pytest.mark.parametrize(("token", "recur"), [
    ('"]<]minimax[>["', 2),         # as bundled
    ('"]]"', 1),
    ('"]<"', 0),
    (" ".join(['"]"'] * (MAX_RECUR + 1)), MAX_RECUR),
    (" ".join(['"]"'] * (MAX_RECUR + 2)), None),   # again further than MAX_RECUR
    (r'/\](?:[a-z]*\])?/', None),     # again at any distance: every gate lexes
])
def test_how_far_a_closing_tag_holds_its_first_character_again(
        tmp_path: Path, token: str, recur: int | None) -> None:
    old = '_NS: "]<]minimax[>["'
    assert old in MINIMAX_M3
    path = tmp_path / "ns.lark"
    path.write_text(MINIMAX_M3.replace(old, f"_NS: {token}", 1), encoding="utf-8")
    closers = toolparse.Dialect.from_file(path)._grammars[0].closers
    assert (None if closers is None else closers.recur) == recur


def test_last_chars_reads_the_automaton() -> None:
    assert last_chars(compile_dfa(r"</tool_calls\s*>")) == frozenset(">")
    assert last_chars(compile_dfa(r"a|bc")) == frozenset("ac")
    assert last_chars(compile_dfa(r"x.")) is None   # any character can end it


def test_chunks_without_a_gate_are_kept_inside_a_started_call() -> None:
    parser = toolparse.StreamParser()
    engine = parser._engine
    assert parser.feed(STARTED) == []
    for chunk in ["some", " val", "ue <", "b ", "<"]:
        assert parser.feed(chunk) == []
        assert engine._keeping is not None
    block, after = parser.feed("/parameter></invoke>\n" + CLOSE + " after")
    assert isinstance(block, toolparse.ToolCallBlock)
    assert block.calls[0].arguments == {"p": "some value <b"}   # value_edges=xml trims
    assert after == toolparse.Text(" after")
    assert engine._keeping is None


def test_empty_chunks_add_nothing_to_the_kept_text() -> None:
    # The close test joins the pieces kept since the last `<`: empty pieces would make
    # each gate's join longer without bound (SPEC G6).
    parser = toolparse.StreamParser()
    parser.feed(STARTED + "v</parameter>\n<")
    keeping = parser._engine._keeping
    assert keeping is not None
    size = len(keeping.chunks)
    for _ in range(1000):
        assert parser.feed("") == []
    assert len(keeping.chunks) == size
    events = parser.feed("/invoke></tool_calls>") + parser.close()
    assert isinstance(events[0], toolparse.ToolCallBlock)


def test_no_chunk_is_kept_before_a_call_starts_or_when_the_tag_may_be_code() -> None:
    # Before a call tag a prose mention must fail at once (G5); after an unmatched
    # backtick run the block may turn out to be code, and its text go out early.
    for text in ["<tool_calls>\n", "A ` then " + STARTED]:
        parser = toolparse.StreamParser()
        parser.feed(text)
        parser.feed("x")
        assert parser._engine._keeping is None, text


def test_no_chunk_is_kept_while_a_tag_with_a_gate_inside_is_arriving() -> None:
    # A quoted `>` does not end the tag: its automaton takes the next chunks, which
    # kept chunks would make each gate lex again from the tag's start (quadratic up to
    # the atom bound).
    parser = toolparse.StreamParser()
    assert parser.feed(STARTED + 'v</parameter><parameter name="a>') == []
    for chunk in ["b", ">", "c"]:
        assert parser.feed(chunk) == []
        assert parser._engine._keeping is None
    events = parser.feed('">w</parameter></invoke></tool_calls>') + parser.close()
    assert isinstance(events[0], toolparse.ToolCallBlock)
    assert events[0].calls[0].arguments == {"p": "v", "a>b>c": "w"}


@pytest.mark.parametrize("gates", [True, False])
def test_a_chunk_inside_a_value_that_reaches_the_limit_fails_the_block_at_once(
        gates: bool) -> None:
    # Kept, or taken as more of the value's run: at exactly the limit the block can no
    # longer complete, so it fails in that feed (SPEC G5, G7), not the next one.
    dialect = resolve_dialect("deepseek")
    limit = len(STARTED) + 10
    chunks = [STARTED, "x" * 4, "x" * 6, "tail"]
    if gates:
        events = per_feed(dialect, chunks, limit)
    else:
        with no_gates(dialect):
            events = per_feed(dialect, chunks, limit)
    assert events[1] == []
    assert [e.failure.reason for e in events[2]
            if isinstance(e, toolparse.Text) and e.failure] == ["max_capture"]


@given(st.lists(st.one_of(tool_text, st.sampled_from(WELL_FORMED)), max_size=4).map("".join),
       cuts, st.sampled_from([12, 40, 200, 1 << 20]))
# The block's tag may be in code: broken calls wait on the tracker, and a backtick
# (no gate) decides that they were code, in the feed that brings it.
@example("A ` then <tool_calls><invoke name=\"a\">oops, and ` more", [0.5, 38 / 54], 1 << 20)
# A failed span reaches its limit: it goes out in the feed that reaches it.
@example(STARTED + "v</parameter>oops and more text", [0.1, 0.6, 0.8], 60)
def test_kept_chunks_change_no_event_and_no_feed_it_comes_in(
        text: str, points: list[float], max_capture: int) -> None:
    dialect = resolve_dialect("deepseek")
    chunks = split_at_fractions(text, points)
    gated = per_feed(dialect, chunks, max_capture)
    with no_gates(dialect):
        usual = per_feed(dialect, chunks, max_capture)
    assert gated == usual
    assert joined(itertools.chain.from_iterable(gated)) == text


CDATA_CLOSES = STARTED + "<![CDATA[x = a[b[0]]> 1]]> ]]>\n</parameter></invoke></tool_calls>"


@pytest.mark.parametrize("text", [*WELL_FORMED, CDATA_CLOSES])
def test_every_regular_chunking_gives_the_same_feeds_as_without_gates(text: str) -> None:
    # `]]>` waits for what follows it (CDATA_END's lookahead): kept with the chunks
    # after it, it must still be there when the next gate lexes them.
    dialect = resolve_dialect("deepseek")
    text = "Before. " + text + " after " + text
    for size in range(1, 9):
        chunks = [text[i:i + size] for i in range(0, len(text), size)]
        gated = per_feed(dialect, chunks, 1 << 20)
        with no_gates(dialect):
            assert gated == per_feed(dialect, chunks, 1 << 20), size


@pytest.mark.parametrize("old, new, gates", [
    # A block close with a negative lookahead waits for any character after it: no gates.
    ('WRAPPER_CLOSE.3: "</" _WRAPPER_NAME _ATTRIBUTES _END',
     'WRAPPER_CLOSE.3: /<\\/tool_calls>(?!!)/', ""),
    # A longer close tried first could still be arriving where this one matched: gates,
    # but nothing is kept while it arrives (`late_closers`).
    ("block: WRAPPER_OPEN comment* invoke (invoke | comment)* WRAPPER_CLOSE",
     "block: WRAPPER_OPEN comment* invoke (invoke | comment)* (WRAPPER_CLOSE | LONG_CLOSE)\n"
     'LONG_CLOSE.4: "</tool_calls>!!"', "!>"),
])
def test_a_close_decided_after_its_last_character(
        tmp_path: Path, old: str, new: str, gates: str) -> None:
    dialect = toolparse.Dialect.from_file(edited_copy(tmp_path, old, new))
    assert dialect._grammars[0].gates == gates
    assert dialect._grammars[0].late_closers
    # The block is certain only with the character after its close: that feed gives it.
    parser = toolparse.StreamParser(dialect)
    assert parser.feed(STARTED + "v</parameter></invoke>" + CLOSE) == []
    events = parser.feed("x")
    assert isinstance(events[0], toolparse.ToolCallBlock)
    text = "Before. " + STARTED + "v</parameter></invoke>" + CLOSE + "! and " + STARTED + \
        "w</parameter></invoke>" + CLOSE + "x"
    for size in range(1, 9):
        chunks = [text[i:i + size] for i in range(0, len(text), size)]
        gated = per_feed(dialect, chunks, 1 << 20)
        with no_gates(dialect):
            assert gated == per_feed(dialect, chunks, 1 << 20), size


GATED_DIALECTS = [name for name in bundled_dialects()
                  if any(grammar.gates for grammar in resolve_dialect(name)._grammars)]
CORPUS_TEXTS = {name: [case.text for case in toolparse.corpus.find_cases()
                       if case.dialect == name] for name in GATED_DIALECTS}


def feeds(dialect: toolparse.Dialect, chunks: list[str], max_capture: int,
          incremental: bool) -> list[list[toolparse.StreamEvent]]:
    ids = itertools.count()
    parser = toolparse.StreamParser(dialect, max_capture=max_capture, incremental=incremental,
                                    id_factory=lambda: f"call_{next(ids)}")
    out: list[list[toolparse.StreamEvent]] = [parser.feed(chunk) for chunk in chunks]
    return out + [parser.close()]


RECURRING = [name for name in bundled_dialects()
             if any((closers := closers_of(grammar, events)) is not None and closers.recur
                    for grammar in resolve_dialect(name)._grammars
                    for events in (NO_EVENTS, CALL_RULES, EVENT_RULES))]


def test_the_dialects_whose_closing_tags_hold_their_first_character_again() -> None:
    # MiniMax-M3's `]<]minimax[>[`, Kimi K3's `<|close|>tools<|sep|>`, and, with
    # incremental events, DeepSeek V3's `<｜tool▁call▁begin｜>function<｜tool▁sep｜>`:
    # the tests below read their corpus.
    assert set(RECURRING) == {"minimax_m3", "kimi_k3", "deepseek_v3"}


@pytest.mark.parametrize("name", RECURRING)
@pytest.mark.parametrize("incremental", [False, True])
def test_a_recurring_first_characters_corpus_gives_the_same_feeds_as_without_gates(
        name: str, incremental: bool) -> None:
    # Their closing tags hold their first character again (`Closers.recur`): a tag that
    # begins at any of them, cut anywhere, must still end the keeping.
    dialect = resolve_dialect(name)
    for case in toolparse.corpus.find_cases():
        if case.dialect != name:
            continue
        for size in range(1, 8):
            chunks = [case.text[i:i + size] for i in range(0, len(case.text), size)]
            gated = feeds(dialect, chunks, 1 << 20, incremental)
            with no_gates(dialect):
                assert gated == feeds(dialect, chunks, 1 << 20, incremental), (case.id, size)


@settings(max_examples=400, deadline=None)
@given(st.sampled_from(GATED_DIALECTS), st.data(), cuts, st.booleans(),
       st.sampled_from([40, 200, 1 << 20]))
def test_every_gated_dialect_gives_the_same_feeds_as_without_gates(
        name: str, data: st.DataObject, points: list[float], incremental: bool,
        max_capture: int) -> None:
    # Each dialect's corpus texts, whole, cut short, or with a piece of markup or text
    # spliced in (a block broken mid-call, a second opener inside a value), in random
    # chunks: a kept chunk changes no event and the feed of none (SPEC G2, G5). Gates
    # read off a lookahead (gemma4's `{`) and closes decided late (pythonic's `]`) too.
    dialect = resolve_dialect(name)
    texts = CORPUS_TEXTS[name]
    text = data.draw(st.sampled_from(texts)) if texts else ""
    at = data.draw(st.integers(0, len(text)))
    how = data.draw(st.sampled_from(["whole", "cut", "splice"]))
    if how == "cut":
        text = text[:at]
    elif how == "splice":
        other = data.draw(st.sampled_from(texts)) if texts else ""
        piece = data.draw(st.one_of(st.text(max_size=6), st.just(other[:at]),
                                    st.sampled_from(["]", "}", ">", "{", ")", "]<|python_end|>",
                                                     '"', "\n", "<|tool_call>call:f{"])))
        text = text[:at] + piece + text[at:]
    chunks = split_at_fractions(text, points)
    gated = feeds(dialect, chunks, max_capture, incremental)
    with no_gates(dialect):
        usual = feeds(dialect, chunks, max_capture, incremental)
    assert gated == usual


@pytest.mark.parametrize("name", ["pythonic", "gemma4", "llama3_json", "granite"])
@pytest.mark.parametrize("incremental", [False, True])
def test_gates_read_off_a_lookahead_or_a_late_close_change_no_feed(
        name: str, incremental: bool) -> None:
    # The dialects that gained gates in the twenty-third sitting (granite in the
    # twenty-fifth), over every corpus case in every regular chunking up to 5
    # characters, and pythonic's `]`, decided only by the character after it, arriving
    # alone: the chunk after it must be lexed. Granite's `<function_call>` followed by
    # what is no object, and brackets inside its strings.
    dialect = resolve_dialect(name)
    texts = [*CORPUS_TEXTS[name], '[get_weather(city="Paris")] and more text.',
             '[get_weather(city="Paris")]<|python and more text.',
             '<function_call> 5 <function_call> {"name": "f", "arguments": {"a": "}]{["}} x',
             '<tool_call>[{"name": "f", "arguments": {"a": [1, {"b": "]}"}]}}, 7] done']
    for text in texts:
        for size in range(1, 6):
            chunks = [text[i:i + size] for i in range(0, len(text), size)]
            gated = feeds(dialect, chunks, 1 << 20, incremental)
            with no_gates(dialect):
                assert gated == feeds(dialect, chunks, 1 << 20, incremental), (text, size)


@pytest.mark.parametrize("gates", ["]", ">}", "[]{}", "^-\\]"])
def test_a_keeping_cuts_a_chunk_after_its_last_gate(gates: str) -> None:
    # Several gates are tested as a set and cut with one search; one gate with `rfind`.
    # The cut is after the chunk's last gate, whichever it is, and the rest holds none.
    from toolparse._stream.keeping import Keeping

    for chunk in ["abc", "a]b", "]", "x}y>z", "{]x]yy[", "-^\\", "]]]]", "a" * 50 + "}" + "b"]:
        keeping = Keeping("t", gates, None, 1 << 20)
        holds = any(gate in chunk for gate in gates)
        assert keeping.gateless(chunk) is not holds, (gates, chunk)
        if holds:
            text, rest = keeping.cut(chunk)
            at = max(chunk.rfind(gate) for gate in gates) + 1
            assert (text, rest) == ("t" + chunk[:at], chunk[at:]), (gates, chunk)
            assert keeping.gateless(rest)
