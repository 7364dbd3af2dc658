"""Links, images, reference links and link reference definitions (CommonMark 4.7, 6.3,
6.4; SPEC 4.5).

Grammar: LINK_OPEN, LINK_CLOSE, IMAGE_OPEN, LINK_TAIL (destination, `<...>`
destination, title), LINK_LABEL, DEFINITION_BARE, DEFINITION_TITLED, TITLE_LINE.

Why the tracker needs them: the destination and title of a link, and a whole
definition, are no inline text, so a backtick or `<` inside them opens nothing
(`[a](`) `x` ` has one span, `x`). Everything else about links (where the link text
ends, emphasis) is irrelevant to code.

*Brackets* (the commonmark.js procedure). An unescaped `[` or `![` in the last view
pushes a bracket; `]` pops the innermost one. If it was active, the next character
decides: `(` starts a *tail candidate* (`views.py`): complete, the tail's text is
consumed; failed, it was text, and the brackets may still be a shortcut reference. `[`
starts the label of a full or collapsed reference, which is read as ordinary text
(markdown-it-py: code spans and tags bind more tightly than the label's brackets) and
decided at its `]`. Anything else: a shortcut reference. A link that forms (not an
image) deactivates every `[` before it: links do not nest.

*References* are links only if a definition of their label appears anywhere in the
document. A label no definition seen so far names, where the answer would change the
state, splits the inline state into two worlds (`worlds.py`; `fork_needed` finds those
places before the character that decides).

*Definitions* may only begin a paragraph (or follow other definitions there). At such a
line start a `[` opens a *definition candidate*: it completes at the end of its line
(after the destination, or after a same-line title), and then the next line may be a
title (TITLE_LINE candidate) or another definition. A definition is parsed out of the
paragraph it starts, so the lines after it continue that paragraph (commonmark.js).
"""

from __future__ import annotations

import functools
import re
from typing import Final

from toolparse._markdown.inlines.state import (
    ALIVE, COMPLETE, DEAD, DEFS_NO, DEFS_YES, LABEL_WINDOW, MAX_BRACKETS, Bracket,
    Candidate, InlineState)
from toolparse._markdown.inlines.views import fail_candidate, push_candidate, room
from toolparse._markdown.syntax import automata, syntax
from toolparse._syntax.dfa import DFA

__all__ = ["open_bracket", "close_bracket", "after_close", "text_since", "record",
           "normalize_label", "start_line", "fail_definitions", "only_definitions",
           "skip_brackets"]

_WHITESPACE: Final = re.compile(r"\s+")


def normalize_label(label: str) -> str:
    """A label as it names a definition: case-insensitive, whitespace runs as one."""
    return _WHITESPACE.sub(" ", label.strip()).lower().upper()


def is_defined(s: InlineState, label: str | None) -> bool | None:
    """Whether `label` (the raw text between brackets) names a definition: True,
    False, or None when no definition seen so far does, but one may come later and
    this world has not assumed either way (`worlds.py`)."""
    if label is None or syntax().link_label.fullmatch("[" + label + "]") is None:
        return False
    name = normalize_label(label)
    if name in s.definitions:
        return True
    return s.assumed.get(name)


def fork_needed(s: InlineState, ch: str) -> str | None:
    """Before the character `ch` ("" for a line ending, an atom or a tag): the label a
    decision it makes depends on, when no definition seen so far settles it and the
    answer changes the state. The caller splits the world on it first."""
    syn = syntax()
    inactive = s.inactive
    node = s.closed
    if node is not None and ch != syn.link_open:
        defined = is_defined(s, s.closed_text)
        if defined is None and _would_deactivate(s, node):
            return normalize_label(s.closed_text or "")
        if defined and not node.image:
            inactive = max(inactive, node.serial)
    if ch == syn.link_close:
        node = s.head
        if node is not None and node.ref_for is not None and (
                node.image or node.serial >= inactive):
            label = text_since(s, node.start, "")
            name = label if label else node.ref_text
            if is_defined(s, name) is None:
                return normalize_label(name or "")
    return None


def _would_deactivate(s: InlineState, node: Bracket) -> bool:
    """Whether a link formed from `node` would deactivate an active bracket."""
    if node.image:
        return False
    below = s.head
    while below is not None:
        if not below.image and s.inactive <= below.serial < node.serial:
            return True
        below = below.parent
    return False


# ---------------------------------------------------------------- recorded text

