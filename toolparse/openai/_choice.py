"""One choice of a completion: parser events in, OpenAI delta pieces out (SPEC 8).

A choice's output is a list of *pieces* in stream order: a `str` is content, a list
is `tool_calls` entries. Adjacent pieces of one kind merge, so a piece becomes one
delta and the order of text and calls is kept.

Text is never lost: a piece of content is a `Text` event's text or the raw text of a
block none of whose calls goes out; a block some of whose calls go out is the calls'
entries; a reasoning region (SPEC 11) is a `Thought`, sent in the reasoning field. So
content out plus the raw of every forwarded block and every region is the content in.

What has gone out cannot be taken back. In whole-call mode (the default) a call goes
out only once its block has parsed and passed the `on_rejected` policy. With
`stream_arguments=True` a call's first entry goes out at `CallStarted`; a call cut
after that (its block aborted, or rejected by the policy) gets no more entries, its
block goes out as content, and the choice is *tainted*: it finishes `stop`, never
`tool_calls`. A call *withdrawn* (its `CallsAborted` says `diverged`: its pieces will
not add up to its final arguments, SPEC 7) is cut the same way: its block is still
confirmed later, and then goes out as content, none of its calls with it. The last non-blank character of every streamed call's arguments (the
closing `}` of the object) is held until the block is confirmed, so a call that is
then cut never reaches the client as complete JSON.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeAlias

from toolparse._events import (
    DIVERGED,
    ArgumentsDelta,
    CallsAborted,
    CallStarted,
    Reasoning,
    StreamEvent,
    Text,
    ToolCall,
    ToolCallBlock,
)
from toolparse.openai._parsers import ParserLike, Settings

__all__ = ["ChoiceRewriter", "Entry", "Piece", "Pieces", "Thought"]

Entry: TypeAlias = dict[str, Any]
"""One `delta.tool_calls` entry: `{"index", "id", "type", "function": {...}}`."""

class Thought:
    """A piece of the model's reasoning (SPEC 11): it goes out in the delta's reasoning
    field (`reasoning_content`), never as content."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Thought) and other.text == self.text

    def __repr__(self) -> str:
        return f"Thought({self.text!r})"


Piece: TypeAlias = "str | list[Entry] | Thought"


class Pieces:
    """The pieces of one choice's output so far, adjacent ones of one kind merged."""

    __slots__ = ("items",)

    def __init__(self) -> None:
        self.items: list[Piece] = []

    def thought(self, text: str) -> None:
        if not text:
            return
        items = self.items
        if items and isinstance(items[-1], Thought):
            items[-1] = Thought(items[-1].text + text)
        else:
            items.append(Thought(text))

    def text(self, text: str) -> None:
        if not text:
            return
        items = self.items
        if items and type(items[-1]) is str:
            items[-1] += text
        else:
            items.append(text)

    def entry(self, entry: Entry) -> None:
        items = self.items
        last = items[-1] if items else None
        if not isinstance(last, list):
            items.append([entry])
        elif "id" not in entry and last[-1]["index"] == entry["index"] and "id" not in last[-1]:
            # Two argument pieces of one call in a row: one entry.
            last[-1]["function"]["arguments"] += entry["function"]["arguments"]
        else:
            last.append(entry)


def whole_entry(index: int, call: ToolCall) -> Entry:
    return {"index": index, "id": call.id, "type": "function",
            "function": {"name": call.name, "arguments": call.arguments_json}}


def _arguments_entry(index: int, text: str) -> Entry:
    return {"index": index, "function": {"arguments": text}}


@dataclass(slots=True)
class _Streamed:
    """A call whose first entry has gone out (stream_arguments=True)."""

    id: str
    out_index: int
    """Its `index` in the choice's `tool_calls`."""
    received: list[str] = field(default_factory=list)
    """Every ArgumentsDelta text, in order."""
    held: list[str] = field(default_factory=list)
    """The received text not sent yet: its last non-blank character, and blanks after."""

    def release(self, text: str) -> str:
        """Take a delta's text; return what may go out now (all but the held tail)."""
        self.received.append(text)
        body = text.rstrip()
        if not body:                 # blanks only: they wait behind the held character
            self.held.append(text)
            return ""
        piece = "".join(self.held) + body[:-1]
        self.held = [text[len(body) - 1:]]
        return piece

    def completion(self, arguments_json: str) -> str | None:
        """What completes this call to `arguments_json`, or None when what went out
        is not a prefix of it (then the call cannot be completed)."""
        received = "".join(self.received)
        sent = received[:len(received) - len("".join(self.held))]
        if not arguments_json.startswith(sent):
            return None
        return arguments_json[len(sent):]


