"""What a grammar's regular expressions can start with, read from their syntax.

The dialect loader and the Markdown tracker both need to know, without running a
pattern, which characters can begin a match of it (to dispatch on one character, or to
search for the only characters that matter). The standard library's own regex parser
answers that; any surprise in its output just means "unknown".

`partial_pattern` compiles a pattern once in the `regex` module, the one engine that can
say whether the end of a text could still become a match (`partial=True`); `Partial` is
such a pattern compiled on its first match. `regex` itself is imported only then: the
import alone costs a start-up 10-15 ms, and most runs need no partial match until a
chunk ends inside a tag or a line's first characters.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, Final

if TYPE_CHECKING:
    import regex

try:  # the standard library's parser of regex syntax (private; absent: no filtering)
    import re._parser as _sre_parse  # type: ignore[import-not-found]
except ImportError:  # pragma: no cover
    _sre_parse = None

__all__ = ["Partial", "first_chars", "leading_literal", "literal_text", "lookahead_chars",
           "lookahead_consumed", "partial_pattern",
           "reach", "refusal_reach", "second_chars", "widths", "without_captures"]


@functools.cache
def partial_pattern(source: str) -> regex.Pattern[str]:
    """`source` compiled by the `regex` module (for `partial=True`), once per process."""
    import regex  # noqa: PLC0415  (see the module's docstring)

    return regex.compile(source)


class Partial:
    """`partial_pattern(pattern)`, compiled on the first `match`."""

    __slots__ = ("pattern", "_compiled")

    def __init__(self, pattern: str) -> None:
        self.pattern = pattern
        self._compiled: regex.Pattern[str] | None = None

    def match(self, string: str, pos: int = 0, endpos: int | None = None, *,
              partial: bool = False) -> regex.Match[str] | None:
        compiled = self._compiled
        if compiled is None:
            compiled = self._compiled = partial_pattern(self.pattern)
        return compiled.match(string, pos, endpos, partial=partial)


def first_chars(pattern: str) -> frozenset[str] | None:
    """The set of characters a match of `pattern` can start with, or None when it is
    large or unknown (then the terminal is tried at every position). Read from the
    standard library's regex parser; any surprise there just means "unknown"."""
    try:
        found, _nullable = _first_of_sequence(_sre_parse.parse(pattern), ignore_case=False)
    except Exception:
        return None
    return frozenset(found) if found is not None else None


def second_chars(pattern: str) -> tuple[str, frozenset[str]] | None:
    """For a pattern that starts with one literal character: that character and the
    set of characters that can follow it in a match; None when unknown or unbounded.
    (A `<` followed by something no tag can continue with is decided at C speed.)"""
    try:
        items = list(_sre_parse.parse(pattern))
        while len(items) == 1 and str(items[0][0]) == "SUBPATTERN" and not items[0][1][1]:
            items = list(items[0][1][3])
        if not items or str(items[0][0]) != "LITERAL":
            return None
        found, nullable = _first_of_sequence(items[1:], ignore_case=False)
    except Exception:
        return None
    if found is None or nullable:
        return None
    return chr(items[0][1]), frozenset(found)


@functools.cache
def literal_text(pattern: str) -> str | None:
    """The one string `pattern` matches, when it is a plain literal (no repeat,
    alternative, flag or assertion, and no class but of one character: `<tool_call>`,
    `<\\|python_tag\\|>`); else None."""
    try:
        tree = _sre_parse.parse(pattern)
    except Exception:
        return None
    if tree.state.flags & ~re.UNICODE:   # (a str pattern's own flag; any other changes it)
        return None
    chars = []
    for op, arg in tree:
        if str(op) != "LITERAL":
            return None
        chars.append(chr(arg))
    return "".join(chars) or None


def reach(pattern: str) -> int | None:
    """How many characters past its start a match attempt of `pattern` can look at,
    lookaheads included (and one more, for an anchor such as `$` or `\\b` that looks
    at the next character); None when unbounded or unknown. Text that goes on further
    than that decides the match as the whole text would: no partial match is possible.
    (A lookahead made a plain group reads the same characters; a lookbehind reads none
    ahead.)"""
    try:
        lookahead_read = pattern.replace("(?=", "(?:").replace("(?!", "(?:")
        widest = _sre_parse.parse(lookahead_read).getwidth()[1]
    except Exception:
        return None
    return None if widest >= _sre_parse.MAXREPEAT else int(widest) + 1


def refusal_reach(pattern: str) -> int | None:
    """How many characters a negative lookahead of `pattern` can read (0: it has none);
    None when unbounded or unknown. A match whose text goes on fewer characters than
    that past its end may still be refused by the text that comes next (`<(?!\\|end)`
    on `<|en`); a positive lookahead that has matched stays matched."""
    try:
        tree = _sre_parse.parse(pattern)
    except Exception:
        return None
    widest = _refusals(tree)
    return None if widest >= _sre_parse.MAXREPEAT else int(widest)


