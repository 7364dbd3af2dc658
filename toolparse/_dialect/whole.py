"""Calls read whole: a `json_call` taken in one scan of Python's JSON decoder.

A dialect whose calls are JSON objects (Granite's `[{"name": ..., "arguments": ...}]`,
Cohere's, Nemotron's: SPEC 5.3 e) reads each one through `common/json.lark`, token by
token, about one LALR step every five characters. Where the grammar says a `json_call`
begins, the capture may instead hand the value's text to the C scanner of `json` (the
standard library), and, when it finds one complete value there, give the rule's builder
the value's text and push the state the table goes to after the rule (`Whole`). Nothing
else changes: the builder (`json_calls.json_call`) only reads the value's text and its
first and last tokens, which the capture makes the same way.

It is an engine feature the grammar declares by what it is, never a second syntax:

- The rules and terminals under `json_call` are those of `common/json.lark` as bundled
  (`stock`, compared with the loader's compile of that file), so the text the decoder
  takes whole is text the grammar takes. The two agree on every text where the decoder
  finds a value: RFC 8259, no `NaN` or `Infinity` (refused: `parse_constant`). What
  the grammar alone takes (a raw control character in a string, a number too long for
  `int`, nesting deeper than the decoder goes) the decoder refuses, and the capture
  reads it token by token as before: a refusal only ever sends it back to the tokens.
- The table reduces `json_call` as soon as its last token is shifted (every state that
  reduces it reduces nothing else: a default reduction), from the state the first token
  was shifted in (`_probe`), so the stack after the value is the same either way.
- No %ignore'd terminal can take a character inside a value from the JSON terminals
  (`_ignored_apart`), and the last token needs no second look at the end of the text.

tests/test_whole.py compares the events, feed by feed, with the same grammars read
token by token, over the corpus and generated values in every chunking.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Final, NamedTuple

from toolparse._dialect.records import GrammarRecord, RuleRecord, TerminalRecord
from toolparse._dialect.table import REDUCE, SHIFT, Table, reduce_above

if TYPE_CHECKING:
    from toolparse._dialect.grammar import Grammar

__all__ = ["INCOMPLETE", "INVALID", "Trying", "Whole", "read_whole", "whole_plans"]

CALL_RULE: Final = "json_call"
INCOMPLETE: Final = -1
"""`read_whole`: the text so far is the start of a value that may still complete."""
INVALID: Final = -2
"""`read_whole`: no value the decoder takes (the tokens decide what it is)."""
WHOLE_TRIES: Final = 8
"""How many times a capture tries one value whole before reading it token by token:
each try scans the value so far again, so the bound keeps a value's cost linear."""

WORK_FACTOR: Final = 8
WORK_SLACK: Final = 1 << 16
"""A value's tries are handed at most `WORK_FACTOR` times its length so far, and
`WORK_SLACK` characters: where nothing keeps its chunks (a block whose tag may be in
code), each chunk hands over the whole value so far, and a long one is then read by its
tokens, in linear time."""

_NAMESPACE: Final = "common__json__"
"""The namespace Lark gives what `%import common.json` brings in without naming it."""
_OPEN_CLOSE: Final = {"{": "}", "[": "]"}
_JSON_SPACE: Final = frozenset(" \t\n\r")


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")   # (NaN, Infinity: the grammar refuses them)


_SCAN: Final = json.scanner.make_scanner(  # type: ignore[attr-defined]
    json.JSONDecoder(parse_constant=_refuse_constant, strict=True))


def read_whole(text: str, pos: int, stop: int) -> int:
    """Where the JSON value that begins at text[pos] ends, when it ends by `stop`;
    else INCOMPLETE (the text is a value's start, up to its end) or INVALID."""
    try:
        end = _SCAN(text, pos)[1]
    except json.JSONDecodeError as e:
        # At the end of the text, or a string still open: more may complete it.
        if e.pos >= len(text) or e.msg.startswith("Unterminated string"):
            return INCOMPLETE
        return INVALID
    except StopIteration as e:   # (no value where one must begin: at its index)
        return INCOMPLETE if e.value >= len(text) else INVALID
    except (ValueError, RecursionError):
        return INVALID
    return end if end <= stop else INCOMPLETE


_SIGNIFICANT: Final = re.compile(r'["\\\[\]{}]')
_ESCAPED: Final = re.compile(r'["\\/bfnrt]|u[0-9a-fA-F]{4}')
_STRUCTURE: Final = frozenset('"\\[]{}')
"""The characters `Depth` reads (`_SIGNIFICANT`)."""
_ESCAPE_START: Final = re.compile(r'(?:u[0-9a-fA-F]{0,3})?')
"""What an escape may be cut to at the end of the text (nothing, or `\\u` and digits)."""
CLOSED: Final = 1
"""`Depth.advance`: the value's brackets balance at `Depth.at` (it may end there)."""
BROKEN: Final = 2
"""`Depth.advance`: the text is no JSON value's start (a bad escape, a close too many)."""


