r"""What a pattern can cost Python's `re`, read from its syntax: for the grammar loader.

The stream engine matches every terminal with `re`, a backtracking matcher, and a
backtracking matcher tries every way a pattern can read a text before it gives up. A
pattern that can read one text in many ways (`(a+)+b`, `a*a*b`) makes one failing match
exponential or polynomial in the text (SPEC G6), so the loader refuses it (docs/grammars.md,
"Linear time"). This module reads a pattern the way the matcher does: as an automaton
with one state per character-reading position of the pattern (Glushkov's construction,
over the standard library's own parse of it), and answers three questions:

- how many positions it has (the loader bounds a terminal's size, and so its load time);
- whether some text can be read in infinitely many ways that grow with the text: two
  different loops through one position that read the same word (exponential ambiguity),
  or a position p with a loop to itself, a path to another position q, and a loop at q,
  all three reading one word (polynomial ambiguity). Allauzen, Mohri and Rastogi's
  tests, on the pairs and triples of positions that read the same character; every
  position counts as an end, because a failing match tries every prefix;
- which characters its loops read, and whether a search for it (the pattern behind a
  loop on any character, an attempt at every place) keeps ever more attempts alive: a
  loop that can read the start of another match (`<c=[^>]*x>` over `<c=<c=<c=...`)
  makes every attempt read on, quadratic over a text full of them.

A lookahead `(?=X)` is read as a branch into X that goes nowhere after it (the matcher
runs X there, then goes on from the same place), a lookbehind and an anchor as nothing
(they read a fixed few characters). `x{m,n}` is read as a loop (more ways to read,
never fewer). Back-references are refused: no automaton reads them. The loader caches
the answers with the grammar.

Cost: linear in the positions for the size; for the rest, the pairs and triples of
positions that read a common character (at most `_Budget.LIMIT`), a few milliseconds for
a bundled grammar's tag, and once per process about 0.15 s for the characters of `\s`,
`\w` and `\d` (read from `re` itself, over every code point).
"""

from __future__ import annotations

import array
import functools
import re
import sys
from collections.abc import Iterable, Iterator
from typing import Any, NamedTuple

try:  # the standard library's parser of regex syntax (private, as in regexp.py)
    import re._parser as _sre_parse  # type: ignore[import-not-found]
except ImportError:  # pragma: no cover
    _sre_parse = None

__all__ = ["Cost", "MAX_POSITIONS", "PatternTooLarge", "cost_of", "size_of"]

MAX_POSITIONS = 2048
"""The most character-reading positions a pattern may have (a literal of 1,000
characters has 1,000; deepseek's largest tag has 89). Past it, the pattern's automaton
would take seconds to build."""

Ranges = tuple[tuple[int, int], ...]
"""A set of characters: sorted, disjoint, inclusive code point ranges."""

_LAST = 0x10FFFF


class PatternTooLarge(ValueError):
    """The pattern has more than MAX_POSITIONS positions (or a repeat that spells out
    past it)."""


class Cost(NamedTuple):
    """What a pattern can cost a backtracking matcher."""

    positions: int
    ambiguity: str
    """"" when every text is read in a bounded number of ways; else what is wrong, in
    words, with a text that shows it."""
    searched: str
    """"" when a search for the pattern keeps a bounded number of attempts alive at any
    place of any text; else what is wrong: a loop that can read the start of another
    match, so that each place it could start is another attempt reading on."""
    loops: Ranges
    """The characters some loop of the pattern (its lookaheads' included) can read."""

    def to_data(self) -> list[Any]:
        return [self.positions, self.ambiguity, self.searched,
                [list(pair) for pair in self.loops]]

    @classmethod
    def from_data(cls, data: Any) -> Cost:
        positions, ambiguity, searched, loops = data
        if not (isinstance(positions, int) and isinstance(ambiguity, str)
                and isinstance(searched, str)):
            raise TypeError("a pattern's cost is [int, str, str, ranges]")
        return cls(positions, ambiguity, searched,
                   tuple((int(lo), int(hi)) for lo, hi in loops))

    def loops_read(self, chars: Iterable[str]) -> list[str]:
        """Those of `chars` that a loop of the pattern can read."""
        return [char for char in chars if _contains(self.loops, ord(char))]


