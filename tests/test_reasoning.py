"""Reasoning regions (SPEC 11, G3b): thinking comes out apart from the answer, and no
call ever comes from inside it, for every bundled dialect and format, under every
chunking."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import toolparse
from toolparse import Reasoning, Text, ToolCallBlock
from conftest import all_chunkings, joined, shape, stream
from test_auto import SHARED_TAGS
from test_properties import FRAGMENTS, cuts, split_at_fractions

CHANNELS = [name for name in toolparse.reasoning_formats()
            if toolparse.ReasoningFormat.bundled(name).channels]
"""Channels formats (harmony): their regions open through a dialect's message headers,
and their markers are patterns, not literals: tests/test_harmony.py renders them with
the vendor's own library."""
FORMATS = [name for name in toolparse.reasoning_formats() if name not in CHANNELS]


def markers(name: str) -> tuple[str, str]:
    """A format's opener and closer, as its grammar file spells them (read back through
    the format, so that no marker is written in the tests either)."""
    fmt = toolparse.ReasoningFormat.bundled(name)
    return fmt.spelled("OPEN"), fmt.spelled("CLOSE")


# One real call per dialect, in its own markup (a corpus case's block), one that is a
# block after text too (not an anchored opener's, SPEC 5.3 b: those count at the start).
def _one_block(dialect: str) -> str:
    for case in toolparse.corpus.find_cases():
        if case.dialect == dialect and not case.tools:
            for event in toolparse.parse(case.text, dialect, reasoning=None).events:
                if (isinstance(event, ToolCallBlock) and event.accepted
                        and toolparse.parse("Text.\n" + event.raw, dialect).calls):
                    return event.raw
    raise AssertionError(f"no corpus block for {dialect}")


BLOCKS = {dialect: _one_block(dialect) for dialect in toolparse.dialects()}
DEFAULTS = {dialect: toolparse.Dialect.bundled(dialect).reasoning
            for dialect in toolparse.dialects()}
THINKING = [d for d in toolparse.dialects() if DEFAULTS[d] not in (None, *CHANNELS)]


def calls(text: str, **options: Any) -> list[str]:
    return [call.name for call in toolparse.parse(text, **options).calls]


def test_every_bundled_format_is_listed_and_every_dialect_declares_its_default() -> None:
    assert set(FORMATS) >= {"think", "seed_think", "mistral_think", "mm_think", "kimi_think",
                            "command", "apertus", "gemma4"}
    assert CHANNELS == ["harmony", "kimi_k3"] and DEFAULTS["gpt_oss"] == "harmony"
    assert DEFAULTS["kimi_k3"] == "kimi_k3"
    assert DEFAULTS["anthropic"] is None
    assert all(DEFAULTS[d] == "think" for d in
               ("deepseek", "qwen3_coder", "glm45", "minimax_m2", "hermes", "kimi_k2"))
    assert toolparse.Dialect.bundled("auto").reasoning == "auto"


@pytest.mark.parametrize("dialect", THINKING)
def test_a_call_quoted_in_thinking_never_runs_and_the_real_one_does(
        dialect: str, check_chunkings: Any) -> None:
    # The case, in every dialect: the model quotes the format while it thinks,
    # then answers with a real call.
    opener, closer = markers(DEFAULTS[dialect])
    block = BLOCKS[dialect]
    text = f"{opener}The format is {block}, but first I should ask.{closer}\n\nDoing it.\n{block}\n"
    got = check_chunkings(text, dialect=dialect)
    assert got[0] == ("reasoning", f"The format is {block}, but first I should ask.",
                      f"{opener}The format is {block}, but first I should ask.{closer}")
    assert [kind for kind, *_ in got] == ["reasoning", "text", "block", "text"]
    result = toolparse.parse(text, dialect)
    assert len(result.calls) == len(toolparse.parse(block, dialect).calls)
    assert all(call.start > text.index(closer) for call in result.calls)
    assert result.text == "\n\nDoing it.\n\n" and block not in result.reasoning[-1:]


@pytest.mark.parametrize("dialect", [*toolparse.dialects(), "auto"])
@pytest.mark.parametrize("fmt", FORMATS)
def test_no_call_from_any_region_whatever_the_format(dialect: str, fmt: str) -> None:
    # G3b for every pair: the region is the format's, named explicitly.
    opener, closer = markers(fmt)
    quoted = "\n".join(BLOCKS.values())
    text = f"{opener}{quoted}{closer}"
    for label, chunks in all_chunkings(text):
        events = stream(chunks, dialect=dialect, reasoning=fmt)
        assert joined(events) == text, label
        assert not any(isinstance(e, ToolCallBlock) for e in events), label
        assert shape(events) == [("reasoning", quoted, text)], label


