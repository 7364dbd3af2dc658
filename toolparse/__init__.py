"""toolparse: find tool calls in streaming LLM output.

Grammar-driven (the accepted markup lives in `grammars/*.lark`), lossless (joining the
events gives the input back), and Markdown-aware (markup inside code is never a call).
See SPEC.md for the guarantees and docs/ for the design.
"""

from toolparse._errors import (
    ChunkTypeError,
    ConfigError,
    GrammarError,
    SchemaError,
    StreamClosedError,
    ToolparseError,
    UnknownDialectError,
)
from toolparse._events import Event, ParseResult, Text, ToolCall, ToolCallBlock
from toolparse._repair import RepairConfig, RepairOutcome, repair_tool_call

__all__ = [
    "ChunkTypeError",
    "ConfigError",
    "Event",
    "GrammarError",
    "ParseResult",
    "RepairConfig",
    "RepairOutcome",
    "SchemaError",
    "StreamClosedError",
    "Text",
    "ToolCall",
    "ToolCallBlock",
    "ToolparseError",
    "UnknownDialectError",
    "repair_tool_call",
]

__version__ = "0.1.0"
