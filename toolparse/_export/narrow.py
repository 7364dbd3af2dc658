"""Patterns narrowed by probing what reads them (SPEC 12): the alternatives of a
pattern that the target can write, less the characters a value syntax refuses there.

The Python-literal writer (`literals.py`) writes a string's pieces as python.lark's
terminals say, less what the `pythonic` value syntax cannot decode: each alternative
of a piece is probed at its extreme (each class taking the largest character it
admits: a code point escape at its largest), and each character of a class at the
top of it in turn.
"""

from __future__ import annotations

import re
import re._constants as _c  # type: ignore[import-not-found]
import re._parser as _sre  # type: ignore[import-not-found]
from collections.abc import Callable, Iterable
from typing import Any

from toolparse._export.regex import SUB, Unsupported, _Writer

__all__ = ["alternatives", "narrowed"]


def alternatives(pattern: str, flags: Iterable[str] = ()) -> list[str]:
    """`pattern`'s alternatives (Python syntax): the branches of its first alternation
    (at the top, or in a group at the top), each with the rest of the pattern around
    it; those holding what the target cannot write (a lookaround) are left out."""
    letters = "".join(sorted(set(flags)))
    parsed = _sre.parse(f"(?{letters}){pattern}" if letters else pattern)
    items, flag = list(parsed), parsed.state.flags
    found: list[Any] = [items]
    for index, (op, arg) in enumerate(items):
        inner = arg[-1] if op is _c.SUBPATTERN and arg[0] is None else [(op, arg)]
        if len(inner) == 1 and inner[0][0] is _c.BRANCH:
            found = [items[:index] + list(b) + items[index + 1:] for b in inner[0][1][1]]
            break
    out = []
    for sequence in found:
        try:
            written = _Writer(SUB, "python", {}, {}).sequence(sequence, flag)
        except Unsupported:
            continue
        if written is not None:
            out.append(written)
    return out


def narrowed(pattern: str, reads: Callable[[str], bool], chars: tuple[str, ...]
             ) -> str | None:
    """`pattern` (Python syntax) less what `reads` refuses, probed: None when a match
    with each class taking the first of `chars` it admits (each loop its fewest turns,
    at least one: a code point escape at its largest) is refused; else the pattern
    with each character of `chars` that a class at its top may take and `reads`
    refuses there (a digit no octal escape takes, say) left out of that class: None when the class
    is not a negated one (to which those characters are added)."""
    parsed = _sre.parse(pattern)
    items, flags = list(parsed), parsed.state.flags
    if not reads(_extreme(items, flags, chars)):
        return None
    for i, (op, arg) in enumerate(items):
        if op not in (_c.IN, _c.NOT_LITERAL):
            continue
        klass = _Writer(SUB, "python", {}, {}).item(op, arg, flags) or ""
        before, after = _extreme(items[:i], flags, chars), _extreme(items[i + 1:], flags, chars)
        bad = [c for c in chars if re.fullmatch(klass, c, re.DOTALL) and not reads(before + c + after)]
        if not bad:
            continue
        negated = [(_c.NEGATE, None), (_c.LITERAL, arg)] if op is _c.NOT_LITERAL else \
            list(arg) if arg and arg[0][0] is _c.NEGATE else None
        if negated is None:
            return None
        items[i] = (_c.IN, negated + [(_c.LITERAL, ord(c)) for c in bad])
    return _Writer(SUB, "python", {}, {}).sequence(items, flags)


def _extreme(items: Any, flags: int, chars: tuple[str, ...]) -> str:
    out = []
    for op, arg in items:
        if op is _c.LITERAL:
            out.append(chr(arg))
        elif op in (_c.IN, _c.NOT_LITERAL, _c.ANY):
            klass = _Writer(SUB, "python", {}, {}).item(op, arg, flags) or ""
            out.append(next((c for c in chars if re.fullmatch(klass, c, re.DOTALL)), ""))
        elif op is _c.BRANCH:
            out.append(_extreme(arg[1][0], flags, chars))
        elif op is _c.SUBPATTERN:
            out.append(_extreme(arg[-1], flags, chars))
        elif op in (_c.MAX_REPEAT, _c.MIN_REPEAT):
            low, high, inner = arg
            out.append(_extreme(inner, flags, chars) * (low or min(high, 1)))
    return "".join(out)
