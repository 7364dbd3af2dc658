"""A grammar's regular expressions, rewritten for an export target (SPEC 12).

A grammar file's terminals are Python regular expressions; a constrained-decoding
engine reads another flavour (llguidance: Rust's `regex` crate, with no lookaround).
This module reads a pattern with the standard library's own parser and writes it again,
one node at a time, in either of two directions:

- `SUB`: the pattern of a tag the model is made to write. The result may match less
  than the original (a class `\\s` becomes the six ASCII spaces, a case-insensitive
  class keeps its own case) but never more: whatever it lets through, the grammar file
  reads the same way. What it cannot write without matching more (a lookaround, an
  anchor, a back-reference, `\\w` outside a class) is an `Unsupported` construct.
- `SUPER`: the pattern of something a value must not contain (a closing tag the parser
  would see there). The result may match more than the original, never less:
  assertions are dropped, an unknown class becomes any character.

A capture group can be fixed to a literal (`fill`): the call's name in
`<function=(?P<name>[^>]+)>`, an attribute's key and value. A branch whose group cannot
hold the literal is left out; a pattern with no branch left is `None`.

`avoiding(words)` writes an anchored pattern for the texts that contain none of a set of
literal words (the automaton of the words, turned into an expression by eliminating
its states): the pattern a JSON string gets so that no closing tag is written inside it.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Mapping
from typing import Any

import re._parser as _sre  # type: ignore[import-not-found]
import re._constants as _c  # type: ignore[import-not-found]

__all__ = ["SUB", "SUPER", "Unsupported", "avoiding", "char", "fits", "literal_head",
           "longest", "lookahead_tail", "negative_tail", "probes", "rewrite", "unpadded"]

SUB = "sub"
"""Write a pattern that matches at most what the original matches."""
SUPER = "super"
"""Write a pattern that matches at least what the original matches."""

_ASCII_SPACE = " \t\n\r\x0b\x0c"
_MAXREPEAT = _c.MAXREPEAT


class Unsupported(Exception):
    """A construct the target cannot express in the direction asked; the message names it."""


@functools.cache
def _python_space() -> str:
    """Every character Python's `\\s` matches in a str pattern."""
    return "".join(chr(code) for code in range(0x110000) if re.match(r"\s", chr(code)))


def char(c: str, style: str = "rust") -> str:
    """One character, escaped for a pattern of `style` (`rust`, `python` or `ecma`)."""
    if c.isascii() and (c.isalnum() or c == "_"):
        return c
    code = ord(c)
    if style == "rust":
        return f"\\x{{{code:X}}}"
    if style == "python":
        return f"\\U{code:08X}"
    if code > 0xFFFF:  # ECMA: a surrogate pair
        code -= 0x10000
        return f"\\u{0xD800 + (code >> 10):04X}\\u{0xDC00 + (code & 0x3FF):04X}"
    return f"\\u{code:04X}"


_NATIVE = {_c.CATEGORY_SPACE: "\\s", _c.CATEGORY_NOT_SPACE: "\\S",
           _c.CATEGORY_DIGIT: "\\d", _c.CATEGORY_NOT_DIGIT: "\\D",
           _c.CATEGORY_WORD: "\\w", _c.CATEGORY_NOT_WORD: "\\W"}
"""A class category as Python's own syntax writes it (exact: the `python` style)."""


