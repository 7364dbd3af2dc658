"""What the terminals and rules do in a block, read from the grammar (never spelled here).

The engine needs a few facts beyond "does it parse" (SPEC 3.2, 5.1): which tokens start
a call (a call tag was accepted: a failed block is then *broken calls*, not a prose
mention), which open and close a block (a broken span ends at the next block close, or
before the next block open), which open and close a verbatim section (a block close
inside CDATA ends nothing), which tokens delimit a rule (their offsets matter), and
where a call's name comes from. Each is read from the rules the engine knows by name:

    call_starts      first terminals of `invoke`; where a call's first tag is also the
                     block's opening tag (GLM's and Hermes's `<tool_call>`), the
                     terminals that can follow it in `invoke` instead: a call has
                     started once the model wrote more than the tag a prose mention
                     has too (SPEC 3.2)
    block_opens      first terminals of `block`, and of the message rules (a header
                     opens a message: SPEC 11)
    block_closes     last terminals of `block`, and those of `orphan_block` that do not
                     also close a call: a broken block's span must not end at the close
                     of a call inside it (a bare Qwen `</function>`), or the calls
                     after it would run; never a terminal of a shared value grammar
                     (`grammars/common/`: a `}` ends a value, not a block's span), nor
                     one a `json_*` rule holds
    section_opens    first terminals of `cdata` and `nested_cdata`
    section_closes   last terminals of `cdata` and `nested_cdata`
    param_starts     first terminals of `param` (incremental events find an argument)
    json_starts      first terminals of `json_body`
    delimiters       first and last terminals of every rule the engine builds from

Cost: one pass over the rules at load time.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import NamedTuple

from toolparse._dialect.records import RuleRecord, Symbol

__all__ = ["BlockRoles", "MESSAGE_RULES", "block_ends", "block_roles", "lenient_openers",
           "own_name", "reachable", "reachable_children", "tokens_around"]

MESSAGE_RULES = ("reasoning_message", "content_message", "framing")
"""Start rules of a dialect whose markup frames messages (SPEC 11, harmony): a header
opening a message whose text is reasoning, one whose text is content, and markup that
stands alone. Each is one terminal; the engine reads the message's text itself, to the
end marker of the reasoning format the grammar's header names."""

_SHARED = "common__"
"""The namespace `%import common.<file>` gives the terminals of a shared sub-grammar."""


class BlockRoles(NamedTuple):
    """Terminal names by the part they play in a block."""

    call_starts: frozenset[str]
    block_opens: frozenset[str]
    block_closes: frozenset[str]
    section_opens: frozenset[str]
    section_closes: frozenset[str]
    delimiters: frozenset[str]
    param_starts: frozenset[str] = frozenset()
    json_starts: frozenset[str] = frozenset()


def own_name(name: str) -> str:
    """A rule's own name, without the namespace `%import` gives it (`deepseek__block`)."""
    return name.rsplit("__", 1)[-1] if not name.startswith("__") else name


def _by_origin(rules: Sequence[RuleRecord]) -> dict[str, list[tuple[Symbol, ...]]]:
    by_origin: dict[str, list[tuple[Symbol, ...]]] = {}
    for rule in rules:
        by_origin.setdefault(rule.origin, []).append(rule.expansion)
    return by_origin


def _each_once(todo: list[str]) -> Iterator[str]:
    """The rule origins of `todo`, each once, as the caller appends more to it (a walk
    over the rule graph)."""
    seen: set[str] = set()
    while todo:
        origin = todo.pop()
        if origin not in seen:
            seen.add(origin)
            yield origin


def _nullable(by_origin: dict[str, list[tuple[Symbol, ...]]]) -> set[str]:
    """The rules that can match nothing (`key: TEXT*`), to a fixpoint."""
    found: set[str] = set()
    changed = True
    while changed:
        changed = False
        for origin, expansions in by_origin.items():
            if origin not in found and any(
                    all(not s.is_term and s.name in found for s in expansion)
                    for expansion in expansions):
                found.add(origin)
                changed = True
    return found


