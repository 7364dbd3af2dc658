"""What the parser gives back: events, calls and the result of a whole parse.

Every event carries its exact source text (`Text.text`, `ToolCallBlock.raw`), so the
lossless guarantee (SPEC G1) is one property: joining them gives the input back.

The SPEC (section 2) constructs events positionally (`Text(text)`,
`ToolCallBlock(calls, raw, start, end)`, `ToolCall(name, arguments)`), so these
dataclasses are frozen and slotted but not keyword-only; fields added later all have
defaults.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Final, Literal

from toolparse._errors import RejectedCallError

if TYPE_CHECKING:
    from toolparse._calls.repair import RepairOutcome
    from toolparse._dialect import Dialect

__all__ = ["DIVERGED", "ArgumentsDelta", "BlockFailure", "CallStarted", "CallStatus", "CallsAborted",
           "Event", "IncrementalEvent", "ParseResult", "Reasoning", "StreamEvent", "Text",
           "ToolCall", "ToolCallBlock", "new_call_id", "register_views"]

CallStatus = Literal["unchecked", "valid", "repaired", "rejected"]

ACCEPTED_STATUSES = frozenset({"unchecked", "valid", "repaired"})


_VIEWS: dict[str, Callable[[Any], str]] = {}
"""How events show themselves at a prompt and in a notebook (`__repr__`,
`_repr_html_`), by name. `toolparse._display` registers its views when the package is
imported (`register_views`): it sits above this module and imports it, so this module,
the bottom of the house, never imports it back."""


def register_views(**views: Callable[[Any], str]) -> None:
    """Register the display's views (`call_repr=...`, `block_html=...`)."""
    _VIEWS.update(views)


def _view(name: str, event: object) -> str:
    view = _VIEWS.get(name)
    return view(event) if view is not None else f"<{type(event).__name__}>"
"""The statuses of calls a gateway may execute."""


def new_call_id() -> str:
    """A fresh call id: `call_` and 24 random hex digits, as OpenAI-style ids look.

    The digits come from `os.urandom` (as `secrets` draws them), 64 ids at a time: one
    system call was a few percent of a call's whole cost. `list.pop` is atomic, so
    threads never share an id; a forked child drops the ids its parent drew ahead, so
    two processes never do."""
    try:
        return _DRAWN.pop()
    except IndexError:
        digits = os.urandom(12 * _DRAW).hex()
        _DRAWN.extend("call_" + digits[n:n + 24] for n in range(0, len(digits), 24))
        return _DRAWN.pop()


_DRAW = 64
_DRAWN: list[str] = []
"""Ids drawn ahead, not yet given out."""
if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_DRAWN.clear)


@dataclass(frozen=True, slots=True)
class BlockFailure:
    """Why and where a tool-call block failed (SPEC 3.2): a stable code and offsets;
    `message` says it in words."""

    reason: str
    """A stable code: `unexpected_token` (the grammar cannot accept what comes there),
    `truncated` (the stream ended inside the block), `max_capture` (the block outgrew
    the capture limit), `invalid_name` (an invoke or parameter without a name),
    `repeated_attribute`; and, only in a `CallsAborted` of incremental events,
    `diverged` (`DIVERGED`: a call's pieces do not add up to its final arguments; its
    block did not fail, and `start`/`end` are then the call's, SPEC 7)."""

    start: int
    """Stream offset of the failed block's first character."""

    end: int
    """Stream offset just past the failed text. For a failed span longer than
    `max_capture` this is where the bound cut it; the rest of the span, released as it
    arrives, carries the same failure."""

    at: int
    """Stream offset of the token that failed the block (for `truncated`, the end of
    the stream; for `max_capture`, where the capture limit fell)."""

    expected: tuple[str, ...] = ()
    """What the grammar would have accepted there: terminal names, sorted."""

    context: Any = field(default=None, compare=False, repr=False)
    """What `message` is made from, set by the parser (the failed text and the grammar
    that read it); not part of the failure's identity (G2 compares the rest)."""

    @property
    def message(self) -> str:
        """The reason in words, in the model's own terms, every tag spelled by the
        grammar (docs/semantics.md, "Reasons in words"): what the model wrote wrong,
        and where, in lines counted from the block's first line (``</parameter>`
        missing before `</invoke>` at line 3`)."""
        return _view("failure_message", self)