class _Writer:
    """One rewrite: the direction, the style, and the groups fixed to literals."""

    def __init__(self, direction: str, style: str, fill: Mapping[str | int, str],
                 names: Mapping[str, int], banned: frozenset[str] = frozenset()) -> None:
        self.direction = direction
        self.style = style
        self.fill = fill
        self.numbers = {number: name for name, number in names.items()}
        self.banned = banned
        self.bound: int | None = None
        self.drop = False
        self.names = False
        """Python style: named groups that `fill` does not fix are kept named."""

    def is_banned(self, items: Any, flags: int) -> bool:
        """Whether a parsed sequence is one of the `banned` alternatives (accept-only)."""
        return bool(self.banned) and _key(items, flags) in self.banned

    def unsupported(self, what: str) -> str | None:
        if self.direction == SUPER:
            return self.anything()
        raise Unsupported(what)

    def anything(self) -> str:
        return "(?s:.)" if self.style != "ecma" else "[\\s\\S]"

    def sequence(self, items: Any, flags: int) -> str | None:
        out = []
        for op, arg in items:
            piece = self.item(op, arg, flags)
            if piece is None:
                return None
            out.append(piece)
        return "".join(out)

    def item(self, op: Any, arg: Any, flags: int) -> str | None:
        if op is _c.LITERAL:
            return self.literal(chr(arg), flags)
        if op is _c.NOT_LITERAL:
            return self.klass([(_c.NEGATE, None), (_c.LITERAL, arg)], flags)
        if op is _c.ANY:
            return self.anything() if flags & _c.SRE_FLAG_DOTALL else \
                "[^" + char("\n", self.style) + "]"
        if op is _c.IN:
            return self.klass(arg, flags)
        if op is _c.BRANCH:
            if self.is_banned([(op, arg)], flags):
                return None
            branches = [b for b in (self.branch(s, flags) for s in arg[1]
                                    if not self.is_banned(s, flags)) if b is not None]
            return "(?:" + "|".join(branches) + ")" if branches else None
        if op is _c.SUBPATTERN:
            return self.group(arg, flags)
        if op in (_c.MAX_REPEAT, _c.MIN_REPEAT, getattr(_c, "POSSESSIVE_REPEAT", None)):
            return self.repeat(op, arg, flags)
        if op is getattr(_c, "ATOMIC_GROUP", None):
            return self.unsupported("an atomic group") if self.direction == SUB else \
                self.sequence(arg, flags)
        if op in (_c.ASSERT, _c.ASSERT_NOT):
            return "" if self.direction == SUPER else self.unsupported("a lookaround")
        if op is _c.AT:
            return "" if self.direction == SUPER else self.unsupported("an anchor")
        return self.unsupported(f"the regex construct {op}")

    def branch(self, items: Any, flags: int) -> str | None:
        """One alternative; with `drop`, None for one the target cannot write (SUB: the
        others still match less than the pattern)."""
        if not self.drop:
            return self.sequence(items, flags)
        try:
            return self.sequence(items, flags)
        except Unsupported:
            return None

    def fills(self, items: Any) -> bool:
        """Whether a parsed sequence holds a group fixed by `fill`."""
        for op, arg in items:
            if op is _c.SUBPATTERN and arg[0] is not None and (
                    arg[0] in self.fill or self.numbers.get(arg[0]) in self.fill):
                return True
            nested = arg[-1] if op in (_c.SUBPATTERN, _c.MAX_REPEAT, _c.MIN_REPEAT) else \
                [x for branch in arg[1] for x in branch] if op is _c.BRANCH else []
            if nested and self.fills(nested):
                return True
        return False

    def literal(self, c: str, flags: int) -> str:
        if flags & _c.SRE_FLAG_IGNORECASE and c.lower() != c.upper():
            return "[" + "".join(char(x, self.style) for x in sorted({c.lower(), c.upper()})) + "]"
        return char(c, self.style)

    def group(self, arg: Any, flags: int) -> str | None:
        number, add, remove, items = arg
        flags = (flags | add) & ~remove
        if self.is_banned(items, flags):
            return None
        key: str | int | None = None
        if number is not None:
            name = self.numbers.get(number)
            key = name if name is not None and name in self.fill else number
        if key is not None and key in self.fill:
            text = self.fill[key]
            inner = _Writer(SUB, "python", {}, {}).sequence(items, flags)
            if inner is None or re.fullmatch(inner, text, re.S) is None:
                return None
            return "".join(char(c, self.style) for c in text)
        inner = self.sequence(items, flags)
        if inner is not None and self.names and isinstance(key, int) \
                and self.numbers.get(key) is not None:
            return f"(?P<{self.numbers[key]}>{inner})"
        return None if inner is None else "(?:" + inner + ")"

    def repeat(self, op: Any, arg: Any, flags: int) -> str | None:
        low, high, items = arg
        if op is not _c.MAX_REPEAT and op is not _c.MIN_REPEAT and self.direction == SUB:
            return self.unsupported("a possessive repeat")
        inner = self.sequence(items, flags)
        if inner is None:
            return "" if low == 0 else None
        if self.fill and self.direction == SUB and self.fills(items):
            # A repeat around a fixed group (a tag's attributes, one of them fixed to the
            # call's name) is written once: the one attribute, fixed.
            return None if low > 1 or high < 1 else "(?:" + inner + ")"
        if high == _MAXREPEAT and self.bound is not None:
            bound = f"{{{low},{max(low, self.bound)}}}"
        elif high == _MAXREPEAT:
            bound = {0: "*", 1: "+"}.get(low, f"{{{low},}}")
        else:
            bound = "?" if (low, high) == (0, 1) else f"{{{low},{high}}}"
        return "(?:" + inner + ")" + bound

    def klass(self, items: Any, flags: int) -> str:
        negate = bool(items) and items[0][0] is _c.NEGATE
        parts: list[str] = []
        for op, arg in items[1:] if negate else items:
            parts.append(self.class_item(op, arg, negate, flags))
        body = "".join(parts)
        if not body:
            return "[^\\s\\S]" if not negate else self.anything()
        return ("[^" if negate else "[") + body + "]"

    def class_item(self, op: Any, arg: Any, negate: bool, flags: int) -> str:
        if op is _c.LITERAL:
            cases = {chr(arg)}
            if flags & _c.SRE_FLAG_IGNORECASE and (self.direction == SUPER) != negate:
                cases |= {chr(arg).lower(), chr(arg).upper()}
            return "".join(char(c, self.style) for c in sorted(cases))
        if op is _c.RANGE:
            return char(chr(arg[0]), self.style) + "-" + char(chr(arg[1]), self.style)
        if op is _c.CATEGORY:
            return self.category(arg, negate)
        raise Unsupported(f"the class item {op}")

    def category(self, category: Any, negate: bool) -> str:
        # A class item widens a positive class and narrows a negated one: a positive
        # class in SUB and a negated one in SUPER may take fewer characters (ASCII), the
        # other two must take all that Python's category takes.
        narrow = (self.direction == SUB) != negate
        native = _NATIVE.get(category)
        if self.style == "python" and native is not None:  # exact in either direction
            return native
        if category is _c.CATEGORY_SPACE:
            chars = _ASCII_SPACE if narrow else _python_space()
            return "".join(char(c, self.style) for c in chars)
        if category is _c.CATEGORY_DIGIT and narrow:
            return "0-9"
        if category is _c.CATEGORY_WORD and narrow:
            return "0-9A-Za-z_"
        if self.direction == SUPER and not negate:
            return "\\s\\S" if self.style == "ecma" else "\\x{0}-\\x{10FFFF}"
        raise Unsupported(f"the class category {category}")


