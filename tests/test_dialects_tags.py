"""The special-token and tag dialects of the third wave (issue 43), rule by rule: each
one's markup as its model's template writes it, the texts the serving engines test
their parsers with (as facts of the format), its leniencies and what it does not
accept. The guarantees of SPEC section 1 per dialect are in test_dialects_properties.py,
which picks these up from test_dialects_samples.SAMPLES."""

from __future__ import annotations

import json
from typing import Any

import pytest

import toolparse
from conftest import calls_of, check_chunkings, failures, split_at, stream  # noqa: F401


def tool(name: str, properties: dict[str, Any]) -> dict[str, Any]:
    return {"type": "function", "function": {"name": name, "parameters": {
        "type": "object", "properties": properties}}}


# ---- deepseek_v3 -------------------------------------------------------------------------------

V3 = "deepseek_v3"
V3_BEGIN, V3_END = "<｜tool▁calls▁begin｜>", "<｜tool▁calls▁end｜>"


def v3_call(name: str, arguments: str, kind: str = "function") -> str:
    return (f"<｜tool▁call▁begin｜>{kind}<｜tool▁sep｜>{name}\n```json\n{arguments}\n```"
            "<｜tool▁call▁end｜>")


def test_v3_the_template_layout_gives_each_call(check_chunkings) -> None:
    # Two calls, a newline between them, as the R1 template joins them; the text
    # before the section is content, and so is the text after it.
    block = (V3_BEGIN + v3_call("get_weather", '{"city": "Tokyo", "unit": "celsius"}') + "\n"
             + v3_call("search_hotels", '{"location": "Tokyo", "check_in": "2025-01-15"}')
             + V3_END)
    assert check_chunkings("Let me check." + block + " Done.", dialect=V3) == [
        ("text", "Let me check."),
        ("block", block, [("get_weather", {"city": "Tokyo", "unit": "celsius"}),
                          ("search_hotels", {"location": "Tokyo", "check_in": "2025-01-15"})]),
        ("text", " Done.")]


def test_v3_arguments_are_json_as_written() -> None:
    # Every JSON type, escapes, an empty object: the arguments text goes on as written.
    arguments = ('{"s": "He said \\"hi\\"", "path": "C:\\\\Users\\\\f", "n": 42, "x": 3.14, '
                 '"b": true, "z": null, "a": ["a", "b"], "o": {"k": "v"}, "e": [], "eo": {}}')
    (call,) = toolparse.parse(V3_BEGIN + v3_call("f", arguments) + V3_END, dialect=V3).calls
    assert call.arguments == json.loads(arguments) and call.arguments_json == arguments
    (empty,) = toolparse.parse(V3_BEGIN + v3_call("now", "{}") + V3_END, dialect=V3).calls
    assert (empty.name, empty.arguments) == ("now", {})


def test_v3_a_fence_inside_a_value_is_the_values(check_chunkings) -> None:
    # The body ends only at the ``` that <｜tool▁call▁end｜> follows.
    value = {"code": "```python\nprint(1)\n```", "tick": "`a` ``b``"}
    block = V3_BEGIN + v3_call("run", json.dumps(value)) + V3_END
    assert check_chunkings(block, dialect=V3) == [("block", block, [("run", value)])]


def test_v3_the_blocks_fence_is_not_markdown(check_chunkings) -> None:
    # SPEC G3a: the fence inside a block opens no code; after the block, a code span is
    # a code span and a block is a block, as if the block were one word.
    first = V3_BEGIN + v3_call("a", "{}") + V3_END
    second = V3_BEGIN + v3_call("b", "{}") + V3_END
    text = f"{first}\nThen `{second}` is quoted, and\n{second}\n"
    assert check_chunkings(text, dialect=V3) == [
        ("block", first, [("a", {})]), ("text", text[len(first):text.rindex(second)]),
        ("block", second, [("b", {})]), ("text", "\n")]
    # After an unmatched backtick the block waits on the paragraph (SPEC 4.3); its own
    # backticks are not runs of that paragraph.
    held = f"Use `x {first} and` more"
    assert check_chunkings(held, dialect=V3) == [("text", held)]


@pytest.mark.parametrize("broken", [
    # The fence never closed: the section end inside the body.
    V3_BEGIN + "<｜tool▁call▁begin｜>function<｜tool▁sep｜>f\n```json\n{\"a\": 1}" + V3_END,
    # Text between the fence and the call end.
    V3_BEGIN + v3_call("f", '{"a": 1}').replace("```<", "``` oops<") + V3_END,
])
def test_v3_a_body_never_runs_on_into_the_next_block(broken: str, check_chunkings) -> None:
    events = check_chunkings(broken + "\n", dialect=V3)
    assert events[0] == ("failed", broken, "unexpected_token")
    # A real block in a new answer (a fresh stream) after the same text is still one.
    real = V3_BEGIN + v3_call("g", "{}") + V3_END
    assert calls_of("Sure.\n" + real, dialect=V3) == [("g", {})]


def test_v3_a_section_without_a_call_token_is_a_prose_mention(check_chunkings) -> None:
    # The section token, then a call without <｜tool▁call▁begin｜>: the token alone fails,
    # and the rest is text.
    rest = 'function<｜tool▁sep｜>get_weather\n```json\n{"city": "Tokyo"}\n```' + V3_END
    events = check_chunkings(V3_BEGIN + rest, dialect=V3)
    assert events == [("failed", V3_BEGIN, "unexpected_token"), ("text", rest)]


