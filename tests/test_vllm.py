"""toolparse inside vLLM (docs/vllm.md): the plugin loaded the ways vLLM loads it, the
parsers vLLM's registries give for every bundled dialect and reasoning format, and the
contract as vLLM calls it, on the real vLLM package, offline, on the CPU.

The corpus, through both methods and three chunkings, is test_vllm_corpus.py.

Skipped where vLLM is not installed (the normal test environment), unless
TOOLPARSE_REQUIRE_VLLM is set: `.ci/run` installs vLLM in an environment of its own and
sets it, so there a missing vLLM fails the run.
"""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

if os.environ.get("TOOLPARSE_REQUIRE_VLLM"):
    import vllm  # TOOLPARSE_REQUIRE_VLLM is set: a missing vLLM fails here
else:
    vllm = pytest.importorskip("vllm")

from vllm.exceptions import VLLMValidationError  # noqa: E402
from vllm.reasoning import ReasoningParser, ReasoningParserManager  # noqa: E402
from vllm.tool_parsers import ToolParser, ToolParserManager  # noqa: E402

import toolparse  # noqa: E402
import toolparse.vllm_plugin as plugin  # noqa: E402
from toolparse.vllm_plugin._reasoning import marker_formats  # noqa: E402
import vllm_harness as h  # noqa: E402

QWEN = "qwen3_coder"
WEATHER = [{"type": "function", "function": {"name": "get_weather", "parameters": {
    "type": "object", "properties": {"city": {"type": "string"}, "days": {"type": "integer"}},
    "required": ["city"], "additionalProperties": False}}}]
CALL = ("<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n"
        "<parameter=days>\n3\n</parameter>\n</function>\n</tool_call>")
THINK_OPEN = toolparse.ReasoningFormat.bundled("think").spelled("OPEN")
THINK_CLOSE = toolparse.ReasoningFormat.bundled("think").spelled("CLOSE")


def _tokenizer() -> Any:
    return h.markup_tokenizer(QWEN)


def _tool_parser(tools: Any = WEATHER, dialect: str = QWEN, tokenizer: Any = None) -> Any:
    cls = ToolParserManager.get_tool_parser(f"toolparse_{dialect}")
    chat = h.request(tools)
    return cls(tokenizer or _tokenizer(), chat.tools), chat


# ---- loading ----------------------------------------------------------------------------

def _in_fresh_python(code: str) -> dict[str, Any]:
    """Run `code` in a new interpreter (vLLM's plugin state is per process); it prints
    one JSON line last."""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=300, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


_REPORT = """
import json, sys, vllm
from vllm.tool_parsers import ToolParserManager
from vllm.reasoning import ReasoningParserManager
print(json.dumps({"tools": sorted(n for n in ToolParserManager.list_registered()
                                  if n.startswith("toolparse")),
                  "reasoning": sorted(n for n in ReasoningParserManager.list_registered()
                                      if n.startswith("toolparse")),
                  "vllm": sys.modules["vllm"].__file__, "vllm_is_vllm": sys.modules["vllm"] is vllm}))
"""


def _names() -> tuple[list[str], list[str]]:
    tools = sorted(["toolparse", *(f"toolparse_{d}" for d in toolparse.dialects())])
    reasoning = sorted(["toolparse", *(f"toolparse_{f}" for f in marker_formats())])
    return tools, reasoning


def test_the_entry_point_registers_every_parser_when_vllm_loads_its_plugins() -> None:
    found = _in_fresh_python("from vllm.plugins import load_general_plugins\n"
                             "load_general_plugins()\n" + _REPORT)
    assert (found["tools"], found["reasoning"]) == _names()


@pytest.mark.parametrize("how", ["tool", "reasoning"])
def test_the_plugin_file_given_to_vllm_registers_and_leaves_vllm_in_place(how: str) -> None:
    path = Path(plugin.__file__).resolve()
    load = ("ToolParserManager.import_tool_parser" if how == "tool"
            else "ReasoningParserManager.import_reasoning_parser")
    found = _in_fresh_python(
        "import vllm\nfrom vllm.tool_parsers import ToolParserManager\n"
        "from vllm.reasoning import ReasoningParserManager\n"
        f"{load}({str(path)!r})\n" + _REPORT)
    assert (found["tools"], found["reasoning"]) == _names()
    assert found["vllm_is_vllm"]
    assert Path(found["vllm"]).resolve() == Path(vllm.__file__).resolve()


def test_the_module_name_given_to_vllm_registers() -> None:
    found = _in_fresh_python(
        "from vllm.tool_parsers import ToolParserManager\n"
        "ToolParserManager.import_tool_parser('toolparse.vllm_plugin')\n" + _REPORT)
    assert (found["tools"], found["reasoning"]) == _names()