@pytest.mark.parametrize("fmt", FORMATS)
def test_auto_recognises_every_bundled_opener_at_the_start(fmt: str) -> None:
    opener, closer = markers(fmt)
    block = BLOCKS["hermes"]
    result = toolparse.parse(f"\n {opener}x{block}{closer}{block}", "auto")
    assert result.reasoning == f"x{block}" and len(result.calls) == 1


def test_a_region_opens_only_at_the_start() -> None:
    block = BLOCKS["deepseek"]
    for text in (f"Wrap it in <think>{block}</think>", f"```\n<think>\n```\n{block}",
                 f"x\n<think>{block}</think>"):
        result = toolparse.parse(text)
        assert not result.reasoning and isinstance(result.events[0], Text), text


def test_a_closer_with_no_opener_is_text_unless_the_stream_starts_inside() -> None:
    text = f"thinking {BLOCKS['deepseek']}</think>Answer."
    plain = toolparse.parse(text)
    assert not plain.reasoning and len(plain.calls) == 1
    inside = toolparse.parse(text, in_reasoning=True)
    assert inside.calls == () and inside.text == "Answer."
    assert inside.reasoning == f"thinking {BLOCKS['deepseek']}"


def test_a_region_that_never_closes_is_reasoning_not_a_failure() -> None:
    text = f"<think>still thinking {BLOCKS['deepseek']}"
    result = toolparse.parse(text)
    assert result.events == (Reasoning(text[len("<think>"):], text),)
    assert not result.failures and not result.truncated


def test_nested_openers_end_at_the_first_closer() -> None:
    result = toolparse.parse("<think>a<think>b</think>c</think>d")
    assert result.reasoning == "a<think>b" and result.text == "c</think>d"


def test_the_answer_after_a_region_is_a_fresh_markdown_document() -> None:
    # A fence or a backtick opened in the thinking opens no code in the answer.
    block = BLOCKS["deepseek"]
    for thinking in ("```\nunclosed fence", "`unmatched", "    indented", "~~~"):
        result = toolparse.parse(f"<think>{thinking}</think>\n{block}")
        assert len(result.calls) == 1, thinking


def test_kimi_tool_section_ends_the_region() -> None:
    # SPEC G3b's exception: Kimi-K2.5 opens its section before it closes its thinking.
    block = ("<|tool_calls_section_begin|><|tool_call_begin|>functions.read:0"
             '<|tool_call_argument_begin|>{"path": "a"}<|tool_call_end|><|tool_calls_section_end|>')
    text = f"<think>I will call it now.{block}"
    for label, chunks in all_chunkings(text):
        events = stream(chunks, dialect="kimi_k2")
        assert shape(events) == [
            ("reasoning", "I will call it now.", "<think>I will call it now."),
            ("block", block, [(c.name, c.arguments) for c in
                              toolparse.parse(block, "kimi_k2").calls])], label
    # Only the section opener ends it: a quoted call tag does not.
    assert calls("<think>x<|tool_call_begin|>functions.f:0<|tool_call_argument_begin|>{}"
                 "<|tool_call_end|></think>", dialect="kimi_k2") == []


def test_markers_split_anywhere_and_whitespace_before_the_opener() -> None:
    # The whitespace is text, out at once (G5), but not Markdown: the answer after the
    # region is a fresh document.
    text = " \n\t<seed:think>a</seed:think>b"
    for label, chunks in all_chunkings(text):
        events = stream(chunks, dialect="qwen3_coder", reasoning="seed_think")
        assert shape(events) == [("text", " \n\t"),
                                 ("reasoning", "a", "<seed:think>a</seed:think>"),
                                 ("text", "b")], label
    parser = toolparse.StreamParser()
    assert parser.feed(" \n") == [Text(" \n")]
    block = '<tool_calls><invoke name="a"/></tool_calls>'
    assert len(toolparse.parse(f"    <think>x</think>{block}").calls) == 1
    assert toolparse.parse(f"    {block}").calls == ()  # no region: indented code


