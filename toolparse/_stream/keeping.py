"""Chunks kept unlexed inside a started call: the engine's quiet path in a block.

Once a call has started in a block whose tag is outside code for certain, with no
output held, nothing can go out until a closing tag completes the block or ends its
failed span (SPEC 3.2), or the limit or the end comes; with incremental events (SPEC
7), until a tag that makes an event. Those tags end with a few characters, the
grammar's *gates* (`_dialect/gates.py`: `>` for every bundled grammar). A chunk without
one is only kept in a list (`Engine.feed`, inlined there). So is a chunk whose gates end
no closing tag (`</parameter>`: the grammar's `closers`, tested from the last closer
character kept, `Keeping.closes`). The chunk that may end one lexes the kept text up to
its last gate (`Keeping.cut`), and what follows that gate is kept in turn. So a block is
lexed once, when its close comes, and every event comes out in the same `feed()` as if
every chunk had been lexed (tests/test_gates.py compares them feed by feed).

Cost: a kept chunk is one `in` test and an append; a gate is one compiled match over at
most `MAX_ATOM` characters (SPEC G6).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from typing import Final

from toolparse._dialect.gates import HEAD, Closers
from toolparse._dialect.inside import Inside
from toolparse._dialect.lexer import MAX_ATOM
from toolparse._dialect.whole import Trying
from toolparse._stream.options import WINDOW

__all__ = ["KEPT_TAIL", "Keeping", "kept"]

KEPT_TAIL: Final = 8
"""The longest atom still arriving that chunks are kept after. Each gate lexes it again
from its start, so a longer one (a quoted `>` in a tag) takes each chunk through its
automaton instead: the bound keeps that re-reading to a few characters a gate (SPEC
G6)."""


class Keeping:
    """The chunks kept since a call's quiet stretch began, and what ends it."""

    __slots__ = ("chunks", "gates", "gate", "gate_set", "last_gate", "room", "closers",
                 "counts", "may_begin", "closer_char", "recur", "lt_piece", "lt_room", "source",
                 "inside", "inside_stops", "pending", "whole")

    def __init__(self, tail: str, gates: str, closers: Closers | None, room: int) -> None:
        self.source = closers
        """The closers it was made for (`restart`)."""
        self.chunks: list[str] = [tail] if tail else []
        """The chunks kept (a short atom still arriving first, lexed again from its
        start at the next gate)."""
        self.gates = gates
        """The characters that end the keeping, and `gate`, the one gate `feed` tests at
        once when there is only one (else "")."""
        self.gate = gates if len(gates) == 1 else ""
        self.gate_set = frozenset(gates)
        """The gates as a set, which `quiet` tests when there are several: one
        `isdisjoint` at C speed, not a loop of `in` tests (granite's `[]{}`)."""
        self.last_gate = _last_gate(gates)
        """With two or more gates, a search for the chunk's last one (`cut`)."""
        self.room = room
        """How many more characters fit before the limit."""
        self.closers: re.Pattern[str] | None = closers.full if closers is not None else None
        """The closing tags a gate is tested against; None: every gate lexes the text
        kept. `counts`: whether a match of them makes an event (None: every one)."""
        self.counts: Callable[[re.Match[str]], bool] | None = (
            closers.counts if closers is not None else None)
        self.may_begin: Callable[[str], bool] = (
            closers.may_begin if closers is not None else _maybe)
        """`Closers.may_begin` of those closing tags."""
        char = self.closer_char = closers.start if closers is not None else NO_CLOSER
        """The character every closing tag begins with (and holds nowhere else but
        within its first `recur` characters: `Closers.recur`)."""
        self.recur = closers.recur if closers is not None else 0
        self.lt_piece = 0 if tail and char and char in tail else -1
        """The last kept piece holding `closer_char` (-1: none), and `room` just after it
        was kept (`lt_room`): where a closing tag ending in the next chunk would begin."""
        self.lt_room = room
        self.inside: Inside | None = None
        """While the text kept may only be more of the value the block's lexing ended
        in (`follow`): what keeps it there, and its stop characters (`inside_stops`,
        which `quiet` tests first). None: the gates decide."""
        self.inside_stops: frozenset[str] | None = None
        self.pending = ""
        """The text kept since the last point settled inside that value
        (`Inside.read`)."""
        self.whole: Trying | None = None
        """While the block waits for a `json_call` read whole (`Capture.waiting_whole`):
        the try, which reads the chunks kept (`Trying.follows`) and alone decides when
        to lex. None: the gates decide."""

    def restart(self, tail: str, room: int) -> Keeping:
        """This keeping, over again from `tail` with `room` (its gates and closers
        unchanged): with incremental events a block keeps and lexes at every event tag,
        and a new keeping each time cost more than the rest of the round trip's
        bookkeeping. The caller holds no other reference to it."""
        self.chunks = [tail] if tail else []
        self.room = self.lt_room = room
        self.lt_piece = 0 if tail and self.closer_char and self.closer_char in tail else -1
        self.inside = self.inside_stops = None
        self.pending = ""
        self.whole = None
        return self

    def follow(self, inside: Inside | None) -> None:
        """The block's lexing ended inside a value's run (a string's text): until a
        chunk may leave it, no gate in the chunks kept ends anything (`inside.py`). Only
        with two gates or more, where `quiet` sees every chunk (with one, `feed` tests
        it alone and a chunk without it would go by unread)."""
        if not self.gate and inside is not None:
            self.inside, self.inside_stops = inside, inside.stops

    def keep(self, chunk: str) -> None:
        """Keep `chunk` (it fits: the caller checked `room`; `Engine.feed` inlines
        this for the quiet path, calling `marked` only for a chunk holding
        `closer_char`). An empty chunk is never kept: it would lengthen every later
        join of `closes`, whose bound counts characters."""
        self.room -= len(chunk)
        self.chunks.append(chunk)
        if self.closer_char in chunk:
            self.marked()
        if self.inside is not None:
            self.stays_inside(chunk)
        if self.whole is not None and not self.whole.follows(chunk):
            self.whole = None

    def marked(self) -> None:
        """The chunk just kept holds `closer_char`: a closing tag may begin there."""
        self.lt_piece = len(self.chunks) - 1
        self.lt_room = self.room

    def quiet(self, chunk: str) -> bool:
        """`feed`'s path 2 for a chunk that holds the gate, or when there are several:
        whether it changes nothing that goes out all the same (it holds none of them, or,
        no longer than a window, its gates end no closing tag), or, inside a value, it
        stays there (`follow`)."""
        whole = self.whole
        if whole is not None:
            # A `json_call` read whole: nothing can go out before its brackets balance
            # or a tag that ends a broken block may begin (`Trying.follows`).
            return len(chunk) < self.room and len(chunk) <= WINDOW and whole.follows(chunk)
        stops = self.inside_stops
        if stops is not None and (stops.isdisjoint(chunk) and not self.pending
                                  or self.stays_inside(chunk)):
            return True
        if not self.gate and self.gate_set.isdisjoint(chunk):
            return True
        return len(chunk) <= WINDOW and not self.closes(chunk)

    def stays_inside(self, chunk: str) -> bool:
        """Inside a value (`follow`): whether the text kept with `chunk` after it stays
        there; when it may not, the keeping leaves it (the gates decide from here)."""
        inside = self.inside
        if inside is None:
            return False
        if not self.pending and inside.stops.isdisjoint(chunk):
            return True   # (more of the run)
        pending = inside.read(self.pending + chunk)
        if pending is None:
            self.inside = self.inside_stops = None
            return False
        self.pending = pending
        return True

    def gateless(self, chunk: str) -> bool:
        """Whether `chunk` holds none of the gates."""
        return self.gate_set.isdisjoint(chunk)

    def closes(self, chunk: str) -> bool:
        """Whether a closing tag may end at one of `chunk`'s gates (`gates.py`,
        `Closers`): one wholly in the chunk, or one from the last closer character kept
        to the chunk's first. True when the grammar has no `closers`."""
        closers = self.closers
        if closers is None:
            return True
        found = closers.search(chunk)
        if found is not None:
            counts = self.counts
            if counts is None:
                return True
            while found is not None:   # (a tag that makes no event: look further)
                if counts(found):
                    return True
                found = closers.search(chunk, found.end())
        return self._closes_across(chunk, closers)

    def _closes_across(self, chunk: str, closers: re.Pattern[str]) -> bool:
        """`closes` for a closing tag that began in a chunk kept before."""
        at = self.lt_piece
        if at < 0:
            return False
        char, kept = self.closer_char, self.chunks
        piece = kept[at]
        head = piece[piece.rfind(char):]
        if self.recur:
            return self._closes_from_near(chunk, closers, at, len(head))
        probe = head if len(head) >= HEAD else "".join([head, *kept[at + 1:at + HEAD], chunk])
        if not self.may_begin(probe[:HEAD]):
            # No closing tag begins at that character: none ends at this gate or any
            # later one before the next such character is kept.
            self.lt_piece = -1
            return False
        stop = chunk.find(char)
        body = chunk if stop < 0 else chunk[:stop]
        if len(head) + self.lt_room - self.room + len(body) > MAX_ATOM:
            return False   # longer than any token the lexer takes
        found = closers.match("".join([head, *kept[at + 1:], body]))
        return found is not None and (self.counts is None or self.counts(found))

    def _closes_from_near(self, chunk: str, closers: re.Pattern[str], at: int,
                          tail: int) -> bool:
        """`_closes_across` when a closing tag holds its first character again within
        `recur` characters (`Closers.recur`): one may begin at any such character from
        that many before the last one kept (piece `at`, `tail` characters from its
        end), and none further back (it would hold that last one further in)."""
        if tail + self.lt_room - self.room > MAX_ATOM:
            return False   # longer than any token the lexer takes, from any of them
        kept, char, recur = self.chunks, self.closer_char, self.recur
        lo, before = at, len(kept[at]) - tail
        while before < recur and lo > 0:
            lo -= 1
            before += len(kept[lo])
        text = "".join(kept[lo:]) + chunk   # (the last one kept is text[before])
        any_begins = False
        for start in range(max(0, before - recur), before + 1):
            if text[start] != char or not self.may_begin(text[start:start + HEAD]):
                continue
            any_begins = True
            found = closers.match(text, start)
            if found is not None and (self.counts is None or self.counts(found)):
                return True
        if not any_begins:
            self.lt_piece = -1   # (as `_closes_across`: none begins before the next one)
        return False

    def cut(self, chunk: str) -> tuple[str, str]:
        """`chunk` holds a gate: (the text kept, up to the chunk's last gate, to lex
        now; the rest of the chunk, which holds none)."""
        gates = self.gates
        if len(gates) == 1:
            at = chunk.rfind(gates) + 1
        else:
            found = self.last_gate.search(chunk)
            at = found.end() if found is not None else 0
        self.chunks.append(chunk[:at])
        return "".join(self.chunks), chunk[at:]

    def text(self) -> str:
        """Everything kept, to be lexed from its start."""
        return "".join(self.chunks)


@functools.lru_cache(maxsize=64)
def _last_gate(gates: str) -> re.Pattern[str]:
    """A search for the last of `gates` in a text: one of them, with none after it."""
    chars = "".join(re.escape(gate) for gate in gates)
    return re.compile(f"[{chars}](?=[^{chars}]*\\Z)")


NO_CLOSER: Final = "\uffff"
"""`Keeping.closer_char` without closers: a noncharacter, so that `feed` does not mark
every chunk for a closing tag nobody asks about (marking one that holds it is harmless)."""


def _maybe(head: str) -> bool:
    """`Keeping.may_begin` without closers (never asked: `closes` answers first)."""
    return True


def kept(spare: Keeping | None, tail: str, gates: str, closers: Closers | None,
         room: int) -> Keeping:
    """A keeping from `tail` (`Keeping`'s arguments): `spare`, a block's last one, again
    when it was made for the same gates and closers."""
    if spare is not None and spare.gates is gates and spare.source is closers:
        return spare.restart(tail, room)
    return Keeping(tail, gates, closers, room)