def cost_of(pattern: str) -> Cost:
    """The cost of `pattern` (inline flags included). Raises PatternTooLarge, or
    ValueError for what no automaton reads (a back-reference)."""
    parsed = _sre_parse.parse(pattern)
    size = _spelled_size(parsed)
    if size > MAX_POSITIONS:
        raise PatternTooLarge(f"{size} positions, counting each repeat's copies")
    nfa = _Nfa(int(parsed.state.flags))
    _nullable, first, _last = nfa.sequence(parsed)
    nfa.initial_follow = set(first)
    loops = nfa.looping()
    budget = _Budget()
    ambiguity = nfa.ambiguity(loops, budget)
    chars = _union(nfa.sets[p] for p in sorted(loops))
    # Searched for, the pattern is `(?s:.)*?` and itself: an attempt at every place.
    anywhere = len(nfa.sets)
    nfa.sets.append(((0, _LAST),))
    nfa.follow.append({anywhere: 1, **{p: 1 for p in first}})
    found = _polynomial(nfa.follow, _Meets(nfa.sets), {anywhere, *loops}, budget, anywhere)
    searched = "" if found is None else (
        f"its loop on {_describe(nfa.sets[found[1]])} can read the start of another match "
        "of it, so a search tries it again at each place and every attempt reads on")
    return Cost(size, ambiguity, searched, chars)


class _Budget:
    """The pairs and triples of positions the questions may walk, over all of them: a
    pattern within MAX_POSITIONS that needs more is refused as too large to check,
    so that a load stays bounded."""

    LIMIT = 400_000

    def __init__(self) -> None:
        self.left = self.LIMIT

    def spend(self, count: int = 1) -> None:
        self.left -= count
        if self.left < 0:
            raise PatternTooLarge(f"more than {self.LIMIT:,} pairs and triples of "
                                  "positions to check")


def size_of(pattern: str) -> int:
    """The positions of `pattern`, each repeat's copies counted (MAX_POSITIONS + 1 and
    more: too large); a pattern the standard library cannot parse counts 0 (`cost_of`
    says so later)."""
    try:
        return _spelled_size(_sre_parse.parse(pattern))
    except (ValueError, TypeError, RecursionError, OverflowError, re.error):
        return 0


def _spelled_size(items: Any) -> int:
    """The positions of `items` with each counted repeat spelt out (`x{3}` is three),
    which is what an automaton of it is built from; stops counting past the bound."""
    size = 0
    for op, arg in items:
        kind = str(op)
        if kind in ("LITERAL", "NOT_LITERAL", "IN", "ANY"):
            size += 1
        elif kind == "SUBPATTERN":
            size += _spelled_size(arg[3])
        elif kind == "ATOMIC_GROUP":
            size += _spelled_size(arg)
        elif kind == "BRANCH":
            size += sum(_spelled_size(branch) for branch in arg[1])
        elif kind in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT"):
            low, high, body = arg
            copies = max(int(low), 1) if high == _sre_parse.MAXREPEAT else int(high)
            size += min(copies, MAX_POSITIONS + 1) * _spelled_size(body)
        elif kind in ("ASSERT", "ASSERT_NOT"):
            size += _spelled_size(arg[1])
        if size > MAX_POSITIONS:
            return size
    return size


# ---- the automaton -------------------------------------------------------------------------

