"""The structural-tag target of export_grammar (SPEC 12, docs/export.md) as data: made
from the llguidance export, its regular expressions in xgrammar's flavour. That xgrammar
compiles it and what it writes parses to valid calls is tests/test_vllm_structural.py,
in the vLLM environment (xgrammar's wheel pulls torch)."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

import toolparse
from toolparse._export import structural_tag
from toolparse._export.structural_tag import ecma_pattern

TOOLS = [{"name": "read_file", "parameters": {"type": "object", "properties": {
    "path": {"type": "string"}, "limit": {"type": "integer"}}, "required": ["path"]}}]


def _formats(node: Any) -> list[dict[str, Any]]:
    """Every format in a tag, depth first."""
    if isinstance(node, dict) and "type" in node:
        found = [node]
        for key in ("format", "content"):
            if key in node:
                found += _formats(node[key])
        for child in node.get("elements", []):
            found += _formats(child)
        return found
    return []


def test_the_target_is_a_structural_tag_of_the_calls() -> None:
    tag = json.loads(toolparse.export_grammar("qwen3_coder", TOOLS, mode="required",
                                              target="structural_tag"))
    assert tag["type"] == "structural_tag"
    formats = _formats(tag["format"])
    fixed = {f["value"] for f in formats if f["type"] == "const_string"}
    assert {"<tool_call>", "</tool_call>", "<function=read_file>", "</function>",
            "<parameter=limit>", "</parameter>"} <= fixed
    assert {"type": "integer"} in [f["json_schema"] for f in formats
                                   if f["type"] == "json_schema"]
    # The list of calls (Lark's left-recursive helper) is a repetition.
    assert any(f["type"] == "star" for f in formats)
    # No llguidance spelling is left in any pattern.
    patterns = [f["pattern"] for f in formats if f["type"] == "regex"]
    assert patterns and not any("\\x{" in p or "(?s:" in p for p in patterns)


def test_auto_starts_with_free_text_and_json_patterns_are_rewritten() -> None:
    tag = json.loads(toolparse.export_grammar("hermes", TOOLS, mode="auto",
                                              target="structural_tag"))
    assert tag["format"]["type"] == "or"  # free text alone, or text then blocks
    schemas = json.dumps([f["json_schema"] for f in _formats(tag["format"])
                          if f["type"] == "json_schema"])
    assert '"pattern"' in schemas and "(?s:" not in schemas and "\\\\x{" not in schemas


@pytest.mark.parametrize(("rust", "ecma"), [
    ("\\x{3C}tool_call\\x{3E}", "\\u003Ctool_call\\u003E"),
    ("\\x{1F600}", "\\u{1F600}"),
    ("\\uD83D\\uDE00", "\\u{1F600}"),                     # a surrogate pair, from `avoiding`
    ("^(?s:.*)$", "^(?:[^\\uD800-\\uDFFF]*)$"),
    ("(?:(?s:.)|x)", "(?:(?:[^\\uD800-\\uDFFF])|x)"),
    ("[^\\x{A}]", "[^\\uD800-\\uDFFF\\u000A]"),
    ("(?:\\r?\\n)", "(?:\\r?\\n)"),
])
def test_patterns_are_rewritten_for_xgrammar(rust: str, ecma: str) -> None:
    assert ecma_pattern(rust) == ecma


@pytest.mark.parametrize("rust", ["(?i:a)", "(?m:^a)"])
def test_a_flag_xgrammar_cannot_spell_is_an_export_error(rust: str) -> None:
    with pytest.raises(toolparse.ExportError, match="flag"):
        ecma_pattern(rust)


def test_the_rewritten_patterns_match_what_the_originals_match() -> None:
    # Python reads ECMA's `\uHHHH` too; `\u{H}` is its `\UHHHHHHHH`.
    original = "\\x{3C}par\\x{1F600}(?:[\\x{20}\\x{9}])*\\x{3D}(?s:.)"
    rewritten = re.sub(r"\\u\{([0-9A-F]+)\}", lambda m: f"\\U{int(m.group(1), 16):08X}",
                       ecma_pattern(original))
    for text, fits in (("<par\U0001F600=x", True), ("<par\U0001F600 \t=\n", True),
                       ("<par\U0001F600=", False), ("<par=x", False),
                       ("<par\U0001F600=\ud800", False)):
        assert bool(re.fullmatch(rewritten, text)) == fits, (rewritten, text)


def test_recursion_other_than_a_left_recursive_list_is_refused() -> None:
    rules = structural_tag._rules('start: a\na: "x" a "y" | "z"\n')  # noqa: SLF001
    with pytest.raises(toolparse.ExportError, match="repeats itself"):
        structural_tag._Builder(rules).rule("start")  # noqa: SLF001
    rules = structural_tag._rules('start: a\na: %json {"type": "integer"} | a "," '  # noqa: SLF001
                                  '%json {"type": "integer"}\n')
    number = {"type": "json_schema", "json_schema": {"type": "integer"}}
    assert structural_tag._Builder(rules).rule("start") == {  # noqa: SLF001
        "type": "sequence", "elements": [number, {"type": "star", "content": {
            "type": "sequence", "elements": [{"type": "const_string", "value": ","},
                                             number]}}]}


def test_a_loop_of_text_pieces_is_one_pattern() -> None:
    # DeepSeek's comment: pieces of text with optional whitespace between them, which
    # xgrammar would split in exponentially many ways as a tree of formats.
    rules = structural_tag._rules(  # noqa: SLF001
        'start: c\nws: /\\x{20}*/\nc: /[^\\x{2D}]+/ | "-" | c ws /[^\\x{2D}]+/ | c ws "-"\n')
    found = structural_tag._Builder(rules).rule("start")  # noqa: SLF001
    assert found["type"] == "regex"
    for text, fits in (("ab - c", True), ("a--b", True), ("", False)):
        assert bool(re.fullmatch(found["pattern"], text)) == fits, found["pattern"]


@pytest.mark.parametrize("text", ['start: "x" %ignore', "start: (\"x\"", "start x", 'start: "a" )'])
def test_lark_the_reader_does_not_know_is_an_export_error(text: str) -> None:
    with pytest.raises(toolparse.ExportError):
        structural_tag._Builder(structural_tag._rules(text)).rule("start")  # noqa: SLF001


def test_cli_writes_the_structural_tag(tmp_path, capsys) -> None:
    from toolparse._cli import main

    tools = tmp_path / "tools.json"
    tools.write_text('[{"name": "list_files"}]')
    assert main(["grammar", "export", "--dialect", "hermes", "--tools", str(tools),
                 "--mode", "required", "--target", "structural_tag"]) == 0
    written = json.loads(capsys.readouterr().out)
    assert written == json.loads(toolparse.export_grammar(
        "hermes", [{"name": "list_files"}], mode="required", target="structural_tag"))
    assert written["type"] == "structural_tag"