def rewrite(pattern: str, flags: Iterable[str] = (), *, direction: str = SUB,
            style: str = "rust", fill: Mapping[str | int, str] | None = None,
            banned: Iterable[str] = (), bound: int | None = None,
            drop: bool = False) -> str | None:
    """`pattern` (Python syntax, with Lark's flag letters) in the target's syntax;
    None when fixing the groups in `fill` leaves no way to match. An alternative or a
    group that is exactly one of the `banned` patterns (a grammar's accept-only
    terminals, as Lark inlined them) is left out. With a `bound` (SUB only), a loop
    without an upper bound takes at most that many turns. With `drop` (SUB only), an
    alternative the target cannot write (a lookaround in it) is left out. Raises
    Unsupported for what `direction` cannot write."""
    letters = "".join(sorted(set(flags)))
    parsed = _sre.parse(f"(?{letters}){pattern}" if letters else pattern)
    writer = _Writer(direction, style, fill or {}, parsed.state.groupdict, banned_keys(banned))
    writer.bound = bound if direction == SUB else None
    writer.drop = drop and direction == SUB
    return writer.sequence(parsed, parsed.state.flags)


def longest(pattern: str) -> int:
    """The longest match of `pattern` (Python syntax), in characters (MAXREPEAT: any)."""
    return int(_sre.parse(pattern).getwidth()[1])


def lookahead_tail(pattern: str, flags: Iterable[str] = ()) -> tuple[str, str] | None:
    """For a pattern that ends in a positive lookahead (DeepSeek V3's closing fence,
    ```` ```(?=\\s*<｜tool▁call▁end｜>) ````): the pattern before it and the lookahead's
    own pattern, both in Python syntax (named groups kept); None for any other
    pattern."""
    return _lookahead_tail(pattern, flags, _c.ASSERT)


def negative_tail(pattern: str, flags: Iterable[str] = ()) -> tuple[str, str] | None:
    """For a pattern that ends in a negative lookahead (python.lark's `=(?!=)`): the
    pattern before it (its named groups kept) and the lookahead's own pattern, both in
    Python syntax; None for any other pattern."""
    return _lookahead_tail(pattern, flags, _c.ASSERT_NOT)


