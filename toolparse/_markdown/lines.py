"""The whole-line shortcut: ordinary Markdown a "\\n" line at a time.

Most lines have a common shape and are decided by one or two compiled matches instead
of the resumable line-start machine: a blank line; a line of a fenced code block (its
closing fence included) or of an indented one; paragraph text (a new paragraph, a
continuation or a lazy continuation); 4+ columns of indentation; and the block starts
whose rule gives a `line` pattern in the table below (a list item marker with 1-4
spaces and paragraph text after it, an ATX heading, a fence opener). The patterns are
built from the same grammar terminals as the rules, and each shape changes the state
through the same rule function the machine uses. The rest of a paragraph line is taken
here when its only inline markers are single backticks (counted, not walked: they pair
up) and `<` that change nothing: one that starts no tag, or whose tag completes or fails
before any character with an inline meaning (`<T>`, `<div class="x">`, `Vec<u8>`; read
ahead by the automata, as the inline runner reads it).

Anything else goes back to the general code: a tab before a line's content, any other
block start, an HTML block, a line cut by the end of the text, inline text with a
backslash, a longer backtick run, a bracket or a `<` whose tag is still open at a
character with an inline meaning (a backtick, a bracket, the line's end). `run`
returns where it stopped, at a fresh line start or in quiet inline state, as the
general code would be there.
"""

from __future__ import annotations

import re
from typing import Final, NamedTuple

from toolparse._markdown.blocks import container, fence, leaf
from toolparse._markdown.inlines import code_span, links, runner
from toolparse._markdown.inlines.links import can_start_definition
from toolparse._markdown.inlines.raw_html import tags_change_nothing
from toolparse._markdown.inlines.state import DEFS_NO, DEFS_YES
from toolparse._markdown.state import (
    BlockState, LEAF_FENCE, LEAF_HTML, LEAF_INDENTED, LEAF_NONE, LEAF_PARAGRAPH, MODE_CODE_LINE,
    MODE_INLINE, MODE_LINE_START)
from toolparse._markdown.syntax import CODE_INDENT, syntax
from toolparse._syntax.once import Once

__all__ = ["ready", "run", "plain_line_start", "LINE_COPY_MAX"]

# A paragraph line is read from a copy of it up to this length.
LINE_COPY_MAX: Final = 4096


class _Lines(NamedTuple):
    plain_ascii: frozenset[str]     # first characters that start no block
    starts_no_block: re.Pattern[str]
    block_line: re.Pattern[str]     # the block starts decided here (named groups)
    plain_line: re.Pattern[str]     # a line that starts no block (no container open)
    blank_line: re.Pattern[str]
    # What sends paragraph text to the general code: a backslash, a bracket, two
    # backticks in a row, a `<` whose tag may change something.
    backslash: str
    link_open: str
    link_close: str
    double_run: str
    tag_open: str
    backtick: str
    definition_first: frozenset[str]  # what a definition's line can start with


def _patterns() -> _Lines:
    return _LINES.get()


def _build_patterns() -> _Lines:
    from toolparse._markdown.line_start import BLOCK_STARTS  # noqa: PLC0415

    syn = syntax()
    block_start = syn.need("BLOCK_START_SCAN")
    # A character that starts no block: not in BLOCK_START_SCAN, or no rule's
    # terminal matches there (as the machine tries them).
    not_a_block = "".join("(?!" + syn.need(name) + ")"
                          for rule in BLOCK_STARTS for name in rule.terminals)
    no_block = f"(?!{block_start})[^ \t\r\n]|{not_a_block}[^ \t\r\n]"
    shapes = [container.item_line(no_block), leaf.atx_line(), fence.line()]
    plain_first = re.compile("(?!" + block_start + ")[^ \t\r\n]")
    return _Lines(
        plain_ascii=frozenset(c for c in map(chr, range(0x80)) if plain_first.match(c)),
        starts_no_block=re.compile(no_block),
        block_line=re.compile(f"(?={block_start})(?:" + "|".join(shapes) + ")"),
        plain_line=re.compile(" {0,3}(?!" + block_start + ")[^ \t\r\n]"),
        blank_line=re.compile("[ \t]*" + syn.need("LINE_ENDING_SCAN")),
        backslash=syn.backslash, link_open=syn.link_open, link_close=syn.link_close,
        double_run=syn.backtick * 2, tag_open=syn.tag_open, backtick=syn.backtick,
        definition_first=frozenset(c for c in map(chr, range(0x80))
                                   if can_start_definition(c)),
    )


_LINES: Final = Once(_build_patterns)


def ready(t: BlockState) -> bool:
    """Whether the state is one the shortcut takes: a fresh line start, or quiet
    inline text."""
    if t.worlds.split:
        return _ready_split(t)
    if t.mode is MODE_INLINE:
        return runner.quiet(t.inline)
    return (t.mode is MODE_LINE_START and not t.ls_dirty and not t.after_cr
            and not t.inline.cands)