def record(s: InlineState, piece: str) -> None:
    """Inline text that went by (raw, line endings as "\\n"), kept for labels once a
    bracket has opened in this paragraph: the last `LABEL_WINDOW` characters."""
    if s.serial and piece:
        recent = s.recent
        recent.append((s.offset, piece))
        s.recent_len += len(piece)
        if s.recent_len > LABEL_WINDOW:  # (else nothing can be dropped)
            while len(recent) > 1 and s.recent_len - len(recent[0][1]) >= LABEL_WINDOW:
                s.recent_len -= len(recent.popleft()[1])
    s.offset += len(piece)


def text_since(s: InlineState, start: int, tail: str) -> str | None:
    """The raw text from inline offset `start` to now (`tail` is what went by since
    the last `record`); None if it is longer than any label."""
    if s.offset + len(tail) - start >= LABEL_WINDOW:
        return None
    if start >= s.offset:
        return tail[start - s.offset:]
    parts = [tail]
    for off, piece in reversed(s.recent):  # (the newest first: labels are short)
        if off + len(piece) <= start:
            break
        parts.append(piece[max(0, start - off):])
    parts.reverse()
    return "".join(parts)


@functools.cache
def _brackets() -> re.Pattern[str]:
    syn = syntax()
    return re.compile("[" + re.escape(syn.link_open + syn.link_close) + "]")


def skip_brackets(s: InlineState, text: str, i: int, end: int) -> bool:
    """text[i:end] is the inside of a raw HTML tag that completes for sure, and its only
    characters with an inline meaning are brackets. Read one by one (in the view where
    the tag fails, dropped when it completes), they change nothing that lasts but
    `serial`, unless one could split the world (`fork_needed`). With no bracket open
    before the tag, that needs a `][` (a reference label) or a link bracket inside
    another one (a link that deactivates it): if there is neither, count the `[`s
    into `serial`, as reading them would, and return True."""
    syn = syntax()
    link_open, link_close, bang = syn.link_open, syn.link_close, syn.image_open[0]
    images: list[bool] = []  # the brackets open inside: an image's?
    count = 0
    for found in _brackets().finditer(text, i, end):
        k = found.start()
        ch = text[k]
        if ch == link_open:
            before = text[k - 1]
            if before == link_close or len(images) >= MAX_BRACKETS:
                return False
            image = before == bang
            if not image and not all(images):
                return False
            images.append(image)
            count += 1
        elif ch == link_close and images:
            images.pop()
    s.serial += count
    return True


# ------------------------------------------------------------------- brackets

def open_bracket(s: InlineState, image: bool, ref_for: Bracket | None = None) -> None:
    """An unescaped `[` (or `![`) in the last view; `s.offset` is just after it."""
    if s.head is not None and s.head.depth >= MAX_BRACKETS:
        return  # too deep: literal, as if it were never matched
    s.head = Bracket(s.serial + 1, image, s.head, s.offset, ref_for,
                     s.closed_text if ref_for is not None else None)
    s.serial += 1


def close_bracket(s: InlineState, label: str | None) -> None:
    """An unescaped `]` in the last view; `label` is the raw text since the innermost
    bracket (None if too long to be a label)."""
    node = s.head
    if node is None:
        return
    s.head = node.parent
    if not node.image and node.serial < s.inactive:
        return  # inside a link: no link can form here
    ref = node.ref_for
    if ref is not None:
        # `[text][label]` or `[text][]`: a link if the label names a definition;
        # else these brackets are brackets like any others.
        if is_defined(s, label if label else node.ref_text):
            deactivate(s, ref)
            return
    s.closed = node
    s.closed_text = label


def after_close(s: InlineState, ch: str) -> bool:
    """The character after a `]` that closed an active bracket (`s.closed`), in the
    last view ("" at an atom, "\n" at a line ending). True if it took `ch` (the `[`
    of a reference label)."""
    node = s.closed
    assert node is not None
    s.closed = None
    text = s.closed_text
    if ch == syntax().paren_open and room(s):
        cand = _tail(node, bool(is_defined(s, text)))
        if cand is not None:
            push_candidate(s, cand)
        return False
    if ch == syntax().link_open:
        open_bracket(s, False, ref_for=node)
        return True
    if is_defined(s, text):  # a shortcut reference
        deactivate(s, node)
    return False


def deactivate(s: InlineState, node: Bracket) -> None:
    """A link formed from `node`: the brackets before it can no longer open links."""
    if not node.image and node.serial > s.inactive:
        s.inactive = node.serial


