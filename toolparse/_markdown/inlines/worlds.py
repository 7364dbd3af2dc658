"""Worlds: the inline state split on a definition that may come later (SPEC 4.5, 4.3).

A reference link (`[text][label]`, `[label][]`, `[label]`) is a link only if a
definition of its label appears anywhere in the document, possibly after the
paragraph. That changes code only through the rules that depend on it: a full
reference consumes its label's brackets, and a link inside `[...]` keeps those outer
brackets from being a link (so their `(...)`, backticks and all, stays text). When such
a decision meets a label that no definition seen so far names, the inline state is
split in two *worlds*, one where the label is defined and one where it is not, and
both read the rest of the paragraph. Never a guess: a tag waiting in the paragraph is
resolved once every world agrees on it, or once later definitions (or the end of the
stream) rule worlds out.

Worlds that come back to the same state are merged (`key`), so independent references
(`[a][1] ... [b][2]`) cost two at a time, not 2**n. Bound: at most `MAX_WORLDS` live
states; a split past that is not made, and the state that needed it is *tainted*: its
verdicts are "code" (fail closed: a tag there is text, never a call). The states are
counted where they all stand at the same character, merged (the tracker reads them in
step, `MarkdownTracker._feed_worlds`), so the bound falls at the same place however the
text is cut (G2).

Each world is a dict label -> assumed defined. A state stands for one or more worlds
(after a merge). A ticket's votes are (world, in_code) pairs; it is decided when no
live state still holds it and every vote still consistent with the definitions seen
agrees (at the end of the stream every unseen label is undefined).
"""

from __future__ import annotations

from typing import Any, Final

from toolparse._markdown.copies import deep_copy
from toolparse._markdown.inlines import runner
from toolparse._markdown.inlines.state import CODE_MARK, InlineState, Opener, Resolution

__all__ = ["MAX_WORLDS", "Worlds"]

# How many inline states may read a paragraph at once.
MAX_WORLDS: Final = 8

World = dict[str, bool]


def _mark(a: Any, index: dict[int, int]) -> Any:
    """An attached opener as its place on the stack (a module function, not a closure:
    the compiled build's closure and its environment would be a reference cycle)."""
    return index.get(id(a), -1) if isinstance(a, Opener) else a


def key(s: InlineState) -> tuple[Any, ...]:
    """What a state's future depends on (its assumptions aside)."""
    index = {id(o): k for k, o in enumerate(s.stack)}
    return (
        tuple((o.length, tuple(o.tickets), id(o.brackets[0]), o.brackets[1])
              for o in s.stack),
        tuple((type(c).__name__, tuple(c.states), c.live, c.which,
               tuple(getattr(c, "label", ())), id(getattr(c, "node", None)))
              for c in s.cands),
        tuple(s.bases), tuple((id(h), i) for h, i in s.snaps),
        tuple((b.ticket, tuple(_mark(a, index) for a in b.attach)) for b in s.branch),
        s.run, s.run_esc, s.esc, id(s.head), s.inactive, s.serial, id(s.closed),
        s.closed_text, s.offset, s.defs, s.title_next, s.line_fresh, s.last, s.esc_end,
        s.tainted,
    )


def pending_tickets(s: InlineState) -> list[int]:
    out = [t for o in s.stack for t in o.tickets]
    out += [b.ticket for b in s.branch]
    return out