class _Nfa:
    """Glushkov's automaton: position n reads `sets[n]`; the initial state (-1) goes to
    `initial_follow`, position n to `follow[n]`."""

    def __init__(self, flags: int) -> None:
        self.flags = flags
        self.sets: list[Ranges] = []
        self.follow: list[dict[int, int]] = []
        self.initial_follow: set[int] = set()

    # -- building: each returns (nullable, first positions, last positions) --

    def sequence(self, items: Iterable[Any], flags: int | None = None
                 ) -> tuple[bool, set[int], set[int]]:
        flags = self.flags if flags is None else flags
        nullable, first, last = True, set[int](), set[int]()
        for op, arg in items:
            n, f, l = self.item(str(op), arg, flags)
            self.link(last, f)
            if nullable:
                first |= f
            last = l | last if n else l
            nullable = nullable and n
        return nullable, first, last

    def link(self, sources: Iterable[int], targets: set[int]) -> None:
        """A move from each source to each target; a move made twice is two moves (two
        ways of reading the same character, which the matcher both tries)."""
        for source in sources:
            moves = self.follow[source]
            for target in targets:
                moves[target] = moves.get(target, 0) + 1

    def leaf(self, chars: Ranges) -> tuple[bool, set[int], set[int]]:
        if not chars:  # reads nothing: no text gets past it
            return False, set(), set()
        if len(self.sets) >= MAX_POSITIONS:
            raise PatternTooLarge(f"more than {MAX_POSITIONS} positions")
        self.sets.append(chars)
        self.follow.append({})
        n = len(self.sets) - 1
        return False, {n}, {n}

    def item(self, op: str, arg: Any, flags: int) -> tuple[bool, set[int], set[int]]:
        if op in ("LITERAL", "NOT_LITERAL", "IN", "ANY"):
            return self.leaf(_chars(op, arg, flags))
        if op == "SUBPATTERN":
            _group, add, remove, items = arg
            return self.sequence(items, (flags | add) & ~remove)
        if op == "ATOMIC_GROUP":
            return self.sequence(arg, flags)
        if op == "BRANCH":
            nullable, first, last = False, set[int](), set[int]()
            for branch in arg[1]:
                n, f, l = self.sequence(branch, flags)
                nullable, first, last = nullable or n, first | f, last | l
            return nullable, first, last
        if op in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT"):
            low, high, items = arg
            return self.repeat(int(low), None if high == _sre_parse.MAXREPEAT else int(high),
                               items, flags)
        if op == "ASSERT" or op == "ASSERT_NOT":
            direction, items = arg
            if direction > 0:  # a lookahead: a branch into it that goes nowhere after
                _n, first, _l = self.sequence(items, flags)
                return True, first, set()
            return True, set(), set()
        if op == "AT":
            return True, set(), set()
        raise ValueError("it refers back to a group, which no automaton reads"
                         if op.startswith("GROUPREF") else f"it uses {op}, which is not checked")

    def repeat(self, low: int, high: int | None, items: Any, flags: int
               ) -> tuple[bool, set[int], set[int]]:
        """`x{low,high}`: `x?` or `x` for a high of 1, else as a loop (`x*` or `x+`):
        a loop reads a text in at least as many ways as the counted repeat does."""
        if high == 0:
            return True, set(), set()
        nullable, first, last = self.sequence(items, flags)
        if high is None or high > 1:
            self.link(last, first)
        return nullable or low == 0, first, last

    # -- questions --

    def looping(self) -> set[int]:
        """The positions on a cycle."""
        return {p for component in _components(len(self.sets), lambda p: self.follow[p])
                for p in component if len(component) > 1 or p in self.follow[p]}

    def ambiguity(self, loops: set[int], budget: _Budget) -> str:
        """"" or what makes some text readable in ever more ways."""
        meets = _Meets(self.sets)
        pairs, splits = _pair_edges(self.follow, meets, [(p, p) for p in sorted(loops)],
                                    budget)
        for component in _components_of(pairs):
            diagonal = [a for a, b in component if a == b]
            members = set(component)
            if diagonal and (any(a != b for a, b in component) or any(
                    source in members and target in members for source, target in splits)):
                return (f"two loops read the same text in different ways around "
                        f"{_describe(self.sets[diagonal[0]])}: a text that fails reads "
                        "in exponentially many ways (nested quantifiers, such as (a+)+)")
        found = _polynomial(self.follow, meets, loops, budget)
        if found is not None:
            p, q = found
            return (f"a loop on {_describe(self.sets[p])} and a later loop on "
                    f"{_describe(self.sets[q])} can read the same text: a text that fails "
                    "is tried in every split between them, polynomial in its length "
                    "(overlapping quantifiers, such as a*a*)")
        return ""


class _Meets:
    """Whether two positions' sets share a character, by set, asked once."""

    def __init__(self, sets: list[Ranges]) -> None:
        self.ids: dict[Ranges, int] = {}
        self.of = [self.ids.setdefault(chars, len(self.ids)) for chars in sets]
        self.sets = list(self.ids)
        self.known: dict[tuple[int, int], bool] = {}
        self.triples: dict[tuple[int, int, int], bool] = {}

    def __call__(self, p: int, q: int) -> bool:
        key = (self.of[p], self.of[q])
        found = self.known.get(key)
        if found is None:
            found = self.known[key] = _meet(self.sets[key[0]], self.sets[key[1]])
        return found


Pair = tuple[int, int]


def _pair_edges(follow: list[dict[int, int]], meets: _Meets, starts: list[Pair],
                budget: _Budget) -> tuple[dict[Pair, list[Pair]], list[tuple[Pair, Pair]]]:
    """The pairs of positions reachable from `starts` reading one word, with their
    moves; and the moves from (p, p) to (x, x) made by two different moves of p to x
    (the two walkers part there, as they do on two positions)."""
    edges: dict[Pair, list[Pair]] = {}
    splits: list[tuple[Pair, Pair]] = []
    todo = list(starts)
    while todo:
        pair = todo.pop()
        if pair in edges:
            continue
        a, b = pair
        moves = [(x, y) for x in follow[a] for y in follow[b] if meets(x, y)]
        budget.spend(1 + len(moves))
        edges[pair] = moves
        if a == b:
            splits += [(pair, (x, x)) for x, count in follow[a].items() if count > 1]
        todo.extend(move for move in moves if move not in edges)
    return edges, splits