def _ready_split(t: BlockState) -> bool:
    """`ready` with more than one world: their block structure is the same."""
    states = t.worlds.states
    if t.mode is MODE_INLINE:
        return all(runner.quiet(st) for st in states)
    return (t.mode is MODE_LINE_START and not t.ls_dirty and not t.after_cr
            and not any(st.cands for st in states))


def plain_line_start(t: BlockState, text: str, i: int, end: int) -> int:
    """The line-start shortcuts with no container open, for a line text[i:end]: a
    plain paragraph line, a blank line, a line of a fenced or indented code block that
    cannot close it. Returns where the general code goes on, or -1."""
    pat = _patterns()
    kind = t.leaf
    if kind is LEAF_NONE or kind is LEAF_PARAGRAPH:
        p = pat.plain_line.match(text, i, end)
        if p is not None:
            if kind is LEAF_NONE:
                t.open_leaf(LEAF_PARAGRAPH)
            t.move(MODE_INLINE, "a plain paragraph line")
            return p.end() - 1
    b = pat.blank_line.match(text, i, end)
    if b is not None:
        if kind is LEAF_PARAGRAPH or (kind is LEAF_HTML and t.html_kind >= 6):
            t.close_leaf()
        return t.end_line(text, b.end() - 1)
    if kind is LEAF_FENCE or kind is LEAF_INDENTED:
        p = syntax().indent_run.match(text, i, end)
        k = p.end() if p is not None else i
        if k < end and (p is None or "\t" not in p.group()):
            if k - i >= CODE_INDENT or (kind is LEAF_FENCE and text[k] != t.fence_char):
                t.move(MODE_CODE_LINE, "a line of code")
                return i
    return -1


# ---------------------------------------------------------------------- lines
#
# `_line` answers with one int: >= 0, the next line's start (the line is decided and
# has no inline text); INLINE - q (q >= 0), its inline text starts at q; GENERAL, the
# general code decides the line. A line taken whole never enters mode INLINE: its text
# is read here and the mode stays LINE_START.

GENERAL: Final = -1
INLINE: Final = -2


def run(t: BlockState, text: str, i: int, n: int) -> int:
    """Whole "\n" lines from text[i], while they have the common shapes."""
    if t.mode is MODE_INLINE:  # the rest of a line the general code started
        e = text.find("\n", i)
        if e < 0:
            return i
        i = _inline(t, text, i, e, n, _patterns())
        if i < 0:
            return -i - 1
        t.end_line(text, i - 1)  # (mode INLINE ends here; the rest stay LINE_START)
    pat = _patterns()
    plain_ascii = pat.plain_ascii
    blocks = t.blocks
    while i < n:
        e = text.find("\n", i)
        if e < 0:
            return i
        kind = t.leaf
        if (not blocks and text[i] in plain_ascii
                and (kind is LEAF_PARAGRAPH or kind is LEAF_NONE)):
            # Paragraph text with no container and no indentation: the common line.
            if kind is LEAF_NONE:
                t.open_leaf(LEAF_PARAGRAPH)
            j = _inline(t, text, i, e, n, pat)
        elif not blocks and kind is LEAF_FENCE:
            # A line of a fence with no container (`_line`'s stage 1, directly).
            q = _past_spaces(text, i)
            ch = text[q]
            if ch == "\t":
                return i
            if ch == t.fence_char and q - i < CODE_INDENT:
                fence.closes_line(t, text, q)
            j = e + 1
        else:
            j = _line(t, text, i, e, pat)
            if j == GENERAL:
                return i  # the general code takes this line
            if j <= INLINE:
                j = _inline(t, text, INLINE - j, e, n, pat)
        if j < 0:
            return -j - 1
        i = j
    return i


def _line(t: BlockState, text: str, i: int, e: int, pat: _Lines) -> int:
    """The block structure of the line text[i:e+1] (see above for the answer)."""
    blocks = t.blocks
    if blocks:
        found = _containers(t, text, i)
        if found is None:
            return GENERAL
        k, pos, q = found
    else:
        k, pos, q = 0, i, i
        if text[i] == " ":
            q = _past_spaces(text, i)
    ch = text[q]
    if ch == "\t":
        return GENERAL  # columns: the general code counts them
    all_matched = k == len(blocks)
    kind = t.leaf
    if ch == "\n":
        return _blank(t, k, all_matched, e)
    indent = q - pos
    if all_matched and kind is not LEAF_PARAGRAPH and kind is not LEAF_NONE:
        if kind is LEAF_FENCE:
            if indent < CODE_INDENT and ch == t.fence_char:
                fence.closes_line(t, text, q)
            return e + 1
        if kind is LEAF_HTML:
            return GENERAL
        if indent >= CODE_INDENT:  # indented code goes on
            return e + 1
    if indent >= CODE_INDENT:
        if kind is not LEAF_PARAGRAPH:  # (indented code cannot interrupt a paragraph)
            del blocks[k:]
            t.open_leaf(LEAF_INDENTED)
            return e + 1
        return INLINE - q
    m = None
    if ch in pat.plain_ascii or ((m := pat.block_line.match(text, q)) is None
                                 and pat.starts_no_block.match(text, q)):
        if kind is not LEAF_PARAGRAPH:  # else a continuation line, or a lazy one
            del blocks[k:]
            t.open_leaf(LEAF_PARAGRAPH)
        return INLINE - q
    if m is None:
        return GENERAL
    return _start(t, text, q, e, k, indent, m, all_matched and kind is LEAF_PARAGRAPH)


