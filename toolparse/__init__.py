"""toolparse: find tool calls in streaming LLM output.

Grammar-driven (the accepted markup lives in `grammars/*.lark`), lossless (joining the
events gives the input back), and Markdown-aware (markup inside code is never a call).
See SPEC.md for the guarantees and docs/ for the design.
"""

from typing import TYPE_CHECKING

from toolparse._errors import (
    ChunkTypeError,
    ConfigError,
    ConfigTypeError,
    GrammarError,
    ParserCopyError,
    RejectedCallError,
    SchemaError,
    StreamClosedError,
    ToolparseError,
    UnknownDialectError,
)
from toolparse._dialect import Dialect
from toolparse._events import (
    ArgumentsDelta,
    BlockFailure,
    CallsAborted,
    CallStarted,
    Event,
    ParseResult,
    Text,
    ToolCall,
    ToolCallBlock,
)
from toolparse._stream import DEFAULT_MAX_CAPTURE, StreamParser, parse

__all__ = [
    "ArgumentsDelta",
    "BlockFailure",
    "CallStarted",
    "CallsAborted",
    "DEFAULT_MAX_CAPTURE",
    "Dialect",
    "ChunkTypeError",
    "ConfigError",
    "ConfigTypeError",
    "Event",
    "GrammarError",
    "ParseResult",
    "ParserCopyError",
    "RepairConfig",
    "RejectedCallError",
    "RepairOutcome",
    "SchemaError",
    "StreamClosedError",
    "StreamParser",
    "Text",
    "ToolCall",
    "ToolCallBlock",
    "ToolparseError",
    "UnknownDialectError",
    "parse",
    "repair_tool_call",
]

__version__ = "0.1.0"


# The repair module (and jsonschema behind it) loads on first use, so that importing
# toolparse to parse text without tools stays fast (PEP 562).
_LAZY = {"RepairConfig", "RepairOutcome", "repair_tool_call"}


def __getattr__(name: str) -> object:
    if name in _LAZY:
        from toolparse._calls import repair

        value = getattr(repair, name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'toolparse' has no attribute {name!r}")


if TYPE_CHECKING:
    from toolparse._calls.repair import RepairConfig, RepairOutcome, repair_tool_call
