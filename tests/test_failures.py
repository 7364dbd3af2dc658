"""Failure (SPEC 3.2, G4): a failed block says it failed, and nothing of it runs.

Each rule of SPEC 3.2 has a positive and a negative case; the issue's repros are here
with their exact text; a property checks that no call of a broken block ever comes out,
under any chunking.
"""

from __future__ import annotations

import copy
import logging
import pickle
from typing import Any

import pytest
from hypothesis import given, strategies as st

import toolparse
from conftest import failures, joined, merge, random_chunks, shape, split_at, stream

CALL_A = '<invoke name="a"><parameter name="p">1</parameter></invoke>'
CALL_RM = '<invoke name="run"><parameter name="command">rm -rf build</parameter></invoke>'


def only_failure(text: str, **options: object) -> toolparse.BlockFailure:
    (failure,) = toolparse.parse(text, **options).failures  # type: ignore[arg-type]
    return failure


# ---- the repros -------------------------------------------------------------------

def test_a_broken_middle_invoke_runs_nothing_of_its_block(check_chunkings) -> None:
    # Before: the first two invokes came out as text and the third (`rm -rf build`) as a
    # one-call block, through the missing-opening-wrapper form.
    block = ('<tool_calls>' + CALL_A
             + '<invoke name="b"><parameter name="x">1</parameter>stray text</invoke>'
             + CALL_RM + '</tool_calls>')
    text = "Running the steps.\n" + block + "\nDone."
    assert check_chunkings(text) == [("text", "Running the steps.\n"),
                                     ("failed", block, "unexpected_token"), ("text", "\nDone.")]
    failure = only_failure(text)
    assert (failure.start, failure.end) == (19, 19 + len(block))
    assert text[failure.at:].startswith("stray text")
    assert toolparse.parse(text).calls == ()


def test_a_broken_json_body_rejects_its_call_and_the_block_is_not_accepted() -> None:
    # SPEC 3.1: a JSON body never fails the block; its call is rejected, so a gateway
    # that runs only accepted blocks runs none of it.
    text = ('<tool_calls>' + CALL_A + '<invoke name="b">{"command": "pytest -q",}</invoke>'
            + CALL_RM + '</tool_calls>')
    result = toolparse.parse(text)
    (block,) = [e for e in result.events if isinstance(e, toolparse.ToolCallBlock)]
    assert [c.status for c in block.calls] == ["unchecked", "rejected", "unchecked"]
    assert not block.accepted
    assert [c.name for c in result.accepted_calls] == ["a", "run"]
    with pytest.raises(toolparse.RejectedCallError, match="rejected"):
        block.calls[1].to_openai()
    assert block.calls[0].to_openai()["function"]["name"] == "a"


def test_failures_are_visible_with_reason_offsets_and_expected() -> None:
    text = "Use <tool_calls> to wrap calls"
    (event, failed, rest) = toolparse.parse(text).events
    assert isinstance(failed, toolparse.Text) and failed.failure is not None
    assert failed.text == "<tool_calls> "
    assert failed.failure == toolparse.BlockFailure(
        "unexpected_token", 4, 17, 17, ("COMMENT_OPEN", "INVOKE_EMPTY", "INVOKE_OPEN"))
    assert event == toolparse.Text("Use ") and rest == toolparse.Text("to wrap calls")


# ---- SPEC 3.2, rule by rule ---------------------------------------------------------------

def test_prose_mention_ends_before_the_failing_token(check_chunkings) -> None:
    # Positive: no invoke tag was accepted, so scanning resumes at the failing token and
    # the inner block is found; no character is captured twice.
    text = '<tool_calls><tool_calls>' + CALL_A + '</tool_calls>'
    assert check_chunkings(text) == [("failed", "<tool_calls>", "unexpected_token"),
                                     ("block", text[12:], [("a", {"p": 1})])]


