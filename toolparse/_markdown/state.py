"""The tracker's modes and block state, and every move between modes (h11 `_state.py`).

`BlockState` is what a block rule (`blocks/`, `line_start.py`, `lines.py`) may read
and call: the open blocks, the held line start and its registers, the mode, and the
few tracker steps a rule takes. The rules annotate it and import only from here and
below, never the tracker, which subclasses it (as markdown-it-py's block rules take a
`StateBlock`).

A *mode* says what the characters of the current line mean; the block state says which
containers and which leaf block are open. Everything that changes the mode goes through
`move()`, which checks the move against `TRANSITIONS`: an illegal move is a bug in the
tracker, and raises `TrackerStateError` naming the mode and what asked for the move.

    LINE_START --> INLINE        the line is paragraph or heading text
               --> CODE_LINE     the rest of the line means nothing (code, a break)
               --> HTML_LINE     a line of an HTML block
               --> SPEC_FENCE    3+ backticks: a fence opener unless a backtick follows
               --> SPEC_HTML7    a `<` that may be a whole-line tag (HTML block kind 7)
               --> LINE_START    a blank line
    INLINE, CODE_LINE, HTML_LINE --> LINE_START   at the line ending
    SPEC_FENCE --> INLINE (a backtick came) | CODE_LINE (the line ended: a fence)
    SPEC_HTML7 --> INLINE (the tag failed)  | HTML_LINE (the line ended: a block)
"""

from __future__ import annotations

import enum
import re
from typing import Any, Final

from toolparse._errors import TrackerStateError
from toolparse._markdown.copies import deep_copy
from toolparse._markdown.inlines import runner
from toolparse._markdown.inlines.state import InlineState
from toolparse._markdown.inlines.worlds import Worlds
from toolparse._markdown.syntax import TAB_STOP, syntax

__all__ = ["Mode", "Leaf", "TRANSITIONS", "TrackerStateError", "Container", "NeedMore",
           "Outcome", "check_move", "ENTERS", "BlockState", "Mark",
           "MODE_LINE_START", "MODE_INLINE", "MODE_CODE_LINE", "MODE_HTML_LINE", "MODE_SPEC_FENCE", "MODE_SPEC_HTML7",
           "LEAF_NONE", "LEAF_PARAGRAPH", "LEAF_HEADING", "LEAF_FENCE", "LEAF_INDENTED", "LEAF_HTML",
           "OUTCOME_CODE", "OUTCOME_HTML", "OUTCOME_INLINE",
           "OUTCOME_HEADING", "OUTCOME_FENCE_SPEC", "OUTCOME_HTML7_SPEC", "OUTCOME_DONE",
           "OUTCOME_WAIT"]


# (Integer enums: they hash as ints, in C, which the transition table's look-ups on
# the hot path need; plain Enum members hash through a Python method.)

class Mode(enum.IntEnum):
    """What the characters of the current line mean."""

    LINE_START = 0   # the line's block structure is not decided yet
    INLINE = 1       # paragraph or heading content
    CODE_LINE = 2    # nothing on the rest of the line has a meaning
    HTML_LINE = 3    # a line of an HTML block (only its end condition)
    SPEC_FENCE = 4   # 3+ backticks; a later backtick makes it text
    SPEC_HTML7 = 5   # a `<` line that may be one whole tag


class Leaf(enum.IntEnum):
    """The innermost open block that is not a container."""

    NONE = 0
    PARAGRAPH = 1
    HEADING = 2
    FENCE = 3
    INDENTED = 4
    HTML = 5


class Outcome(enum.IntEnum):
    """What the line-start machine decided the rest of the line is."""

    CODE = 0         # a line of code: the rest means nothing
    HTML = 1         # a line of an HTML block
    INLINE = 2       # paragraph text (new, continued or lazy)
    HEADING = 3      # ATX heading content
    FENCE_SPEC = 4   # a possible backtick fence opener
    HTML7_SPEC = 5   # a possible HTML block of kind 7
    DONE = 6         # a decided line with nothing after (a break, a closing fence)
    WAIT = 7         # not decided: as NeedMore, returned where a line start most often
                     # waits (`ls_wait` set), since an exception through compiled frames
                     # costs a traceback entry a frame (about 20,000 instructions)


