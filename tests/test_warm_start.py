"""A warm start never imports Lark: what Lark compiles from a grammar file (terminals,
rules, LALR table) is cached as plain records (toolparse/_dialect/records.py), and the
grammar built from the cache is the grammar built from Lark, parse for parse."""

from __future__ import annotations

import marshal
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from lark.lexer import PatternStr
from lark.parsers.lalr_analysis import Shift

import toolparse
from toolparse import corpus
from toolparse._dialect import from_lark, loader
from toolparse._dialect.grammar import Grammar
from toolparse._dialect.table import END, REDUCE, SHIFT
from toolparse._syntax.files import cache_dir, grammar_path

ANSWER = ('Reading it now.\n\n<tool_calls>\n<invoke name="read_file">\n'
          '<parameter name="path"><![CDATA[README.md]]></parameter>\n</invoke>\n</tool_calls>\n')
NAMES = toolparse.dialects()


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A fresh, empty cache directory for the test."""
    directory = tmp_path / "cache"
    monkeypatch.setenv("TOOLPARSE_CACHE_DIR", str(directory))
    cache_dir.cache_clear()
    yield directory
    monkeypatch.delenv("TOOLPARSE_CACHE_DIR", raising=False)
    cache_dir.cache_clear()


@pytest.fixture
def compiles(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The grammars Lark is asked to compile (each a cache miss), by their first line."""
    asked: list[str] = []
    compile_with_lark = from_lark.lark_parser

    def counted(text: str, *args: Any) -> Any:
        asked.append(text.splitlines()[0])
        return compile_with_lark(text, *args)

    monkeypatch.setattr(from_lark, "lark_parser", counted)
    return asked


def load(name: str) -> Grammar:
    """A bundled grammar loaded afresh (not the per-process memo of `Dialect.bundled`)."""
    path = grammar_path(f"dialects/{name}.lark")
    return loader.load_grammar(path.read_text(encoding="utf-8"), path, name)


def dialect_of(grammars: dict[str, Grammar], name: str) -> toolparse.Dialect:
    if name == loader.AUTO:
        return toolparse.Dialect(name, None, tuple(grammars[n] for n in NAMES))
    return toolparse.Dialect(name, grammars[name].path, (grammars[name],))


def call_names(text: str, dialect: toolparse.Dialect) -> list[str]:
    return [call.name for call in toolparse.parse(text, dialect=dialect).calls]


# ---- a fresh interpreter ------------------------------------------------------------------

def test_a_second_run_parses_without_importing_lark(tmp_path: Path) -> None:
    # Nor `regex` (10-15 ms of a start-up): what needs a partial match is cached too.
    env = dict(os.environ, TOOLPARSE_CACHE_DIR=str(tmp_path / "cache"))
    code = ("import sys, toolparse\n"
            f"calls = toolparse.parse({ANSWER!r}).calls\n"
            "print([(c.name, c.arguments) for c in calls], 'lark' in sys.modules,"
            " 'regex' in sys.modules)\n"
            "from toolparse._dialect.loader import key_value_tokens\n"
            "key_value_tokens('glm45')\n"
            "print('lark' in sys.modules)\n")

    def run() -> list[str]:
        return subprocess.run([sys.executable, "-c", code], env=env, check=True,
                              capture_output=True, text=True).stdout.splitlines()

    expected = "[('read_file', {'path': 'README.md'})]"
    assert run() == [f"{expected} True True", "True"]  # the first run compiles with Lark
    assert list((tmp_path / "cache").glob("grammar_*.marshal"))
    assert run() == [f"{expected} False False", "False"]


def test_a_failed_block_is_logged_only_where_logging_is_in_use(tmp_path: Path) -> None:
    # Each failure is a DEBUG record on "toolparse.stream" (test_failures.py), but a
    # program that never imports `logging` cannot have turned it on: toolparse does not
    # import it for nothing (it costs every warm start-up a few milliseconds).
    env = dict(os.environ, TOOLPARSE_CACHE_DIR=str(tmp_path / "cache"))
    failed = '<tool_calls><invoke name="a"><oops/></invoke></tool_calls>'
    code = ("import sys, toolparse\n"
            f"print(len(toolparse.parse({failed!r}).failures), 'logging' in sys.modules)\n"
            "import logging\n"
            "logging.basicConfig(level=logging.DEBUG, stream=sys.stdout, format='%(name)s')\n"
            f"print(len(toolparse.parse({failed!r}).failures))\n")

    def run() -> list[str]:
        return subprocess.run([sys.executable, "-c", code], env=env, check=True,
                              capture_output=True, text=True).stdout.splitlines()

    assert run()[1:] == ["toolparse.stream", "1"]  # the first run imports Lark, and it logging
    assert run() == ["1 False", "toolparse.stream", "1"]


# ---- the same grammar either way ------------------------------------------------------------