def _refusals(node: Any) -> int:
    """The widest negative lookahead in a parsed pattern (its tree, walked)."""
    widest = 0
    for item in node.data if hasattr(node, "data") else node:
        if not isinstance(item, tuple) or len(item) != 2:
            continue
        op, av = item
        if op is _sre_parse.ASSERT_NOT and av[0] == 1:
            widest = max(widest, av[1].getwidth()[1])
        for part in (av if isinstance(av, (tuple, list)) else ()):
            if hasattr(part, "data"):
                widest = max(widest, _refusals(part))
            elif isinstance(part, list):
                widest = max(widest, *(_refusals(p) for p in part if hasattr(p, "data")), 0)
    return widest


def leading_literal(patterns: list[str]) -> tuple[str, list[str]] | None:
    """When every pattern begins with the same literal character, not repeated (`<`
    in `<tool_call>` and `</tool_call>`): that character, and the patterns without it;
    else None.

    A search for `c(?:rest|...)` runs at C speed between the `c`s, where the same
    alternation with each branch in its own group is tried at every position (the
    standard library's engine finds a fast prefix only in a pattern's first literal):
    on long texts, 0.4 against 15-25 ns a character."""
    found: set[str] = set()
    rests = []
    for pattern in patterns:
        m = _LEADING.match(pattern)
        if m is None or _has_top_level_bar(pattern):
            return None
        found.add(m.group(2) or m.group(1))
        rests.append(pattern[m.end():])
    if len(found) != 1:
        return None
    return found.pop(), rests


def _has_top_level_bar(pattern: str) -> bool:
    """Whether `pattern` is an alternation at its top level (`<a|<b`: its first
    character is not every branch's)."""
    return len(_top_level_branches(pattern)) > 1


def literal_first(pattern: str) -> list[str] | None:
    """`pattern` as alternatives that each begin with a literal character, matching what
    it matches in the same order of preference: itself, or, when it begins with a group
    (`(?:<a|<b)rest`, `(?:<x)?<y`), that group's branches each followed by the rest (and
    the rest alone after an optional group). None when that does not give one."""
    if leading_literal([pattern]) is not None:
        return [pattern]
    if not pattern.startswith("(?:"):
        return None
    depth, close = 0, -1
    for i, char in _syntax_chars(pattern):
        depth += char == "("
        depth -= char == ")"
        if depth == 0:
            close = i
            break
    inner, rest = pattern[3:close], pattern[close + 1:]
    optional = rest.startswith("?") and not rest.startswith("??")
    if rest[:1] in ("*", "+", "{") or (optional and rest[1:2] in ("+", "?")):
        return None
    rest = rest[1:] if optional else rest
    out = [branch + rest for branch in _top_level_branches(inner)] + ([rest] if optional else [])
    return out if all(leading_literal([branch]) is not None for branch in out) else None


def _top_level_branches(pattern: str) -> list[str]:
    """`pattern` split at its top-level `|`."""
    depth, start, out = 0, 0, []
    for i, char in _syntax_chars(pattern):
        if char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
        elif char == "|" and depth == 0:
            out.append(pattern[start:i])
            start = i + 1
    return [*out, pattern[start:]]


def lookahead_consumed(pattern: str) -> str:
    """`pattern` with a positive lookahead that ends it read as characters (`call:f(?=\\{)`
    -> `call:f(?:\\{)`): its prefixes are exactly the texts that can still become a
    match (what an arriving tag is stepped against), and an automaton can hold it. A
    match of it is one of `pattern` and the characters looked at. `pattern` unchanged
    when it ends in no such group (or is an alternation at its top level)."""
    start = _trailing_lookahead(pattern)
    if start < 0:
        return pattern
    return pattern[:start] + "(?:" + pattern[start + 3:]


def lookahead_chars(pattern: str) -> frozenset[str] | None:
    """The characters the text after a match of `pattern` can begin with, when it ends
    in a positive lookahead (`<function_call>(?=\\{)` -> `{`); None when it ends in none,
    or the lookahead admits any character (it can match nothing, or its first
    characters are unknown)."""
    start = _trailing_lookahead(pattern)
    if start < 0:
        return None
    try:
        found, nullable = _first_of_sequence(_sre_parse.parse(pattern[start + 3:-1]),
                                             ignore_case=False)
    except Exception:
        return None
    return frozenset(found) if found is not None and not nullable else None


