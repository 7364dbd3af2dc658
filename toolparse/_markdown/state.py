"""The tracker's modes and block state, and every move between modes (h11 `_state.py`).

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

__all__ = ["Mode", "Leaf", "TRANSITIONS", "TrackerStateError", "Container", "NeedMore",
           "Outcome", "check_move", "ENTERS",
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
