"""The stream engine's modes and the moves between them: every change of mode is here.

    START     the stream's first characters, while a reasoning region may open there
              (see `reasoning`)
    REASONING inside a reasoning region: its text is the model's thinking, never a call
              (see `reasoning`)
    CONTENT   inside a message whose text is content (harmony's final channel): no
              block opens in it (see `reasoning`)
    SCAN      outside any block; the text is Markdown (see `scan`)
    CHOOSING  `dialect="auto"`: a block-start tag that several grammars open; each reads
              on until one is chosen (see `contest`)
    CAPTURE   inside an open block; its tokens go to the LALR parser (see `capture`)
    SKIP      a block failed after a call started; its span runs on (see `skip`)
    UNDECIDED the same, but its tag may sit in code: the text after it waits until the
              Markdown tracker decides (see `undecided`)
    CLOSED    `close()` was called; nothing more may come in

A move that the table does not list is a bug in the engine, not bad input: it raises
`IllegalMove`, naming the mode and the move, instead of going on in a state nobody
designed.
"""

from __future__ import annotations

import enum
from typing import Final

from toolparse._errors import IllegalMove

__all__ = ["IllegalMove", "Mode", "Move", "TRANSITIONS", "next_mode"]


class Mode(enum.Enum):
    START = "start"
    REASONING = "reasoning"
    CONTENT = "content"
    SCAN = "scan"
    CHOOSING = "choosing"
    CAPTURE = "capture"
    SKIP = "skip"
    UNDECIDED = "undecided"
    CLOSED = "closed"


class Move(enum.Enum):
    REGION_OPENS = "a reasoning region opens at the start of the stream"
    NO_REGION = "the stream starts with no reasoning region"
    REGION_ENDS = "the reasoning region ended"
    REASONING_MESSAGE = "a header outside code opened a message whose text is reasoning"
    CONTENT_MESSAGE = "a header outside code opened a message whose text is content"
    FRAMED = "markup outside code that frames messages went out"
    MESSAGE_ENDS = "the message whose text is content ended"
    OPEN = "a block-start tag outside code opens a capture"
    CONTEST = "a block-start tag outside code opens a capture in several grammars"
    CHOSEN = "one grammar's capture is chosen"
    COMPLETE = "the captured block parsed"
    FAIL = "the captured block failed before any call started (a prose mention)"
    BREAK = "the captured block failed after a call started (broken calls)"
    SPAN_END = "the failed span ended"
    WAIT = "the captured block failed after a call started, its tag perhaps in code"
    IN_CODE = "the waiting block's tag was in code"
    NOT_CODE = "the waiting block's tag was outside code"
    CLOSE = "close() ends the stream"


TRANSITIONS: Final[dict[tuple[Mode, Move], Mode]] = {
    (Mode.START, Move.REGION_OPENS): Mode.REASONING,
    (Mode.START, Move.NO_REGION): Mode.SCAN,
    (Mode.REASONING, Move.REGION_ENDS): Mode.SCAN,
    # A message header is a block start of the dialect (harmony): read as one token.
    (Mode.CAPTURE, Move.REASONING_MESSAGE): Mode.REASONING,
    (Mode.CAPTURE, Move.CONTENT_MESSAGE): Mode.CONTENT,
    (Mode.CAPTURE, Move.FRAMED): Mode.SCAN,
    (Mode.CONTENT, Move.MESSAGE_ENDS): Mode.SCAN,
    (Mode.SCAN, Move.OPEN): Mode.CAPTURE,
    (Mode.SCAN, Move.CONTEST): Mode.CHOOSING,
    (Mode.CHOOSING, Move.CHOSEN): Mode.CAPTURE,
    (Mode.CAPTURE, Move.COMPLETE): Mode.SCAN,
    (Mode.CAPTURE, Move.FAIL): Mode.SCAN,
    (Mode.CAPTURE, Move.BREAK): Mode.SKIP,
    (Mode.SKIP, Move.SPAN_END): Mode.SCAN,
    (Mode.CAPTURE, Move.WAIT): Mode.UNDECIDED,
    (Mode.UNDECIDED, Move.IN_CODE): Mode.SCAN,
    (Mode.UNDECIDED, Move.NOT_CODE): Mode.SKIP,
    # close() first ends an open block or span, so it always leaves from SCAN.
    (Mode.SCAN, Move.CLOSE): Mode.CLOSED,
}
"""(mode, move) -> the mode after it."""


def next_mode(mode: Mode, move: Move) -> Mode:
    """The mode after `move` from `mode`; raises IllegalMove for a move not in the table."""
    try:
        return TRANSITIONS[mode, move]
    except KeyError:
        raise IllegalMove(f"stream engine: no move from mode {mode.value!r} when "
                          f"{move.value}") from None
