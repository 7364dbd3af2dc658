"""Leaf blocks that hold inline text or end it: ATX headings, setext underlines,
thematic breaks, paragraphs (CommonMark 4.1, 4.2, 4.3, 4.8).

Grammar: ATX_HEADING_MARKER, SETEXT_UNDERLINE, THEMATIC_BREAK.

*ATX heading*: 1-6 `#` then a space, a tab or the line end; its content is inline
text (code spans work in it) that the line end ends. *Setext underline*: a run of `=`
or `-` directly under a paragraph line turns the paragraph into a heading, so it ends
it; unless the paragraph holds nothing but link reference definitions (then it is
paragraph text: commonmark.js parses definitions off first; a definition still open
does not take the underline's line). *Thematic break*: 3+ of the same `*`, `-` or `_`,
spaces and tabs between; it ends the paragraph before it. *Paragraph*: any other line;
a line that continues no container and starts no block continues an open paragraph
lazily.
"""

from __future__ import annotations

import functools

from toolparse._markdown.inlines import links
from toolparse._markdown.state import (
    BlockState, LEAF_HEADING, LEAF_PARAGRAPH, Leaf, NeedMore, OUTCOME_DONE, OUTCOME_HEADING,
    OUTCOME_INLINE, Outcome)
from toolparse._markdown.syntax import syntax, wait_for_other_than
from toolparse._syntax.regexp import Partial

__all__ = ["atx_start", "setext_start", "thematic_start", "step_c", "atx_line",
           "atx_line_open"]


class _LeafSyntax:
    __slots__ = ("atx", "setext", "thematic", "atx_first", "setext_first",
                 "thematic_first")

    def __init__(self) -> None:
        syn = syntax()
        self.atx: Partial = syn.partial("ATX_HEADING_MARKER")
        self.setext: Partial = syn.partial("SETEXT_UNDERLINE")
        self.thematic: Partial = syn.partial("THEMATIC_BREAK")
        self.atx_first = syn.first_chars("ATX_HEADING_MARKER")
        self.setext_first = syn.first_chars("SETEXT_UNDERLINE")
        self.thematic_first = syn.first_chars("THEMATIC_BREAK")


@functools.cache
def _syntax() -> _LeafSyntax:
    return _LeafSyntax()


def atx_start(t: BlockState, buf: str, i: int, col: int, indent: int,
              in_para: bool) -> tuple[Outcome, int] | None:
    leaf = _syntax()
    if buf[i] not in leaf.atx_first:
        return None
    m = leaf.atx.match(buf, i, partial=True)
    if m is None:
        return None
    if m.partial:
        raise NeedMore(None)
    t.close_unmatched()
    t.open_leaf(LEAF_HEADING)
    return OUTCOME_HEADING, m.end()


def setext_start(t: BlockState, buf: str, i: int, col: int, indent: int,
                 in_para: bool) -> tuple[Outcome, int] | None:
    leaf = _syntax()
    ch = buf[i]
    if not in_para or ch not in leaf.setext_first:
        return None
    m = leaf.setext.match(buf, i, partial=True)
    if m is None:
        return None
    if m.partial:
        raise NeedMore(wait_for_other_than(" \t" + ch))
    for state in t.worlds.states:
        links.fail_definitions(state)
    t.worlds.collect()
    if all(links.only_definitions(state) for state in t.worlds.states):
        return None
    t.close_leaf()
    return OUTCOME_DONE, m.end()


def thematic_start(t: BlockState, buf: str, i: int, col: int, indent: int,
                   in_para: bool) -> tuple[Outcome, int] | None:
    ch = buf[i]
    if ch not in _syntax().thematic_first:
        return None
    end = _thematic_break(t, buf, i, ch)
    if end == 0:
        return None
    if end < 0:
        raise NeedMore(wait_for_other_than(" \t" + ch))
    t.close_unmatched()
    t.close_leaf()
    if t.blocks:
        t.blocks[-1].has_child = True
    return OUTCOME_DONE, end


def _thematic_break(t: BlockState, buf: str, i: int, ch: str) -> int:
    """THEMATIC_BREAK at buf[i]: its end, 0 if there is none, -1 if the line has only
    `ch`, spaces and tabs so far (it may still be one). The first character after i
    that is none of those rules it out at every later position too, so it is
    remembered for the line: nested list markers (`- - - - x`) do not re-scan the rest
    of the line at each level."""
    known = t.ls_no_break.get(ch)
    if known is not None and known > i:
        return 0
    other = wait_for_other_than(" \t" + ch).search(buf, i)
    if other is None:
        return -1
    if buf[other.start()] not in "\r\n":
        t.ls_no_break[ch] = other.start()
        return 0
    m = _syntax().thematic.match(buf, i, other.end())
    return m.end() if m is not None else 0


def step_c(t: BlockState, i: int, blank: bool) -> tuple[Outcome, int]:
    """No (further) block start: the rest of the line is text."""
    if not t.ls_closed and not blank and t.leaf is LEAF_PARAGRAPH:
        return OUTCOME_INLINE, i  # lazy continuation
    t.close_unmatched()
    if blank:
        return OUTCOME_DONE, i
    if t.leaf is not LEAF_PARAGRAPH:
        t.open_leaf(LEAF_PARAGRAPH)
    return OUTCOME_INLINE, i


# ------------------------------------------------------- the whole-line shortcut

def atx_line() -> str:
    """For `lines.py`: an ATX heading marker."""
    return f"(?P<heading>{syntax().need('ATX_HEADING_MARKER')})"


def atx_line_open(t: BlockState, k: int) -> None:
    del t.blocks[k:]
    t.open_leaf(LEAF_HEADING)
    t.heading = True