@pytest.mark.parametrize("token", ["<｜tool▁sep｜>", "<｜tool▁call▁end｜>", "<｜tool▁calls▁end｜>",
                                   "<｜tool▁call▁begin｜>"])
def test_v3_a_stray_special_token_is_text(token: str, check_chunkings) -> None:
    text = f"The token {token} alone."
    assert check_chunkings(text, dialect=V3) == [("text", text)]
    assert check_chunkings(text, dialect="auto") == [("text", text)]


def test_v3_only_a_function_call_is_read() -> None:
    text = V3_BEGIN + v3_call("hmm", "{}", kind="thought") + V3_END
    assert toolparse.parse(text, dialect=V3).calls == ()


def test_v3_arguments_that_are_not_json_reject_the_call_not_the_block() -> None:
    # An unclosed object before the fence: the block is a block, its call rejected.
    (block,) = toolparse.parse(V3_BEGIN + v3_call("f", '{"city": "Tokyo"') + V3_END,
                               dialect=V3).events
    assert isinstance(block, toolparse.ToolCallBlock) and not block.accepted
    assert block.calls[0].reason == "invalid_json"


def test_v3_the_fence_may_sit_on_the_names_line() -> None:
    text = V3_BEGIN + "<｜tool▁call▁begin｜>function<｜tool▁sep｜>f ```json{}```<｜tool▁call▁end｜>" + V3_END
    assert calls_of(text, dialect=V3) == [("f", {})]
    assert toolparse.Dialect.bundled(V3)._grammars[0].accept_only == {"_LENIENT_SAME_LINE"}


# ---- deepseek_v31 ------------------------------------------------------------------------------

V31 = "deepseek_v31"
V31_SEP = "<｜tool▁sep｜>"


def v31_call(name: str, arguments: str) -> str:
    return f"<｜tool▁call▁begin｜>{name}{V31_SEP}{arguments}<｜tool▁call▁end｜>"


def test_v31_the_template_layout_keeps_the_text_around_the_section(check_chunkings) -> None:
    block = V3_BEGIN + v31_call("foo", '{"x":1}') + v31_call("bar", '{"y":2}') + V3_END
    assert check_chunkings("some prefix text" + block + " some suffix text", dialect=V31) == [
        ("text", "some prefix text"), ("block", block, [("foo", {"x": 1}), ("bar", {"y": 2})]),
        ("text", " some suffix text")]
    (call, _) = toolparse.parse(block, dialect=V31).calls
    assert call.arguments_json == '{"x":1}'


def test_v31_a_call_without_section_tokens_is_a_block_of_its_own(check_chunkings) -> None:
    one, two = v31_call("a", "{}"), v31_call("b", '{"n": 2}')
    assert check_chunkings(f"Calling {one}\n{two}{V3_END}", dialect=V31) == [
        ("text", "Calling "), ("block", one, [("a", {})]), ("text", "\n"),
        ("block", two, [("b", {"n": 2})]), ("text", V3_END)]
    assert toolparse.Dialect.bundled(V31)._grammars[0].accept_only == {"orphan_block"}


@pytest.mark.parametrize(("text", "failed"), [
    # Cut off after the section token, before any call.
    ("Let me look that up." + V3_BEGIN + "get_weather", V3_BEGIN),
    # A section whose call has no call tokens.
    (V3_BEGIN + 'foo' + V31_SEP + '{"x":1}' + V3_END, V3_BEGIN),
])
def test_v31_a_section_without_a_call_is_a_failed_mention(text: str, failed: str,
                                                          check_chunkings) -> None:
    events = check_chunkings(text, dialect=V31)
    assert ("failed", failed, "unexpected_token") in events
    assert "".join(e[1] for e in events) == text and not calls_of(text, dialect=V31)


def test_v31_a_missing_call_end_fails_at_the_next_special_token(check_chunkings) -> None:
    broken = V3_BEGIN + '<｜tool▁call▁begin｜>f' + V31_SEP + '{"a": 1}' + V3_END
    events = check_chunkings(broken + " then " + V3_BEGIN + v31_call("g", "{}") + V3_END,
                             dialect=V31)
    assert events[0] == ("failed", broken, "unexpected_token")
    assert events[-1][0] == "block" and events[-1][2] == [("g", {})]


def test_v31_a_name_may_have_whitespace_around_it() -> None:
    assert calls_of(V3_BEGIN + v31_call(" f\n", "{}") + V3_END, dialect=V31) == [("f", {})]
    assert calls_of(V3_BEGIN + v31_call("", "{}") + V3_END, dialect=V31) == []


