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
import threading
from dataclasses import dataclass
from typing import Any

from toolparse._syntax.files import cached_json

__all__ = ["DFA", "Union", "can_finish", "compile_dfa", "dfa_for", "dfa_from_data", "dfa_to_data", "may_continue_into"]


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
                _exits(n, row, self.default[n], self.final[n])
                for n, row in enumerate(self.table)))

    def __deepcopy__(self, memo: dict[int, Any]) -> DFA:
        return self  # immutable tables: a copied tracker shares them

    def row(self, n: int) -> dict[str, int]:
        """State n's moves on the characters it names (as `Union.row`)."""
        return self.table[n]

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


def _exits(n: int, row: dict[str, int], default: int, final: bool) -> str | None:
    """`DFA.loops` of state n: the few characters that leave it, when every other one
    keeps it there; else None."""
    return "".join(row) if default == n and len(row) <= 4 and not final else None


class Union:
    """The union of several automata, one state for a tuple of theirs, built as it is
    walked: a state's row is made the first time it is stepped from (`row`).

    One look-up per character instead of one per part still alive. Made in full, the
    union of the inline automata would be 1,600 states (an HTML comment and an e-mail
    autolink stay alive together through long texts), too large to load at every
    start; walked, it holds only what texts reached, and never more than that bound.
    A state is final when a part is; -1 is dead (every part dead).
    """

    __slots__ = ("parts", "_ids", "_of", "_lock", "table", "default", "final", "loops",
                 "initial")

    def __init__(self, parts: tuple[DFA, ...]) -> None:
        self.parts = parts
        self._ids: dict[tuple[int, ...], int] = {}
        self._of: list[tuple[int, ...]] = []
        """state -> the parts' states."""
        self._lock = threading.Lock()  # parsers in threads share one union
        self.table: list[dict[str, int] | None] = []
        """state -> its moves on the characters a part names (None until made)."""
        self.default: list[int] = []
        """state -> its move on any other character (once its row is made)."""
        self.final: list[bool] = []
        self.loops: list[str | None] = []
        """state -> the characters that leave it, when every other one keeps it (as
        `DFA.loops`; once its row is made)."""
        self.initial = self.state(tuple(part.initial for part in parts))

    def __deepcopy__(self, memo: dict[int, Any]) -> Union:
        return self  # what a state means never changes: a copied tracker shares it

    def state(self, states: tuple[int, ...]) -> int:
        """The union's state for the parts' `states` (-1: all dead)."""
        if max(states) < 0:
            return -1
        n = self._ids.get(states)
        if n is None:
            with self._lock:
                n = self._ids.get(states)
                if n is None:
                    n = len(self.table)
                    self._of.append(states)
                    self.table.append(None)
                    self.default.append(-1)
                    self.loops.append(None)
                    self.final.append(any(s >= 0 and part.final[s]
                                          for part, s in zip(self.parts, states)))
                    self._ids[states] = n
        return n

    def row(self, n: int) -> dict[str, int]:
        """State n's moves on the characters a part names (others: `default[n]`)."""
        made = self.table[n]
        if made is not None:
            return made
        row = self._of[n]
        parts = self.parts
        chars = {ch for part, s in zip(parts, row) if s >= 0 for ch in part.table[s]}
        moves = {ch: self.state(tuple(part.table[s].get(ch, part.default[s]) if s >= 0
                                      else -1 for part, s in zip(parts, row)))
                 for ch in chars}
        other = self.state(tuple(part.default[s] if s >= 0 else -1
                                 for part, s in zip(parts, row)))
        with self._lock:
            self.default[n] = other
            self.loops[n] = _exits(n, moves, other, self.final[n])
            self.table[n] = moves  # last: a row that is not None is whole
        return moves

    def step(self, n: int, ch: str) -> int:
        """The state after `ch` from state n."""
        row = self.table[n]
        if row is None:
            row = self.row(n)
        return row.get(ch, self.default[n])


def can_finish(dfa: DFA, state: int) -> bool:
    """Whether some text leads `dfa` from `state` to a complete match (False for -1)."""
    seen = {state}
    todo = [state]
    while todo:
        n = todo.pop()
        if n < 0:
            continue
        if dfa.final[n]:
            return True
        for to in (*dfa.table[n].values(), dfa.default[n]):
            if to not in seen:
                seen.add(to)
                todo.append(to)
    return False


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
    return _dfa_of(_fsm_of(pattern), same_as)


def _fsm_of(pattern: str) -> Any:
    """interegular's automaton of `pattern` (Any: its annotations say less than it
    returns, frozensets for sets); raises what interegular raises on a pattern it
    cannot read."""
    import interegular

    return interegular.parse_pattern(_expand_whitespace(pattern)).to_fsm()


def _dfa_of(fsm: Any, same_as: dict[str, str] | None) -> DFA:
    """`fsm` (interegular's) as a `DFA`."""
    from interegular.fsm import anything_else

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
            fsm = _fsm_of(pattern)
        except Exception:  # interegular is third-party code on arbitrary grammar regexps
            return None  # its refusal is the pattern's, so it is cached with it
        # Not under the `try`: a failure past interegular is a bug of ours, which must
        # be loud, and which a cached None would outlive (the cache is keyed by the
        # pattern and Lark, not by toolparse's code).
        return dfa_to_data(_dfa_of(fsm, None))

    data = cached_json("dfa", pattern, build)
    if data is None:
        return None
    try:
        return dfa_from_data(data)
    except (TypeError, ValueError):
        return None
