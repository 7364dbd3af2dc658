"""Markup of a bundled dialect that a route does not read (SPEC 9: "no silent
pass-through").

A route reads its own dialect's markup. `ForeignMarkup` is what it still recognises of
every other bundled dialect: their block starts, as `dialect="auto"` finds them (one
search over all their openers, C speed between the `<`s), less the places where the
route's own dialect opens a block too (`<tool_call>` is Qwen3-Coder's, GLM's and
Hermes's: on a route of one of them it is that route's own markup, and a block it
cannot read is a failed block with its reason).

`Spotter` searches one choice's content as it goes out (the text the route's parser
did not read as a block: prose, Markdown code, never a failed block's text, which is
already reported, nor reasoning). An opener that arrives split across two pieces of
text is found when its end arrives: the end of each piece that could still become an
opener (at most `MAX_CARRY` characters) is searched again with the next.

Cost: one compiled search per piece of text, plus, when a piece ends inside what could
be an opener, a partial match of its last characters. Linear in the text: a character
is searched again only while it is in the carried end, at most `MAX_CARRY` characters.

`composite` is the dialect a route reads with under `--on-foreign-markup parse`: its own
grammar first (it wins every tie, SPEC 5.2), then every other bundled one.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Final

from toolparse._dialect import Dialect
from toolparse._dialect.loader import AUTO, dialects, resolve_dialect

__all__ = ["MAX_CARRY", "ForeignMarkup", "Spotter", "composite", "foreign_markup"]

MAX_CARRY: Final = 256
"""The longest end of a piece of text kept to find an opener split across pieces (the
bundled openers with a tool's name are well under it)."""

Sighting = Callable[[str, str, int], None]
"""Called with the dialect seen, the text from its opener on, and the opener's line."""


class ForeignMarkup:
    """For one route's dialect: the other bundled dialects' openers."""

    __slots__ = ("own", "others", "_search", "_starts", "_probe", "may_open")

    def __init__(self, own: Dialect, others: tuple[Dialect, ...]) -> None:
        self.own = own
        self.others = others
        union = Dialect("foreign", None, tuple(g for d in others for g in d._grammars))
        starts = union._starts
        self._search = starts.search
        self._starts = starts.start_search
        self._probe = starts.probe
        self.may_open = self._starts.search
        """Where in a text an opener could start (`<` and a character that can follow
        it, or the text's end), or None: no text without it holds or starts one."""

    def seen_at(self, text: str, at: int) -> str | None:
        """The first other dialect whose opener matches at `at`, unless the route's own
        dialect opens a block there too; None when neither."""
        if self.own._starts.search.match(text, at) is not None:
            return None
        for other in self.others:
            if other._starts.search.match(text, at) is not None:
                return other.name
        return None

    def opener(self, raw: str) -> str | None:
        """For a block read under `parse`: the other dialect whose opener starts it, or
        None when the route's own dialect opens it (its own markup)."""
        return self.seen_at(raw, 0)

    def opener_text(self, text: str) -> str:
        """The opener (of any dialect) at the start of `text`, as written ("" if none)."""
        match = self._search.match(text) or self.own._starts.search.match(text)
        return match.group() if match is not None else ""

    def scan(self, text: str, line: int, found: Sighting) -> str:
        """Report each sighting in `text` (whose first line is `line`) to `found`;
        return the end of `text` that could still become an opener with what comes
        next ("" when none)."""
        candidate = self._starts.search(text)
        if candidate is None:    # prose: no character an opener starts with
            return ""
        search = self._search.search
        match = search(text, candidate.start())
        end = 0
        while match is not None:
            at = match.start()
            seen = self.seen_at(text, at)
            if seen is not None:
                found(seen, text[at:], line + text.count("\n", 0, at))
            end = match.end()
            match = search(text, end)
        start = max(end, len(text) - MAX_CARRY)
        candidate = self._starts.search(text, start)
        while candidate is not None:
            partial = self._probe.match(text, candidate.start(), partial=True)
            if partial is not None and partial.partial:
                return text[candidate.start():]
            candidate = self._starts.search(text, candidate.start() + 1)
        return ""


class Spotter:
    """One choice's content, searched as it goes out."""

    __slots__ = ("_markup", "carry", "_found")

    def __init__(self, markup: ForeignMarkup, found: Sighting) -> None:
        self._markup = markup
        self.carry = ""
        """The end of the text so far that could still become an opener."""
        self._found = found

    def text(self, text: str, line: int) -> None:
        """A piece of content that went out, in order; `line`: its first line's number."""
        carry = self.carry
        if carry:
            text = carry + text
            line -= carry.count("\n")
        self.carry = self._markup.scan(text, line, self._found)

    def gap(self) -> None:
        """Something that is not content came between (a block, a failed block's text,
        reasoning): an opener cannot span it."""
        self.carry = ""


def foreign_markup(dialect: str | Dialect) -> ForeignMarkup | None:
    """What a route reading `dialect` still recognises of the other bundled dialects
    (None under `auto`, which reads them all)."""
    own = resolve_dialect(dialect)
    if own.name == AUTO and own.path is None:
        return None
    return _foreign(own)


@functools.lru_cache(maxsize=64)
def _foreign(own: Dialect) -> ForeignMarkup | None:
    others = tuple(Dialect.bundled(name) for name in dialects()
                   if Dialect.bundled(name).path != own.path)
    return ForeignMarkup(own, others) if others else None


def composite(dialect: str | Dialect) -> Dialect:
    """The dialect a route reads with under `--on-foreign-markup parse`: its own grammar
    first, then every other bundled grammar (as `auto` reads them, with the route's
    dialect winning ties). `auto` itself stays as it is."""
    own = resolve_dialect(dialect)
    markup = foreign_markup(own)
    if markup is None:
        return own
    return _composite(own, markup)


@functools.lru_cache(maxsize=64)
def _composite(own: Dialect, markup: ForeignMarkup) -> Dialect:
    grammars = own._grammars + tuple(g for other in markup.others for g in other._grammars)
    return Dialect(own.name, own.path, grammars, own.description)