def _trailing_lookahead(pattern: str) -> int:
    """Where the positive lookahead group that ends `pattern` begins; -1 when it ends in
    none (or is an alternation at its top level)."""
    if not pattern.endswith(")") or _has_top_level_bar(pattern):
        return -1
    depth, start = 0, -1
    for i, char in _syntax_chars(pattern):
        if char == "(":
            if depth == 0:
                start = i
            depth += 1
        elif char == ")":
            depth -= 1
    if start < 0 or not pattern.startswith("(?=", start):
        return -1
    return start


def without_captures(pattern: str) -> str:
    """`pattern` with each capturing group made non-capturing (`(x)` -> `(?:x)`), which
    matches the same texts: where a group sits in a repeat (a tag's attributes), the
    engine then saves no marks to backtrack, about 15 % of a tag's match. `pattern`
    unchanged when it refers to a group (a back-reference or a conditional), which
    the change would break, or when it names one (`(?P<...>`)."""
    if re.search(r"\\[1-9]|\(\?P[<=]|\(\?\(", pattern):
        return pattern   # (may also hit an escaped backslash before a digit: harmless)
    opens = [i for i, char in _syntax_chars(pattern)
             if char == "(" and not pattern.startswith("?", i + 1)]
    for i in reversed(opens):
        pattern = pattern[:i + 1] + "?:" + pattern[i + 1:]
    return pattern


def _syntax_chars(pattern: str) -> Iterator[tuple[int, str]]:
    """The positions and characters of `pattern` that are syntax: not escaped, not in
    a character class."""
    i, in_class = 0, False
    while i < len(pattern):
        char = pattern[i]
        if char == "\\":
            i += 2
            continue
        if in_class:
            in_class = char != "]"
        elif char == "[":
            in_class = True
            if pattern[i + 1:i + 2] == "^":
                i += 1
            if pattern[i + 1:i + 2] == "]":
                i += 1   # a `]` first in a class is a character
        else:
            yield i, char
        i += 1


# A literal first character (or an escaped punctuation one) not followed by a repeat.
_LEADING = re.compile(r"(?:([^\\.^$*+?{}\[\]|()])|\\([^\w\s]))(?![*+?{])")


def widths(pattern: str) -> tuple[int, int | None] | None:
    """The fewest and most characters a match of `pattern` can take (None for no
    bound), or None when unknown."""
    try:
        low, high = _sre_parse.parse(pattern).getwidth()
    except Exception:
        return None
    return int(low), None if high >= _sre_parse.MAXREPEAT else int(high)


_SMALL_RANGE = 64

WHITESPACE: Final = frozenset(
    "\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005"
    "\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000")
"""What `\\s` matches in a `str` pattern (tests/test_grammar.py reads every code point
to check it): so that whitespace and a tag that cannot begin with it are known apart."""


def _first_of_sequence(items: Any, ignore_case: bool) -> tuple[set[str] | None, bool]:
    found: set[str] = set()
    for op, arg in items:
        first, nullable = _first_of_item(str(op), arg, ignore_case)
        if first is None:
            return None, False
        found |= first
        if not nullable:
            return found, False
    return found, True


def _cases(code: int, ignore_case: bool) -> set[str]:
    char = chr(code)
    return {char, char.lower(), char.upper()} if ignore_case else {char}


def _first_of_item(op: str, arg: Any, ignore_case: bool) -> tuple[set[str] | None, bool]:
    if op == "LITERAL":
        return _cases(arg, ignore_case), False
    if op == "IN":
        found: set[str] = set()
        for item_op, item_arg in arg:
            kind = str(item_op)
            if kind == "LITERAL":
                found |= _cases(item_arg, ignore_case)
            elif kind == "RANGE" and item_arg[1] - item_arg[0] < _SMALL_RANGE:
                for code in range(item_arg[0], item_arg[1] + 1):
                    found |= _cases(code, ignore_case)
            elif kind == "CATEGORY" and str(item_arg) == "CATEGORY_SPACE":
                found |= WHITESPACE   # (`\s`: a few dozen characters, all known)
            else:
                return None, False
        return found, False
    if op == "SUBPATTERN":
        _group, add_flags, _del_flags, items = arg
        return _first_of_sequence(items, ignore_case or bool(add_flags & re.IGNORECASE))
    if op == "ATOMIC_GROUP":
        return _first_of_sequence(arg, ignore_case)
    if op == "BRANCH":
        found, nullable = set(), False
        for branch in arg[1]:
            first, branch_nullable = _first_of_sequence(branch, ignore_case)
            if first is None:
                return None, False
            found |= first
            nullable = nullable or branch_nullable
        return found, nullable
    if op in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT"):
        low, _high, items = arg
        first, nullable = _first_of_sequence(items, ignore_case)
        return first, nullable or low == 0
    if op in ("AT", "ASSERT", "ASSERT_NOT"):
        return set(), True  # zero-width: no narrowing, look further
    return None, False
