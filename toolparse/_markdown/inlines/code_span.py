"""Code spans and backslash escapes (CommonMark 6.1, 6.2; SPEC 4.2, 4.3).

Grammar: BACKTICK, BACKTICK_RUN, BACKSLASH.

A run of N backticks opens a span that only the next run of exactly N closes, left to
right. The state is the stack of *stuck* openers: i1 is the first run not yet closed,
i(j+1) the first one after ij under the hypothesis that i1..ij never close (so their
lengths differ). A run that equals len(ij) closes ij: everything after ij is code,
whatever happens to earlier openers, and the stack is cut back to i1..i(j-1), with the
bracket state from before ij (the brackets in between were inside the span). Any other
run is pushed.

Escapes: outside a span a backslash escapes the next character, so `\\`` is a literal
backtick. As markdown-it reads it, an escaped backtick still closes an open span of its
run's full length (its closer scan ignores escapes) and only stops the first backtick
from opening one.
"""

from __future__ import annotations

import bisect

from toolparse._markdown.inlines.state import CODE_MARK, InlineState, Opener
from toolparse._markdown.inlines.tickets import settle_branch

__all__ = ["end_run", "close_or_push", "close_at", "push", "single_runs"]


def end_run(s: InlineState) -> None:
    """The backtick run that was arriving is complete."""
    length, escaped = s.run, s.run_esc
    s.run, s.run_esc = 0, False
    close_or_push(s, length, escaped)


def push(s: InlineState, length: int) -> None:
    stack = s.stack
    opener = Opener(length, len(stack), (s.head, s.inactive))
    stack.append(opener)
    s.len_at[length] = opener.index


def close_or_push(s: InlineState, length: int, escaped: bool) -> None:
    """A complete backtick run (its first backtick escaped if `escaped`)."""
    index = s.len_at.get(length)
    if index is not None:
        close_at(s, index, bisect.bisect_right(s.bases, index))
        return
    if escaped:
        length -= 1
        if not length or length in s.len_at:
            # An opener of this length is already stuck below: whatever closes this
            # one closes that one first, so it adds nothing.
            return
    push(s, length)


def close_at(s: InlineState, index: int, level: int) -> None:
    """The opener at `index` (in view `level`'s part of the stack) is closed: views
    `level` and after collapse into one, the span's text is gone."""
    stack = s.stack
    out = s.out
    len_at = s.len_at
    s.head, s.inactive = stack[index].brackets
    s.closed = None
    for opener in stack[index:]:
        opener.alive = False
        del len_at[opener.length]
        for ticket in opener.tickets:
            out.append((ticket, True))
    del stack[index:]
    if len(s.cands) > level:
        del s.cands[level:]
        del s.bases[level:]
        del s.snaps[level:]
    if s.branch:
        for bt in s.branch:
            attach = bt.attach
            if len(attach) <= level:
                attach.extend([attach[-1]] * (level + 1 - len(attach)))
            else:
                del attach[level + 1:]
            here = attach[level]
            if isinstance(here, Opener) and not here.alive:
                attach[level] = CODE_MARK
        settle_branch(s)


def single_runs(s: InlineState, count: int) -> None:
    """`count` backtick runs of length 1 in paragraph text with no other inline
    marker: the first closes a stuck opener of length 1 if there is one, and the rest
    pair up among themselves (the last one stays open if they are odd)."""
    index = s.len_at.get(1)
    if index is not None:
        close_at(s, index, 0)
        count -= 1
    if count & 1:
        push(s, 1)