@dataclass(frozen=True, slots=True)
class Text:
    """A run of the input that is not part of a recognised tool-call block."""

    text: str
    """The characters, exactly as they arrived."""

    failure: BlockFailure | None = None
    """For the text of a block that failed: why and where (SPEC G4). A Text with a
    failure never merges with plain text."""

    raw: str = field(default=None, repr=False)  # type: ignore[assignment]
    """The input this event stands for (SPEC G1): its `text`, unless the dialect
    declares framing markup (section 11: harmony's message headers), which is in `raw`
    and never in `text`. Given as None (the default), it is `text`."""

    def __post_init__(self) -> None:
        if self.raw is None:
            object.__setattr__(self, "raw", self.text)

    def _repr_html_(self) -> str:
        return _view("text_html", self)


@dataclass(frozen=True, slots=True)
class Reasoning:
    """A piece of a reasoning region (SPEC 11): the model's thinking, passed on apart
    from the answer. Markup inside it is never a call (SPEC G3b). Adjacent pieces
    merge as `Text` pieces do (SPEC G2)."""

    text: str
    """The thinking, markers removed."""

    raw: str
    """The piece as it arrived, markers included (SPEC G1)."""

    def _repr_html_(self) -> str:
        return _view("reasoning_html", self)


@dataclass(frozen=True, slots=True)
class ToolCall:
    """One `invoke` of a recognised block."""

    name: str
    """The tool name, from the invoke's `name` attribute (entity-decoded, trimmed)."""

    arguments: dict[str, Any]
    """The arguments: typed as SPEC section 3 says, or by the tool's schema (section 6)."""

    status: CallStatus = "unchecked"
    """`unchecked` when no tools were given; else `valid`, `repaired` or `rejected`."""

    repair: RepairOutcome | None = None
    """The outcome of schema validation and repair, when tools were given."""

    raw: str = ""
    """The invoke's exact source text."""

    start: int = 0
    """Offset of the invoke's first character in the stream."""

    end: int = 0
    """Offset just past the invoke's last character."""

    json_errors: tuple[str, ...] = ()
    """Parameters marked `string="false"` whose text is not JSON (kept as strings)."""

    id: str = field(default_factory=new_call_id, compare=False)
    """The call's id for conversation histories: `call_` and 24 random hex digits, or
    what the parser's `id_factory` returned. Not part of equality, so the same input
    gives equal events however it is chunked (SPEC G2)."""

    arguments_text: str | None = None
    """For a call written as a JSON body that is one valid object (no tools given): the
    body as written, which `arguments_json` forwards unchanged, like OpenAI's
    `function.arguments` (SPEC 3.1). None otherwise."""

    @property
    def accepted(self) -> bool:
        """True for a call a gateway may execute: `unchecked`, `valid` or `repaired`."""
        return self.status in ACCEPTED_STATUSES

    @property
    def reason(self) -> str | None:
        """Why the call was rejected (a stable code), or None."""
        return self.repair.reason if self.repair is not None else None

    @property
    def hint(self) -> str | None:
        """For a rejected call: one sentence to send back to the model."""
        return self.repair.hint if self.repair is not None else None

    @property
    def message(self) -> str | None:
        """For a rejected call: why, in words, for a person reading a log (its tool,
        what its arguments did wrong, by JSON pointer, never a value: docs/semantics.md,
        "Reasons in words"); None for a call that was not rejected."""
        return _view("rejection_message", self) if self.status == "rejected" else None

    @property
    def arguments_json(self) -> str:
        """The JSON text to forward (standard JSON, SPEC G11): the repair outcome's
        text, else a valid JSON body as written, else a serialisation of `arguments`."""
        if self.repair is not None and self.repair.text is not None and self.accepted:
            return self.repair.text
        if self.arguments_text is not None and self.accepted:
            return self.arguments_text
        return json.dumps(self.arguments, ensure_ascii=False, separators=(",", ":"),
                          allow_nan=False)

    def to_openai(self) -> dict[str, Any]:
        """This call in the OpenAI chat-completions `tool_calls` shape, to execute.

        Raises RejectedCallError for a rejected call: it must never run. Use
        `ParseResult.accepted_calls` (or check `status`) to get only the others.
        """
        if not self.accepted:
            raise RejectedCallError(
                f"call {self.id} to {self.name!r} was rejected ({self.reason}); a rejected "
                "call must not be executed: send its hint back to the model instead")
        return {
            "id": self.id,
            "type": "function",
            "function": {"name": self.name, "arguments": self.arguments_json},
        }

    def __repr__(self) -> str:
        return _view("call_repr", self)

    def _repr_html_(self) -> str:
        return _view("call_html", self)


@dataclass(frozen=True, slots=True)
class ToolCallBlock:
    """A recognised tool-call block: a wrapper (or invokes then a wrapper close)."""

    calls: tuple[ToolCall, ...]
    """The block's calls, in order."""

    raw: str
    """The block's exact source text."""

    start: int
    """Offset of the block's first character in the stream."""

    end: int
    """Offset just past the block's last character."""

    @property
    def accepted(self) -> bool:
        """True when no call of the block is rejected (SPEC 8's `on_rejected` policies
        decide what a gateway does with a block that has one)."""
        return all(call.accepted for call in self.calls)

    def __repr__(self) -> str:
        return _view("block_repr", self)

    def _repr_html_(self) -> str:
        return _view("block_html", self)


