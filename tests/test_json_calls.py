"""JSON body shapes (SPEC 5.3 e): calls written as JSON objects, their members declared in
the grammar's header, read by the one `json_call` rule (toolparse/_dialect/syntaxes/
json_calls.py; docs/grammars.md, "JSON body shapes")."""

from __future__ import annotations

from pathlib import Path

import pytest

import toolparse
from conftest import check_chunkings  # noqa: F401  (the fixture)

ARRAY = """\
// acme.lark: Acme's calls: a JSON array of {"tool_name": ..., "parameters": {...}} in <calls>.
//! toolparse: typing=json value_edges=none {shape}

%import common.json (json_call, _json_ws, LBRACKET, RBRACKET, COMMA)

block: OPEN LBRACKET _json_ws (invoke _json_ws (COMMA _json_ws invoke _json_ws)*)? RBRACKET CLOSE
invoke: json_call

OPEN.3: "<calls>"
CLOSE.3: "</calls>"
WS: /\\s+/
%ignore WS
"""

LINES = """\
// lines.lark: one JSON call per line in <calls>.
//! toolparse: typing=json value_edges=none

%import common.json (json_call)

block: OPEN invoke+ CLOSE
invoke: json_call

OPEN.3: "<calls>"
CLOSE.3: "</calls>"
WS: /\\s+/
%ignore WS
"""

TOOLS = [{"type": "function", "function": {"name": "f", "parameters": {"type": "object"}}}]


def _dialect(tmp_path: Path, text: str, name: str = "acme") -> toolparse.Dialect:
    path = tmp_path / f"{name}.lark"
    path.write_text(text, encoding="utf-8")
    return toolparse.Dialect.from_file(path)


def _calls(text: str, dialect: toolparse.Dialect, **options: object) -> list[tuple[str, object, str | None, str]]:
    return [(c.name, c.arguments, c.reason, c.raw)
            for c in toolparse.parse(text, dialect=dialect, **options).calls]


def test_declared_member_names_are_the_ones_read(tmp_path: Path) -> None:
    acme = _dialect(tmp_path, ARRAY.replace("{shape}", "call_name=tool_name call_arguments=parameters"))
    text = '<calls>[{"tool_name": "f", "parameters": {"a": 1}}, {"name": "g", "arguments": {}}]</calls>'
    assert _calls(text, acme) == [
        ("f", {"a": 1}, None, '{"tool_name": "f", "parameters": {"a": 1}}'),
        ("", {}, "not_a_call", '{"name": "g", "arguments": {}}')]


def test_the_default_members_are_name_and_arguments_or_parameters(tmp_path: Path) -> None:
    acme = _dialect(tmp_path, ARRAY.replace("{shape}", ""))
    text = ('<calls>[{"name": "f", "arguments": {"a": 1}}, {"parameters": {}, "name": "g"}, '
            '{"name": "h"}, {"name": "i", "arguments": "{\\"q\\": 2}"}]</calls>')
    assert [(n, a, r) for n, a, r, _ in _calls(text, acme)] == [
        ("f", {"a": 1}, None), ("g", {}, None), ("h", {}, None), ("i", {"q": 2}, None)]


def test_the_name_as_the_single_key(tmp_path: Path) -> None:
    acme = _dialect(tmp_path, ARRAY.replace("{shape}", "call_name=*"))
    text = '<calls>[{"f": {"a": [1, "]</calls>"]}}, {"g": {}, "h": {}}, {"": {}}]</calls>'
    assert [(n, a, r) for n, a, r, _ in _calls(text, acme)] == [
        ("f", {"a": [1, "]</calls>"]}, None), ("", {}, "not_a_call"), ("", {}, "not_a_call")]


@pytest.mark.parametrize("element", ['42', '"f"', 'null', '[{"name": "f"}]', '{}',
                                     '{"name": "f", "arguments": {}, "id": 1}',
                                     '{"name": 7}', '{"name": "f", "arguments": {}, "parameters": {}}'])
def test_an_element_that_is_no_call_is_a_rejected_call_and_keeps_its_text(
        tmp_path: Path, element: str, check_chunkings) -> None:
    acme = _dialect(tmp_path, ARRAY.replace("{shape}", ""))
    text = f'Before <calls>[{{"name": "f", "arguments": {{}}}}, {element}, {{"name": "g"}}]</calls> after'
    assert _calls(text, acme) == [("f", {}, None, '{"name": "f", "arguments": {}}'),
                                  ("", {}, "not_a_call", element),
                                  ("g", {}, None, '{"name": "g"}')]
    rejected = toolparse.parse(text, dialect=acme, tools=TOOLS).calls[1]
    assert (rejected.status, rejected.reason, rejected.raw) == ("rejected", "not_a_call", element)
    assert toolparse.parse(text, dialect=acme).text == "Before  after"
    check_chunkings(text, dialect=acme)


