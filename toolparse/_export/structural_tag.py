"""A dialect's grammar as an xgrammar structural tag, for the tools given (SPEC 12).

vLLM hands a tool parser's structural tag to xgrammar (`ToolParser.get_structural_tag`,
docs/vllm.md), which has no Lark of its own there: a structural tag is a tree of
formats (a fixed string, a regular expression, a JSON Schema, a sequence, a choice, an
optional part, a repetition). The tree is made from the llguidance export
(`llguidance.write`), so both targets come from one walk of one grammar file and write
the same language:

- each rule of the Lark text is read back (`_Reader`: the few constructs the llguidance
  writer writes: rules, `|`, `( )`, `?`, `*`, `/regex/`, `"literal"`, `%json {...}`)
  and inlined where it is used; a rule that repeats itself by left recursion (Lark's
  `x: a | x sep a`, the list of calls in a block) is its first part then a `star` of
  the rest; any other recursion is an `ExportError`;
- every regular expression, those inside the JSON Schemas' `pattern` too, is rewritten
  from the llguidance flavour (Rust's `regex` crate: `\\x{3C}`, `(?s:.)`) to xgrammar's
  (ECMA: `\\u003C`, `\\u{1F600}`; no class takes a surrogate code point).

xgrammar runs the tree as a context-free grammar over characters; the llguidance text
glues a raw value to its closing tag (llguidance's lexer never goes back), which is the
same language for a grammar without a lexer. The result is plain JSON data
(`{"type": "structural_tag", "format": ...}`): toolparse does not import xgrammar.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from toolparse._dialect.grammar import Grammar
from toolparse._errors import ExportError
from toolparse._export import llguidance

__all__ = ["ecma_pattern", "write"]

_Item = tuple[str, Any]
"""One piece of a rule: ("regex", pattern), ("string", text), ("json", schema),
("rule", name), ("group", alternatives), each possibly wrapped in ("?"|"*"|"+", item)."""
_Alternatives = list[list[_Item]]

_TOKEN = re.compile(r"""\s*(?:
    (?P<regex>/(?:\\.|[^/\\\n])*/)
  | (?P<string>"(?:\\.|[^"\\\n])*")
  | (?P<json>%json\s)
  | (?P<name>[A-Za-z_][A-Za-z0-9_]*)
  | (?P<punct>[()|*?+])
)""", re.X)


class _Reader:
    """One Lark expression of the llguidance writer's, read into alternatives."""

    def __init__(self, text: str, rule: str) -> None:
        self.text = text
        self.rule = rule
        self.at = 0

    def fail(self, why: str) -> ExportError:
        return ExportError(f"the llguidance rule {self.rule!r} holds {why} at column "
                           f"{self.at}, which the structural tag does not read")

    def peek(self) -> tuple[str, str] | None:
        match = _TOKEN.match(self.text, self.at)
        if match is None:
            if self.text[self.at:].strip():
                raise self.fail(repr(self.text[self.at:self.at + 20]))
            return None
        kind = match.lastgroup or ""
        return kind, match.group(kind)

    def take(self) -> tuple[str, str]:
        found = self.peek()
        if found is None:
            raise self.fail("an unfinished expression")
        match = _TOKEN.match(self.text, self.at)
        assert match is not None
        self.at = match.end()
        return found

    def alternatives(self) -> _Alternatives:
        out = [self.sequence()]
        while (found := self.peek()) == ("punct", "|"):
            self.take()
            out.append(self.sequence())
        return out

    def sequence(self) -> list[_Item]:
        items: list[_Item] = []
        while (found := self.peek()) is not None and found[1] not in ("|", ")"):
            item = self.atom()
            while (after := self.peek()) is not None and after[1] in ("?", "*", "+"):
                self.take()
                item = (after[1], item)
            items.append(item)
        return items

    def atom(self) -> _Item:
        kind, text = self.take()
        if kind == "regex":
            return "regex", text[1:-1]
        if kind == "string":
            return "string", json.loads(text)
        if kind == "name":
            return "rule", text
        if kind == "json":
            try:
                schema, end = json.JSONDecoder().raw_decode(self.text, self.at)
            except json.JSONDecodeError:
                raise self.fail("a `%json` without a JSON value") from None
            self.at = end
            return "json", schema
        if text == "(":
            inner = self.alternatives()
            if self.take() != ("punct", ")"):
                raise self.fail("an unclosed group")
            return "group", inner
        raise self.fail(repr(text))


