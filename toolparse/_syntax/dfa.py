"""Deterministic automata compiled from grammar patterns, for stepping text incrementally.

A regular expression can only be re-run from its start; an automaton can be stepped over
just the characters that arrived. The engine uses one where it waits on a token that is
still arriving (a tag split across chunks): each chunk then costs a few dictionary
look-ups instead of re-matching the whole held text.

Automata are built with interegular (Lark's own dependency for strict mode) and cached
on disk with the other compiled grammar data (`_resources.cached_json`): building costs
tens of milliseconds per pattern, loading almost nothing.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

from toolparse._syntax.files import cached_json

__all__ = ["DFA", "compile_dfa", "dfa_for", "dfa_from_data", "dfa_to_data", "may_continue_into"]


@dataclass(frozen=True, slots=True)
class DFA:
    """`table[state].get(char, default[state])` is the next state; -1 is dead."""

    initial: int
    table: tuple[dict[str, int], ...]
    default: tuple[int, ...]
    final: tuple[bool, ...]
    loops: tuple[str | None, ...] = ()
    """state -> when every character but a few keeps the automaton in that state (inside
    a quoted attribute value, say): those few characters; else None. A chunk holding
    none of them leaves the state as it is, which four `in` tests tell at C speed."""

    def __post_init__(self) -> None:
        if not self.loops:
            object.__setattr__(self, "loops", tuple(
                "".join(row) if self.default[n] == n and len(row) <= 4 and not self.final[n]
                else None for n, row in enumerate(self.table)))

    def __deepcopy__(self, memo: dict[int, Any]) -> DFA:
        return self  # immutable tables: a copied tracker shares them

    def run(self, state: int, text: str) -> int:
        """The state after `text` from `state`, or -1 once no match is possible."""
        table, default = self.table, self.default
        for ch in text:
            state = table[state].get(ch, default[state])
            if state < 0:
                return -1
        return state

    def advance(self, state: int, text: str) -> int:
        """Like `run`, but stops as soon as a match is complete: returns -2 when some
        prefix of `text` (after `state`) completes a match, -1 when none can."""
        table, default, final = self.table, self.default, self.final
        for ch in text:
            state = table[state].get(ch, default[state])
            if state < 0:
                return -1
            if final[state]:
                return -2
        return state


def may_continue_into(a: DFA, b: DFA) -> bool:
    """Whether some complete match of `a` leaves `b` alive (a prefix of a match of `b`):
    a walk over the pairs of states the two reach on the same text. False means that
    once `a` has matched, `b` can never match a longer text from the same start."""
    start = (a.initial, b.initial)
    seen = {start}
    todo = [start]
    while todo:
        sa, sb = todo.pop()
        if a.final[sa]:
            return True
        row_a, row_b = a.table[sa], b.table[sb]
        pairs = [(row_a.get(ch, a.default[sa]), row_b.get(ch, b.default[sb]))
                 for ch in {*row_a, *row_b}]
        pairs.append((a.default[sa], b.default[sb]))   # any other character
        for pair in pairs:
            if pair[0] >= 0 and pair[1] >= 0 and pair not in seen:
                seen.add(pair)
                todo.append(pair)
    return False


@functools.cache
def _unicode_whitespace_class() -> str:
    # Python's `\s` (str patterns) is str.isspace(); interegular's is ASCII only.
    return "".join(chr(c) for c in range(0x3001) if chr(c).isspace())


def _expand_whitespace(pattern: str) -> str:
    spaces = _unicode_whitespace_class()
    out: list[str] = []
    i, in_class = 0, False
    while i < len(pattern):
        c = pattern[i]
        if c == "\\" and i + 1 < len(pattern):
            if pattern[i + 1] == "s":
                out.append(spaces if in_class else "[" + spaces + "]")
            else:
                out.append(pattern[i:i + 2])
            i += 2
            continue
        if c == "[" and not in_class:
            in_class = True
        elif c == "]" and in_class:
            in_class = False
        out.append(c)
        i += 1
    return "".join(out)


def compile_dfa(pattern: str, *, same_as: dict[str, str] | None = None) -> DFA:
    """The automaton of `pattern` (no lookarounds or backreferences); raises on
    patterns interegular cannot read. `same_as` maps a character to one whose moves it
    takes (the Markdown tracker reads NUL as U+FFFD, as markdown-it does)."""
    import interegular
    from interegular.fsm import anything_else

    fsm = interegular.parse_pattern(_expand_whitespace(pattern)).to_fsm()
    alphabet = fsm.alphabet
    other = alphabet[anything_else]
    states = sorted(fsm.states)
    index = {s: n for n, s in enumerate(states)}
    chars = [c for c in alphabet.keys() if c is not anything_else]
    table: list[dict[str, int]] = []
    default: list[int] = []
    for s in states:
        moves = fsm.map.get(s, {})
        nxt = moves.get(other)
        dflt = index[nxt] if nxt is not None else -1
        row: dict[str, int] = {}
        for c in chars:
            to = moves.get(alphabet[c])
            row[c] = index[to] if to is not None else -1
        for c, model in (same_as or {}).items():
            row[c] = row.get(model, dflt)
        # Keep only the moves that differ from the default: the same automaton, and a
        # small table (the whitespace class alone is dozens of characters).
        table.append({c: to for c, to in row.items() if to != dflt})
        default.append(dflt)
    return DFA(index[fsm.initial], tuple(table), tuple(default),
               tuple(s in fsm.finals for s in states))


def dfa_to_data(dfa: DFA) -> list[Any]:
    """`dfa` as JSON data (for `cached_json`)."""
    return [dfa.initial, list(dfa.table), list(dfa.default), list(dfa.final)]


def dfa_from_data(data: list[Any]) -> DFA:
    """The DFA that `dfa_to_data` wrote."""
    initial, table, default, final = data  # JSON keeps str keys and int values
    return DFA(initial, tuple(table), tuple(default), tuple(final))


@functools.cache
def dfa_for(pattern: str) -> DFA | None:
    """The automaton of `pattern`, from the cache or built once; None when the pattern
    has something an automaton cannot express (a lookahead) or interegular rejects it:
    callers then fall back to re-matching with the `regex` module."""
    if "(?=" in pattern or "(?!" in pattern or "(?<" in pattern:
        return None

    def build() -> list[Any] | None:
        try:
            return dfa_to_data(compile_dfa(pattern))
        except Exception:  # interegular is third-party code on arbitrary grammar regexps
            return None

    data = cached_json("dfa", pattern, build)
    if data is None:
        return None
    try:
        return dfa_from_data(data)
    except (TypeError, ValueError):
        return None