@pytest.mark.parametrize(("dialect", "text", "token"), [
    # V3: text after the closing fence, so the call end comes where the body goes on.
    (V3, V3_BEGIN + v3_call("a", '{"x": "<"}') + v3_call("b", "{}").replace(
        "<｜tool▁call▁end｜>", " stray <｜tool▁call▁end｜>") + V3_END, "<｜tool▁call▁end｜>"),
    # V3.1: a second separator inside the arguments.
    (V31, V3_BEGIN + v31_call("a", '{"x": "<"}') + v31_call("b", "{} " + V31_SEP + "{}") + V3_END,
     V31_SEP),
])
def test_a_special_token_inside_the_arguments_fails_there_whatever_the_chunking(
        dialect: str, text: str, token: str) -> None:
    whole = toolparse.parse(text, dialect=dialect).failures
    at = text.rindex(token)
    assert [(f.reason, f.at) for f in whole] == [("unexpected_token", at)]
    for cut in range(at - 1, at + 8):
        assert failures(stream(split_at(text, [cut]), dialect=dialect)) == list(whole), cut


# ---- auto: the DeepSeek formats share their section token ---------------------------------------

@pytest.mark.parametrize(("text", "dialect", "calls"), [
    (V3_BEGIN + v3_call("get_weather", '{"city": "Tokyo"}') + V3_END, V3,
     [("get_weather", {"city": "Tokyo"})]),
    (V3_BEGIN + v31_call("get_weather", '{"city": "Tokyo"}') + V3_END, V31,
     [("get_weather", {"city": "Tokyo"})]),
    # A V3.1 call named `function`: the head alone does not decide, the `{` does.
    (V3_BEGIN + v31_call("function", '{"a": 1}') + V3_END, V31, [("function", {"a": 1})]),
    (v31_call("bare", "{}"), V31, [("bare", {})]),
])
def test_auto_the_call_head_after_the_section_token_chooses(
        text: str, dialect: str, calls: list[Any], check_chunkings) -> None:
    # One section token, two grammars: the next token decides, whatever the chunking,
    # and the block is exactly what that dialect alone reads.
    assert check_chunkings(text, dialect="auto") == check_chunkings(text, dialect=dialect)
    assert calls_of(text, dialect="auto") == calls


# ---- seed_oss ----------------------------------------------------------------------------------

SEED = "seed_oss"
SEED_CALL = ("<seed:tool_call>\n<function=get_weather>\n<parameter=location>Barcelona, Spain"
             "</parameter>\n<parameter=unit>celsius</parameter>\n</function>\n</seed:tool_call>")
SEED_CALLS = [("get_weather", {"location": "Barcelona, Spain", "unit": "celsius"})]


def test_seed_the_template_layout_gives_the_call(check_chunkings) -> None:
    assert check_chunkings("Checking." + SEED_CALL, dialect=SEED) == [
        ("text", "Checking."), ("block", SEED_CALL, SEED_CALLS)]


def test_seed_a_call_spelled_out_while_thinking_is_reasoning(check_chunkings) -> None:
    # What the serving engines test with: the model spells the format out inside
    # <seed:think>, with budget reflections, then makes the real call.
    thought = ("\nThe user's current thinking budget is 512.</seed:cot_budget_reflect>\nThe "
               f"format is {SEED_CALL}. Let me go with that.")
    text = f"<seed:think>{thought}</seed:think>{SEED_CALL}"
    result = toolparse.parse(text, dialect=SEED)
    assert [(c.name, c.arguments) for c in result.calls] == SEED_CALLS
    assert result.reasoning == thought and result.text == ""
    assert check_chunkings(text, dialect=SEED)[-1] == ("block", SEED_CALL, SEED_CALLS)
    # The same text with regions off runs the quoted call as well.
    assert len(toolparse.parse(text, dialect=SEED, reasoning=None).calls) == 2


def test_seed_the_prompt_may_open_the_region() -> None:
    text = f"Plan: {SEED_CALL}</seed:think>\n{SEED_CALL}"
    result = toolparse.parse(text, dialect=SEED, in_reasoning=True)
    assert len(result.calls) == 1 and result.reasoning == f"Plan: {SEED_CALL}"


def test_seed_a_bare_function_is_text_but_qwen3_coder_reads_it() -> None:
    bare = "<function=run>\n<parameter=command>ls</parameter>\n</function>"
    assert calls_of(bare, dialect=SEED) == []
    assert toolparse.parse(bare, dialect=SEED).text == bare
    assert calls_of(bare, dialect="qwen3_coder") == [("run", {"command": "ls"})]


def test_seed_qwen3_coder_still_reads_the_seed_spelling(check_chunkings) -> None:
    assert calls_of(SEED_CALL, dialect="qwen3_coder") == SEED_CALLS
    assert check_chunkings(SEED_CALL, dialect="auto") == check_chunkings(SEED_CALL, dialect=SEED)


def test_seed_values_are_typed_by_the_schema() -> None:
    tools = [tool("get_weather", {"location": {"type": "string"}, "days": {"type": "integer"}})]
    text = ("<seed:tool_call>\n<function=get_weather>\n<parameter=location>\nOslo\n</parameter>\n"
            "<parameter=days>3</parameter>\n</function>\n</seed:tool_call>")
    (call,) = toolparse.parse(text, dialect=SEED, tools=tools).calls
    assert call.arguments == {"location": "Oslo", "days": 3} and call.status == "valid"


# ---- minicpm5 ----------------------------------------------------------------------------------

CPM = "minicpm5"
CPM_WEATHER = ('<function name="get_weather"><param name="city">上海</param>'
               '<param name="date">2024-06-27</param></function>')