def _rules(lark: str) -> dict[str, _Alternatives]:
    rules: dict[str, _Alternatives] = {}
    for line in lark.splitlines():
        if not line.strip():
            continue
        name, sep, body = line.partition(":")
        if not sep or not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
            raise ExportError(f"the llguidance line {line[:40]!r} is not a rule")
        reader = _Reader(body, name)
        rules[name] = reader.alternatives()
        if reader.peek() is not None:
            raise reader.fail("an unmatched `)`")
    return rules


class _Builder:
    """The rules inlined into one tree of formats."""

    def __init__(self, rules: Mapping[str, _Alternatives]) -> None:
        self.rules = rules
        self.open: list[str] = []

    def rule(self, name: str) -> dict[str, Any]:
        if name in self.open:
            raise ExportError(f"the rule {name!r} repeats itself other than by left "
                              "recursion, which a structural tag cannot express")
        alternatives = self.rules.get(name)
        if alternatives is None:
            raise ExportError(f"the llguidance text uses the rule {name!r} it does not define")
        self.open.append(name)
        try:
            base = [a for a in alternatives if a[:1] != [("rule", name)]]
            tails = [a[1:] for a in alternatives if a[:1] == [("rule", name)]]
            if not base:
                raise ExportError(f"the rule {name!r} never ends")
            found = self.choice(base)
            if tails:
                found = _as_regex(_sequence([found, {"type": "star",
                                                     "content": self.choice(tails)}]))
            return found
        finally:
            self.open.pop()

    def choice(self, alternatives: _Alternatives) -> dict[str, Any]:
        formats = [self.sequence(a) for a in alternatives]
        unique = list({json.dumps(f, sort_keys=True): f for f in formats}.values())
        return unique[0] if len(unique) == 1 else {"type": "or", "elements": unique}

    def sequence(self, items: list[_Item]) -> dict[str, Any]:
        return _sequence([self.item(i) for i in items])

    def item(self, item: _Item) -> dict[str, Any]:
        kind, value = item
        if kind in ("?", "*", "+"):
            content = self.item(value)
            if _is_empty(content):
                return content
            word = {"?": "optional", "*": "star", "+": "plus"}[kind]
            return _as_regex({"type": word, "content": content})
        if kind == "regex":
            pattern = ecma_pattern(value)
            fixed = _fixed_text(pattern)
            if fixed is not None:
                return {"type": "const_string", "value": fixed}
            return {"type": "regex", "pattern": pattern}
        if kind == "string":
            return {"type": "const_string", "value": value}
        if kind == "json":
            return {"type": "json_schema", "json_schema": _ecma_schema(value)}
        if kind == "group":
            return self.choice(value)
        return self.rule(value)


_EMPTY: dict[str, Any] = {"type": "const_string", "value": ""}
_REPEATS = {"optional": "?", "star": "*", "plus": "+"}


def _regular(node: Mapping[str, Any]) -> str | None:
    """The format as one pattern, when it is made of patterns and strings only."""
    kind = node["type"]
    if kind == "const_string":
        return "".join(c if c.isascii() and (c.isalnum() or c == "_") else _code(ord(c))
                       for c in node["value"])
    if kind == "regex":
        return f"(?:{node['pattern']})"
    if kind in _REPEATS:
        inner = _regular(node["content"])
        return None if inner is None else f"(?:{inner}){_REPEATS[kind]}"
    if kind in ("sequence", "or"):
        parts = [_regular(e) for e in node["elements"]]
        if any(p is None for p in parts):
            return None
        glue = "" if kind == "sequence" else "|"
        return "(?:" + glue.join(p for p in parts if p is not None) + ")"
    return None


def _as_regex(node: dict[str, Any]) -> dict[str, Any]:
    """A repetition of patterns and strings as one pattern. xgrammar runs a pattern as
    an automaton but a tree of formats as a grammar, where a loop of text pieces with
    optional whitespace between them (`comment: (TEXT | "-") (ws (TEXT | "-"))*`) can be
    split in exponentially many ways; the pattern is the same language, read in one."""
    found = _regular(node)
    return node if found is None else {"type": "regex", "pattern": found}


def _is_empty(found: Mapping[str, Any]) -> bool:
    return found == _EMPTY


_FIXED = re.compile(r"(?:[A-Za-z0-9_]|\\u[0-9A-F]{4}|\\u\{[0-9A-F]+\})+")
_FIXED_PIECE = re.compile(r"[A-Za-z0-9_]|\\u([0-9A-F]{4})|\\u\{([0-9A-F]+)\}")


