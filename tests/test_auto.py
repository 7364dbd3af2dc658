"""`dialect="auto"` (SPEC 5.2): every bundled dialect at once, decided per block by its
first tags, the same whatever the chunking."""

from __future__ import annotations

import itertools
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import toolparse
from toolparse import Text, ToolCallBlock, corpus
from toolparse._dialect.loader import resolve_dialect
from toolparse._stream.capture import Capture
from toolparse._stream.contest import Contest, Entrant
from conftest import joined
from test_properties import FRAGMENTS, cuts, split_at_fractions

CASES = corpus.find_cases()


def ids() -> Any:
    return map("id{}".format, itertools.count()).__next__


def events(chunks: list[str], dialect: str, **options: Any) -> list[Any]:
    parser = toolparse.StreamParser(dialect, id_factory=ids(), **options)
    out = [event for chunk in chunks for event in parser.feed(chunk)]
    return corpus.event_records(out + parser.close(), with_status=True)


def own_calls(text: str, dialect: str) -> list[tuple[str, str]]:
    return [(call.name, call.arguments_json) for call in toolparse.parse(text, dialect).calls]


def starts(text: str, dialect: str) -> set[int]:
    return {m.start() for m in toolparse.Dialect.bundled(dialect)._block_starts(text)}


def _clean(text: str, dialect: str) -> bool:
    """Its blocks all parse, it has calls, its prose holds no Markdown that could
    reach into the next answer (no backticks, tildes or indentation), and its calls do
    not need the start of the stream (an anchored opener, SPEC 5.3 b: after another
    answer its JSON is text)."""
    result = toolparse.parse(text, dialect)
    prose = "\n".join(event.text for event in result.events if isinstance(event, Text))
    later = toolparse.parse("Text.\n\n" + text, dialect)
    return (bool(result.calls) and not result.failures and not result.reasoning
            and not any(mark in "\n" + prose for mark in ("`", "~", "\n ", "\n\t"))
            and len(later.calls) == len(result.calls))


# Whole answers of every dialect but the default.
CLEAN = [(case.text, case.dialect) for case in CASES
         if case.dialect != "deepseek" and not case.tools and _clean(case.text, case.dialect)]


@pytest.mark.parametrize("case", CASES, ids=[case.id for case in CASES])
def test_auto_reads_a_case_as_its_dialect_unless_another_grammar_opens_a_block_there(
        case: corpus.Case) -> None:
    # Where no other grammar finds a block start, auto must read exactly as the case's
    # own dialect does, under every chunking the corpus uses.
    # (A case that names its reasoning format is read with it by both; under auto the
    # dialect's default format is every bundled one, SPEC 11.)
    options = {"tools": case.tools, "in_reasoning": case.in_reasoning,
               "reasoning": case.reasoning if case.reasoning != "auto" else
               toolparse.Dialect.bundled(case.dialect).reasoning if case.in_reasoning else "auto"}
    whole = events([case.text], "auto", **options)
    for label, chunks in corpus.chunkings(case):
        assert events(chunks, "auto", **options) == whole, label
    if starts(case.text, "auto") == starts(case.text, case.dialect):
        assert whole == events([case.text], case.dialect, **options)


def test_clean_answers_cover_every_dialect_that_shares_a_tag() -> None:
    assert {"qwen3_coder", "glm45", "hermes", "kimi_k2", "anthropic", "minimax_m2"} <= \
        {dialect for _, dialect in CLEAN}


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(CLEAN), min_size=1, max_size=6), cuts)
def test_mixed_answers_give_each_dialects_own_calls(answers: list[tuple[str, str]],
                                                    points: list[float]) -> None:
    text = "\n\n".join(answer for answer, _ in answers)
    expected = [call for answer, dialect in answers for call in own_calls(answer, dialect)]
    got = toolparse.parse(text, "auto")
    assert [(call.name, call.arguments_json) for call in got.calls] == expected
    assert joined(got.events) == text
    chunks = split_at_fractions(text, points)
    assert events(chunks, "auto") == events([text], "auto")


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(FRAGMENTS + [answer for answer, _ in CLEAN]), max_size=12)
       .map("".join), cuts)