def test_cpm_each_call_is_a_block_and_the_text_around_stays(check_chunkings) -> None:
    second = '<function name="sum_values"><param name="nums">[7,8,9]</param></function>'
    assert check_chunkings(f"Intro.\n{CPM_WEATHER}\nTXT\n{second}\nTail", dialect=CPM) == [
        ("text", "Intro.\n"), ("block", CPM_WEATHER, [("get_weather", {"city": "上海",
                                                                       "date": "2024-06-27"})]),
        ("text", "\nTXT\n"), ("block", second, [("sum_values", {"nums": "[7,8,9]"})]),
        ("text", "\nTail")]


@pytest.mark.parametrize("space", ["\u0120", ""])
def test_cpm_the_tokenizer_space_marker_or_none_is_read(space: str) -> None:
    text = CPM_WEATHER.replace(" name=", space + "name=")
    assert calls_of(text, dialect=CPM) == [("get_weather", {"city": "上海", "date": "2024-06-27"})]
    assert toolparse.Dialect.bundled(CPM)._grammars[0].accept_only == {"_LENIENT_TOKENIZER_SPACE"}


def test_cpm_values_cdata_and_types_by_schema() -> None:
    tools = [tool("sum_values", {"nums": {"type": "array"}, "exact": {"type": "boolean"},
                                 "note": {"type": "string"}})]
    text = ('<function name="sum_values"><param name="nums">[1, 2, 3]</param><param name="exact">'
            'true</param><param name="note"><![CDATA[北\n<京>]]></param></function>')
    (call,) = toolparse.parse(text, dialect=CPM, tools=tools).calls
    assert call.arguments == {"nums": [1, 2, 3], "exact": True, "note": "北\n<京>"}
    assert call.status == "valid"


@pytest.mark.parametrize("text", [
    '<function name="get_weather"><param>北京</param></function>',     # an argument with no name
    '<function><param name="city">北京</param></function>',            # a call with no name
    '<function name="get_weather"><param name="city">北京</param>',    # no </function>
])
def test_cpm_what_is_no_call(text: str, check_chunkings) -> None:
    events = check_chunkings(text, dialect=CPM)
    assert "".join(e[1] for e in events) == text and not calls_of(text, dialect=CPM)


def test_cpm_entities_are_not_expanded() -> None:
    text = ('<!DOCTYPE t [ <!ENTITY xxe SYSTEM "file:///etc/passwd"> ]>'
            '<function name="get_weather"><param name="city">&xxe;</param></function>')
    assert calls_of(text, dialect=CPM) == [("get_weather", {"city": "&xxe;"})]


def test_cpm_auto_tells_it_from_qwen3_coder(check_chunkings) -> None:
    qwen = "<function=run><parameter=command>ls</parameter></function>"
    assert check_chunkings(CPM_WEATHER, dialect="auto") == check_chunkings(CPM_WEATHER, dialect=CPM)
    assert calls_of(qwen, dialect="auto") == [("run", {"command": "ls"})]


# ---- hy_v3 -------------------------------------------------------------------------------------

HY = "hy_v3"
HY_WEATHER = ("<tool_calls>\n<tool_call>get_weather<tool_sep>\n<arg_key>city</arg_key>\n"
              "<arg_value>Beijing</arg_value>\n<arg_key>date</arg_key>\n<arg_value>2026-03-30"
              "</arg_value>\n</tool_call>\n</tool_calls>")


def test_hy_the_template_layout_and_one_line(check_chunkings) -> None:
    assert check_chunkings("Checking." + HY_WEATHER, dialect=HY) == [
        ("text", "Checking."),
        ("block", HY_WEATHER, [("get_weather", {"city": "Beijing", "date": "2026-03-30"})])]
    inline = "<tool_calls><tool_call>get_current_date<tool_sep></tool_call></tool_calls>"
    assert calls_of(inline, dialect=HY) == [("get_current_date", {})]


def test_hy_v4_suffixed_tokens_without_a_separator() -> None:
    s = ":opensource"
    call = (f"<tool_call{s}>get_weather<arg_key{s}>city</arg_key{s}><arg_value{s}>北京"
            f"</arg_value{s}></tool_call{s}><tool_call{s}>get_current_date</tool_call{s}>")
    assert calls_of(f"sure!<tool_calls{s}>{call}</tool_calls{s}>", dialect=HY) == [
        ("get_weather", {"city": "北京"}), ("get_current_date", {})]


def test_hy_values_are_as_written_and_typed_by_the_schema() -> None:
    tools = [tool("get_weather", {"city": {"type": "string"}, "days": {"type": "integer"}})]
    text = ("<tool_calls><tool_call>get_weather<tool_sep><arg_key>city</arg_key><arg_value>"
            "  Bei jing \n</arg_value><arg_key>days</arg_key><arg_value>3</arg_value></tool_call>"
            "</tool_calls>")
    (call,) = toolparse.parse(text, dialect=HY, tools=tools).calls
    assert call.arguments == {"city": "  Bei jing \n", "days": 3} and call.status == "valid"