class ChoiceRewriter:
    """One choice's parser, tool-call index counter and finish state."""

    __slots__ = ("parser", "finished", "_settings", "_next_index", "_called", "_tainted",
                 "_streamed", "_started_ids", "_withdrawn", "_upstream_indexes")

    def __init__(self, parser: ParserLike, settings: Settings) -> None:
        self.parser = parser
        self.finished = False
        """The choice's finish_reason has gone out (its parser is closed)."""
        self._settings = settings
        self._next_index = 0
        """The `index` of the choice's next tool call, counted from 0."""
        self._called = False
        """A call of this choice has gone out whole or confirmed."""
        self._tainted = False
        """A call whose first entry went out was cut: finish `stop`, never `tool_calls`."""
        self._streamed: dict[int, _Streamed] = {}
        """Started calls of the open block, by their stream index (CallStarted.index)."""
        self._started_ids: dict[str, int] = {}
        """The same calls' ids, to find them in the confirming ToolCallBlock."""
        self._withdrawn: set[str] = set()
        """Ids of started calls withdrawn before their block came (`diverged`): that
        block goes out as content."""
        self._upstream_indexes: dict[int, int] = {}
        """Tool calls the upstream sent itself: its index -> ours."""

    # ---- input -------------------------------------------------------------------------

    def feed(self, content: str, out: Pieces) -> None:
        if self.finished:  # content after the choice's finish_reason: passed on as is
            out.text(content)
            return
        self.translate(self.parser.feed(content), out)

    def close(self, out: Pieces) -> None:
        """End the choice's text (at its finish_reason, or the end of the stream)."""
        self.finished = True
        self.translate(self.parser.close(), out)

    def translate(self, events: Sequence[StreamEvent], out: Pieces) -> None:
        for event in events:
            if isinstance(event, Text):
                out.text(event.text)
            elif isinstance(event, Reasoning):
                out.thought(event.text)
            elif isinstance(event, ToolCallBlock):
                self._block(event, out)
            elif isinstance(event, CallStarted):
                self._started(event, out)
            elif isinstance(event, ArgumentsDelta):
                self._arguments(event, out)
            elif isinstance(event, CallsAborted):
                self._aborted(event)
            else:
                raise TypeError(f"a parser gave {type(event).__name__}, which is not a "
                                "toolparse event")

    def upstream_calls(self, entries: Iterable[Any]) -> list[Entry]:
        """Tool-call entries the upstream sent itself, renumbered into this choice's
        sequence so that they never share an index with ours."""
        renumbered: list[Entry] = []
        for entry in entries:
            if isinstance(entry, Mapping) and type(entry.get("index")) is int:
                theirs = entry["index"]
                if theirs not in self._upstream_indexes:
                    self._upstream_indexes[theirs] = self._take_index()
                entry = {**entry, "index": self._upstream_indexes[theirs]}
            renumbered.append(dict(entry) if isinstance(entry, Mapping) else entry)
        return renumbered

    def finish_reason(self, upstream: str | None) -> str:
        """The choice's finish_reason, given the upstream's (None: the stream ended
        without one)."""
        reason = "stop" if upstream is None else upstream
        if self._tainted:
            return "stop" if reason == "tool_calls" else reason
        if reason == "stop" and self._called:
            return "tool_calls"
        return reason

    # ---- events ------------------------------------------------------------------------

    def _take_index(self) -> int:
        index = self._next_index
        self._next_index += 1
        return index

    def _block(self, block: ToolCallBlock, out: Pieces) -> None:
        forwarded = self._forwarded(block)
        streamed = {call.id: self._streamed.pop(self._started_ids.pop(call.id))
                    for call in block.calls if call.id in self._started_ids}
        withdrawn = self._withdrawn
        cut = bool(withdrawn) and any(call.id in withdrawn for call in block.calls)
        if cut:
            withdrawn.difference_update(call.id for call in block.calls)
        if cut or forwarded is None or not _can_complete(block, forwarded, streamed):
            if streamed:
                self._tainted = True
            out.text(block.raw)
            return
        for call in forwarded:
            started = streamed.get(call.id)
            if started is None:
                out.entry(whole_entry(self._take_index(), call))
                continue
            rest = started.completion(call.arguments_json)
            if rest:
                out.entry(_arguments_entry(started.out_index, rest))
        self._called = True

    def _forwarded(self, block: ToolCallBlock) -> list[ToolCall] | None:
        """The block's calls that go out, by the on_rejected policy; None when none
        does (then the block's raw text is content)."""
        policy = self._settings.on_rejected
        if block.accepted or policy == "keep":
            calls = list(block.calls)
        elif policy == "drop":
            calls = [call for call in block.calls if call.accepted]
        else:
            calls = []
        return calls or None

    def _started(self, event: CallStarted, out: Pieces) -> None:
        index = self._take_index()
        self._streamed[event.index] = _Streamed(event.id, index)
        self._started_ids[event.id] = event.index
        out.entry({"index": index, "id": event.id, "type": "function",
                   "function": {"name": event.name, "arguments": ""}})

    def _arguments(self, event: ArgumentsDelta, out: Pieces) -> None:
        started = self._streamed.get(event.index)
        if started is None:  # not a call this choice started: nothing of it went out
            return
        piece = started.release(event.text)
        if piece:
            out.entry(_arguments_entry(started.out_index, piece))

    def _aborted(self, event: CallsAborted) -> None:
        # A failed block's text follows as a Text event, and goes out as content; a
        # withdrawn call's block follows as a ToolCallBlock, which `_block` cuts.
        withdrawn = event.failure.reason == DIVERGED
        if not withdrawn:
            self._withdrawn.clear()   # (its calls were the failed block's: no block comes)
        for index in event.indexes:
            started = self._streamed.pop(index, None)
            if started is not None:
                self._started_ids.pop(started.id, None)
                self._tainted = True
                if withdrawn:
                    self._withdrawn.add(started.id)


def _can_complete(block: ToolCallBlock, forwarded: list[ToolCall],
                  streamed: Mapping[str, _Streamed]) -> bool:
    """True when every started call of the block goes out and what went out of each
    is a prefix of its final arguments."""
    forwarded_ids = {call.id for call in forwarded}
    for call in block.calls:
        started = streamed.get(call.id)
        if started is None:
            continue
        if call.id not in forwarded_ids or started.completion(call.arguments_json) is None:
            return False
    return True
