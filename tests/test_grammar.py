"""SPEC section 5: grammar files are the single source of syntax, and a grammar error names
the file, line and rule."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import toolparse
from toolparse._dialect import bundled_dialects
from toolparse._syntax.files import grammar_path

ALIASES = '("tool-calls" | "toolcalls" | "function_calls" | "calls")'


def edited_copy(tmp_path: Path, old: str, new: str, name: str = "edited.lark") -> Path:
    text = grammar_path("deepseek.lark").read_text(encoding="utf-8")
    assert old in text, "the bundled grammar changed shape; update this test"
    path = tmp_path / name
    path.write_text(text.replace(old, new, 1), encoding="utf-8")
    return path


def test_adding_a_wrapper_alias_is_a_grammar_edit(tmp_path: Path) -> None:
    path = edited_copy(tmp_path, ALIASES,
                       '("tool-calls" | "toolcalls" | "function_calls" | "calls" | "actions")')
    dialect = toolparse.Dialect.from_file(path)
    text = '<|DSML|actions><|DSML|invoke name="x"/></|DSML|actions>'
    assert [c.name for c in toolparse.parse(text, dialect=dialect).calls] == ["x"]
    assert toolparse.parse(text).calls == ()  # the bundled dialect still rejects it
    assert dialect.name == "edited" and dialect.path == path.resolve()


def test_removing_syntax_is_a_grammar_edit_too(tmp_path: Path) -> None:
    # Drop the DSML prefix from invoke: DSML invokes stop being calls.
    path = edited_copy(tmp_path, '_INVOKE_NAME: _DSML_PREFIX? "invoke"', '_INVOKE_NAME: "invoke"')
    dialect = toolparse.Dialect.from_file(path)
    text = '<tool_calls><｜DSML｜invoke name="x"/></tool_calls>'
    assert toolparse.parse(text, dialect=dialect).calls == ()
    assert [c.name for c in toolparse.parse(text).calls] == ["x"]


def test_a_grammar_syntax_error_names_file_and_line(tmp_path: Path) -> None:
    path = edited_copy(tmp_path, "LT.1: \"<\"", "LT.1: \"<\" ))")
    with pytest.raises(toolparse.GrammarError) as info:
        toolparse.Dialect.from_file(path)
    line = next(i for i, l in enumerate(path.read_text(encoding="utf-8").splitlines(), 1) if "))" in l)
    assert str(path.resolve()) in str(info.value)
    assert f"line {line}" in str(info.value)
    assert isinstance(info.value, ValueError)


def test_an_undefined_rule_is_named(tmp_path: Path) -> None:
    path = edited_copy(tmp_path, "invoke: INVOKE_OPEN (param | comment)* INVOKE_CLOSE",
                       "invoke: INVOKE_OPEN (param | comment | gadget)* INVOKE_CLOSE")
    with pytest.raises(toolparse.GrammarError, match="gadget") as info:
        toolparse.Dialect.from_file(path)
    assert info.value.path == str(path.resolve())
    assert info.value.line is not None


def test_a_terminal_collision_is_named_with_its_line(tmp_path: Path) -> None:
    # Two text terminals of equal priority in one parser state: strict mode refuses.
    path = edited_copy(tmp_path, "CDATA_CHAR.1: /[\\]<]/", "CDATA_CHAR.1: /[\\]<a]/")
    with pytest.raises(toolparse.GrammarError, match="CDATA_CHAR|CDATA_TEXT") as info:
        toolparse.Dialect.from_file(path)
    assert info.value.rule in {"CDATA_CHAR", "CDATA_TEXT"}
    text = path.read_text(encoding="utf-8").splitlines()
    assert info.value.line is not None and info.value.rule in text[info.value.line - 1]


def test_a_missing_engine_rule_is_named(tmp_path: Path) -> None:
    path = edited_copy(tmp_path, "attribute: ATTRIBUTE", "")
    with pytest.raises(toolparse.GrammarError, match="attribute"):
        toolparse.Dialect.from_file(path)


def test_a_missing_file_is_a_grammar_error(tmp_path: Path) -> None:
    with pytest.raises(toolparse.GrammarError, match="nope.lark"):
        toolparse.Dialect.from_file(tmp_path / "nope.lark")


def test_bundled_dialects_come_from_grammar_files() -> None:
    dialects = bundled_dialects()
    assert "deepseek" in dialects and "markdown" not in dialects
    assert dialects["deepseek"] == grammar_path("deepseek.lark")


def test_python_spells_no_tag() -> None:
    # SPEC 5: every tag spelling comes from a grammar file. The engine's modules may
    # name grammar rules (their contract with a grammar) but spell no tag, prefix or
    # marker.
    package = Path(toolparse.__file__).parent
    spelled = re.compile(r"tool_calls|tool-calls|DSML|CDATA\[|function_calls|｜|[\"']</?[!A-Za-z]", re.I)
    modules = [path for room in ("_stream", "_dialect", "_markdown", "_syntax")
               for path in sorted((package / room).glob("*.py"))]
    modules += [package / "_calls" / "values.py", package / "_calls" / "policy.py"]
    assert len(modules) > 10
    for module in modules:
        source = module.read_text(encoding="utf-8")
        code = "\n".join(line for line in source.splitlines()
                         if not line.lstrip().startswith("#"))
        code = re.sub(r'""".*?"""', "", code, flags=re.S)
        assert not spelled.search(code), f"{module} spells a tag: {spelled.search(code)}"


def test_a_block_does_not_end_where_only_another_start_rule_could(tmp_path) -> None:
    # LALR merges the state after a call between `block` and `orphan_block: invoke`, so
    # $END shows up as a lookahead inside a wrapper too; the block must still run on to
    # its wrapper close.
    grammar = tmp_path / "bare.lark"
    grammar.write_text(
        'block: WRAPPER_OPEN invoke+ WRAPPER_CLOSE\norphan_block: invoke\n'
        'invoke: OPEN CLOSE\nWRAPPER_OPEN.3: "<calls>"\nWRAPPER_CLOSE.3: "</calls>"\n'
        'OPEN.3: /<call=(?P<name>[a-z]+)>/\nCLOSE.3: "</call>"\nWS: /\\s+/\n%ignore WS\n',
        encoding="utf-8")
    dialect = toolparse.Dialect.from_file(grammar)
    text = "<calls>\n<call=a></call>\n<call=b></call>\n</calls>"
    (block,) = toolparse.parse(text, dialect=dialect).events
    assert isinstance(block, toolparse.ToolCallBlock) and block.raw == text
    assert [c.name for c in block.calls] == ["a", "b"]
    (alone, rest) = toolparse.parse("<call=c></call> done", dialect=dialect).events
    assert isinstance(alone, toolparse.ToolCallBlock) and alone.raw == "<call=c></call>"
