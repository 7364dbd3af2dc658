"""Markdown code context for the stream engine (SPEC section 4).

The engine feeds every character that is not inside a recognised tool block to a
`MarkdownTracker`, in order, in pieces of any size (one character to megabytes). When
it meets a tag that could start a tool block, it asks `context()`: is the next
character inside Markdown code?

- `Context.CODE`: inside a fenced code block (the opening line included), an indented
  code block, or a code span whose closing run has already been seen. The tag is text;
  the engine feeds it to the tracker like any other text.
- `Context.TEXT`: outside code, for certain. The engine captures the block. If the
  block parses, it calls `opaque(raw)`; if it fails, it feeds the released text.
- `Context.PENDING`: undecided (SPEC 4.3, 4.5): an unmatched backtick run earlier in
  the same paragraph, a line that may still turn out to be a fence opener, or a link
  or tag whose end has not arrived. `context()` then returns a ticket number. The engine
  captures the block and holds it; a later `feed()`, `opaque()` or `finish()` returns
  `(ticket, in_code)` once the tracker knows.

Tickets are numbered from 0 up in the order `context()` issued them; a resolution may
come for a later ticket before an earlier one. A ticket whose block failed is simply
ignored by the engine (the tracker need not be told). `context()` assumes, as the engine
guarantees, that the next character is the `<` of the tag.

Theory of operation
-------------------
CommonMark's two-phase parser (commonmark.js, checked against markdown-it-py) turned
inside out so that it never needs a whole line or paragraph. The *block phase* decides
each line at its start (`line_start.py`, running the table of block rules in `blocks/`);
the *inline phase* follows code spans, raw HTML, autolinks and links through paragraph
and heading text (`inlines/`). The mode (`state.py`) says which phase the current
line's characters belong to; every mode change goes through `move()`.

*Speculated lines.* Two kinds of line need their whole text: 3+ backticks are a fence
opener unless a backtick follows on the line (`blocks/fence.py`), and a `<` line outside
a paragraph is an HTML block of kind 7 if it is one complete tag
(`blocks/html_block.py`). Their text is held until it decides, then replayed once.

*Tool blocks* (SPEC G3a) are atoms: `opaque(raw)` advances the inline state past them
without a run, a fence, a line ending or a blank line. Their text is read for three
questions about the Markdown around them, which a CommonMark parser answers from those
characters: the first line finishes a line-type decision waiting on it, candidates
opened before the block step through it, and an end condition of HTML block kinds 1-5
in it ends that block with the current line.

*Shortcuts* take the common cases past that machinery where it would change nothing:
whole lines of the common shapes (`lines.py`, built from the same block rules), a
paragraph line whose only inline markers are single backticks, a `<` that completes or
fails before any character with an inline meaning (`inlines/raw_html.py`). The tests
check that both ways answer every call alike.

Complexity goal: total work is linear in the input (every character is examined a
bounded number of times: by a few compiled searches, at most once more if it sits in a
held line start or a speculated line, once more by a read-ahead from a `<`, and once
per live candidate automaton, at most `MAX_CANDIDATES`). Memory is bounded by: the
undecided start of the current line (or a speculated line); the open containers (at
most `container.MAX_NESTING`); the opener stack (distinct lengths: O(sqrt(paragraph)));
the candidates and the bracket stack (`inlines/state.py` bounds); the labels of the
definitions seen (each at most 999 characters); the outstanding tickets.
"""

from __future__ import annotations

import copy
import enum
from typing import Any

from toolparse._markdown import line_start, lines
from toolparse._markdown import syntax as tuning
from toolparse._markdown.blocks import fence, html_block, leaf
from toolparse._markdown.copies import deep_copy
from toolparse._markdown.inlines import links, runner, tickets
from toolparse._markdown.inlines.state import Definitions, InlineState
from toolparse._markdown.inlines.worlds import Worlds
from toolparse._markdown.state import (
    ENTERS, LEAF_FENCE, LEAF_HEADING, LEAF_NONE, LEAF_PARAGRAPH, MODE_CODE_LINE,
    MODE_HTML_LINE, MODE_INLINE, MODE_LINE_START, MODE_SPEC_FENCE, MODE_SPEC_HTML7,
    OUTCOME_FENCE_SPEC, OUTCOME_HEADING, OUTCOME_HTML7_SPEC, OUTCOME_WAIT, BlockState,
    Mark, Mode, NeedMore, Outcome)