def test_any_mix_is_read_the_same_whatever_the_chunking(text: str, points: list[float]) -> None:
    chunks = split_at_fractions(text, points)
    got = events(chunks, "auto")
    assert got == events([text], "auto")
    assert "".join(record["raw"] if "raw" in record else record["text"] for record in got) == text


@pytest.mark.parametrize(("text", "dialect", "name"), [
    ('<tool_call>\n{"name": "read", "arguments": {"path": "a.md"}}\n</tool_call>', "hermes",
     "read"),
    ("<tool_call>\n<function=read>\n<parameter=path>\na.md\n</parameter>\n</function>\n"
     "</tool_call>", "qwen3_coder", "read"),
    ("<tool_call>read\n<arg_key>path</arg_key>\n<arg_value>a.md</arg_value>\n</tool_call>",
     "glm45", "read"),
])
def test_the_tags_after_a_shared_tag_choose_the_dialect(text: str, dialect: str,
                                                        name: str) -> None:
    # <tool_call> opens a block in three grammars; the next tag decides, and the call
    # is exactly what that dialect alone reads, one character at a time too.
    chunks = list(text)
    assert events(chunks, "auto") == events([text], dialect)
    (call,) = toolparse.parse(text, "auto").calls
    assert (call.name, call.arguments) == (name, {"path": "a.md"})


_DS_CALLS, _DS_CALL = "<｜tool▁calls▁begin｜>", "<｜tool▁call▁begin｜>"
_DS_SEP, _DS_ENDS = "<｜tool▁sep｜>", "<｜tool▁call▁end｜><｜tool▁calls▁end｜>"


@pytest.mark.parametrize(("text", "dialect", "name"), [
    # DeepSeek V3's call header, `function` and then the name, and V3.1's, the name
    # alone: both open with the same two tokens.
    (f'{_DS_CALLS}{_DS_CALL}function{_DS_SEP}read\n```json\n{{"path": "a.md"}}\n```{_DS_ENDS}',
     "deepseek_v3", "read"),
    (f'{_DS_CALLS}{_DS_CALL}read{_DS_SEP}{{"path": "a.md"}}{_DS_ENDS}', "deepseek_v31", "read"),
    # A V3.1 tool named `function`: V3 reads the JSON as a name and fails after it.
    (f'{_DS_CALLS}{_DS_CALL}function{_DS_SEP}{{"path": "a.md"}}{_DS_ENDS}', "deepseek_v31",
     "function"),
])
@pytest.mark.parametrize("incremental", [False, True])
def test_a_contested_block_reads_the_same_in_any_chunks(text: str, dialect: str, name: str,
                                                        incremental: bool) -> None:
    # While the grammars contend, each chunk is read by every one still reading (a long
    # tag arriving is stepped on, not read again from its start) and held: one
    # character at a time, in pieces of every size, the events are the chosen
    # dialect's own, incremental ones too.
    whole = events([text], dialect, incremental=incremental)
    for size in (1, 2, 3, 5, 8, 13):
        chunks = [text[i:i + size] for i in range(0, len(text), size)]
        assert events(chunks, "auto", incremental=incremental) == whole, size
    (call,) = toolparse.parse(text, "auto").calls
    assert (call.name, call.arguments) == (name, {"path": "a.md"})


@pytest.mark.parametrize(("text", "dialect"), [
    # Hermes reads furthest: its failure is the block's.
    ('<tool_call>\n{"name": "read", "arguments": {"path": "a.md"}\n</tool_call> after', "hermes"),
    ('<tool_call>\n{"name": "read", "arguments": {"path"', "hermes"),
    # Qwen3-Coder reads furthest.
    ("<tool_call>\n<function=read>\n<parameter=path>a.md</parameter>\n</tool_call> after",
     "qwen3_coder"),
])
def test_a_block_every_grammar_fails_fails_as_the_one_that_read_furthest(
        text: str, dialect: str) -> None:
    got = events(list(text), "auto")
    assert got == events([text], dialect)
    assert any(record.get("failure") for record in got)
    assert not toolparse.parse(text, "auto").calls