# The members as module names, for the rules to read: an attribute of an enum class
# goes through its metaclass hook (`EnumType.__getattr__`), some ten times the cost of
# a module global on the per-line paths.
MODE_LINE_START: Final = Mode.LINE_START
MODE_INLINE: Final = Mode.INLINE
MODE_CODE_LINE: Final = Mode.CODE_LINE
MODE_HTML_LINE: Final = Mode.HTML_LINE
MODE_SPEC_FENCE: Final = Mode.SPEC_FENCE
MODE_SPEC_HTML7: Final = Mode.SPEC_HTML7
LEAF_NONE: Final = Leaf.NONE
LEAF_PARAGRAPH: Final = Leaf.PARAGRAPH
LEAF_HEADING: Final = Leaf.HEADING
LEAF_FENCE: Final = Leaf.FENCE
LEAF_INDENTED: Final = Leaf.INDENTED
LEAF_HTML: Final = Leaf.HTML
OUTCOME_CODE: Final = Outcome.CODE
OUTCOME_HTML: Final = Outcome.HTML
OUTCOME_INLINE: Final = Outcome.INLINE
OUTCOME_HEADING: Final = Outcome.HEADING
OUTCOME_FENCE_SPEC: Final = Outcome.FENCE_SPEC
OUTCOME_HTML7_SPEC: Final = Outcome.HTML7_SPEC
OUTCOME_DONE: Final = Outcome.DONE
OUTCOME_WAIT: Final = Outcome.WAIT

TRANSITIONS: Final[dict[Mode, frozenset[Mode]]] = {
    Mode.LINE_START: frozenset(Mode),
    Mode.INLINE: frozenset({Mode.LINE_START, Mode.INLINE}),
    Mode.CODE_LINE: frozenset({Mode.LINE_START, Mode.CODE_LINE}),
    Mode.HTML_LINE: frozenset({Mode.LINE_START}),
    Mode.SPEC_FENCE: frozenset({Mode.INLINE, Mode.CODE_LINE}),
    Mode.SPEC_HTML7: frozenset({Mode.INLINE, Mode.HTML_LINE}),
}

# Which mode each line-start outcome enters.
ENTERS: Final[dict[Outcome, Mode]] = {
    Outcome.CODE: Mode.CODE_LINE, Outcome.DONE: Mode.CODE_LINE,
    Outcome.HTML: Mode.HTML_LINE, Outcome.INLINE: Mode.INLINE,
    Outcome.HEADING: Mode.INLINE, Outcome.FENCE_SPEC: Mode.SPEC_FENCE,
    Outcome.HTML7_SPEC: Mode.SPEC_HTML7,
}


def check_move(mode: Mode, to: Mode, why: str) -> Mode:
    """`to`, if the tracker may go there from `mode`; else raise, naming both and `why`
    (the input or rule that asked for the move)."""
    if to not in TRANSITIONS[mode]:
        raise TrackerStateError(f"Markdown tracker: no move from {mode.name} to "
                                f"{to.name} (asked by {why})")
    return to


class Container:
    """An open block quote or list item."""

    __slots__ = ("quote", "content", "has_child")

    def __init__(self, quote: bool, content: int) -> None:
        self.quote = quote          # block quote, else list item
        self.content = content      # list item: columns of the content (marker + padding)
        self.has_child = False      # a list item that holds a block (so a blank line
                                    # continues it)

    def __deepcopy__(self, memo: dict[int, Any]) -> Container:
        return deep_copy(self, Container(self.quote, self.content), memo)


class NeedMore(Exception):
    """The held line start cannot be decided yet; `wait` says what could decide it
    (None: any character)."""

    def __init__(self, wait: re.Pattern[str] | None) -> None:
        self.wait = wait


Mark = tuple[int, "int | str"]
"""A ticket or a tool block's text held with the line start, at its offset there."""