class _Edges:
    """First and last terminals of rules and of symbol sequences (FIRST/LAST sets)."""

    def __init__(self, rules: Sequence[RuleRecord]) -> None:
        self.by_origin = _by_origin(rules)
        self.nullable = _nullable(self.by_origin)
        self._spans: dict[str, set[tuple[str, str]]] | None = None

    def of_sequence(self, symbols: Iterable[Symbol], last: bool) -> frozenset[str]:
        """The terminals a sequence of symbols can start (or end) with."""
        ordered = list(symbols)
        found: set[str] = set()
        for symbol in (reversed(ordered) if last else ordered):
            if symbol.is_term:
                found.add(symbol.name)
                break
            found |= self.of_rules({symbol.name}, last, exact=True)
            if symbol.name not in self.nullable:
                break
        return frozenset(found)

    def of_rules(self, names: Iterable[str], last: bool, exact: bool = False) -> frozenset[str]:
        """The terminals the rules named `names` (own names, or Lark's with `exact`) can
        start (or end) with."""
        wanted = set(names)
        todo = [o for o in self.by_origin if (o if exact else own_name(o)) in wanted]
        found: set[str] = set()
        for origin in _each_once(todo):
            for expansion in self.by_origin.get(origin, []):
                for symbol in (reversed(expansion) if last else expansion):
                    if symbol.is_term:
                        found.add(symbol.name)
                        break
                    todo.append(symbol.name)
                    if symbol.name not in self.nullable:
                        break
        return frozenset(found)

    def last_narrowed(self, expansion: tuple[Symbol, ...],
                      follows: Mapping[str, frozenset[str]]) -> frozenset[str]:
        """`of_sequence(expansion, last=True)`, where a rule right after a terminal of
        `follows` ends only as one of its texts that begins with a terminal that
        terminal admits after it (`block_ends`)."""
        found: set[str] = set()
        for at in range(len(expansion) - 1, -1, -1):
            symbol = expansion[at]
            if symbol.is_term:
                found.add(symbol.name)
                break
            before = expansion[at - 1] if at else None
            if before is not None and before.is_term and before.name in follows:
                admitted = follows[before.name]
                found |= {last for first, last in self.spans()[symbol.name]
                          if first in admitted}
            else:
                found |= self.of_rules({symbol.name}, last=True, exact=True)
            if symbol.name not in self.nullable:
                break
        return frozenset(found)

    def spans(self) -> dict[str, set[tuple[str, str]]]:
        """For each rule (Lark's name), the first and last terminals of each text it
        can match that is not empty, as pairs: `{...}` is (LBRACE, RBRACE). To a
        fixpoint, as `_nullable`; worked out when first asked for."""
        if self._spans is not None:
            return self._spans
        spans: dict[str, set[tuple[str, str]]] = {origin: set() for origin in self.by_origin}
        changed = True
        while changed:
            changed = False
            for origin, expansions in self.by_origin.items():
                found = spans[origin]
                before = len(found)
                for expansion in expansions:
                    found |= self._sequence_spans(expansion, spans)
                changed |= len(found) != before
        self._spans = spans
        return spans

    def _sequence_spans(self, expansion: tuple[Symbol, ...],
                        spans: dict[str, set[tuple[str, str]]]) -> set[tuple[str, str]]:
        """The (first, last) pairs of `expansion`'s texts that are not empty, from the
        rules' pairs so far: its first text comes from a symbol after only empty ones,
        its last from one before only empty ones."""
        def pairs(symbol: Symbol) -> set[tuple[str, str]]:
            return {(symbol.name, symbol.name)} if symbol.is_term else spans[symbol.name]

        def empty(symbol: Symbol) -> bool:
            return not symbol.is_term and symbol.name in self.nullable

        found: set[tuple[str, str]] = set()
        solid = [at for at, symbol in enumerate(expansion) if not empty(symbol)]
        first_end = solid[0] if solid else len(expansion) - 1
        last_start = solid[-1] if solid else 0
        for i in range(first_end + 1):
            for j in range(max(i, last_start), len(expansion)):
                if i == j:
                    found |= pairs(expansion[i])
                else:
                    found |= {(first, last) for first, _ in pairs(expansion[i])
                              for _, last in pairs(expansion[j])}
        return found

    def after(self, rule: str, terminals: frozenset[str]) -> frozenset[str]:
        """The terminals that can come right after one of `terminals` when it is the
        first symbol of an expansion of `rule` (or of a rule it begins with: an
        inlined one, or the `json_call` that is a JSON call's only child)."""
        found: set[str] = set()
        todo = [o for o in self.by_origin if own_name(o) == rule]
        for origin in _each_once(todo):
            for expansion in self.by_origin.get(origin, []):
                if not expansion:
                    continue
                head = expansion[0]
                if head.is_term and head.name in terminals:
                    found |= self.of_sequence(expansion[1:], last=False)
                elif not head.is_term and (own_name(head.name).startswith("_")
                                           or own_name(head.name) == "json_call"):
                    todo.append(head.name)
        return frozenset(found)


def lenient_openers(rules: Sequence[RuleRecord], starts: Iterable[str],
                    accept_only: frozenset[str]) -> frozenset[str]:
    """The terminals that open a block only in alternatives the grammar marks as
    accept-only (`lenient_*`, `orphan_block`): spellings it reads but does not write."""
    edges = _Edges(rules)
    wanted = set(starts)
    written: set[str] = set()
    lenient: set[str] = set()
    for rule in rules:
        if own_name(rule.origin) not in wanted:
            continue
        firsts = edges.of_sequence(rule.expansion, last=False)
        marked = own_name(rule.origin) in accept_only or (rule.alias or "") in accept_only
        (lenient if marked else written).update(firsts)
    return frozenset(lenient - written)