from toolparse._markdown.syntax import automata, syntax

__all__ = ["Context", "MarkdownTracker", "Resolution"]

Resolution = tuple[int, bool]
"""(ticket, in_code): in_code True means the held block was in code, so it is text."""



class Context(enum.Enum):
    """The code context of the next character."""

    TEXT = "text"
    CODE = "code"
    PENDING = "pending"


def _may_split(states: list[InlineState], ch: str) -> bool:
    """Whether one of `states` may split before the character `ch`: the runner asks
    `links.fork_needed` there (a state at a line start asks after a definition may have
    started: it may)."""
    close = syntax().link_close
    return any(st.line_fresh or ((st.closed is not None or ch == close)
                                 and links.fork_needed(st, ch) is not None)
               for st in states)


class MarkdownTracker(BlockState):
    """Follows CommonMark 0.31.2 block and code structure over a text stream. The
    block state the rules read is its base, `state.BlockState`."""

    __slots__ = ("out", "next_ticket", "definitions", "scan")

    def __init__(self) -> None:
        self.out: list[Resolution] = []        # resolutions not yet returned
        self.next_ticket = 0
        self.definitions = Definitions()       # normalized labels of definitions
        inline = InlineState(self.out, self.definitions)  # (worlds.states[0])
        super().__init__(inline, Worlds(inline, self.out))
        self.scan = runner.scan_patterns().search.search  # the next inline marker

    # ================================================================ public API

    def feed(self, text: str) -> list[Resolution]:
        """Consume `text` as Markdown; return the tickets this text resolved."""
        s = self.inline
        if (self.mode is MODE_INLINE and not self.out and self.scan(text) is None
                and not (s.cands or s.esc or s.run or s.line_fresh or s.serial)
                and s.closed is None):
            if text:  # mid-line paragraph text with nothing that changes state
                s.offset += len(text)
                s.last = text[-1]
            return []
        if text:
            self.dispatch(text)
        return self.flush()

    def context(self) -> tuple[Context, int]:
        """The code context of the next character (the `<` of a tool tag).

        The ticket is -1 unless the context is PENDING.
        """
        self.after_cr = False
        mode = self.mode
        if mode is MODE_INLINE:
            if not self.inline_ticket(self.next_ticket):
                return Context.TEXT, -1
            return Context.PENDING, self.new_ticket()
        if mode is MODE_CODE_LINE:
            return Context.CODE, -1
        if mode is MODE_HTML_LINE:
            return Context.TEXT, -1
        if mode is MODE_SPEC_FENCE:
            return Context.PENDING, self.held_ticket()
        if mode is MODE_SPEC_HTML7:
            dfa = automata().html_block_7
            state = dfa.table[self.spec_dfa].get(syntax().tag_open,
                                                 dfa.default[self.spec_dfa])
            if state < 0:  # the `<` ends the tag: the line is a paragraph after all
                html_block.spec_to_paragraph(self)
                return self.context()
            if not self.spec_backtick:
                return Context.TEXT, -1
            return Context.PENDING, self.held_ticket()
        return self._context_at_line_start()

    def _context_at_line_start(self) -> tuple[Context, int]:
        if (self.leaf is LEAF_FENCE and not self.blocks and not self.marks
                and self.fence_char != syntax().tag_open
                and not self.held_line().strip(" \t")):
            # A line of a fence (tool-call examples in code): only indentation so far,
            # and a `<` cannot close the fence. What the machine decides, directly.
            self.lb_parts, self.lb_len, self.ls_wait = [], 0, None
            self.ls_dirty = True
            self.heading = False
            self.move(MODE_CODE_LINE, "a tag on a line of a fence")
            return Context.CODE, -1
        if self.line_start(peek=True) >= 0:
            return self.context()
        # Stopped at the `<` itself: an HTML block start (kinds 1-6 interrupt a
        # paragraph), a new paragraph or HTML block of kind 7 (TEXT either way), or a
        # paragraph continuation line.
        if (self.leaf is LEAF_PARAGRAPH and not self.ls_started
                and any(st.stack for st in self.worlds.states)):
            return Context.PENDING, self.held_ticket()
        return Context.TEXT, -1

    def fork(self) -> MarkdownTracker:
        """An independent copy of this tracker, sharing only its compiled syntax: the
        engine feeds a fork ahead of the real tracker when a decision (is a failed
        block's tag in code?) needs text the real tracker must not see yet. The real
        tracker must not change while its fork is read: the fork shares the definitions
        seen so far (`Definitions`), so that it costs the same however many there are."""
        return copy.deepcopy(self, {id(self.scan): self.scan})  # (a compiled search)

    def __deepcopy__(self, memo: dict[int, Any]) -> MarkdownTracker:
        return deep_copy(self, MarkdownTracker(), memo)

    def ticket_group(self, ticket: int) -> object | None:
        """Right after `context()` issued `ticket`: the group whose fate it shares, or
        None. With one world and no candidate alive, a ticket joins the list of the
        top stuck opener, and a list is resolved all at once (its opener closes: code;
        the paragraph ends: text), so tickets of one group resolve alike."""
        s = self.inline
        if self.mode is not MODE_INLINE or self.worlds.split or s.cands or not s.stack:
            return None
        opener = s.stack[-1]
        return opener if opener.tickets and opener.tickets[-1] == ticket else None

    def shares_fate(self, ticket: int, group: object, earlier: int) -> bool:
        """Whether `ticket`, just issued, must resolve as `earlier` of `group` will: it
        joined the same list, and `earlier` was never split across worlds (no world
        has voted on it, none waits on it)."""
        worlds = self.worlds
        return (self.ticket_group(ticket) is group and earlier not in worlds.votes
                and earlier not in worlds.waiting)

    def code_kind(self) -> str:
        """Right after `context()` answered CODE or PENDING: the kind of code the tag is
        in (or would be in, should its ticket resolve as code): `fenced`, `indented` or
        `span`. For diagnostics (why a tag was not a call); the engine does not use it."""
        if self.mode is MODE_CODE_LINE:
            return "fenced" if self.leaf is LEAF_FENCE else "indented"
        return "fenced" if self.mode is MODE_SPEC_FENCE else "span"

    def opaque(self, raw: str) -> list[Resolution]:
        """A tool block was recognised at the current position (SPEC G3a).

        It is one inline atom with no Markdown meaning: backticks or fences inside it
        open no code and close no code span. Only the block's first line may be read
        to finish deciding the type of the line it starts on (an HTML block start, say).
        """
        self.after_cr = False
        cut = syntax().eol_scan.search(raw)
        first = raw[:cut.start()] if cut else raw
        has_eol = cut is not None
        if self.mode is MODE_LINE_START and self.line_start(peek=True) < 0:
            self.atom_at_line_start(raw, first, has_eol)
            return self.flush()
        mode = self.mode
        if mode is MODE_INLINE:
            self.inline_atom(raw)
        elif mode is MODE_SPEC_FENCE:
            fence.spec_atom(self, raw, first, has_eol)
        elif mode is MODE_SPEC_HTML7:
            html_block.spec_atom(self, raw, first, has_eol)
        elif mode is MODE_HTML_LINE:
            html_block.atom(self, raw)
        return self.flush()

    def finish(self) -> list[Resolution]:
        """End of stream: resolve every outstanding ticket."""
        if self.mode is not MODE_LINE_START or self.lb_len or self.marks:
            # A virtual line ending decides the last line (a "\n" after a final "\r"
            # is swallowed as part of it).
            self.dispatch("\n")
        self.after_cr = False
        self.close_leaf()
        self.blocks.clear()
        self.worlds.finish()
        return self.flush()

    # ============================================================== dispatching

    def flush(self) -> list[Resolution]:
        worlds = self.worlds
        if worlds.votes or self.inline.out is not self.out:
            worlds.collect()
            worlds.definitions_changed()
        out = self.out
        if not out:
            return []
        taken = out[:]
        out.clear()
        return taken

    def new_ticket(self) -> int:
        ticket = self.next_ticket
        self.next_ticket = ticket + 1
        return ticket

    def held_ticket(self) -> int:
        """A ticket held with the undecided line."""
        ticket = self.new_ticket()
        self.marks.append((self.lb_len, ticket))
        return ticket

    def dispatch(self, text: str) -> None:
        i, n = 0, len(text)
        # Whole "\n" lines go through `lines.run` while the state is one it takes.
        whole = n >= tuning.LOOKAHEAD_MIN and "\n" in text and "\r" not in text
        while i < n:
            if whole and lines.ready(self):
                # It stops where the general code must take one step (or at n).
                i = lines.run(self, text, i, n)
                if i >= n:
                    return
            mode = self.mode
            if mode is MODE_INLINE:
                i = self.inline_feed(text, i, n)
            elif mode is MODE_LINE_START:
                i = self.line_start_feed(text, i, n)
            elif mode is MODE_CODE_LINE:
                m = syntax().eol_scan.search(text, i)
                if m is None:
                    return
                i = self.end_line(text, m.start())
            elif mode is MODE_HTML_LINE:
                i = html_block.feed(self, text, i, n)
            elif mode is MODE_SPEC_FENCE:
                i = fence.spec_feed(self, text, i, n)
            else:
                i = html_block.spec_feed(self, text, i, n)

    # ============================================================ inline glue

    def inline_feed(self, text: str, i: int, n: int) -> int:
        """Paragraph or heading content from text[i]; returns after the line ending
        (the next line's start) or at n."""
        bulk = not self.blocks and not self.heading
        s = self.inline
        j = i
        if not self.worlds.split:
            j = runner.feed(s, text, i, n, bulk)
        if self.worlds.split or s.fork_label is not None:
            j = self._feed_worlds(text, j, n, bulk)
        if j >= n:
            return n
        self.inline_eol()
        return self.end_line(text, j)

    def _feed_worlds(self, text: str, at: int, n: int, bulk: bool) -> int:
        """Every world reads from `at` (where all its states stand) up to the same line
        ending (or n), splitting where a decision needs a definition not seen yet.

        The states read in step. A split can only be needed at a `]` or while a `]`
        waits on its next character (`links.fork_needed`), so they read together from
        one such place to the next, and there they are merged before any of them
        splits. The number of live states a split meets, which `MAX_WORLDS` bounds, is
        then the same however the text was cut (G2). (Merged only there: states that
        are the same stay the same, so a merge later finds them all the same.)"""
        worlds = self.worlds
        syn = syntax()
        while at < n and text[at] != "\n" and text[at] != "\r":
            states = worlds.states
            opened = any(st.head is not None for st in states)
            if any(st.closed is not None for st in states) or (
                    opened and text[at] == syn.link_close):
                stop = at + 1
                if worlds.split and _may_split(states, text[at]):
                    worlds.merge()
            else:  # (no bracket open: a `]` before the next `[` closes nothing)
                j = at if opened else text.find(syn.link_open, at, n)
                j = -1 if j < 0 else text.find(syn.link_close, j + 1, n)
                stop = n if j < 0 else j
            piece = text[at:stop]  # (the runner reads a chunk to its end)
            k = 0
            end = stop
            while k < len(worlds.states):  # (a split appends the twin: it reads too)
                st = worlds.states[k]
                if st.fork_label is None:
                    end = at + runner.feed(st, piece, 0, stop - at, bulk)
                if st.fork_label is not None:
                    worlds.fork(k)  # (then state k reads again, assuming the label)
                    continue
                k += 1
            at = end
        worlds.collect()
        return at

    def each_state(self, op: object) -> None:
        """Apply `op` (a function of an inline state) to every world, splitting first
        where it makes a decision that needs a definition not seen yet."""
        worlds = self.worlds
        if all(st.closed is None for st in worlds.states):
            # (No `]` waits on its next character: no state needs a split here.)
            for st in worlds.states:
                op(st)  # type: ignore[operator]
            worlds.collect()
            return
        worlds.merge()  # (where every state stands: as `_feed_worlds`)
        done: set[int] = set()
        while True:
            todo = [st for st in worlds.states if id(st) not in done]
            if not todo:
                break
            st = todo[0]
            label = links.fork_needed(st, "")
            if label is not None:
                st.fork_label = label
                worlds.fork(worlds.states.index(st))
                continue
            op(st)  # type: ignore[operator]
            done.add(id(st))
        worlds.collect()

    def inline_eol(self) -> None:
        s = self.inline
        if not self.worlds.split and (s.closed is None or links.fork_needed(s, "") is None):
            runner.eol(s)
        else:
            self.each_state(runner.eol)
        if self.heading:
            self.heading = False
            self.close_leaf()

    def inline_atom(self, raw: str) -> None:
        s = self.inline
        if not self.worlds.split and (s.closed is None or links.fork_needed(s, "") is None):
            runner.atom(s, raw)
        else:
            self.each_state(lambda st: runner.atom(st, raw))

    def inline_ticket(self, number: int) -> bool:
        """A tool tag in paragraph text: True if `number` now waits on the inline state
        (PENDING), False if it is outside code for certain in every world."""
        s = self.inline
        worlds = self.worlds
        if not worlds.split and (s.closed is None or links.fork_needed(s, "") is None):
            return runner.ticket(s, number)
        self.each_state(runner.prepare)
        states = worlds.states
        if not any(st.stack for st in states):
            return False
        worlds.waiting[number] = len(states)
        for k, st in enumerate(states):
            if st.stack:
                tickets.attach(st, number)
            else:
                worlds.vote(number, worlds.worlds[k], st.tainted)
        worlds.decide()
        return True

    def end_paragraph(self) -> None:
        self.worlds.end_paragraph()

    # ================================================================ blocks

    # ======================================================== the line start

    def line_start_feed(self, text: str, i: int, n: int) -> int:
        if self.after_cr:
            self.after_cr = False
            if text[i] == "\n":
                return i + 1
        m = syntax().eol_scan.search(text, i)
        end = m.end() if m else n
        if not self.lb_len and not self.marks and not self.blocks:
            at = lines.plain_line_start(self, text, i, end)
            if at >= 0:
                return at
        chunk = text[i:end]
        wait = self.ls_wait
        if wait is not None and m is None and wait.search(chunk) is None:  # type: ignore[attr-defined]
            self.hold(chunk)
            return end
        direct = not self.lb_len and not self.marks
        self.hold(chunk)
        at = self.line_start(peek=False, replay=not direct)
        if at < 0:
            return end
        return i + at if direct else end

    def line_start(self, peek: bool, replay: bool = True) -> int:
        """Run the line-start machine over the held line. Once the line's type is
        decided, switch modes and return where the rest of the line starts in the held
        text (which has been replayed unless `replay` is false); else return -1."""
        self.ls_dirty = True
        buf = self.held_line()
        if peek:
            buf += syntax().tag_open
        try:
            outcome, at = line_start.machine(self, buf)
        except NeedMore as need:
            self.ls_wait = need.wait
            outcome = OUTCOME_WAIT
        if outcome is OUTCOME_WAIT:  # (`ls_wait` says what could decide)
            self._drop_consumed(buf)
            return -1
        self.ls_wait = None
        return self.enter(outcome, buf[:self.lb_len] if peek else buf, at, replay)

    def _drop_consumed(self, buf: str) -> None:
        """Drop what the machine has consumed: a held line start stays short however
        it arrives, and nothing before the registers is read again."""
        cut = self.ls_off
        if cut:
            self.lb_parts = [buf[cut:self.lb_len]]
            self.lb_len -= cut
            self.ls_off = 0
            self.marks = [(off - cut, t) for off, t in self.marks]
            self.ls_no_break = {c: q - cut for c, q in self.ls_no_break.items()}

    def enter(self, outcome: Outcome, buf: str, at: int, replay: bool = True) -> int:
        """Switch to the mode the line-start machine chose; replay the held text (or
        return where the caller should go on with it)."""
        marks = self.take_held_line()
        self.heading = outcome is OUTCOME_HEADING
        self.move(ENTERS[outcome], "a line start decided")
        if outcome is OUTCOME_FENCE_SPEC:
            self.spec_backtick = False
            run = self.spec_run
            self.lb_parts = [buf[at:at + run]]
            self.lb_len = run
            at += run
        elif outcome is OUTCOME_HTML7_SPEC:
            html_block.spec_enter(self)
        if replay:
            self.replay(buf, at, marks)
        return at

    def replay(self, buf: str, at: int, marks: list[Mark]) -> None:
        """Feed buf[at:] through the current mode, with tickets and atoms in place."""
        for off, item in marks:
            if off < at:
                self.resolve(item, False)
                continue
            if off > at:
                self.dispatch(buf[at:off])
                at = off
            self.place(item)
        if at < len(buf):
            self.dispatch(buf[at:])

    def place(self, item: int | str) -> None:
        """A held ticket (an int) or tool block (its text) reaches the current mode."""
        mode = self.mode
        if isinstance(item, str):  # a tool block held with the line
            raw = item
            if mode is MODE_INLINE:
                self.inline_atom(raw)
            elif mode is MODE_SPEC_FENCE:
                self.marks.append((self.lb_len, raw))
            elif mode is MODE_SPEC_HTML7:
                cut = syntax().eol_scan.search(raw)
                html_block.spec_atom(self, raw, raw[:cut.start()] if cut else raw,
                                     cut is not None)
            elif mode is MODE_HTML_LINE:
                html_block.atom(self, raw)
            return
        ticket = item
        if mode is MODE_INLINE:
            if not self.inline_ticket(ticket):
                self.resolve(ticket, False)
        elif mode is MODE_SPEC_FENCE or mode is MODE_SPEC_HTML7:
            self.marks.append((self.lb_len, ticket))
        else:
            self.resolve(ticket, mode is MODE_CODE_LINE)

    def resolve(self, item: int | str, in_code: bool) -> None:
        if isinstance(item, int):
            self.out.append((item, in_code))

    def resolve_marks(self, marks: list[Mark], in_code: bool) -> None:
        for _, item in marks:
            if isinstance(item, int):
                self.out.append((item, in_code))

    def atom_at_line_start(self, raw: str, first: str, has_eol: bool) -> None:
        """The line-start machine stopped at the `<` that begins a tool block: decide
        the line from the block's first line, then take the block as an atom."""
        at = self.lb_len
        probe = self.held_line() + first + ("\n" if has_eol else "")
        kind = html_block.first_line_kind(probe, at)
        marks: list[Mark] = [(0, item) for _, item in self.take_held_line()]
        if kind:
            self.close_unmatched()
            html_block.open_block(self, kind)
            self.move(MODE_HTML_LINE, "a tool block that starts an HTML block")
            self.resolve_marks(marks, False)
            html_block.atom(self, raw)
            return
        in_para = self.leaf is LEAF_PARAGRAPH and self.ls_leaf_ok and not self.ls_started
        if not in_para and not (not self.ls_closed and self.leaf is LEAF_PARAGRAPH):
            # A new block: an HTML block of kind 7 if the first line is one tag.
            self.close_unmatched()
            self.move(MODE_SPEC_HTML7, "a tool block at the start of a block")
            html_block.spec_enter(self)
            self.marks = marks
            html_block.spec_atom(self, raw, first, has_eol)
            return
        leaf.step_c(self, at, False)
        self.move(MODE_INLINE, "a tool block in a paragraph line")
        self.heading = False
        self.replay("", 0, marks)
        self.inline_atom(raw)