def test_an_arguments_member_that_is_no_object_rejects_its_call(tmp_path: Path) -> None:
    acme = _dialect(tmp_path, ARRAY.replace("{shape}", ""))
    text = '<calls>[{"name": "f", "arguments": [1]}]</calls>'
    assert [(n, r) for n, _, r, _ in _calls(text, acme)] == [("f", "not_object")]


def test_a_block_that_is_no_json_array_fails_and_stays_text(tmp_path: Path) -> None:
    acme = _dialect(tmp_path, ARRAY.replace("{shape}", ""))
    text = '<calls>[{"name": "f", "arguments": {}} oops]</calls>'
    result = toolparse.parse(text, dialect=acme)
    assert result.calls == () and result.text == text and len(result.failures) == 1


def test_json_lines(tmp_path: Path, check_chunkings) -> None:
    lines = _dialect(tmp_path, LINES, "lines")
    text = '<calls>\n{"name": "f", "arguments": {"a": "}\\n{"}}\n{"name": "g", "arguments": {}}\n</calls>'
    assert [(n, a) for n, a, _, _ in _calls(text, lines)] == [("f", {"a": "}\n{"}), ("g", {})]
    check_chunkings(text, dialect=lines)


def test_incremental_events_give_each_element_as_a_call(tmp_path: Path) -> None:
    acme = _dialect(tmp_path, ARRAY.replace("{shape}", ""))
    text = '<calls>[{"name": "f", "arguments": {"a": 1}}, 7]</calls>'
    parser = toolparse.StreamParser(dialect=acme, incremental=True)
    events = [e for ch in text for e in parser.feed(ch)] + list(parser.close())
    block = [e for e in events if isinstance(e, toolparse.ToolCallBlock)]
    assert [(c.name, c.reason) for c in block[0].calls] == [("f", None), ("", "not_a_call")]


@pytest.mark.parametrize("shape", ["call_name=", "call_arguments=,", "call_name=*,name",
                                   "call_arguments=*"])
def test_a_shape_that_names_no_member_is_a_grammar_error(tmp_path: Path, shape: str) -> None:
    with pytest.raises(toolparse.GrammarError, match="expected member names"):
        _dialect(tmp_path, ARRAY.replace("{shape}", shape))


def test_ignored_members_may_be_there_and_say_nothing(tmp_path: Path) -> None:
    acme = _dialect(tmp_path, ARRAY.replace("{shape}", "call_ignored=id"))
    text = ('<calls>[{"id": "0", "name": "f", "arguments": {}}, {"name": "g", "id": 1}, '
            '{"name": "h", "call_id": "2"}]</calls>')
    assert [(n, r) for n, _, r, _ in _calls(text, acme)] == [
        ("f", None), ("g", None), ("", "not_a_call")]


@pytest.mark.parametrize(("text", "dialect", "names"), [
    ('<tool_calls>[{"name": "f", "arguments": {}}]</tool_calls>', "hunyuan_a13b", ["f"]),
    ('<tool_calls>\n{"name": "f", "arguments": {}}\n{"name": "g"}\n</tool_calls>', "minimax_m1",
     ["f", "g"]),
    ('<tool_calls>\n<invoke name="f"></invoke>\n</tool_calls>', "deepseek", ["f"]),
])
def test_the_token_after_tool_calls_decides_the_dialect(text: str, dialect: str,
                                                        names: list[str], check_chunkings) -> None:
    events = check_chunkings("Sure.\n" + text + "\nDone.", dialect="auto")
    assert [name for e in events if e[0] == "block" for name, _ in e[2]] == names
    for other in ("hunyuan_a13b", "minimax_m1", "deepseek"):
        calls = toolparse.parse(text, dialect=other).calls
        assert bool(calls) == (other == dialect)


def test_a_value_that_is_no_call_is_explained_without_a_name(tmp_path: Path) -> None:
    from toolparse._reasons import rejection_message

    acme = _dialect(tmp_path, ARRAY.replace("{shape}", ""))
    call = toolparse.parse('<calls>[42]</calls>', dialect=acme).calls[0]
    assert rejection_message(call, line=3) == (
        "the JSON value at line 3 where a call goes is no call: it holds no tool name and "
        "arguments as the format writes them")
    assert call.repair is not None and call.repair.hint and "name" in call.repair.hint
