"""HTML blocks (CommonMark 4.6; SPEC 4.4).

Grammar: HTML_BLOCK_1_START .. HTML_BLOCK_6_START, HTML_BLOCK_7_LINE,
HTML_BLOCK_1_END .. HTML_BLOCK_5_END.

*Start*, at a line's first non-space `<`: kinds 1-6 by their start patterns (they may
interrupt a paragraph); kind 7 when the whole line is one complete open or closing tag
(it may not), which only the line's end can tell: the line is *speculated* (mode
SPEC_HTML7, stepped through the HTML_BLOCK_7_LINE automaton and held) until the tag
fails (a paragraph after all) or the line ends. *Continue*: kinds 1-5 end with the
line that holds their end condition (searched in every line, the first included),
kinds 6 and 7 at a blank line. No fence, span or indented code opens inside one.
"""

from __future__ import annotations

import functools
import re
from toolparse._markdown.state import (
    BlockState, LEAF_HTML, LEAF_NONE, LEAF_PARAGRAPH, MODE_HTML_LINE, MODE_INLINE, Mode,
    OUTCOME_HTML, OUTCOME_HTML7_SPEC, OUTCOME_WAIT, Outcome)
from toolparse._markdown.syntax import automata, syntax
from toolparse._syntax.files import cached_json
from toolparse._syntax.regexp import Partial, reach

__all__ = ["start_kind", "start", "continues", "feed", "atom", "spec_feed", "spec_atom",
           "spec_to_paragraph", "first_line_kind"]


class _HtmlSyntax:
    __slots__ = ("starts", "whole_starts", "start_reach", "ends", "end_width")

    def __init__(self) -> None:
        syn = syntax()
        self.starts: tuple[Partial, ...] = tuple(
            syn.partial(f"HTML_BLOCK_{kind}_START") for kind in range(1, 7))
        self.whole_starts: tuple[re.Pattern[str], ...] = tuple(
            syn.compiled(f"HTML_BLOCK_{kind}_START") for kind in range(1, 7))
        """The same, for a whole line (`re`: no partial match needed)."""
        reaches = [reach(syn.need(f"HTML_BLOCK_{kind}_START")) for kind in range(1, 7)]
        self.start_reach = max((r for r in reaches if r is not None), default=0) \
            if None not in reaches else None
        """How far past a `<` the starts can look: with more text than that after it, a
        complete match decides as the whole line would (None: no such bound)."""
        ends: list[re.Pattern[str] | None] = [None]
        ends += [syn.compiled(f"HTML_BLOCK_{kind}_END") for kind in range(1, 6)]
        self.ends: tuple[re.Pattern[str] | None, ...] = (*ends, None, None)
        self.end_width = max(syn.widths[f"HTML_BLOCK_{kind}_END"] for kind in range(1, 6))


@functools.cache
def _syntax() -> _HtmlSyntax:
    return _HtmlSyntax()


@functools.cache
def _lone_open() -> int:
    """What a `<` with nothing after it yet reads as (-1: need more), the way a tool
    block's tag is asked about at a line start. Cached with the patterns: it needs a
    partial match, and a warm start then needs no `regex`."""
    html, tag_open = _syntax(), syntax().tag_open
    return cached_json("html_lone_open",
                       "\0".join((tag_open, *(p.pattern for p in html.starts))),
                       lambda: _partial_kind(html.starts, tag_open, 0), int)


def open_block(t: BlockState, kind: int) -> None:
    t.open_leaf(LEAF_HTML)
    t.html_kind, t.html_tail, t.html_closing = kind, "", False


# ----------------------------------------------------------------------- start

def start_kind(buf: str, i: int) -> int:
    """The kind (1-6) of HTML block starting at buf[i], or 0; -1 when the end of `buf`
    could still become a start. Text that goes on past every start's reach cannot, and
    is read the faster way (`first_line_kind`)."""
    html = _syntax()
    left = len(buf) - i
    if html.start_reach is not None and left > html.start_reach:
        return first_line_kind(buf, i)
    lone = left == 1 and buf[i] == syntax().tag_open
    return _lone_open() if lone else _partial_kind(html.starts, buf, i)


def _partial_kind(starts: tuple[Partial, ...], buf: str, i: int) -> int:
    for kind, pattern in enumerate(starts, 1):
        m = pattern.match(buf, i, partial=True)
        if m is not None:
            return -1 if m.partial else kind
    return 0


