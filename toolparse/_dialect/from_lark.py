"""Lark, where toolparse still needs it: compiling a grammar file into records.

The engine runs on its own table, driver and terminals (`records.py` says what they are
built from); Lark builds them. This module is the only one that imports Lark for a
dialect, and it is imported only when it is needed: on a cache miss of the loader
(`grammar_record`), for `Grammar.lark` (`lark_parser`, for tools and tests that want
Lark's own parser), and for the definitions repair reads (`string_pieces`).

Lark internals read, the same in Lark 1.2.2 and 1.3.x (`lark>=1.2.2,<1.4`; CI runs the
suite on both ends): `Lark.lexer_conf.terminals` (name, `pattern.to_regexp()`,
`pattern.flags`, `pattern.max_width`, `priority`, and a `PatternStr`'s `value`),
`Lark.lexer_conf.ignore`, the `Rule`s of `Lark.rules` (`origin.name`, `expansion`
symbols' `name` and `is_term`, `options.expand1`), and
`Lark.parser.parser.parser.parse_table` (`states`: state -> {symbol: (Shift | Reduce,
argument)}, `start_states`, `end_states`). Lark 1.2's strict mode names no rule in a
shift/reduce conflict; `lark_parser` adds them, as 1.3 writes them.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import lark
from lark.exceptions import LarkError
from lark.lexer import PatternStr
from lark.load_grammar import GrammarBuilder
from lark.parsers.lalr_analysis import Shift

from toolparse._dialect.records import GrammarRecord, LalrTable, RuleRecord, Symbol, TerminalRecord
from toolparse._dialect.table import REDUCE, SHIFT
from toolparse._syntax.files import cache_dir, cache_key, import_paths

__all__ = ["LarkError", "grammar_record", "lark_parser", "string_pieces", "terminal_patterns"]


def lark_parser(text: str, path: Path, starts: Sequence[str]) -> lark.Lark:
    """Lark's LALR parser of a grammar file (through Lark's cache). Raises LarkError,
    or OSError when an `%import` cannot be read."""
    try:
        return _lark(text, path, starts, strict=True)
    except LarkError as e:
        conflict = re.fullmatch(_BARE_CONFLICT, str(e).strip())
        if conflict is None:
            raise
        rules = _conflicting_rules(text, path, starts, conflict.group(1))
        raise type(e)("".join([str(e).strip(), "\n", *(f" * {rule}\n" for rule in rules)])
                      ) from None


def _lark(text: str, path: Path, starts: Sequence[str], *, strict: bool) -> lark.Lark:
    return lark.Lark(
        text, parser="lalr", lexer="contextual", strict=strict, start=list(starts),
        cache=_lark_cache(text, starts) if strict else False, source_path=str(path),
        import_paths=[str(place) for place in import_paths(path.parent)],
    )


_BARE_CONFLICT = r"Shift/Reduce conflict for terminal (\w+)\. \[strict-mode\]"
"""Lark 1.2's strict-mode conflict, which does not name the rule (1.3's does)."""


def _conflicting_rules(text: str, path: Path, starts: Sequence[str], terminal: str) -> list[str]:
    """The rules a shift/reduce conflict on `terminal` reduces by, as Lark logs them when
    it resolves the conflict outside strict mode (Lark 1.2 names them only there). Only
    on that error, after which the grammar does not load."""
    import logging  # noqa: PLC0415  (Lark has imported it already)

    found: list[str] = []

    class Collect(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            found.append(record.getMessage())

    logger = logging.getLogger("lark")
    saved = logger.handlers[:], logger.level, logger.propagate
    logger.handlers, logger.propagate = [Collect()], False
    logger.setLevel(logging.DEBUG)
    try:
        _lark(text, path, starts, strict=False)
    except LarkError:
        pass
    finally:
        logger.handlers, logger.propagate = saved[0], saved[2]
        logger.setLevel(saved[1])
    return [found[n + 1][3:] for n, line in enumerate(found[:-1])
            if line.startswith(f"Shift/Reduce conflict for terminal {terminal}:")
            and found[n + 1].startswith(" * ")]


def terminal_patterns(text: str, path: Path, starts: Sequence[str]) -> list[tuple[str, str]]:
    """Each terminal's name and regular expression, as Lark compiles them before it
    builds a parser (a few milliseconds), so that the loader can refuse a terminal too
    large for Lark's strict checks to finish soon."""
    builder = GrammarBuilder(import_paths=[str(place) for place in import_paths(path.parent)])
    builder.load_grammar(text, str(path))
    terminals, _rules, _ignore = builder.build().compile(list(starts), "*")
    return [(str(t.name), t.pattern.to_regexp()) for t in terminals]