@pytest.mark.parametrize(("text", "reason"), [
    ("<tool_calls><tool_call>get_current_date<tool_sep></tool_call>", "truncated"),
    ("<tool_calls><tool_call></tool_call></tool_calls>", "unexpected_token"),
    ("<tool_calls><tool_call>get_weather<tool_sep><arg_key>city</arg_key><arg_value>X</arg_value>"
     "JUNK</tool_call></tool_calls>", "unexpected_token"),
    ("<tool_calls><tool_call>f<arg_key>city</arg_key></tool_call></tool_calls>",
     "unexpected_token"),
])
def test_hy_malformed_blocks_fail_with_their_text(text: str, reason: str, check_chunkings) -> None:
    events = check_chunkings(text, dialect=HY)
    assert [e[0] for e in events] == ["failed"] and events[0][1] == text
    assert events[0][2] == reason


def test_hy_auto_tells_it_from_deepseek_by_the_next_tag(check_chunkings) -> None:
    deepseek = '<tool_calls><invoke name="f"><parameter name="a">1</parameter></invoke></tool_calls>'
    assert check_chunkings(HY_WEATHER, dialect="auto") == check_chunkings(HY_WEATHER, dialect=HY)
    assert calls_of(deepseek, dialect="auto") == [("f", {"a": 1})]


# ---- step3 -------------------------------------------------------------------------------------

STEP = "step3"
STEP_BEGIN, STEP_END = "<｜tool_calls_begin｜>", "<｜tool_calls_end｜>"


def step_call(name: str, params: dict[str, str], head: str = "function<｜tool_sep｜>") -> str:
    return (f'<｜tool_call_begin｜>{head}<steptml:invoke name="{name}">' + "".join(
        f'<steptml:parameter name="{k}">{v}</steptml:parameter>' for k, v in params.items())
        + "</steptml:invoke><｜tool_call_end｜>")


def test_step_the_template_layout_keeps_the_text_around(check_chunkings) -> None:
    block = STEP_BEGIN + step_call("get_weather", {"city": "Tokyo"}) + STEP_END
    assert check_chunkings(f"Let me check.\n\n{block}\n\nDone.", dialect=STEP) == [
        ("text", "Let me check.\n\n"), ("block", block, [("get_weather", {"city": "Tokyo"})]),
        ("text", "\n\nDone.")]


@pytest.mark.parametrize("head", ["", "function<｜tool_sep｜>", "function<｜tool_sep｜>get_weather\n"])
def test_step_the_head_may_be_missing_or_carry_the_name(head: str) -> None:
    text = (STEP_BEGIN + step_call("get_weather", {"city": "Tokyo"}, head) + "<｜tool_sep｜>"
            + step_call("get_time", {"timezone": "Asia/Tokyo"}, head) + STEP_END)
    assert calls_of(text, dialect=STEP) == [("get_weather", {"city": "Tokyo"}),
                                            ("get_time", {"timezone": "Asia/Tokyo"})]


def test_step_a_string_keeps_its_whitespace_and_the_schema_types_the_rest() -> None:
    tools = [tool("edit_file", {"old_string": {"type": "string"}, "indent": {"type": "integer"},
                                "enabled": {"type": "boolean"}})]
    text = STEP_BEGIN + step_call("edit_file", {"old_string": "    if x:\n", "indent": " 4 ",
                                                "enabled": " true "}) + STEP_END
    (call,) = toolparse.parse(text, dialect=STEP, tools=tools).calls
    assert call.arguments == {"old_string": "    if x:\n", "indent": 4, "enabled": True}


def test_step_what_is_no_call(check_chunkings) -> None:
    cut = STEP_BEGIN + '<｜tool_call_begin｜><steptml:invoke name="func">'
    assert check_chunkings(cut, dialect=STEP) == [("failed", cut, "truncated")]
    bare = '<｜tool_call_begin｜><steptml:invoke name="func"></steptml:invoke><｜tool_call_end｜>'
    assert check_chunkings(bare, dialect=STEP) == [("text", bare)]


# ---- minimax_m3 --------------------------------------------------------------------------------

MM3 = "minimax_m3"
NS = "]<]minimax[>["


def m3_invoke(name: str, **args: str) -> str:
    return (f'{NS}<invoke name="{name}">' + "".join(f"{NS}<{k}>{v}{NS}</{k}>" for k, v in args.items())
            + f"{NS}</invoke>")


def test_m3_invokes_with_key_named_elements_typed_by_the_schema(check_chunkings) -> None:
    block = (f"{NS}<tool_call>\n{m3_invoke('create_order', user_id='42', urgent='true')}\n"
             f"{m3_invoke('create_order', user_id='2')}\n{NS}</tool_call>")
    assert check_chunkings("I will create it.\n" + block, dialect=MM3) == [
        ("text", "I will create it.\n"),
        ("block", block, [("create_order", {"user_id": "42", "urgent": "true"}),
                          ("create_order", {"user_id": "2"})])]
    tools = [tool("create_order", {"user_id": {"type": "integer"}, "urgent": {"type": "boolean"}})]
    first = toolparse.parse(block, dialect=MM3, tools=tools).calls[0]
    assert first.arguments == {"user_id": 42, "urgent": True} and first.status == "valid"


def m3_el(key: str, *inner: str) -> str:
    return f"{NS}<{key}>" + "".join(inner) + f"{NS}</{key}>"


