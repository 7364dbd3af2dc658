"""Candidates and the views they open (the layout is described in `state.py`).

A candidate is pushed in the last view (the only one that reads the text normally);
it splits that view in two. Each character is stepped through every live candidate:
one that completes drops the views after it (they assumed it fails) and takes the
bracket state from its start; one that fails merges its view into the next.
"""

from __future__ import annotations

from toolparse._markdown.inlines.state import (
    COMPLETE, DEAD, MAX_CANDIDATES, Candidate, InlineState)
from toolparse._markdown.inlines.tickets import settle_branch

__all__ = ["push_candidate", "step_candidates", "skip_candidates", "complete",
           "fail_candidate", "room"]


def room(s: InlineState) -> bool:
    """Whether another candidate may open (a bound on the state, `MAX_CANDIDATES`)."""
    return len(s.cands) < MAX_CANDIDATES


def push_candidate(s: InlineState, cand: Candidate) -> None:
    s.bases.append(len(s.stack))
    s.snaps.append((s.head, s.inactive))
    s.cands.append(cand)


def step_candidates(s: InlineState, ch: str) -> bool:
    """Step every live candidate; True if one completed (consuming `ch`)."""
    cands = s.cands
    j = 0
    changed = False
    while j < len(cands):
        result = cands[j].step(ch)
        if result == COMPLETE:
            complete(s, j)
            return True
        if result == DEAD:
            fail_candidate(s, j)
            changed = True
        else:
            j += 1
    if changed and s.branch:
        settle_branch(s)
    return False


def skip_candidates(cands: list[Candidate], text: str, i: int, n: int, stops: str) -> int:
    """Step every candidate over text[i:n] while the characters have no inline meaning
    (none of `stops`) and none of them dies or completes, which is all
    `step_candidates` would do with those characters; return where that stops."""
    if len(cands) == 1:
        return cands[0].skip(text, i, n, stops)
    before = [list(cand.states) for cand in cands]
    ends = []
    k = n
    for cand in cands:  # each stops where it must, or where an earlier one did
        k = cand.skip(text, i, k, stops)
        ends.append(k)
    for cand, states, end in zip(cands, before, ends):
        if end > k:  # it went past where another one stops: step it to there only
            cand.skipped(states, text[i:k])
    return k


def complete(s: InlineState, j: int) -> None:
    """Candidate j completed: the views that assumed it fails, and the runs pushed
    there (inside its text), are gone."""
    cand = s.cands[j]
    base = s.bases[j]
    for opener in s.stack[base:]:
        opener.alive = False
        del s.len_at[opener.length]
    del s.stack[base:]
    s.head, s.inactive = s.snaps[j]
    s.closed = None
    del s.cands[j:]
    del s.bases[j:]
    del s.snaps[j:]
    for bt in s.branch:
        del bt.attach[j + 1:]
    cand.completed(s, j)
    settle_branch(s)


def fail_candidate(s: InlineState, j: int) -> None:
    """Candidate j failed: view j+1 (which read its text normally) becomes view j.
    The caller settles the branch tickets."""
    cand = s.cands[j]
    del s.cands[j]
    del s.bases[j]
    del s.snaps[j]
    for bt in s.branch:
        if len(bt.attach) > j + 1:
            del bt.attach[j]
    cand.failed(s, j)
