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
    "mistral": "[TOOL_CALLS]{name}[ARGS]{{}}",
}

KIMI_CALL = "<|tool_call_begin|>functions.{name}:{i}<|tool_call_argument_begin|>{args}<|tool_call_end|>"


def kimi(name: str, args: str, i: int = 0) -> str:
    return KIMI_CALL.format(name=name, i=i, args=args)


def harmony(name: str, args: str, head: str = "<|start|>assistant<|channel|>commentary") -> str:
    """A gpt-oss call message as openai-harmony renders it, without the <|call|> a server
    strips: the call ends where its JSON object closes."""
    return f"{head} to=functions.{name} <|constrain|>json<|message|>{args}"


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
    assert "\n" not in text and "`" not in text
