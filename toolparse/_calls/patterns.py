"""Schema patterns (`pattern`, `patternProperties`), matched in linear time (SPEC G10).

A tool schema is operator input and a value is model output: a backtracking engine
would let `^(a+)+$` spend seconds per character of a value. Patterns are matched by
RE2 (`google-re2`), whose matching time is linear in the length of the text whatever
the pattern, with no clock involved, so the same value always gets the same answer.

JSON Schema patterns are ECMA-262 regular expressions. RE2 reads nearly the same
syntax; the few ECMA (and Python) spellings it lacks are rewritten first (`\\uXXXX`,
`\\u{X}`, `\\cX`, Python's `\\Z`). What RE2 cannot run in linear time it refuses to
compile: backreferences, lookaround, atomic groups, possessive repeats, repeat counts
over 1000. `compile_pattern` reports that as `PatternError`, and the schema check turns
it into a `SchemaError` when the tools are given (fail closed, and early).

`pattern_search` answers True or False, or None when it cannot decide: a text that
is not valid Unicode (a lone surrogate, from a JSON `"\\ud800"`). Callers treat None
as a failed check.
"""

from __future__ import annotations

import functools
from typing import Any

__all__ = ["PatternError", "compile_pattern", "pattern_search", "to_re2_syntax"]

_CACHE_SIZE = 1024
_HEX = frozenset("0123456789abcdefABCDEF")


class PatternError(ValueError):
    """A pattern RE2 cannot compile; the message says why (RE2's own words)."""


def _code_escape(code: int) -> str:
    return "\\x{%x}" % code


def _unicode_escape(pattern: str, start: int) -> tuple[int, int] | None:
    """The code point of a `\\uXXXX` or `\\u{X...}` escape whose backslash is at
    `start`, and the index just past it; None when it is not one."""
    if pattern.startswith("{", start + 2):
        end = pattern.find("}", start + 3)
        digits = pattern[start + 3:end] if end > 0 else ""
        if digits and len(digits) <= 6 and set(digits) <= _HEX:
            return int(digits, 16), end + 1
        return None
    digits = pattern[start + 2:start + 6]
    if len(digits) == 4 and set(digits) <= _HEX:
        return int(digits, 16), start + 6
    return None


def to_re2_syntax(pattern: str) -> str:
    """`pattern` with the ECMA-262 and Python escapes RE2 lacks rewritten; linear."""
    if "\\" not in pattern:
        return pattern
    out: list[str] = []
    pos, end = 0, len(pattern)
    while pos < end:
        char = pattern[pos]
        if char != "\\" or pos + 1 == end:
            out.append(char)
            pos += 1
            continue
        escaped = pattern[pos + 1]
        if escaped == "u":
            decoded = _unicode_escape(pattern, pos)
            if decoded is not None:
                code, pos = decoded
                if 0xD800 <= code < 0xDC00 and pattern.startswith("\\u", pos):
                    low = _unicode_escape(pattern, pos)
                    if low is not None and 0xDC00 <= low[0] < 0xE000:
                        code = 0x10000 + ((code - 0xD800) << 10) + (low[0] - 0xDC00)
                        pos = low[1]
                out.append(_code_escape(code))
                continue
        elif escaped == "c" and pos + 2 < end and pattern[pos + 2].isascii() \
                and pattern[pos + 2].isalpha():
            out.append(_code_escape(ord(pattern[pos + 2]) % 32))
            pos += 3
            continue
        elif escaped == "Z":
            out.append("\\z")   # Python's end of text; RE2 spells it \z
            pos += 2
            continue
        out.append(pattern[pos:pos + 2])
        pos += 2
    return "".join(out)


@functools.lru_cache(maxsize=_CACHE_SIZE)
def _compiled(pattern: str) -> tuple[Any, str | None]:
    """(compiled pattern, None) or (None, why RE2 refused it); cached."""
    import re2

    options = re2.Options()
    options.log_errors = False   # RE2 would otherwise write each refusal to stderr
    try:
        return re2.compile(to_re2_syntax(pattern), options), None
    except re2.error as error:
        reason = error.args[0] if error.args else "cannot compile"
        if isinstance(reason, bytes):
            reason = reason.decode("utf-8", "replace")
        return None, str(reason)
    except UnicodeEncodeError:
        return None, "the pattern holds a lone surrogate"


def compile_pattern(pattern: str) -> Any:
    """The RE2 program for `pattern`; raises `PatternError` saying why it cannot be."""
    program, reason = _compiled(pattern)
    if program is None:
        raise PatternError(reason or "cannot compile")
    return program


def pattern_search(pattern: str, text: str) -> bool | None:
    """Whether `pattern` matches somewhere in `text` (JSON Schema's unanchored test);
    None when that cannot be decided (the pattern does not compile, or the text is not
    valid Unicode). Linear in `len(text)`."""
    program, _ = _compiled(pattern)
    if program is None:
        return None
    try:
        encoded = text.encode("utf-8")
    except UnicodeEncodeError:
        return None
    return program.search(encoded) is not None