Event = Text | ToolCallBlock | Reasoning


# ---- incremental events (SPEC 7; opt-in with StreamParser(incremental=True)) -------------
#
# Provisional news about calls still arriving, for clients that show progress or speak
# OpenAI's streaming tool-call deltas. They carry no input text: joining Text and
# ToolCallBlock events alone still gives the input back (G1).

@dataclass(frozen=True, slots=True)
class CallStarted:
    """An invoke's opening tag is complete, with its name, in a block outside code."""

    index: int
    """The call's number in the stream, from 0 (the same in its ArgumentsDelta events)."""
    id: str
    """The id the call will have in its ToolCallBlock."""
    name: str
    """The tool name."""
    block_start: int
    """Stream offset of the first character of the call's block."""


@dataclass(frozen=True, slots=True)
class ArgumentsDelta:
    """A piece of a started call's arguments JSON. The pieces of one call concatenate
    to exactly its final `arguments_json`."""

    index: int
    """The call it belongs to (`CallStarted.index`)."""
    text: str
    """The next piece of the arguments JSON text."""


DIVERGED: Final = "diverged"
"""The reason of a `CallsAborted` that withdraws one call whose block goes on (SPEC 7)."""


@dataclass(frozen=True, slots=True)
class CallsAborted:
    """These started calls are void. Either their block failed: none of them runs, and
    the failed block's text follows, as a Text with the same failure. Or, with reason
    `diverged` (one call): what its ArgumentsDelta pieces said is not its final
    arguments (a name written twice, a JSON body that is not one object); its block
    goes on and its ToolCallBlock, which still holds the call, is the truth."""

    indexes: tuple[int, ...]
    """The calls of the block that had started, in order (not those already
    withdrawn); for `diverged`, the one call withdrawn."""
    failure: BlockFailure
    """Why and where: the failed block, or the withdrawn call (`diverged`)."""


IncrementalEvent = CallStarted | ArgumentsDelta | CallsAborted
StreamEvent = Event | IncrementalEvent


@dataclass(frozen=True, slots=True)
class ParseResult:
    """Everything one parse found, in document order."""

    events: tuple[Event, ...]
    """Text and block events; adjacent text is merged into one event."""

    saw_tool_syntax: bool = False
    """A wrapper or invoke tag was seen outside Markdown code, whether or not it parsed."""

    dialect: Dialect | None = field(default=None, compare=False)
    """The dialect the text was parsed with (None when the result was built by hand)."""

    calls: tuple[ToolCall, ...] = field(init=False)
    """Every call of every block, in document order."""

    text: str = field(init=False)
    """The content: the input without the recognised blocks, the reasoning regions and
    any framing markup (SPEC 11)."""

    reasoning: str = field(init=False)
    """The text of every reasoning region, markers removed (SPEC 11); "" for none."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "calls", tuple(
            call for event in self.events if isinstance(event, ToolCallBlock)
            for call in event.calls))
        object.__setattr__(self, "text", "".join(
            event.text for event in self.events if isinstance(event, Text)))
        object.__setattr__(self, "reasoning", "".join(
            event.text for event in self.events if isinstance(event, Reasoning)))

    @property
    def accepted_calls(self) -> tuple[ToolCall, ...]:
        """The calls a gateway may execute (`unchecked`, `valid` or `repaired`), in
        document order."""
        return tuple(call for call in self.calls if call.accepted)

    @property
    def failures(self) -> tuple[BlockFailure, ...]:
        """Why and where each failed block failed, in document order."""
        return tuple(dict.fromkeys(event.failure for event in self.events
                                   if isinstance(event, Text) and event.failure is not None))

    @property
    def truncated(self) -> bool:
        """True when the stream ended inside an open block (reason `truncated`)."""
        return any(failure.reason == "truncated" for failure in self.failures)

    @property
    def rejected_tool_names(self) -> tuple[str, ...]:
        """Names of called tools that were not among the given tools, first-seen order."""
        names = (call.name for call in self.calls
                 if call.status == "rejected" and call.reason == "unknown_tool")
        return tuple(dict.fromkeys(names))

    @property
    def rejected_by_policy(self) -> bool:
        """True when any call named a tool that was not given."""
        return bool(self.rejected_tool_names)

    def __repr__(self) -> str:
        return _view("result_repr", self)

    def _repr_html_(self) -> str:
        return _view("result_html", self)
