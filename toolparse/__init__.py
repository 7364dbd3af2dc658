"""toolparse: find the tool calls a language model writes, while its answer streams in.

Models such as DeepSeek write their tool calls as markup inside the answer
(`<tool_calls><invoke name="f"><parameter name="a">v</parameter></invoke></tool_calls>`),
and also talk about that markup in Markdown code. toolparse returns the answer as
events: `Text` for everything that is not a call (a failed block included, with its
`failure`) and `ToolCallBlock` for each recognised block and its `ToolCall`s.

    import toolparse

    result = toolparse.parse(answer)                # a whole text
    for call in result.accepted_calls:
        print(call.name, call.arguments)

    parser = toolparse.StreamParser()               # a stream, chunk by chunk
    events = parser.feed(chunk) + parser.close()

It is lossless (joining the events gives the input back), gives the same events however
the text is chunked, never takes markup inside Markdown code for a call, and releases a
block that does not parse as its exact text. The accepted markup lives in grammar files
(`Dialect.from_file` loads an edited one). With `tools=`, calls are typed, validated
and repaired by their JSON Schemas (`repair_tool_call` does one call on its own).

"SPEC N" in this package's docstrings, comments and documents means section N of the
specification: `docs/spec.md` in the repository and the source distribution, and
`toolparse/spec.md` inside an installed wheel. "SPEC G4" is its guarantee G4. The README
lists the rest of the documentation.
"""

from typing import TYPE_CHECKING

from toolparse._build import BuildInfo, build_info
from toolparse._errors import (
    ChunkFormatError,
    ChunkTypeError,
    ConfigError,
    ConfigTypeError,
    ExportError,
    GrammarError,
    ParserCopyError,
    RejectedCallError,
    SchemaError,
    StreamClosedError,
    ToolparseError,
    UnknownDialectError,
)
from toolparse._calls import RepairOption, SupportsModelDump, ToolDefinition, ToolDefinitions
from toolparse._dialect import Dialect, dialects
from toolparse._events import (
    ArgumentsDelta,
    BlockFailure,
    CallsAborted,
    CallStarted,
    CallStatus,
    Event,
    ParseResult,
    Reasoning,
    Text,
    ToolCall,
    ToolCallBlock,
)
from toolparse._reasoning import ReasoningFormat, reasoning_formats
from toolparse._stream import DEFAULT_MAX_CAPTURE, StreamParser, parse

# The events' reprs and notebook views: `_display` registers them with `_events` (which,
# at the bottom of the house, imports nothing above it).
from toolparse import _display as _display  # noqa: E402,F401
# Failures and rejections in words (`BlockFailure.message`, `ToolCall.message`).
from toolparse import _reasons as _reasons  # noqa: E402,F401

__all__ = [
    "ArgumentsDelta",
    "BlockFailure",
    "BuildInfo",
    "CallStarted",
    "CallStatus",
    "CallsAborted",
    "DEFAULT_MAX_CAPTURE",
    "Dialect",
    "ChunkFormatError",
    "ChunkTypeError",
    "ConfigError",
    "ConfigTypeError",
    "Event",
    "ExportError",
    "GrammarError",
    "ParseResult",
    "ParserCopyError",
    "Reasoning",
    "ReasoningFormat",
    "RepairConfig",
    "RejectedCallError",
    "RepairOption",
    "RepairOutcome",
    "SchemaError",
    "StreamClosedError",
    "StreamParser",
    "SupportsModelDump",
    "Text",
    "ToolCall",
    "ToolCallBlock",
    "ToolDefinition",
    "ToolDefinitions",
    "ToolparseError",
    "UnknownDialectError",
    "build_info",
    "dialects",
    "export_grammar",
    "openai",
    "parse",
    "reasoning_formats",
    "repair_tool_call",
]

__version__ = "0.1.0"


# The repair module (and jsonschema behind it) and the OpenAI adapter load on first use,
# so that importing toolparse to parse text without tools stays fast (PEP 562).
_LAZY = {"RepairConfig", "RepairOutcome", "repair_tool_call"}
# export_grammar reads tool schemas with the repair module's checks: loaded on first use.


def __getattr__(name: str) -> object:
    if name in _LAZY:
        from toolparse._calls import repair

        value = getattr(repair, name)
        globals()[name] = value
        return value
    if name == "export_grammar":
        from toolparse._export import export_grammar

        globals()[name] = export_grammar
        return export_grammar
    if name == "openai":
        import importlib

        module = importlib.import_module("toolparse.openai")
        globals()[name] = module
        return module
    raise AttributeError(f"module 'toolparse' has no attribute {name!r}")


if TYPE_CHECKING:
    from toolparse import openai
    from toolparse._export import export_grammar
    from toolparse._calls.repair import RepairConfig, RepairOutcome, repair_tool_call