# vLLM's minimax_m3 test order (tests/tool_parsers/test_minimax_m3_tool_parser.py): objects
# and arrays as key-named child elements, a repeated member making a list.
def m3_order(zip_code: str) -> str:
    item = lambda sku, qty: m3_el("item", m3_el("sku", sku), m3_el("qty", qty))  # noqa: E731
    return (f"{NS}<tool_call>\n" + f'{NS}<invoke name="create_order">'
            + m3_el("user_id", "42") + m3_el("urgent", "true")
            + m3_el("note", "Please leave at front desk.")
            + m3_el("shipping", m3_el("city", "Singapore"), m3_el("zip", zip_code))
            + m3_el("items", item("book-001", "2"), item("pen-007", "5"))
            + m3_el("metadata", m3_el("source", "mobile"), m3_el("campaign", "may-launch"))
            + m3_el("duplicate_demo", m3_el("tag", "a"), m3_el("tag", "b"))
            + f"{NS}</invoke>\n{NS}</tool_call>")


ORDER_TOOLS = [tool("create_order", {
    "user_id": {"type": "integer"}, "urgent": {"type": "boolean"}, "note": {"type": "string"},
    "shipping": {"type": "object", "properties": {"city": {"type": "string"},
                                                  "zip": {"type": "integer"}}},
    "items": {"type": "array", "items": {"type": "object", "properties": {
        "sku": {"type": "string"}, "qty": {"type": "integer"}}}},
    "metadata": {"type": "object", "additionalProperties": {"type": "string"}},
    "duplicate_demo": {"type": "object"}})]


def test_m3_elements_inside_a_value_are_an_object_or_by_the_schema_an_array(check_chunkings) -> None:
    block = m3_order("18956")
    # Without tools (typing=schema): members are an object of texts, a repeated one a list.
    assert check_chunkings("I will create it.\n" + block, dialect=MM3)[1][2] == [("create_order", {
        "user_id": "42", "urgent": "true", "note": "Please leave at front desk.",
        "shipping": {"city": "Singapore", "zip": "18956"},
        "items": {"item": [{"sku": "book-001", "qty": "2"}, {"sku": "pen-007", "qty": "5"}]},
        "metadata": {"source": "mobile", "campaign": "may-launch"},
        "duplicate_demo": {"tag": ["a", "b"]}})]
    # With tools the schema types every member (SPEC 6), and an array's items are the
    # members' values whatever their names.
    call = toolparse.parse("I will create it.\n" + block, dialect=MM3, tools=ORDER_TOOLS).calls[0]
    assert call.status == "valid" and call.arguments == {
        "user_id": 42, "urgent": True, "note": "Please leave at front desk.",
        "shipping": {"city": "Singapore", "zip": 18956},
        "items": [{"sku": "book-001", "qty": 2}, {"sku": "pen-007", "qty": 5}],
        "metadata": {"source": "mobile", "campaign": "may-launch"},
        "duplicate_demo": {"tag": ["a", "b"]}}


def test_m3_vllms_zip_with_a_leading_zero_is_no_integer() -> None:
    # vLLM reads `018956` as 18956; it is no JSON integer, so SPEC 6 keeps the text and
    # the call is rejected at that member (docs/dialects.md says so).
    call = toolparse.parse(m3_order("018956"), dialect=MM3, tools=ORDER_TOOLS).calls[0]
    assert call.status == "rejected" and call.arguments["shipping"]["zip"] == "018956"
    assert [e[0] for e in call.repair.errors] == ["/shipping/zip"]


def test_m3_incremental_members_add_up_to_the_arguments() -> None:
    text = m3_order("18956")
    for tools in (None, ORDER_TOOLS):
        for size in (1, 5, 64):
            events = stream([text[i:i + size] for i in range(0, len(text), size)],
                            dialect=MM3, tools=tools, incremental=True)
            deltas = "".join(e.text for e in events if isinstance(e, toolparse.ArgumentsDelta))
            block = next(e for e in events if isinstance(e, toolparse.ToolCallBlock))
            assert deltas == block.calls[0].arguments_json
            assert not any(isinstance(e, toolparse.CallsAborted) for e in events)


@pytest.mark.parametrize("value, reason", [
    (m3_el("shipping", "Singapore ", m3_el("city", "x")), "mixed_value"),
    (f"{NS}<shipping>{NS}<city>x{NS}</shipping>{NS}</city>", "mismatched_close"),
    (m3_el("a", f"{NS}<b>" * 70 + "x" + f"{NS}</b>" * 70), "too_deep"),
])
def test_m3_what_elements_cannot_be_fails_the_block(check_chunkings, value: str, reason: str) -> None:
    block = f'{NS}<tool_call>{NS}<invoke name="f">{value}{NS}</invoke>{NS}</tool_call>'
    events = check_chunkings(block + " after", dialect=MM3)
    assert events[0][0] == "failed" and events[0][2] == reason
    assert "".join(e[1] for e in events) == block + " after"


def test_m3_vllm_texts_that_are_not_calls() -> None:
    # A block cut off after one complete invoke is truncated: no call runs (vLLM runs the
    # first); a close tag where an invoke goes fails the block; the text stays whole.
    first = f'{NS}<invoke name="create_order">{m3_el("user_id", "1")}{NS}</invoke>'
    cut = f"plain {NS}<tool_call>\n{first}\n{NS}<invoke name=\"create_order\">{NS}<user_id>2"
    result = toolparse.parse(cut, dialect=MM3)
    assert result.calls == () and result.text == cut
    assert [f.reason for f in result.failures] == ["truncated"]
    bad = f"{NS}<tool_call>\n{NS}</user_id> after error"
    result = toolparse.parse(bad, dialect=MM3)
    assert result.calls == () and result.text == bad and len(result.failures) == 1