def _polynomial(follow: list[dict[int, int]], meets: _Meets, loops: set[int],
                budget: _Budget, only: int | None = None) -> tuple[int, int] | None:
    """Positions p != q with p -w-> p, p -w-> q and q -w-> q for one word w (p: `only`,
    when given), or None."""
    component_of: dict[int, int] = {}
    for n, component in enumerate(_components(len(follow), lambda p: follow[p])):
        for p in component:
            component_of[p] = n
    before: list[set[int]] = [set() for _ in follow]  # the reverse moves
    for source, moves in enumerate(follow):
        for target in moves:
            before[target].add(source)
    for p in sorted(loops) if only is None else [only]:
        # The q that p can reach reading a word that also leads p back to itself: the
        # pairs walked from (p, p), the first walker kept in p's component.
        for q in sorted(_paired_with(follow, meets, component_of, p, budget) & loops - {p}):
            towards = _reaching(before, q)
            if _triple_path(follow, meets, component_of, (p, p, q), towards, budget):
                return p, q
    return None


def _paired_with(follow: list[dict[int, int]], meets: _Meets, component_of: dict[int, int],
                 p: int, budget: _Budget) -> set[int]:
    """The positions a second walker reaches from p while the first, reading the same
    characters, stays in p's component."""
    home = component_of[p]
    seen = {(p, p)}
    todo = [(p, p)]
    while todo:
        a, b = todo.pop()
        for x in follow[a]:
            if component_of[x] != home:
                continue
            for y in follow[b]:
                if (x, y) not in seen and meets(x, y):
                    budget.spend()
                    seen.add((x, y))
                    todo.append((x, y))
    return {b for _a, b in seen}


def _reaching(before: list[set[int]], goal: int) -> set[int]:
    """The positions from which `goal` can be reached (itself included)."""
    seen = {goal}
    todo = [goal]
    while todo:
        for p in before[todo.pop()]:
            if p not in seen:
                seen.add(p)
                todo.append(p)
    return seen


def _triple_path(follow: list[dict[int, int]], meets: _Meets, component_of: dict[int, int],
                 start: tuple[int, int, int], towards: set[int], budget: _Budget) -> bool:
    """Whether three walkers reading the same characters go from (p, p, q) to (p, q, q):
    the first stays in p's component, the second on the way to q (`towards`), the third
    in q's component."""
    p, _, q = start
    p_part, q_part = component_of[p], component_of[q]
    seen = {start}
    todo = [start]
    while todo:
        a, b, c = todo.pop()
        for x in follow[a]:
            if component_of[x] != p_part:
                continue
            for y in follow[b]:
                if y not in towards or not meets(x, y):
                    continue
                for z in follow[c]:
                    if component_of[z] != q_part or not _meet3(meets, x, y, z):
                        continue
                    if (x, y, z) == (p, q, q):
                        return True
                    if (x, y, z) not in seen:
                        budget.spend()
                        seen.add((x, y, z))
                        todo.append((x, y, z))
    return False


def _meet3(meets: _Meets, x: int, y: int, z: int) -> bool:
    """Whether the three positions' sets share a character (asked once per three sets)."""
    key = (meets.of[x], meets.of[y], meets.of[z])
    found = meets.triples.get(key)
    if found is None:
        sets = meets.sets
        found = meets.triples[key] = bool(_intersect(_intersect(sets[key[0]], sets[key[1]]),
                                                     sets[key[2]]))
    return found


def _components(count: int, successors: Any) -> list[list[int]]:
    """Strongly connected components (Tarjan's, without recursion)."""
    return _tarjan(range(count), successors)


def _components_of(edges: dict[tuple[int, int], list[tuple[int, int]]]
                   ) -> list[list[tuple[int, int]]]:
    return _tarjan(list(edges), lambda node: edges.get(node, ()))