def test_a_contested_block_that_is_too_long_fails_at_the_limit() -> None:
    # Held while the grammars choose: never more than max_capture.
    text = "<tool_call>\n" + "x" * 500
    result = toolparse.parse(text + "\n</tool_call>", "auto", max_capture=100)
    (failed, *_rest) = result.failures
    assert failed.reason == "max_capture" and failed.end - failed.start <= 100


def test_auto_holds_every_bundled_dialect_default_first() -> None:
    grammars = toolparse.Dialect.bundled("auto")._grammars
    assert tuple(grammar.name for grammar in grammars) == toolparse.dialects()


# ---- the choice rule, entrant by entrant (contest.py) -----------------------------------

def Reader(outcome: str, base: int, stop: int = -1) -> Entrant:  # noqa: N802
    """An entrant as the choice rule sees it: its outcome, how far it has read, and where
    it completed or failed (a real `Entrant`, as the compiled build's `Contest` takes
    nothing else: Hermes' reading of a `<tool_call>`, its figures then set)."""
    grammar = resolve_dialect("hermes")._grammars[0]
    (spec,) = grammar.openers
    entrant = Entrant(Capture(grammar, grammar.opener_rule[spec.name], 0, -1, 1 << 20),
                      spec, "<tool_call>")
    entrant.outcome, entrant.base, entrant.stop = outcome, base, stop
    return entrant


def winner(*readers: Entrant) -> int | None:
    chosen = Contest(list(readers), 0, "")._winner()
    return None if chosen is None else readers.index(chosen)


@pytest.mark.parametrize(("readers", "expected"), [
    # A sole survivor wins only once it has read past every other one's failure ...
    ([Reader("failed", 30, 30), Reader("waiting", 30)], None),
    ([Reader("failed", 30, 30), Reader("waiting", 31)], 1),
    # ... for until then it may still fail short of it, and the furthest failure wins.
    ([Reader("failed", 30, 30), Reader("failed", 20, 20)], 0),
    ([Reader("failed", 20, 20), Reader("failed", 20, 20)], 0),   # a tie: the earlier grammar
    # The first block to complete wins once no other can complete before it.
    ([Reader("complete", 40, 40), Reader("waiting", 39)], None),
    ([Reader("complete", 40, 40), Reader("waiting", 40)], 0),
    ([Reader("waiting", 41), Reader("complete", 40, 40)], 1),
    ([Reader("complete", 50, 50), Reader("complete", 40, 40)], 1),
    ([Reader("complete", 40, 40), Reader("complete", 40, 40)], 0),
    # Two still reading: no choice yet.
    ([Reader("waiting", 10), Reader("waiting", 90), Reader("failed", 5, 5)], None),
])
def test_the_choice_depends_on_offsets_alone(readers: list[Entrant], expected: int | None
                                             ) -> None:
    assert winner(*readers) == expected


# A call from `auto` is always one that a single dialect reads from the same block (issue
# 47, item 8): the contest chooses among the grammars, and never makes a call of its own.
SHARED_TAGS = [
    "<tool_call>", "</tool_call>", "\n", " ", "{", "}", '"', '"name": "f"', ", ",
    '"arguments": {"a": "', '"}}', "<function=f>", "</function>", "<parameter=a>",
    "</parameter>", "f", "<arg_key>a</arg_key>", "<arg_value>", "</arg_value>", "x",
    "<|tool_call_begin|>functions.f:0<|tool_call_argument_begin|>", "<|tool_call_end|>",
    "<|tool_calls_section_end|>", "<minimax:tool_call>", '<invoke name="f">', "</invoke>",
    '<parameter name="a">', "<function_calls>", "</function_calls>",
]