def first_line_kind(probe: str, at: int) -> int:
    """Like `start_kind` on a whole first line (no "need more"). Each start is a fixed
    name and a one-character lookahead, so a complete match is the same with or
    without partial matching; the `re` engine finds it faster."""
    for kind, pattern in enumerate(_syntax().whole_starts, 1):
        if pattern.match(probe, at) is not None:
            return kind
    return 0


def start(t: BlockState, buf: str, i: int, col: int, indent: int,
          in_para: bool) -> tuple[Outcome, int] | None:
    if buf[i] != syntax().tag_open:
        return None
    kind = start_kind(buf, i)
    if kind < 0:
        t.ls_wait = None  # any character may decide
        return OUTCOME_WAIT, -1
    if kind:
        t.close_unmatched()
        open_block(t, kind)
        return OUTCOME_HTML, i
    if not in_para and not (not t.ls_closed and t.leaf is LEAF_PARAGRAPH):
        t.close_unmatched()
        t.goto(i, col)
        return OUTCOME_HTML7_SPEC, i
    return None


# -------------------------------------------------------------------- continue

def continues(t: BlockState, blank: bool) -> bool:
    """Stage 1 with an HTML block open: does this line belong to it?"""
    if blank and t.html_kind >= 6:
        return False
    t.html_tail = ""
    t.html_closing = False
    return True


def feed(t: BlockState, text: str, i: int, n: int) -> int:
    """Mode HTML_LINE: look for the end condition up to the line end."""
    m = syntax().eol_scan.search(text, i)
    j = m.start() if m else n
    kind = t.html_kind
    if kind <= 5 and not t.html_closing and j > i:
        html = _syntax()
        seg = t.html_tail + text[i:j]
        end = html.ends[kind]
        assert end is not None
        if end.search(seg) is not None:
            t.html_closing = True
        else:
            t.html_tail = seg[-(html.end_width - 1):]
    if m is None:
        return n
    if t.html_closing:
        t.leaf = LEAF_NONE
    return t.end_line(text, j)


def atom(t: BlockState, raw: str) -> None:
    """A tool block inside an HTML block. Its lines are no Markdown lines (a blank
    line in it does not end the block), but an end condition of kinds 1-5 in its
    text ends the block with this line, as markdown-it, which sees that text, does."""
    kind = t.html_kind
    if kind <= 5 and not t.html_closing:
        end = _syntax().ends[kind]
        assert end is not None
        if end.search(raw) is not None:
            t.html_closing = True
    t.html_tail = ""


# ------------------------------------------------------- speculated kind-7 line

def spec_feed(t: BlockState, text: str, i: int, n: int) -> int:
    dfa = automata().html_block_7
    table, default = dfa.table, dfa.default
    state = t.spec_dfa
    backtick = syntax().backtick
    j = i
    while j < n:
        ch = text[j]
        if ch == "\n" or ch == "\r":
            break
        nxt = table[state].get(ch, default[state])
        if nxt < 0:
            break
        if ch == backtick:
            t.spec_backtick = True
        state = nxt
        j += 1
    if j > i:
        t.hold(text[i:j])
    t.spec_dfa = state
    if j == n:
        return n
    if (text[j] == "\n" or text[j] == "\r") and dfa.final[state]:
        _to_block(t)
        return j
    spec_to_paragraph(t)
    return j


def _to_block(t: BlockState) -> None:
    marks = t.take_held_line()
    open_block(t, 7)
    t.move(MODE_HTML_LINE, "the end of a line that is one tag")
    t.resolve_marks(marks, False)


def spec_atom(t: BlockState, raw: str, first: str, has_eol: bool) -> None:
    """A tool block on a line that may be an HTML block of kind 7: its first line
    decides (its line ending ends the line for that decision)."""
    dfa = automata().html_block_7
    state = dfa.run(t.spec_dfa, first)
    if state < 0 or (has_eol and not dfa.final[state]):
        spec_to_paragraph(t)
        t.inline_atom(raw)
    elif has_eol:
        _to_block(t)
    else:
        t.spec_dfa = state
        t.marks.append((t.lb_len, raw))


def spec_to_paragraph(t: BlockState) -> None:
    buf = t.held_line()
    marks = t.take_held_line()
    t.open_leaf(LEAF_PARAGRAPH)
    t.move(MODE_INLINE, "a line that is not one tag")
    t.heading = False
    t.replay(buf, 0, marks)


def spec_enter(t: BlockState) -> None:
    """The line-start machine chose SPEC_HTML7."""
    t.spec_backtick = False
    t.spec_dfa = automata().html_block_7.initial
