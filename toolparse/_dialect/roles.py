"""What the terminals do in a block, read from the grammar's rules (never spelled here).

The engine needs a few facts beyond "does it parse" (SPEC 3.2): which tokens start a
call (an invoke tag was accepted: a failed block is then *broken calls*, not a prose
mention), which tokens open and close a block (a broken span ends at the next block
close, or before the next block open), and which open and close a verbatim section (a
block close inside CDATA ends nothing). Each is the set of terminals that can come
first or last in a rule the engine knows by name:

    call_starts      first terminals of `invoke`
    block_opens      first terminals of `block`
    block_closes     last terminals of `block` and `orphan_block`
    section_opens    first terminals of `cdata` and `nested_cdata`
    section_closes   last terminals of `cdata` and `nested_cdata`

Cost: one pass over the rules at load time.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

__all__ = ["BlockRoles", "block_roles"]


@dataclass(frozen=True, slots=True)
class BlockRoles:
    """Terminal names by the part they play in a block."""

    call_starts: frozenset[str]
    block_opens: frozenset[str]
    block_closes: frozenset[str]
    section_opens: frozenset[str]
    section_closes: frozenset[str]


def _short(name: str) -> str:
    """A rule's own name, without the namespace `%import` gives it (`deepseek__block`)."""
    return name.rsplit("__", 1)[-1] if not name.startswith("__") else name


def _edge(rules: list[Any], names: Iterable[str], last: bool) -> frozenset[str]:
    """The terminals that can come first (or last) in the rules named `names`."""
    by_origin: dict[str, list[list[Any]]] = {}
    for rule in rules:
        by_origin.setdefault(rule.origin.name, []).append(list(rule.expansion))
    wanted = {origin for origin in by_origin if _short(origin) in set(names)}
    found: set[str] = set()
    seen: set[str] = set()
    todo = list(wanted)
    while todo:
        origin = todo.pop()
        if origin in seen:
            continue
        seen.add(origin)
        for expansion in by_origin.get(origin, []):
            for symbol in (reversed(expansion) if last else expansion):
                if symbol.is_term:
                    found.add(symbol.name)
                else:
                    todo.append(symbol.name)
                break  # expansions here are never empty; the edge symbol decides
    return frozenset(found)


def block_roles(rules: list[Any]) -> BlockRoles:
    """The roles of a loaded grammar's terminals (`rules`: Lark's `Lark.rules`)."""
    sections = ("cdata", "nested_cdata")
    return BlockRoles(
        call_starts=_edge(rules, ("invoke",), last=False),
        block_opens=_edge(rules, ("block",), last=False),
        block_closes=_edge(rules, ("block", "orphan_block"), last=True),
        section_opens=_edge(rules, sections, last=False),
        section_closes=_edge(rules, sections, last=True),
    )