def _alone(raw: str) -> list[list[tuple[str, str]]]:
    return [own_calls(raw, dialect) for dialect in toolparse.dialects()]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(SHARED_TAGS + FRAGMENTS), max_size=24).map("".join))
def test_auto_makes_no_call_that_no_dialect_reads_alone_from_its_block(text: str) -> None:
    for event in toolparse.parse(text, "auto").events:
        if isinstance(event, ToolCallBlock):
            calls = [(call.name, call.arguments_json) for call in event.calls]
            assert calls in _alone(event.raw), event.raw


NOT_GLM_NAMES = [
    # The issue's case: a Hermes body cut by a quoted </tool_call>; what follows the
    # next <tool_call> is the tail of the JSON, not a GLM name.
    '<tool_call>\n{"name": "f", "arguments": {"a": "</tool_call><tool_call>"}}\n</tool_call>',
    '<tool_call>"}}</tool_call>', "<tool_call>f(x)</tool_call>", "<tool_call>a=b</tool_call>",
    "<tool_call>[1]\n</tool_call>", "<tool_call>`ls`</tool_call>",
]


# Under auto, `<tool_call>[` is Granite 3.1's head (a JSON array of calls,
# tests/test_granite_phi4.py), so that text is granite's block there.
@pytest.mark.parametrize(("text", "dialect"), [
    (text, dialect) for text in NOT_GLM_NAMES for dialect in ("auto", "glm45")
    if not (dialect == "auto" and text.startswith("<tool_call>["))])
def test_a_glm_name_is_a_name(text: str, dialect: str) -> None:
    # SPEC 5: the name rule decides what a name is; punctuation that no function name
    # holds is no name, so no call starts (the block fails as a prose mention).
    result = toolparse.parse(text, dialect)
    assert not result.calls
    assert result.failures


def test_a_glm_name_may_hold_what_tool_names_hold() -> None:
    text = ("<tool_call>读取.v2:mcp/files-read_x<arg_key>a</arg_key><arg_value>1</arg_value>"
            "</tool_call>")
    for dialect in ("glm45", "auto"):
        (call,) = toolparse.parse(text, dialect).calls
        assert call.name == "读取.v2:mcp/files-read_x"


def test_a_tag_one_dialect_writes_and_another_only_accepts_is_read_once() -> None:
    # qwen3_coder reads Seed-OSS's wrapper as a leniency (`-> lenient_seed_wrapper`);
    # seed_oss writes it: under auto only seed_oss reads the block (SPEC 5.2's cost).
    from toolparse._dialect.loader import resolve_dialect
    from toolparse._stream.contest import entrant_openers
    from toolparse._stream.scan import Opener

    auto = resolve_dialect("auto")
    grammars = auto._grammars

    def readers(tag: str) -> list[str]:
        opener = Opener(grammars[0].openers[0], 0, len(tag), -1)
        return [g.name for g, _ in entrant_openers(auto, tag, opener)]

    assert "SEED_OPEN" in resolve_dialect("qwen3_coder")._grammars[0].lenient_openers
    assert readers("<seed:tool_call>") == ["seed_oss"]
    # Where the grammars that open a tag all write it, all of them read it.
    assert readers("<tool_call>") == [
        "glm45", "hermes", "qwen3_coder"]
    text = ("<seed:tool_call>\n<function=f>\n<parameter=a>\n1\n</parameter>\n</function>\n"
            "</seed:tool_call>")
    assert [(c.name, c.arguments) for c in toolparse.parse(text, "auto").calls] == \
        [(c.name, c.arguments) for c in toolparse.parse(text, "qwen3_coder").calls] == \
        [("f", {"a": "1"})]