def fields(obj: object) -> dict[str, object]:
    """An object's attributes: its `__dict__`, or in the compiled build (a mypyc native
    class has none) the attributes mypyc lists."""
    names = getattr(type(obj), "__mypyc_attrs__", None)
    if names is None:
        return dict(vars(obj))
    return {name: getattr(obj, name) for name in names if hasattr(obj, name)}


def assert_same_grammar(cached: Grammar, fresh: Grammar) -> None:
    assert cached.record == fresh.record
    assert cached.table == fresh.table  # actions, gotos, rules, starts, ends, loops, defaults
    assert cached.terminals == fresh.terminals  # name, pattern, flags, priority, width, ...
    assert list(cached.terminals) == list(fresh.terminals)
    assert cached.ignored == fresh.ignored
    assert (cached.openers, cached.opener_rule) == (fresh.openers, fresh.opener_rule)
    assert cached.roles == fresh.roles
    assert fields(cached.build) == fields(fresh.build)
    # A builder by its name (a compiled lambda has none: the name of its type).
    assert ([getattr(b, "__name__", type(b).__name__) for b in cached.builders]
            == [getattr(b, "__name__", type(b).__name__) for b in fresh.builders])
    assert cached.name_at_tag == fresh.name_at_tag


def assert_matches_lark(grammar: Grammar) -> None:
    """The grammar's rules, terminals and table are Lark's own, read independently of
    `from_lark` (Lark's parser is built on demand from the grammar's text)."""
    parser = grammar.lark
    rules = list(parser.rules)
    assert [(info.origin, info.expansion) for info in grammar.table.rules] == [
        (rule.origin.name, tuple(s.name for s in rule.expansion)) for rule in rules]
    assert [(r.expand1, [s.is_term for s in r.expansion]) for r in grammar.record.rules] == [
        (bool(rule.options.expand1), [s.is_term for s in rule.expansion]) for rule in rules]
    _assert_terminals_match(grammar, {t.name: t for t in parser.lexer_conf.terminals})
    assert grammar.ignored == set(parser.lexer_conf.ignore) & set(grammar.terminals)
    _assert_table_matches(grammar, parser.parser.parser.parser.parse_table, rules)


def _assert_terminals_match(grammar: Grammar, lark_terminals: dict[str, Any]) -> None:
    assert list(grammar.terminals) == list(lark_terminals)
    for name, spec in grammar.terminals.items():
        pattern = lark_terminals[name].pattern
        flags = "".join(sorted(pattern.flags))
        assert spec.pattern == pattern.to_regexp()
        assert spec.full.pattern == (f"(?{flags}:{spec.pattern})" if flags else spec.pattern)
        assert spec.priority == lark_terminals[name].priority
        assert spec.sort_key == (-spec.priority, -pattern.max_width, -len(spec.pattern), name)
    assert [t.literal for t in grammar.record.terminals] == [
        t.pattern.value if isinstance(t.pattern, PatternStr) else None
        for t in lark_terminals.values()]


def _assert_table_matches(grammar: Grammar, parse_table: Any, rules: list[Any]) -> None:
    assert grammar.table.starts == parse_table.start_states
    assert grammar.table.ends == parse_table.end_states
    for state, row in parse_table.states.items():
        for symbol, (action, argument) in row.items():
            if symbol in grammar.terminals or symbol == END:
                expected = ((SHIFT, argument) if action is Shift else
                            (REDUCE, next(n for n, r in enumerate(rules) if r is argument)))
                assert grammar.table.actions[state][symbol] == expected
            else:
                assert grammar.table.gotos[state][symbol] == argument
    assert (sum(map(len, grammar.table.actions)) + sum(map(len, grammar.table.gotos))
            == sum(map(len, parse_table.states.values())))


@pytest.mark.parametrize("name", NAMES)
def test_the_grammar_from_the_cache_is_the_grammar_from_lark(
        name: str, cache: Path, compiles: list[str]) -> None:
    fresh = load(name)
    assert len(compiles) == 1 and list(cache.glob("grammar_*.marshal"))
    cached = load(name)
    assert len(compiles) == 1, "the second load is served from the cache"
    assert_same_grammar(cached, fresh)
    assert_matches_lark(cached)


def test_the_corpus_parses_the_same_from_the_cache(cache: Path, compiles: list[str]) -> None:
    cases = corpus.find_cases()
    assert len(cases) >= 200
    fresh = {name: load(name) for name in NAMES}
    cached = {name: load(name) for name in NAMES}
    assert len(compiles) == len(NAMES)
    by_name = {name: (dialect_of(fresh, name), dialect_of(cached, name))
               for name in {case.dialect for case in cases}}
    differ = []
    for case in cases:
        from_lark_dialect, from_cache_dialect = by_name[case.dialect]
        for chunks in ([case.text], corpus.random_chunks(case.text, seed=len(case.text))):
            if (_events(chunks, from_lark_dialect, case.tools)
                    != _events(chunks, from_cache_dialect, case.tools)):
                differ.append(case.id)
    assert differ == []
    failed = [case.id for case in cases
              if not corpus.run_case(case, by_name[case.dialect][1]).passed]
    assert failed == []