def _lookahead_tail(pattern: str, flags: Iterable[str], kind: Any) -> tuple[str, str] | None:
    """`positive_tail` and `negative_tail`: a pattern ending in a lookahead of `kind`."""
    letters = "".join(sorted(set(flags)))
    parsed = _sre.parse(f"(?{letters}){pattern}" if letters else pattern)
    items = list(parsed)
    if not items or items[-1][0] is not kind or items[-1][1][0] != 1:
        return None
    flag = parsed.state.flags
    writer = _Writer(SUB, "python", {}, parsed.state.groupdict)
    writer.names = True
    head = writer.sequence(items[:-1], flag)
    tail = _Writer(SUPER, "python", {}, {}).sequence(items[-1][1][1], flag)
    return None if head is None or tail is None else (head, tail)


def unpadded(pattern: str) -> str:
    """`pattern` (Python syntax) without the whitespace loop it starts with (`\\s*`)."""
    parsed = list(_sre.parse(pattern))
    while parsed and parsed[0][0] is _c.MAX_REPEAT and parsed[0][1][0] == 0 and \
            parsed[0][1][2] and all(op is _c.IN and all(
                o is _c.CATEGORY and a is _c.CATEGORY_SPACE or
                o is _c.LITERAL and chr(a).isspace() for o, a in arg)
                for op, arg in parsed[0][1][2]):
        parsed = parsed[1:]
    written = _Writer(SUPER, "python", {}, {}).sequence(parsed, 0)
    return written if written is not None else pattern


def _unwrapped(items: Any) -> Any:
    while len(items) == 1 and items[0][0] is _c.SUBPATTERN and items[0][1][0] is None \
            and not items[0][1][1] and not items[0][1][2]:
        items = items[0][1][3]
    return items


def _key(items: Any, flags: int) -> str | None:
    """A parsed sequence written out, to compare with the banned patterns."""
    return _Writer(SUPER, "python", {}, {}).sequence(_unwrapped(items), flags)


@functools.cache
def _banned_keys(patterns: tuple[str, ...]) -> frozenset[str]:
    keys = set()
    for pattern in patterns:
        parsed = _sre.parse(pattern)
        key = _key(parsed, parsed.state.flags)
        if key is not None:
            keys.add(key)
    return frozenset(keys)


def banned_keys(patterns: Iterable[str]) -> frozenset[str]:
    """The banned patterns in the form `rewrite` compares alternatives with."""
    return _banned_keys(tuple(sorted(set(patterns))))


def literal_heads(pattern: str, flags: Iterable[str] = (), banned: Iterable[str] = ()
                  ) -> frozenset[str]:
    """The literal texts a match of `pattern` can start with, up to its first class or
    loop, optional groups and alternatives expanded (`</(?:x)?p` gives `</p` and
    `</xp`), banned alternatives left out; the empty set when there are too many."""
    if "i" in flags:
        return frozenset({""})
    parsed = _sre.parse(pattern)
    writer = _Writer(SUB, "python", {}, {}, banned_keys(banned))
    found = _heads(writer, list(parsed), parsed.state.flags)
    return frozenset(h for h, _ in found) if found is not None else frozenset()


_MAX_HEADS = 64


def _heads(writer: _Writer, items: Any, flags: int) -> list[tuple[str, bool]] | None:
    """Each literal start of a sequence, and whether the sequence is all literal there."""
    current = [("", True)]
    for op, arg in items:
        options = _item_heads(writer, op, arg, flags)
        if options is None:
            return None
        current = [(h, False) for h, more in current if not more] + [
            (h + x, more2) for h, more in current if more for x, more2 in options]
        if len(current) > _MAX_HEADS:
            return None
    return current


def _item_heads(writer: _Writer, op: Any, arg: Any, flags: int
                ) -> list[tuple[str, bool]] | None:
    if op is _c.LITERAL:
        return [(chr(arg), True)]
    if op is _c.SUBPATTERN:
        if writer.is_banned(arg[3], flags):
            return []
        return _heads(writer, arg[3], flags)
    if op is _c.BRANCH:
        if writer.is_banned([(op, arg)], flags):
            return []
        out: list[tuple[str, bool]] = []
        for branch in arg[1]:
            if not writer.is_banned(branch, flags):
                found = _heads(writer, branch, flags)
                if found is None:
                    return None
                out += found
        return out
    if op is _c.MAX_REPEAT and arg[0] == 0 and arg[1] == 1:
        inner = _heads(writer, arg[2], flags)
        return None if inner is None else [("", True), *inner]
    return [("", False)]


def fits(pattern: str, text: str) -> bool:
    """Whether `text` is a whole match of `pattern` (Python syntax)."""
    return re.fullmatch(pattern, text) is not None


