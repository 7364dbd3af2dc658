"""A dialect's grammar as llguidance's Lark format, for the tools given (SPEC 12).

The rules are the grammar file's own, read from its compiled records (`records.py`),
walked from `block` with the alternatives the file marks accept-only left out
(docs/grammars.md). The walk carries a context, the tool and the parameter it is in,
and replaces what the tools decide:

- `invoke`: one alternative per tool; the terminal that holds the call's name (its
  `(?P<name>...)` group) is written with the name filled in (`regex.rewrite`), or a
  child `name` rule is the name itself;
- the list of `param`s: the tool's properties in the schema's order, the required ones
  present, each at most once, no other;
- `param`: its key filled in the same way, and its value (the loop of text pieces) the
  property's value grammar: raw text that holds none of the dialect's closing tags for a
  string, the enum's strings, or `%json` with the property's schema for other types;
- `json_body`: `%json` with the tool's schema (wrapped in the call object, its `name`
  member fixed, when the call's name is inside the body);
- a value that may hold `member`s (MiniMax-M3): members for an object or an array
  schema (`elements.py`);
- `py_arguments` and `gemma_body`: the arguments as Python's or Gemma's literals, from
  the schema (`literals.py`).

`auto` (free text, then blocks) is `prose.py`; the accept-only terminals, of the file
and of the grammars it imports, are read off Lark by `marks.py`.

Whitespace that the grammar file ignores between tags (`%ignore`) is written as an
explicit optional run there, never inside a value. Every terminal goes out as a regular
expression in the target's syntax (`regex.rewrite`); nothing here spells a tag.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from toolparse._calls.values import resolve_local_ref, schema_types
from toolparse._dialect.build import NAME_ATTRIBUTE
from toolparse._dialect.grammar import Grammar
from toolparse._dialect.lexer import MAX_ATOM
from toolparse._dialect.records import RuleRecord, Symbol, TerminalRecord
from toolparse._dialect.roles import own_name
from toolparse._dialect.syntaxes.json import ARGUMENTS_MEMBERS, NAME_MEMBER
from toolparse._dialect.syntaxes.json_calls import CallShape
from toolparse._errors import ExportError
from toolparse._export import elements, literals, marks, prose, regex
from toolparse._export.schema import closed_schema, string_schema

__all__ = ["write"]

_Context = tuple[str, ...]
"""() outside a call, (tool,) in one, (tool, key) in one of its parameters."""


class _Writer:
    """One export: the grammar, the tools, and the rules written so far."""

    def __init__(self, grammar: Grammar, tools: Mapping[str, Any],
                 banned: tuple[str, ...] = ()) -> None:
        self.grammar = grammar
        self.tools = tools
        self.banned = banned
        self.terminals = {t.name: t for t in grammar.record.terminals}
        self.rules: dict[str, list[RuleRecord]] = {}
        for rule in grammar.record.rules:
            if _generated(rule):
                self.rules.setdefault(rule.origin, []).append(rule)
        self.attribute = next((t for t in grammar.record.terminals
                               if own_name(t.name) == "ATTRIBUTE"), None)
        self.out: dict[str, str] = {}
        self.members = any(own_name(o) == "member" for o in self.rules)
        self.nested: dict[_Context, tuple[str, Any, str, tuple[str, ...]]] = {}
        """Members written as elements: their context, to the tool, schema, pointer and
        the `$ref`s followed to them."""
        self.names: dict[tuple[str, _Context], str] = {}
        self.runs = self._runs()
        unreadable = self._unreadable(self.runs)
        self.words = self._closers(unreadable) | unreadable
        self.text = _avoiding(self.words)
        # A JSON string holds no text its pieces cannot read (harmony's tokens in
        # gpt-oss's strings), its quote and backslash aside (JSON escapes them). In a
        # value whose syntax decodes entities (`&quot;` would become a quote before the
        # JSON is read) it holds no `&` either.
        reader = grammar.header.typing.value_reader(grammar.header.value_edges)
        self.json_words = self.words | self._unreadable(self._string_runs(), '"\\')
        if reader.value_text(["&amp;"])[0] != "&amp;":
            self.json_words |= {"&"}
        self.json_text = _avoiding(self.json_words)
        self.ws = self._ws()
        self._literals: dict[str, literals.Literals] = {}
        self._sole: frozenset[str] | None = None

    def literals(self, entry: str) -> literals.Literals:
        """The writer of literals for the rule `entry` (`py_arguments`, `gemma_body`),
        made on first use."""
        found = self._literals.get(entry)
        if found is None:
            found = self._literals[entry] = literals.Literals(self, entry)
        return found

    def fail(self, why: str) -> ExportError:
        return ExportError(f"dialect {self.grammar.name!r}: {why}")

    # ---- what the grammar says about values ---------------------------------------------

    def _runs(self) -> frozenset[str]:
        """The terminals a value is made of: those of the value rules (Lark's `*`
        helpers around `(TEXT | LT)`, and `value`) that a `param`, a `value` or a
        `json_body` holds."""
        holders = [r for origin, rs in self.rules.items()
                   if own_name(origin) in ("param", "value", "json_body") for r in rs]
        helpers = {s.name for r in holders for s in r.expansion
                   if not s.is_term and self._is_value(s.name)}
        return frozenset(t for h in helpers for t in self._pieces(h))

    def _pieces(self, origin: str) -> frozenset[str]:
        """The terminals of a value rule, through the inlined rules of its pieces
        (MiniMax-M3's `_value: TEXT | RB | LT | member`), not into a `member`."""
        found: set[str] = set()
        todo, seen = [origin], {origin}
        while todo:
            for r in self.rules.get(todo.pop(), []):
                for s in r.expansion:
                    if s.is_term:
                        found.add(s.name)
                    elif s.name not in seen and own_name(s.name) not in ("member", "cdata"):
                        seen.add(s.name)
                        todo.append(s.name)
        return frozenset(found)

    def _is_value(self, origin: str) -> bool:
        """A value's pieces: the `value` rule, or a `*`/`+` helper of terminals only, or
        of terminals and `member`s through an inlined rule (`_value`)."""
        if own_name(origin) == "value":
            return True
        if not origin.startswith("__"):
            return False
        symbols = [s for r in self.rules.get(origin, []) for s in r.expansion]
        return bool(symbols) and all(s.is_term or s.name == origin
                                     or own_name(s.name) == "cdata"
                                     or self._is_piece(s.name) for s in symbols)

    def _is_piece(self, origin: str) -> bool:
        """An inlined rule (`_value`) whose alternatives are one terminal or a member."""
        return own_name(origin).startswith("_") and not origin.startswith("__") and all(
            len(r.expansion) == 1 and (r.expansion[0].is_term
                                       or own_name(r.expansion[0].name) == "member")
            for r in self.rules.get(origin, [])) and origin in self.rules

    def closers_of(self, runs: frozenset[str]) -> frozenset[str]:
        """What ends a string made of `runs` (Gemma's `<|"|>`): the literal starts of
        the other terminals taken where all of its pieces can come."""
        return self._closers(frozenset(), runs)

    def _closers(self, unreadable: frozenset[str], runs: frozenset[str] | None = None
                 ) -> frozenset[str]:
        """What a value must not hold: the literal start of every terminal other than
        its own pieces that the parser takes where a value's piece can come, unless the
        terminal looks ahead for a text that holds one of the `unreadable` words (DeepSeek
        V3's fence ends the arguments only before `<｜tool▁call▁end｜>`, and no value holds
        `<｜tool▁`: a fence inside a JSON string ends nothing)."""
        actions = self.grammar.table.actions
        names: set[str] = set()
        for row in actions:
            if (self.runs & row.keys()) if runs is None else (runs and runs <= row.keys()):
                names |= {n for n in row if n in self.terminals} - (runs or self.runs)
        names -= self.grammar.ignored
        words: set[str] = set()
        for name in sorted(names):
            term = self.terminals[name]
            split = regex.lookahead_tail(term.regexp, term.flags)
            ahead = regex.literal_heads(regex.unpadded(split[1])) if split else frozenset()
            if ahead and "" not in ahead and all(any(w in h for w in unreadable)
                                                 for h in ahead):
                continue
            words |= self.heads(term, "can end a value")
        return frozenset(words)

    def _string_runs(self) -> frozenset[str]:
        """The terminals a JSON string read structurally is made of (`json_string`)."""
        return frozenset(s.name for origin, rules in self.rules.items()
                         if own_name(origin) == "json_string" for r in rules
                         for h in r.expansion if not h.is_term and self._is_value(h.name)
                         for rr in self.rules.get(h.name, []) for s in rr.expansion
                         if s.is_term)

    def _unreadable(self, runs: frozenset[str], escaped: str = "") -> frozenset[str]:
        """The shortest texts that a value made of `runs` cannot hold whatever follows
        (DeepSeek V3.1's `<｜tool▁`, which its `LT` refuses): found among the places the
        runs' patterns may stop matching (`regex.probes`), tested with the patterns
        themselves. Texts that start with an `escaped` character are the encoding's."""
        terms = [self.terminals[n] for n in sorted(runs)]
        star = re.compile("(?:" + "|".join(
            f"(?{''.join(t.flags)}:{t.regexp})" if t.flags else f"(?:{t.regexp})"
            for t in terms) + ")*", re.S)
        found = {p for t in terms for p in regex.probes(t.regexp, t.flags)
                 if p and p[0] not in escaped
                 and all(star.fullmatch(p + c) is None for c in _CONTINUATIONS)}
        return frozenset(p for p in found if not any(o != p and o in p for o in found))

    def heads(self, term: TerminalRecord, role: str) -> frozenset[str]:
        """The fixed texts a terminal starts with (its accept-only spellings aside)."""
        found = frozenset({term.literal}) if term.literal is not None and not term.flags \
            else regex.literal_heads(term.regexp, term.flags, self.banned)
        if not found or "" in found:
            raise self.fail(f"the terminal {term.name} {role} but does not start with a "
                            "fixed text to keep out of values")
        return found

    def _ws(self) -> str:
        """The whitespace the grammar ignores between tags, as an optional rule."""
        found = [self.terminals[n] for n in sorted(self.grammar.ignored)]
        if not found:
            return ""
        pattern = "|".join(self.pattern(t, {}) for t in found)
        self.out["ws"] = f"ws: /(?:{pattern})*/"
        return "ws"

    # ---- rules --------------------------------------------------------------------------

    def rule(self, origin: str, ctx: _Context) -> str:
        key = (origin, ctx)
        found = self.names.get(key)
        if found is not None:
            return found
        name = self.names[key] = _rule_name(origin, len(self.names))
        if own_name(origin) == "invoke" and not ctx:
            body = " | ".join(self.rule(origin, (tool,)) for tool in self.tools)
            if not body:
                raise self.fail("no tools to export")
        elif own_name(origin) == "json_body":
            body = self.json_body(ctx)
        elif own_name(origin) in literals.NOTATIONS and len(ctx) == 1:
            body = self.literals(own_name(origin)).call(ctx[0])
        elif own_name(origin) == "json_call" and len(ctx) == 1:
            body = self.json_call(ctx[0])
        elif own_name(origin) == "name" and len(ctx) == 1:
            body = self.call_name(origin, ctx[0])
        elif len(ctx) == 2 and self._is_value(origin):
            body = self.value(ctx)
        else:
            body = " | ".join(self.alternative(r, ctx) for r in self.alternatives(origin, ctx))
        self.out[name] = f"{name}: {body or chr(34) * 2}"
        return name

    def alternatives(self, origin: str, ctx: _Context) -> list[RuleRecord]:
        found = self.rules.get(origin)
        if not found:
            raise self.fail(f"the rule {origin!r} has no alternative to generate")
        # An alternative that holds a terminal the target cannot write (a lookaround in
        # Step-3's optional head name) is left out when the rule has others; and a block
        # that holds no call (an empty array of calls) is never written.
        writable = [r for r in found if all(self.writable(s) for s in r.expansion)]
        found = writable or found
        if not ctx and (own_name(origin) == "block" or origin in self.sole_holders()):
            found = [r for r in found if self.calls_in(r.expansion)] or found
        if len(ctx) == 2:  # a param: the alternatives with a value, when it has some
            with_value = [r for r in found if any(
                not s.is_term and self._is_value(s.name) for s in r.expansion)]
            return with_value or found
        if len(ctx) == 1:  # a call: the alternatives with the list of params or a body
            with_params = [r for r in found if any(
                not s.is_term and (self._holds_params(s.name)
                                   or own_name(s.name) == "json_body") for s in r.expansion)]
            return with_params or found
        return found

    def writable(self, symbol: Symbol) -> bool:
        """Whether a terminal can be written without writing more than the file reads."""
        if not symbol.is_term:
            return True
        term = self.terminals[symbol.name]
        try:
            regex.rewrite(term.regexp, term.flags, fill={"name": "x"}, banned=self.banned)
        except regex.Unsupported:
            return False
        return True

    def sole_holders(self) -> frozenset[str]:
        """The rules a block's calls must come from: in a block's alternative, the one
        rule that holds calls where nothing else does (Llama 4's `_list_end`, whose
        alternatives without a call write a block of none), and so on inwards."""
        if self._sole is None:
            found: set[str] = set()
            todo = [r for o, rs in self.rules.items() if own_name(o) == "block" for r in rs]
            while todo:
                holders = [s for s in todo.pop().expansion
                           if not s.is_term and self.calls_in((s,))]
                only = holders[0].name if len(holders) == 1 else None
                if only is not None and only not in found \
                        and own_name(only) != "invoke" and not only.startswith("__"):
                    found.add(only)
                    todo += [r for r in self.rules.get(only, []) if self.calls_in(r.expansion)]
            self._sole = frozenset(found)
        return self._sole

    def calls_in(self, symbols: tuple[Symbol, ...], seen: frozenset[str] = frozenset()
                 ) -> bool:
        """Whether a sequence holds a call (an `invoke`), through the rules it names."""
        for s in symbols:
            if s.is_term or s.name in seen:
                continue
            if own_name(s.name) == "invoke" or any(
                    self.calls_in(r.expansion, seen | {s.name})
                    for r in self.rules.get(s.name, [])):
                return True
        return False

    def _holds_params(self, origin: str) -> bool:
        return any(s.name == "param" for r in self.rules.get(origin, []) for s in r.expansion)

    def alternative(self, rule: RuleRecord, ctx: _Context) -> str:
        """One alternative, whitespace between its tags. A raw-text value and the tag
        after it are one lexeme: llguidance ends a lexeme where the next byte cannot
        continue it and never goes back, so a value that may end in the start of its
        own closing tag must carry the tag with it."""
        parts: list[str] = []
        previous_value, glued = True, False
        symbols = list(rule.expansion)
        i = 0
        while i < len(symbols):
            symbol = symbols[i]
            is_value = not symbol.is_term and len(ctx) == 2 and self._is_value(symbol.name)
            if parts and self.ws and not is_value and not previous_value and not glued:
                parts.append(self.ws)
            glued = False
            raw = self.raw_value(ctx) if is_value else None
            if raw is not None and i + 1 < len(symbols) and symbols[i + 1].is_term:
                closer = self.terminal(self.terminals[symbols[i + 1].name], ctx)[1:-1]
                parts.append(f"/{raw}(?:{closer})/")
                i += 1
                is_value = False
            elif symbol.is_term:
                opening = i == 0 and own_name(rule.origin) in ("invoke", "param", "member")
                term, glued = self.settled(self.terminals[symbol.name],
                                           symbols[i + 1] if i + 1 < len(symbols) else None)
                parts.append(self.terminal(term, ctx, opening))
            else:
                parts.append(self.symbol(symbol, ctx))
            previous_value = is_value
            i += 1
        return " ".join(p for p in parts if p) or '""'

    def symbol(self, symbol: Symbol, ctx: _Context) -> str:
        if symbol.is_term:
            return self.terminal(self.terminals[symbol.name], ctx)
        if len(ctx) == 1 and self._holds_params(symbol.name):
            return self.params(ctx[0])
        return self.rule(symbol.name, ctx)

    def settled(self, term: TerminalRecord, following: Symbol | None
                ) -> tuple[TerminalRecord, bool]:
        """A terminal that ends in a lookahead which what is written after it always
        satisfies (DeepSeek V3's fence, looking for the call's end tag that follows it;
        Gemma 4's call tag, looking for the `{` its arguments start with): the terminal
        without the lookahead, and whether nothing may stand between the two (the
        lookahead takes no whitespace). Any other terminal as it is."""
        split = regex.lookahead_tail(term.regexp, term.flags)
        firsts = self.firsts(following) if split is not None and following else None
        if split is None or not firsts:
            return term, False
        heads = [h for t in sorted(firsts) for h in self.heads(self.terminals[t],
                                                                "follows a lookahead")]
        for gaps in (("", " ", "\n", "\t\r\n ") if self.ws else ("",), ("",)):
            if all(re.match(split[1], gap + head) for gap in gaps for head in heads):
                return term._replace(regexp=split[0], flags=()), gaps == ("",)
        return term, False

    def firsts(self, symbol: Symbol, seen: frozenset[str] = frozenset()
               ) -> frozenset[str] | None:
        """The terminals `symbol` can start with; None where a rule may be empty."""
        if symbol.is_term:
            return frozenset({symbol.name})
        found: set[str] = set()
        for rule in self.rules.get(symbol.name, []):
            if not rule.expansion or rule.expansion[0].name in seen:
                return None
            inner = self.firsts(rule.expansion[0], seen | {symbol.name})
            if inner is None:
                return None
            found |= inner
        return frozenset(found) or None

    def terminal(self, term: TerminalRecord, ctx: _Context, opening: bool = False) -> str:
        named = "(?P<name>" in term.regexp
        if named and not ctx:
            raise self.fail(f"the terminal {term.name} holds a name outside a call")
        fill: dict[str | int, str] = {"name": ctx[-1]} if named else {}
        if opening and not named and self.attribute is not None \
                and self.attribute.regexp in term.regexp:
            # A tag of attributes (`<invoke name="...">`): the one attribute, the name
            # (group 1 of the ATTRIBUTE terminal) fixed, its value (any later group)
            # the call's name or the argument's key.
            groups = re.compile(self.attribute.regexp).groups
            fill = {1: NAME_ATTRIBUTE, **{k: ctx[-1] for k in range(2, groups + 1)}}
        return "/" + self.pattern(term, fill, tag=True) + "/"

    def pattern(self, term: TerminalRecord, fill: Mapping[str | int, str],
                tag: bool = False) -> str:
        """A terminal in the target's syntax. A `tag` (a token the engine reads whole:
        at most `MAX_ATOM` characters, or it does not match) has its loops bounded so
        that no match is longer (a wrapper's free attributes, the spaces in a tag)."""
        try:
            found = regex.rewrite(term.regexp, term.flags, fill=fill, banned=self.banned)
            bound = _LOOP_BOUND
            while tag and found is not None and regex.longest(regex.rewrite(
                    term.regexp, term.flags, fill=fill, banned=self.banned, bound=bound,
                    style="python") or "") > MAX_ATOM:
                bound //= 2
            if tag and found is not None:
                found = regex.rewrite(term.regexp, term.flags, fill=fill,
                                      banned=self.banned, bound=bound)
        except regex.Unsupported as error:
            raise self.fail(f"the terminal {term.name} holds {error}, which the target "
                            "cannot write without writing more than the grammar reads") \
                from None
        if found is None:
            raise self.fail(f"the name {next(iter(fill.values()))!r} does not fit the "
                            f"terminal {term.name}")
        return found

    # ---- what the tools decide ----------------------------------------------------------

    def call_name(self, origin: str, tool: str) -> str:
        """A child `name` rule: the tool's name, which its terminal must read."""
        terms = [self.terminals[s.name] for r in self.rules[origin] for s in r.expansion
                 if s.is_term]
        loose = [regex.rewrite(t.regexp, t.flags, direction=regex.SUPER, style="python")
                 for t in terms]
        if not any(p is not None and re.fullmatch(p, tool) for p in loose):
            raise self.fail(f"the name {tool!r} does not fit the rule {origin!r}")
        return _literal(tool)

    def params(self, tool: str) -> str:
        """The tool's parameters in the schema's order: required ones once, others at
        most once, no other key."""
        schema = resolve_local_ref(self.tools[tool], self.tools[tool])
        properties = schema.get("properties", {}) if isinstance(schema, dict) else {}
        required = set(schema.get("required", [])) if isinstance(schema, dict) else set()
        parts = []
        for key in properties:
            name = self.rule("param", (tool, key))
            parts.append(name if key in required else f"{name}?")
        if not parts:
            return ""
        glue = f" {self.ws} " if self.ws else " "
        return "(" + glue.join(parts) + ")"

    def where(self, ctx: _Context) -> tuple[str, str]:
        """The tool and the JSON pointer of a parameter's or a member's schema."""
        found = self.nested.get(ctx)
        if found is not None:
            return found[0], found[2]
        return ctx[0], "/properties/" + ctx[1].replace("~", "~0").replace("/", "~1")

    def _value_parts(self, ctx: _Context) -> tuple[Any, str, str, Any, Any]:
        found = self.nested.get(ctx)
        if found is not None:  # a member written as an element (MiniMax-M3)
            root = self.tools[found[0]]
            schema = resolve_local_ref(found[1], root)
        else:
            tool, key = ctx
            root = self.tools[tool]
            schema = resolve_local_ref(resolve_local_ref(root, root).get("properties", {})
                                       .get(key, {}), root)
        reader = self.grammar.header.typing.value_reader(self.grammar.header.value_edges)
        before, after = _edges(reader)
        return reader, before, after, schema, schema_types(schema, root)

    def raw_value(self, ctx: _Context) -> str | None:
        """A string parameter of any text, as the pattern of its value with the edges
        around it; None for one that is not (an enum, a JSON value)."""
        reader, before, after, schema, types = self._value_parts(ctx)
        if types is not None and "string" not in types or string_schema(schema) != ():
            return None
        edge = _edge_pattern(reader, before), _edge_pattern(reader, after)
        return f"{edge[0]}(?:{self.text[1:-1]}){edge[1]}"

    def value(self, ctx: _Context) -> str:
        tool, pointer = self.where(ctx)
        reader, before, after, schema, types = self._value_parts(ctx)
        if self.members:
            found = elements.value(self, ctx, schema, types)
            if found is not None:
                return found
        if types is None or "string" in types:
            strings = string_schema(schema)
            if strings is None:
                raise ExportError(f"tool {tool!r}, schema {pointer}: a string "
                                  "parameter written as raw text takes no constraint "
                                  "but `enum` or `const`")
            if not strings:
                raw = self.raw_value(ctx)
                return f"/{raw}/"
            fixed = [s for s in strings if self._raw_fits(reader, before, after, s)]
            if len(fixed) < len(strings):
                raise ExportError(f"tool {tool!r}, schema {pointer}: an enum "
                                  "value that the dialect cannot write as it is")
            inner = " | ".join(_literal(s) for s in fixed)
        else:
            closed = closed_schema(schema, tool, self.json_words, self.json_text)
            inner = "%json " + json.dumps(closed, ensure_ascii=True)
        edges = [f"/{_edge_pattern(reader, e)}/" if e else "" for e in (before, after)]
        return " ".join(p for p in (edges[0], f"({inner})", edges[1]) if p)

    def _raw_fits(self, reader: Any, before: str, after: str, text: str) -> bool:
        return not any(w in text for w in self.words) and \
            reader.value_text([before + text + after])[0] == text and \
            reader.value_text([text])[0] == text

    def json_body(self, ctx: _Context) -> str:
        if len(ctx) != 1:
            raise self.fail("a JSON body outside a call")
        tool = ctx[0]
        schema = self.tools[tool]
        if not self.name_in_tag():
            schema = _call_object(tool, schema)
        closed = closed_schema(schema, tool, self.json_words, self.json_text)
        return "%json " + json.dumps(closed, ensure_ascii=True)

    def json_call(self, tool: str) -> str:
        """A call written as one JSON value (SPEC 5.3 e): the object the header's shape
        declares, with the tool's name and its arguments' schema."""
        closed = closed_schema(_shaped_call(tool, self.tools[tool], self.call_shape(tool)),
                               tool, self.json_words, self.json_text)
        return "%json " + json.dumps(closed, ensure_ascii=True)

    def call_shape(self, tool: str) -> CallShape:
        """The header's shape, as the call's opener lets it start: where the opener looks
        ahead for the first member (Llama 3's `{` opens a call only before `"name"`, an
        arguments member or `"type": "function"`), the call is written name first, with
        the name members the lookahead takes, and without the ignored members (which
        could open it only with the values the lookahead fixes)."""
        shape = self.grammar.header.call_shape
        ahead = self._call_lookaheads()
        if not ahead:
            return shape
        firsts = (tool,) if shape.keyed else shape.names
        names = tuple(n for n in firsts if all(
            re.match(tail, gap + json.dumps(n) + gap + ":")
            for tail in ahead for gap in _JSON_GAPS))
        if not names:
            raise self.fail("the call's opener looks ahead for a first member that is "
                            "no name member")
        return shape if shape.keyed else shape._replace(names=names, ignored=())

    def _call_lookaheads(self) -> list[str]:
        """The lookaheads (Python syntax) that the terminals opening a `json_call` end in."""
        found = []
        for origin, rules in self.rules.items():
            if own_name(origin) != "json_call":
                continue
            for rule in rules:
                head = rule.expansion[0] if rule.expansion else None
                if head is not None and head.is_term:
                    term = self.terminals[head.name]
                    split = regex.lookahead_tail(term.regexp, term.flags)
                    found += [split[1]] if split else []
        return found

    def name_in_tag(self) -> bool:
        """Whether the call's name is written by the tag, a `name` rule or the JSON value
        of a `json_call` (else it is inside a JSON body: Hermes)."""
        return self.attribute is not None or any(
            s.is_term and "(?P<name>" in self.terminals[s.name].regexp
            or own_name(s.name) in ("name", "json_call")
            for origin, rules in self.rules.items() if own_name(origin) == "invoke"
            for r in rules for s in r.expansion)


_LOOP_BOUND = 256
"""The most turns a loop of a tag takes, halved until the tag fits `MAX_ATOM`."""
_JSON_GAPS = ("", " ", "\n", "\t\r\n ")
"""Whitespace that a `%json` value may write between its tokens (JSON's own)."""
_CONTINUATIONS = ("", "a", "0", " ", "\n", "<", ">", "|", '"', "`", "}")
"""What may follow a text in a value, to tell a text the value's pieces cannot read
whatever comes next from one they read once the value goes on."""


def _avoiding(words: frozenset[str]) -> str:
    return regex.avoiding(words) if words else "^(?s:.*)$"


def _generated(rule: RuleRecord) -> bool:
    """Whether a generator writes this alternative (docs/grammars.md, accept-only)."""
    own = own_name(rule.origin)
    return own != "orphan_block" and not own.startswith("lenient_") and not (
        rule.alias or "").startswith("lenient_")


def _rule_name(origin: str, index: int) -> str:
    base = re.sub(r"[^a-z0-9_]", "_", own_name(origin).lower()).strip("_") or "r"
    return f"{base}_{index}"


def _literal(text: str) -> str:
    return json.dumps(text, ensure_ascii=True)


def _edges(reader: Any) -> tuple[str, str]:
    """What the writer puts around a raw value: the newline on each side that the
    `newline` value edges remove (the templates write them), else nothing (values read
    as written, or trimmed of any whitespace)."""
    probe = "a b"
    if reader.value_text(["\n" + probe + "\n"])[0] == probe and \
            reader.value_text(["\n " + probe + " \n"])[0] != probe:
        return "\n", "\n"
    return "", ""


def _edge_pattern(reader: Any, edge: str) -> str:
    """An edge newline as a pattern: CR LF too, where the value syntax removes that, and
    optional, as the value syntax reads it (Qwen3-Coder's template writes the newlines,
    Seed-OSS's does not)."""
    if edge == "\n" and reader.value_text(["\r\na b\r\n"])[0] == "a b":
        return "(?:\\r?\\n)?"
    return "".join(f"(?:{regex.char(c)})?" for c in edge)


def _call_object(tool: str, schema: Any) -> dict[str, Any]:
    """The schema of a whole call written as one JSON object (Hermes, InternLM): the name
    and any one of the members the json value syntax reads the arguments from (Hermes's
    template writes `arguments`, InternLM's `parameters`)."""
    schema = dict(schema)
    defs = {k: schema.pop(k) for k in ("$defs", "definitions") if k in schema}
    return {**defs, "anyOf": [
        {"type": "object", "properties": {NAME_MEMBER: {"const": tool}, member: schema},
         "required": [NAME_MEMBER, member], "additionalProperties": False}
        for member in ARGUMENTS_MEMBERS]}


def _shaped_call(tool: str, schema: Any, shape: CallShape) -> dict[str, Any]:
    """The schema of a call written as the JSON object `shape` declares: the name as the
    single key (`call_name=*`), or any one of the name members fixed to the tool and any
    one of the arguments members holding its schema, after the optional members the
    call may also write (Cohere's `tool_call_id`, as a string)."""
    schema = dict(schema)
    defs = {k: schema.pop(k) for k in ("$defs", "definitions") if k in schema}
    if shape.keyed:
        return {"type": "object", **defs, "properties": {tool: schema}, "required": [tool],
                "additionalProperties": False}
    shapes = []
    for name in shape.names:
        for member in shape.arguments:
            properties: dict[str, Any] = {key: {"type": "string"} for key in shape.ignored}
            properties.update({name: {"const": tool}, member: schema})
            shapes.append({"type": "object", "properties": properties,
                           "required": [name, member], "additionalProperties": False})
    return {**defs, "anyOf": shapes}


def write(grammar: Grammar, tools: Mapping[str, Any], mode: str) -> str:
    """The llguidance Lark text for `grammar` and `tools` ({name: parameters schema})."""
    writer = _Writer(grammar, tools, marks.banned(grammar))
    if not writer.name_in_tag() and "json_body" not in {own_name(o) for o in writer.rules}:
        raise ExportError(f"dialect {grammar.name!r}: the call's name is a tag attribute; "
                          "writing one attribute into a tag of attributes is not yet "
                          "exported")
    block = writer.rule("block", ())
    if mode == "required":
        start = f"start: {block}"
    else:
        start = f"start: {prose.after_prose(writer, block)}"
    rules = [start, *writer.out.values()]
    return "\n".join(rules) + "\n"
