"""Indented code blocks (CommonMark 4.4; SPEC 4.4).

Grammar: INDENT_RUN (tabs advance to the next multiple of 4 columns).

*Start*: 4 or more columns of indentation past the open containers, on a line that is
not blank and would not continue a paragraph (indented code cannot interrupt one).
*Continue*: lines indented 4+ columns, and blank lines. The rest of such a line means
nothing.
"""

from __future__ import annotations

from toolparse._markdown.state import (
    BlockState, LEAF_INDENTED, LEAF_PARAGRAPH, OUTCOME_CODE, Outcome)
from toolparse._markdown.syntax import CODE_INDENT

__all__ = ["start", "continues"]


def start(t: BlockState, buf: str, i: int, blank: bool) -> tuple[Outcome, int] | None:
    """Stage 2 at a line indented 4+ columns: indented code, unless blank or in a
    paragraph (then None: a lazy or continuation line)."""
    if blank or t.leaf is LEAF_PARAGRAPH:
        return None
    t.advance(buf, CODE_INDENT, True)
    t.close_unmatched()
    t.open_leaf(LEAF_INDENTED)
    return OUTCOME_CODE, i


def continues(indent: int, blank: bool) -> bool:
    """Stage 1 with indented code open: does this line go on with it?"""
    return indent >= CODE_INDENT or blank
