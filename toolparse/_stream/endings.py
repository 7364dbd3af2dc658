"""How a captured block ends: what goes out for it, and what the next mode starts with.

    complete_block  the block parsed: a `ToolCallBlock`, at once or held on its ticket
    prose_mention   it failed before a call started: its text up to the failing token
    broken_span     it failed after a call started: the failed span, run on in SKIP
    waiting_block   the same, when its tag may sit in code: wait in UNDECIDED

(SPEC 3.2, G4.) The engine (`engine.py`) makes the move between modes; these make the
events. A held block's calls are built when it goes out as a block, so a block found in
code draws no ids; with incremental events (SPEC 7) each call was built as it completed.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from functools import partial

from toolparse._calls import CallPolicy, build_calls
from toolparse._dialect.build import RawCall
from toolparse._dialect.syntaxes import ValueSyntax
from toolparse._events import BlockFailure, ToolCall, ToolCallBlock
from toolparse._stream.capture import Capture
from toolparse._stream.output import Output, PendingBlock
from toolparse._stream.progress import Call, CallProgress
from toolparse._stream.skip import FailedSpan, log_failure
from toolparse._stream import undecided as undecided_mode
from toolparse._stream.undecided import Undecided

__all__ = ["broken_span", "complete_block", "prose_mention", "waiting_block"]


def complete_block(output: Output, capture: Capture, policy: CallPolicy | None,
                   new_id: Callable[[], str]) -> None:
    """A complete block goes out (or is held on its ticket). (The held block's builder
    is a `partial`, not a closure: in the compiled build a closure and its environment
    refer to each other, a cycle left for the collector.)"""
    raw, start, typing = capture.text, capture.start, capture.grammar.header.typing
    progress = capture.progress
    if progress is not None:
        calls = progress.finish(capture.calls, raw)   # each built when it was complete
        prelude = progress.take()
        if capture.ticket < 0:
            output.block(ToolCallBlock(calls, raw, start, start + len(raw)), -1, prelude)
        else:
            output.block(PendingBlock(raw, start, partial(_with_ids, progress, calls, raw,
                                                          start)), capture.ticket, prelude)
        return
    build = partial(_built, capture.calls, raw, start, policy, new_id, typing)
    output.block(PendingBlock(raw, start, build) if capture.ticket >= 0 else build(),
                 capture.ticket)


def _built(raws: tuple[RawCall, ...], raw: str, start: int, policy: CallPolicy | None,
           new_id: Callable[[], str], typing: ValueSyntax) -> ToolCallBlock:
    return ToolCallBlock(build_calls(raws, raw, start, policy, new_id, typing), raw, start,
                         start + len(raw))


def _with_ids(progress: CallProgress, calls: tuple[ToolCall, ...], raw: str,
              start: int) -> ToolCallBlock:
    """A held block whose calls were built as they completed: its ids drawn now."""
    progress.draw_ids()
    ids = progress.ids()
    return ToolCallBlock(tuple(replace(call, id=ids()) for call in calls), raw, start,
                         start + len(raw))


def prose_mention(output: Output, released: str, capture: Capture) -> None:
    """A prose mention: the failed text ends just before the failing token (a failure
    only if its tag was outside code, which a ticket may decide later)."""
    failure = BlockFailure(capture.reason, capture.start, capture.start + len(released),
                           capture.at, capture.expected,
                           context=(released, capture.grammar))
    log_failure(failure)
    output.failed(released, capture.start, failure, capture.ticket)


def broken_span(output: Output, capture: Capture) -> FailedSpan:
    """The failed span of a block that broke after a call started (its incremental
    events so far go out first; a CallsAborted goes with the span)."""
    progress = capture.progress
    aborted: tuple[Call, ...] | None = None
    if progress is not None:
        progress.draw_ids()  # outside code for certain by now
        output.progress(progress.take())
        aborted = progress.started()
    span = FailedSpan(capture.reason, capture.start, capture.at, capture.expected,
                      capture.depth, capture.limit, aborted, capture.grammar)
    released = capture.text
    span.add(output, released, 0, len(released), capture.start)
    return span


def waiting_block(output: Output, capture: Capture) -> Undecided:
    """A failed block on a PENDING ticket: answered already if an earlier fork's answer
    holds for its ticket too, else with a fork of the tracker to read ahead."""
    known = (output.known_answer(capture.start, capture.ticket)
             if undecided_mode.SHARE_ANSWERS else None)
    if known is not None:
        return Undecided(capture, None, None, known)
    fork = output.fork_tracker(capture.start)  # (the tracker is now at the tag)
    return Undecided(capture, fork, output.md.ticket_group(capture.ticket))
