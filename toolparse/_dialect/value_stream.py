"""A value while it arrives: the part of its final text that is already certain (SPEC 7).

A value syntax (`syntaxes/`) reads a finished value (`value_text`); its stream
(`ValueSyntax.stream()`, one per value) reads the same value piece by piece and gives
out, after each piece, the characters that `value_text` will certainly begin with,
whatever comes next. So the pieces it gives out always concatenate to a prefix of the
final text, and a consumer can stream them (`ArgumentsDelta`).

`ValueStream` is the base, and the stream of a value read as written (`none`): nothing
waits. `EdgedStream` is the stream of SPEC 3.1's edges (`xml`, and `trim` without
entities; the rules themselves are in `values.py`). What waits there: the start of the
value until it is decided. One newline after the opening tag is dropped; after it, a
value that begins with whitespace keeps that whitespace only if the value has a newline
left, so such a start waits until a newline is certain (one followed by something other
than spaces and tabs, or one in CDATA) or the value ends. Then the end of the text so
far while it is whitespace (it may be the trailing newline and indentation, or
trimmed), and, with entities, an `&` that may still become one (at most 10 characters).
Each other row's stream lives in its module (`newline`, `json`).

Cost: each piece is looked at once, except while the start of the value waits (its
characters are then stepped one by one, until the first certain newline). The common
piece, once the start is decided, takes one short call (`fast`), a piece that ends in
blanks too.
"""

from __future__ import annotations

from typing import Final

from toolparse._dialect.values import decode_entities, drop_first_newline

__all__ = ["EdgedStream", "ValueStream"]

_START: Final = 0   # nothing decided: the dropped first newline may still be arriving
_LEAD: Final = 1    # the value began with whitespace: wait for a certain newline
_BODY: Final = 2    # the start is decided: give out all but the end of the text

# The newline watch of the LEAD phase: where the last newline stands.
_NO_NEWLINE: Final = 0
_AFTER_CR: Final = 1    # a `\r` ends the text: `\r\n` or a newline of its own
_AFTER_NEWLINE: Final = 2  # a newline, then only spaces and tabs (maybe the last one)

_ENTITY_SPAN: Final = 10
"""The longest entity reference (`&#1114111;`), in characters."""


class ValueStream:
    """The certain prefix of one value, piece by piece: `text()` for a text token,
    `cdata()` for a piece of a CDATA section's content. Each returns the characters
    that became certain (decoded, not JSON-escaped). This base reads a value as
    written: every piece is certain at once."""

    __slots__ = ()

    def text(self, piece: str) -> str:
        return piece

    def cdata(self, piece: str) -> str:
        return piece

    def fast(self, piece: str) -> str | None:
        """`text(piece)` in the common case of a value streaming, or None when the
        case is not that one (the caller then calls `text`)."""
        return piece

    def fast_cdata(self, piece: str) -> str | None:
        """`fast` for `cdata(piece)`."""
        return piece