def test_broken_calls_run_on_past_the_failing_token(check_chunkings) -> None:
    # Negative of the above: an invoke tag was accepted, so the failure does not end at
    # the failing token, and the missing-wrapper form cannot start inside the span.
    text = '<tool_calls>' + CALL_A + ' oops ' + CALL_RM + '</tool_calls> after'
    assert check_chunkings(text) == [("failed", text[:-len(" after")], "unexpected_token"),
                                     ("text", " after")]


def test_a_wrapper_close_ends_the_failed_span_and_is_in_it(check_chunkings) -> None:
    text = '<invoke name="a"/> broken </tool_calls>' + CALL_RM + "</tool_calls>"
    span = '<invoke name="a"/> broken </tool_calls>'
    assert check_chunkings(text) == [("failed", span, "unexpected_token"),
                                     ("block", CALL_RM + "</tool_calls>", [("run", {"command": "rm -rf build"})])]


def test_a_wrapper_close_inside_cdata_does_not_end_the_span(check_chunkings) -> None:
    # The span's CDATA section (opened after the failure) hides the close in it.
    inner = '<![CDATA[ example </tool_calls> ' + CALL_RM + ' ]]>'
    text = '<tool_calls>' + CALL_A + ' broken ' + inner + ' </tool_calls> tail'
    assert check_chunkings(text) == [("failed", text[:-len(" tail")], "unexpected_token"),
                                     ("text", " tail")]


def test_a_new_wrapper_open_ends_the_span_and_starts_a_fresh_block(check_chunkings) -> None:
    text = '<tool_calls>' + CALL_A + ' broken <tool_calls>' + CALL_RM + '</tool_calls>'
    assert check_chunkings(text) == [
        ("failed", '<tool_calls>' + CALL_A + ' broken ', "unexpected_token"),
        ("block", '<tool_calls>' + CALL_RM + '</tool_calls>', [("run", {"command": "rm -rf build"})])]


def test_an_invoke_tag_inside_the_span_starts_nothing(check_chunkings) -> None:
    # Negative of the above: only a wrapper open starts a fresh block.
    text = CALL_A + ' broken ' + CALL_RM + '\n</tool_calls>'
    assert check_chunkings(text) == [("failed", text, "unexpected_token")]


def test_truncation_fails_the_open_block(check_chunkings) -> None:
    text = "Reading.\n<tool_calls>" + CALL_A
    assert check_chunkings(text) == [("text", "Reading.\n"),
                                     ("failed", text[len("Reading.\n"):], "truncated")]
    result = toolparse.parse(text)
    assert result.truncated and result.failures[0].at == len(text)
    # Negative: a stream that ends after its block closed is not truncated.
    complete = toolparse.parse(text + "</tool_calls>")
    assert not complete.truncated and not complete.failures


def test_max_capture_cuts_a_prose_mention_there() -> None:
    text = "<tool_calls>" + " " * 200 + "then prose"
    for chunks in ([text], random_chunks(text, 3, 1, 7)):
        events = stream(chunks, max_capture=100)
        assert shape(events) == [("failed", text[:100], "max_capture"), ("text", text[100:])]
        (failure,) = failures(events)
        assert (failure.start, failure.end, failure.at) == (0, 100, 100)


def test_max_capture_after_a_call_started_streams_the_rest_of_the_span() -> None:
    value = "v" * 300
    block = '<tool_calls><invoke name="a"><parameter name="p">' + value + '</parameter></invoke></tool_calls>'
    text = block + " after"
    parser = toolparse.StreamParser(max_capture=100)
    first = parser.feed(text[:150])
    # The first max_capture characters go out at once, failed ...
    assert [e.text for e in first] == [text[:150]]  # type: ignore[union-attr]
    assert first[0].failure is not None and first[0].failure.reason == "max_capture"  # type: ignore[union-attr]
    # ... and the rest of the span as it arrives, with the same failure, to its close.
    rest = parser.feed(text[150:]) + parser.close()
    merged = merge(first + rest)
    assert [(e.text, e.failure is not None) for e in merged] == [(block, True), (" after", False)]  # type: ignore[union-attr]


def test_released_text_counts_as_markdown(check_chunkings) -> None:
    # A fence in a failed block's text opens: the block after it is code.
    text = "<tool_calls>\n```\n<tool_calls>" + CALL_A + "</tool_calls>\n"
    assert [kind for kind, *_ in check_chunkings(text)] == ["failed", "text"]


