"""Markdown code context for the stream engine (SPEC section 4).

INTERFACE STUB: the real tracker replaces this file. It answers TEXT everywhere.

The engine feeds every character that is not inside a recognised tool block to a
`MarkdownTracker`, in order, in pieces of any size (one character to megabytes). When
it meets a tag that could start a tool block, it asks `context()`: is the next
character inside Markdown code?

- `Context.CODE`: inside a fenced code block (the opening line included), an indented
  code block, or a code span whose closing run has already been seen. The tag is text;
  the engine feeds it to the tracker like any other text.
- `Context.TEXT`: outside code, for certain. The engine captures the block. If the
  block parses, it calls `opaque(raw)`; if it fails, it feeds the released text.
- `Context.PENDING`: undecided (SPEC 4.3): an unmatched backtick run earlier in the
  same paragraph, or a line that may still turn out to be a fence opener. `context()`
  then returns a ticket number. The engine captures the block and holds it; a later
  `feed()`, `opaque()` or `finish()` returns `(ticket, in_code)` once the tracker knows.

Tickets are numbered from 0 up in the order `context()` issued them; a resolution may
come for a later ticket before an earlier one. A ticket whose block failed is simply
ignored by the engine (the tracker need not be told).
"""

from __future__ import annotations

import enum

__all__ = ["Context", "MarkdownTracker", "Resolution"]

Resolution = tuple[int, bool]
"""(ticket, in_code): in_code True means the held block was in code, so it is text."""


class Context(enum.Enum):
    TEXT = "text"
    CODE = "code"
    PENDING = "pending"


class MarkdownTracker:
    """Follows CommonMark 0.31.2 block and code-span structure over a text stream."""

    __slots__ = ()

    def feed(self, text: str) -> list[Resolution]:
        """Consume `text` as Markdown; return the tickets this text resolved."""
        return []

    def context(self) -> tuple[Context, int]:
        """The code context of the next character (the `<` of a tool tag).

        The ticket is -1 unless the context is PENDING.
        """
        return Context.TEXT, -1

    def opaque(self, raw: str) -> list[Resolution]:
        """A tool block was recognised at the current position (SPEC G3a).

        It is one inline atom with no Markdown meaning: backticks or fences inside it
        open no code and close no code span. Only the block's first line may be read
        to finish deciding the type of the line it starts on (an HTML block start, say).
        """
        return []

    def finish(self) -> list[Resolution]:
        """End of stream: resolve every outstanding ticket."""
        return []