def _tarjan(nodes: Iterable[Any], successors: Any) -> list[list[Any]]:
    index: dict[Any, int] = {}
    low: dict[Any, int] = {}
    stack: list[Any] = []
    on_stack: set[Any] = set()
    found: list[list[Any]] = []
    for root in nodes:
        if root in index:
            continue
        work: list[tuple[Any, Iterator[Any]]] = [(root, iter(successors(root)))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(successors(child))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                found.append(component)
    return found


# ---- sets of characters ------------------------------------------------------------------

def _chars(op: str, arg: Any, flags: int) -> Ranges:
    """The characters one position reads."""
    if op == "ANY":
        return ((0, _LAST),) if flags & re.DOTALL else _complement(((10, 10),))
    if op == "LITERAL":
        return _cased(((arg, arg),), flags)
    if op == "NOT_LITERAL":
        return _complement(_cased(((arg, arg),), flags))
    return _class(arg, flags)


def _class(items: Any, flags: int) -> Ranges:
    negate = False
    parts: list[Ranges] = []
    for op, arg in items:
        kind = str(op)
        if kind == "NEGATE":
            negate = True
        elif kind == "LITERAL":
            parts.append(((arg, arg),))
        elif kind == "RANGE":
            parts.append(((arg[0], arg[1]),))
        elif kind == "CATEGORY":
            parts.append(_category(str(arg)))
        else:
            raise ValueError(f"it uses {kind} in a character class, which is not checked")
    found = _cased(_union(parts), flags)
    return _complement(found) if negate else found


def _cased(chars: Ranges, flags: int) -> Ranges:
    """`chars` with their other cases, under IGNORECASE (as `re` reads them)."""
    if not flags & re.IGNORECASE:
        return chars
    body = "".join(f"\\U{lo:08x}-\\U{hi:08x}" for lo, hi in chars)
    return _ranges_matching(f"(?i:[{body}])")


@functools.cache
def _category(name: str) -> Ranges:
    """A class escape's characters, as Python's `re` reads it on a `str`."""
    escape = {"CATEGORY_DIGIT": r"\d", "CATEGORY_NOT_DIGIT": r"\D",
              "CATEGORY_SPACE": r"\s", "CATEGORY_NOT_SPACE": r"\S",
              "CATEGORY_WORD": r"\w", "CATEGORY_NOT_WORD": r"\W"}.get(name)
    if escape is None:
        raise ValueError(f"it uses the class {name}, which is not checked")
    return _ranges_matching(escape)


@functools.cache
def _ranges_matching(char_pattern: str) -> Ranges:
    """The characters one-character `char_pattern` matches, found by `re` itself over
    every code point (tens of milliseconds, once per process, and only for a class
    escape or a flag: the result is cached with the grammar)."""
    compiled = re.compile(f"(?:{char_pattern})+")
    return tuple((m.start(), m.end() - 1) for m in compiled.finditer(_every_character()))


@functools.cache
def _every_character() -> str:
    """Every code point, in order (decoded at C speed: a fifth of joining chr()s)."""
    codes = array.array("I", range(_LAST + 1))
    if sys.byteorder != "little":  # pragma: no cover
        codes.byteswap()
    return codes.tobytes().decode("utf-32-le", "surrogatepass")


def _union(parts: Iterable[Ranges]) -> Ranges:
    merged: list[tuple[int, int]] = []
    for lo, hi in sorted(pair for part in parts for pair in part):
        if merged and lo <= merged[-1][1] + 1:
            if hi > merged[-1][1]:
                merged[-1] = (merged[-1][0], hi)
        else:
            merged.append((lo, hi))
    return tuple(merged)


def _complement(chars: Ranges) -> Ranges:
    out: list[tuple[int, int]] = []
    start = 0
    for lo, hi in chars:
        if lo > start:
            out.append((start, lo - 1))
        start = hi + 1
    if start <= _LAST:
        out.append((start, _LAST))
    return tuple(out)


def _intersect(a: Ranges, b: Ranges) -> Ranges:
    out: list[tuple[int, int]] = []
    i = j = 0
    while i < len(a) and j < len(b):
        lo, hi = max(a[i][0], b[j][0]), min(a[i][1], b[j][1])
        if lo <= hi:
            out.append((lo, hi))
        if a[i][1] < b[j][1]:
            i += 1
        else:
            j += 1
    return tuple(out)


def _meet(a: Ranges, b: Ranges) -> bool:
    return bool(_intersect(a, b))


def _contains(chars: Ranges, code: int) -> bool:
    return any(lo <= code <= hi for lo, hi in chars)


def _describe(chars: Ranges) -> str:
    """A short name for a set of characters, for a message."""
    count = sum(hi - lo + 1 for lo, hi in chars)
    if count == 1:
        return repr(chr(chars[0][0]))
    if count > 0x10000:
        missing = _complement(chars)
        shown = "".join(chr(lo) if lo == hi else f"{chr(lo)}-{chr(hi)}"
                        for lo, hi in missing[:6])
        return f"[^{shown}]" if sum(hi - lo + 1 for lo, hi in missing) < 40 else "a class"
    shown = "".join(chr(lo) if lo == hi else f"{chr(lo)}-{chr(hi)}" for lo, hi in chars[:6])
    return f"[{shown}]" if len(chars) <= 6 else "a class"