def test_vllm_registries_give_a_parser_per_bundled_dialect_and_format() -> None:
    plugin.register()
    for dialect in toolparse.dialects():
        cls = ToolParserManager.get_tool_parser(f"toolparse_{dialect}")
        assert issubclass(cls, ToolParser) and cls.dialect_name == dialect
    assert ToolParserManager.get_tool_parser("toolparse").dialect_name == "auto"
    for name in marker_formats():
        cls = ReasoningParserManager.get_reasoning_parser(f"toolparse_{name}")
        assert issubclass(cls, ReasoningParser) and cls.format_name == name
    assert ReasoningParserManager.get_reasoning_parser("toolparse").format_name is None


# ---- adjust_request ---------------------------------------------------------------------

def test_special_token_markup_is_kept_in_the_text() -> None:
    parser, chat = _tool_parser()
    assert parser.adjust_request(chat).skip_special_tokens is False


def test_markup_that_is_plain_text_leaves_special_tokens_to_vllm() -> None:
    parser, chat = _tool_parser(tokenizer=h.make_tokenizer(["<|im_end|>"]))
    assert parser.adjust_request(chat).skip_special_tokens is None


def test_reasoning_markers_that_are_special_tokens_are_kept() -> None:
    cls = ReasoningParserManager.get_reasoning_parser("toolparse_think")
    chat = h.request(None)
    assert cls(h.make_tokenizer([THINK_OPEN, THINK_CLOSE])).adjust_request(chat) \
        .skip_special_tokens is False
    assert cls(h.make_tokenizer([])).adjust_request(h.request(None)).skip_special_tokens is None


@pytest.mark.parametrize("schema", [
    {"type": "object", "properties": {"a": {"$ref": "https://example.invalid/s.json"}}},
    {"type": "object", "properties": {"a": {"$ref": "file:///etc/passwd"}}},
    {"type": "object", "properties": {"a": {"$ref": "#/$defs/missing"}}},
], ids=["https", "file", "unresolvable"])
def test_a_hostile_schema_is_vllms_400_before_generation(schema: dict[str, Any]) -> None:
    tools = [{"type": "function", "function": {"name": "f", "parameters": schema}}]
    parser, chat = _tool_parser(tools)
    with pytest.raises(VLLMValidationError, match="tools"):
        parser.adjust_request(chat)


def test_a_backtracking_pattern_costs_linear_time_and_fails_closed() -> None:
    tools = [{"type": "function", "function": {"name": "f", "parameters": {
        "type": "object", "properties": {"a": {"type": "string", "pattern": "^(a+)+$"}}}}}]
    text = "<tool_call>\n<function=f>\n<parameter=a>\n" + "a" * 40 + "!\n</parameter>\n" \
           "</function>\n</tool_call>"
    tokenizer = _tokenizer()
    cls = h.composed(f"toolparse_{QWEN}", None, tokenizer)
    got = h.streamed(cls, h.request(tools), h.Ids(tokenizer), [text])
    assert got.view() == (text, "", []) and got.finish_reason == "stop"


# ---- the stream: end, bad input, instances ------------------------------------------------

def test_text_held_back_at_the_end_reaches_the_client_through_vllms_stream() -> None:
    text = "Checking. <tool_ca"
    tokenizer = _tokenizer()
    cls = h.composed(f"toolparse_{QWEN}", None, tokenizer)
    got = h.streamed(cls, h.request(WEATHER), h.Ids(tokenizer), [text[:12], text[12:]])
    assert got.view() == (text, "", []) and got.finish_reason == "stop"


def test_a_block_open_at_the_end_is_its_text_through_vllms_stream() -> None:
    text = "Checking. " + CALL[:-len("</tool_call>")]
    tokenizer = _tokenizer()
    cls = h.composed(f"toolparse_{QWEN}", "toolparse_think", tokenizer)
    got = h.streamed(cls, h.request(WEATHER), h.Ids(tokenizer), list(text))
    assert got.view() == (text, "", []) and got.finish_reason == "stop"


def test_empty_deltas_and_a_delta_holding_several_calls() -> None:
    text = f"One. {CALL} and {CALL}."
    tokenizer = _tokenizer()
    cls = h.composed(f"toolparse_{QWEN}", "toolparse_think", tokenizer)
    got = h.streamed(cls, h.request(WEATHER), h.Ids(tokenizer), ["", text, "", ""])
    arguments = json.dumps({"city": "Paris", "days": 3}, separators=(",", ":"))
    assert got.view() == ("One.  and .", "", [("get_weather", arguments)] * 2)
    assert got.finish_reason == "tool_calls"


