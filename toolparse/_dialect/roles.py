"""What the terminals and rules do in a block, read from the grammar (never spelled here).

The engine needs a few facts beyond "does it parse" (SPEC 3.2, 5.1): which tokens start
a call (a call tag was accepted: a failed block is then *broken calls*, not a prose
mention), which open and close a block (a broken span ends at the next block close, or
before the next block open), which open and close a verbatim section (a block close
inside CDATA ends nothing), which tokens delimit a rule (their offsets matter), and
where a call's name comes from. Each is read from the rules the engine knows by name:

    call_starts      first terminals of `invoke`
    block_opens      first terminals of `block`
    block_closes     last terminals of `block` and `orphan_block`
    section_opens    first terminals of `cdata` and `nested_cdata`
    section_closes   last terminals of `cdata` and `nested_cdata`
    param_starts     first terminals of `param` (incremental events find an argument)
    json_starts      first terminals of `json_body`
    delimiters       first and last terminals of every rule the engine builds from

Cost: one pass over the rules at load time.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

__all__ = ["BlockRoles", "block_roles", "own_name", "reachable"]


@dataclass(frozen=True, slots=True)
class BlockRoles:
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


def _by_origin(rules: list[Any]) -> dict[str, list[list[Any]]]:
    by_origin: dict[str, list[list[Any]]] = {}
    for rule in rules:
        by_origin.setdefault(rule.origin.name, []).append(list(rule.expansion))
    return by_origin


def _edge(rules: list[Any], names: Iterable[str], last: bool) -> frozenset[str]:
    """The terminals that can come first (or last) in the rules named `names`."""
    by_origin = _by_origin(rules)
    wanted = {origin for origin in by_origin if own_name(origin) in set(names)}
    found: set[str] = set()
    seen: set[str] = set()
    todo = list(wanted)
    while todo:
        origin = todo.pop()
        if origin in seen:
            continue
        seen.add(origin)
        for expansion in by_origin.get(origin, []):
            if not expansion:
                continue
            symbol = expansion[-1] if last else expansion[0]
            if symbol.is_term:
                found.add(symbol.name)
            else:
                todo.append(symbol.name)
    return frozenset(found)


def reachable(rules: list[Any], start: str) -> set[str]:
    """Every symbol (rule and terminal names, own names) reachable from rule `start`."""
    by_origin = _by_origin(rules)
    roots = [origin for origin in by_origin if own_name(origin) == start]
    seen: set[str] = set()
    todo = list(roots)
    while todo:
        origin = todo.pop()
        if origin in seen:
            continue
        seen.add(origin)
        for expansion in by_origin.get(origin, []):
            for symbol in expansion:
                if symbol.is_term:
                    seen.add(symbol.name)
                else:
                    todo.append(symbol.name)
    return {own_name(name) for name in seen} | seen


def block_roles(rules: list[Any], built: Iterable[str]) -> BlockRoles:
    """The roles of a loaded grammar's terminals (`rules`: Lark's `Lark.rules`;
    `built`: the own names of the rules the engine builds from)."""
    sections = ("cdata", "nested_cdata")
    built = set(built)
    delimiters: set[str] = set()
    for rule in rules:
        if own_name(rule.origin.name) in built and rule.expansion:
            for symbol in (rule.expansion[0], rule.expansion[-1]):
                if symbol.is_term:
                    delimiters.add(symbol.name)
    return BlockRoles(
        call_starts=_edge(rules, ("invoke",), last=False),
        block_opens=_edge(rules, ("block",), last=False),
        block_closes=_edge(rules, ("block", "orphan_block"), last=True),
        section_opens=_edge(rules, sections, last=False),
        section_closes=_edge(rules, sections, last=True),
        delimiters=frozenset(delimiters),
        param_starts=_edge(rules, ("param",), last=False),
        json_starts=_edge(rules, ("json_body",), last=False),
    )
