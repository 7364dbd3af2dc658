"""What the parser gives back: events, calls and the result of a whole parse.

Every event carries its exact source text (`Text.text`, `ToolCallBlock.raw`), so the
lossless guarantee (SPEC G1) is one property: joining them gives the input back.

The SPEC (section 2) constructs events positionally (`Text(text)`,
`ToolCallBlock(calls, raw, start, end)`, `ToolCall(name, arguments)`), so these
dataclasses are frozen and slotted but not keyword-only; fields added later all have
defaults.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from toolparse._calls.repair import RepairOutcome

__all__ = ["Text", "ToolCall", "ToolCallBlock", "Event", "ParseResult", "CallStatus"]

CallStatus = Literal["unchecked", "valid", "repaired", "rejected"]


@dataclass(frozen=True, slots=True)
class Text:
    """A run of the input that is not part of a recognised tool-call block."""

    text: str
    """The characters, exactly as they arrived."""

    def _repr_html_(self) -> str:
        from toolparse._display import text_html
        return text_html(self)


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

    @property
    def reason(self) -> str | None:
        """Why the call was rejected (a stable code), or None."""
        return self.repair.reason if self.repair is not None else None

    @property
    def hint(self) -> str | None:
        """For a rejected call: one sentence to send back to the model."""
        return self.repair.hint if self.repair is not None else None

    @property
    def arguments_json(self) -> str:
        """The JSON text to forward: the repair outcome's text, else a fresh serialisation."""
        if self.repair is not None and self.repair.text is not None:
            return self.repair.text
        return json.dumps(self.arguments, ensure_ascii=False, separators=(",", ":"))

    def to_openai(self) -> dict[str, Any]:
        """This call in the OpenAI chat-completions `tool_calls` shape.

        The id is derived from the call's position, name and arguments, so the same
        input always gives the same id and two calls of one stream never share one.
        """
        arguments = self.arguments_json
        digest = hashlib.sha256(
            f"{self.start}\0{self.name}\0{arguments}".encode("utf-8", "surrogatepass")
        ).hexdigest()
        return {
            "id": f"call_{digest[:24]}",
            "type": "function",
            "function": {"name": self.name, "arguments": arguments},
        }

    def __repr__(self) -> str:
        from toolparse._display import call_repr
        return call_repr(self)

    def _repr_html_(self) -> str:
        from toolparse._display import call_html
        return call_html(self)


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

    def __repr__(self) -> str:
        from toolparse._display import block_repr
        return block_repr(self)

    def _repr_html_(self) -> str:
        from toolparse._display import block_html
        return block_html(self)


Event = Text | ToolCallBlock


@dataclass(frozen=True, slots=True)
class ParseResult:
    """Everything one parse found, in document order."""

    events: tuple[Event, ...]
    """Text and block events; adjacent text is merged into one event."""

    saw_tool_syntax: bool = False
    """A wrapper or invoke tag was seen outside Markdown code, whether or not it parsed."""

    calls: tuple[ToolCall, ...] = field(init=False)
    """Every call of every block, in document order."""

    text: str = field(init=False)
    """The input without the recognised blocks."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "calls", tuple(
            call for event in self.events if isinstance(event, ToolCallBlock)
            for call in event.calls))
        object.__setattr__(self, "text", "".join(
            event.text for event in self.events if isinstance(event, Text)))

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
        from toolparse._display import result_repr
        return result_repr(self)

    def _repr_html_(self) -> str:
        from toolparse._display import result_html
        return result_html(self)
