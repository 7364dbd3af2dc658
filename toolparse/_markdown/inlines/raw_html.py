"""Raw inline HTML and autolinks (CommonMark 6.5, 6.6; SPEC 4.2).

Grammar: TAG_OPEN, RAW_HTML (OPEN_TAG, CLOSING_TAG, HTML_COMMENT, ...), URI_AUTOLINK,
EMAIL_AUTOLINK.

They compete with code spans: whichever starts first wins, so the backticks inside a
complete tag that opened before them are no run. Whether `<...` is a complete tag is
known only at its end (tags may span lines), so an unescaped `<` in the last view is a
*candidate* (`views.py`) stepped through the union of the three automata, one look-up
per character (`TagCandidate`; the union is built as texts walk it, `dfa.Union`).
Characters with no inline meaning are skipped over, for every candidate at once, and a
quoted attribute value by one search for its closing quote. Two shortcuts keep prose
with comparisons and generics cheap: a `<` that no tag can continue with the next
character (`<<`, `< `, `<1`) is nothing, and one whose tag completes or fails before
any character with an inline meaning is never followed (one bounded compiled match,
else a read-ahead of the automata): it cannot change a code span. So is a complete tag
whose only such characters are link brackets that cannot split the world
(`links.skip_brackets`), like most `<![CDATA[...]]>`.
"""

from __future__ import annotations

import re
from typing import Final, NamedTuple

from toolparse._markdown.inlines import links
from toolparse._markdown.inlines.state import (
    ALIVE, COMPLETE, DEAD, MAX_CANDIDATES, Candidate, InlineState, skip_states)
from toolparse._markdown.inlines.views import push_candidate
from toolparse._markdown import syntax as tuning
from toolparse._markdown.syntax import INLINE_AUTOMATA, automata, syntax
from toolparse._syntax.dfa import Union
from toolparse._syntax.once import Once

__all__ = ["Patterns", "patterns", "tag_open", "dead_after", "tags_change_nothing",
           "new_candidate", "TAG_WINDOW"]

# How far ahead of a `<` one compiled match looks for a complete tag (a bound on the
# work per `<`; a longer tag is followed by the automata as it arrives).
TAG_WINDOW: Final = 512


class Patterns(NamedTuple):
    inline_tag: re.Pattern[str]   # a complete tag or autolink, one compiled match
    tag_stops: re.Pattern[str]    # what a tag may not hold for that match to count
    stops: str                    # the characters with an inline meaning
    not_brackets: re.Pattern[str]  # a tag stop other than a link bracket


def patterns() -> Patterns:
    return _PATTERNS.get()


def _build_patterns() -> Patterns:
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


_PATTERNS: Final = Once(_build_patterns)


def _union() -> Union:
    """The inline automata (raw HTML, URI and e-mail autolinks) as one, walked."""
    return _UNION.get()


_UNION: Final = Once(lambda: Union(automata().inline))


class TagCandidate(Candidate):
    """A `<` that may be a raw HTML tag or an autolink: one state of the union of
    their automata (`states[0]`), one look-up per character."""

    __slots__ = ("union",)

    def __init__(self, union: Union, state: int) -> None:
        super().__init__((), [state], 1)
        self.union = union

    def blank(self) -> TagCandidate:
        return TagCandidate(self.union, 0)

    def step(self, ch: str) -> int:
        union = self.union
        state = union.step(self.states[0], ch)
        self.states[0] = state
        if state < 0:
            self.live = 0
            return DEAD
        if union.final[state]:
            self.which = 0
            return COMPLETE
        return ALIVE

    def skip(self, text: str, i: int, n: int, stops: str) -> int:
        i, self.states[0] = skip_states(self.union, self.states[0], text, i, n, stops)
        return i

    def skipped(self, before: list[int], text: str) -> None:
        state = before[0]
        for ch in text:
            state = self.union.step(state, ch)
        self.states[0] = state