class Depth:
    """How deep in brackets a JSON text is, read a piece at a time: where a value that
    begins with its first bracket may end, without scanning it again each time. Exact
    for JSON: strings and their escapes are followed, so a bracket in a string counts
    for nothing."""

    __slots__ = ("depth", "in_string", "at")

    def __init__(self, at: int) -> None:
        self.depth = 0
        self.in_string = False
        self.at = at
        """The stream offset read up to."""

    def advance(self, text: str, base: int, stop: int) -> int:
        """Read text up to `stop` (text[0] is at stream offset `base`) from `at`: CLOSED
        (the brackets balance just before `at`), BROKEN, or 0 (read to the end; an
        escape cut off by it waits)."""
        pos = self.at - base
        depth, in_string = self.depth, self.in_string
        search = _SIGNIFICANT.search
        outcome = 0
        while (m := search(text, pos, stop)) is not None:
            char, pos = m.group(), m.end()
            if in_string:
                if char == '"':
                    in_string = False
                elif char == "\\":
                    escaped = _ESCAPED.match(text, pos, stop)
                    if escaped is not None:
                        pos = escaped.end()
                    elif _ESCAPE_START.fullmatch(text, pos, stop) is not None:
                        pos -= 1   # (its escape is still arriving: read it again)
                        break
                    else:
                        outcome = BROKEN
                        break
            elif char == '"':
                in_string = True
            elif char in "[{":
                depth += 1
            elif char == "\\" or depth == 0:
                outcome = BROKEN
                break
            else:
                depth -= 1
                if depth == 0:
                    outcome = CLOSED
                    break
        else:
            pos = stop
        self.depth, self.in_string, self.at = depth, in_string, base + pos
        return outcome


class Trying:
    """One `json_call` tried whole while its text arrives: its brackets followed
    (`Depth`), how far the text is known to be a value's valid start, and what the tries
    cost so far."""

    __slots__ = ("at", "ends", "calm", "depth", "valid_to", "checked_to", "scans", "work",
                 "pending")

    def __init__(self, at: int, ends: frozenset[str] | None) -> None:
        self.at = at
        """The stream offset of the value's first character."""
        self.ends = ends
        """The characters a tag that ends a broken block's span begins with (None: any)."""
        self.calm = None if ends is None else ends | _STRUCTURE
        """Those and the characters `Depth` reads: a chunk with none of them needs no
        reading (`follows`)."""
        self.depth = Depth(at)
        self.valid_to = at
        """The text before this stream offset is a value's valid start (the decoder
        said so), and none of `ends` stands between it and `checked_to`."""
        self.checked_to = at
        self.scans = 0
        """How many times the decoder read the value (at most `WHOLE_TRIES`)."""
        self.work = 0
        """How many characters the tries were handed (at most `WORK_FACTOR` times the
        value's length so far, and `WORK_SLACK`)."""
        self.pending = ""
        """The text read since `depth.at` (an escape cut off), for `follows`."""

    def read(self, text: str, pos: int, base: int, stop: int, hard: bool, quiet: bool
             ) -> int:
        """`read_whole` of the value at text[pos] (at stream offset `at`), when it
        may tell something: its end, INVALID, or INCOMPLETE. `quiet` (the text was kept:
        its block's tag is outside code for certain, no output is held): the decoder
        reads it again only where its brackets balance, or where the text since it last
        read holds a character a tag that ends a broken block begins with, or at the
        end: elsewhere the value cannot have ended, and, were the text no value, the
        grammar's failure could not show yet (SPEC 3.2: a broken block's text waits for
        such a tag). Else it reads it each time (a failure may show at once: a block
        whose tag turns out to be in code goes out as text when it fails)."""
        self.work += stop - pos
        if self.work > WORK_FACTOR * (stop - pos) + WORK_SLACK:
            return INVALID   # (each try was handed the value so far: enough)
        depth = self.depth
        seen = depth.advance(text, base, stop)
        self.pending = text[depth.at - base:stop]
        if seen == BROKEN:
            return INVALID
        if seen != CLOSED and quiet and not hard and not self._ends_in(text, base, stop):
            return INCOMPLETE
        self.scans += 1
        if self.scans > WHOLE_TRIES:
            return INVALID
        end = read_whole(text, pos, stop)
        if end == INCOMPLETE:
            self.valid_to = self.checked_to = base + stop
        return end

    def _ends_in(self, text: str, base: int, stop: int) -> bool:
        """Whether the text since the decoder last read holds one of `ends`."""
        if self.ends is None:
            return True
        if not self.ends.isdisjoint(text[self.checked_to - base:stop]):
            return True
        self.checked_to = base + stop
        return False

    def follows(self, chunk: str) -> bool:
        """A chunk kept after the text read (`Keeping.quiet`): True when, with it, the
        value still cannot have ended and no tag that ends a broken block can have
        begun (the chunk is read: its brackets counted); False, and nothing read,
        when the text must be lexed (`read` then tells)."""
        calm = self.calm
        if calm is None:
            return False
        depth = self.depth
        if calm.isdisjoint(chunk) and not self.pending:
            # No bracket, quote or escape, and nothing cut off before it: the chunk
            # changes nothing but where the text ends (most chunks, in a string).
            depth.at = self.checked_to = depth.at + len(chunk)
            return True
        ends = self.ends
        if ends is not None and not ends.isdisjoint(chunk):   # (not None with `calm`)
            return False
        start, before = depth.at, (depth.depth, depth.in_string)
        text = self.pending + chunk
        if depth.advance(text, start, len(text)):
            depth.depth, depth.in_string = before
            depth.at = start
            return False
        self.pending = text[depth.at - start:]
        self.checked_to = depth.at + len(self.pending)
        return True


