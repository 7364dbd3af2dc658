"""The exceptions toolparse raises.

Content never raises (SPEC G8): any string, in any chunking, gives events. Only misuse of
the API does, with a subclass of `ToolparseError` whose message names what is wrong and
where. Usage errors also subclass the built-in exception a Python user would expect
(`TypeError` for a wrong type, `ValueError` for a wrong value), so `except ValueError`
keeps working.
"""

from __future__ import annotations

__all__ = [
    "ToolparseError",
    "ChunkTypeError",
    "StreamClosedError",
    "UnknownDialectError",
    "DialectTypeError",
    "GrammarError",
    "SchemaError",
    "ExportError",
    "ConfigError",
    "ConfigTypeError",
    "RejectedCallError",
    "ParserCopyError",
    "ChunkFormatError",
    "TrackerStateError",
    "IllegalMove",
]


class ToolparseError(Exception):
    """Root of every exception toolparse raises."""


class ChunkTypeError(ToolparseError, TypeError):
    """`feed()` was given something other than a `str`."""


class StreamClosedError(ToolparseError, ValueError):
    """`feed()` or `close()` was called on a parser that is already closed."""


class UnknownDialectError(ToolparseError, ValueError):
    """A dialect name that is not bundled, or a `dialect=` of the wrong type."""


class DialectTypeError(UnknownDialectError, TypeError):
    """A `dialect=` (or a dialect name) that is neither a str nor a `Dialect`: `None`,
    `3`. An `UnknownDialectError` too, so existing handlers keep catching it."""


class GrammarError(ToolparseError, ValueError):
    """A grammar file could not be loaded, or does not have the shape the engine needs.

    `path`, `line` and `rule` say where, when known.
    """

    def __init__(self, message: str, *, path: str | None = None,
                 line: int | None = None, rule: str | None = None) -> None:
        where = ", ".join(part for part in (
            path,
            f"line {line}" if line is not None else None,
            f"rule {rule}" if rule else None,
        ) if part)
        super().__init__(f"{where}: {message}" if where else message)
        self.path = path
        self.line = line
        self.rule = rule


class SchemaError(ToolparseError, ValueError):
    """A tool definition or its JSON Schema is invalid; the message names the tool."""


class ExportError(ToolparseError, ValueError):
    """`export_grammar` (SPEC 12) was asked for what the target cannot express, and
    writing a looser grammar would let a model write calls the parser rejects: a
    grammar construct (the message names the dialect and the construct), a schema
    keyword (the tool and the JSON pointer), a tool name the grammar cannot hold, an
    unknown target or mode."""


class ConfigError(ToolparseError, ValueError):
    """A configuration value (such as a `RepairConfig` key) is unknown or of the wrong type."""


class ConfigTypeError(ToolparseError, TypeError):
    """An argument of a public function of the wrong type, named in the message: an
    option of `parse`/`StreamParser` (`model=123`, `tools="x"`, `max_capture=1.5`), a
    path (`Dialect.from_file(None)`), a corpus function's case or text."""


class RejectedCallError(ToolparseError, ValueError):
    """A rejected call was asked for in an executable form (`ToolCall.to_openai()`): a
    rejected call must never run. Check `call.status` (or use
    `ParseResult.accepted_calls`) first."""


class ParserCopyError(ToolparseError, TypeError):
    """A `StreamParser` was copied or pickled. It holds a live stream (an open block,
    held output, Markdown state); start a new parser and feed it the same chunks."""


class ChunkFormatError(ToolparseError, ValueError):
    """`toolparse.openai` was given something that is not a chat completion or chunk:
    neither a mapping nor an openai SDK object, or a field of the wrong type
    (`choices` not a list, `delta.content` not a string). The message names the field."""


class IllegalMove(ToolparseError, RuntimeError):
    """The stream engine tried a move its mode table does not allow: a bug in the engine,
    not bad input; please report it (raised by `toolparse._stream.modes`, defined here
    so that the compiled build's mode table need not define an exception with two
    bases)."""


class TrackerStateError(ToolparseError, RuntimeError):
    """An illegal mode change in the Markdown tracker: a bug in the tracker, never a
    property of the input (raised by `toolparse._markdown.state`, defined here so that
    the compiled build's tracker need not define an exception with two bases)."""