def test_m3_reasoning_is_mm_think() -> None:
    quoted = f"{NS}<tool_call>{m3_invoke('run', cmd='ls')}{NS}</tool_call>"
    result = toolparse.parse(f"<mm:think>I could {quoted}</mm:think>{quoted}", dialect=MM3)
    assert [c.name for c in result.calls] == ["run"] and result.reasoning == f"I could {quoted}"


def test_m3_a_cut_opener_is_text() -> None:
    assert toolparse.parse(f"plain {NS}<tool_ca", dialect=MM3).text == f"plain {NS}<tool_ca"


# ---- kimi_k3 -----------------------------------------------------------------------------------

K3 = "kimi_k3"
K3_O, K3_C, K3_S = "<|open|>", "<|close|>", "<|sep|>"
K3_TOOLS, K3_TOOLS_END = f"{K3_O}tools{K3_S}", f"{K3_C}tools{K3_S}"
K3_RESPONSE, K3_RESPONSE_END = f"{K3_O}response{K3_S}", f"{K3_C}response{K3_S}"
K3_THINK, K3_THINK_END = f"{K3_O}think{K3_S}", f"{K3_C}think{K3_S}"
K3_MESSAGE_END = f"{K3_C}message{K3_S}"


def k3_call(name: str, index: int, args: dict[str, tuple[str, str]]) -> str:
    """A call as the engines' tests write it: each argument (type, text as written)."""
    return (f'{K3_O}call tool="{name}" index="{index}"{K3_S}'
            + "".join(f'{K3_O}argument key="{k}" type="{t}"{K3_S}{v}{K3_C}argument{K3_S}'
                      for k, (t, v) in args.items()) + f"{K3_C}call{K3_S}")


def test_k3_response_then_tools(check_chunkings) -> None:
    # SGLang's test_detect_and_parse_single_call and test_streaming_split_markers: the
    # response message is content, its markers framing; a typed argument is its JSON.
    block = K3_TOOLS + k3_call("python", 1, {"code": ("string", "print(1)"),
                                             "opts": ("object", '{"a": 1}')}) + K3_TOOLS_END
    text = f"{K3_RESPONSE}Let me run it.{K3_RESPONSE_END}{block}{K3_MESSAGE_END}"
    events = check_chunkings(text, dialect=K3)
    assert [e for e in events if e[0] == "block"] == [
        ("block", block, [("python", {"code": "print(1)", "opts": {"a": 1}})])]
    result = toolparse.parse(text, dialect=K3)
    assert result.text == "Let me run it." and result.reasoning == ""
    assert "".join(e.raw for e in result.events) == text


def test_k3_the_turns_close_marker_never_reaches_content(check_chunkings) -> None:
    # vLLM's tests: `Hello<|close|>message<|sep|>` streams "Hello" however it is cut;
    # a response whose header was in the prompt ends at its close marker.
    for text in (f"Hello{K3_MESSAGE_END}", f"Hello{K3_RESPONSE_END}{K3_MESSAGE_END}",
                 f"{K3_RESPONSE}hi there{K3_RESPONSE_END}{K3_MESSAGE_END}"):
        check_chunkings(text, dialect=K3)
        result = toolparse.parse(text, dialect=K3)
        assert result.text in ("Hello", "hi there") and result.calls == ()


def test_k3_several_calls_escaped_names_raw_strings_typed_values() -> None:
    two = (K3_TOOLS + k3_call("python", 1, {"code": ("string", "a")})
           + k3_call("python", 2, {"code": ("string", "b")}) + K3_TOOLS_END)
    assert [c.arguments for c in toolparse.parse(two, dialect=K3).calls] == [
        {"code": "a"}, {"code": "b"}]
    escaped = (K3_TOOLS + '<|open|>call tool="a&amp;b" index="1"<|sep|>'
               '<|open|>argument key="q&quot;" type="string"<|sep|>say &quot;hi&quot;'
               "<|close|>argument<|sep|><|close|>call<|sep|>" + K3_TOOLS_END)
    call = toolparse.parse(escaped, dialect=K3).calls[0]
    assert call.name == "a&b" and call.arguments == {'q"': "say &quot;hi&quot;"}
    typed = K3_TOOLS + k3_call("python", 1, {"n": ("number", "42"), "flag": ("boolean", "true"),
                                             "s": ("string", "42"),
                                             "bad": ("object", "{not json")}) + K3_TOOLS_END
    call = toolparse.parse(typed, dialect=K3).calls[0]
    assert call.arguments == {"n": 42, "flag": True, "s": "42", "bad": "{not json"}
    assert call.json_errors == ("bad",)