def test_the_grammars_asked_about_a_tag_are_kept_by_its_first_two_characters() -> None:
    # The contest asks only grammars some opener of which begins with the tag's first
    # two characters, and keeps that list by them: asked again after other tags that
    # share them (or not), the same readers as with nothing kept.
    from toolparse._dialect.loader import resolve_dialect
    from toolparse._stream.contest import entrant_openers
    from toolparse._stream.scan import Opener

    auto = resolve_dialect("auto")
    tags = ["<tool_call>", "<tool_calls>", "<tool_calls:x>", "<function=f>", "<function_calls>",
            "<seed:tool_call>", "<|python_tag|>", "<|tool_call_start|>", "<longcat_tool_call>",
            "[TOOL_CALLS]f[ARGS]", "<TOOLCALL>", "<｜tool▁calls▁begin｜>"]

    def readers(tag: str) -> list[str]:
        opener = Opener(auto._grammars[0].openers[0], 0, len(tag), -1)
        return [g.name for g, _ in entrant_openers(auto, tag, opener)]

    fresh = {}
    for tag in tags:
        auto._starts.entrants.clear()
        fresh[tag] = readers(tag)
    assert fresh["<tool_calls>"] and fresh["<tool_call>"] and fresh["<function=f>"]
    assert fresh["<tool_calls>"] != fresh["<tool_call>"]
    for tag in tags + tags[::-1]:
        assert readers(tag) == fresh[tag], tag
    assert set(auto._starts.entrants) >= {"<t", "<f", "<s", "<|", "[T"}


@pytest.mark.parametrize("text", [
    "]<｜tool▁calls▁begin｜>",        # MiniMax-M3's `]<` then DeepSeek V3's `<｜`
    "f<function_call>{",              # Phi-4-mini's `f` then Granite's `<f`
    "[<tool_call>",                   # Mistral's `[` then a tag
])
def test_a_block_start_right_after_another_start_character_is_found(text: str) -> None:
    # Where a start character that opens nothing (`]` before `<`) is followed by one
    # that does, each cut of the text reads the same: the second is not skipped.
    whole = events([text], "auto")
    assert whole[-1].get("failure") == "truncated", whole
    for cut in range(1, len(text)):
        assert events([text[:cut], text[cut:]], "auto") == whole, cut


def test_auto_keeps_prose_on_the_plain_path() -> None:
    # Prose under auto (start characters `<`, `[`, `]`, `f`): a chunk whose start
    # characters no opener goes on from (`of`, `[a`, `a]`) goes out at once; one
    # that ends where a block start may be arriving (`... f`) waits for the next.
    parser = toolparse.StreamParser("auto")
    parser.feed("Hello. ")
    for chunk in ("of the", " [a] b", "c > d"):
        (event,) = parser.feed(chunk)
        assert event.text == chunk
    assert parser.feed("tail f") == [Text("tail ", raw="tail ")]
    assert [e.text for e in parser.feed("ull") + parser.close()] == ["full"]


def test_gemma4_and_granite_openers_have_an_automaton() -> None:
    # A call tag that ends in a lookahead for `{` (SPEC 5.3) is stepped while it arrives
    # with the `{` read as a character, not re-matched at every chunk.
    from toolparse._syntax.regexp import lookahead_consumed

    assert lookahead_consumed(r"<f>call:(?P<n>\w+)(?=\{)") == r"<f>call:(?P<n>\w+)(?:\{)"
    for unchanged in (r"a(?!b)", r"a(?=b)|c", r"a[(?=]", r"a\(?=b\)", r"(?=a)b"):
        assert lookahead_consumed(unchanged) == unchanged
    for dialect in ("gemma4", "granite", "auto"):
        dfa = toolparse.StreamParser(dialect)._engine._scanner.starts.dfa
        assert dfa is not None, dialect
    text = "<|tool_call>call:get_weather{city:<|\"|>Paris<|\"|>}<tool_call|>"
    whole = toolparse.parse(text, "gemma4").calls
    assert [c.name for c in whole] == ["get_weather"]
    for cut in range(1, len(text)):
        parser = toolparse.StreamParser("gemma4")
        got = parser.feed(text[:cut]) + parser.feed(text[cut:]) + parser.close()
        assert [c.name for e in got if isinstance(e, ToolCallBlock) for c in e.calls] == \
            ["get_weather"], cut
