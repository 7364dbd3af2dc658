"""Every corpus case of every dialect through toolparse's vLLM parsers, as vLLM calls
them (SPEC G2, 7; docs/vllm.md): the non-streaming path (`Parser.parse`, then vLLM's
message assembly) and the stream through vLLM's own `ChatStreamProcessor`, whole and in
1- and 4-character deltas. What a client then holds must be what `toolparse.parse`
says: its text and the raw text of blocks not accepted as content, its calls, its
reasoning.

Two compositions per case, as `vllm serve` builds them:
- `alone`: the dialect's tool parser and no reasoning parser (vLLM then sets
  `skip_reasoning_parsing`): a region is content, its raw text, and no call comes from
  inside it. Cases whose prompt opened a region are left out: without a reasoning
  parser, vLLM tells no parser how the prompt ended.
- `reasoning`: the tool parser with the reasoning parser of the case's format (the
  dialect's own where the case names none; `toolparse`, every format, for `auto`).

Skipped where vLLM is not installed, unless TOOLPARSE_REQUIRE_VLLM is set (CI).
"""

from __future__ import annotations

import os
from typing import Any

import pytest

if os.environ.get("TOOLPARSE_REQUIRE_VLLM"):
    import vllm  # noqa: F401  (TOOLPARSE_REQUIRE_VLLM is set: a missing vLLM fails here)
else:
    pytest.importorskip("vllm")

import toolparse  # noqa: E402
import toolparse.vllm_plugin  # noqa: E402, F401  (registers the parsers)
import vllm_harness as h  # noqa: E402
from toolparse import corpus  # noqa: E402
from toolparse.vllm_plugin._reasoning import marker_formats  # noqa: E402

CASES = corpus.find_cases()
SETUPS = ("alone", "reasoning")


def _reasoning_parser(case: corpus.Case) -> str | None:
    """The reasoning parser the case is read with (None: its dialect reads no regions)."""
    if case.reasoning not in (None, "auto"):
        return f"toolparse_{case.reasoning}"
    if case.reasoning is None:
        return None
    default = toolparse.Dialect.bundled(case.dialect).reasoning
    if default is None or default not in (*marker_formats(), "auto"):
        return None   # (harmony: its dialect's tool parser reads it; docs/vllm.md)
    return "toolparse" if default == "auto" else f"toolparse_{default}"


def _params() -> list[Any]:
    params = []
    for case in CASES:
        for setup in SETUPS:
            if setup == "alone" and case.in_reasoning:
                continue
            if setup == "reasoning" and _reasoning_parser(case) is None:
                continue
            params.append(pytest.param(case, setup, id=f"{setup}:{case.id}"))
    return params


def _whole_view(want: h.Reply) -> tuple[str, str, list[tuple[str, str]]]:
    """What vLLM's non-streaming path makes of `want`: it drops content that is only
    whitespace when there are calls (`Parser._extract_tool_calls`; not the plugin's
    to change, and the one place vLLM loses text the stream keeps)."""
    content, reasoning, calls = want.view()
    return ("" if calls and not content.strip() else content), reasoning, calls


def _tool_parser(dialect: str) -> str:
    return "toolparse" if dialect == "auto" else f"toolparse_{dialect}"


@pytest.mark.parametrize("case, setup", _params())
def test_the_case_agrees_with_parse_whole_and_in_deltas(case: corpus.Case, setup: str) -> None:
    reasoning_parser = _reasoning_parser(case) if setup == "reasoning" else None
    reasoning = case.reasoning if setup == "reasoning" else "auto"
    in_reasoning = case.in_reasoning and setup == "reasoning"
    tools = (h.openai_tools(case.tools) if case.tools
             else h.permissive_tools(case.text, case.dialect, reasoning, in_reasoning))
    want = h.expected(case.text, dialect=case.dialect, tools=tools, reasoning=reasoning,
                      in_reasoning=in_reasoning, regions_as_content=setup == "alone")
    prompt = h.PROMPT
    if in_reasoning:
        fmt = toolparse.ReasoningFormat.bundled(
            case.reasoning if case.reasoning not in (None, "auto")
            else str(toolparse.Dialect.bundled(case.dialect).reasoning))
        prompt += fmt.spelled("OPEN")
    tokenizer = h.markup_tokenizer(case.dialect)
    ids = h.Ids(tokenizer)
    cls = h.composed(_tool_parser(case.dialect), reasoning_parser, tokenizer)
    chat = h.request(tools)
    text = case.text
    got = h.whole(cls, chat, ids, text, prompt)
    assert got.view() == _whole_view(want), "whole"
    for size in (len(text) or 1, 1, 4):
        deltas = [text[i:i + size] for i in range(0, len(text), size)] or [""]
        got = h.streamed(cls, chat, ids, deltas, prompt)
        assert (got.view(), got.finish_reason) == (want.view(), want.finish_reason), \
            f"deltas of {size}"