def literal_head(pattern: str, flags: Iterable[str] = ()) -> str:
    """The literal characters every match of `pattern` starts with ("" if none)."""
    if "i" in flags:
        return ""
    head: list[str] = []
    for op, arg in _sre.parse(pattern):
        if op is _c.LITERAL:
            head.append(chr(arg))
        elif op is _c.SUBPATTERN and arg[1] == 0 and arg[2] == 0:
            inner = literal_head_of(arg[3])
            head.append(inner[0])
            if not inner[1]:
                break
        else:
            break
    return "".join(head)


def literal_head_of(items: Any) -> tuple[str, bool]:
    """The literal start of a parsed sequence, and whether the sequence is all literal."""
    head: list[str] = []
    for op, arg in items:
        if op is not _c.LITERAL:
            return "".join(head), False
        head.append(chr(arg))
    return "".join(head), True


# ---- where a pattern stops reading ------------------------------------------------------

def probes(pattern: str, flags: Iterable[str] = ()) -> frozenset[str]:
    """Texts at which a match of `pattern` may stop being possible: its literal paths,
    each ended by a character a negated class leaves out, or by what a negative
    lookahead refuses there (`<(?!\\|end\\|>)` gives `<` and `<|end|>`). The caller
    tests them (`fits` of the text with a continuation); this only proposes them."""
    if "i" in flags:
        return frozenset()
    found: set[str] = set()
    _probe(list(_sre.parse(pattern)), "", found)
    return frozenset(found)


def _probe(items: Any, prefix: str, found: set[str]) -> None:
    for index, (op, arg) in enumerate(items):
        rest = items[index + 1:]
        if op is _c.LITERAL:
            prefix += chr(arg)
            continue
        found.add(prefix)
        if op is _c.NOT_LITERAL:
            found.add(prefix + chr(arg))
        elif op is _c.IN and arg and arg[0][0] is _c.NEGATE:
            found.update(prefix + chr(a) for o, a in arg[1:] if o is _c.LITERAL)
        elif op is _c.BRANCH:
            for branch in arg[1]:
                _probe(list(branch) + rest, prefix, found)
        elif op is _c.SUBPATTERN:
            _probe(list(arg[3]) + rest, prefix, found)
        elif op is _c.ASSERT_NOT:
            heads = _heads(_Writer(SUB, "python", {}, {}), arg[1], 0) or []
            found.update(prefix + head for head, _ in heads)
            continue
        elif op is _c.ASSERT:
            continue
        elif op in (_c.MAX_REPEAT, _c.MIN_REPEAT):
            _probe(list(arg[2]), prefix, found)
        return
    found.add(prefix)


# ---- texts that contain none of some words ------------------------------------------------

def avoiding(words: Iterable[str]) -> str:
    """An anchored ECMA/Rust pattern for the texts that contain none of `words` (each
    non-empty): the pattern a value gets so that no closing tag is written inside it.

    Where the words share their first character and have it nowhere else (the closing
    tags of most bundled grammars start with `<` and hold no other), a text's automaton
    has the root, the proper prefixes of the words (a trie), and from any prefix the
    first character leads back to the one-character prefix and any character that
    neither continues a prefix nor completes a word back to the root. So a text is runs
    of other characters and excursions into the trie, written as one expression whose
    size is that of the trie times its depth. Other words (DeepSeek V3's fence ```` ``` ````,
    whose first character comes again; words with different first characters) get the
    same automaton in general (the words' prefixes, each character leading to the longest
    prefix that the text then ends with), turned into an expression by eliminating its
    states, deepest first."""
    found = sorted(set(words))
    if not found or any(not w for w in found):
        raise Unsupported("an empty word to avoid")
    # A text that holds none of the shortest words holds none of the others.
    found = [w for w in found if not any(o != w and o in w for o in found)]
    try:
        return _avoiding_trie(found)
    except Unsupported:
        return _avoiding_automaton(found)


def _avoiding_trie(found: list[str]) -> str:
    """`avoiding` for words that share a first character found nowhere else in them."""
    singles = "".join(sorted({w for w in found if len(w) == 1}))
    found = [w for w in found if len(w) > 1 and not set(w) & set(singles)]
    never = "".join(char(c, "ecma") for c in singles)
    if not found:
        return f"^[^{never}]*$"
    first = found[0][0]
    if any(w[0] != first or first in w[1:] for w in found):
        raise Unsupported(f"words that do not share a first character found nowhere else: {found}")
    trie = _trie([w[1:] for w in found])
    if set(singles) & set("".join(found)):
        raise Unsupported(f"a character to avoid inside a word to avoid: {singles!r}")
    c0 = char(first, "ecma")
    loop, out, end = _loop(trie, c0), _exit(trie, first + singles), _end(trie)
    excursion = f"{c0}(?:{loop})*"
    return f"^(?:[^{c0}{never}]|{excursion}{out})*(?:{excursion}{end})?$"