class BlockState:
    """What the block rules read and call (see the module docstring).

    A base class, not a `typing.Protocol`: the compiled build reads a native class's
    attributes and calls its methods directly, but goes through Python's generic
    attribute look-up for a protocol-typed value (2.5 times the cost, measured on a
    field read and a method call in a loop), and the rules run once per line.
    `MarkdownTracker` implements the four steps at the end, which need the tracker's
    dispatch and tickets."""

    __slots__ = (
        "mode", "after_cr", "inline", "worlds",
        # blocks
        "blocks", "leaf", "fence_char", "fence_len", "html_kind", "html_tail",
        "html_closing", "heading",
        # the line-start machine (line_start.py)
        "lb_parts", "lb_len", "marks", "ls_off", "ls_col", "ls_ptab", "ls_stage", "ls_k",
        "ls_leaf_ok", "ls_closed", "ls_started", "ls_wait", "ls_no_break", "ls_dirty",
        # speculated lines
        "spec_run", "spec_dfa", "spec_backtick",
    )

    ls_off: int          # the line-start registers: offset in the held line,
    ls_col: int          # column,
    ls_ptab: bool        # a tab partly used
    ls_stage: int        # the stage reached (0-2)
    ls_k: int            # containers continued so far
    ls_leaf_ok: bool     # the open leaf continues
    ls_closed: bool      # the unmatched containers are closed
    ls_started: bool     # a block started on this line
    ls_no_break: dict[str, int]  # a character -> where a thematic break was ruled out
    ls_dirty: bool       # the registers need a reset at the next line

    def __init__(self, inline: InlineState, worlds: Worlds) -> None:
        self.mode = MODE_LINE_START
        self.after_cr = False                  # the last line ended with a lone "\r"
        self.inline = inline                   # the paragraph's inline state ...
        self.worlds = worlds                   # ... and every world reading it
        self.blocks: list[Container] = []      # open containers, outermost first
        self.leaf = LEAF_NONE
        self.fence_char = ""                   # the open fence's character ...
        self.fence_len = 0                     # ... and length
        self.html_kind = 0                     # the open HTML block's kind (1-7)
        self.html_tail = ""                    # the end of its line so far (an end
                                               # condition cut by a piece)
        self.html_closing = False              # its end condition is on this line
        self.heading = False                   # the line is ATX heading content
        self.lb_parts: list[str] = []          # the held line start (or spec line)
        self.lb_len = 0
        self.marks: list[Mark] = []            # tickets and tool blocks held with it
        self.ls_wait: object = None            # what could decide a waiting line start
        self.spec_run = 0                      # a possible fence opener's run length
        self.spec_dfa = 0                      # a possible kind-7 line's automaton state
        self.spec_backtick = False             # ... and whether it holds a backtick
        self.reset_line()

    # ---- the mode ---------------------------------------------------------------

    def in_mode(self, mode: Mode) -> bool:
        """(For callers that changed the mode through a rule: no type narrowing.)"""
        return self.mode is mode

    def move(self, to: Mode, why: str) -> None:
        """Change mode (`TRANSITIONS`); `why` names the input that asked."""
        if to not in TRANSITIONS[self.mode]:
            check_move(self.mode, to, why)
        self.mode = to

    # ---- blocks -----------------------------------------------------------------

    def open_leaf(self, kind: Leaf) -> None:
        """Open a leaf block inside the innermost container (the state change every
        way of deciding a line makes)."""
        if self.leaf is not LEAF_NONE:
            self.close_leaf()
        if self.blocks:
            self.blocks[-1].has_child = True
        self.leaf = kind
        if kind is LEAF_PARAGRAPH:
            runner.begin_paragraph(self.inline)
        elif kind is LEAF_HEADING:
            runner.begin_heading(self.inline)

    def close_leaf(self) -> None:
        leaf_ = self.leaf
        if leaf_ is LEAF_PARAGRAPH or leaf_ is LEAF_HEADING:
            worlds = self.worlds
            if worlds.split or worlds.votes or self.inline.out is not worlds.out:
                worlds.end_paragraph()
            else:  # (one world: what `Worlds.end_paragraph` would do)
                runner.end_paragraph(self.inline)
        self.leaf = LEAF_NONE

    def close_unmatched(self) -> None:
        """Close the containers this line did not continue (and the leaf in them)."""
        if self.ls_closed:
            return
        if self.leaf is not LEAF_NONE and not self.ls_leaf_ok:
            self.close_leaf()
        del self.blocks[self.ls_k:]
        self.ls_closed = True

    def add_container(self, cont: Container) -> None:
        self.close_leaf()
        if self.blocks:
            self.blocks[-1].has_child = True
        self.blocks.append(cont)
        self.ls_k = len(self.blocks)
        self.ls_started = True
        self.ls_closed = True

    # ---- the held line start and its registers ----------------------------------

    def reset_line(self) -> None:
        self.lb_parts = []
        self.lb_len = 0
        self.marks = []
        self.ls_off = 0
        self.ls_col = 0
        self.ls_ptab = False
        self.ls_stage = 0
        self.ls_k = 0
        self.ls_leaf_ok = False
        self.ls_closed = False
        self.ls_started = False
        self.ls_wait = None
        self.ls_no_break = {}
        self.ls_dirty = False

    def hold(self, piece: str) -> None:
        self.lb_parts.append(piece)
        self.lb_len += len(piece)

    def held_line(self) -> str:
        parts = self.lb_parts
        if len(parts) > 1:
            parts[:] = ["".join(parts)]
        return parts[0] if parts else ""

    def take_held_line(self) -> list[Mark]:
        """Empty the held line; returns the tickets and tool blocks held with it (a
        speculated line decided: its text is replayed, its marks resolved)."""
        marks = self.marks
        self.lb_parts, self.lb_len, self.marks = [], 0, []
        return marks

    def goto(self, i: int, col: int) -> None:
        self.ls_off, self.ls_col, self.ls_ptab = i, col, False

    def nns(self, buf: str) -> tuple[int, int, bool]:
        """The next non-space character from the registers: (offset, column, blank)."""
        found = self.nns_or_none(buf)
        if found is None:
            raise NeedMore(syntax().wait_ws)
        return found

    def nns_or_none(self, buf: str) -> tuple[int, int, bool] | None:
        """`nns`, or None where it would raise (only spaces held so far)."""
        i = self.ls_off
        col = self.ls_col
        if i < len(buf):
            ch = buf[i]
            if ch != " " and ch != "\t":
                return i, col, ch == "\n" or ch == "\r"
        m = syntax().indent_run.match(buf, i)
        if m is not None:
            j = m.end()
            run = buf[i:j]
            if "\t" in run:
                for ch in run:
                    col = col + TAB_STOP - col % TAB_STOP if ch == "\t" else col + 1
            else:
                col += j - i
            i = j
        if i >= len(buf):
            return None
        ch = buf[i]
        return i, col, ch == "\n" or ch == "\r"

    def advance(self, buf: str, count: int, columns: bool) -> None:
        """Move the registers `count` characters (or columns: a tab may be used in part)."""
        off, col, ptab = self.ls_off, self.ls_col, self.ls_ptab
        n = len(buf)
        while count > 0 and off < n:
            ch = buf[off]
            if ch == "\t":
                to_tab = TAB_STOP - col % TAB_STOP
                if columns:
                    ptab = to_tab > count
                    step = count if to_tab > count else to_tab
                    col += step
                    if not ptab:
                        off += 1
                    count -= step
                else:
                    ptab = False
                    col += to_tab
                    off += 1
                    count -= 1
            elif ch == "\n" or ch == "\r":
                break
            else:
                ptab = False
                off += 1
                col += 1
                count -= 1
        self.ls_off, self.ls_col, self.ls_ptab = off, col, ptab

    def end_line(self, text: str, j: int) -> int:
        """The line ends at text[j] (a line ending character): start the next line;
        returns where it starts."""
        if text[j] == "\r":
            if j + 1 < len(text):
                if text[j + 1] == "\n":
                    j += 1
            else:
                self.after_cr = True
        if MODE_LINE_START not in TRANSITIONS[self.mode]:
            check_move(self.mode, MODE_LINE_START, "a line ending")
        self.mode = MODE_LINE_START
        if self.ls_dirty:
            self.reset_line()
        return j + 1

    # ---- steps the tracker takes (MarkdownTracker implements them) ----------------

    def inline_feed(self, text: str, i: int, n: int) -> int:
        """Read text[i:n] as paragraph or heading content; returns where it stopped."""
        raise NotImplementedError

    def inline_atom(self, raw: str) -> None:
        """A tool block inside paragraph text: an atom for the inline phase."""
        raise NotImplementedError

    def replay(self, buf: str, at: int, marks: list[Mark]) -> None:
        """Feed buf[at:] through the current mode, with tickets and atoms in place."""
        raise NotImplementedError

    def resolve_marks(self, marks: list[Mark], in_code: bool) -> None:
        """Resolve the held tickets: `in_code` says whether they were in code."""
        raise NotImplementedError
