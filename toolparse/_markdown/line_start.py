"""The line-start machine: which blocks a line continues, ends and starts (commonmark.js
`incorporateLine`, resumable), run over the table of block starts.

At a line start the tracker holds the line's first characters (`lb_parts`) until its
block structure is decided, in three stages:

  0. the open containers it continues (`container.continue_all`);
  1. whether it continues the open leaf (fence, indented code, HTML block, paragraph);
  2. what it starts: `BLOCK_STARTS`, tried in order at the first non-space character
     (at most 3 columns in), then indented code at 4 or more, then paragraph text.

The registers (`ls_off`, `ls_col`, `ls_ptab`: offset, column, partly used tab) and
the stage are saved after every decided step, and a step that runs out of text raises
`NeedMore` before it changes anything, so a line cut anywhere resumes where it was.
(The two most frequent waits, a held line of spaces so far and a `<` too short to name
an HTML block's kind, return `OUTCOME_WAIT` instead, with `ls_wait` set: the same
answer, without an exception's cost in the compiled build.)
Most lines decide on their first non-space character. A line that may be a thematic
break, a setext underline or a closing fence waits for a character that rules it out
or for its end; while only such characters arrive, new pieces are appended without
re-examination (the "wait set"). Consumed container markers are dropped from the held
text, so a held line start stays short however it arrives.

The whole-line shortcut (`lines.py`) decides the common lines from the same table: the
rules that have a `line` pattern decide there, with the same state change.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

from toolparse._markdown.blocks import container, fence, html_block, indented, leaf
from toolparse._markdown.state import (
    BlockState, LEAF_FENCE, LEAF_HTML, LEAF_INDENTED, LEAF_NONE, LEAF_PARAGRAPH, NeedMore,
    OUTCOME_CODE, OUTCOME_HTML, OUTCOME_WAIT, Outcome)
from toolparse._markdown.syntax import CODE_INDENT, syntax

__all__ = ["BlockRule", "BLOCK_STARTS", "machine"]

StartRule = Callable[["BlockState", str, int, int, int, bool], Any]


class BlockRule(NamedTuple):
    """One entry of the block-start table (commonmark.js `blockStarts`)."""

    name: str              # the block it starts
    start: StartRule       # (tracker, line, offset, column, indent, in_paragraph) ->
                           # None (no), True (a container opened), (Outcome, offset)
    terminals: tuple[str, ...]  # the grammar terminals it starts with
    section: str           # CommonMark 0.31.2 section


BLOCK_STARTS: tuple[BlockRule, ...] = (
    BlockRule("block quote", container.quote_start, ("BLOCKQUOTE_MARKER",), "5.1"),
    BlockRule("ATX heading", leaf.atx_start, ("ATX_HEADING_MARKER",), "4.2"),
    BlockRule("fenced code", fence.start, ("BACKTICK_FENCE", "TILDE_FENCE"), "4.5"),
    BlockRule("HTML block", html_block.start,
              tuple(f"HTML_BLOCK_{k}_START" for k in range(1, 7)) + ("HTML_BLOCK_7_LINE",),
              "4.6"),
    BlockRule("setext heading", leaf.setext_start, ("SETEXT_UNDERLINE",), "4.3"),
    BlockRule("thematic break", leaf.thematic_start, ("THEMATIC_BREAK",), "4.1"),
    BlockRule("list item", container.item_start,
              ("BULLET_LIST_MARKER", "ORDERED_LIST_MARKER"), "5.2"),
)


# ------------------------------------------------------------------- stages

def machine(t: BlockState, buf: str) -> tuple[Outcome, int]:
    """Run the stages over the held line `buf` (resumable); the outcome and where the
    rest of the line starts, or NeedMore."""
    if t.ls_stage == 0:
        container.continue_all(t, buf)
        t.ls_stage = 1
        if t.ls_k < len(t.blocks) or t.leaf is LEAF_NONE:
            t.ls_stage = 2
            t.ls_closed = t.ls_k == len(t.blocks)
    if t.ls_stage == 1:
        decided = _continue_leaf(t, buf)
        if decided is not None:
            return decided
        t.ls_stage = 2
        t.ls_closed = t.ls_leaf_ok
    return _starts(t, buf)


def _continue_leaf(t: BlockState, buf: str) -> tuple[Outcome, int] | None:
    """Stage 1: the open leaf, when every container continues."""
    found = t.nns_or_none(buf)
    if found is None:
        t.ls_wait = syntax().wait_ws
        return OUTCOME_WAIT, -1
    i, col, blank = found
    indent = col - t.ls_col
    kind = t.leaf
    if kind is LEAF_FENCE:
        return fence.continue_line(t, buf, i, indent)
    if kind is LEAF_INDENTED:
        if indented.continues(indent, blank):
            return OUTCOME_CODE, i
        t.ls_leaf_ok = False
    elif kind is LEAF_HTML:
        if html_block.continues(t, blank):
            return OUTCOME_HTML, i
        t.ls_leaf_ok = False
    else:  # paragraph
        t.ls_leaf_ok = not blank
    return None


def _starts(t: BlockState, buf: str) -> tuple[Outcome, int]:
    """Stage 2: the table of block starts, then indented code, then text."""
    block_start = syntax().block_start.match
    while True:
        i, col, blank = t.nns(buf)
        indent = col - t.ls_col
        if indent >= CODE_INDENT:
            decided = indented.start(t, buf, i, blank)
            return decided if decided is not None else leaf.step_c(t, i, blank)
        if block_start(buf[i]) is None:
            return leaf.step_c(t, i, blank)
        in_para = t.leaf is LEAF_PARAGRAPH and t.ls_leaf_ok and not t.ls_started
        for rule in BLOCK_STARTS:
            started = rule.start(t, buf, i, col, indent, in_para)
            if started is True:
                break  # a container opened: the next block start
            if started is not None:
                return started  # type: ignore[no-any-return]
        else:
            return leaf.step_c(t, i, blank)