def test_previous_text_that_is_not_what_the_parser_saw_is_refused() -> None:
    parser, chat = _tool_parser()
    parser.extract_tool_calls_streaming("", "Hello", "Hello", [], [], [], chat)
    with pytest.raises(toolparse.ToolparseError, match="previous_text"):  # never a call
        parser.extract_tool_calls_streaming("Bye!!", "Bye!! x", " x", [], [], [], chat)
    with pytest.raises(plugin.StreamContractError, match="current_text"):
        parser.extract_tool_calls_streaming("Hello", "Hello there", " x", [], [], [], chat)


def test_both_of_vllms_conventions_for_previous_text_are_read() -> None:
    for accumulating in (True, False):
        parser, chat = _tool_parser()
        seen = ""
        out = h.Reply()
        for piece in ["Sure. ", CALL[:20], CALL[20:], " Done."]:
            previous = seen if accumulating else ""
            h.accumulate(out, parser.extract_tool_calls_streaming(
                previous, previous + piece, piece, [], [], [], chat))
            seen += piece
        h.accumulate(out, parser.finish_streaming())
        assert out.content == "Sure.  Done." and [c["name"] for c in out.calls] == ["get_weather"]


def test_one_instance_reads_its_streams_one_after_another_and_whole_answers_between() -> None:
    parser, chat = _tool_parser()
    views = []
    for _ in range(2):
        out = h.Reply()
        h.accumulate(out, parser.extract_tool_calls_streaming("", "Sure. <tool", "Sure. <tool",
                                                              [], [], [], chat))
        info = parser.extract_tool_calls("Whole: " + CALL, chat)
        assert info.tools_called and info.content == "Whole: "
        rest = "_call" + CALL[len("<tool_call"):]
        h.accumulate(out, parser.extract_tool_calls_streaming("", rest, rest, [], [], [], chat))
        h.accumulate(out, parser.finish_streaming())
        views.append((out.content, [c["name"] for c in out.calls]))
    assert views == [("Sure. ", ["get_weather"])] * 2


def test_two_instances_share_nothing() -> None:
    first, chat = _tool_parser()
    second, _ = _tool_parser()
    a, b = h.Reply(), h.Reply()
    h.accumulate(a, first.extract_tool_calls_streaming("", CALL[:30], CALL[:30], [], [], [], chat))
    h.accumulate(b, second.extract_tool_calls_streaming("", "Plain", "Plain", [], [], [], chat))
    h.accumulate(a, first.extract_tool_calls_streaming("", CALL[30:], CALL[30:], [], [], [], chat))
    h.accumulate(a, first.finish_streaming())
    h.accumulate(b, second.finish_streaming())
    assert (a.content, len(a.calls)) == ("", 1) and (b.content, b.calls) == ("Plain", [])


def test_a_one_megabyte_argument_is_one_call() -> None:
    value = "x" * 1_000_000
    tools = [{"type": "function", "function": {"name": "write", "parameters": {
        "type": "object", "properties": {"text": {"type": "string"}}}}}]
    text = f"<tool_call>\n<function=write>\n<parameter=text>\n{value}\n</parameter>\n" \
           "</function>\n</tool_call>"
    tokenizer = _tokenizer()
    cls = h.composed(f"toolparse_{QWEN}", None, tokenizer)
    deltas = [text[i:i + 4096] for i in range(0, len(text), 4096)]
    got = h.streamed(cls, h.request(tools), h.Ids(tokenizer), deltas)
    assert got.content == "" and json.loads(got.calls[0]["arguments"]) == {"text": value}


def test_a_request_without_tools_gets_every_block_as_text() -> None:
    text = f"Here: {CALL}"
    tokenizer = _tokenizer()
    cls = h.composed(f"toolparse_{QWEN}", None, tokenizer)
    for chat in (h.request(None), h.request(WEATHER, tool_choice="none")):
        for deltas in ([text], list(text)):
            got = h.streamed(cls, chat, h.Ids(tokenizer), deltas)
            assert got.view() == (text, "", []) and got.finish_reason == "stop"
        assert h.whole(cls, chat, h.Ids(tokenizer), text).view() == (text, "", [])


def test_a_rejected_call_is_content_and_its_reason_is_logged() -> None:
    text = "<tool_call>\n<function=get_weather>\n<parameter=town>\nParis\n</parameter>\n" \
           "</function>\n</tool_call>"
    records: list[logging.LogRecord] = []
    handler = logging.Handler()
    handler.emit = records.append  # type: ignore[method-assign]
    log = logging.getLogger("vllm.toolparse")
    log.addHandler(handler)
    try:
        tokenizer = _tokenizer()
        cls = h.composed(f"toolparse_{QWEN}", None, tokenizer)
        got = h.streamed(cls, h.request(WEATHER), h.Ids(tokenizer), list(text))
    finally:
        log.removeHandler(handler)
    assert got.view() == (text, "", []) and got.finish_reason == "stop"
    assert any("rejected" in r.getMessage() and "city" in r.getMessage() for r in records)