_Trie = dict[str, "_Trie | None"]
"""A character -> the node it leads to, or None where it completes a word."""


def _trie(rests: list[str]) -> _Trie:
    root: _Trie = {}
    for rest in rests:
        node = root
        for i, c in enumerate(rest):
            if i == len(rest) - 1:
                node[c] = None
            else:
                child = node.get(c, {})
                if child is None:  # a shorter word already ends here
                    break
                node[c] = child
                node = child
    return root


def _alts(parts: list[str]) -> str:
    return parts[0] if len(parts) == 1 else "(?:" + "|".join(parts) + ")"


def _loop(node: _Trie, c0: str) -> str:
    """From a prefix back to the one-character prefix (the first character again)."""
    parts = [c0] + [char(c, "ecma") + _loop(child, c0)
                    for c, child in sorted(node.items()) if child is not None]
    return _alts(parts)


def _exit(node: _Trie, first: str) -> str:
    """From a prefix back to the root: a character that breaks every word."""
    taken = "".join(char(c, "ecma") for c in sorted({*first, *node}))
    parts = [f"[^{taken}]"] + [char(c, "ecma") + _exit(child, first)
                               for c, child in sorted(node.items()) if child is not None]
    return _alts(parts)


def _end(node: _Trie) -> str:
    """A text that ends inside a prefix."""
    parts = [""] + [char(c, "ecma") + _end(child)
                    for c, child in sorted(node.items()) if child is not None]
    return _alts(parts)


def _avoiding_automaton(words: list[str]) -> str:
    """`avoiding` for any words, none inside another: the automaton whose states are the
    words' proper prefixes, its transitions the longest prefix a text then ends with,
    written as an expression by state elimination."""
    states = sorted({w[:i] for w in words for i in range(len(w))}, key=lambda p: (len(p), p))
    edges = _automaton(words, states)
    final = len(states)
    for k in range(len(states) - 1, 0, -1):
        _eliminate(edges, k)
    loop, end = edges.get((0, 0)), edges.get((0, final))
    return f"^(?:{loop})*(?:{end})$" if loop else f"^(?:{end})$"


_Edges = dict[tuple[int, int], str]
"""(from state, to state) -> the expression of the texts that lead there."""


def _automaton(words: list[str], states: list[str]) -> _Edges:
    """The automaton's edges: state i is `states[i]`, the root 0; every state is final
    (an edge to the extra state `len(states)` with the empty text)."""
    index = {p: i for i, p in enumerate(states)}
    alphabet = sorted(set("".join(words)))
    edges: _Edges = {}
    for p in states:
        targets: dict[int, list[str]] = {}
        for c in alphabet:
            text = p + c
            if any(text.endswith(w) for w in words):
                continue  # a word completed: no way on
            longest = next(text[i:] for i in range(len(text) + 1) if text[i:] in index)
            targets.setdefault(index[longest], []).append(c)
        # The root takes every character outside the words, and those sent back to it.
        kept = "".join(char(c, "ecma") for c in alphabet if c not in targets.get(0, []))
        edges[index[p], 0] = f"[^{kept}]" if kept else "(?s:.)"
        for target, chars in targets.items():
            if target:
                edges[index[p], target] = _klass(chars)
        edges[index[p], len(states)] = ""
    return edges


def _eliminate(edges: _Edges, k: int) -> None:
    """Remove state k, each path through it an edge of its own."""
    loop = edges.pop((k, k), None)
    star = f"(?:{loop})*" if loop else ""
    ins = [(i, e) for (i, j), e in edges.items() if j == k]
    outs = [(j, e) for (i, j), e in edges.items() if i == k]
    for pair in [key for key in edges if k in key]:
        del edges[pair]
    for i, into in ins:
        for j, out in outs:
            path = f"(?:{into}){star}(?:{out})"
            edges[i, j] = f"{edges[i, j]}|{path}" if (i, j) in edges else path


def _klass(chars: list[str]) -> str:
    return "[" + "".join(char(c, "ecma") for c in chars) + "]"