def test_gemma_label_belongs_to_the_markers() -> None:
    opener, closer = markers("gemma4")
    for body, text in ((f"{opener}thought\nplan{closer}", "plan"),
                       (f"{opener}plan{closer}", "plan"), (f"{opener}thou{closer}", "thou")):
        assert toolparse.parse(body, reasoning="gemma4").reasoning == text, body


def test_whitespace_before_an_opener_is_bounded() -> None:
    text = " " * 1025 + "<think>x</think>"
    assert not toolparse.parse(text).reasoning
    assert toolparse.parse(" " * 1024 + "<think>x</think>").reasoning == "x"


def test_regions_off_and_bad_options() -> None:
    text = f"<think>{BLOCKS['deepseek']}</think>"
    assert len(toolparse.parse(text, reasoning=None).calls) == 1
    with pytest.raises(toolparse.UnknownDialectError, match="think, seed_think|seed_think"):
        toolparse.StreamParser(reasoning="thinking")
    with pytest.raises(toolparse.ConfigTypeError, match="reasoning"):
        toolparse.StreamParser(reasoning=3)  # type: ignore[arg-type]
    with pytest.raises(toolparse.ConfigError, match="in_reasoning"):
        toolparse.StreamParser("anthropic", in_reasoning=True)
    with pytest.raises(toolparse.ConfigTypeError, match="in_reasoning"):
        toolparse.StreamParser(in_reasoning="yes")  # type: ignore[arg-type]


def test_reasoning_streams_as_it_arrives() -> None:
    # G5: each feed gives out the thinking so far, less what may be the closer.
    parser = toolparse.StreamParser()
    parser.feed("<think>")
    assert parser.feed("abc") == [Reasoning("abc", "abc")]
    assert parser.feed("de</thi") == [Reasoning("de", "de")]
    assert parser.feed("nk>f") == [Reasoning("", "</think>"), Text("f")]


def test_a_megabyte_of_thinking_streams_in_bounded_pieces() -> None:
    parser = toolparse.StreamParser()
    out = parser.feed("<think>")
    piece = "thinking <tool_calls> `x` " * 40
    for _ in range(1000):
        got = parser.feed(piece)
        assert len(got) == 1 and got[0].text == piece
        out += got
    out += parser.feed("</think>done") + parser.close()
    assert joined(out) == "<think>" + piece * 1000 + "</think>done"


# ---- properties ------------------------------------------------------------------------

FORMAT_MARKERS = [marker for fmt in FORMATS for marker in markers(fmt)]
inside = st.lists(st.sampled_from(SHARED_TAGS + FRAGMENTS + FORMAT_MARKERS
                                  + list(BLOCKS.values())), max_size=20).map("".join)


@settings(max_examples=300, deadline=None)
@given(st.sampled_from([*toolparse.dialects(), "auto"]), st.sampled_from(FORMATS), inside,
       inside, cuts)
def test_g3b_no_call_starts_inside_a_region(dialect: str, fmt: str, thinking: str,
                                            answer: str, points: list[float]) -> None:
    opener, closer = markers(fmt)
    text = f"{opener}{thinking}{closer}{answer}"
    whole = toolparse.parse(text, dialect, reasoning=fmt)
    region = len(opener) + len(thinking.split(closer)[0]) + len(closer)
    if closer not in thinking:  # otherwise the region ends earlier, inside `thinking`
        assert whole.reasoning == thinking
    assert all(call.start >= region for call in whole.calls)
    events = stream(split_at_fractions(text, points), dialect=dialect, reasoning=fmt)
    assert joined(events) == text
    assert shape(events) == shape(whole.events)


@settings(max_examples=200, deadline=None)
@given(st.sampled_from([*toolparse.dialects(), "auto"]), inside, inside, cuts)
def test_g3b_in_reasoning_and_unclosed(dialect: str, thinking: str, answer: str,
                                       points: list[float]) -> None:
    # The stream starts inside the region; it may never close.
    reasoning = "think" if DEFAULTS.get(dialect, "auto") is None else "auto"
    text = thinking + answer
    whole = toolparse.parse(text, dialect, reasoning=reasoning, in_reasoning=True)
    first_close = min((text.find(m) for m in FORMAT_MARKERS if text.find(m) >= 0),
                      default=len(text))
    assert all(call.start >= first_close for call in whole.calls)
    events = stream(split_at_fractions(text, points), dialect=dialect, reasoning=reasoning,
                    in_reasoning=True)
    assert joined(events) == text and shape(events) == shape(whole.events)