class TailCandidate(Candidate):
    """`(destination "title")` after the `]` of `node`."""

    __slots__ = ("node", "shortcut")

    def __init__(self, dfa: DFA, state: int, node: Bracket, shortcut: bool) -> None:
        super().__init__((dfa,), [state], 1)
        self.node = node          # the bracket the `]` closed
        self.shortcut = shortcut  # if the tail fails: is `[text]` a shortcut reference?

    def blank(self) -> TailCandidate:
        return TailCandidate(self.dfas[0], 0, self.node, self.shortcut)

    def completed(self, s: InlineState, level: int) -> None:
        deactivate(s, self.node)

    def failed(self, s: InlineState, level: int) -> None:
        node = self.node
        if self.shortcut and not node.image:
            # Every view after this one read the tail as text: there the brackets
            # are a shortcut reference link.
            deactivate(s, node)
            s.snaps[level:] = [(head, max(inactive, node.serial))
                               for head, inactive in s.snaps[level:]]


def _tail(node: Bracket, shortcut: bool) -> TailCandidate | None:
    dfa = automata().link_tail
    state = dfa.table[dfa.initial].get(syntax().paren_open, dfa.default[dfa.initial])
    return TailCandidate(dfa, state, node, shortcut) if state >= 0 else None


# ---------------------------------------------------------------- definitions

class DefinitionCandidate(Candidate):
    """A link reference definition at the start of a paragraph line, from its `[`.
    Its label (up to the first unescaped `]`) is read as it goes by."""

    __slots__ = ("label", "in_label", "escaped", "title", "opening")

    def __init__(self, dfas: tuple[DFA, ...], title: bool) -> None:
        super().__init__(dfas, [d.initial for d in dfas], len(dfas))
        self.label: list[str] = []
        self.in_label = False
        self.opening = not title  # the `[` that opens the label comes first
        self.escaped = False
        self.title = title  # a title line after a definition, not a definition

    def blank(self) -> DefinitionCandidate:
        return DefinitionCandidate(self.dfas, self.title)

    def step(self, ch: str) -> int:
        if self.opening:
            self.opening = False
            self.in_label = True
        elif self.in_label:
            if not self.escaped and ch == syntax().link_close:
                self.in_label = False
            else:
                self.escaped = not self.escaped and ch == syntax().backslash
                self.label.append(ch)
                if len(self.label) >= LABEL_WINDOW:
                    return DEAD
        return super().step(ch)

    def skip(self, text: str, i: int, n: int, stops: str) -> int:
        if self.opening or self.in_label:
            return i  # `step` reads the label: character by character
        return super().skip(text, i, n, stops)

    def completed(self, s: InlineState, level: int) -> None:
        if not self.title:
            label = normalize_label("".join(self.label))
            if label:
                s.definitions.add(label)
        s.defs = DEFS_YES
        s.title_next = not self.title and self.which == 0  # it ended after the destination
        s.line_fresh = True

    def failed(self, s: InlineState, level: int) -> None:
        s.defs = DEFS_NO


@functools.cache
def _starts(ch: str, title: bool) -> tuple[tuple[DFA, ...], tuple[int, ...], int]:
    """The definition (or title-line) automata after `ch`, and how many are alive."""
    auto = automata()
    dfas = (auto.title_line,) if title else auto.definition
    states = tuple(d.table[d.initial].get(ch, d.default[d.initial]) for d in dfas)
    return dfas, states, sum(st >= 0 for st in states)


def start_line(s: InlineState, ch: str) -> None:
    """The first character of a paragraph line while only definitions came before
    (`s.defs` is DEFS_YES): it may begin another definition, or a title for the one
    before; else the paragraph's inline content begins here."""
    title = s.title_next
    s.line_fresh = False
    s.title_next = False
    s.defs = DEFS_NO
    for as_title in ((True, False) if title else (False,)):
        dfas, _, live = _starts(ch, as_title)
        if live and room(s):
            # (pushed before `ch`, which the caller steps it with)
            push_candidate(s, DefinitionCandidate(dfas, as_title))
            return


def fail_definitions(s: InlineState) -> None:
    """A setext underline under the paragraph: a definition still open does not take
    the underline's line, so it has failed (commonmark.js parses definitions from the
    lines before the underline)."""
    from toolparse._markdown.inlines.tickets import settle_branch  # noqa: PLC0415

    if s.cands and isinstance(s.cands[0], DefinitionCandidate):
        fail_candidate(s, 0)
        if s.branch:
            settle_branch(s)


def only_definitions(s: InlineState) -> bool:
    """Whether the paragraph so far holds nothing but complete definitions (then a
    setext underline under it is paragraph text, not a heading)."""
    return s.defs == DEFS_YES and not s.cands


def can_start_definition(ch: str) -> bool:
    """Whether a paragraph line beginning with `ch` may be a definition."""
    return _starts(ch, False)[2] > 0


__all__ += ["after_close", "TailCandidate", "DefinitionCandidate", "can_start_definition",
            "is_defined", "fork_needed"]
_ = (ALIVE, COMPLETE)
