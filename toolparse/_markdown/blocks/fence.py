"""Fenced code blocks (CommonMark 4.5; SPEC 4.1).

Grammar: BACKTICK_FENCE, TILDE_FENCE, FENCE_CLOSE, FENCE_INFO_SCAN.

*Start*: at most 3 spaces of indentation, then a run of 3+ backticks or tildes; the
opening line is code (its info string included). A backtick fence's info string may
not contain a backtick, which only the rest of the line can tell: until a backtick or
the line end arrives the line is *speculated* (mode SPEC_FENCE, tickets PENDING), its
text held; a backtick makes it paragraph text (the run an ordinary backtick run), the
line end a fence. A fence may interrupt a paragraph.

*Continue*: every line is code until one with at most 3 spaces of indentation, a run
of the fence character at least as long, and only spaces or tabs after it. An unclosed
fence runs to the end of the stream or of its container.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING

from toolparse._markdown.blocks import leaf
from toolparse._markdown.state import (
    BlockState, LEAF_FENCE, LEAF_NONE, MODE_CODE_LINE, MODE_INLINE, Mode, NeedMore, OUTCOME_CODE,
    OUTCOME_DONE, OUTCOME_FENCE_SPEC, Outcome)
from toolparse._markdown.syntax import CODE_INDENT, syntax, wait_for_other_than
from toolparse._syntax.regexp import Partial

if TYPE_CHECKING:
    import re

__all__ = ["start", "continue_line", "closes_line", "line", "line_open", "spec_feed",
           "spec_to_paragraph", "spec_to_fence", "spec_atom"]


class _FenceSyntax:
    __slots__ = ("openers", "close", "close_line")

    def __init__(self) -> None:
        syn = syntax()
        self.openers: dict[str, Partial] = {
            syn.backtick: syn.partial("BACKTICK_FENCE"), syn.tilde: syn.partial("TILDE_FENCE")}
        self.close = syn.partial("FENCE_CLOSE")
        self.close_line: re.Pattern[str] = syn.compiled("FENCE_CLOSE")


@functools.cache
def _syntax() -> _FenceSyntax:
    return _FenceSyntax()


def open_fence(t: BlockState, ch: str, length: int) -> None:
    """A fence of `length` characters `ch` opens (the state change, for both ways)."""
    t.open_leaf(LEAF_FENCE)
    t.fence_char, t.fence_len = ch, length


# ----------------------------------------------------------------------- start

def start(t: BlockState, buf: str, i: int, col: int, indent: int,
          in_para: bool) -> tuple[Outcome, int] | None:
    ch = buf[i]
    fence = _syntax().openers.get(ch)
    if fence is None:
        return None
    m = fence.match(buf, i, partial=True)
    if m is None:
        return None
    if m.partial or m.end() == len(buf):  # the run may go on
        raise NeedMore(wait_for_other_than(ch))
    if ch == syntax().tilde:
        t.close_unmatched()
        open_fence(t, ch, m.end() - i)
        return OUTCOME_CODE, i
    t.spec_run = m.end() - i
    t.goto(i, col)
    return OUTCOME_FENCE_SPEC, i


# -------------------------------------------------------------------- continue

def continue_line(t: BlockState, buf: str, i: int, indent: int) -> tuple[Outcome, int]:
    """Stage 1 with a fence open: a closing fence ends it (DONE), else the line is code."""
    if indent < CODE_INDENT and buf[i] == t.fence_char:
        m = _syntax().close.match(buf, i, partial=True)
        if m is not None:
            if m.partial:
                fc = t.fence_char
                raise NeedMore(wait_for_other_than(fc) if buf[i:].strip(fc) == ""
                               else syntax().wait_ws)
            if len(m.group().rstrip(" \t")) >= t.fence_len:
                t.leaf = LEAF_NONE
                return OUTCOME_DONE, m.end()
    return OUTCOME_CODE, i


def closes_line(t: BlockState, text: str, q: int) -> None:
    """The whole-line shortcut's stage 1: the line at text[q] (at most 3 columns in,
    a whole line) closes the fence if it is a closing fence."""
    close = _syntax().close_line.match(text, q)
    if close is not None and len(close.group().rstrip(" \t")) >= t.fence_len:
        t.leaf = LEAF_NONE


# ------------------------------------------------------- the whole-line shortcut

def line() -> str:
    """For `lines.py`: a fence opener."""
    syn = syntax()
    return f"(?P<fence>{syn.need('BACKTICK_FENCE')}|{syn.need('TILDE_FENCE')})"


def line_open(t: BlockState, text: str, q: int, end: int, e: int, k: int) -> bool:
    """The shortcut found an opener text[q:end] on a whole line ending at text[e],
    under the first `k` containers: open it (False: a backtick follows the run, so
    the general code decides)."""
    ch = text[q]
    if ch != syntax().tilde and text.find(syntax().backtick, end, e) >= 0:
        return False
    del t.blocks[k:]
    open_fence(t, ch, end - q)
    return True


# ------------------------------------------------------------ speculated line

def spec_feed(t: BlockState, text: str, i: int, n: int) -> int:
    """Mode SPEC_FENCE: hold the line until a backtick or the line end decides it."""
    m = syntax().fence_info_scan.search(text, i)
    if m is None:
        t.hold(text[i:n])
        return n
    j = m.start()
    if j > i:
        t.hold(text[i:j])
    if text[j] == syntax().backtick:
        spec_to_paragraph(t)
    else:
        spec_to_fence(t)
    return j


def spec_to_paragraph(t: BlockState) -> None:
    """A backtick after the opening run: the line is paragraph text."""
    buf = t.held_line()
    marks = t.take_held_line()
    leaf.step_c(t, 0, False)
    t.move(MODE_INLINE, "a backtick in a fence's info string")
    t.heading = False
    t.replay(buf, 0, marks)


def spec_to_fence(t: BlockState) -> None:
    """The line ended with no backtick after the run: a fence opens."""
    marks = t.take_held_line()
    t.close_unmatched()
    open_fence(t, syntax().backtick, t.spec_run)
    t.move(MODE_CODE_LINE, "the end of a fence opener's line")
    t.resolve_marks(marks, True)


def spec_atom(t: BlockState, raw: str, first: str, has_eol: bool) -> None:
    """A tool block on a possible fence line: its first line decides (a backtick in
    it: paragraph; its line ending: a fence)."""
    if syntax().backtick in first:
        spec_to_paragraph(t)
        t.inline_atom(raw)
    elif has_eol:
        spec_to_fence(t)
    else:
        t.marks.append((t.lb_len, raw))