def _events(chunks: list[str], dialect: toolparse.Dialect, tools: Any) -> list[toolparse.Event]:
    parser = toolparse.StreamParser(dialect, tools=tools)
    return [event for chunk in chunks for event in parser.feed(chunk)] + parser.close()


# ---- a damaged cache ---------------------------------------------------------------------------

def _damaged(good: bytes, damage: str) -> bytes:
    data = marshal.loads(good)
    if damage == "truncated":
        return good[:len(good) // 2]
    if damage == "not marshal":
        return b"\xff not marshal data"
    if damage == "another shape":
        return marshal.dumps({"terminals": []})
    if damage == "another layout":
        return marshal.dumps([data[0] + 1, *data[1:]])
    if damage == "a reduction of no rule":
        states = data[4][0]
        row = next(row for row in states if any(kind == REDUCE for kind, _ in row.values()))
        symbol = next(s for s, (kind, _) in row.items() if kind == REDUCE)
        row[symbol] = [REDUCE, len(data[3]) + 5]
        return marshal.dumps(data)
    assert damage == "empty"
    return b""


@pytest.mark.parametrize("damage", ["truncated", "not marshal", "another shape",
                                    "another layout", "a reduction of no rule", "empty"])
def test_a_damaged_cache_file_is_built_again(damage: str, cache: Path,
                                             compiles: list[str]) -> None:
    load("deepseek")
    (cache_file,) = cache.glob("grammar_*.marshal")
    good = cache_file.read_bytes()
    cache_file.write_bytes(_damaged(good, damage))
    grammar = load("deepseek")
    assert len(compiles) == 2, "the damaged file is not used"
    assert call_names(ANSWER, dialect_of({"deepseek": grammar}, "deepseek")) == ["read_file"]
    assert marshal.loads(cache_file.read_bytes()) == marshal.loads(good), "and it is rewritten"
    load("deepseek")
    assert len(compiles) == 2


# ---- a user's grammar -----------------------------------------------------------------------

CALL = '<tool_calls><invoke name="f"><parameter name="a">1</parameter></invoke></tool_calls>'
RENAMED = CALL.replace("tool_calls", "my_calls")


def _rename_wrapper(text: str) -> str:
    assert '_DSML_PREFIX? "tool_calls"' in text
    return text.replace('_DSML_PREFIX? "tool_calls"', '_DSML_PREFIX? "my_calls"')


def test_an_edited_grammar_file_is_not_served_from_the_old_cache(
        tmp_path: Path, cache: Path, compiles: list[str]) -> None:
    mine = tmp_path / "mine.lark"
    deepseek = grammar_path("dialects/deepseek.lark").read_text(encoding="utf-8")
    mine.write_text(deepseek, encoding="utf-8")
    assert call_names(CALL, toolparse.Dialect.from_file(mine)) == ["f"]
    assert call_names(CALL, toolparse.Dialect.from_file(mine)) == ["f"]
    assert len(compiles) == 1
    mine.write_text(_rename_wrapper(deepseek), encoding="utf-8")
    edited = toolparse.Dialect.from_file(mine)
    assert len(compiles) == 2
    assert (call_names(RENAMED, edited), call_names(CALL, edited)) == (["f"], [])


def test_a_grammar_that_imports_another_loads_and_sees_its_edits(
        tmp_path: Path, cache: Path, compiles: list[str]) -> None:
    base = tmp_path / "base.lark"
    deepseek = grammar_path("dialects/deepseek.lark").read_text(encoding="utf-8")
    base.write_text(deepseek, encoding="utf-8")
    mine = tmp_path / "mine.lark"
    mine.write_text("// mine.lark: the calls of base.lark\n"
                    "%import base (block, orphan_block, attribute, WS)\n%ignore WS\n",
                    encoding="utf-8")
    assert call_names(CALL, toolparse.Dialect.from_file(mine)) == ["f"]
    assert call_names(CALL, toolparse.Dialect.from_file(mine)) == ["f"]
    assert len(compiles) == 1, "the second load is served from the cache"
    base.write_text(_rename_wrapper(deepseek), encoding="utf-8")
    edited = toolparse.Dialect.from_file(mine)
    assert len(compiles) == 2, "an edit of the imported file is a new key"
    assert (call_names(RENAMED, edited), call_names(CALL, edited)) == (["f"], [])


def test_a_bundled_grammar_can_be_imported(tmp_path: Path, cache: Path) -> None:
    mine = tmp_path / "mine.lark"
    mine.write_text("// mine.lark: DeepSeek's calls\n"
                    "%import deepseek (block, orphan_block, attribute, WS)\n%ignore WS\n",
                    encoding="utf-8")
    dialect = toolparse.Dialect.from_file(mine)
    assert call_names(CALL, dialect) == ["f"]
    assert_matches_lark(dialect._grammars[0])