def grammar_record(parser: lark.Lark) -> GrammarRecord:
    """What the loader reads off a Lark parser, as plain records."""
    rules = list(parser.rules)
    return GrammarRecord(
        terminals=tuple(_terminal(t) for t in parser.lexer_conf.terminals),
        ignore=tuple(str(name) for name in parser.lexer_conf.ignore),
        rules=tuple(_rule(rule) for rule in rules),
        table=_table(parser.parser.parser.parser.parse_table, rules),
    )


def _terminal(terminal: Any) -> TerminalRecord:
    pattern = terminal.pattern
    return TerminalRecord(
        name=str(terminal.name), regexp=pattern.to_regexp(),
        flags=tuple(sorted(str(f) for f in pattern.flags)), priority=int(terminal.priority),
        max_width=int(pattern.max_width),
        literal=str(pattern.value) if isinstance(pattern, PatternStr) else None)


def _rule(rule: Any) -> RuleRecord:
    return RuleRecord(
        origin=str(rule.origin.name),
        expansion=tuple(Symbol(str(s.name), bool(s.is_term)) for s in rule.expansion),
        expand1=bool(getattr(rule.options, "expand1", False)),
        alias=str(rule.alias) if getattr(rule, "alias", None) else None)


def _table(parse_table: Any, rules: list[Any]) -> LalrTable:
    index = {id(rule): n for n, rule in enumerate(rules)}
    states: list[dict[str, tuple[int, int]]] = [{} for _ in range(max(parse_table.states) + 1)]
    for state, row in parse_table.states.items():
        for symbol, (action, argument) in row.items():
            states[state][str(symbol)] = ((SHIFT, int(argument)) if action is Shift
                                          else (REDUCE, index[id(argument)]))
    return LalrTable(tuple(states), {str(k): int(v) for k, v in parse_table.start_states.items()},
                     {str(k): int(v) for k, v in parse_table.end_states.items()})


def string_pieces(text: str, path: Path, terminal: str) -> list[str]:
    """The plain strings a terminal's definition is composed of, in order. The
    definitions are read from the grammar's text (a compiled grammar keeps only
    patterns; in a definition, the terminals it names are inlined); a flagged string
    ("x"i) is not plain."""
    builder = GrammarBuilder(import_paths=[str(place) for place in import_paths(path.parent)])
    builder.load_grammar(text, str(path))
    definition = next((tree for term, (tree, _) in builder.build().term_defs
                       if term == terminal), None)
    if definition is None:
        return []
    return [ast.literal_eval(token.value) for token in definition.scan_values(
        lambda v: isinstance(v, lark.Token) and v.type == "STRING")
        if token.value.endswith('"')]


def _lark_cache(text: str, starts: Sequence[str]) -> str | bool:
    """Where Lark caches this grammar's tables: a file in toolparse's private cache
    directory (Lark's own default is a predictable name in the shared temporary
    directory, and the file is a pickle), or no cache when there is no such directory."""
    directory = cache_dir()
    if directory is None:
        return False
    return str(directory / f"lark_{cache_key('lark', text, ','.join(starts))}.pickle")
