"""Containers: block quotes and list items (CommonMark 5.1, 5.2, 5.3; SPEC 4.4).

Grammar: BLOCKQUOTE_MARKER, BULLET_LIST_MARKER, ORDERED_LIST_MARKER, ORDERED_LIST_ONE.

*Continue* (each line, outermost first): a block quote continues at `>` after at most
3 columns of indentation, plus one optional space (a tab there is used in part); a
list item continues when the line is indented to its content column, or is blank (if
the item holds a block). *Start*: a quote marker; a list item marker followed by a
space, a tab or the line end, whose content column is the marker's indentation plus
its width plus the spaces after it (1-4; with 5 or more, or none, plus 1). A list item
interrupts a paragraph only if it is not empty and, when ordered, starts at 1.

Bound: at most `MAX_NESTING` containers are open; a marker past that is paragraph text
(markdown-it-py stops at 20 levels, `maxNesting`, and drops what is deeper).
"""

from __future__ import annotations

import functools
from typing import Final

from toolparse._markdown.state import (
    BlockState, Container, LEAF_PARAGRAPH, NeedMore)
from toolparse._markdown.syntax import CODE_INDENT, syntax

__all__ = ["MAX_NESTING", "continue_all", "quote_start", "item_start", "item_line",
           "item_line_open", "ItemSyntax", "item_syntax"]

# How many block quotes and list items may be open at once.
MAX_NESTING: Final = 100


class ItemSyntax:
    __slots__ = ("bullet", "ordered", "ordered_one", "first")

    def __init__(self) -> None:
        syn = syntax()
        self.bullet = syn.partial("BULLET_LIST_MARKER")
        self.ordered = syn.partial("ORDERED_LIST_MARKER")
        self.ordered_one = syn.compiled("ORDERED_LIST_ONE")
        self.first = syn.first_chars("BULLET_LIST_MARKER", "ORDERED_LIST_MARKER")


@functools.cache
def item_syntax() -> ItemSyntax:
    return ItemSyntax()


# ---------------------------------------------------------------- continuation

def continue_all(t: BlockState, buf: str) -> None:
    """Stage 0 of the line-start machine: match the open containers in order (from
    `t.ls_k`, resumable); stops at the first one the line does not continue."""
    syn = syntax()
    blocks = t.blocks
    n = len(buf)
    while t.ls_k < len(blocks):
        cont = blocks[t.ls_k]
        i, col, blank = t.nns(buf)
        indent = col - t.ls_col
        if cont.quote:
            if indent >= CODE_INDENT or buf[i] != syn.quote_marker:
                return
            if i + 1 >= n:
                raise NeedMore(None)
            t.goto(i, col)
            t.advance(buf, 1, False)
            if buf[t.ls_off] in " \t":
                t.advance(buf, 1, True)
        elif blank:
            if not cont.has_child:
                return
            t.goto(i, col)
        elif indent >= cont.content:
            t.advance(buf, cont.content, True)
        else:
            return
        t.ls_k += 1


# ----------------------------------------------------------------------- starts

def quote_start(t: BlockState, buf: str, i: int, col: int, indent: int,
                in_para: bool) -> bool | None:
    """A block quote marker at buf[i]: opens a quote (True), else None."""
    if buf[i] != syntax().quote_marker or len(t.blocks) >= MAX_NESTING:
        return None
    if i + 1 >= len(buf):
        raise NeedMore(None)
    t.goto(i, col)
    t.advance(buf, 1, False)
    if buf[t.ls_off] in " \t":
        t.advance(buf, 1, True)
    t.close_unmatched()
    t.add_container(Container(True, 0))
    return True


def item_start(t: BlockState, buf: str, i: int, col: int, indent: int,
               in_para: bool) -> bool | None:
    """A list item marker at buf[i]: opens an item (True), else None."""
    if buf[i] not in item_syntax().first or len(t.blocks) >= MAX_NESTING:
        return None
    item = _marker(t, buf, i, col, indent, in_para)
    if item is None:
        return None
    t.close_unmatched()
    t.add_container(item)
    return True


def _marker(t: BlockState, buf: str, i: int, col: int, indent: int,
            in_para: bool) -> Container | None:
    syn, items = syntax(), item_syntax()
    m = items.bullet.match(buf, i, partial=True)
    if m is None:
        m = items.ordered.match(buf, i, partial=True)
        if m is None:
            return None
        if m.partial:
            raise NeedMore(None)
        if in_para and items.ordered_one.fullmatch(m.group()) is None:
            return None
    elif m.partial:
        raise NeedMore(None)
    n = len(buf)
    if in_para:
        # An item that interrupts a paragraph may not start with a blank line.
        r = syn.indent_run.match(buf, m.end())
        j = r.end() if r else m.end()
        if j >= n:
            raise NeedMore(syn.wait_ws)
        if buf[j] == "\n" or buf[j] == "\r":
            return None
    return Container(False, indent + _padding(t, buf, i, col, m.end() - i))


def _padding(t: BlockState, buf: str, i: int, col: int, width: int) -> int:
    """The columns from the marker to the item's content (the spaces after the marker
    are peeked at, at most 5 columns); moves the registers to the content."""
    n = len(buf)
    saved = (t.ls_off, t.ls_col, t.ls_ptab)
    t.goto(i, col)
    t.advance(buf, width, True)
    start_col, start_off = t.ls_col, t.ls_off
    while True:
        t.advance(buf, 1, True)
        if t.ls_off >= n:
            t.ls_off, t.ls_col, t.ls_ptab = saved
            raise NeedMore(None)
        nxt = buf[t.ls_off]
        if not (t.ls_col - start_col < 5 and nxt in " \t"):
            break
    spaces = t.ls_col - start_col
    if spaces >= 5 or spaces < 1 or nxt == "\n" or nxt == "\r":
        t.ls_col, t.ls_off = start_col, start_off
        if buf[t.ls_off] in " \t":
            t.advance(buf, 1, True)
        return width + 1
    return width + spaces


# ------------------------------------------------------- the whole-line shortcut

def item_line(no_block: str) -> str:
    """For `lines.py`: a list item marker with 1-4 spaces and paragraph text after it
    (`no_block`: a character that starts no block)."""
    syn = syntax()
    return (f"(?P<item>(?:{syn.need('BULLET_LIST_MARKER')}|(?P<ordered>"
            f"{syn.need('ORDERED_LIST_MARKER')}))(?: {{1,4}})(?={no_block}))")


def item_line_open(t: BlockState, ordered: str | None, interrupts: bool,
                   indent: int, width: int, k: int) -> bool:
    """The shortcut found an item marker (`ordered`: its number, if ordered) whose
    content starts `width` columns past it, under the first `k` containers; False if
    it cannot open here (an ordered item not at 1 under a paragraph it would
    interrupt, or too deep)."""
    if (interrupts and ordered is not None
            and item_syntax().ordered_one.fullmatch(ordered) is None):
        return False
    if k >= MAX_NESTING:
        return False
    del t.blocks[k:]
    t.open_leaf(LEAF_PARAGRAPH)
    item = Container(False, indent + width)
    item.has_child = True
    t.blocks.append(item)
    return True