class Worlds:
    """The live inline states of the open paragraph, and the votes of their worlds."""

    __slots__ = ("states", "worlds", "votes", "waiting", "out", "definitions", "known",
                 "split")

    def __init__(self, first: InlineState, out: list[Resolution]) -> None:
        self.states = [first]           # live states; states[0] is the tracker's
        self.worlds: list[list[World]] = [[{}]]  # the worlds each state stands for
        self.votes: dict[int, list[tuple[World, bool]]] = {}  # undecided tickets
        self.waiting: dict[int, int] = {}  # ticket -> live states still holding it
        self.out = out                  # the tracker's resolutions
        self.definitions = first.definitions
        self.known = 0                  # len(definitions) when votes were last checked
        self.split = False              # more than one state is live

    def __deepcopy__(self, memo: dict[int, Any]) -> Worlds:
        return deep_copy(self, Worlds(self.states[0], self.out), memo)

    # ----------------------------------------------------------------- splitting

    def fork(self, k: int) -> None:
        """State k stopped because it must assume `fork_label`: split it (the caller
        has merged the states where they stand, `merge`)."""
        s = self.states[k]
        label = s.fork_label
        assert label is not None
        s.fork_label = None
        if len(self.states) >= MAX_WORLDS:
            s.assumed[label] = False
            s.tainted = True
            return
        twin = s.clone([])
        s.out = [] if s.out is self.out else s.out
        worlds = self.worlds[k]
        self.worlds[k] = [{**w, label: False} for w in worlds if w.get(label) is not True]
        twin_worlds = [{**w, label: True} for w in worlds if w.get(label) is not False]
        s.assumed[label] = False
        twin.assumed[label] = True
        self.states.append(twin)
        self.worlds.append(twin_worlds)
        self.split = True
        for ticket in pending_tickets(twin):
            self.waiting[ticket] = self.waiting.get(ticket, 1) + 1

    def merge(self) -> None:
        """Merge the states that have come back to the same state."""
        if len(self.states) < 2:
            return
        self.collect()  # (what each state resolved is its worlds' votes before it goes)
        seen: dict[tuple[Any, ...], int] = {}
        k = 0
        while k < len(self.states):
            s = self.states[k]
            found = seen.get(key(s))
            if found is None:
                seen[key(s)] = k
                k += 1
                continue
            keep = self.states[found]
            self.worlds[found] += self.worlds[k]
            keep.assumed = {name: value for name, value in keep.assumed.items()
                            if s.assumed.get(name) == value}
            for ticket in pending_tickets(s):
                self.waiting[ticket] -= 1
            del self.states[k]
            del self.worlds[k]
        self.split = len(self.states) > 1
        if len(self.states) == 1:
            self.states[0].out = self.out

    # --------------------------------------------------------------------- votes

    def collect(self) -> None:
        """Take the resolutions the states made as votes of their worlds."""
        if not self.split and not self.votes:
            return
        for j, s in enumerate(self.states):
            if s.out is self.out:
                continue
            for ticket, in_code in s.out:
                self.vote(ticket, self.worlds[j], in_code or s.tainted)
            s.out.clear()
        self.decide()

    def vote(self, ticket: int, worlds: list[World], in_code: bool) -> None:
        self.votes.setdefault(ticket, []).extend((w, in_code) for w in worlds)
        self.waiting[ticket] = self.waiting.get(ticket, 1) - 1

    def decide(self, final: bool = False) -> None:
        """Resolve the tickets whose consistent votes agree."""
        self.known = len(self.definitions)
        for ticket in list(self.votes):
            if self.waiting.get(ticket, 0) > 0:
                continue
            verdicts = {v for w, v in self.votes[ticket] if self.consistent(w, final)}
            if len(verdicts) == 1:
                self.out.append((ticket, verdicts.pop()))
            elif not verdicts:  # (cannot happen: some world is the real one)
                self.out.append((ticket, True))
            else:
                continue
            del self.votes[ticket]
            self.waiting.pop(ticket, None)

    def consistent(self, world: World, final: bool) -> bool:
        for label, defined in world.items():
            if label in self.definitions:
                if not defined:
                    return False
            elif defined and final:
                return False
        return True

    def definitions_changed(self) -> None:
        if self.votes and len(self.definitions) != self.known:
            self.decide()

    # ------------------------------------------------------------ the paragraph

    def end_paragraph(self) -> None:
        """Every state resolves its tickets; one state goes on, for every world."""
        if not self.split and not self.votes and self.states[0].out is self.out:
            runner.end_paragraph(self.states[0])
            return
        for s in self.states:
            runner.end_paragraph(s)
        self.collect()
        first = self.states[0]
        first.out = self.out
        self.states = [first]
        self.worlds = [[{}]]
        self.split = False
        self.decide()

    def finish(self) -> None:
        self.collect()
        self.decide(final=True)


_ = CODE_MARK
