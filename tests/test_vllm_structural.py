"""The structural-tag export (SPEC 12, docs/export.md) on xgrammar's own compiler and
matcher, and the plugin's `get_structural_tag` on vLLM's request path (docs/vllm.md):
what the tag lets a model write parses with toolparse to valid calls, the corpus's
accepted blocks are written by it, and vLLM builds it into a structured-output request
that its xgrammar backend compiles, on the CPU.

xgrammar is in the vLLM environment only (its wheel pulls torch and CUDA libraries):
skipped where it is not installed, unless TOOLPARSE_REQUIRE_VLLM is set (`.ci/run`'s
vLLM step sets it, so there a missing xgrammar or vLLM fails the run).
"""

from __future__ import annotations

import json
import logging
import os
import random
import re
import types
from typing import Any

import pytest

if os.environ.get("TOOLPARSE_REQUIRE_VLLM"):
    import vllm  # noqa: F401  (TOOLPARSE_REQUIRE_VLLM is set: a missing vLLM fails here)
    import xgrammar  # noqa: F401
else:
    pytest.importorskip("xgrammar", reason="xgrammar is installed with vLLM only (its "
                        "wheel pulls torch): .ci/run's vLLM step runs these tests")
    pytest.importorskip("vllm", reason="needs vLLM: .ci/run's vLLM step runs these tests")

from vllm.config import StructuredOutputsConfig  # noqa: E402
from vllm.v1.structured_output.backend_types import StructuredOutputOptions  # noqa: E402
from vllm.v1.structured_output.backend_xgrammar import (  # noqa: E402
    XgrammarBackend,
    validate_xgrammar_grammar,
)

import toolparse  # noqa: E402
import vllm_harness as h  # noqa: E402
from test_export import (  # noqa: E402
    CHECKED,
    EXPORTED,
    LENIENT_CASES,
    NOT_EXPORTED,
    REFUSED_MODES,
    TOOLS,
    _corpus_blocks,
    _not_written,
    _parsed_ok,
)
from xgrammar_engine import accepts, committed, compiled, walk  # noqa: E402

QWEN = "qwen3_coder"
WEATHER = [{"type": "function", "function": {"name": "get_weather", "parameters": {
    "type": "object", "properties": {"city": {"type": "string"}, "days": {"type": "integer"}},
    "required": ["city"], "additionalProperties": False}}}]
CALL = ("<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n"
        "<parameter=days>\n3\n</parameter>\n</function>\n</tool_call>")


def _tag(dialect: str, tools: Any, mode: str) -> Any:
    return compiled(toolparse.export_grammar(dialect, tools, mode=mode,
                                             target="structural_tag"))


# ---- the export on xgrammar ---------------------------------------------------------------

@pytest.mark.parametrize("dialect", EXPORTED)
@pytest.mark.parametrize("mode", ["required", "auto"])
def test_random_walks_through_xgrammar_parse_to_valid_calls(dialect: str, mode: str) -> None:
    if (dialect, mode) in REFUSED_MODES:
        with pytest.raises(toolparse.ExportError, match=REFUSED_MODES[dialect, mode]):
            toolparse.export_grammar(dialect, TOOLS, mode=mode, target="structural_tag")
        return
    grammar = _tag(dialect, TOOLS, mode)
    required = _tag(dialect, TOOLS, "required")
    rng = random.Random(f"{dialect}-{mode}")
    done = calls = 0
    for _ in range(40):
        prefix = ""
        if mode == "auto":  # prose, then a block's opening tag as a required walk writes it:
            # to its first `>`, or as far as the grammar must go on with a block when that
            # is further (Kimi K3's `<|open|>tools<|sep|>`: its first `>` is in the middle)
            block = ""
            while not block:
                block = walk(required, rng) or ""
            prose = "Let me check that.\n"
            opening = max(committed(grammar, prose, block), block[:block.find(">") + 1], key=len)
            prefix = prose + opening
        text = walk(grammar, rng, eos=0.3, prefix=prefix)
        if text is None:
            continue
        good, found = _parsed_ok(text, dialect, mode)
        assert good, text
        done += 1
        calls += found
    assert done >= 4 and calls >= 3, (done, calls)  # (a walk may not end: it is skipped)


JSON_ESCAPE = re.compile(r"\\(?:u[0-9A-Fa-f]{4}|.)", re.DOTALL)
"""xgrammar writes a JSON string that has a `pattern` (every string the export writes:
no closing tag inside) without escapes (docs/export.md): a corpus block whose JSON
strings hold one is not written. The exception is taken only where the escapes are
all that differs: the block with each escape made a space is written."""