def _containers(t: BlockState, text: str, i: int) -> tuple[int, int, int] | None:
    """Stage 0: the containers the line continues (k of them); `pos` is where the last
    one's content starts, `q` the next non-space character. None: a tab."""
    quote_marker = syntax().quote_marker
    blocks = t.blocks
    pos = i
    k = 0
    nb = len(blocks)
    while True:
        q = pos
        if text[q] == " ":
            q = _past_spaces(text, q)
        ch = text[q]
        if ch == "\t":
            return None  # columns: the general code counts them
        if k == nb:
            return k, pos, q
        cont = blocks[k]
        if cont.quote:
            if q - pos >= CODE_INDENT or ch != quote_marker:
                return k, pos, q
            pos = q + 1
            after = text[pos]
            if after == " ":
                pos += 1
            elif after == "\t":
                return None
        elif ch == "\n":
            if not cont.has_child:
                return k, pos, q
        elif q - pos >= cont.content:
            pos += cont.content
        else:
            return k, pos, q
        k += 1


def _past_spaces(text: str, i: int) -> int:
    """The first position from i that holds no space. (Every line read here ends with
    its "\n", so the loop stops there at the latest; a compiled loop over a few
    characters costs less than a match and its `end()`.)"""
    while text[i] == " ":
        i += 1
    return i


def _blank(t: BlockState, k: int, all_matched: bool, e: int) -> int:
    kind = t.leaf
    if all_matched:
        if kind is LEAF_FENCE or kind is LEAF_INDENTED:
            return e + 1
        if kind is LEAF_HTML and t.html_kind < 6:
            return GENERAL
    if kind is not LEAF_NONE:
        t.close_leaf()
    del t.blocks[k:]
    return e + 1


def _start(t: BlockState, text: str, q: int, e: int, k: int, indent: int,
           m: re.Match[str], interrupts: bool) -> int:
    """A block start the shortcut decides itself (`m` of `block_line` at text[q])."""
    shape = m.lastgroup
    if shape == "fence":
        return e + 1 if fence.line_open(t, text, q, m.end(), e, k) else GENERAL
    if shape == "heading":
        leaf.atx_line_open(t, k)
    elif not container.item_line_open(t, m.group("ordered"), interrupts, indent,
                                      m.end() - q, k):
        return GENERAL
    return INLINE - m.end()


def _inline(t: BlockState, text: str, i: int, e: int, n: int, pat: _Lines) -> int:
    """Inline text from i to the line ending at e. Returns where the next line starts,
    or -(position + 1) when the general code takes over there."""
    if t.worlds.split:  # every world reads the line
        return _general(t, text, i, n)
    s = t.inline
    if s.line_fresh:  # the first line of a paragraph: a definition?
        if s.title_next or text[i] in pat.definition_first or s.defs != DEFS_YES:
            return _general(t, text, i, n)
        s.line_fresh = False
        s.defs = DEFS_NO
    # (The state is quiet here: `ready` said so, and a line the general code ends
    # leaves it so, but for candidates, which `_general` hands back.)
    # A copy of the line: `in` is cheaper than a search; a very long line goes the
    # general way instead.
    line = text[i:e + 1] if e - i < LINE_COPY_MAX else ""
    if (not line or pat.backslash in line or pat.link_open in line
            or pat.link_close in line or pat.double_run in line
            or (pat.tag_open in line and not tags_change_nothing(line, pat.tag_open))):
        return _general(t, text, i, n)
    runs = text.count(pat.backtick, i, e)
    if runs and (runs & 1 or s.stack):  # (else they pair up among themselves)
        code_span.single_runs(s, runs)
    if s.serial:  # a bracket opened in this paragraph: labels need the text
        links.record(s, line[:-1])
        links.record(s, "\n")
    else:
        s.offset += e + 1 - i
    s.last = "\n"
    if t.heading:  # the line ends the heading
        t.heading = False
        t.close_leaf()
    return e + 1


def _general(t: BlockState, text: str, i: int, n: int) -> int:
    if not t.in_mode(MODE_INLINE):
        t.move(MODE_INLINE, "paragraph text the shortcut leaves")
    i = t.inline_feed(text, i, n)
    if not t.in_mode(MODE_LINE_START) or t.inline.cands or i >= n:
        return -i - 1
    return i