class EdgedStream(ValueStream):
    """The certain prefix of a value read by SPEC 3.1's edges (`xml`, `trim`)."""

    __slots__ = ("entities", "phase", "body", "start", "held", "blank", "watch", "certain",
                 "pending")

    def __init__(self, entities: bool) -> None:
        self.entities = entities
        """Text runs are entity-decoded (`xml`)."""
        self.phase = _START
        self.body = False
        """The phase is BODY (one attribute test for `fast`)."""
        self.start = ""
        """START: the text so far (a lone `\\r`)."""
        self.held: list[tuple[bool, str]] = []
        """LEAD: the pieces so far, (is CDATA, text)."""
        self.blank = False
        """LEAD: the value so far begins with whitespace."""
        self.watch = _NO_NEWLINE
        self.certain = False
        """LEAD: a newline the value certainly keeps has been seen."""
        self.pending = ""
        """BODY: text not given out yet (the end of the text so far)."""

    # ---- pieces --------------------------------------------------------------------------

    def text(self, piece: str) -> str:
        if self.phase == _BODY:
            return self._body_text(piece)
        if self.phase == _START:
            return self._start_text(piece)
        return self._lead(False, piece)

    def cdata(self, piece: str) -> str:
        if self.phase == _START:
            # A lone `\r` before the section is text of the value's first run.
            first, self.start = self.start, ""
            self.phase = _LEAD
            out = self._lead(False, first) if first else ""
            return out + self.cdata(piece)
        if self.phase == _LEAD:
            return self._lead(True, piece)
        return self._body_cdata(piece)

    def fast(self, piece: str) -> str | None:
        """`text(piece)` in the common case of a value streaming, or None when the
        case is not that one (the caller then calls `text`): the start is decided,
        and (with entities) no `&` is in `piece` or waits before it. Then the text
        that waits is only blanks, and what waits after this piece is its blank end
        (`_body_text` without entities to decode or to wait on)."""
        if not self.body or ("&" in piece and self.entities):
            return None
        pending = self.pending
        if pending:
            if "&" in pending and self.entities:
                return None
            piece = pending + piece
            self.pending = ""
        if piece[-1].isspace():
            out = piece.rstrip()
            self.pending = piece[len(out):]
            return out
        return piece

    def fast_cdata(self, piece: str) -> str | None:
        """`fast` for `cdata(piece)`."""
        if not self.body:
            return None
        pending = self.pending
        if not pending:
            return piece
        if self.entities and "&" in pending:
            return None
        self.pending = ""
        return pending + piece

    # ---- START: the dropped first newline ------------------------------------------------

    def _start_text(self, piece: str) -> str:
        text = self.start + piece
        if not text or text == "\r":
            self.start = text
            return ""
        self.start = ""
        self.phase = _LEAD
        return self._lead(False, drop_first_newline(text))

    # ---- LEAD: a start that waits on a certain newline -----------------------------------

    def _lead(self, is_cdata: bool, piece: str) -> str:
        if not is_cdata and not piece:
            return ""
        self.held.append((is_cdata, piece))
        if not self.blank:
            if is_cdata or not piece[0].isspace():
                return self._to_body()  # no whitespace at the start: nothing to decide
            self.blank = True
        if is_cdata:
            self.certain = (self.watch != _NO_NEWLINE or "\n" in piece or "\r" in piece)
        else:
            self._watch(piece)
        return self._to_body() if self.certain else ""

    def _watch(self, piece: str) -> None:
        """Step the newline watch over a text piece."""
        state = self.watch
        for char in piece:
            if char == "\r":
                if state != _NO_NEWLINE:
                    self.certain = True
                    return
                state = _AFTER_CR
            elif char == "\n":
                if state == _AFTER_NEWLINE:
                    self.certain = True
                    return
                state = _AFTER_NEWLINE
            elif char == " " or char == "\t":
                if state == _AFTER_CR:
                    state = _AFTER_NEWLINE  # a `\r` of its own, then blanks
            elif state != _NO_NEWLINE:
                self.certain = True
                return
        self.watch = state

    def _to_body(self) -> str:
        held, self.held = self.held, []
        self.phase = _BODY
        self.body = True
        out = []
        for is_cdata, text in held:
            out.append(self._body_cdata(text) if is_cdata else self._body_text(text))
        return "".join(out)

    # ---- BODY: all but the end of the text ---------------------------------------------

    def _body_text(self, piece: str) -> str:
        text = self.pending + piece
        cut = len(text.rstrip())
        if self.entities:
            amp = text.rfind("&", max(0, cut - _ENTITY_SPAN), cut)
            if amp >= 0 and ";" not in text[amp:cut]:
                cut = amp
        self.pending = text[cut:]
        out = text[:cut]
        return decode_entities(out) if self.entities else out

    def _body_cdata(self, piece: str) -> str:
        # The text before a section is not the value's last run: none of it is trimmed.
        before, self.pending = self.pending, ""
        if self.entities:
            before = decode_entities(before)
        return before + piece