def _fixed_text(pattern: str) -> str | None:
    """The text a pattern of single characters only matches (a tag): a fixed string."""
    if not _FIXED.fullmatch(pattern):
        return None
    return "".join(chr(int(m.group(1) or m.group(2), 16)) if m.group(1) or m.group(2)
                   else m.group(0) for m in _FIXED_PIECE.finditer(pattern))


def _sequence(formats: list[dict[str, Any]]) -> dict[str, Any]:
    """A sequence, with empty parts left out (xgrammar takes no empty sequence)."""
    parts = [f for f in formats if not _is_empty(f)]
    if not parts:
        return dict(_EMPTY)
    return parts[0] if len(parts) == 1 else {"type": "sequence", "elements": parts}


# ---- regular expressions: llguidance's flavour to xgrammar's ------------------------------

_ESCAPE = re.compile(r"\\x\{([0-9A-Fa-f]+)\}|\\u([0-9A-Fa-f]{4})")


_SURROGATES = "\\uD800-\\uDFFF"
"""Code points that are no character (UTF-8 has no bytes for them): xgrammar's classes
would otherwise write their three bytes."""


def _code(c: int) -> str:
    return f"\\u{c:04X}" if c <= 0xFFFF else f"\\u{{{c:X}}}"


def ecma_pattern(pattern: str) -> str:
    """A pattern the llguidance export writes (Rust's syntax, as `regex.rewrite` and
    `regex.avoiding` spell it), in xgrammar's: `\\x{H}` and surrogate pairs as `\\uHHHH`
    or `\\u{H}`, a dot under `(?s:` as any character; no class takes a surrogate code
    point. Other flags are an `ExportError`."""
    out: list[str] = []
    dotall: list[bool] = []
    in_class = False
    i = 0
    while i < len(pattern):
        c = pattern[i]
        escape = _ESCAPE.match(pattern, i)
        if escape is not None:
            code = int(escape.group(1) or escape.group(2), 16)
            i = escape.end()
            low = _ESCAPE.match(pattern, i) if 0xD800 <= code < 0xDC00 else None
            if low is not None and 0xDC00 <= int(low.group(1) or low.group(2), 16) < 0xE000:
                code = 0x10000 + ((code - 0xD800) << 10) + int(low.group(1) or low.group(2), 16) - 0xDC00
                i = low.end()
            out.append(_code(code))
            continue
        if c == "\\":
            out.append(pattern[i:i + 2])
            i += 2
            continue
        if in_class:
            in_class = c != "]"   # (the writer escapes every `]` that is not the end)
        elif c == "[":
            in_class = True
            if pattern.startswith("[^", i):  # (a negated class takes no surrogate)
                out.append("[^" + _SURROGATES)
                i += 2
                continue
        elif pattern.startswith("(?s:", i):
            out.append("(?:")
            dotall.append(True)
            i += 4
            continue
        elif pattern.startswith("(?", i) and not pattern.startswith("(?:", i):
            raise ExportError(f"the pattern flag group at {pattern[i:i + 6]!r} has no "
                              "xgrammar spelling")
        elif c == "(":
            dotall.append(any(dotall))
        elif c == ")" and dotall:
            dotall.pop()
        elif c == ".":
            out.append(f"[^{_SURROGATES}]" if any(dotall) else f"[^{_SURROGATES}\\n]")
            i += 1
            continue
        out.append(c)
        i += 1
    return "".join(out)


def _ecma_schema(schema: Any) -> Any:
    """A JSON Schema with every `pattern` (the closed schema's, `schema.closed_schema`)
    in xgrammar's flavour."""
    if isinstance(schema, dict):
        return {k: ecma_pattern(v) if k == "pattern" and isinstance(v, str)
                else _ecma_schema(v) for k, v in schema.items()}
    if isinstance(schema, list):
        return [_ecma_schema(v) for v in schema]
    return schema


def write(grammar: Grammar, tools: Mapping[str, Any], mode: str) -> dict[str, Any]:
    """The structural tag (JSON data) for `grammar` and `tools` ({name: parameters
    schema}): what the llguidance export writes, as xgrammar's formats."""
    rules = _rules(llguidance.write(grammar, tools, mode))
    if "start" not in rules:
        raise ExportError("the llguidance text has no `start` rule")
    return {"type": "structural_tag", "format": _Builder(rules).rule("start")}
