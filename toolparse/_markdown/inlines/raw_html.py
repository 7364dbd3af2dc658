"""Raw inline HTML and autolinks (CommonMark 6.5, 6.6; SPEC 4.2).

Grammar: TAG_OPEN, RAW_HTML (OPEN_TAG, CLOSING_TAG, HTML_COMMENT, ...), URI_AUTOLINK,
EMAIL_AUTOLINK.

They compete with code spans: whichever starts first wins, so the backticks inside a
complete tag that opened before them are no run. Whether `<...` is a complete tag is
known only at its end (tags may span lines), so an unescaped `<` in the last view is a
*candidate* stepped through the three automata (`views.py`). Two shortcuts keep prose
with comparisons and generics cheap: a `<` that no tag can continue with the next
character (`<<`, `< `, `<1`) is nothing, and one whose tag completes or fails before
any character with an inline meaning is never followed (one bounded compiled match,
else a read-ahead of the automata): it cannot change a code span. So is a complete tag
whose only such characters are link brackets that cannot split the world
(`links.skip_brackets`), like most `<![CDATA[...]]>`.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from toolparse._markdown.inlines import links
from toolparse._markdown.inlines.state import DEAD, MAX_CANDIDATES, Candidate, InlineState
from toolparse._markdown.inlines.views import push_candidate
from toolparse._markdown import syntax as tuning
from toolparse._markdown.syntax import INLINE_AUTOMATA, automata, syntax
from toolparse._syntax.dfa import DFA

__all__ = ["Patterns", "patterns", "tag_open", "dead_after", "dead_tags_only",
           "new_candidate", "TAG_WINDOW"]

# How far ahead of a `<` one compiled match looks for a complete tag (a bound on the
# work per `<`; a longer tag is followed by the automata as it arrives).
TAG_WINDOW = 512



@dataclass(frozen=True, slots=True)
class Patterns:
    inline_tag: re.Pattern[str]   # a complete tag or autolink, one compiled match
    tag_stops: re.Pattern[str]    # what a tag may not hold for that match to count
    stops: str                    # the characters with an inline meaning
    not_brackets: re.Pattern[str]  # a tag stop other than a link bracket


@functools.cache
def patterns() -> Patterns:
    syn = syntax()
    stops = (syn.backtick + syn.backslash + syn.tag_open + syn.link_open + syn.link_close
             + "\r\n")
    return Patterns(
        inline_tag=re.compile("|".join("(?:" + syn.need(name) + ")"
                                       for name in INLINE_AUTOMATA)),
        # A character with an inline meaning, or NUL (which the automata read as
        # U+FFFD): a tag holding one must be followed character by character.
        tag_stops=re.compile("[" + re.escape(stops) + "\\x00]"),
        stops=stops,
        not_brackets=re.compile("[" + re.escape(stops.replace(syn.link_open, "").replace(
            syn.link_close, "")) + "\\x00]"),
    )


@functools.cache
def _opened(tag_open: str) -> tuple[tuple[DFA, ...], tuple[int, ...], int]:
    """The inline automata, their states after `tag_open`, and how many are alive."""
    dfas = automata().inline
    states = tuple(d.table[d.initial].get(tag_open, d.default[d.initial]) for d in dfas)
    return dfas, states, sum(s >= 0 for s in states)


def new_candidate(tag_open: str) -> Candidate | None:
    dfas, states, live = _opened(tag_open)
    if not live:
        return None
    return Candidate(dfas, list(states), live)


@functools.cache
def dead_after(tag_open: str, ch: str) -> bool:
    """Whether `tag_open` followed by `ch` can start no raw HTML tag or autolink
    (`<<`, `< `, `<1`): decided once per character instead of at every `<`."""
    cand = new_candidate(tag_open)
    return cand is None or cand.step(ch) == DEAD


_Automaton = tuple[tuple[dict[str, int], ...], tuple[int, ...], tuple[bool, ...], int]


@functools.cache
def _after_tag_open(tag_open: str) -> tuple[_Automaton, ...]:
    """The inline automata a `tag_open` leaves alive: (table, default, final, state)."""
    out = []
    for dfa in automata().inline:
        state = dfa.table[dfa.initial].get(tag_open, dfa.default[dfa.initial])
        if state >= 0:
            out.append((dfa.table, dfa.default, dfa.final, state))
    return tuple(out)


def _one_ahead(automaton: _Automaton, text: str, k: int, n: int, stops: str) -> int:
    """`_candidate_ahead` once a single automaton is left."""
    table, default, final, state = automaton
    while k < n:
        ch = text[k]
        if ch in stops:
            if ch == "\r" or ch == "\n":
                ch = "\n"
            state = table[state].get(ch, default[state])
            return k if state < 0 else -1
        state = table[state].get(ch, default[state])
        if state < 0:
            return k
        if final[state]:
            return k + 1
        k += 1
    return -1


def candidate_ahead(text: str, i: int, n: int, tag_open: str, stops: str) -> int:
    """Read ahead a candidate opened by the `tag_open` just before text[i], with no
    other candidate alive: if the automata decide it before any character whose
    meaning it would change (in `stops`), it changes nothing and need not be
    followed: a tag that completes only takes characters with no inline meaning, and
    one that fails leaves the character that failed it to mean what it means without
    it. Returns where the scan goes on then (after the completing character, or at the
    failing one), else -1."""
    live = _after_tag_open(tag_open)
    k = i
    while k < n:
        ch = text[k]
        stop = ch in stops
        if stop and (ch == "\r" or ch == "\n"):
            ch = "\n"  # as the line ending steps them
        alive = []
        for table, default, final, state in live:
            state = table[state].get(ch, default[state])
            if state >= 0:
                if final[state]:
                    return -1 if stop else k + 1
                alive.append((table, default, final, state))
        if not alive:
            return k
        if stop:
            return -1
        k += 1
        if len(alive) == 1:  # the common case after a few characters: one automaton
            return _one_ahead(alive[0], text, k, n, stops)
        live = tuple(alive)
    return -1


def _whole_tag(s: InlineState, text: str, i: int, n: int) -> int:
    """A complete tag or autolink from the `tag_open` just before text[i], found by one
    bounded match, that changes nothing: its end, else -1."""
    pat = patterns()
    m = pat.inline_tag.match(text, i - 1, min(n, i - 1 + TAG_WINDOW))
    if m is None:
        return -1
    end = m.end()
    if pat.tag_stops.search(text, i, end) is None or _brackets_only(s, text, i, end):
        return end
    return -1


def _brackets_only(s: InlineState, text: str, i: int, end: int) -> bool:
    """The tag matched up to `end` holds link brackets but no other character with an
    inline meaning: skip it if it completes there and its brackets cannot matter
    (`links.skip_brackets`)."""
    return (s.head is None and patterns().not_brackets.search(text, i, end) is None
            and _completes_at(text, i, end) and links.skip_brackets(s, text, i, end))


def _completes_at(text: str, i: int, end: int) -> bool:
    """Whether the candidate opened by the `tag_open` just before text[i] completes with
    text[end - 1], stepped as `Candidate.step` steps it (text[i:end] holds no line
    ending and no NUL)."""
    live = _after_tag_open(syntax().tag_open)
    for k in range(i, end):
        ch = text[k]
        alive = []
        for table, default, final, state in live:
            state = table[state].get(ch, default[state])
            if state >= 0:
                if final[state]:
                    return k == end - 1
                alive.append((table, default, final, state))
        if not alive:
            return False
        live = tuple(alive)
    return False


def dead_tags_only(line: str, tag_open: str) -> bool:
    """Whether every `tag_open` in `line` (which ends with its line ending) is followed
    by a character that starts no raw HTML tag or autolink."""
    j = line.find(tag_open)
    while j >= 0:
        if not dead_after(tag_open, line[j + 1]):
            return False
        j = line.find(tag_open, j + 1)
    return True


def tag_open(s: InlineState, text: str, i: int, n: int) -> int:
    """An unescaped `<` just before text[i] in the last view: a candidate, unless it
    is decided at once. Returns where the scan goes on."""
    if len(s.cands) >= MAX_CANDIDATES:
        return i
    syn = syntax()
    opener = syn.tag_open
    if i < n and dead_after(opener, text[i]):
        return i  # (`<<`, `< `, `<1`)
    if not s.cands and n - i >= tuning.LOOKAHEAD_MIN:
        k = _whole_tag(s, text, i, n)
        if k < 0:
            k = candidate_ahead(text, i, n, opener, patterns().stops)
        if k >= 0:
            return k
    cand = new_candidate(opener)
    if cand is not None:
        push_candidate(s, cand)
    return i
