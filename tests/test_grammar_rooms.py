"""The grammars' rooms (docs/grammars.md): one folder per kind of syntax, and the
sub-grammars a dialect `%import`s."""

from __future__ import annotations

from pathlib import Path

import toolparse
from toolparse._syntax.files import grammar_path
from conftest import all_chunkings, joined, shape, stream

GRAMMARS = grammar_path("markdown.lark").parent

TAGGED_JSON = r"""\
// tagged_json.lark: a call as one JSON object, read structurally, between <call> tags.
//! toolparse: typing=json value_edges=none
%import common.json (json_object)
WS: /\s+/
%ignore WS

block: invoke
invoke: CALL_OPEN json_body CALL_CLOSE
json_body: json_object

CALL_OPEN.3: /<call name="(?P<name>[a-z_]+)">/
CALL_CLOSE.3: "</call>"
"""


def test_each_kind_of_grammar_has_its_folder() -> None:
    dialects = {p.stem for p in (GRAMMARS / "dialects").glob("*.lark")}
    assert dialects == set(toolparse.dialects())
    formats = {p.stem for p in (GRAMMARS / "reasoning").glob("*.lark")}
    assert formats == set(toolparse.reasoning_formats())
    assert (GRAMMARS / "common" / "json.lark").is_file()
    assert sorted(p.name for p in GRAMMARS.glob("*.lark")) == ["markdown.lark"]


def test_a_dialect_imports_structural_json_from_common(tmp_path: Path) -> None:
    path = tmp_path / "tagged_json.lark"
    path.write_text(TAGGED_JSON, encoding="utf-8")
    dialect = toolparse.Dialect.from_file(path)
    # Read structurally: a `</call>` inside a string ends nothing, escapes decode.
    text = ('<call name="f">{"a": "x}</call>y", "b": [1, 2.5e3, true, null, '
            '{"c": "\\u00e9"}]}</call> after')
    for label, chunks in all_chunkings(text):
        events = stream(chunks, dialect=dialect)
        assert joined(events) == text, label
        assert shape(events) == [("block", text[:-6], [("f", {
            "a": "x}</call>y", "b": [1, 2500.0, True, None, {"c": "é"}]})]), ("text", " after")
        ], label
    # Not JSON: the block fails at the token, as any grammar's does.
    for bad in ('{"a": 1,, }', '{"a": 01}', '{"a": tru}', '{"a" 1}'):
        (failure,) = toolparse.parse(f'<call name="f">{bad}</call>', dialect).failures
        assert failure.reason == "unexpected_token", bad
    # A raw newline inside a string is the string's: nothing is dropped, and the call
    # says its arguments are not JSON (SPEC 3.1).
    (call,) = toolparse.parse('<call name="f">{"a": "x\n y"}</call>', dialect).calls
    assert call.status == "rejected" and call.repair.text == '{"a": "x\n y"}'
    # A valid body goes on exactly as written, its whitespace included.
    (call,) = toolparse.parse('<call name="f">\n{ "a" :\t[1 , 2] }\n</call>', dialect).calls
    assert call.arguments_json == '{ "a" :\t[1 , 2] }'


def _documented_marks() -> dict[str, set[str]]:
    """Per dialect, the accept-only marks its section of docs/dialects.md names."""
    import re

    page = (Path(__file__).resolve().parents[1] / "docs" / "dialects.md").read_text("utf-8")
    found: dict[str, set[str]] = {}
    for section in re.split(r"^## ", page, flags=re.M)[1:]:
        title = re.match(r"`(\w+)`\n", section)
        if title is None or title.group(1) not in toolparse.dialects():
            continue
        lines = [m.group(0) for m in re.finditer(r"\*\*Accept-only\*\*.*?(?:\n\n|\Z)",
                                                 section, re.S)]
        assert len(lines) == 1, f"{title.group(1)}: one **Accept-only** paragraph"
        found[title.group(1)] = set(re.findall(r"`((?:_?LENIENT_|lenient_|orphan_block)\w*)`",
                                               lines[0]))
    return found


def test_the_accept_only_marks_are_the_documented_leniencies() -> None:
    # docs/grammars.md: what a grammar only reads is marked in the file; each mark is a
    # leniency docs/dialects.md lists, and each listed leniency is marked.
    documented = _documented_marks()
    assert set(documented) == set(toolparse.dialects())
    for dialect in toolparse.dialects():
        grammar = toolparse.Dialect.bundled(dialect)._grammars[0]
        assert grammar.accept_only == documented[dialect], dialect
    assert documented["deepseek"] >= {"orphan_block", "_LENIENT_DSML_DRIFT"}


def test_a_marked_alternative_still_parses_as_it_did(check_chunkings) -> None:
    # The marks change nothing the parser reads: a missing </parameter> and a drifted
    # DSML prefix are read as before.
    assert check_chunkings("<tool_call>\n<function=f>\n<parameter=a>\n1\n<parameter=b>\n2\n"
                           "</function>\n</tool_call>", dialect="qwen3_coder")[0][2] == [
        ("f", {"a": "1", "b": "2"})]
    assert check_chunkings('<|dsml|tool-calls><｜DSML｜invoke name="a"/></tool_calls>')[0][2] \
        == [("a", {})]