@pytest.mark.parametrize("dialect", CHECKED)
def test_every_accepted_corpus_block_is_written_by_the_tag(dialect: str) -> None:
    blocks = _corpus_blocks(dialect)
    grammars: dict[str, Any] = {}
    refused, written = [], 0
    for case_id, raw, tools in blocks:
        key = json.dumps(tools, sort_keys=True)
        try:
            if key not in grammars:
                grammars[key] = _tag(dialect, tools, "required")
        except toolparse.ExportError:  # a schema inferred from `null` values: any type
            continue
        if accepts(grammars[key], raw):
            written += 1
        elif case_id not in LENIENT_CASES and not _not_written(dialect, raw) \
                and not _json_escape(grammars[key], raw):
            refused.append((case_id, raw))
    assert len(blocks) >= 10
    assert not refused, refused
    assert written >= len(blocks) // 2, (written, len(blocks))


def _json_escape(grammar: Any, raw: str) -> bool:
    return bool(JSON_ESCAPE.search(raw)) and accepts(grammar, JSON_ESCAPE.sub(" ", raw))


@pytest.mark.parametrize("dialect", ["hermes", QWEN, "deepseek", "glm45", "minimax_m2"])
def test_unlisted_tool_bad_value_and_broken_block_are_refused(dialect: str) -> None:
    other_tools = [{"name": "write_file", "parameters": {
        "type": "object", "properties": {"limit": {"type": "integer"}}}}]
    grammar = _tag(dialect, TOOLS[1:], "required")
    other = _tag(dialect, other_tools, "required")
    rng = random.Random(dialect)
    texts = [t for t in (walk(other, rng, eos=0.5) for _ in range(10)) if t]
    assert texts
    for text in texts:
        assert accepts(other, text)
        assert not accepts(grammar, text)
        assert not accepts(other, text[:-1])


def test_values_cannot_hold_their_closer_and_free_text_no_opener() -> None:
    grammar = _tag(QWEN, TOOLS, "required")
    head = "<tool_call>\n<function=read_file>\n<parameter=path>\n"
    tail = "\n</parameter>\n</function>\n</tool_call>"
    assert accepts(grammar, head + "a < b </param" + tail)
    assert not accepts(grammar, head + "a </parameter> b" + tail)
    hermes = _tag("hermes", TOOLS, "auto")
    call = '<tool_call>{"name": "read_file", "arguments": {"path": "%s"}}</tool_call>'
    assert accepts(hermes, "Let me look.\n" + call % "a<b")
    assert accepts(hermes, "No call needed.")
    assert not accepts(hermes, call % "a</tool_call>b")
    assert not accepts(hermes, "See <tool_call> tags. " + call % "a")


# ---- the plugin on vLLM's request path ----------------------------------------------------

def _backend(tokenizer: Any) -> Any:
    """vLLM's xgrammar backend, as its engine builds it for a model (no GPU)."""
    config = types.SimpleNamespace(structured_outputs_config=StructuredOutputsConfig(),
                                   model_config=None, speculative_config=None)
    return XgrammarBackend(config, tokenizer=tokenizer, vocab_size=len(tokenizer))


def _adjusted(dialect: str, tools: Any, **fields: Any) -> Any:
    """The request as vLLM's composed parser leaves it (`Parser.adjust_request`)."""
    tokenizer = h.markup_tokenizer(dialect)
    cls = h.composed(f"toolparse_{dialect}", None, tokenizer)
    return cls(tokenizer, None, chat_template_kwargs={}).adjust_request(
        h.request(tools, **fields))


def _compiled_request(chat: Any, tokenizer: Any) -> Any:
    """The request's sampling parameters validated and its grammar compiled, as vLLM's
    engine does at intake."""
    params = chat.to_sampling_params(256, {})
    validate_xgrammar_grammar(params)
    tag = params.structured_outputs.structural_tag
    assert tag is not None
    return _backend(tokenizer).compile_grammar(StructuredOutputOptions.STRUCTURAL_TAG, tag)


def _ids(tokenizer: Any, text: str) -> list[int]:
    return list(tokenizer(text, add_special_tokens=False)["input_ids"])


