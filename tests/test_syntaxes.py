"""Value syntaxes (`toolparse/_dialect/syntaxes/`): the header's `typing=` and
`value_edges=` each name a row of one table, resolved once at load; the rows bring the
builders of their own rules; no other module compares a syntax's name."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

import toolparse
from toolparse._dialect.build import CONTRACT_RULES
from toolparse._dialect.syntaxes import (
    DEFAULTS, RULE_SYNTAXES, TYPING, VALUE_EDGES, VALUE_SYNTAXES, ValueSyntax, names)
from toolparse._dialect.values import Cdata

PACKAGE = Path(toolparse.__file__).resolve().parent
SYNTAXES = PACKAGE / "_dialect" / "syntaxes"

GRAMMAR = """\
// rows.lark: a small dialect for the header's names.
//! toolparse: typing=schema value_edges=newline
block: OPEN invoke+ CLOSE
invoke: CALL_OPEN param* CALL_CLOSE
param: ARG_OPEN (TEXT | LT)* ARG_CLOSE
OPEN.3: "<calls>"
CLOSE.3: "</calls>"
CALL_OPEN.3: /<call=(?P<name>[a-z]+)>/
CALL_CLOSE.3: "</call>"
ARG_OPEN.3: /<arg=(?P<name>[a-z]+)>/
ARG_CLOSE.3: "</arg>"
TEXT.1: /[^<]+/
LT.1: "<"
WS: /\\s+/
%ignore WS
"""


def _grammar(dialect: toolparse.Dialect) -> Any:
    (grammar,) = dialect._grammars
    return grammar


# ---- the table ------------------------------------------------------------------------------

def test_each_header_key_names_rows_of_one_table() -> None:
    assert names(TYPING) == ("attribute", "schema", "json", "pythonic", "gemma")
    assert names(VALUE_EDGES) == ("xml", "trim", "newline", "none")
    for name, row in VALUE_SYNTAXES.items():
        assert isinstance(row, ValueSyntax) and row.name == name
        # One module per row, named after it.
        assert (SYNTAXES / f"{name}.py").is_file(), name
    assert DEFAULTS[TYPING].key == TYPING and DEFAULTS[VALUE_EDGES].key == VALUE_EDGES


@pytest.mark.parametrize("dialect", toolparse.dialects())
def test_a_grammar_holds_the_rows_its_header_names(dialect: str) -> None:
    loaded = toolparse.Dialect.bundled(dialect)
    grammar = _grammar(loaded)
    typing, edges = grammar.header.typing, grammar.header.value_edges
    assert typing is VALUE_SYNTAXES[typing.name] and typing.key == TYPING
    assert edges is VALUE_SYNTAXES[edges.name] and edges.key == VALUE_EDGES
    source = grammar.source
    assert f"typing={typing.name}" in source and f"value_edges={edges.name}" in source
    assert loaded.typing == typing.name
    # A typing of text values reads a parameter's value by the edges the header names.
    assert grammar.build.values is edges
    assert grammar.build.string_attribute is typing.guesses


def test_a_header_that_names_no_row_takes_the_defaults(tmp_path: Path) -> None:
    path = tmp_path / "rows.lark"
    path.write_text(GRAMMAR.replace("//! toolparse: typing=schema value_edges=newline\n", ""),
                    encoding="utf-8")
    header = _grammar(toolparse.Dialect.from_file(path)).header
    assert header.typing is DEFAULTS[TYPING] and header.value_edges is DEFAULTS[VALUE_EDGES]


@pytest.mark.parametrize("item, message", [
    ("typing=xml", "typing='xml': expected one of attribute, schema, json, pythonic, gemma"),
    ("typing=yaml", "typing='yaml': expected one of attribute, schema, json, pythonic, gemma"),
    ("value_edges=json", "value_edges='json': expected one of xml, trim, newline, none"),
    ("value_edges=attribute", "value_edges='attribute': expected one of xml, trim, newline, "
                              "none"),
    ("value_edges=", "value_edges='': expected one of"),
])
def test_a_name_that_is_no_row_of_its_key_names_file_and_line(tmp_path: Path, item: str,
                                                               message: str) -> None:
    # A row of the other key is no row of this one: `typing=xml` is refused.
    written = {"typing": "typing=schema", "value_edges": "value_edges=newline"}
    text = GRAMMAR.replace(written[item.partition("=")[0]], item)
    path = tmp_path / "rows.lark"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(toolparse.GrammarError) as info:
        toolparse.Dialect.from_file(path)
    assert message in str(info.value)
    assert info.value.path == str(path.resolve()) and info.value.line == 2


# ---- builders, merged -----------------------------------------------------------------------

def test_the_syntaxes_build_their_own_rules_and_no_contract_rule() -> None:
    assert RULE_SYNTAXES["json_body"] is VALUE_SYNTAXES["json"]
    assert not set(RULE_SYNTAXES) & set(CONTRACT_RULES)
    for rule, row in RULE_SYNTAXES.items():
        assert rule in row.builders
    built = [rule for row in VALUE_SYNTAXES.values() for rule in row.builders]
    assert sorted(built) == sorted(RULE_SYNTAXES)   # each rule is one row's


def test_a_syntax_builds_its_rule_wherever_a_grammar_writes_it() -> None:
    # deepseek's typing is `attribute`, yet its invoke may hold a JSON body: the json
    # row's builder reads it, and its stream streams it.
    build = _grammar(toolparse.Dialect.bundled("deepseek")).build
    assert build.for_rule("json_body") is VALUE_SYNTAXES["json"].builders["json_body"]
    assert build.for_rule("common__json_body") is build.for_rule("json_body")
    assert build.body is VALUE_SYNTAXES["json"]
    assert build.for_rule("json_value") is None   # not built: it inlines
    text = ('<tool_calls><invoke name="f">{"a": [1, 2]}</invoke></tool_calls>')
    (call,) = toolparse.parse(text).accepted_calls
    assert call.arguments == {"a": [1, 2]}


def test_a_nameless_call_asks_its_body() -> None:
    # Hermes: the call's tags carry no name; the json row's body gives the call.
    text = '<tool_call>\n{"parameters": {"x": "1"}, "name": "f"}\n</tool_call>'
    (call,) = toolparse.parse(text, dialect="hermes").accepted_calls
    assert call.name == "f" and call.arguments == {"x": "1"}


# ---- what the rows read ---------------------------------------------------------------------

_JSON_PIECE = st.lists(st.sampled_from(list(' \t\n{}[]":,ab1') + ["\r\n"]), max_size=6).map(
    "".join)


@given(st.lists(st.tuples(st.booleans(), _JSON_PIECE), max_size=8))
def test_a_json_body_streams_a_prefix_of_its_text(pieces: list[tuple[bool, str]]) -> None:
    # A body starts at its opening bracket (the tag the stream is given first).
    row = VALUE_SYNTAXES["json"]
    stream = row.stream()
    out = [stream.text("{")]
    built: list[Any] = ["{"]
    for is_cdata, text in pieces:
        out.append(stream.cdata(text) if is_cdata else stream.text(text))
        built.append(Cdata(text) if is_cdata else text)
        # All but a blank end has gone out: a prefix of the text, whatever comes next.
        assert "".join(out) == row.value_text(built)[0]


@pytest.mark.parametrize("name", names(VALUE_EDGES))
def test_fast_agrees_with_text_for_every_row(name: str) -> None:
    line = " a &amp; b\n\tc  "
    for fast_first in (False, True):
        slow, quick = VALUE_SYNTAXES[name].stream(), VALUE_SYNTAXES[name].stream()
        got_slow, got_quick = [], []
        for piece in ("x", *line, *line, "y"):
            got_slow.append(slow.text(piece))
            out = quick.fast(piece) if fast_first else None
            got_quick.append(out if out is not None else quick.text(piece))
        assert "".join(got_slow) == "".join(got_quick)


# ---- no other module compares a syntax's name -----------------------------------------------

_UNRELATED = {
    ("_dialect/loader.py", 'START_RULES = ("block", "orphan_block", "attribute", *MESSAGE_RULES)'),
    ("_dialect/loader.py", 'if start == "attribute":'),     # the start rule `attribute`
    ("_dialect/loader.py", "or 'none'}\")"),                # "Bundled dialects: none"
    ("_cli/common.py", 'args.reasoning == "none"'),          # `--reasoning none`
    ("_calls/repair/base.py", '"schema", "unknown_tool"]'),  # the repair reason `schema`
}
"""Lines where a row's name is another thing's name: (module, the line's text)."""

# The modules that once compared or passed on `typing` or `value_edges` strings.
_CONSUMERS = ("_dialect/header.py", "_dialect/values.py", "_dialect/value_stream.py",
              "_dialect/build.py", "_dialect/loader.py", "_calls/policy.py",
              "_stream/progress.py", "_stream/engine.py")


def _strings(node: ast.AST) -> list[tuple[int, str]]:
    """The string constants of an expression (inside tuples, lists and sets too), with
    their lines."""
    return [(n.lineno, n.value) for n in ast.walk(node)
            if isinstance(n, ast.Constant) and isinstance(n.value, str)]


_SYNTAX_FIELDS = frozenset({"typing", "value_edges"})
"""The names under which a dialect's syntaxes travel (a header's fields, parameters)."""


def _mentions_a_syntax(node: ast.AST) -> bool:
    """Whether an expression reads a `typing` or `value_edges` value (a name, an
    attribute, a keyword), directly or inside it."""
    return any((isinstance(n, ast.Name) and n.id in _SYNTAX_FIELDS)
               or (isinstance(n, ast.Attribute) and n.attr in _SYNTAX_FIELDS)
               for n in ast.walk(node))


def _compared_names(source: str) -> list[tuple[int, str]]:
    """The row names a module compares a syntax with, or selects by one: a comparison
    (`==`, `in`, ...) or a `match` on a `typing`/`value_edges` value, or a subscript by
    one of a dict keyed by row names. (A row name elsewhere is another thing's name:
    `"json"` as a log format, `"none"` as a CLI value.)"""
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Compare):
            operands: list[ast.AST] = [node.left, *node.comparators]
            if not any(_mentions_a_syntax(o) for o in operands):
                continue
        elif isinstance(node, ast.Match):
            if not _mentions_a_syntax(node.subject):
                continue
            operands = [p for c in node.cases for p in ast.walk(c.pattern)
                        if isinstance(p, ast.MatchValue)]
        elif isinstance(node, ast.Subscript):
            if not _mentions_a_syntax(node.slice):
                continue
            operands = [node.value]
        else:
            continue
        for operand in operands:
            found += [(line, s) for line, s in _strings(operand) if s in VALUE_SYNTAXES]
    return found