# ---- failures and Markdown code ------------------------------------------------------------

def test_a_tag_in_inline_code_that_fails_is_plain_text(check_chunkings) -> None:
    # The tag came after an unmatched backtick; the run is matched: code, no failure.
    for text in ["Write `<tool_calls>` first.", 'Use `<invoke name="x">` to call.',
                 'Use `<invoke name="x"><parameter name="p">` ok']:
        assert check_chunkings(text) == [("text", text)], text


def test_a_tag_after_a_literal_backtick_that_fails_is_a_failure(check_chunkings) -> None:
    # The backtick run is never matched (the paragraph ends): the tag was outside code.
    text = "A stray ` then <tool_calls> prose\n\nnext"
    assert check_chunkings(text) == [("text", "A stray ` then "),
                                     ("failed", "<tool_calls> ", "unexpected_token"),
                                     ("text", "prose\n\nnext")]
    broken = "A stray ` then <tool_calls>" + CALL_A + " oops" + CALL_RM + "</tool_calls> end\n\nnext"
    assert check_chunkings(broken) == [
        ("text", "A stray ` then "), ("failed", broken[15:-len(" end\n\nnext")], "unexpected_token"),
        ("text", " end\n\nnext")]


def test_a_broken_call_in_inline_code_does_not_hold_the_rest() -> None:
    # The text after the failing token waits only until the code span closes.
    parser = toolparse.StreamParser()
    assert joined(parser.feed('Use `<invoke name="x">')) == "Use `"
    out = parser.feed("` to call. And more prose")
    assert joined(out) == '<invoke name="x">` to call. And more prose'
    assert all(isinstance(e, toolparse.Text) and e.failure is None for e in out)


def test_a_waiting_block_reads_ahead_only_until_its_answer(monkeypatch: pytest.MonkeyPatch
                                                            ) -> None:
    # Whole text at once: the fork of the Markdown tracker that decides an undecided block
    # must stop reading at the answer (here the paragraph's end), not read the rest of the
    # text; with many such blocks that would be quadratic (SPEC G6).
    from toolparse._markdown import MarkdownTracker
    from toolparse._stream import undecided

    read: list[int] = []

    class Counted:
        """The fork, counting what it reads (the tracker itself may be compiled, and a
        compiled class cannot be patched)."""

        def __init__(self, fork: MarkdownTracker) -> None:
            self.fork = fork

        def feed(self, text: str) -> list[tuple[int, bool]]:
            read.append(len(text))
            return self.fork.feed(text)

        def finish(self) -> list[tuple[int, bool]]:
            return self.fork.finish()

    real_init = undecided.Undecided.__init__

    def init(self: undecided.Undecided, capture: Any, fork: MarkdownTracker | None,
             *rest: Any) -> None:
        real_init(self, capture, fork and Counted(fork), *rest)  # type: ignore[arg-type]

    monkeypatch.setattr(undecided.Undecided, "__init__", init)
    broken = 'A stray ` then <tool_calls><invoke name="x"><parameter name="a">1</parameter>oops'
    tail = "\n\n" + "Plain prose, a long way on. " * 4000
    result = toolparse.parse(broken + tail)
    assert read and sum(read) <= len(broken) + undecided.STEP
    assert "".join(e.raw
                   for e in result.events) == broken + tail
    assert len(result.failures) == 1


# ---- the property: never half-executed -----------------------------------------------------

GOOD = [CALL_A, '<invoke name="b"/>', CALL_RM,
        '<invoke name="c"><parameter name="v"><![CDATA[x < y ]]></parameter></invoke>']
BREAKS = [  # the first breaks the call's opening tag itself; the others break it later
    lambda call: call.replace("<invoke", "<invoke x") if "name=" in call else call,
    lambda call: call.replace("</invoke>", "stray</invoke>") if "</invoke>" in call else call + "stray",
    lambda call: call.replace("</invoke>", "</invok>") if "</invoke>" in call else call + "</invok>",
    lambda call: call + "<parameter",
]


