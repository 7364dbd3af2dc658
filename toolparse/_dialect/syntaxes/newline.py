"""`value_edges=newline`: the text as written, less one leading and one trailing newline
(Qwen3-Coder).

The chat template writes `<parameter=K>\\nV\\n</parameter>`: exactly those two newlines
(`\\n` or `\\r\\n`) go; a value's own spaces, indentation and blank lines stay. A CDATA
section reads as its text. While a value streams, a first `\\r` (it may be `\\r\\n`)
and a newline at the end of the text so far (it may be the last one) wait.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

from toolparse._dialect.syntaxes.base import VALUE_EDGES, ValueSyntax
from toolparse._dialect.value_stream import ValueStream
from toolparse._dialect.values import as_written, drop_first_newline

__all__ = ["NEWLINE", "NewlineStream"]


class _Newline(ValueSyntax):
    __slots__ = ()

    def value_text(self, pieces: Sequence[Any]) -> tuple[str, bool]:
        text = drop_first_newline(as_written(pieces))
        if text.endswith("\r\n"):
            text = text[:-2]
        elif text.endswith("\n"):
            text = text[:-1]
        return text, False

    def stream(self) -> ValueStream:
        return NewlineStream()


class NewlineStream(ValueStream):
    """The certain prefix of a `newline` value."""

    __slots__ = ("started", "start", "pending")

    def __init__(self) -> None:
        self.started = False
        """The value's first newline, if any, was dropped."""
        self.start = ""
        """Before that: the text so far (a lone `\\r`)."""
        self.pending = ""
        """After it: the end of the text so far, not given out yet (a newline)."""

    def text(self, piece: str) -> str:
        if not self.started:
            text = self.start + piece
            if not text or text == "\r":
                self.start = text
                return ""
            self.start = ""
            self.started = True
            piece = drop_first_newline(text)
        text = self.pending + piece
        cut = len(text) - (2 if text.endswith("\r\n") else
                           1 if text.endswith(("\n", "\r")) else 0)
        self.pending = text[cut:]
        return text[:cut]

    def cdata(self, piece: str) -> str:
        return self.text(piece)  # CDATA reads as text

    def fast(self, piece: str) -> str | None:
        if not self.started or self.pending:
            return None
        last = piece[-1]
        return None if last == "\n" or last == "\r" else piece

    def fast_cdata(self, piece: str) -> str | None:
        return self.fast(piece)


NEWLINE: Final = _Newline("newline", VALUE_EDGES)
