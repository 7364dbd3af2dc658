"""The streaming tickets of SPEC 4.3: a tool tag that waits on the inline state.

A ticket is issued (`context()` answered PENDING) at a tag after an unmatched backtick
run in the same paragraph, and attached to the top stuck opener in every view: the
opener's close makes it code; the paragraph's end, in the view that survives, makes it
text. With candidates alive it is a `BranchTicket` that resolves once the views agree.
A ticket asked for with an empty stack is never issued: the answer is TEXT at once.
"""

from __future__ import annotations

from typing import Any

from toolparse._markdown.inlines.state import CODE_MARK, BranchTicket, InlineState, Opener

__all__ = ["attach", "settle_branch"]


def attach(s: InlineState, ticket: int) -> None:
    """Attach a ticket to the current position (the opener stack is not empty)."""
    stack = s.stack
    if not s.cands:
        stack[-1].tickets.append(ticket)
        return
    here: list[Any] = [stack[b - 1] if b > 0 else None for b in s.bases]
    here.append(stack[-1])
    s.branch.append(BranchTicket(ticket, here))


def settle_branch(s: InlineState) -> None:
    """Resolve the branch tickets whose views now agree; hand the rest of them to one
    opener once a single view is left."""
    live = len(s.cands) + 1
    keep = []
    for bt in s.branch:
        here = bt.attach[:live]
        bt.attach = here
        if all(a is CODE_MARK for a in here):
            s.out.append((bt.ticket, True))
        elif all(a is None for a in here):
            s.out.append((bt.ticket, False))
        elif live == 1:
            opener = here[0]
            assert isinstance(opener, Opener)
            opener.tickets.append(bt.ticket)
        else:
            keep.append(bt)
    s.branch = keep