def test_k3_the_schema_checks_what_the_type_attribute_typed() -> None:
    text = K3_TOOLS + k3_call("f", 1, {"n": ("string", "42"), "m": ("integer", "7")}) + K3_TOOLS_END
    # A string-typed `42` for a property that admits only integers: the text, rejected.
    call = toolparse.parse(text, dialect=K3, tools=[tool("f", {
        "n": {"type": "integer"}, "m": {"type": "integer"}})]).calls[0]
    assert call.status == "rejected" and call.arguments["n"] == "42"
    call = toolparse.parse(text, dialect=K3, tools=[tool("f", {
        "n": {"type": "string"}, "m": {"type": "integer"}})]).calls[0]
    assert call.status == "valid" and call.arguments == {"n": "42", "m": 7}


def test_k3_think_is_reasoning_and_a_call_there_never_runs(check_chunkings) -> None:
    quoted = K3_TOOLS + k3_call("run", 1, {"cmd": ("string", "rm -rf /")}) + K3_TOOLS_END
    real = K3_TOOLS + k3_call("run", 1, {"cmd": ("string", "ls")}) + K3_TOOLS_END
    text = f"{K3_THINK}I could {quoted}{K3_THINK_END}{K3_RESPONSE}ok{K3_RESPONSE_END}{real}"
    check_chunkings(text, dialect=K3)
    result = toolparse.parse(text, dialect=K3)
    assert result.reasoning == f"I could {quoted}" and result.text == "ok"
    assert [c.arguments for c in result.calls] == [{"cmd": "ls"}]
    # SGLang's think cases: a think message cut off is reasoning to the end; a stream that
    # starts inside it (the prompt opened it) ends it at its close marker.
    cut = toolparse.parse(f"{K3_THINK}cut off mid-thought", dialect=K3)
    assert cut.reasoning == "cut off mid-thought" and cut.text == ""
    opened = toolparse.parse(f"weighing{K3_THINK_END}visible", dialect=K3, in_reasoning=True)
    assert opened.reasoning == "weighing" and opened.text == "visible"
    # With reasoning off a think message is content; its markers are still framing.
    off = toolparse.parse(f"{K3_THINK}aloud{K3_THINK_END}", dialect=K3, reasoning=None)
    assert off.text == "aloud" and off.reasoning == ""


def test_k3_what_is_no_call(check_chunkings) -> None:
    # SGLang runs the complete call of a tools message the stream cuts off; here the
    # block is truncated and nothing runs (SPEC G4). Lone and cut markers are text.
    cut = K3_TOOLS + k3_call("python", 1, {"code": ("string", "x")})
    assert check_chunkings(cut, dialect=K3) == [("failed", cut, "truncated")]
    for text in ("all done<", "all done<|open|>", "a < b and c |> d",
                 "calls open with <|open|>call, then attributes", "<|open|>tools"):
        result = toolparse.parse(text, dialect=K3)
        assert result.text == text and result.calls == ()
    # Inside a response message a tools message is text (a message ends at a close marker).
    inside = f"{K3_RESPONSE}write {K3_TOOLS}{k3_call('f', 1, {})}{K3_TOOLS_END}{K3_RESPONSE_END}"
    result = toolparse.parse(inside, dialect=K3)
    assert result.calls == () and result.text == f"write {K3_TOOLS}{k3_call('f', 1, {})}{K3_TOOLS_END}"


def test_k3_auto_finds_it() -> None:
    text = f"{K3_RESPONSE}ok{K3_RESPONSE_END}" + K3_TOOLS + k3_call("f", 1, {"n": ("number", "1")}) + K3_TOOLS_END
    result = toolparse.parse(text, dialect="auto")
    assert [(c.name, c.arguments) for c in result.calls] == [("f", {"n": 1})]
    assert result.text == "ok"


def test_type_attribute_is_checked_at_load(tmp_path) -> None:
    grammar = ("// t.lark: test.\n//! toolparse: typing=attribute "
               "value_edges=none type_attribute={name}\nblock: OPEN invoke+ CLOSE\n"
               "invoke: CALL param* END\nparam: ARG TEXT* ARG_END\n{attribute}"
               'OPEN.3: "<calls>"\nCLOSE.3: "</calls>"\nCALL.3: /<call n="(?P<name>[a-z]+)">/\n'
               'END.3: "</call>"\nARG.3: /<arg k="(?P<name>[a-z]+)"( t="[a-z]+")?>/\n'
               'ARG_END.3: "</arg>"\nTEXT.1: /[^<]+/\nWS: /\\s+/\n%ignore WS\n')
    path = tmp_path / "t.lark"
    path.write_text(grammar.format(name="t", attribute=""), encoding="utf-8")
    with pytest.raises(toolparse.GrammarError, match="ATTRIBUTE"):
        toolparse.Dialect.from_file(path)
    path.write_text(grammar.format(name="t=", attribute=""), encoding="utf-8")
    with pytest.raises(toolparse.GrammarError, match="type_attribute"):
        toolparse.Dialect.from_file(path)
    path.write_text(grammar.format(name="t", attribute='attribute: ATTRIBUTE\nATTRIBUTE: /([a-z]+)="([^"<]*)"/\n'),
                    encoding="utf-8")
    loaded = toolparse.Dialect.from_file(path)
    text = '<calls><call n="f"><arg k="a" t="string">1</arg><arg k="b" t="integer">1</arg><arg k="c">1</arg></call></calls>'
    assert toolparse.parse(text, dialect=loaded).calls[0].arguments == {"a": "1", "b": 1, "c": 1}
