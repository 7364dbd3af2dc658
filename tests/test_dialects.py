"""The bundled dialects (SPEC 5.2), rule by rule: each one's markup, its variants and
leniencies, what is not accepted, and typing by the grammar header (SPEC 5.1). The
guarantees of SPEC section 1 per dialect are in test_dialects_properties.py."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

import toolparse
from toolparse._syntax.files import grammars_dir
from conftest import calls_of, check_chunkings  # noqa: F401  (the fixture)
from test_dialects_samples import DIALECTS, SAMPLES
from toolparse._dialect.loader import dialects, key_value_tokens
from toolparse._syntax.files import grammar_path


def tool(name: str, properties: dict[str, Any], required: tuple[str, ...] = ()) -> dict[str, Any]:
    return {"type": "function", "function": {"name": name, "parameters": {
        "type": "object", "properties": properties, "required": list(required)}}}


TYPED = tool("configure", {"n": {"type": "integer"}, "on": {"type": "boolean"},
                           "ids": {"type": "array", "items": {"type": "integer"}},
                           "label": {"type": "string"}, "opts": {"type": "object"}})


# ---- the registry ------------------------------------------------------------------------------

def test_dialects_lists_every_grammar_file_default_first_then_by_name() -> None:
    # A dialect is its grammar file: a new file in grammars/dialects/ is listed, with
    # no list to edit.
    files = sorted(path.stem for path in (grammars_dir() / "dialects").glob("*.lark"))
    assert dialects() == ("deepseek", *(name for name in files if name != "deepseek"))
    assert {"deepseek", "anthropic", "glm45", "hermes", "kimi_k2", "minimax_m2",
            "qwen3_coder", "gpt_oss",
            # the special-token and tag formats of the third wave (issue 43)
            "deepseek_v3", "deepseek_v31", "seed_oss", "minicpm5", "hy_v3", "step3",
            "minimax_m3", "kimi_k3"} <= set(dialects())


@pytest.mark.parametrize("dialect", DIALECTS)
def test_each_dialect_is_its_grammar_file_with_a_description(dialect: str) -> None:
    loaded = toolparse.Dialect.bundled(dialect)
    assert loaded.path == grammar_path(f"dialects/{dialect}.lark")
    assert loaded.description and "\n" not in loaded.description
    assert loaded.typing == {"deepseek": "attribute", "hermes": "json", "kimi_k2": "json",
                             "gpt_oss": "json", "deepseek_v3": "json", "deepseek_v31": "json",
                             "longcat": "json", "internlm": "json", "nemotron": "json",
                             "cohere": "json", "apertus": "json", "hunyuan_a13b": "json",
                             "minimax_m1": "json", "mistral": "json",
                             "olmo3": "pythonic", "lfm2": "pythonic",
                             "pythonic": "pythonic", "kimi_k3": "attribute",
                             "granite": "json", "phi4_mini": "json", "gemma4": "gemma",
                             "llama3_json": "json"}.get(dialect, "schema")


def test_the_cli_lists_each_dialect_with_its_description(capsys) -> None:
    from toolparse._cli.main import main

    assert main(["dialects"]) == 0
    out = capsys.readouterr().out
    for name in dialects():
        loaded = toolparse.Dialect.bundled(name)
        assert f"{name}  " in out and str(loaded.path) in out and loaded.description in out


# ---- qwen3_coder -------------------------------------------------------------------------------

QWEN = "qwen3_coder"


def test_qwen_template_layout_keeps_values_as_written(check_chunkings) -> None:
    text = ("<tool_call>\n<function=write_file>\n<parameter=path>\nsrc/a.py\n</parameter>\n"
            "<parameter=content>\n\n  def f():\n      return a < b  # &amp;\n\n</parameter>\n"
            "</function>\n</tool_call>")
    # One leading and one trailing newline are the template's; the rest is the value.
    assert check_chunkings(text, dialect=QWEN) == [("block", text, [("write_file", {
        "path": "src/a.py", "content": "\n  def f():\n      return a < b  # &amp;\n"})])]


def test_qwen_a_missing_parameter_close_ends_at_the_next_parameter_or_the_call(check_chunkings) -> None:
    text = "<tool_call>\n<function=f>\n<parameter=a>\n1\n<parameter=b>\ntwo\n</function>\n</tool_call>"
    assert check_chunkings(text, dialect=QWEN) == [("block", text, [("f", {"a": "1", "b": "two"})])]


def test_qwen_a_bare_function_is_a_block_of_its_own(check_chunkings) -> None:
    first = "<function=a>\n<parameter=x>\n1\n</parameter>\n</function>"
    second = "<function=b>\n</function>"
    text = f"Running:\n{first}\n{second}\nDone."
    assert check_chunkings(text, dialect=QWEN) == [
        ("text", "Running:\n"), ("block", first, [("a", {"x": "1"})]), ("text", "\n"),
        ("block", second, [("b", {})]), ("text", "\nDone.")]


def test_qwen_seed_oss_wrapper_must_close_as_it_opened(check_chunkings) -> None:
    seed = "<seed:tool_call>\n<function=a>\n</function>\n</seed:tool_call>"
    assert check_chunkings(seed, dialect=QWEN) == [("block", seed, [("a", {})])]
    mixed = "<seed:tool_call>\n<function=a>\n</function>\n</tool_call>"
    ((kind, failed, reason),) = check_chunkings(mixed, dialect=QWEN)
    assert (kind, failed, reason) == ("failed", mixed, "unexpected_token")


def test_qwen_several_calls_share_one_wrapper(check_chunkings) -> None:
    text = "<tool_call>\n<function=a>\n</function>\n<function=b>\n</function>\n</tool_call>"
    assert check_chunkings(text, dialect=QWEN) == [("block", text, [("a", {}), ("b", {})])]


def test_qwen_a_broken_wrapped_block_runs_none_of_its_calls(check_chunkings) -> None:
    # The close of a bare call is not a block close inside a wrapper: the span of the
    # broken block runs to </tool_call>, and the call after the broken one stays text.
    block = ("<tool_call>\n<function=a>\n<parameter=x>1</parameter>\nstray\n</function>\n"
             "<function=run>\n<parameter=command>rm -rf build</parameter>\n</function>\n</tool_call>")
    assert check_chunkings(block + "\nok", dialect=QWEN) == [
        ("failed", block, "unexpected_token"), ("text", "\nok")]


def test_qwen_a_prose_mention_of_the_wrapper_is_a_failed_mention(check_chunkings) -> None:
    text = "Wrap each call in <tool_call> tags.\n\n" + SAMPLES[QWEN].one_line("t")
    assert check_chunkings(text, dialect=QWEN) == [
        ("text", "Wrap each call in "), ("failed", "<tool_call> ", "unexpected_token"),
        ("text", "tags.\n\n"), ("block", SAMPLES[QWEN].one_line("t"), [("t", {})])]


def test_qwen_a_function_tag_needs_a_name() -> None:
    assert calls_of("<function=>\n</function>", dialect=QWEN) == []
    assert calls_of("<function= x >\n</function>", dialect=QWEN) == [("x", {})]


# ---- minimax_m2 and anthropic -------------------------------------------------------------------

XML_DIALECTS = {"minimax_m2": ("<minimax:tool_call>", "</minimax:tool_call>"),
                "anthropic": ("<function_calls>", "</function_calls>")}


@pytest.mark.parametrize("dialect", sorted(XML_DIALECTS))
def test_xml_values_keep_entities_and_follow_the_edge_rule(dialect: str, check_chunkings) -> None:
    open_, close = XML_DIALECTS[dialect]
    text = (f'{open_}\n<invoke name="write">\n<parameter name="path"> a.html </parameter>\n'
            '<parameter name="body">\n  <p>&amp; a < b</p>\n  done\n</parameter>\n'
            f"</invoke>\n{close}")
    assert check_chunkings(text, dialect=dialect) == [("block", text, [("write", {
        "path": "a.html", "body": "  <p>&amp; a < b</p>\n  done"})])]


@pytest.mark.parametrize("dialect", sorted(XML_DIALECTS))
def test_xml_what_is_not_accepted(dialect: str) -> None:
    open_, close = XML_DIALECTS[dialect]
    for text in (f'{open_}<invoke name="a"/>{close}',              # no self-closing call
                 f'{open_}<invoke name="a">{{"x": 1}}</invoke>{close}',  # no JSON body
                 f"{open_}<invoke></invoke>{close}",                # a call needs a name
                 f'{open_}<invoke name="a"><parameter>1</parameter></invoke>{close}'):
        result = toolparse.parse(text, dialect=dialect)
        assert result.calls == () and result.failures, text
    # No missing-wrapper form: an invoke alone starts nothing.
    alone = f'<invoke name="a"></invoke>{close}'
    assert toolparse.parse(alone, dialect=dialect).events == (toolparse.Text(alone),)


@pytest.mark.parametrize("dialect", sorted(XML_DIALECTS))
def test_xml_names_come_from_the_name_attribute(dialect: str) -> None:
    open_, close = XML_DIALECTS[dialect]
    text = (f"{open_}<invoke id='7' name = 'a b' ><parameter kind=\"x\" name=\"k\">v</parameter>"
            f"</invoke>{close}")
    assert calls_of(text, dialect=dialect) == [("a b", {"k": "v"})]


def test_the_string_attribute_is_deepseeks_alone() -> None:
    # typing=schema: the schema types a value; DSML's string= attribute means nothing.
    text = ('<minimax:tool_call><invoke name="configure"><parameter name="n" string="true">5'
            "</parameter></invoke></minimax:tool_call>")
    (call,) = toolparse.parse(text, dialect="minimax_m2", tools=[TYPED]).calls
    assert call.arguments == {"n": 5} and call.status == "valid"


# ---- glm45 ---------------------------------------------------------------------------------------

GLM = "glm45"


def test_glm_45_and_47_layouts_give_the_same_call(check_chunkings) -> None:
    glm45 = ("<tool_call>read_file\n<arg_key>path</arg_key>\n<arg_value>README.md</arg_value>\n"
             "<arg_key>limit</arg_key>\n<arg_value>20</arg_value>\n</tool_call>")
    glm47 = ("<tool_call>read_file<arg_key>path</arg_key><arg_value>README.md</arg_value>"
             "<arg_key>limit</arg_key><arg_value>20</arg_value></tool_call>")
    call = ("read_file", {"path": "README.md", "limit": "20"})
    assert check_chunkings(glm45, dialect=GLM) == [("block", glm45, [call])]
    assert check_chunkings(glm47, dialect=GLM) == [("block", glm47, [call])]


def test_glm_a_call_without_arguments(check_chunkings) -> None:
    for text in ("<tool_call>list_files</tool_call>", "<tool_call>list_files\n</tool_call>",
                 "<tool_call>\nlist_files\n</tool_call>"):
        assert check_chunkings(text, dialect=GLM) == [("block", text, [("list_files", {})])]


def test_glm_each_call_is_a_block_of_its_own(check_chunkings) -> None:
    a = "<tool_call>a\n<arg_key>x</arg_key>\n<arg_value>1</arg_value>\n</tool_call>"
    b = "<tool_call>b\n</tool_call>"
    assert check_chunkings(f"{a}\n{b}", dialect=GLM) == [
        ("block", a, [("a", {"x": "1"})]), ("text", "\n"), ("block", b, [("b", {})])]


def test_glm_a_prose_mention_starts_no_call(check_chunkings) -> None:
    # The name is one word that only the first argument or the close may follow: prose
    # after <tool_call> is no name, even when one word and then the real call follow.
    real = "<tool_call>ls\n<arg_key>path</arg_key>\n<arg_value>.</arg_value>\n</tool_call>"
    for mention, rest in (("The ", "tag opens a call.\n\n"), ("Use ", "tags.\n\n"),
                          ("我会用 ", "包裹调用。\n")):
        assert check_chunkings(f"{mention}<tool_call> {rest}{real}", dialect=GLM) == [
            ("text", mention), ("failed", "<tool_call> ", "unexpected_token"),
            ("text", rest), ("block", real, [("ls", {"path": "."})])]


def test_glm_a_broken_call_is_its_own_failed_span(check_chunkings) -> None:
    broken = "<tool_call>a\n<arg_key>x</arg_key>\n<arg_value>1</arg_value>\nstray\n</tool_call>"
    good = "<tool_call>b</tool_call>"
    assert check_chunkings(f"{broken}\n{good}", dialect=GLM) == [
        ("failed", broken, "unexpected_token"), ("text", "\n"), ("block", good, [("b", {})])]


def test_glm_a_value_runs_to_its_close_tags_inside_are_text(check_chunkings) -> None:
    text = ("<tool_call>write<arg_key>body</arg_key><arg_value>\n<arg_key>x</arg_key> & <b>\n"
            "</arg_value></tool_call>")
    assert check_chunkings(text, dialect=GLM) == [
        ("block", text, [("write", {"body": "\n<arg_key>x</arg_key> & <b>\n"})])]


def test_glm_a_value_is_exactly_the_text_between_its_tags(check_chunkings) -> None:
    # SPEC 5.2: GLM's template writes the value as it is; nothing is trimmed.
    text = ("<tool_call>edit<arg_key>old</arg_key><arg_value>    if x:  </arg_value>"
            "<arg_key>new</arg_key><arg_value>\n\tpass\r\n  </arg_value></tool_call>")
    assert check_chunkings(text, dialect=GLM) == [
        ("block", text, [("edit", {"old": "    if x:  ", "new": "\n\tpass\r\n  "})])]


def test_glm_an_empty_key_fails_the_call() -> None:
    text = "<tool_call>a<arg_key> </arg_key><arg_value>1</arg_value></tool_call>"
    (failure,) = toolparse.parse(text, dialect=GLM).failures
    assert failure.reason == "invalid_name"


def test_glm_reads_its_argument_head_as_one_token_and_a_key_holds_no_lt(check_chunkings: Any) -> None:
    # ARG_KEY is `<arg_key>K</arg_key>`, whitespace, `<arg_value>`: cut anywhere by the
    # chunking, with any whitespace between, the same argument; a `<` in a key fails.
    text = "<tool_call>f<arg_key> a </arg_key>\n\t <arg_value>1</arg_value></tool_call>"
    check_chunkings(text, dialect=GLM)
    (call,) = toolparse.parse(text, dialect=GLM).calls
    assert call.arguments == {"a": "1"}
    (failure,) = toolparse.parse(text.replace(" a ", "a<b"), dialect=GLM).failures
    assert failure.reason == "unexpected_token"


def test_repair_reads_the_glm_tokens_from_the_grammar() -> None:
    # SPEC 5.2: the tokens repair strips and decodes are the glm45 grammar's, not Python's.
    from toolparse._calls.repair.base import glm_tokens

    text = grammar_path("dialects/glm45.lark").read_text(encoding="utf-8")
    tokens = glm_tokens()
    assert tuple(tokens) == key_value_tokens("glm45")
    for name, token in zip(("KEY_OPEN", "KEY_CLOSE", "VALUE_OPEN", "VALUE_CLOSE"), tokens):
        assert re.search(rf'^{name}(\.\d+)?: "{re.escape(token)}"$', text, re.M), name


def test_glm_pairs_in_json_arguments_are_repaired_on_a_glm_route() -> None:
    # The same tokens, leaked into the JSON arguments of a Hermes call on a GLM route.
    text = ('<tool_call>{"name": "configure", "arguments": "<arg_key>n</arg_key>'
            '<arg_value>5</arg_value>"}</tool_call>')
    (call,) = toolparse.parse(text, dialect="hermes", tools=[TYPED], model="zai/glm-4.6",
                              repair={"grammar_leak_models": ["glm"]}).calls
    assert call.arguments == {"n": 5} and call.status == "repaired"


# ---- hermes ----------------------------------------------------------------------------------------

HERMES = "hermes"


@pytest.mark.parametrize("body", [
    '{"name": "f", "arguments": {"a": 1}}', '{"arguments": {"a": 1}, "name": "f"}',
    '{"name": "f", "parameters": {"a": 1}}', '{"parameters": {"a": 1}, "name": "f"}',
    '{"name": "f", "arguments": "{\\"a\\": 1}"}', '\n  {"name": "f", "arguments": {"a": 1}}\n'])
def test_hermes_keys_in_any_order_arguments_or_parameters(body: str, check_chunkings) -> None:
    text = f"<tool_call>{body}</tool_call>"
    assert check_chunkings(text, dialect=HERMES) == [("block", text, [("f", {"a": 1})])]


def test_hermes_a_body_that_is_no_object_is_a_prose_mention(check_chunkings) -> None:
    assert check_chunkings('<tool_call>["f", {}]</tool_call>', dialect=HERMES) == [
        ("failed", "<tool_call>", "unexpected_token"), ("text", '["f", {}]</tool_call>')]


def test_hermes_a_call_with_no_arguments_member() -> None:
    assert calls_of('<tool_call>{"name": "now"}</tool_call>', dialect=HERMES) == [("now", {})]


@pytest.mark.parametrize(("body", "reason"), [
    ('{"name": "f", "arguments": {"a": 1,}}', "invalid_call"),    # not JSON
    ('{"arguments": {}}', "invalid_name"),                           # no name
    ('{"name": "", "arguments": {}}', "invalid_name"),
    ('{"name": "f", "arguments": {}, "parameters": {}}', "invalid_call"),  # both
    ('{"name": "f", "arguments": {}, "id": 1}', "invalid_call"),     # other members
    ('{"name": "f", "name": "g", "arguments": {}}', "invalid_call")])  # a repeated key
def test_hermes_a_body_that_is_not_one_call_fails_its_block(body: str, reason: str,
                                                            check_chunkings) -> None:
    # The name is inside the JSON: without it there is no call to reject, so the block
    # fails, as text, with the whole span.
    text = f"<tool_call>{body}</tool_call>"
    assert check_chunkings(text + " ok", dialect=HERMES) == [
        ("failed", text, reason), ("text", " ok")]


# ---- kimi_k2 ------------------------------------------------------------------------------------

KIMI = "kimi_k2"
BEGIN, END = "<|tool_calls_section_begin|>", "<|tool_calls_section_end|>"


def kimi_call(header: str, args: str) -> str:
    return f"<|tool_call_begin|>{header}<|tool_call_argument_begin|>{args}<|tool_call_end|>"


@pytest.mark.parametrize(("header", "name"), [
    ("functions.get_weather:0", "get_weather"), ("get_weather:3", "get_weather"),
    (" functions.get_weather:12\n", "get_weather"), ("functions.mcp.fs.read:1", "mcp.fs.read"),
    ("functions.ns:tool:2", "ns:tool")])
def test_kimi_the_name_is_the_id_without_prefix_and_index(header: str, name: str) -> None:
    text = BEGIN + kimi_call(header, '{"city": "Paris"}') + END
    assert calls_of(text, dialect=KIMI) == [(name, {"city": "Paris"})]


@pytest.mark.parametrize("header", ["functions.get_weather", "functions.:0", "a b:0"])
def test_kimi_a_header_without_a_name_and_index_is_no_call(header: str) -> None:
    result = toolparse.parse(BEGIN + kimi_call(header, "{}") + END, dialect=KIMI)
    assert result.calls == () and result.failures


def test_kimi_a_missing_section_begin_is_tolerated(check_chunkings) -> None:
    calls = kimi_call("functions.a:0", "{}") + "\n" + kimi_call("functions.b:1", '{"x": 1}')
    text = f"Calling.\n{calls}\n{END}\nDone."
    assert check_chunkings(text, dialect=KIMI) == [
        ("text", "Calling.\n"), ("block", f"{calls}\n{END}", [("a", {}), ("b", {"x": 1})]),
        ("text", "\nDone.")]


def test_kimi_calls_with_no_section_end_are_text() -> None:
    text = kimi_call("functions.a:0", "{}") + "\nand that is all."
    result = toolparse.parse(text, dialect=KIMI)
    assert result.calls == () and result.text == text


def test_kimi_arguments_that_are_not_json_reject_the_call_not_the_block(check_chunkings) -> None:
    text = BEGIN + kimi_call("functions.a:0", '{"x": 1,}') + END
    (block,) = toolparse.parse(text, dialect=KIMI).events
    assert isinstance(block, toolparse.ToolCallBlock) and not block.accepted
    assert block.calls[0].status == "rejected" and block.calls[0].reason == "invalid_json"


# ---- typing by dialect (SPEC 5.1) ----------------------------------------------------------------

def schema_call(dialect: str, values: dict[str, str]) -> str:
    """A `configure` call in `dialect` with the values written as text."""
    if dialect == "qwen3_coder":
        body = "".join(f"<parameter={k}>\n{v}\n</parameter>\n" for k, v in values.items())
        return f"<tool_call>\n<function=configure>\n{body}</function>\n</tool_call>"
    if dialect == "glm45":
        body = "".join(f"<arg_key>{k}</arg_key>\n<arg_value>{v}</arg_value>\n" for k, v in values.items())
        return f"<tool_call>configure\n{body}</tool_call>"
    open_, close = XML_DIALECTS[dialect]
    body = "".join(f'<parameter name="{k}">{v}</parameter>\n' for k, v in values.items())
    return f'{open_}\n<invoke name="configure">\n{body}</invoke>\n{close}'


SCHEMA_DIALECTS = ["anthropic", "glm45", "minimax_m2", "qwen3_coder"]
WRITTEN = {"n": "007", "on": "true", "ids": "[1, 2]", "label": "42", "opts": '{"a": null}'}


@pytest.mark.parametrize("dialect", SCHEMA_DIALECTS)
def test_typing_schema_keeps_strings_without_tools(dialect: str) -> None:
    assert toolparse.Dialect.bundled(dialect).typing == "schema"
    (call,) = toolparse.parse(schema_call(dialect, WRITTEN), dialect=dialect).calls
    assert call.arguments == WRITTEN and call.status == "unchecked"


@pytest.mark.parametrize("dialect", SCHEMA_DIALECTS)
def test_typing_schema_types_by_the_schema_with_tools(dialect: str) -> None:
    values = {**WRITTEN, "n": "7"}
    (call,) = toolparse.parse(schema_call(dialect, values), dialect=dialect, tools=[TYPED]).calls
    assert call.arguments == {"n": 7, "on": True, "ids": [1, 2], "label": "42", "opts": {"a": None}}
    assert call.status == "valid"
    assert json.loads(call.arguments_json) == call.arguments


@pytest.mark.parametrize("dialect", SCHEMA_DIALECTS)
def test_typing_schema_a_value_the_schema_refuses_is_rejected(dialect: str) -> None:
    (call,) = toolparse.parse(schema_call(dialect, {"n": "seven"}), dialect=dialect,
                              tools=[TYPED]).calls
    assert call.status == "rejected" and call.reason == "schema"


def json_call(dialect: str, arguments: str) -> str:
    if dialect == "hermes":
        return f'<tool_call>{{"name": "configure", "arguments": {json.dumps(arguments)}}}</tool_call>'
    return BEGIN + kimi_call("functions.configure:0", arguments) + END


@pytest.mark.parametrize("dialect", ["hermes", "kimi_k2"])
def test_typing_json_arguments_are_repaired_like_an_openai_arguments_string(dialect: str) -> None:
    # A trailing comma: invalid JSON. Without tools the call is rejected (invalid_json);
    # with tools repair_tool_call fixes it, exactly as it would fix OpenAI arguments.
    broken = '{"n": 7, "ids": [1, 2],}'
    (plain,) = toolparse.parse(json_call(dialect, broken), dialect=dialect).calls
    assert plain.status == "rejected" and plain.reason == "invalid_json"
    (fixed,) = toolparse.parse(json_call(dialect, broken), dialect=dialect, tools=[TYPED]).calls
    expected = toolparse.repair_tool_call("configure", broken, TYPED["function"]["parameters"])
    assert (fixed.status, fixed.arguments) == (expected.status, expected.arguments) == (
        "repaired", {"n": 7, "ids": [1, 2]})


@pytest.mark.parametrize("dialect", ["hermes", "kimi_k2"])
def test_typing_json_values_are_never_guessed_or_typed_again(dialect: str) -> None:
    # The JSON says what a value is: a string stays a string even where the schema wants
    # an integer (rejected), and a number is a number without tools.
    (plain,) = toolparse.parse(json_call(dialect, '{"n": 7, "label": "42"}'), dialect=dialect).calls
    assert plain.arguments == {"n": 7, "label": "42"} and plain.status == "unchecked"
    (strict,) = toolparse.parse(json_call(dialect, '{"n": "7"}'), dialect=dialect,
                                tools=[TYPED]).calls
    assert strict.status == "rejected" and strict.reason == "schema"


@pytest.mark.parametrize("dialect", DIALECTS)
def test_an_unknown_tool_is_rejected_in_every_dialect(dialect: str) -> None:
    text = SAMPLES[dialect].one_line("delete_everything")
    (call,) = toolparse.parse(text, dialect=dialect, tools=[TYPED]).calls
    assert call.status == "rejected" and call.reason == "unknown_tool"


# ---- code context, per dialect (SPEC G3) ------------------------------------------------------

@pytest.mark.parametrize("dialect", DIALECTS)
def test_a_block_in_a_fence_or_a_code_span_is_text(dialect: str, check_chunkings) -> None:
    example = SAMPLES[dialect].one_line("example")
    real = SAMPLES[dialect].one_line("real")
    text = (f"The format:\n\n```\n{example}\n```\n\nInline: `{example}`, and\n\n"
            f"    {example}\n\nNow:\n{real}\n")
    assert check_chunkings(text, dialect=dialect) == [
        ("text", text[:text.index(real)]), ("block", real, [("real", {})]), ("text", "\n")]


BACKTICK_SAMPLES = [(name, text, calls) for name in DIALECTS
                    for text, calls in SAMPLES[name].well_formed if "`" in text]


@pytest.mark.parametrize(("dialect", "text", "calls"), BACKTICK_SAMPLES)
def test_backticks_inside_a_block_open_no_code(dialect: str, text: str, calls: list) -> None:
    # G3a: once a block opened outside code, its content is the dialect's, not Markdown:
    # the backtick in its value opens no code span, so the block after it is a call.
    after = SAMPLES[dialect].one_line("after")
    assert calls_of(f"{text} `\n{after}", dialect=dialect) == [*calls, ("after", {})]
    assert len({name for name, _, _ in BACKTICK_SAMPLES}) >= 5


def test_dialect_grammars_are_the_installed_files() -> None:
    for name in dialects():
        assert Path(toolparse.Dialect.bundled(name).path).read_text(encoding="utf-8").startswith(
            f"// {name}.lark: ")


@pytest.mark.parametrize(("dialect", "text"), [
    ("mistral", '[TOOL_CALLS]f[ARGS]{"a":\n    "x", "b": [1,\n\t 2]}'),
    ("gpt_oss", "<|start|>assistant<|channel|>commentary to=functions.f <|constrain|>json"
                '<|message|>{"a":\n    "x"}<|call|>'),
    ("granite", '<tool_call>[{"name": "f", "arguments": {"a":\n    "x"}, "z":\n    1}]'),
])
def test_json_whitespace_cut_by_a_chunk_stays_in_the_value(dialect: str, text: str) -> None:
    # A run of whitespace between two JSON tokens (`_json_ws: JSON_WS?`, one token) that
    # a chunk's end cuts: fed as far as it went, the rest was read as the dialect's
    # ignored whitespace and left out of the arguments as written (SPEC 6, G2). It waits
    # for the rest instead (`StateLexer.held`), in every chunking, with or without the
    # calls read whole.
    def calls(chunks: list[str]) -> list[tuple[str, str, str | None]]:
        parser = toolparse.StreamParser(dialect)
        events = [e for chunk in chunks for e in parser.feed(chunk)] + parser.close()
        return [(c.name, c.arguments_text, c.repair.text if c.repair else None)
                for e in events if isinstance(e, toolparse.ToolCallBlock) for c in e.calls]

    whole = calls([text])
    assert whole and all("\n    " in (args or repair or "") for _, args, repair in whole)
    for at in range(1, len(text)):
        assert calls([text[:at], text[at:]]) == whole, at
    for size in range(1, 5):
        assert calls([text[i:i + size] for i in range(0, len(text), size)]) == whole, size
