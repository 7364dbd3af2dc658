"""Why a recorded call is not a call toolparse found: the markup it may have come from.

Two places hold markup that a naive gateway might have run:

- Markdown code (`code_calls`). `toolparse._explain.code_mentions` names every
  block-start tag in code, with its kind and line. The calls such a tag would start,
  were it outside code, come from parsing the text from that tag on, by itself: a
  fenced `<tool_calls>` example gives its calls with their arguments. A tag whose text
  does not parse that way (an inline `<invoke ...>` alone, an example in a block quote
  whose lines carry `>`) still names its tool, read from the tag's attributes by the
  dialect's own ATTRIBUTE terminal.
- Failed blocks (`failed_tags`): the call tags inside each failed span, with the
  tool each names.

Cost (SPEC G6 for the scan): each code tag's parse reads at most `EXAMPLE_LIMIT`
characters, tags inside an example already parsed are skipped, and at most
`MAX_EXAMPLES` tags are parsed per text (past that, tags are named only). Both run only
for records with a recorded call that matched nothing.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

from toolparse._dialect import Dialect
from toolparse._events import BlockFailure, Event, Reasoning, ToolCallBlock
from toolparse._explain import code_mentions
from toolparse._stream import StreamParser

__all__ = ["CodeCall", "FailedTag", "code_calls", "failed_tags", "reasoning_calls", "tag_name"]

EXAMPLE_LIMIT: Final = 64 * 1024
"""Characters read from a code tag on when parsing it as an example."""

MAX_EXAMPLES: Final = 256
"""Code tags parsed as examples per text; the rest are named from their tag only."""

_CHUNK: Final = 4096


@dataclass(frozen=True, slots=True)
class CodeCall:
    """A call whose markup sits in Markdown code."""

    name: str
    arguments: Any
    """Its arguments typed as SPEC 3 says, or `None` when only the tag was read."""
    kind: str
    """`fenced`, `indented` or `span`."""
    start: int
    """Offset of the call's tag in the text."""


@dataclass(frozen=True, slots=True)
class FailedTag:
    """A call tag inside a failed block."""

    name: str
    start: int
    failure: BlockFailure


def code_calls(text: str, events: list[Event], dialect: Dialect) -> list[CodeCall]:
    """Every call markup in code in `text` (whose parse gave `events`), in order."""
    mentions = code_mentions(events, dialect)
    by_start = {mention.start: mention for mention in mentions}
    found: list[CodeCall] = []
    covered = -1       # end of the last example parsed: tags before it are its own
    parsed = 0
    for mention in mentions:
        if mention.start < covered:
            continue
        block = _example_at(text, mention.start, dialect) if parsed < MAX_EXAMPLES else None
        parsed += 1
        if block is not None:
            for call in block.calls:
                at = mention.start + call.start
                kind = by_start[at].kind if at in by_start else mention.kind
                found.append(CodeCall(call.name, call.arguments, kind, at))
            covered = mention.start + block.end
            continue
        name = tag_name(text[mention.start:mention.end], dialect)
        if name is not None:
            found.append(CodeCall(name, None, mention.kind, mention.start))
    return found


def _example_at(text: str, start: int, dialect: Dialect) -> ToolCallBlock | None:
    """The block that `text[start:]` opens when read as text outside code, or None. Fed
    in pieces, and left as soon as the first event is out (a block, or text: the tag
    opened nothing), so a tag that opens nothing costs little."""
    parser = StreamParser(dialect, max_capture=EXAMPLE_LIMIT, id_factory=_no_id)
    end = min(len(text), start + EXAMPLE_LIMIT)
    events: list[Event] = []
    for at in range(start, end, _CHUNK):
        events = parser.feed(text[at:min(at + _CHUNK, end)])
        if events:
            break
    else:
        events = parser.close()
    first = events[0] if events else None
    return first if isinstance(first, ToolCallBlock) and first.start == 0 else None


def _no_id() -> str:
    return ""


def failed_tags(text: str, failures: tuple[BlockFailure, ...] | list[BlockFailure],
                dialect: Dialect) -> list[FailedTag]:
    """The call tags inside each failed block, with the tool each names, in order."""
    found: list[FailedTag] = []
    for failure in failures:
        for match in dialect._block_starts(text, failure.start, failure.end):
            name = tag_name(match.group(0), dialect)
            if name is not None:
                found.append(FailedTag(name, match.start(), failure))
    return found


def tag_name(tag: str, dialect: Dialect) -> str | None:
    """The tool a call's opening tag names, or None for a tag that opens no call or
    names nothing. Reads the tag with the dialect's terminals."""
    return dialect._call_tag_name(tag)


def reasoning_calls(events: list[Event], dialect: Dialect) -> list[CodeCall]:
    """The calls quoted inside reasoning regions (SPEC 10, 11): each region's text
    parsed by itself with the dialect and no regions, its calls at their offsets in the
    whole text (`kind` is `reasoning`). A gateway that read the thinking as content
    would have run them."""
    found: list[CodeCall] = []
    offset = 0
    region: list[Reasoning] = []
    for event in [*events, None]:
        if isinstance(event, Reasoning):
            region.append(event)
            offset += len(event.raw)
            continue
        if region:
            raw = "".join(piece.raw for piece in region)
            start = offset - len(raw)
            region = []
            parser = StreamParser(dialect, reasoning=None, id_factory=lambda: "")
            quoted = parser.feed(raw) + parser.close()
            found.extend(CodeCall(call.name, call.arguments, "reasoning", start + call.start)
                         for block in quoted if isinstance(block, ToolCallBlock)
                         for call in block.calls)
        if event is not None:
            offset += len(event.raw)
    return found
