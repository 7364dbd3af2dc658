"""Calls whose arguments are literals the value syntax builds into JSON, for the export:
Python calls (`typing=pythonic`: grammars/common/python.lark) and Gemma's notation
(`typing=gemma`: grammars/common/gemma.lark).

A Python call (`invoke: PY_CALL py_arguments RPAR`) holds `py_arguments`, a Gemma call
`gemma_body` (one object); `NOTATIONS` names the rules each is written with. The export
writes each tool's arguments from its schema, with the pieces those rules are made of
(their terminals, as the grammar file spells them):

- Python's arguments: one keyword per property (`py_keyword`'s key terminal with the
  key filled in, then its value), in the schema's order, the required ones present,
  each other one at most once, no other key, separated by `py_arguments`' separator;
  Gemma's: the tool's schema as one object;
- a string: either form of the string rule, its text the rule's own pieces (text runs
  and escapes) as their patterns say, less the escapes that hold a lookaround and what
  the value syntax cannot decode (`narrow.py`); where the pieces read any text (Gemma),
  any text that holds none of the quote tokens that would end it;
- an `enum`/`const` value and a key: the literal that builds it (a key bare where a
  key terminal reads it: Gemma's `GEMMA_KEY`);
- an integer or a number: `%json` with the schema, when the grammar's number terminal
  reads every JSON number `%json` writes (`NUMBER_PROBES`); `true`/`false`/`null`: the
  scalar terminals whose fixed text the value syntax builds into them;
- an array: the list rule's brackets and separator, as many items as `minItems` and
  `maxItems` allow; an object: the dict rule's braces and separator, a pair per
  property (its key, the pair's separator, its value), as for the arguments.

Tuples, sets, parenthesised values and a trailing separator are read, never written.
Whitespace (the grammar's ignored run) may stand between the pieces. The rules follow
the schema, so a recursive schema is an `ExportError` (the structural tag writes no
recursion), and so is any keyword this does not write (`pattern`, `format`, a length).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from toolparse._calls.values import resolve_local_ref
from toolparse._dialect.records import RuleRecord, TerminalRecord
from toolparse._dialect.roles import own_name
from toolparse._dialect.table import Tag
from toolparse._errors import ExportError
from toolparse._export import narrow, regex
from toolparse._export.schema import ANNOTATIONS, closed_schema

if TYPE_CHECKING:
    from toolparse._export.llguidance import _Writer

__all__ = ["Literals"]

NUMBER_PROBES = ("0", "-7", "10", "1.5", "-0.25", "1000000000000000")
"""JSON numbers as `%json` writes them (no exponent): the number terminal must read each."""
NOTATIONS = {
    "py_arguments": {"keyword": "py_keyword", "string": "py_string", "scalar": "py_scalar",
                     "list": "py_list", "dict": "py_dict", "pair": "py_pair"},
    "gemma_body": {"string": "gemma_string", "scalar": "gemma_scalar", "list": "gemma_array",
                   "dict": "gemma_object", "pair": "gemma_member"},
}
"""The rules a call's arguments are written with, by the rule that holds them: Python's
keywords (`py_arguments`: python.lark), or one object (`gemma_body`: gemma.lark)."""
_PROBES = ("\U0010ffff", "z", "f", "F", "9", "Z", "~", "a", "0", " ", "\n", "\t", "\r",
           "\x00", "\u00e9", *(chr(c) for c in range(33, 127)))
"""Characters tried, first to last, as the one a class stands for in a probe (the
first it takes: the largest, so that a code point escape is probed at its largest),
and each, in turn, where the class is alone."""
_KEYS = {"string": frozenset({"type", "enum", "const"}),
         "integer": frozenset({"type", "minimum", "maximum", "exclusiveMinimum",
                               "exclusiveMaximum", "multipleOf", "enum", "const"}),
         "array": frozenset({"type", "items", "minItems", "maxItems"}),
         "object": frozenset({"type", "properties", "required", "additionalProperties"}),
         "boolean": frozenset({"type", "enum", "const"}),
         "null": frozenset({"type", "enum", "const"})}
_KEYS["number"] = _KEYS["integer"]
_MAX_REPEAT = 64


class Literals:
    """The literal rules of one export and one notation (`NOTATIONS`), written into the
    writer's `out`."""

    def __init__(self, writer: _Writer, entry: str) -> None:
        self.w = writer
        self.entry = entry
        self.roles = NOTATIONS[entry]
        wanted = {entry, *self.roles.values()}
        self.origins = {own_name(o): o for o in writer.rules if own_name(o) in wanted}
        missing = sorted(wanted - set(self.origins))
        if missing:
            raise writer.fail(f"its calls have no rule {missing[0]!r} to write values with")
        syntax = writer.grammar.header.typing
        self.build_string = syntax.builders[self.roles["string"]]
        scalar = syntax.builders.get(self.roles["scalar"])
        self.scalar_json = (lambda term, text: scalar([Tag(term, text, 0)])[1]) \
            if scalar is not None else (lambda term, text: syntax.value_text([text])[0])
        keyword = self.roles.get("keyword")
        self.args_sep = self._separator(entry) if keyword else ""
        self.list_frame = self._frame(self.roles["list"])
        self.dict_frame = self._frame(self.roles["dict"])
        pairs = self._alternatives(self.roles["pair"])
        common = set.intersection(*({s.name for s in r.expansion if s.is_term} for r in pairs))
        if len(common) != 1:
            raise writer.fail(f"the rule {self.roles['pair']!r} has no one separator")
        self.colon = self._literal(common.pop())
        self.key_terms = [self.w.terminals[r.expansion[0].name] for r in pairs
                          if r.expansion and r.expansion[0].is_term]
        self.key_term = self.w.terminals[next(
            s.name for r in self._alternatives(keyword) for s in r.expansion
            if s.is_term)] if keyword else None
        self.quotes = self._quotes()
        self.followers = {c for c in " \t\n"} | {
            t[0] for t in (self.args_sep, *self.list_frame, *self.dict_frame[1:],
                           self._separator_close()) if t}
        self.scalars, self.number = self._scalars()
        self.starts = {q[0] for q, _, _ in self.quotes} | set("-0123456789") | {
            self.list_frame[1][0], self.dict_frame[1][0]} | {
            h[0] for h in self.scalars.values()}
        """What a value may start with (the key terminal's lookahead must take none)."""
        self.memo: dict[str, str] = {}

    # ---- what the grammar's rules are made of -------------------------------------------

    def _alternatives(self, name: str) -> list[RuleRecord]:
        return self.w.rules[self.origins[name]]

    def _literal(self, term_name: str) -> str:
        """A terminal that is one fixed text, as that text."""
        heads = self.w.heads(self.w.terminals[term_name], "is a Python literal's piece")
        if len(heads) != 1 or not regex.fits(self.w.terminals[term_name].regexp,
                                             next(iter(heads))):
            raise self.w.fail(f"the terminal {term_name} is not one fixed text")
        return next(iter(heads))

    def _separator(self, name: str) -> str:
        """The terminal between a rule's repeated items (in its `*` helper)."""
        for rule in self._alternatives(name):
            for s in rule.expansion:
                if not s.is_term and s.name.startswith("__"):
                    for inner in self.w.rules.get(s.name, []):
                        terms = [x.name for x in inner.expansion if x.is_term]
                        if terms:
                            return self._literal(terms[0])
        raise self.w.fail(f"the rule {name!r} has no separator to write")

    def _frame(self, name: str) -> tuple[str, str, str]:
        """A collection's separator, open and close texts (its longest alternative's
        first and last terminals)."""
        longest = max(self._alternatives(name), key=lambda r: len(r.expansion))
        first, last = longest.expansion[0], longest.expansion[-1]
        if not (first.is_term and last.is_term):
            raise self.w.fail(f"the rule {name!r} is not bracketed by terminals")
        return self._separator(name), self._literal(first.name), self._literal(last.name)

    def _separator_close(self) -> str:
        """The call's close (`invoke`'s last terminal), which follows its last value."""
        found = [r.expansion[-1] for o, rs in self.w.rules.items() for r in rs
                 if own_name(o) == "invoke" and r.expansion
                 and any(own_name(s.name) == self.entry for s in r.expansion)]
        return self._literal(found[0].name) if found and found[0].is_term else ""

    def _quotes(self) -> list[tuple[str, Callable[[str], bool], str]]:
        """Each string form: its quote, whether a text is written as it is between two,
        and the whole string's pattern in the target's syntax. Its text is its pieces as
        they are, or, where those read any text, any text that holds none of the words
        that would end it (Gemma's `<|"|>`: the writer's `closers_of`)."""
        forms: dict[str, set[str]] = {}
        for rule in self._alternatives(self.roles["string"]):
            head = rule.expansion[0]
            if not head.is_term:
                raise self.w.fail("a string that does not start with a quote")
            quote = self._literal(head.name)
            forms.setdefault(quote, set())
            for s in rule.expansion[1:-1]:
                forms[quote] |= self.w._pieces(s.name) if not s.is_term else {s.name}
        out = []
        for quote, names in forms.items():
            pieces = [p for n in sorted(names) for p in self._decodable(quote, n)]
            if not pieces:
                continue
            body = "(?:" + "|".join(pieces) + ")*"
            mark = regex.rewrite(re.escape(quote)) or ""
            closers = self.w.closers_of(frozenset(names))
            if not any(re.fullmatch(body, w, re.DOTALL) for w in closers):
                written = regex.rewrite(body)
                if written is not None:
                    out.append((quote, _fitting(body, frozenset()), mark + written + mark))
            elif all(re.fullmatch(body, c, re.DOTALL) for c in _PROBES):
                free = regex.avoiding(closers)[1:-1]
                out.append((quote, _fitting(body, closers), f"{mark}(?:{free}){mark}"))
            else:
                raise self.w.fail("a string's pieces can hold what ends it, and not any text")
        if not out:
            raise self.w.fail("its strings have no piece the export can write")
        return out

    def _decodable(self, quote: str, name: str) -> list[str]:
        """A string piece's alternatives (Python syntax) that the target can write,
        less what the value syntax cannot decode (`narrow.narrowed`: in a user's
        grammar, a `\\U` escape beyond Unicode, say)."""
        term = self.w.terminals[name]

        def reads(text: str) -> bool:
            try:
                self.string_text(quote, text)
            except (ValueError, OverflowError):
                return False
            return True

        found = (narrow.narrowed(a, reads, _PROBES)
                 for a in narrow.alternatives(term.regexp, term.flags))
        return [a for a in found if a is not None]

    def string_text(self, quote: str, text: str) -> str:
        """The string the value syntax builds from `text` between two `quote`s."""
        built = self.build_string([Tag("", quote, 0), text, Tag("", quote, 0)])
        return str(json.loads(built[1]) if isinstance(built, tuple) else built.text)

    def _scalars(self) -> tuple[dict[str, str], TerminalRecord | None]:
        """The fixed scalars by the JSON they build to (`true`: `True`), and the number
        terminal, when it reads every JSON number `%json` writes."""
        fixed: dict[str, str] = {}
        number = None
        for rule in self._alternatives(self.roles["scalar"]):
            term = self.w.terminals[rule.expansion[0].name]
            if all(regex.fits(term.regexp, p) for p in NUMBER_PROBES):
                number = term
                continue
            for head in self.w.heads(term, "is a Python scalar"):
                if all(_ends(term.regexp, head, c) for c in self.followers):
                    fixed.setdefault(self.scalar_json(term.name, head), head)
        return fixed, number

    # ---- what the tools decide ----------------------------------------------------------

    def fail(self, tool: str, pointer: str, why: str) -> ExportError:
        return ExportError(f"tool {tool!r}, schema {pointer or '/'}: {why}")

    def call(self, tool: str) -> str:
        """A call's arguments: Python's keywords, or one object of the tool's schema."""
        if "keyword" in self.roles:
            return self.arguments(tool)
        schema = resolve_local_ref(self.w.tools[tool], self.w.tools[tool])
        if isinstance(schema, dict) and "type" not in schema:
            schema = {**schema, "type": "object"}
        return self.value(tool, "", schema, ())

    def arguments(self, tool: str) -> str:
        """A call's keyword arguments, from the tool's parameters schema."""
        root = self.w.tools[tool]
        schema = resolve_local_ref(root, root)
        properties = schema.get("properties", {}) if isinstance(schema, dict) else {}
        required = schema.get("required", []) if isinstance(schema, dict) else []
        self._check_required(tool, "", properties, required)
        members = [(self.keyword(tool, key, sub), key in required)
                   for key, sub in properties.items()]
        seq = self._sequence(members, self.args_sep)
        return seq if not seq or any(r for _, r in members) else f"{seq}?"

    def keyword(self, tool: str, key: str, schema: Any) -> str:
        """`key=value`: the key terminal with the key filled in, then the value."""
        pointer = "/properties/" + _escaped(key)
        term = self.key_term
        if term is None:
            raise self.w.fail("its calls have no keyword terminal")
        split = regex.negative_tail(term.regexp, term.flags)
        head = split[0] if split else term.regexp
        value = self.value(tool, pointer, schema, ())
        if split and any(re.match(split[1], c) for c in self.starts | {" ", "\n"}):
            raise self.w.fail(f"the terminal {term.name} looks ahead for what a value "
                              "may start with")
        try:
            written = regex.rewrite(head, term.flags, fill={"name": key})
        except regex.Unsupported as error:
            raise self.w.fail(f"the terminal {term.name} holds {error}") from None
        if written is None:
            raise self.fail(tool, pointer, f"the key {key!r} does not fit the terminal "
                                           f"{term.name}")
        return self._rule(f"/{written}/ {self._gap()}{value}")

    def value(self, tool: str, pointer: str, schema: Any, refs: tuple[str, ...]) -> str:
        """A value of `schema` as a rule (one per schema pointer)."""
        found = self.memo.get(pointer + "\x00" + tool)
        if found is not None:
            return found
        root = self.w.tools[tool]
        ref = schema.get("$ref") if isinstance(schema, dict) else None
        if isinstance(ref, str):
            if ref in refs:
                raise self.fail(tool, pointer, f"a recursive schema ({ref}) is not written "
                                               "as Python literals")
            refs = (*refs, ref)
        schema = resolve_local_ref(schema, root)
        if not isinstance(schema, dict):
            raise self.fail(tool, pointer, "a value of any type: give it a type")
        body = self._typed(tool, pointer, schema, refs)
        name = self.memo[pointer + "\x00" + tool] = self._rule(body)
        return name

    def _typed(self, tool: str, pointer: str, schema: dict[str, Any],
               refs: tuple[str, ...]) -> str:
        if "anyOf" in schema and set(schema) - ANNOTATIONS == {"anyOf"}:
            return " | ".join(self.value(tool, f"{pointer}/anyOf/{i}", s, refs)
                              for i, s in enumerate(schema["anyOf"]))
        if "enum" in schema or "const" in schema:
            values = schema["enum"] if "enum" in schema else [schema["const"]]
            return " | ".join(self._fixed(tool, pointer, v) for v in values)
        declared = schema.get("type")
        types = [declared] if isinstance(declared, str) else declared
        if not isinstance(types, list) or not types or any(t not in _KEYS for t in types):
            raise self.fail(tool, pointer, "a value without a type the export writes")
        out = []
        for kind in types:
            unknown = sorted(set(schema) - ANNOTATIONS - _KEYS[kind] - {"type"}
                             - (_KEYS["string"] if len(types) > 1 else frozenset()))
            if unknown:
                raise self.fail(tool, pointer, f"the keyword {unknown[0]!r} is not "
                                               "written as a Python literal")
            out.append(self._kind(tool, pointer, schema, kind, refs))
        return " | ".join(out)

    def _kind(self, tool: str, pointer: str, schema: dict[str, Any], kind: str,
              refs: tuple[str, ...]) -> str:
        if kind == "string":
            return " | ".join(f"/{written}/" for _, _, written in self.quotes)
        if kind in ("integer", "number"):
            if self.number is None:
                raise self.w.fail("its number terminal does not read every JSON number")
            bounds = {k: v for k, v in schema.items() if k in _KEYS[kind]}
            closed = closed_schema({**bounds, "type": kind}, tool, frozenset(), "")
            return "%json " + json.dumps(closed, ensure_ascii=True)
        if kind in ("boolean", "null"):
            return " | ".join(self._fixed(tool, pointer, v)
                              for v in ((True, False) if kind == "boolean" else (None,)))
        if kind == "array":
            return self._array(tool, pointer, schema, refs)
        return self._object(tool, pointer, schema, refs)

    def _fixed(self, tool: str, pointer: str, value: Any) -> str:
        """One fixed value (an enum's, a const, a key) as the texts that build it."""
        texts: list[str] = []
        if isinstance(value, str):
            for quote, fits, _ in self.quotes:
                if fits(value) and self.string_text(quote, value) == value:
                    texts.append(quote + value + quote)
        elif value is None or isinstance(value, bool):
            found = self.scalars.get(json.dumps(value))
            texts += [found] if found is not None else []
        elif isinstance(value, (int, float)) and self.number is not None:
            text = json.dumps(value)
            if regex.fits(self.number.regexp, text) and json.loads(
                    self.scalar_json(self.number.name, text)) == value:
                texts.append(text)
        if not texts:
            raise self.fail(tool, pointer, f"the value {value!r} is not written as a "
                                           "Python literal of this grammar")
        return "(" + " | ".join(json.dumps(t, ensure_ascii=True) for t in texts) + ")"

    def _array(self, tool: str, pointer: str, schema: dict[str, Any],
               refs: tuple[str, ...]) -> str:
        sep, opener, closer = self.list_frame
        items = schema.get("items")
        if not isinstance(items, dict):
            raise self.fail(tool, pointer, "an array without one `items` schema")
        low, high = schema.get("minItems", 0), schema.get("maxItems")
        if not isinstance(low, int) or not (high is None or isinstance(high, int)) \
                or low > _MAX_REPEAT or (high is not None and high - low > _MAX_REPEAT) \
                or (high is not None and high < low):
            raise self.fail(tool, pointer, "`minItems`/`maxItems` the export does not write")
        gap, joint = self._gap(), self._joint(sep)
        if high == 0:
            inner = ""
        else:
            item = self.value(tool, f"{pointer}/items", items, refs)
            parts = [item] + [f"({joint}{item})"] * (max(low, 1) - 1)
            if high is None:
                parts.append(f"({joint}{item})*")
            elif high > max(low, 1):
                tail = f"({joint}{item})?"
                for _ in range(high - max(low, 1) - 1):
                    tail = f"({joint}{item} {tail})?"
                parts.append(tail)
            seq = " ".join(parts)
            inner = f"({seq} {gap})" + ("" if low else "?")
        return f"{_lit(opener)} {gap}{inner} {_lit(closer)}"

    def _object(self, tool: str, pointer: str, schema: dict[str, Any],
                refs: tuple[str, ...]) -> str:
        sep, opener, closer = self.dict_frame
        if isinstance(schema.get("additionalProperties"), dict):
            raise self.fail(tool, pointer, "`additionalProperties` with a schema: its keys "
                                           "are not known to write")
        properties = schema.get("properties", {})
        required = schema.get("required", [])
        self._check_required(tool, pointer, properties, required)
        gap = self._gap()
        members = []
        for key, sub in properties.items():
            where = f"{pointer}/properties/{_escaped(key)}"
            pair = f"{self._key(tool, where, key)}{_lit(self.colon)} {gap}" \
                + self.value(tool, where, sub, refs)
            members.append((self._rule(pair), key in required))
        seq = self._sequence(members, sep)
        inner = "" if not seq else f"({seq} {gap})" + (
            "" if any(r for _, r in members) else "?")
        return f"{_lit(opener)} {gap}{inner} {_lit(closer)}"

    def _key(self, tool: str, pointer: str, key: str) -> str:
        """A member's key and the gap before the separator after it: bare where a key
        terminal reads it (Gemma's `GEMMA_KEY`, whose lookahead for the separator then
        takes no gap), else as a string."""
        for term in self.key_terms:
            split = regex.lookahead_tail(term.regexp, term.flags)
            head = split[0] if split else term.regexp
            if regex.fits(head, key) and (split is None or re.match(split[1], self.colon)):
                return f"{_lit(key)} " + ("" if split else self._gap())
        return f"{self._fixed(tool, pointer, key)} {self._gap()}"

    def _sequence(self, members: list[tuple[str, bool]], sep: str) -> str:
        """Members in order, the required ones present, others at most once, `sep`
        between two: by the first one written. "" for none (the caller makes an all
        optional sequence optional)."""
        joint = self._joint(sep)
        alternatives = []
        for i, (member, needed) in enumerate(members):
            rest = [f"({joint}{m})" + ("" if r else "?") for m, r in members[i + 1:]]
            alternatives.append(" ".join([member, *rest]))
            if needed:
                break
        return "(" + " | ".join(alternatives) + ")" if alternatives else ""

    def _check_required(self, tool: str, pointer: str, properties: Any,
                        required: Any) -> None:
        if not isinstance(properties, dict) or not isinstance(required, list):
            raise self.fail(tool, pointer, "`properties` is not an object or `required` "
                                           "not a list")
        missing = [k for k in required if k not in properties]
        if missing:
            raise self.fail(tool, pointer, f"the required key {missing[0]!r} has no "
                                           "property schema")

    def _gap(self) -> str:
        return f"{self.w.ws} " if self.w.ws else ""

    def _joint(self, sep: str) -> str:
        gap = self._gap()
        return f"{gap}{_lit(sep)} {gap}"

    def _rule(self, body: str) -> str:
        name = f"lit_{len(self.w.out)}"
        self.w.out[name] = f"{name}: {body}"
        return name


def _lit(text: str) -> str:
    return json.dumps(text, ensure_ascii=True)


def _escaped(key: str) -> str:
    return key.replace("~", "~0").replace("/", "~1")


def _ends(pattern: str, head: str, follower: str) -> bool:
    """Whether `pattern` reads `head` and stops there when `follower` comes next."""
    found = re.match(pattern, head + follower)
    return found is not None and found.end() == len(head)


def _fitting(body: str, words: frozenset[str]) -> Callable[[str], bool]:
    """Whether a text is written as it is by a string's `body`, holding none of `words`."""
    def fits(text: str) -> bool:
        return regex.fits(body, text) and not any(w in text for w in words)
    return fits
