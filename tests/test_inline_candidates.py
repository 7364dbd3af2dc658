"""Inline candidates (a `<` that may be a tag, a `](` that may be a link's tail) moved
over many characters at once must end exactly where stepping them one character at a
time ends: the tracker's answers depend on it (SPEC 4.2)."""

from __future__ import annotations

import copy

from hypothesis import given, strategies as st

from toolparse._markdown.inlines import links, raw_html
from toolparse._markdown.inlines.state import (
    ALIVE, COMPLETE, DEAD, Candidate, Definitions, InlineState)
from toolparse._markdown.inlines.views import skip_candidates
from toolparse._markdown.syntax import automata
from toolparse._syntax.dfa import Union

# Characters that move the inline automata (tag names, attributes, quotes, comments,
# schemes, e-mail addresses), the characters with an inline meaning, and others.
_CHARS = st.sampled_from(list('abAZ09-_:./@=\'" \t\n!?[]<>`\\(){}|é\u3000\x00') + ["--", "-->"])
_TEXT = st.lists(_CHARS, max_size=40).map("".join)
_STOPS = raw_html.patterns().stops
# Where a candidate may stand when the text goes on: in a quoted value (which loops), a
# comment, a tag name, a scheme, an e-mail address, or anywhere random text leads.
_PREFIX = st.one_of(st.sampled_from(['a b="', "a b='", "!--", "a", "ab:", "a.b@c", "?",
                                     "![CDATA[", "a b", "a/"]), _TEXT)


def _parts_verdicts(text: str) -> list[int]:
    """Stepping the raw-HTML and autolink automata one by one over `text`: after each
    character, ALIVE, COMPLETE (some part matched) or DEAD (every part dead)."""
    parts = automata().inline
    states = [part.initial for part in parts]
    out = []
    for ch in text:
        states = [part.table[s].get(ch, part.default[s]) if s >= 0 else -1
                  for part, s in zip(parts, states)]
        if any(s >= 0 and part.final[s] for part, s in zip(parts, states)):
            out.append(COMPLETE)
            break
        out.append(ALIVE if max(states) >= 0 else DEAD)
        if out[-1] == DEAD:
            break
    return out


@given(_TEXT)
def test_the_union_says_what_its_parts_say(text: str) -> None:
    union = Union(automata().inline)
    state = union.initial
    out = []
    for ch in text:
        state = union.step(state, ch)
        if state >= 0 and union.final[state]:
            out.append(COMPLETE)
            break
        out.append(ALIVE if state >= 0 else DEAD)
        if state < 0:
            break
    assert out == _parts_verdicts(text)


def test_a_copied_tracker_shares_the_union() -> None:
    union = Union(automata().inline)
    assert copy.deepcopy(union) is union


def _candidates(prefixes: list[str]) -> list[Candidate]:
    """Candidates alive after `<` and each prefix (one also a link tail after `](`)."""
    out: list[Candidate] = []
    for prefix in prefixes:
        cand = raw_html.new_candidate("<")
        assert cand is not None
        if all(cand.step(ch) == ALIVE for ch in prefix):
            out.append(cand)
    tail = links._tail(links.Bracket(1, False, None, 0, None, None), shortcut=False)
    if tail is not None and prefixes and prefixes[0].startswith("a"):
        out.insert(0, tail)
    return out


def _stepped(cands: list[Candidate], text: str, i: int) -> int:
    """Where stepping each character through every candidate first meets a character
    with an inline meaning, or kills or completes one of them (that character is not
    taken), as the tracker's slow path does."""
    while i < len(text):
        ch = text[i]
        if ch in _STOPS:
            return i
        trial = [c.clone() for c in cands]
        if any(c.step(ch) != ALIVE for c in trial):
            return i
        for c in cands:
            c.step(ch)
        i += 1
    return i


@given(st.lists(_PREFIX, min_size=1, max_size=4), _TEXT, _TEXT)
def test_skipping_candidates_ends_where_stepping_them_ends(
        prefixes: list[str], before: str, text: str) -> None:
    cands = _candidates(prefixes)
    if not cands:
        return
    doc = before + text
    by_step = [c.clone() for c in cands]
    end = _stepped(by_step, doc, len(before))
    by_skip = [c.clone() for c in cands]
    assert skip_candidates(by_skip, doc, len(before), len(doc), _STOPS) == end
    assert [(c.states, c.live) for c in by_skip] == [(c.states, c.live) for c in by_step]


def test_a_quoted_value_is_skipped_to_its_end_in_one_search() -> None:
    # `<a b="` leaves the open-tag automaton in a state every character but `"` keeps.
    cand = raw_html.new_candidate("<")
    assert cand is not None
    for ch in 'a b="':
        assert cand.step(ch) == ALIVE
    text = "x" * 5000 + '"' + ">"
    assert cand.skip(text, 0, len(text), _STOPS) == 5001  # the `>` completes it: not taken
    assert cand.step(">") == COMPLETE


@given(_PREFIX, _TEXT)
def test_the_read_ahead_and_the_whole_tag_match_go_on_alike_in_either_order(
        prefix: str, rest: str) -> None:
    """`tag_open` asks the automata first (`candidate_ahead`) and the whole-tag match
    only when they stop at a character with an inline meaning; it asked them the other
    way round before. Either order gives the same place to go on from, or two places
    between which nothing has an inline meaning: the automata may end a tag earlier
    than the match (`<!-->-->` is the comment `<!-->`, CommonMark's first
    alternative, which the match reads on to the later `-->`)."""
    text = "<" + prefix + rest
    n = len(text)

    def ahead() -> int:
        return raw_html.candidate_ahead(text, 1, n, "<", _STOPS)

    def whole() -> int:
        return raw_html._whole_tag(InlineState([], Definitions()), text, 1, n)

    automata_first = ahead() if ahead() >= 0 else whole()
    match_first = whole() if whole() >= 0 else ahead()
    if automata_first != match_first:
        low, high = sorted((automata_first, match_first))
        assert low >= 0
        assert raw_html.patterns().tag_stops.search(text, low, high) is None
        assert _parts_verdicts(text[:automata_first])[-1] == COMPLETE  # a tag ends there
