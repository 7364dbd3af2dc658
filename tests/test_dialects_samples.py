"""Samples of every bundled dialect (SPEC 5.2), shared by the dialect tests: well-formed
blocks, fragments for random texts, and the pieces a broken-block property puts
together. The tests here check the samples themselves: each well-formed one is exactly
one block, under every chunking, with the calls stated next to it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest

import toolparse
from conftest import check_chunkings  # noqa: F401  (the fixture)
from toolparse._dialect.loader import dialects


@dataclass(frozen=True)
class Sample:
    """What the generic dialect tests need to know of one dialect."""

    dialect: str
    well_formed: tuple[tuple[str, list[tuple[str, dict[str, Any]]]], ...]
    """Complete blocks, each with its calls (name, arguments) as written without tools."""
    fragments: tuple[str, ...]
    """Tags and pieces of tags, mixed into random texts."""
    calls: tuple[str, ...]
    """Complete calls that a wrapper (`opening` + calls + `closing`) holds."""
    opening: str
    closing: str
    """The wrapper around `calls` ("" for dialects whose every call is its own block)."""
    call_close: str
    """The tag that ends a call in `calls` (breakers misspell it or write text before it)."""
    per_call_blocks: bool
    """Each call is a block of its own (GLM, Hermes): a broken call breaks only itself."""

    def one_line(self, name: str) -> str:
        """A one-line block with one call named `name` and no arguments."""
        return ONE_LINE[self.dialect].format(name=name)


COMMON = ("`", "``", "```", "~~~", "\n", "\r\n", "\r", " ", "    ", "\t", "&amp;", "&lt;", "{",
          "}", '"', "'", "=", "/", "text", "42", "[1]", "\\", "-", "]", "|", ":", "中文", "😀",
          "<", ">", "</")

ONE_LINE = {
    "deepseek": '<tool_calls><invoke name="{name}"></invoke></tool_calls>',
    "qwen3_coder": "<tool_call><function={name}></function></tool_call>",
    "minimax_m2": '<minimax:tool_call><invoke name="{name}"></invoke></minimax:tool_call>',
    "anthropic": '<function_calls><invoke name="{name}"></invoke></function_calls>',
    "glm45": "<tool_call>{name}</tool_call>",
    "hermes": '<tool_call>{{"name": "{name}", "arguments": {{}}}}</tool_call>',
    "kimi_k2": ("<|tool_calls_section_begin|><|tool_call_begin|>functions.{name}:0"
                "<|tool_call_argument_begin|>{{}}<|tool_call_end|><|tool_calls_section_end|>"),
    "gpt_oss": "<|start|>assistant<|channel|>commentary to=functions.{name} <|constrain|>json<|message|>{{}}",
    "longcat": '<longcat_tool_call>{{"name": "{name}", "arguments": {{}}}}</longcat_tool_call>',
    "internlm": '<|action_start|><|plugin|>{{"name": "{name}", "parameters": {{}}}}<|action_end|>',
    "nemotron": '<TOOLCALL>[{{"name": "{name}", "arguments": {{}}}}]</TOOLCALL>',
    "cohere": '<|START_ACTION|>[{{"tool_call_id": "0", "tool_name": "{name}", "parameters": {{}}}}]<|END_ACTION|>',
    "apertus": '<|tools_prefix|>[{{"{name}": {{}}}}]<|tools_suffix|>',
    "hunyuan_a13b": '<tool_calls>[{{"name": "{name}", "arguments": {{}}}}]</tool_calls>',
    "minimax_m1": '<tool_calls>{{"name": "{name}", "arguments": {{}}}}</tool_calls>',
    "mistral": "[TOOL_CALLS]{name}[ARGS]{{}}",
    "olmo3": "<function_calls>{name}()</function_calls>",
    "lfm2": "<|tool_call_start|>[{name}()]<|tool_call_end|>",
    "pythonic": "<|python_start|>[{name}()]<|python_end|>",
    "llama3_json": '<|python_tag|>{{"name": "{name}", "parameters": {{}}}}',
}

ONE_LINE["deepseek_v3"] = ("<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>{name}"
                          "```json{{}}```<｜tool▁call▁end｜><｜tool▁calls▁end｜>")

ONE_LINE["deepseek_v31"] = ("<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>{name}<｜tool▁sep｜>{{}}"
                           "<｜tool▁call▁end｜><｜tool▁calls▁end｜>")

ONE_LINE["seed_oss"] = "<seed:tool_call><function={name}></function></seed:tool_call>"

ONE_LINE["minicpm5"] = '<function name="{name}"></function>'

ONE_LINE["hy_v3"] = "<tool_calls><tool_call>{name}<tool_sep></tool_call></tool_calls>"

ONE_LINE["step3"] = ('<｜tool_calls_begin｜><｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name="{name}">'
                     "</steptml:invoke><｜tool_call_end｜><｜tool_calls_end｜>")

M3 = "]<]minimax[>["
ONE_LINE["minimax_m3"] = M3 + "<tool_call>" + M3 + '<invoke name="{name}">' + M3 + "</invoke>" + M3 + "</tool_call>"

K3_TOOLS, K3_END = "<|open|>tools<|sep|>", "<|close|>tools<|sep|>"
ONE_LINE["kimi_k3"] = K3_TOOLS + '<|open|>call tool="{name}" index="1"<|sep|><|close|>call<|sep|>' + K3_END

ONE_LINE["granite"] = '<|tool_call|>[{{"name": "{name}", "arguments": {{}}}}]'

ONE_LINE["gemma4"] = "<|tool_call>call:{name}{{}}<tool_call|>"

ONE_LINE["phi4_mini"] = 'functools[{{"name": "{name}", "arguments": {{}}}}]'

KIMI_CALL = "<|tool_call_begin|>functions.{name}:{i}<|tool_call_argument_begin|>{args}<|tool_call_end|>"


def kimi(name: str, args: str, i: int = 0) -> str:
    return KIMI_CALL.format(name=name, i=i, args=args)


def harmony(name: str, args: str, head: str = "<|start|>assistant<|channel|>commentary") -> str:
    """A gpt-oss call message as openai-harmony renders it, without the <|call|> a server
    strips: the call ends where its JSON object closes."""
    return f"{head} to=functions.{name} <|constrain|>json<|message|>{args}"
V3_CALL = "<｜tool▁call▁begin｜>function<｜tool▁sep｜>{name}\n```json\n{args}\n```<｜tool▁call▁end｜>"
V3_BEGIN, V3_END = "<｜tool▁calls▁begin｜>", "<｜tool▁calls▁end｜>"


def v3(name: str, args: str) -> str:
    return V3_CALL.format(name=name, args=args)


def v31(name: str, args: str) -> str:
    return f"<｜tool▁call▁begin｜>{name}<｜tool▁sep｜>{args}<｜tool▁call▁end｜>"


STEP_BEGIN, STEP_END = "<｜tool_calls_begin｜>", "<｜tool_calls_end｜>"


def step(name: str, params: str, head: str = "function<｜tool_sep｜>") -> str:
    return (f'<｜tool_call_begin｜>{head}<steptml:invoke name="{name}">{params}</steptml:invoke>'
            "<｜tool_call_end｜>")



def m3(name: str, **args: str) -> str:
    return (f'{M3}<invoke name="{name}">' + "".join(f"{M3}<{k}>{v}{M3}</{k}>" for k, v in args.items())
            + f"{M3}</invoke>")



def k3(name: str, **args: tuple[str, str]) -> str:
    """A Kimi K3 call: each argument (type, text as written)."""
    return (f'<|open|>call tool="{name}" index="1"<|sep|>'
            + "".join(f'<|open|>argument key="{k}" type="{t}"<|sep|>{v}<|close|>argument<|sep|>'
                      for k, (t, v) in args.items()) + "<|close|>call<|sep|>")


SAMPLES: dict[str, Sample] = {s.dialect: s for s in [
    Sample(
        "deepseek",
        (('<tool_calls><invoke name="read_file"><parameter name="path">a.md</parameter></invoke></tool_calls>',
          [("read_file", {"path": "a.md"})]),
         ('<tool_calls>\n  <invoke name="w">\n    <parameter name="c"><![CDATA[x ]]> y]]></parameter>\n  </invoke>\n</tool_calls>',
          [("w", {"c": "x ]]> y"})]),
         ('<｜DSML｜tool_calls><｜DSML｜invoke name="b"><｜DSML｜parameter name="n">42</｜DSML｜parameter></｜DSML｜invoke></｜DSML｜tool_calls>',
          [("b", {"n": 42})]),
         ('<invoke name="o"/>\n</tool_calls>', [("o", {})])),
        ("<tool_calls>", "</tool_calls>", '<invoke name="a">', '<invoke name="b"/>', "</invoke>",
         '<parameter name="p">', "</parameter>", "<![CDATA[", "]]>", "<!--", "-->",
         "<｜DSML｜tool_calls>", '<|DSML|invoke name="c">', "<tool_", "|DSML|", "｜"),
        ('<invoke name="a"><parameter name="p">1</parameter></invoke>',
         '<invoke name="run"><parameter name="command">rm -rf build</parameter></invoke>',
         '<invoke name="b"></invoke>'),
        "<tool_calls>\n", "\n</tool_calls>", "</invoke>", False),
    Sample(
        "qwen3_coder",
        (("<tool_call>\n<function=read_file>\n<parameter=path>\nREADME.md\n</parameter>\n</function>\n</tool_call>",
          [("read_file", {"path": "README.md"})]),
         ("<tool_call><function=a><parameter=x>1</parameter><parameter=y>\n<b> & `c`\n</parameter>"
          "</function><function=b></function></tool_call>",
          [("a", {"x": "1", "y": "<b> & `c`"}), ("b", {})]),
         ("<function=bare><parameter=p>v</function>", [("bare", {"p": "v"})]),
         ("<seed:tool_call>\n<function=s>\n<parameter=k>\nv\n<parameter=m>\n2\n</function>\n</seed:tool_call>",
          [("s", {"k": "v", "m": "2"})])),
        ("<tool_call>", "</tool_call>", "<seed:tool_call>", "</seed:tool_call>", "<function=a>",
         "<function=b>", "</function>", "<parameter=p>", "<parameter=q>", "</parameter>",
         "<function=", "<parameter=", "<tool_", "<seed:"),
        ("<function=a><parameter=p>1</parameter></function>",
         "<function=run>\n<parameter=command>\nrm -rf build\n</parameter>\n</function>",
         "<function=b></function>"),
        "<tool_call>\n", "\n</tool_call>", "</function>", False),
    Sample(
        "minimax_m2",
        (('<minimax:tool_call>\n<invoke name="read_file">\n<parameter name="path">README.md</parameter>\n'
          '</invoke>\n</minimax:tool_call>', [("read_file", {"path": "README.md"})]),
         ('<minimax:tool_call><invoke name="a"><parameter name="x">a < b &amp; `c`</parameter></invoke>'
          '<invoke name="b"></invoke></minimax:tool_call>', [("a", {"x": "a < b &amp; `c`"}), ("b", {})])),
        ("<minimax:tool_call>", "</minimax:tool_call>", '<invoke name="a">', "</invoke>",
         '<parameter name="p">', "</parameter>", "<minimax:", "<invoke", "<parameter"),
        ('<invoke name="a"><parameter name="p">1</parameter></invoke>',
         '<invoke name="run"><parameter name="command">rm -rf build</parameter></invoke>',
         '<invoke name="b"></invoke>'),
        "<minimax:tool_call>\n", "\n</minimax:tool_call>", "</invoke>", False),
    Sample(
        "anthropic",
        (('<function_calls>\n<invoke name="read_file">\n<parameter name="path">README.md</parameter>\n'
          '</invoke>\n</function_calls>', [("read_file", {"path": "README.md"})]),
         ('<function_calls><invoke name="a"><parameter name="x">\n  x < `y`\n  z\n</parameter></invoke>'
          '<invoke name="b"></invoke></function_calls>', [("a", {"x": "  x < `y`\n  z"}), ("b", {})])),
        ("<function_calls>", "</function_calls>", '<invoke name="a">', "</invoke>",
         '<parameter name="p">', "</parameter>", "<function_", "<invoke", "<parameter"),
        ('<invoke name="a"><parameter name="p">1</parameter></invoke>',
         '<invoke name="run"><parameter name="command">rm -rf build</parameter></invoke>',
         '<invoke name="b"></invoke>'),
        "<function_calls>\n", "\n</function_calls>", "</invoke>", False),
    Sample(
        "glm45",
        (("<tool_call>read_file\n<arg_key>path</arg_key>\n<arg_value>README.md</arg_value>\n</tool_call>",
          [("read_file", {"path": "README.md"})]),
         ("<tool_call>get<arg_key>a</arg_key><arg_value>x < y</arg_value><arg_key>b</arg_key>"
          "<arg_value>[1, 2]</arg_value></tool_call>", [("get", {"a": "x < y", "b": "[1, 2]"})]),
         ("<tool_call>list_files</tool_call>", [("list_files", {})]),
         ("<tool_call>\nw\n<arg_key>c</arg_key>\n<arg_value>\n  code `x`\n  y\n</arg_value>\n</tool_call>",
          [("w", {"c": "\n  code `x`\n  y\n"})])),
        ("<tool_call>", "</tool_call>", "<arg_key>", "</arg_key>", "<arg_value>", "</arg_value>",
         "<tool_", "<arg_", "name", "f "),
        ("<tool_call>a\n<arg_key>p</arg_key>\n<arg_value>1</arg_value>\n</tool_call>",
         "<tool_call>run<arg_key>command</arg_key><arg_value>rm -rf build</arg_value></tool_call>",
         "<tool_call>b\n</tool_call>"),
        "", "", "</tool_call>", True),
    Sample(
        "hermes",
        (('<tool_call>\n{"name": "read_file", "arguments": {"path": "README.md"}}\n</tool_call>',
          [("read_file", {"path": "README.md"})]),
         ('<tool_call>{"arguments": {"a": [1, "<b>`"]}, "name": "x"}</tool_call>', [("x", {"a": [1, "<b>`"]})]),
         ('<tool_call>{"name": "p", "parameters": {}}</tool_call>', [("p", {})]),
         ('<tool_call>{"name": "s", "arguments": "{\\"q\\": 1}"}</tool_call>', [("s", {"q": 1})])),
        ("<tool_call>", "</tool_call>", '{"name": "a"', '"arguments": {', '"parameters": ', "}",
         ", ", "<tool_", '{"name": "b", "arguments": {}}'),
        ('<tool_call>\n{"name": "a", "arguments": {"p": 1}}\n</tool_call>',
         '<tool_call>{"name": "run", "arguments": {"command": "rm -rf build"}}</tool_call>',
         '<tool_call>{"arguments": {}, "name": "b"}</tool_call>'),
        "", "", "</tool_call>", True),
    Sample(
        "kimi_k2",
        (("<|tool_calls_section_begin|>\n" + kimi("read_file", '{"path": "README.md"}')
          + "\n<|tool_calls_section_end|>", [("read_file", {"path": "README.md"})]),
         ("<|tool_calls_section_begin|>" + kimi("a", '{"x": [1, "<`"]}') + kimi("b", "{}", 1)
          + "<|tool_calls_section_end|>", [("a", {"x": [1, "<`"]}), ("b", {})]),
         (kimi("o", "{}") + "\n<|tool_calls_section_end|>", [("o", {})])),
        ("<|tool_calls_section_begin|>", "<|tool_calls_section_end|>", "<|tool_call_begin|>",
         "functions.a:0", "<|tool_call_argument_begin|>", "<|tool_call_end|>", "<|", "|>",
         "<|tool_call", kimi("c", "{}")),
        (kimi("a", '{"p": 1}'), kimi("run", '{"command": "rm -rf build"}', 1), kimi("b", "{}", 2)),
        "<|tool_calls_section_begin|>\n", "\n<|tool_calls_section_end|>", "<|tool_call_end|>", False),
    Sample(
        "gpt_oss",
        ((harmony("read_file", '{"path": "README.md"}'), [("read_file", {"path": "README.md"})]),
         (harmony("a", '{"x": [1, "<b>`", {"y": "<|im_end|> <|"}]}', "<|channel|>commentary"),
          [("a", {"x": [1, "<b>`", {"y": "<|im_end|> <|"}]})]),
         ("<|start|>assistant to=functions.o<|channel|>commentary json<|message|>{}", [("o", {})])),
        ("<|start|>", "assistant", "<|channel|>", "commentary", "analysis", "final",
         " to=functions.a", " <|constrain|>json", "<|message|>", "<|end|>", "<|call|>",
         "<|return|>", "<|", "|>", "{", "}", harmony("c", "{}")),
        (harmony("a", '{"p": 1}'), harmony("run", '{"command": "rm -rf build"}'),
         harmony("b", "{}")),
        "", "", "}", True),
    Sample(
        "deepseek_v3",
        ((V3_BEGIN + v3("read_file", '{"path": "README.md"}') + V3_END,
          [("read_file", {"path": "README.md"})]),
         (V3_BEGIN + v3("a", '{"x": [1, "<`b`> ```py"]}') + "\n" + v3("b", "{}") + V3_END,
          [("a", {"x": [1, "<`b`> ```py"]}), ("b", {})])),
        (V3_BEGIN, V3_END, "<｜tool▁call▁begin｜>", "function<｜tool▁sep｜>", "<｜tool▁sep｜>",
         "```json\n", "\n```", "<｜tool▁call▁end｜>", "<｜", "｜>", "<｜tool▁", v3("c", "{}")),
        (v3("a", '{"p": 1}'), v3("run", '{"command": "rm -rf build"}'), v3("b", "{}")),
        V3_BEGIN, V3_END, "<｜tool▁call▁end｜>", False),
    Sample(
        "deepseek_v31",
        ((V3_BEGIN + v31("read_file", '{"path": "README.md"}') + V3_END,
          [("read_file", {"path": "README.md"})]),
         (V3_BEGIN + v31("a", '{"x": [1, "<`b`>"]}') + v31(" b ", "{}") + V3_END,
          [("a", {"x": [1, "<`b`>"]}), ("b", {})]),
         (v31("o", "{}"), [("o", {})])),
        (V3_BEGIN, V3_END, "<｜tool▁call▁begin｜>", "<｜tool▁sep｜>", "<｜tool▁call▁end｜>", "<｜",
         "｜>", "<｜tool▁", v31("c", "{}"), "function<｜tool▁sep｜>"),
        (v31("a", '{"p": 1}'), v31("run", '{"command": "rm -rf build"}'), v31("b", "{}")),
        V3_BEGIN, V3_END, "<｜tool▁call▁end｜>", False),
    Sample(
        "seed_oss",
        (("<seed:tool_call>\n<function=get_weather>\n<parameter=location>Barcelona, Spain</parameter>\n"
          "</function>\n</seed:tool_call>", [("get_weather", {"location": "Barcelona, Spain"})]),
         ("<seed:tool_call><function=a><parameter=x>\n<b> & `c`\n</parameter><parameter=y>2"
          "</function><function=b></function></seed:tool_call>",
          [("a", {"x": "<b> & `c`", "y": "2"}), ("b", {})])),
        ("<seed:tool_call>", "</seed:tool_call>", "<function=a>", "</function>", "<parameter=p>",
         "</parameter>", "<function=", "<parameter=", "<seed:", "<seed:think>", "<tool_call>"),
        ("<function=a><parameter=p>1</parameter></function>",
         "<function=run>\n<parameter=command>rm -rf build</parameter>\n</function>",
         "<function=b></function>"),
        "<seed:tool_call>\n", "\n</seed:tool_call>", "</function>", False),
    Sample(
        "minicpm5",
        (('<function name="get_weather"><param name="city">上海</param><param name="date">2024-06-27'
          '</param></function>', [("get_weather", {"city": "上海", "date": "2024-06-27"})]),
         ('<function name="w">\n<param name="c"><![CDATA[ a < `b` ]]></param>\n<param name="n"> 2 '
          '</param>\n</function>', [("w", {"c": " a < `b` ", "n": "2"})]),
         ('<functionname="o"><param\u0120name="k">v</param></function>', [("o", {"k": "v"})])),
        ('<function name="a">', "</function>", '<param name="p">', "</param>", "<function",
         "<param", ' name="', "<![CDATA[", "]]>", "\u0120"),
        ('<function name="a"><param name="p">1</param></function>',
         '<function name="run"><param name="command">rm -rf build</param></function>',
         '<function name="b"></function>'),
        "", "", "</function>", True),
    Sample(
        "hy_v3",
        (("<tool_calls>\n<tool_call>get_weather<tool_sep>\n<arg_key>city</arg_key>\n<arg_value>Beijing"
          "</arg_value>\n</tool_call>\n</tool_calls>", [("get_weather", {"city": "Beijing"})]),
         ("<tool_calls><tool_call>a<tool_sep><arg_key>x</arg_key><arg_value> x < `y` </arg_value>"
          "</tool_call><tool_call>b<tool_sep></tool_call></tool_calls>",
          [("a", {"x": " x < `y` "}), ("b", {})]),
         ("<tool_calls:opensource><tool_call:opensource>c<arg_key:opensource>k</arg_key:opensource>"
          "<arg_value:opensource>v</arg_value:opensource></tool_call:opensource></tool_calls:opensource>",
          [("c", {"k": "v"})])),
        ("<tool_calls>", "</tool_calls>", "<tool_call>", "</tool_call>", "<tool_sep>", "<arg_key>",
         "</arg_key>", "<arg_value>", "</arg_value>", "<tool_", "<arg_", ":opensource", "name"),
        ("<tool_call>a<tool_sep>\n<arg_key>p</arg_key>\n<arg_value>1</arg_value>\n</tool_call>",
         "<tool_call>run<tool_sep><arg_key>command</arg_key><arg_value>rm -rf build</arg_value></tool_call>",
         "<tool_call>b<tool_sep></tool_call>"),
        "<tool_calls>\n", "\n</tool_calls>", "</tool_call>", False),
    Sample(
        "step3",
        ((STEP_BEGIN + step("get_weather", '<steptml:parameter name="city">Tokyo</steptml:parameter>')
          + STEP_END, [("get_weather", {"city": "Tokyo"})]),
         (STEP_BEGIN + step("a", '<steptml:parameter name="x"> x < `y`\n</steptml:parameter>', head="")
          + "<｜tool_sep｜>" + step("b", "", head="function<｜tool_sep｜>b\n") + STEP_END,
          [("a", {"x": " x < `y`\n"}), ("b", {})])),
        (STEP_BEGIN, STEP_END, "<｜tool_call_begin｜>", "<｜tool_call_end｜>", "<｜tool_sep｜>",
         "function<｜tool_sep｜>", '<steptml:invoke name="a">', "</steptml:invoke>",
         '<steptml:parameter name="p">', "</steptml:parameter>", "<steptml:", "<｜tool_"),
        (step("a", '<steptml:parameter name="p">1</steptml:parameter>'),
         step("run", '<steptml:parameter name="command">rm -rf build</steptml:parameter>'),
         step("b", "")),
        STEP_BEGIN, STEP_END, "<｜tool_call_end｜>", False),
    Sample(
        "longcat",
        (('<longcat_tool_call>\n{"name": "read_file", "arguments": {"path": "README.md"}}\n'
          "</longcat_tool_call>", [("read_file", {"path": "README.md"})]),
         ('<longcat_tool_call>{"arguments": {"a": [1, "<b>`"]}, "name": "x"}</longcat_tool_call>',
          [("x", {"a": [1, "<b>`"]})]),
         ('<longcat_tool_call>{"name": "p", "parameters": {}}</longcat_tool_call>', [("p", {})])),
        ("<longcat_tool_call>", "</longcat_tool_call>", '{"name": "a"', '"arguments": {', "}",
         ", ", "<longcat_", '{"name": "b", "arguments": {}}'),
        ('<longcat_tool_call>\n{"name": "a", "arguments": {"p": 1}}\n</longcat_tool_call>',
         '<longcat_tool_call>{"name": "run", "arguments": {"command": "rm -rf build"}}'
         "</longcat_tool_call>",
         '<longcat_tool_call>{"arguments": {}, "name": "b"}</longcat_tool_call>'),
        "", "", "</longcat_tool_call>", True),
    Sample(
        "internlm",
        (('<|action_start|><|plugin|>\n{"name": "read_file", "parameters": {"path": "README.md"}}'
          "<|action_end|>", [("read_file", {"path": "README.md"})]),
         ('<|action_start|> <|plugin|>{"parameters": {"a": [1, "<b>`"]}, "name": "x"}<|action_end|>',
          [("x", {"a": [1, "<b>`"]})]),
         ('<|action_start|><|plugin|>{"name": "p", "arguments": {}}<|action_end|>', [("p", {})])),
        ("<|action_start|>", "<|plugin|>", "<|interpreter|>", "<|action_end|>", '{"name": "a"',
         '"parameters": {', "}", "<|", "|>", '{"name": "b", "parameters": {}}'),
        ('<|action_start|><|plugin|>{"name": "a", "parameters": {"p": 1}}<|action_end|>',
         '<|action_start|><|plugin|>{"name": "run", "parameters": {"command": "rm -rf build"}}'
         "<|action_end|>",
         '<|action_start|><|plugin|>{"parameters": {}, "name": "b"}<|action_end|>'),
        "", "", "<|action_end|>", True),
    Sample(
        "nemotron",
        (('<TOOLCALL>[{"name": "read_file", "arguments": {"path": "README.md"}}]</TOOLCALL>',
          [("read_file", {"path": "README.md"})]),
         ('<TOOLCALL>[\n  {"arguments": {"a": [1, "<b>`]"]}, "name": "x"},\n  {"name": "y", '
          '"parameters": {}}\n]</TOOLCALL>', [("x", {"a": [1, "<b>`]"]}), ("y", {})]),
         ('<TOOLCALL>[{"name": "s", "arguments": "{\\"q\\": 1}"}]</TOOLCALL>', [("s", {"q": 1})])),
        ("<TOOLCALL>", "</TOOLCALL>", "[", "]", '{"name": "a"', '"arguments": {', "}", ", ",
         "<TOOL", '{"name": "b", "arguments": {}}'),
        ('{"name": "a", "arguments": {"p": 1}},', '{"name": "run", "arguments": {"command": '
         '"rm -rf build"}},', '{"name": "b", "arguments": {}}'),
        "<TOOLCALL>[", "]</TOOLCALL>", "}", False),
    Sample(
        "cohere",
        (('<|START_ACTION|>\n[\n    {"tool_call_id": "0", "tool_name": "read_file", "parameters": '
          '{"path": "README.md"}}\n]\n<|END_ACTION|>', [("read_file", {"path": "README.md"})]),
         ('<|START_ACTION|>[{"parameters": {"a": [1, "<b>`]"]}, "tool_name": "x"}, '
          '{"tool_name": "y", "parameters": {}}]<|END_ACTION|>', [("x", {"a": [1, "<b>`]"]}), ("y", {})]),
         ('<|START_ACTION|>[{"tool_name": "s"}]<|END_ACTION|>', [("s", {})])),
        ("<|START_ACTION|>", "<|END_ACTION|>", "[", "]", '{"tool_name": "a"', '"parameters": {',
         "}", ", ", "<|", '{"tool_name": "b", "parameters": {}}'),
        ('{"tool_name": "a", "parameters": {"p": 1}},', '{"tool_name": "run", "parameters": '
         '{"command": "rm -rf build"}},', '{"tool_name": "b", "parameters": {}}'),
        "<|START_ACTION|>[", "]<|END_ACTION|>", "}", False),
    Sample(
        "apertus",
        (('<|tools_prefix|>[{"read_file": {"path": "README.md"}}]<|tools_suffix|>',
          [("read_file", {"path": "README.md"})]),
         ('<|tools_prefix|>[\n{"x": {"a": [1, "<b>`]"]}},\n{"y": {}}\n]<|tools_suffix|>',
          [("x", {"a": [1, "<b>`]"]}), ("y", {})]),
         ('<|tools_prefix|>[{"s": "{\\"q\\": 1}"}]<|tools_suffix|>', [("s", {"q": 1})])),
        ("<|tools_prefix|>", "<|tools_suffix|>", "[", "]", '{"a": ', "{", "}", ", ", "<|",
         '{"b": {}}'),
        ('{"a": {"p": 1}},', '{"run": {"command": "rm -rf build"}},', '{"b": {}}'),
        "<|tools_prefix|>[", "]<|tools_suffix|>", "}", False),
    Sample(
        "hunyuan_a13b",
        (('<tool_calls>[{"name": "read_file", "arguments": {"path": "README.md"}}]</tool_calls>',
          [("read_file", {"path": "README.md"})]),
         ('<tool_calls>[\n  {"arguments": {"a": [1, "<b>`]"]}, "name": "x"},\n  {"name": "y", '
          '"parameters": {}}\n]</tool_calls>', [("x", {"a": [1, "<b>`]"]}), ("y", {})]),
         ('<tool_calls>[{"name": "s", "arguments": {"city": "北京"}}]</tool_calls>',
          [("s", {"city": "北京"})])),
        ("<tool_calls>", "</tool_calls>", "[", "]", '{"name": "a"', '"arguments": {', "}", ", ",
         "<tool_", '{"name": "b", "arguments": {}}'),
        ('{"name": "a", "arguments": {"p": 1}},', '{"name": "run", "arguments": {"command": '
         '"rm -rf build"}},', '{"name": "b", "arguments": {}}'),
        "<tool_calls>[", "]</tool_calls>", "}", False),
    Sample(
        "minimax_m1",
        (('<tool_calls>\n{"name": "read_file", "arguments": {"path": "README.md"}}\n</tool_calls>',
          [("read_file", {"path": "README.md"})]),
         ('<tool_calls>\n{"arguments": {"a": [1, "<b>`}"]}, "name": "x"}\n{"name": "y", '
          '"parameters": {}}\n</tool_calls>', [("x", {"a": [1, "<b>`}"]}), ("y", {})]),
         ('<tool_calls>{"name": "s", "arguments": "{\\"q\\": 1}"}</tool_calls>', [("s", {"q": 1})])),
        ("<tool_calls>", "</tool_calls>", '{"name": "a"', '"arguments": {', "}", "\n",
         "<tool_", '{"name": "b", "arguments": {}}'),
        ('{"name": "a", "arguments": {"p": 1}}', '{"name": "run", "arguments": {"command": '
         '"rm -rf build"}}', '{"name": "b", "arguments": {}}'),
        "<tool_calls>\n", "\n</tool_calls>", "}", False),
    Sample(
        "mistral",
        (('[TOOL_CALLS]read_file[ARGS]{"path": "README.md"}', [("read_file", {"path": "README.md"})]),
         ('[TOOL_CALLS]a[CALL_ID]a1B2c3D4e[ARGS]{"x": [1, "<b>`]}", {"y": "[TOOL_CALLS]"}]}',
          [("a", {"x": [1, "<b>`]}", {"y": "[TOOL_CALLS]"}]})]),
         ('[TOOL_CALLS][{"name": "o", "arguments": {}, "id": "a1B2c3D4e"}, '
          '{"name": "p", "arguments": {"q": 1}}]', [("o", {}), ("p", {"q": 1})])),
        ("[TOOL_CALLS]", "[ARGS]", "[CALL_ID]", "[", "]", "{", "}", '"', "[TOOL_CALLS][",
         '{"name": "a", "arguments": ', "[TOOL_CALLS]c[ARGS]{}"),
        ('[TOOL_CALLS]a[ARGS]{"p": 1}', '[TOOL_CALLS]run[ARGS]{"command": "rm -rf build"}',
         "[TOOL_CALLS]b[ARGS]{}"),
        "", "", "}", True),
    Sample(
        "olmo3",
        (("<function_calls>read_file(path='README.md')</function_calls>",
          [("read_file", {"path": "README.md"})]),
         ("<function_calls>x(a=[1, '<b>`)]', (2,)], b={'k': None})\ny()</function_calls>",
          [("x", {"a": [1, "<b>`)]", [2]], "b": {"k": None}}), ("y", {})]),
         ('<function_calls>s(q="</function_calls>", n=-1.5, t=True)</function_calls>',
          [("s", {"q": "</function_calls>", "n": -1.5, "t": True})])),
        ("<function_calls>", "</function_calls>", "a(", "b=", "'", '"', ")", "(", "[", "]",
         "x.y", "<function_", "c(d=1)"),
        ("a(p=1)\n", "run(command='rm -rf build', n=1)\n", "b(q=1)"),
        "<function_calls>", "</function_calls>", "=1)", False),
    Sample(
        "lfm2",
        (("<|tool_call_start|>[read_file(path='README.md')]<|tool_call_end|>",
          [("read_file", {"path": "README.md"})]),
         ("<|tool_call_start|> [x(a=[1, '<b>`)]', (2,)], b={'k': None}), y()]<|tool_call_end|>",
          [("x", {"a": [1, "<b>`)]", [2]], "b": {"k": None}}), ("y", {})]),
         ('<|tool_call_start|>[{"name": "s", "arguments": {"q": "]<|tool_call_end|>"}}]'
          '<|tool_call_end|>', [("s", {"q": "]<|tool_call_end|>"})])),
        ("<|tool_call_start|>", "<|tool_call_end|>", "a(", "b=", "'", '"', ")", "(", "[", "]",
         "x.y", "<|tool_", "c(d=1)", '{"name": "e"}'),
        ("a(p=1),", "run(command='rm -rf build', n=1),", "b(q=1)"),
        "<|tool_call_start|>[", "]<|tool_call_end|>", "=1)", False),
    Sample(
        "pythonic",
        # (No sample ends with `<|python_end|>`: the block is complete at its `]`, so a
        # sample cut after that would still be a block; corpus/pythonic has the end token.)
        (("<|python_start|>[read_file(path='README.md')]",
          [("read_file", {"path": "README.md"})]),
         ("<|python_start|>\n[x(a=[1, '<b>`)]', (2,)], b={'k': None}), y()]",
          [("x", {"a": [1, "<b>`)]", [2]], "b": {"k": None}}), ("y", {})]),
         ('<|python_start|>[s(q="]<|python_end|>", n=-1.5)]',
          [("s", {"q": "]<|python_end|>", "n": -1.5})])),
        ("<|python_start|>", "<|python_end|>", "a(", "b=", "'", '"', ")", "(", "[", "]",
         "x.y", "<|python_", "c(d=1)", "]<|python_end|>"),
        ("a(p=1),", "run(command='rm -rf build', n=1),", "b(q=1)"),
        "<|python_start|>[", "]<|python_end|>", "=1)", False),
    Sample(
        "minimax_m3",
        ((f"{M3}<tool_call>\n{m3('create_order', user_id='42')}\n{M3}</tool_call>",
          [("create_order", {"user_id": "42"})]),
         (f"{M3}<tool_call>{m3('a', x=' x < `y` ] ', n='[1, [2]]')}{m3('b')}{M3}</tool_call>",
          [("a", {"x": " x < `y` ] ", "n": "[1, [2]]"}), ("b", {})])),
        (f"{M3}<tool_call>", f"{M3}</tool_call>", f'{M3}<invoke name="a">', f"{M3}</invoke>",
         f"{M3}<p>", f"{M3}</p>", M3, "]<]", "minimax", "[>[", "<invoke", "]"),
        (m3("a", p="1"), m3("run", command="rm -rf build"), m3("b")),
        f"{M3}<tool_call>\n", f"\n{M3}</tool_call>", f"{M3}</invoke>", False),
    Sample(
        "kimi_k3",
        ((K3_TOOLS + k3("read_file", path=("string", "README.md")) + K3_END,
          [("read_file", {"path": "README.md"})]),
         (K3_TOOLS + k3("a", x=("string", " x < `y` <|open| "), n=("array", '[1, "<b>"]'))
          + "\n" + k3("b") + K3_END,
          [("a", {"x": " x < `y` <|open| ", "n": [1, "<b>"]}), ("b", {})]),
         (K3_TOOLS + '<|open|>call tool="a&amp;b" index="2"<|sep|><|close|>call<|sep|>' + K3_END,
          [("a&b", {})])),
        (K3_TOOLS, K3_END, '<|open|>call tool="a" index="1"<|sep|>', "<|close|>call<|sep|>",
         '<|open|>argument key="p" type="string"<|sep|>', "<|close|>argument<|sep|>",
         "<|open|>think<|sep|>", "<|close|>think<|sep|>", "<|open|>response<|sep|>",
         "<|close|>response<|sep|>", "<|close|>message<|sep|>", "<|open|>", "<|close|>",
         "<|sep|>", "<|"),
        (k3("a", p=("number", "1")), k3("run", command=("string", "rm -rf build")), k3("b")),
        K3_TOOLS, K3_END, "<|close|>call<|sep|>", False),
    Sample(
        "granite",
        (('<|tool_call|>[{"name": "read_file", "arguments": {"path": "README.md"}}]',
          [("read_file", {"path": "README.md"})]),
         ('<tool_call> [\n  {"arguments": {"a": [1, "<b>`]"]}, "name": "x"},\n  {"name": "y", '
          '"parameters": {}}\n]', [("x", {"a": [1, "<b>`]"]}), ("y", {})]),
         ('<function_call> {"name": "s", "arguments": {"q": "}<function_call> {"}}',
          [("s", {"q": "}<function_call> {"})])),
        ("<|tool_call|>", "<tool_call>", "<function_call>", "[", "]", '{"name": "a"',
         '"arguments": {', "}", ", ", "<|", '{"name": "b", "arguments": {}}'),
        ('<function_call> {"name": "a", "arguments": {"p": 1}}', '<function_call> {"name": '
         '"run", "arguments": {"command": "rm -rf build"}}', '<function_call> {"name": "b", '
         '"arguments": {}}'),
        "", "", "}", True),
    Sample(
        "phi4_mini",
        (('functools[{"name": "read_file", "arguments": {"path": "README.md"}}]',
          [("read_file", {"path": "README.md"})]),
         ('functools[\n  {"arguments": {"a": [1, "<b>`]"]}, "name": "x"},\n  {"name": "y", '
          '"parameters": {}}\n]', [("x", {"a": [1, "<b>`]"]}), ("y", {})]),
         ('functools[{"name": "s", "arguments": {"city": "北京 functools["}}]',
          [("s", {"city": "北京 functools["})])),
        ("functools", "functools[", "[", "]", '{"name": "a"', '"arguments": {', "}", ", ",
         "func", '{"name": "b", "arguments": {}}'),
        ('{"name": "a", "arguments": {"p": 1}},', '{"name": "run", "arguments": {"command": '
         '"rm -rf build"}},', '{"name": "b", "arguments": {}}'),
        "functools[", "]", "}", False),
    Sample(
        "gemma4",
        (('<|tool_call>call:read_file{path:<|"|>README.md<|"|>}<tool_call|>',
          [("read_file", {"path": "README.md"})]),
         ('<|tool_call>call:x{a:[1,<|"|><b>`]}<tool_call|><|"|>],b:{c:null,d:-2.5}}<tool_call|>',
          [("x", {"a": [1, "<b>`]}<tool_call|>"], "b": {"c": None, "d": -2.5}})]),
         ('<start_function_call>call:s{city:<escape>北京, "x"<escape>,ok:true}<end_function_call>',
          [("s", {"city": '北京, "x"', "ok": True})])),
        ("<|tool_call>", "<tool_call|>", "call:", '<|"|>', "<|", "{", "}", ":", ",",
         "<start_function_call>", "<escape>", "<|tool_call>call:b{}<tool_call|>"),
        ('<|tool_call>call:a{p:1}<tool_call|>', '<|tool_call>call:run{command:<|"|>rm -rf '
         'build<|"|>}<tool_call|>', "<|tool_call>call:b{}<tool_call|>"),
        "", "", "<tool_call|>", True),
    Sample(
        "llama3_json",
        (('<|python_tag|>{"name": "read_file", "parameters": {"path": "README.md"}}',
          [("read_file", {"path": "README.md"})]),
         # (one call each: a prefix of joined calls that ends with a call is a block)
         ('<|python_tag|>{"type": "function", "name": "a", "arguments": {"x": [1, "<b>`]}", '
          '{"y": "<|python_tag|>"}]}}', [("a", {"x": [1, "<b>`]}", {"y": "<|python_tag|>"}]})]),
         ('<|python_tag|>{"parameters": {"q": 1}, "name": "p"}', [("p", {"q": 1})])),
        ("<|python_tag|>", "{", "}", '"', ";", '{"name": "a"', '"parameters": {', "<|python_",
         '{"name": "b", "parameters": {}}'),
        ('{"name": "a", "parameters": {"p": 1}}', '{"name": "run", "parameters": {"command": '
         '"rm -rf build"}}', '{"name": "b", "parameters": {}}'),
        "<|python_tag|>", "", "}", False),
]}

DIALECTS = sorted(SAMPLES)


def test_every_bundled_dialect_has_samples() -> None:
    assert sorted(dialects()) == DIALECTS


@pytest.mark.parametrize(("dialect", "index"), [
    (name, i) for name in DIALECTS for i in range(len(SAMPLES[name].well_formed))])
def test_each_well_formed_sample_is_one_block(dialect: str, index: int, check_chunkings) -> None:
    text, calls = SAMPLES[dialect].well_formed[index]
    assert check_chunkings(text, dialect=dialect) == [("block", text, calls)]
    assert check_chunkings("Before.\n" + text + "\nAfter.", dialect=dialect) == [
        ("text", "Before.\n"), ("block", text, calls), ("text", "\nAfter.")]


@pytest.mark.parametrize("dialect", DIALECTS)
def test_the_wrapped_calls_are_one_block_or_one_block_each(dialect: str, check_chunkings) -> None:
    sample = SAMPLES[dialect]
    text = sample.opening + "\n".join(sample.calls) + sample.closing
    events = check_chunkings(text, dialect=dialect)
    blocks = [e for e in events if e[0] == "block"]
    assert len(blocks) == (len(sample.calls) if sample.per_call_blocks else 1)
    assert [name for block in blocks for name, _ in block[2]] == ["a", "run", "b"]


@pytest.mark.parametrize("dialect", DIALECTS)
def test_the_one_line_block_is_one_call(dialect: str, check_chunkings) -> None:
    text = SAMPLES[dialect].one_line("t0")
    assert check_chunkings(text, dialect=dialect) == [("block", text, [("t0", {})])]
    assert "\n" not in text
    assert "`" not in text or dialect == "deepseek_v3"   # its fence is its syntax