def new_candidate(tag_open: str) -> Candidate | None:
    union = _union()
    state = union.step(union.initial, tag_open)
    return TagCandidate(union, state) if state >= 0 else None


def dead_after(tag_open: str, ch: str) -> bool:
    """Whether `tag_open` followed by `ch` can start no raw HTML tag or autolink
    (`<<`, `< `, `<1`): decided once per character instead of at every `<`."""
    known = _DEAD_AFTER.get(tag_open)
    if known is None:
        known = _DEAD_AFTER[tag_open] = {}
    dead = known.get(ch)
    if dead is None:
        cand = new_candidate(tag_open)
        dead = known[ch] = cand is None or cand.step(ch) == DEAD
    return dead


_DEAD_AFTER: Final[dict[str, dict[str, bool]]] = {}
"""`dead_after`'s answers: tag_open -> character -> dead."""


def candidate_ahead(text: str, i: int, n: int, tag_open: str, stops: str) -> int:
    """Read ahead a candidate opened by the `tag_open` just before text[i], with no
    other candidate alive: if the automata decide it before any character whose
    meaning it would change (in `stops`), it changes nothing and need not be
    followed: a tag that completes only takes characters with no inline meaning, and
    one that fails leaves the character that failed it to mean what it means without
    it. Returns where the scan goes on then (after the completing character, or at the
    failing one), else -1."""
    union = _union()
    rows, default, final = union.table, union.default, union.final
    state = union.step(union.initial, tag_open)
    k = i
    while k < n:
        ch = text[k]
        row = rows[state]
        if row is None:
            row = union.row(state)
        if ch in stops:
            if ch == "\r" or ch == "\n":
                ch = "\n"  # as the line ending steps them
            return k if row.get(ch, default[state]) < 0 else -1
        state = row.get(ch, default[state])
        if state < 0:
            return k
        if final[state]:
            return k + 1
        k += 1
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
    union = _union()
    state = union.step(union.initial, syntax().tag_open)
    for k in range(i, end):
        state = union.step(state, text[k])
        if state < 0:
            return False
        if union.final[state]:
            return k == end - 1
    return False


def tags_change_nothing(line: str, tag_open: str) -> bool:
    """Whether no `tag_open` in `line` (which ends with its line ending), read as
    `tag_open` below reads it with no candidate alive, changes anything: each is
    followed by a character that starts no raw HTML tag or autolink (`<<`, `< `), or
    its tag completes or fails before any character with an inline meaning (`<T>`,
    `<div class="x">`, `Vec<u8>`). Either way the scan only goes on past it."""
    stops = patterns().stops
    end = len(line)
    j = line.find(tag_open)
    while j >= 0:
        k = j + 1
        if not dead_after(tag_open, line[k]):
            k = candidate_ahead(line, k, end, tag_open, stops)
            if k < 0:
                return False  # alive at a character with a meaning: followed, in general
        j = line.find(tag_open, k)
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
    if n - i >= tuning.LOOKAHEAD_MIN:
        if not s.cands:
            # The automata first: most tags end, or fail, before any character with
            # an inline meaning. Else one compiled match, for a tag whose only such
            # characters are link brackets (`<![CDATA[...]]>`). (Where both would end
            # a tag, the automata's end may be the earlier one, as CommonMark reads
            # `<!-->-->`, and nothing between the two has an inline meaning.)
            k = candidate_ahead(text, i, n, opener, patterns().stops)
            if k < 0:
                k = _whole_tag(s, text, i, n)
            if k >= 0:
                return k
        elif candidate_ahead(text, i, n, opener, patterns().stops) >= 0:
            # Inside another candidate's text, the same read-ahead: decided before any
            # character with a meaning, this one changes no view, so it is not pushed;
            # the candidates alive go on from here over its text as over any other.
            return i
    cand = new_candidate(opener)
    if cand is not None:
        push_candidate(s, cand)
    return i
