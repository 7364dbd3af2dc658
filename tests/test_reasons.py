"""Reasons in words (`toolparse._reasons`, SPEC 9 item 5): a failed block or a rejected
call said in the model's own terms, with every tag spelled by the grammar."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import toolparse
from toolparse import Dialect
from conftest import stream
from toolparse._reasons import (
    FAILURE_REASONS,
    REJECTION_REASONS,
    failure_message,
    rejection_message,
    spelling,
)

REPO = Path(__file__).resolve().parents[1]

TOOLS = [{"type": "function", "function": {"name": "read_file", "parameters": {
    "type": "object", "properties": {"path": {"type": "string"}, "limit": {"type": "integer"}},
    "required": ["path"], "additionalProperties": False}}}]

# (dialect, answer, the sentence for its first failure)
FAILURES = [
    ("qwen3_coder",
     "Let me look.\n<tool_call>\n<function=read_file>\n<parameter=path>\na.md\n</parameter>\n"
     "stray words\n</function>\n</tool_call>",
     "expected `<parameter=…>` or `</function>` before `stray` at line 7"),
    ("deepseek",
     "<tool_calls>\n<invoke name=\"a\">\n<parameter name=\"p\">1\n</invoke>\n</tool_calls>",
     "the answer ended inside the block opened with `<tool_calls>` at line 1: expected "
     "`</parameter>` or `<![CDATA[` at the end (line 5)"),
    ("deepseek", "Use <tool_calls> to wrap calls.",
     "`<tool_calls>` at line 1 starts no call: expected `<invoke/>`, `<invoke>` or `<!--` "
     "at line 1"),
    ("glm45", "<tool_call>read_file\n<arg_key>path</arg_key>\n<arg_value>a.md</arg_key>\n</tool_call>",
     "the answer ended inside the block opened with `<tool_call>` at line 1: `</arg_value>` "
     "missing at the end (line 4)"),
    ("hermes", "<tool_call>\n{\"name\": \"f\", \"arguments\": {}\n</tool_call>",
     "the call at line 3 is not one JSON object holding a name and its arguments"),
    ("hermes", "Wrap it: <tool_call>\nf(1)\n</tool_call>",
     "`<tool_call>` at line 1 starts no call: `{` missing at line 2"),
    ("kimi_k2", "<|tool_calls_section_begin|><|tool_call_begin|>functions.f:0"
                "<|tool_call_argument_begin|>{\"a\":1}<|tool_calls_section_end|>",
     "the answer ended inside the block opened with `<|tool_calls_section_begin|>` at line "
     "1: `<|tool_call_end|>` missing at the end (line 1)"),
    ("deepseek", "<tool_calls><invoke><parameter name=\"p\">1</parameter></invoke></tool_calls>",
     "`<invoke>` at line 1 has no name"),
    ("deepseek", "<tool_calls><invoke name=\"a\" name=\"b\"></invoke></tool_calls>",
     "`<invoke name=\"a\" name=\"b\">` at line 1 names an attribute twice"),
]


def first_failure(dialect: str | Dialect, answer: str, **options: object) -> toolparse.Text:
    events = [event for event in toolparse.parse(answer, dialect=dialect, **options).events
              if isinstance(event, toolparse.Text) and event.failure is not None
              and event.text.strip()]
    return events[-1] if "name=\"b\"" in answer or "<invoke>" in answer else events[0]


@pytest.mark.parametrize(("dialect", "answer", "sentence"), FAILURES,
                         ids=[f"{case[0]}-{n}" for n, case in enumerate(FAILURES)])
def test_a_failed_block_is_said_in_the_models_terms(dialect: str, answer: str,
                                                    sentence: str) -> None:
    event = first_failure(dialect, answer)
    assert event.failure is not None
    start_line = answer.count("\n", 0, event.failure.start) + 1
    message = failure_message(event.failure, event.text, dialect, first_line=start_line)
    assert message == sentence
    names = set(Dialect.bundled(dialect)._grammars[0].terminals)
    assert not names & set(re.findall(r"\w+", re.sub(r"`[^`]*`", "", message))), \
        "a terminal name leaked"


def test_a_mention_quotes_what_failed_it_when_the_text_goes_on() -> None:
    # The failed text of a mention ends where the failing token starts; given the text
    # that follows too, the sentence quotes that token.
    answer = "Wrap it: <tool_call>\nf(1)\n</tool_call>"
    event = first_failure("hermes", answer)
    assert event.failure is not None
    following = answer[event.failure.start:]
    assert failure_message(event.failure, following, "hermes") == \
        "`<tool_call>` at line 1 starts no call: `{` missing before `f(1)` at line 2"


def test_the_line_is_the_answers_line() -> None:
    answer = "one\ntwo\nthree\n<tool_call>\n<function=f>\n<parameter=a>\n1\n</parameter>\nx\n" \
             "</function>\n</tool_call>"
    event = first_failure("qwen3_coder", answer)
    assert event.failure is not None
    assert failure_message(event.failure, event.text, "qwen3_coder").endswith("at line 6")
    assert failure_message(event.failure, event.text, "qwen3_coder", first_line=4) \
        .endswith("at line 9")


def test_a_block_past_the_capture_limit() -> None:
    answer = "<tool_calls>\n<invoke name=\"a\">\n<parameter name=\"q\">\n" + "x" * 3000
    event = first_failure("deepseek", answer, max_capture=1000)
    assert event.failure is not None and event.failure.reason == "max_capture"
    assert failure_message(event.failure, event.text, "deepseek") == (
        "the block opened with `<tool_calls>` at line 1 was still open after 1000 "
        "characters, the capture limit (expected `</parameter>` or `<![CDATA[` at line 4)")


def test_under_auto_the_grammar_that_read_the_block_spells_it() -> None:
    answer = "<tool_call>\n<function=f>\n<parameter=a>1</parameter>\nx</function>\n</tool_call>"
    event = first_failure("auto", answer)
    assert event.failure is not None
    assert failure_message(event.failure, event.text, "auto") == \
        "expected `<parameter=…>` or `</function>` before `x` at line 4"


def test_tags_are_spelled_by_the_grammar_file(tmp_path: Path) -> None:
    # The same failure under an edited copy of the grammar: the sentence follows the file.
    source = (REPO / "grammars" / "dialects" / "qwen3_coder.lark").read_text(encoding="utf-8")
    edited = tmp_path / "renamed.lark"
    edited.write_text(source.replace('"</function>"', '"</fn>"'), encoding="utf-8")
    dialect = Dialect.from_file(edited)
    answer = "<tool_call>\n<function=f>\n<parameter=a>\n1\n</parameter>\nx\n</fn>\n</tool_call>"
    event = first_failure(dialect, answer)
    assert event.failure is not None
    assert failure_message(event.failure, event.text, dialect) == \
        "expected `<parameter=…>` or `</fn>` before `x` at line 6"
    assert spelling(dialect, "FUNCTION_CLOSE") == "`</fn>`"
    assert spelling("qwen3_coder", "FUNCTION_CLOSE") == "`</function>`"


def test_spellings_of_patterns() -> None:
    assert spelling("deepseek", "WRAPPER_OPEN") == "`<tool_calls>`"      # not a DSML alias
    assert spelling("deepseek", "PARAMETER_CLOSE") == "`</parameter>`"
    assert spelling("deepseek", "TEXT") == "text"
    assert spelling("deepseek", "WS") == "whitespace"
    assert spelling("qwen3_coder", "FUNCTION_OPEN") == "`<function=…>`"
    assert spelling("kimi_k2", "CALL_OPEN") == \
        "`<|tool_call_begin|>…:0<|tool_call_argument_begin|>`"
    assert spelling("deepseek", "NO_SUCH_TERMINAL") == "NO_SUCH_TERMINAL"


def test_every_failure_code_of_the_engine_has_its_sentence() -> None:
    # The codes the engine gives, read from its source: a new one must get a sentence.
    sources = [REPO / "toolparse" / "_dialect" / "build.py",
               REPO / "toolparse" / "_stream" / "capture.py",
               *sorted((REPO / "toolparse" / "_dialect" / "syntaxes").glob("*.py"))]
    codes = set()
    for source in sources:
        text = source.read_text(encoding="utf-8")
        codes |= set(re.findall(r'BlockRejected\("([a-z_]+)"', text))
        codes |= set(re.findall(r'_failed\("([a-z_]+)"', text))
        codes |= set(re.findall(r'"([a-z_]+)" if pos >= limit else "([a-z_]+)"', text)[0]
                     if "pos >= limit" in text else ())
    codes.add("unexpected_token")
    assert codes and codes <= set(FAILURE_REASONS)
    failure = toolparse.BlockFailure("x", 0, 12, 12, ())
    generic = failure_message(failure, "<tool_calls>", "deepseek")
    for code in FAILURE_REASONS:
        sentence = failure_message(toolparse.BlockFailure(code, 0, 12, 12, ()),
                                   "<tool_calls>", "deepseek")
        assert f"({code})" not in sentence and sentence != generic, code


def test_every_reason_has_a_sentence_in_the_semantics_page() -> None:
    page = (REPO / "docs" / "semantics.md").read_text(encoding="utf-8")
    section = page[page.index("## Reasons in words"):]
    section = section[:section.index("\n## ", 5)] if "\n## " in section[5:] else section
    for code in (*FAILURE_REASONS, *REJECTION_REASONS):
        assert f"| `{code}` |" in section, code


def test_a_rejected_call_is_said_with_its_tool_and_schema_errors() -> None:
    answer = ('<tool_calls>\n<invoke name="read_file"><parameter name="limit">x</parameter>'
              '</invoke>\n<invoke name="rm"></invoke></tool_calls>')
    first, second = toolparse.parse(answer, tools=TOOLS).calls
    assert rejection_message(first, line=2) == (
        "the arguments of `read_file` at line 2 leave out a required property: /limit must "
        "be integer; /path missing required property 'path'")
    assert rejection_message(second) == "`rm` is not one of the request's tools"
    assert "x" not in rejection_message(first).replace("exactly", "")   # never a value


def test_every_rejection_code_has_its_sentence() -> None:
    from toolparse._calls.repair.base import Reason
    from typing import get_args

    assert set(get_args(Reason)) == set(REJECTION_REASONS)
    from toolparse._calls.repair import RepairOutcome

    sentences = set()
    for code in REJECTION_REASONS:
        outcome = RepairOutcome(status="rejected", arguments=None, text=None,
                                reason=code)  # type: ignore[arg-type]
        call = toolparse.ToolCall("f", {}, status="rejected", repair=outcome)
        sentence = rejection_message(call)
        assert f"({code})" not in sentence
        sentences.add(sentence)
    assert len(sentences) == len(REJECTION_REASONS)


def test_the_events_carry_their_reasons_in_words() -> None:
    # Issue 44, item 5: `reason` stays the code, and the event says it in words too.
    text = ('Use <tool_calls> to wrap. <tool_calls>\n<invoke name="a">\n'
            '<parameter name="x">1</parameter>\noops\n</invoke></tool_calls>')
    mention, broken = toolparse.parse(text).failures
    assert mention.message.startswith("`<tool_calls>` at line 1 starts no call")
    assert broken.reason == "unexpected_token" and "before `oops` at line 4" in broken.message
    # Not part of a failure's identity: every chunking compares equal (SPEC G2).
    streamed = [e.failure for e in stream(list(text)) if getattr(e, "failure", None)]
    assert streamed == [mention, broken] and streamed[1].message == broken.message
    tools = [{"name": "a", "parameters": {"type": "object", "properties": {
        "x": {"type": "integer"}}, "required": ["x"], "additionalProperties": False}}]
    (bad,) = toolparse.parse('<tool_calls><invoke name="b"/></tool_calls>', tools=tools).calls
    assert bad.reason == "unknown_tool" and bad.message == "`b` is not one of the request's tools"
    (good,) = toolparse.parse('<tool_calls><invoke name="a"><parameter name="x">1</parameter>'
                              '</invoke></tool_calls>', tools=tools).calls
    assert good.accepted and good.message is None
    assert toolparse.BlockFailure("truncated", 0, 5, 5).message == "the block failed (truncated)"