@given(st.data())
def test_no_call_of_a_broken_block_ever_comes_out(data: st.DataObject) -> None:
    calls = data.draw(st.lists(st.sampled_from(GOOD), min_size=2, max_size=5))
    broken = data.draw(st.integers(min_value=0, max_value=len(calls) - 1))
    # A broken first tag is SPEC 3.2's prose mention (no call tag was accepted): the
    # invokes after it may form a missing-wrapper block. Not this property's case.
    breaker = data.draw(st.sampled_from(BREAKS[1:] if broken == 0 else BREAKS))
    calls[broken] = breaker(calls[broken])
    wrapped = data.draw(st.booleans())
    block = ("<tool_calls>" if wrapped else "") + "\n".join(calls) + "\n</tool_calls>"
    before = data.draw(st.sampled_from(["", "Doing it.\n", "x "]))
    text = before + block + data.draw(st.sampled_from(["", "\nok", " <tool_calls><invoke name=\"z\"/></tool_calls>"]))
    whole = toolparse.parse(text)
    cuts = data.draw(st.lists(st.integers(min_value=0, max_value=len(text)), max_size=30))
    for events in (whole.events, stream(split_at(text, cuts)), stream(list(text))):
        assert joined(events) == text
        start, end = len(before), len(before) + len(block)
        for event in events:
            if isinstance(event, toolparse.ToolCallBlock):
                # A block out of the broken one would overlap its span.
                assert event.end <= start or event.start >= end, (text, event.raw)
        assert shape(events) == shape(whole.events)
        assert failures(events) == list(whole.failures)
    assert whole.failures, text  # every breaker breaks its call


# ---- what a failure never contains, and how it is logged -----------------------------------

def test_each_failure_is_logged_without_content(caplog: pytest.LogCaptureFixture) -> None:
    secret = "s3cr3t-value"
    text = f'<tool_calls><invoke name="a"><parameter name="p">{secret}</parameter>junk</invoke></tool_calls>'
    with caplog.at_level(logging.DEBUG, logger="toolparse.stream"):
        result = toolparse.parse(text)
    (failure,) = result.failures
    records = [r for r in caplog.records if r.name == "toolparse.stream"]
    assert len(records) == 1
    message = records[0].getMessage()
    assert "reason=unexpected_token" in message and f"at={failure.at}" in message
    assert secret not in message and "junk" not in message


def test_a_failed_text_never_merges_with_plain_text() -> None:
    parser = toolparse.StreamParser()
    events = parser.feed("Use <tool_calls> to") + parser.close()
    kinds = [(e.text, e.failure is not None) for e in events]  # type: ignore[union-attr]
    assert kinds == [("Use ", False), ("<tool_calls> ", True), ("to", False)]


# ---- content never raises (G8) --------------------------------------------------------------

def test_a_huge_character_reference_stays_as_written(check_chunkings) -> None:
    reference = "&#" + "1" * 4301 + ";"
    text = f'<tool_calls><invoke name="a"><parameter name="p">x{reference}y</parameter></invoke></tool_calls>'
    assert check_chunkings(text) == [("block", text, [("a", {"p": f"x{reference}y"})])]
    # The longest references a code point can need still decode.
    assert toolparse.parse(text.replace(reference, "&#1114111;&#x10FFFF;&#0065;")).calls[0].arguments == {
        "p": "x\U0010ffff\U0010ffffAy"}
    assert toolparse.parse(text.replace(reference, "&#00000065;")).calls[0].arguments == {"p": "x&#00000065;y"}


def test_a_value_of_many_lt_is_one_value() -> None:
    value = "xxxxxxx<" * 5000
    text = f'<tool_calls><invoke name="a"><parameter name="p">{value}</parameter></invoke></tool_calls>'
    for chunks in ([text], random_chunks(text, 5, 1, 9)):
        (block,) = [e for e in stream(chunks) if isinstance(e, toolparse.ToolCallBlock)]
        assert block.calls[0].arguments == {"p": value}