class Whole(NamedTuple):
    """How to take a `json_call` whole from one parser state, for one opening terminal."""

    close: str
    """The terminal of the value's last character."""
    goto: int
    """The state after the rule (the table's goto from the state it began in)."""
    builder: Any
    """The rule's builder (every alternative has the same one)."""
    open_tag: bool
    """The opening and closing terminals delimit (`Tag`s, as the tokens would be)."""
    call_start: bool
    """The opening terminal starts a call (`Capture.invoked`)."""
    ends: frozenset[str] | None
    """The characters a tag that ends a broken block's span begins with (None: any)."""


def whole_plans(grammar: Grammar, reference: GrammarRecord | None
                ) -> dict[int, dict[str, Whole]]:
    """Parser state -> {opening terminal: its `Whole`}, for every state where a
    `json_call` may begin; empty when the grammar's calls cannot be read whole."""
    table, record = grammar.table, grammar.record
    if reference is None or grammar.name_at_tag:
        return {}
    rules, terms = _under(record.rules, CALL_RULE)
    stock_rules, stock_terms = _under(reference.rules, CALL_RULE)
    if not rules or _canonical(rules) != _canonical(stock_rules):
        return {}
    if not _stock(record.terminals, terms, reference.terminals, stock_terms) or not _ignored_apart(
            grammar, terms):
        return {}
    indexes = [n for n, info in enumerate(table.rules) if info.origin == CALL_RULE]
    builders = {_builder_key(grammar.builders[n]) for n in indexes}
    if len(builders) != 1 or grammar.builders[indexes[0]] is None or not _default_reduced(
            table, frozenset(indexes)):
        return {}
    builder = grammar.builders[indexes[0]]
    plans: dict[int, dict[str, Whole]] = {}
    for state, gotos in enumerate(table.gotos):
        if CALL_RULE in gotos:
            found = _plans(grammar, state, gotos[CALL_RULE], builder, terms)
            if found:
                plans[state] = found
    return plans


def _plans(grammar: Grammar, state: int, goto: int, builder: Any, terms: frozenset[str]
           ) -> dict[str, Whole]:
    """The `Whole`s of one state: for `{` and `[`, when the table takes the value there."""
    table, delimiters = grammar.table, grammar.roles.delimiters
    literal = {t.name: t.literal for t in grammar.record.terminals if t.name in terms}
    by_char = {char: name for name, char in literal.items() if char in ("{", "}", "[", "]")}
    found: dict[str, Whole] = {}
    for opening, closing in _OPEN_CLOSE.items():
        open_term, close_term = by_char.get(opening), by_char.get(closing)
        if open_term is None or close_term is None:
            continue
        tagged = {open_term, close_term} <= delimiters
        if not tagged and terms & delimiters:
            continue   # (the builder would find its first and last tags elsewhere)
        if not _probe(table, state, _probes(open_term, close_term, literal)):
            continue
        if any(close_term in grammar.lexer(s).careful for s in range(len(table.actions))
               if close_term in table.actions[s]):
            continue
        found[open_term] = Whole(close_term, goto, builder, tagged,
                                 open_term in grammar.roles.call_starts, _span_ends(grammar))
    return found


def _span_ends(grammar: Grammar) -> frozenset[str] | None:
    """The first characters of the tags that end a broken-calls span (SPEC 3.2: block
    opens and closes, and section opens, as `Grammar.span_search` finds them)."""
    roles = grammar.roles
    found: set[str] = set()
    for name in roles.block_opens | roles.block_closes | roles.section_opens:
        starts = grammar.terminals[name].starts
        if starts is None:
            return None
        found |= starts
    return frozenset(found)


