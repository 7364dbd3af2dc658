"""Why a tag in an answer was not a call: the tags that sit in Markdown code.

A diagnostic beside the engine, not part of it: the notebook display marks such tags
"in code, not run" and `toolparse scan` reports a recorded call found only there as
`in_code` with its kind and line. It replays the answer's text through a Markdown
tracker exactly as the engine feeds it (text as Markdown, each recognised block as an
atom) and asks, at every block-start tag in the text, where it stands.

Cost: one parse of the text plus one tracker pass; linear.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from toolparse._dialect import Dialect, resolve_dialect
from toolparse._events import Event, Reasoning, Text
from toolparse._markdown import Context, MarkdownTracker

__all__ = ["CodeMention", "code_mentions"]

CodeKind = Literal["fenced", "indented", "span"]


@dataclass(frozen=True, slots=True)
class CodeMention:
    """A block-start tag inside Markdown code (so never a call, SPEC G3)."""

    start: int
    """Stream offset of the tag's `<`."""
    end: int
    """Stream offset just past the tag."""
    kind: CodeKind
    """The code it sits in: a fenced block, an indented block or an inline code span."""
    line: int
    """The line of the tag's start, from 1."""


def code_mentions(events: tuple[Event, ...] | list[Event], dialect: str | Dialect = "deepseek",
                  ) -> list[CodeMention]:
    """Every block-start tag of `dialect` that the Markdown context put inside code, in
    the text of `events` (a `ParseResult.events`, or any chunking's events)."""
    resolved = resolve_dialect(dialect)
    tracker = MarkdownTracker()
    found: list[CodeMention] = []
    pending: dict[int, CodeMention] = {}
    offset = 0
    lines = 1

    def settle(resolutions: list[tuple[int, bool]]) -> None:
        for ticket, in_code in resolutions:
            mention = pending.pop(ticket, None)
            if mention is not None and in_code:
                found.append(mention)

    for event in events:
        if isinstance(event, Reasoning) or (isinstance(event, Text) and event.raw != event.text):
            # Reasoning and framing markup are not Markdown (SPEC 11): the tracker never
            # sees them (a framing event's text, when it has any, is not at its offset).
            offset += len(event.raw)
            lines += event.raw.count("\n")
            continue
        if not isinstance(event, Text):
            settle(tracker.opaque(event.raw))
            offset += len(event.raw)
            lines += event.raw.count("\n")
            continue
        text, pos = event.text, 0
        for m in resolved._block_starts(text):
            settle(tracker.feed(text[pos:m.start()]))
            context, ticket = tracker.context()
            if context is not Context.TEXT:
                mention = CodeMention(offset + m.start(), offset + m.end(), _kind(tracker),
                                      lines + text.count("\n", 0, m.start()))
                if context is Context.CODE:
                    found.append(mention)
                else:
                    pending[ticket] = mention
            pos = m.start()
        settle(tracker.feed(text[pos:]))
        offset += len(text)
        lines += text.count("\n")
    settle(tracker.finish())
    return sorted(found, key=lambda mention: mention.start)


def _kind(tracker: MarkdownTracker) -> CodeKind:
    kind = tracker.code_kind()
    return "fenced" if kind == "fenced" else "indented" if kind == "indented" else "span"