def _named_strings(source: str) -> list[tuple[int, str]]:
    """The string constants equal to a row's name, docstrings aside (a module's, a
    class's, a function's, and an attribute's: the string after an assignment)."""
    tree = ast.parse(source)
    docstrings = set()
    for block in ast.walk(tree):
        body = getattr(block, "body", None)
        if not isinstance(body, list) or not body:
            continue
        if isinstance(block, (ast.Module, ast.ClassDef, ast.FunctionDef)) and isinstance(
                body[0], ast.Expr):
            docstrings.add(id(body[0].value))
        for before, after in zip(body, body[1:]):
            if isinstance(before, (ast.Assign, ast.AnnAssign)) and isinstance(after, ast.Expr):
                docstrings.add(id(after.value))
    return [(n.lineno, n.value) for n in ast.walk(tree) if isinstance(n, ast.Constant)
            and isinstance(n.value, str) and n.value in VALUE_SYNTAXES
            and id(n) not in docstrings]


def _unrelated(module: str, source: str, found: list[tuple[int, str]]) -> list[str]:
    """The lines of `found` that are not `_UNRELATED`, as `module:line: text`."""
    lines = source.splitlines()
    return [f"{module}:{line}: {lines[line - 1].strip()}" for line, _ in found
            if not any(module == where and text in lines[line - 1]
                       for where, text in _UNRELATED)]


def test_no_module_but_the_syntaxes_compares_a_syntax_name() -> None:
    # The package's modules: not the data an installed wheel carries beside them (the
    # corpus's generator script).
    files = [path for path in PACKAGE.rglob("*.py") if SYNTAXES not in path.parents
             and all((folder / "__init__.py").is_file()
                     for folder in path.parents if PACKAGE in (folder, *folder.parents))]
    assert len(files) > 50
    found = []
    for path in files:
        source = path.read_text(encoding="utf-8")
        found += _unrelated(path.relative_to(PACKAGE).as_posix(), source,
                            _compared_names(source))
    assert found == []


@pytest.mark.parametrize("module", _CONSUMERS)
def test_a_consumer_of_the_syntaxes_spells_no_syntax_name(module: str) -> None:
    source = (PACKAGE / module).read_text(encoding="utf-8")
    assert _unrelated(module, source, _named_strings(source)) == []