# ---- misuse is a ToolparseError -------------------------------------------------------------

def test_a_parser_cannot_be_copied_or_pickled() -> None:
    parser = toolparse.StreamParser()
    parser.feed("<tool_calls><invoke name=")
    for attempt in (copy.copy, copy.deepcopy, pickle.dumps):
        with pytest.raises(toolparse.ParserCopyError, match="cannot be"):
            attempt(parser)
    # The parser is untouched by the refusals.
    assert [type(e).__name__ for e in parser.feed('"a"/></tool_calls>')] == ["ToolCallBlock"]


def test_a_binary_grammar_file_is_a_grammar_error(tmp_path) -> None:
    path = tmp_path / "binary.lark"
    path.write_bytes(b"\x00\xff\xfe not text")
    with pytest.raises(toolparse.GrammarError, match="not UTF-8"):
        toolparse.Dialect.from_file(path)


def test_a_block_opened_by_a_replayed_text_at_the_end_is_closed_too(check_chunkings) -> None:
    # Found by hypothesis: the waiting text of an undecided block ends in a wrapper
    # open, which the end of the stream replays; that block must fail as truncated.
    text = '`<invoke name="a"><tool_calls>'
    assert check_chunkings(text) == [("text", "`"),
                                     ("failed", '<invoke name="a">', "unexpected_token"),
                                     ("failed", "<tool_calls>", "truncated")]


# ---- waiting blocks of one paragraph share one read-ahead (SPEC G6) ------------------------

FAILING = ' <tool_calls><invoke name="x"><parameter name="a">1</parameter>oops'
SHARE_PIECES = ["A stray ` here", " text ", "`", "``", FAILING, "then" + FAILING,
                "then" + FAILING, CALL_A, "then " + CALL_A,
                "\n", "\n\n", "[a](", ")", "<b ", ">", " [l] ", "\n[l]: /u\n", "> ", "- ",
                "    ", "```\n"]


def events_with(share: bool, monkeypatch: pytest.MonkeyPatch, chunks: list[str]
                ) -> tuple[list[toolparse.Event], int]:
    """The merged events of `chunks`, with answers shared or not; and how many forks
    read ahead."""
    from toolparse._stream import undecided

    forks = 0
    real_init = undecided.Undecided.__init__

    def init(self: undecided.Undecided, capture: Any, fork: Any, *rest: Any) -> None:
        nonlocal forks
        forks += fork is not None
        real_init(self, capture, fork, *rest)

    with monkeypatch.context() as patch:
        patch.setattr(undecided, "SHARE_ANSWERS", share)
        patch.setattr(undecided.Undecided, "__init__", init)
        return merge(stream(chunks)), forks


@given(st.data())
def test_sharing_an_answer_changes_no_event(data: st.DataObject) -> None:
    pieces = data.draw(st.lists(st.sampled_from(SHARE_PIECES), min_size=1, max_size=25))
    text = "".join(pieces)
    cuts = data.draw(st.lists(st.integers(min_value=0, max_value=len(text)), max_size=20))
    with pytest.MonkeyPatch.context() as monkeypatch:
        for chunks in (split_at(text, cuts), [text]):
            shared, _ = events_with(True, monkeypatch, chunks)
            forked, _ = events_with(False, monkeypatch, chunks)
            assert shared == forked, text
            assert joined(shared) == text


def test_failing_blocks_of_one_paragraph_fork_once(monkeypatch: pytest.MonkeyPatch) -> None:
    # Each block fails after a stray backtick: only the paragraph's end decides them
    # all. One fork reads ahead to it; the others take its answer (before, each read
    # the rest of the paragraph again: quadratic).
    text = "A stray ` here\n" + ("then" + FAILING + "\n") * 40 + "\nend `x`\n"
    for chunks in ([text], [text[i:i + 7] for i in range(0, len(text), 7)]):
        shared, forks = events_with(True, monkeypatch, chunks)
        forked, all_forks = events_with(False, monkeypatch, chunks)
        assert shared == forked
        assert len(failures(shared)) == 40
        assert (forks, all_forks) == (1, 40)