def block_ends(rules: Sequence[RuleRecord], starts: Iterable[str],
               follows: Mapping[str, frozenset[str]] | None = None) -> frozenset[str]:
    """The terminals a block can end with: the last terminals of the start rules.

    `follows` narrows them: for a terminal whose match must be followed by certain
    characters (a positive lookahead, Granite's `<function_call>(?=\\{)`), the
    terminals that can come right after it. A rule right after that terminal in a start
    rule then ends only as a text of it that begins with one of those can (`{...}`
    ends with `}`, never with a number's digit)."""
    edges = _Edges(rules)
    if not follows:
        return edges.of_rules(starts, last=True)
    found: set[str] = set()
    wanted = set(starts)
    for origin, expansions in edges.by_origin.items():
        if own_name(origin) in wanted:
            for expansion in expansions:
                found |= edges.last_narrowed(expansion, follows)
    return frozenset(found)


def reachable(rules: Sequence[RuleRecord], start: str) -> set[str]:
    """Every symbol (rule and terminal names, own names) reachable from rule `start`."""
    by_origin = _by_origin(rules)
    todo = [origin for origin in by_origin if own_name(origin) == start]
    seen: set[str] = set()
    for origin in _each_once(todo):
        seen.add(origin)
        for expansion in by_origin.get(origin, []):
            for symbol in expansion:
                if symbol.is_term:
                    seen.add(symbol.name)
                else:
                    todo.append(symbol.name)
    return {own_name(name) for name in seen} | seen


def reachable_children(rules: Sequence[RuleRecord], rule: str, stop: Iterable[str]) -> set[str]:
    """The symbols (Lark's names and own names) of `rule` itself and of the rules it
    inlines, not descending into the rules named in `stop` (the other contract rules)."""
    by_origin = _by_origin(rules)
    stops = set(stop)
    todo = [origin for origin in by_origin if own_name(origin) == rule]
    found: set[str] = set()
    for origin in _each_once(todo):
        for expansion in by_origin[origin]:
            for symbol in expansion:
                name = own_name(symbol.name)
                found.add(symbol.name)
                found.add(name)
                if not symbol.is_term and name not in stops:
                    todo.append(symbol.name)
    return found


def tokens_around(rules: Sequence[RuleRecord], rule: str, child: str) -> tuple[str, str] | None:
    """The terminals right before and right after rule `child` in rule `rule` (GLM's
    `<arg_key>` and `</arg_key>` around `key` in `param`), when every expansion that
    holds `child` agrees; else None."""
    found: set[tuple[str, str]] = set()
    for origin, expansions in _by_origin(rules).items():
        if own_name(origin) != rule:
            continue
        for expansion in expansions:
            for i, symbol in enumerate(expansion):
                if symbol.is_term or own_name(symbol.name) != child:
                    continue
                before = expansion[i - 1] if i > 0 else None
                after = expansion[i + 1] if i + 1 < len(expansion) else None
                if before is None or after is None or not (before.is_term and after.is_term):
                    return None
                found.add((before.name, after.name))
    return found.pop() if len(found) == 1 else None


def block_roles(rules: Sequence[RuleRecord], built: Iterable[str]) -> BlockRoles:
    """The roles of a loaded grammar's terminals (`rules`: Lark's rules, as records;
    `built`: the own names of the rules the engine builds from)."""
    sections = ("cdata", "nested_cdata")
    built = set(built)
    delimiters: set[str] = set()
    for rule in rules:
        if own_name(rule.origin) in built and rule.expansion:
            for symbol in (rule.expansion[0], rule.expansion[-1]):
                if symbol.is_term:
                    delimiters.add(symbol.name)
    edges = _Edges(rules)
    block_opens = edges.of_rules(("block",), last=False)
    call_tags = edges.of_rules(("invoke",), last=False)
    shared = call_tags & block_opens
    call_starts = (call_tags - shared) | edges.after("invoke", shared)
    call_closes = edges.of_rules(("invoke",), last=True)
    block_closes = (edges.of_rules(("block",), last=True)
                    | (edges.of_rules(("orphan_block",), last=True) - call_closes))
    # A JSON value's brackets close values, not blocks, even where a dialect imports
    # them by name (llama3_json's object is a `json_call` of its own).
    block_closes -= {symbol.name for origin, expansions in edges.by_origin.items()
                     if own_name(origin).startswith("json_")
                     for expansion in expansions for symbol in expansion if symbol.is_term}
    return BlockRoles(
        call_starts=call_starts,
        block_opens=block_opens | edges.of_rules(MESSAGE_RULES, last=False),
        block_closes=frozenset(n for n in block_closes if not n.startswith(_SHARED)),
        section_opens=edges.of_rules(sections, last=False),
        section_closes=edges.of_rules(sections, last=True),
        delimiters=frozenset(delimiters),
        param_starts=edges.of_rules(("param",), last=False),
        json_starts=edges.of_rules(("json_body",), last=False),
    )
