"""Where a block can start: the opener terminals as one search pattern.

The engine looks for block starts at C speed, with one compiled pattern over every
terminal that can open a block; a lookahead on the first two characters (read from the
patterns' syntax) makes a `<` that no opener can continue fail at once.
"""

from __future__ import annotations

import re

from toolparse._dialect.lexer import TerminalSpec
from toolparse._syntax.regexp import second_chars

__all__ = ["plain_pattern", "starts_pattern", "with_lookahead"]

_NAMED_GROUP = re.compile(r"\(\?P<[A-Za-z_][A-Za-z0-9_]*>")


def plain_pattern(spec: TerminalSpec) -> str:
    """The terminal's pattern with its named groups made plain, so that several can
    share one alternation."""
    return _NAMED_GROUP.sub("(", spec.full.pattern)


def _second_chars(openers: tuple[TerminalSpec, ...]) -> dict[str, set[str]] | None:
    """First character -> the characters that can follow it, over all openers; None
    when some opener's second character is not known."""
    table: dict[str, set[str]] = {}
    for spec in openers:
        found = second_chars(plain_pattern(spec))
        if found is None:
            return None
        table.setdefault(found[0], set()).update(found[1])
    return table


def _char_class(chars: set[str]) -> str:
    return "[" + "".join(re.escape(c) for c in sorted(chars)) + "]"


def with_lookahead(openers: tuple[TerminalSpec, ...]) -> str:
    alternation = "|".join(f"(?:{plain_pattern(spec)})" for spec in openers)
    table = _second_chars(openers)
    if not table:
        return alternation
    heads = "|".join(re.escape(first) + _char_class(rest) for first, rest in table.items())
    return f"(?=(?:{heads}))(?:{alternation})"


def starts_pattern(openers: tuple[TerminalSpec, ...], firsts: set[str]) -> str:
    table = _second_chars(openers)
    if not table:
        return _char_class(firsts)
    return "|".join(re.escape(first) + "(?:" + _char_class(rest) + r"|\Z)"
                    for first, rest in table.items())