def _builder_key(builder: Any) -> Any:
    """What a builder does: its function and bound arguments (each rule gets its own
    `functools.partial`)."""
    if isinstance(builder, functools.partial):
        return (builder.func, builder.args, tuple(sorted(builder.keywords.items())))
    return builder


def _under(rules: Sequence[RuleRecord], root: str) -> tuple[frozenset[Any], frozenset[str]]:
    """The rules reachable from `root` (origin and expansion) and their terminals."""
    by_origin: dict[str, list[RuleRecord]] = {}
    for rule in rules:
        by_origin.setdefault(rule.origin, []).append(rule)
    seen, todo, found, terms = {root}, [root], set(), set()
    while todo:
        for rule in by_origin.get(todo.pop(), ()):
            found.add((rule.origin, tuple(s.name for s in rule.expansion), rule.expand1))
            for symbol in rule.expansion:
                if symbol.is_term:
                    terms.add(symbol.name)
                elif symbol.name not in seen:
                    seen.add(symbol.name)
                    todo.append(symbol.name)
    return frozenset(found), frozenset(terms)


def _canonical(rules: frozenset[Any]) -> frozenset[Any]:
    """Rules by names without the import's namespace (a grammar names what it imports
    by list, `RBRACKET`, and the rest `common__json__...`)."""
    return frozenset((_name(origin), tuple(_name(s) for s in expansion), expand1)
                     for origin, expansion, expand1 in rules)


def _name(name: str) -> str:
    return name.replace(_NAMESPACE, "")


def _stock(mine: Sequence[TerminalRecord], terms: frozenset[str],
           stock: Sequence[TerminalRecord], stock_terms: frozenset[str]) -> bool:
    """The terminals `terms` are defined as in the bundled `common/json.lark`."""
    def defined(records: Sequence[TerminalRecord], names: frozenset[str]
                ) -> dict[str, tuple[Any, ...]]:
        return {_name(t.name): (t.regexp, t.flags, t.priority) for t in records
                if t.name in names}

    found = defined(mine, terms)
    return len(found) == len(terms) and found == defined(stock, stock_terms)


def _ignored_apart(grammar: Grammar, terms: frozenset[str]) -> bool:
    """Every %ignore'd terminal begins with whitespace only and ranks below every JSON
    terminal that takes whitespace (in a string, between tokens), so that inside a
    value the JSON terminals take every character they would take alone."""
    takers = [grammar.terminals[name] for name in terms]
    lowest = min((spec.priority for spec in takers
                  if any(spec.full.match(char) for char in _JSON_SPACE)), default=None)
    for name in grammar.ignored:
        spec = grammar.terminals[name]
        if lowest is None or spec.starts is None or spec.priority >= lowest or not all(
                char.isspace() for char in spec.starts):
            return False
    return True


def _default_reduced(table: Table, rules: frozenset[int]) -> bool:
    """Every state that reduces a `json_call` rule reduces it whatever comes next."""
    for state, row in enumerate(table.actions):
        for kind, argument in row.values():
            if kind == REDUCE and argument in rules and table.defaults[state] != argument:
                return False
    return True


def _probes(open_term: str, close_term: str, literal: dict[str, str | None]
            ) -> list[list[str]]:
    """Token sequences of small values: empty, and holding one member or element."""
    by_text = {text: name for name, text in literal.items() if text is not None}
    quote, colon, true = by_text.get('"'), by_text.get(":"), by_text.get("true")
    if quote is None or colon is None or true is None:
        return []
    inner = [quote, quote, colon, true] if literal[open_term] == "{" else [true]
    return [[open_term, close_term], [open_term, *inner, close_term]]


def _probe(table: Table, state: int, sequences: list[list[str]]) -> bool:
    """Each sequence, stepped from `state`, ends with a `json_call` reduced back onto
    `state` by its last token's default reductions (and the first token is shifted)."""
    if not sequences:
        return False
    for terms in sequences:
        first = table.actions[state].get(terms[0])
        if first is None or first[0] != SHIFT:
            return False
        stack = [state]
        for term in terms:
            if not _step(table, stack, term):
                return False
        if stack != [state, table.gotos[state][CALL_RULE]]:
            return False
    return True


def _step(table: Table, stack: list[int], term: str) -> bool:
    """Shift `term` on a stack whose bottom is the probe's state, with the reductions
    before and the default ones after, stopping once a `json_call` is reduced; False
    when the table refuses it or a reduction reaches below the bottom."""
    while True:
        action = table.actions[stack[-1]].get(term)
        if action is None:
            return False
        if action[0] == SHIFT:
            stack.append(action[1])
            break
        if not reduce_above(table, stack, action[1]):
            return False
    while (rule := table.defaults[stack[-1]]) >= 0:
        if not reduce_above(table, stack, rule):
            return False
        if table.rules[rule].origin == CALL_RULE:
            return True
    return True