@pytest.mark.parametrize("choice", ["required", "named"])
def test_required_and_named_choices_get_the_tag_and_read_the_calls(choice: str) -> None:
    tokenizer = h.markup_tokenizer(QWEN)
    other = {"type": "function", "function": {"name": "get_time", "parameters": {
        "type": "object", "properties": {}}}}
    tool_choice: Any = "required" if choice == "required" else {
        "type": "function", "function": {"name": "get_weather"}}
    chat = _adjusted(QWEN, [*WEATHER, other], tool_choice=tool_choice)
    grammar = _compiled_request(chat, tokenizer)
    assert grammar.accept_tokens("r", _ids(tokenizer, CALL))
    # A call of the other tool is written under `required`, not under a named choice.
    again = _compiled_request(chat, tokenizer)
    time_call = "<tool_call>\n<function=get_time>\n</function>\n</tool_call>"
    assert again.accept_tokens("r", _ids(tokenizer, time_call)) == (choice == "required")
    # vLLM hands the choice to the parser (not its JSON path), which reads the call.
    cls = h.composed(f"toolparse_{QWEN}", None, tokenizer)
    got = h.whole(cls, h.request([*WEATHER, other], tool_choice=tool_choice),
                  h.Ids(tokenizer), CALL)
    assert got.calls and got.calls[0]["name"] == "get_weather"
    assert json.loads(got.calls[0]["arguments"]) == {"city": "Paris", "days": 3}


def test_auto_gets_the_tag_where_vllm_asks_for_one() -> None:
    tokenizer = h.markup_tokenizer(QWEN)
    # tool_choice auto with no strict tool: vLLM asks no parser for a tag.
    assert _adjusted(QWEN, WEATHER).structured_outputs is None
    strict = [{**WEATHER[0], "function": {**WEATHER[0]["function"], "strict": True}}]
    grammar = _compiled_request(_adjusted(QWEN, strict, tool_choice="auto"), tokenizer)
    assert grammar.accept_tokens("r", _ids(tokenizer, "Let me look.\n" + CALL))


def test_every_bundled_dialect_gives_a_tag_and_auto_gives_none() -> None:
    from toolparse.vllm_plugin._structural import exportable

    assert not NOT_EXPORTED  # (test_export.py: every bundled dialect exports)
    assert [d for d in toolparse.dialects() if not exportable(d)] == []
    assert not exportable("auto")   # several formats: the `toolparse` parser asks for none
    from toolparse.vllm_plugin._registry import tool_parser_classes

    assert tool_parser_classes()["toolparse"].structural_tag_model is None


def test_a_dialect_that_does_not_export_keeps_vllms_json_path(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # No bundled dialect is refused any more; a grammar that is (docs/export.md lists what
    # the export refuses) leaves the parser without a tag, on vLLM's own JSON path.
    from toolparse.vllm_plugin import _tools

    monkeypatch.setattr(_tools, "exportable", lambda name: name != QWEN)
    chat = _adjusted(QWEN, WEATHER, tool_choice="required")
    assert chat.structured_outputs.structural_tag is None
    assert chat.structured_outputs.json is not None  # vLLM's own JSON tool calling
    cls = h.composed(f"toolparse_{QWEN}", None, h.markup_tokenizer(QWEN))
    parser = cls(h.markup_tokenizer(QWEN), None, chat_template_kwargs={})
    assert parser._tool_parser.structural_tag_model is None  # noqa: SLF001
    assert parser._tool_parser.supports_required_and_named  # noqa: SLF001


def test_a_request_the_export_cannot_write_gets_no_tag_and_a_logged_reason(
        caplog: pytest.LogCaptureFixture) -> None:
    tools = [{"type": "function", "function": {"name": "f", "parameters": {
        "type": "object", "properties": {"p": {"type": "string", "pattern": "^x+$"}}}}}]
    with caplog.at_level(logging.WARNING, logger="vllm.toolparse"):
        chat = _adjusted(QWEN, tools, tool_choice="required")
    assert getattr(chat.structured_outputs, "structural_tag", None) is None
    assert any("no structural tag" in r.getMessage() and "/properties/p" in r.getMessage()
               for r in caplog.records)


def test_strict_tool_calling_off_gives_no_tag(monkeypatch: pytest.MonkeyPatch) -> None:
    from vllm import envs

    monkeypatch.setattr(envs, "VLLM_ENFORCE_STRICT_TOOL_CALLING", False)
    tokenizer = h.markup_tokenizer(QWEN)
    cls = h.composed(f"toolparse_{QWEN}", None, tokenizer)
    parser = cls(tokenizer, None, chat_template_kwargs={})
    assert parser._tool_parser.get_structural_tag(  # noqa: SLF001
        h.request(WEATHER, tool_choice="required")) is None
