"""Where a block can start: the opener terminals as one search pattern.

The engine looks for block starts at C speed, with one compiled pattern over every
terminal that can open a block; a lookahead on the first two characters (read from the
patterns' syntax) makes a `<` that no opener can continue fail at once.
"""

from __future__ import annotations

import re

from toolparse._dialect.lexer import TerminalSpec
from toolparse._syntax.regexp import second_chars

__all__ = ["literal_first_char", "starts_pattern", "with_lookahead"]


def _second_chars(openers: tuple[TerminalSpec, ...]) -> dict[str, set[str]] | None:
    """First character -> the characters that can follow it, over all openers; None
    when some opener's second character is not known."""
    table: dict[str, set[str]] = {}
    for spec in openers:
        found = second_chars(spec.full.pattern)
        if found is None:
            return None
        table.setdefault(found[0], set()).update(found[1])
    return table


def _char_class(chars: set[str]) -> str:
    return "[" + "".join(re.escape(c) for c in sorted(chars)) + "]"


def with_lookahead(openers: tuple[TerminalSpec, ...]) -> str:
    alternation = "|".join(f"(?:{spec.full.pattern})" for spec in openers)
    table = _second_chars(openers)
    if not table:
        return alternation
    heads = "|".join(re.escape(first) + _char_class(rest) for first, rest in table.items())
    return f"(?=(?:{heads}))(?:{alternation})"


def starts_pattern(openers: tuple[TerminalSpec, ...], firsts: list[str]) -> str:
    table = _second_chars(openers)
    if not table:
        return _char_class(set(firsts))
    return "|".join(re.escape(first) + "(?:" + _char_class(rest) + r"|\Z)"
                    for first, rest in table.items())


def literal_first_char(pattern: str) -> str | None:
    """The first character every match of `pattern` starts with, when it is a literal."""
    while pattern.startswith("(?:"):
        pattern = pattern[3:]
    if not pattern:
        return None
    if pattern[0] == "\\" and len(pattern) > 1 and not pattern[1].isalnum():
        return pattern[1]
    if pattern[0] in "\\[](){}|.*+?^$":
        return None
    if len(pattern) > 1 and pattern[1] in "*?{|":
        return None
    return pattern[0]


