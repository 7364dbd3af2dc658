"""What Lark compiles from a grammar file, as plain records: terminals, rules, LALR table.

Lark is needed to *build* these from a grammar file (`from_lark.py`, on a cache miss);
the engine runs its own lexer, table and driver on them. So a warm start reads them from
the cache directory (`_syntax/files.cached_json`, stored with `marshal`) and never
imports Lark. Either way the loader builds the `Grammar` from `GrammarRecord.from_data`:
what was just read off Lark goes through the same plain data as what was read off the
disk, so the two paths cannot drift.

`from_data` checks the shape of what it reads (types, and that every state and rule a
table names exists): a cache file of another layout or a damaged one raises ValueError
or TypeError, and the caller builds again. It guards against accidents, not attackers:
only this user can write the cache directory.

The records are named tuples, not dataclasses: a grammar has hundreds of symbols, and
a tuple is built (and its class defined, at import) several times faster.

Cost: one pass over the data, about a millisecond for a bundled grammar.
"""

from __future__ import annotations

from typing import Any, NamedTuple

__all__ = ["FORMAT", "GrammarRecord", "LalrTable", "RuleRecord", "Symbol", "TerminalRecord"]

FORMAT = 2
"""The layout of `GrammarRecord.to_data`; part of the cache key (change it with the
layout, or with what `from_lark` reads off Lark)."""


class TerminalRecord(NamedTuple):
    """One terminal as Lark compiled it (Lark's `TerminalDef`)."""

    name: str
    regexp: str
    """Its pattern as one regular expression (`pattern.to_regexp()`)."""
    flags: tuple[str, ...]
    """Its regex flags (`"i"` for `"x"i`), sorted."""
    priority: int
    max_width: int
    """The longest a match can be (Lark's estimate; it orders the lexer)."""
    literal: str | None
    """The string, for a terminal written as a string literal; else None."""


class Symbol(NamedTuple):
    """One symbol of a rule's expansion."""

    name: str
    is_term: bool
    """A terminal (else a rule)."""


class RuleRecord(NamedTuple):
    """One expansion of a rule (Lark's `Rule`: a rule with alternatives is several)."""

    origin: str
    """The rule's name (Lark's: a `%import`ed rule carries its namespace)."""
    expansion: tuple[Symbol, ...]
    expand1: bool
    """A `?rule`: inlined into its parent when it has one child."""
    alias: str | None = None
    """The alternative's `-> alias`, if it has one (`-> lenient_*` marks an accept-only
    alternative: docs/grammars.md)."""


class LalrTable(NamedTuple):
    """Lark's LALR table (`ParseTable`), with actions as numbers."""

    states: tuple[dict[str, tuple[int, int]], ...]
    """state -> {symbol: (0, next state) | (1, rule index)}: 0 shifts (a rule symbol's
    entry is its goto), 1 reduces by the rule at that index of `GrammarRecord.rules`
    (`table.SHIFT` and `table.REDUCE`)."""
    start_states: dict[str, int]
    end_states: dict[str, int]


class GrammarRecord(NamedTuple):
    """Everything the loader reads off a compiled grammar."""

    terminals: tuple[TerminalRecord, ...]
    """In Lark's order."""
    ignore: tuple[str, ...]
    """The `%ignore` terminal names."""
    rules: tuple[RuleRecord, ...]
    table: LalrTable

    def to_data(self) -> list[Any]:
        """The record as plain lists, dicts, strings and numbers (for `marshal`)."""
        return [
            FORMAT,
            [[t.name, t.regexp, list(t.flags), t.priority, t.max_width, t.literal]
             for t in self.terminals],
            list(self.ignore),
            [[r.origin, r.expand1, [[s.name, s.is_term] for s in r.expansion], r.alias]
             for r in self.rules],
            [[{symbol: list(action) for symbol, action in row.items()}
              for row in self.table.states],
             dict(self.table.start_states), dict(self.table.end_states)],
        ]

    @classmethod
    def from_data(cls, data: Any) -> GrammarRecord:
        """The record `to_data` wrote; ValueError or TypeError for anything else."""
        version, terminals, ignore, rules, (states, starts, ends) = data
        if version != FORMAT:
            raise ValueError(f"grammar data of layout {version!r}, not {FORMAT}")
        record = cls(
            terminals=tuple(_terminal(*entry) for entry in terminals),
            ignore=tuple(_str(name) for name in ignore),
            rules=tuple(_rule(*entry) for entry in rules),
            table=LalrTable(tuple(_row(row) for row in states), _numbers(starts),
                            _numbers(ends)),
        )
        _check_targets(record)
        return record


def _terminal(name: Any, regexp: Any, flags: Any, priority: Any, max_width: Any,
              literal: Any) -> TerminalRecord:
    return TerminalRecord(_str(name), _str(regexp), tuple(_str(f) for f in flags),
                          _int(priority), _int(max_width),
                          None if literal is None else _str(literal))


def _rule(origin: Any, expand1: Any, symbols: Any, alias: Any) -> RuleRecord:
    return RuleRecord(_str(origin), tuple(Symbol(_str(name), _bool(is_term))
                                          for name, is_term in symbols), _bool(expand1),
                      None if alias is None else _str(alias))


def _row(row: Any) -> dict[str, tuple[int, int]]:
    if not isinstance(row, dict):
        raise TypeError("a table row is not a dict")
    out: dict[str, tuple[int, int]] = {}
    for symbol, (kind, argument) in row.items():
        out[_str(symbol)] = (_int(kind), _int(argument))
    return out


def _numbers(names: Any) -> dict[str, int]:
    if not isinstance(names, dict):
        raise TypeError("start or end states are not a dict")
    return {_str(name): _int(state) for name, state in names.items()}


def _check_targets(record: GrammarRecord) -> None:
    """Every state and rule the table names exists, and every action is 0 or 1."""
    states, rules = len(record.table.states), len(record.rules)
    for row in record.table.states:
        for kind, argument in row.values():
            if kind not in (0, 1) or not 0 <= argument < (states if kind == 0 else rules):
                raise ValueError(f"table action {(kind, argument)} names nothing")
    for state in (*record.table.start_states.values(), *record.table.end_states.values()):
        if not 0 <= state < states:
            raise ValueError(f"start or end state {state} is not in the table")


def _str(value: Any) -> str:
    if not isinstance(value, str):
        raise TypeError(f"expected a string, not {type(value).__name__}")
    return value


def _int(value: Any) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise TypeError(f"expected an integer, not {type(value).__name__}")
    return value


def _bool(value: Any) -> bool:
    if not isinstance(value, bool):
        raise TypeError(f"expected a boolean, not {type(value).__name__}")
    return value
