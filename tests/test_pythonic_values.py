"""Pythonic calls (SPEC 5.3 c): `name(key=value, ...)` with Python literals, read by the
LALR parser over grammars/common/python.lark and built into a JSON object by the
`pythonic` value syntax (toolparse/_dialect/syntaxes/pythonic.py). Nothing is evaluated.

The grammar here is a user's (a temporary file), so that these are the sub-grammar's
rules, whatever the bundled dialects that import it do around it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import toolparse
from conftest import check_chunkings  # noqa: F401  (the fixture)
from toolparse._dialect.syntaxes.pythonic import ARRAY, OBJECT, TEXT, arguments_json

CALLS = """\
// acme.lark: Acme's calls: Python calls, one per line, in <calls>.
//! toolparse: typing=pythonic value_edges=none

%import common.python (invoke)

block: OPEN invoke+ CLOSE

OPEN.3: "<calls>"
CLOSE.3: "</calls>"
WS: /\\s+/
%ignore WS
"""

TOOLS = [{"type": "function", "function": {"name": "f", "parameters": {
    "type": "object", "properties": {"n": {"type": "integer"}, "s": {"type": "string"}},
    "required": ["n"]}}}]


@pytest.fixture(scope="module")
def acme(tmp_path_factory: pytest.TempPathFactory) -> toolparse.Dialect:
    path = tmp_path_factory.mktemp("pythonic") / "acme.lark"
    path.write_text(CALLS, encoding="utf-8")
    return toolparse.Dialect.from_file(path)


def _one(body: str, dialect: toolparse.Dialect, **options: Any) -> toolparse.ToolCall:
    (call,) = toolparse.parse(f"<calls>{body}</calls>", dialect=dialect, **options).calls
    return call


@pytest.mark.parametrize(("body", "arguments"), [
    ("f()", {}),
    ("f(a=1, b='x')", {"a": 1, "b": "x"}),
    ('f(a="x", b=\'y\')', {"a": "x", "b": "y"}),
    ("f(a=True, b=False, c=None)", {"a": True, "b": False, "c": None}),
    ("f(a=-5, b=+2, c=1_000, d=07, e=0)", {"a": -5, "b": 2, "c": 1000, "d": 7, "e": 0}),
    ("f(a=1.5, b=-1.5, c=.5, d=5., e=1e3, f=2.5E-2)",
     {"a": 1.5, "b": -1.5, "c": 0.5, "d": 5.0, "e": 1000.0, "f": 0.025}),
    ("f(a=[], b={}, c=(), d=[1, [2, [3]]])", {"a": [], "b": {}, "c": [], "d": [1, [2, [3]]]}),
    ("f(a=(1,), b=(1, 2), c=(3), d=((4)))", {"a": [1], "b": [1, 2], "c": 3, "d": 4}),
    ("f(a={'k': [1, {'x': None}], \"q\": (True,)})", {"a": {"k": [1, {"x": None}], "q": [True]}}),
    ("f(tags={'urgent', 'bug'})", {"tags": ["urgent", "bug"]}),
    ("f(a=[1, 2,], b={'k': 1,}, c=3,)", {"a": [1, 2], "b": {"k": 1}, "c": 3}),
    ("grocery.order_items(n = 1)", {"n": 1}),
    ("f(a=null, b=true, c=false)", {"a": None, "b": True, "c": False}),   # accept-only
])
def test_python_literals_become_json(acme: toolparse.Dialect, body: str, arguments: Any) -> None:
    call = _one(body, acme)
    assert (call.name, call.arguments, call.status) == (body.split("(")[0], arguments, "unchecked")
    assert json.loads(call.arguments_text or "") == arguments


@pytest.mark.parametrize(("literal", "text"), [
    (r"'Martha\'s Vineyard'", "Martha's Vineyard"),
    (r"'\"cool units\"'", '"cool units"'),
    (r"'a\nb\tc\\d'", "a\nb\tc\\d"),
    (r"'\x41\u00e9\U0001F600\0'", "A\u00e9\U0001F600\x00"),
    (r"'\,'", "\\,"),                      # an escape Python does not know: both characters
    ("'line one\nline two'", "line one\nline two"),   # a raw newline is kept
    ("'a\\\nb'", "ab"),                    # a backslash before a newline continues the line
    ("\"it's\"", "it's"),
    ("')]}</calls>'", ")]}</calls>"),      # brackets and the close tag inside a string
    ("'printf a\x00b'", "printf a\x00b"),
    (r"'\ud83d'", "\ud83d"),               # a lone surrogate: escaped in the JSON text
    (r"'\9\8'", "\\9\\8"),                 # not octal digits: the two characters each,
    ("'\\\u0663'", "\\\u0663"),            # as Python reads them (a digit of another script too)
    (r"'\U0010FFFF\7'", "\U0010FFFF\x07"),  # the last code point; an octal digit
])
def test_strings_and_their_escapes(acme: toolparse.Dialect, literal: str, text: str,
                                   check_chunkings: Any) -> None:
    call = _one(f"f(s={literal})", acme)
    assert call.arguments == {"s": text}
    # A row of text runs and escapes may arrive as one piece (far from the text's end,
    # the lexer reads a row of them in one match), or cut anywhere.
    far = toolparse.parse(f"<calls>f(s={literal})</calls>" + " tail" * 400, dialect=acme)
    assert far.calls[0].arguments == {"s": text}
    check_chunkings(f"<calls>f(s={literal}, t=[{literal}])</calls>", dialect=acme)
    assert (call.arguments_text or "").isascii() or "\ud83d" not in (call.arguments_text or "")


def test_the_arguments_text_is_written_as_json_dumps_writes_it(acme: toolparse.Dialect) -> None:
    call = _one("register_user(name='John Doe', age=37, address={'city': 'SF'}, role=None, "
                "aliases=['John', 'Johnny'], caf\u00e9='\u00e9')", acme)
    assert call.arguments_text == ('{"name": "John Doe", "age": 37, "address": {"city": "SF"}, '
                                   '"role": null, "aliases": ["John", "Johnny"], '
                                   '"caf\u00e9": "\u00e9"}')


@pytest.mark.parametrize("body", [
    "f(x)", "f('Tokyo')", "f(1, a=2)", "f(a=1, 2)",           # positional arguments
    "f(a=b)", "f(a=b.c)", "f(a=g())", 'f(city=__import__("os"))', "f(a=[1, x])",
    "f(a={'k': v})", "f(a=b'z')", "f(a=r'z')", "f(a=-True)", 'f(a=-"x")', "f(*args)",
    "f(**kw)", "f(a=lambda: 1)", "f(a=Truex)",
])
def test_what_is_no_literal_fails_the_block_as_its_text(acme: toolparse.Dialect, body: str,
                                                       check_chunkings: Any) -> None:
    text = f"Go: <calls>ok(a=1)\n{body}</calls> done"
    result = toolparse.parse(text, dialect=acme)
    assert result.calls == ()
    (failure,) = result.failures
    assert failure.reason == "not_literal"
    assert "".join(e.text for e in result.events) == text
    assert result.events[1].text == text[4:-5]     # the block, exactly as written
    check_chunkings(text, dialect=acme)


@pytest.mark.parametrize("body", [
    "f(a=)", "f(a=1", "f(a=[1, 2)", "f(a=1])", "f(a='x 'y')", "f(a='''x''')",
    "f(a=0x1F)", "f(a=1j)", r"f(a='\101')", r"f(a='\N{DASH}')", "f(a=1 # c\n)",
    r"f(a='\UFFFFFFFF')", r"f(a='\U00110000')",   # past U+10FFFF: no literal in Python
])
def test_what_the_grammar_does_not_read_fails_the_block(acme: toolparse.Dialect,
                                                        body: str) -> None:
    result = toolparse.parse(f"<calls>{body}</calls>", dialect=acme)
    assert result.calls == ()
    assert [f.reason for f in result.failures] in (["unexpected_token"], ["truncated"])


def test_the_failure_is_said_in_words(acme: toolparse.Dialect) -> None:
    (failure,) = toolparse.parse("<calls>f(a=os.system('x'))</calls>", dialect=acme).failures
    assert failure.message == ("the call at line 1 has a positional argument or a value that "
                               "is no Python literal (a name, an attribute, a call); nothing "
                               "of it is evaluated")


def test_calls_are_chunking_invariant(acme: toolparse.Dialect, check_chunkings: Any) -> None:
    check_chunkings("A <calls>f(a='x)', b=[1, (2,), {'k': None}], c=-1.5e3)\ng()</calls> B",
                    dialect=acme)
    check_chunkings("<calls>f(a=True, b=Truex)</calls>", dialect=acme)


def test_with_tools_the_arguments_are_checked_and_repaired_as_json(
        acme: toolparse.Dialect) -> None:
    assert _one("f(n=1, s='x')", acme, tools=TOOLS).status == "valid"
    rejected = _one("f(s='x')", acme, tools=TOOLS)
    assert (rejected.status, rejected.reason) == ("rejected", "missing_required")
    repaired = _one("f(n='3')", acme, tools=TOOLS)     # a numeric string, as JSON repairs it
    assert repaired.status in ("repaired", "rejected")
    assert _one("g()", acme, tools=TOOLS).reason == "unknown_tool"


def test_numbers_json_cannot_carry_reject_the_call(acme: toolparse.Dialect) -> None:
    call = _one("f(a=1e999)", acme)   # G11: no Infinity in any arguments text
    assert (call.status, call.reason, call.arguments) == ("rejected", "invalid_json", {})


def test_a_repeated_keyword_rejects_the_call_as_a_repeated_json_key(
        acme: toolparse.Dialect) -> None:
    assert _one("f(a=1, a=2)", acme).status == "rejected"
    assert _one("f(a=1, a=2)", acme, tools=TOOLS).reason == "duplicate_key"


@pytest.mark.parametrize(("opener", "closer"), [("[", "]"), ("(", ",)"), ("{'k': ", "}"),
                                                ("{", "}")])
def test_deep_nesting_gives_events_not_a_recursion_error(acme: toolparse.Dialect, opener: str,
                                                         closer: str) -> None:
    text = f"<calls>f(a={opener * 10_000}1{closer * 10_000})</calls>"
    (call,) = toolparse.parse(text, dialect=acme).calls
    assert (call.status, call.reason) == ("rejected", "too_deep")


def test_a_value_that_never_closes_fails_at_max_capture_with_its_text(
        acme: toolparse.Dialect) -> None:
    for text in ("<calls>f(a='" + "x" * 5000, "<calls>f(a=" + "[" * 5000):
        result = toolparse.parse(text + " tail", dialect=acme, max_capture=2000)
        assert result.calls == ()
        assert result.failures[0].reason == "max_capture"
        assert "".join(e.text for e in result.events) == text + " tail"


def test_the_json_is_written_without_recursion() -> None:
    value: Any = (TEXT, "1")
    for _ in range(100_000):
        value = (ARRAY, (value,))
    text = arguments_json((OBJECT, (('"a"', value),)))
    assert text.startswith('{"a": [[[') and text.endswith("1" + "]" * 100_000 + "}")