def test_a_call_quoted_while_thinking_is_never_a_call_with_or_without_a_reasoning_parser() -> None:
    text = f"{THINK_OPEN}The format is {CALL}{THINK_CLOSE}Shall I?"
    tokenizer = _tokenizer()
    for reasoning, expected in ((None, (text, "", [])),
                                ("toolparse_think", ("Shall I?", f"The format is {CALL}", []))):
        cls = h.composed(f"toolparse_{QWEN}", reasoning, tokenizer)
        for deltas in ([text], list(text)):
            assert h.streamed(cls, h.request(WEATHER), h.Ids(tokenizer), deltas).view() == expected
        assert h.whole(cls, h.request(WEATHER), h.Ids(tokenizer), text).view() == expected


# ---- reasoning and the prompt -----------------------------------------------------------

def _reasoning_parser(name: str = "toolparse_think") -> Any:
    return ReasoningParserManager.get_reasoning_parser(name)(_tokenizer())


@pytest.mark.parametrize("prompt, ended", [
    (h.PROMPT, False),                                                # the answer decides
    (h.PROMPT + THINK_OPEN + "\n", False),                            # opened by the template
    (h.PROMPT + THINK_OPEN + "\n\n" + THINK_CLOSE + "\n\n", True),    # thinking off
    (THINK_OPEN + "a" + THINK_CLOSE + "b<|im_end|>\n" + h.PROMPT, False),  # an earlier turn's
])
def test_is_reasoning_end_reads_how_the_prompt_ends(prompt: str, ended: bool) -> None:
    ids = h.Ids(_tokenizer())
    assert _reasoning_parser().is_reasoning_end(ids(prompt)) is ended


def test_a_prompt_that_opens_the_region_starts_the_answer_inside_it() -> None:
    tokenizer = _tokenizer()
    cls = h.composed(f"toolparse_{QWEN}", "toolparse_think", tokenizer)
    text = f"quoting {CALL}{THINK_CLOSE}\n\nAnswer. {CALL}"
    prompt = h.PROMPT + THINK_OPEN + "\n"
    ids = h.Ids(tokenizer)
    for deltas in ([text], list(text)):
        got = h.streamed(cls, h.request(WEATHER), ids, deltas, prompt)
        assert got.reasoning == f"quoting {CALL}" and got.content == "\n\nAnswer. "
        assert [c["name"] for c in got.calls] == ["get_weather"]
    assert h.whole(cls, h.request(WEATHER), ids, text, prompt).view() == got.view()


def test_the_end_of_reasoning_in_a_decode_step_and_the_content_ids_after_it() -> None:
    parser = _reasoning_parser()
    ids = h.Ids(_tokenizer())
    before, closer, after = ids("thinking"), ids(THINK_CLOSE), ids("Answer")
    assert parser.is_reasoning_end_streaming(before + closer, closer)
    assert parser.is_reasoning_end_streaming(before + closer + after, closer + after)
    assert not parser.is_reasoning_end_streaming(before + closer + after, after)
    assert not parser.is_reasoning_end_streaming(before, before[-3:])
    assert parser.extract_content_ids(before + closer + after) == after
    assert parser.extract_content_ids(after) == after


def test_every_format_is_read_by_its_own_parser_and_by_toolparse() -> None:
    tokenizer = _tokenizer()
    ids = h.Ids(tokenizer)
    for name in marker_formats():
        fmt = toolparse.ReasoningFormat.bundled(name)
        opener = fmt.spelled("OPEN") + (fmt.spelled("LABEL") if fmt.label else "")
        text = f"{opener}thinking {CALL}{fmt.spelled('CLOSE')}Answer."
        for reasoning in (f"toolparse_{name}", "toolparse"):
            cls = h.composed(f"toolparse_{QWEN}", reasoning, tokenizer)
            for deltas in ([text], list(text)):
                got = h.streamed(cls, h.request(WEATHER), ids, deltas)
                assert got.view() == ("Answer.", f"thinking {CALL}", []), (name, reasoning)


def test_an_unclosed_region_is_reasoning_to_the_end() -> None:
    tokenizer = _tokenizer()
    cls = h.composed(f"toolparse_{QWEN}", "toolparse_think", tokenizer)
    text = f"  {THINK_OPEN}still thinking {CALL[:40]}"
    got = h.streamed(cls, h.request(WEATHER), h.Ids(tokenizer), list(text))
    assert got.view() == ("  ", f"still thinking {CALL[:40]}", [])
