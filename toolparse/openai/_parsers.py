"""The adapter's options, checked once, and the one place it makes parsers.

Every per-choice parser comes from `make_parser`, looked up on this module at call
time: that is the seam a test uses to give the adapter a scripted parser (one that
returns real event objects in a chosen order, such as SPEC 7's incremental events in
orders the engine seldom gives).
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, TypeAlias, get_args

from toolparse._calls import ToolDefinitions
from toolparse._dialect import Dialect
from toolparse._errors import ConfigError, ConfigTypeError
from toolparse._events import StreamEvent
from toolparse._stream import StreamParser

__all__ = ["OnRejected", "ParserLike", "Settings", "make_parser", "settings_from"]

OnRejected: TypeAlias = Literal["content", "drop", "keep"]
"""What happens to a block with a rejected call (SPEC 8): its raw text goes out as
content (`content`), its other calls go out (`drop`), or all go out (`keep`)."""

_OWN_OPTIONS = frozenset({"dialect", "tools", "id_factory", "incremental"})
"""Parser options the adapter sets itself; `**parser_options` may not name them."""


class ParserLike(Protocol):
    """What the adapter needs of a parser: `StreamParser`, or a test's scripted one."""

    def feed(self, chunk: str) -> Sequence[StreamEvent]: ...

    def close(self) -> Sequence[StreamEvent]: ...


@dataclass(frozen=True, slots=True)
class Settings:
    """The checked options of one rewrite: everything a per-choice parser needs."""

    dialect: str | Dialect
    """The dialect name or object, as given."""
    tools: list[Any] | None
    """The request's tool definitions, read once into a list (each parser reads them)."""
    id_factory: Callable[[], str] | None
    """Call ids: this function, or random `call_` ids."""
    stream_arguments: bool
    """Send calls as they arrive (SPEC 8), from `StreamParser(incremental=True)`'s events."""
    on_rejected: OnRejected
    """The policy for blocks with a rejected call."""
    parser_options: Mapping[str, Any] = field(default_factory=dict)
    """Further `StreamParser` options (`max_capture`, `model`, `repair`, `reasoning`,
    `in_reasoning`)."""
    reasoning_field: str = "reasoning_content"
    """The delta (and message) field reasoning goes out in (SPEC 8, 11)."""


def settings_from(*, tools: ToolDefinitions | None, dialect: str | Dialect,
                  stream_arguments: bool, on_rejected: str,
                  id_factory: Callable[[], str] | None,
                  parser_options: Mapping[str, Any],
                  reasoning_field: str = "reasoning_content") -> Settings:
    """The options of `rewrite_stream` and its siblings, checked (errors name the option)."""
    if not isinstance(reasoning_field, str) or not reasoning_field or reasoning_field in (
            "content", "tool_calls", "role"):
        raise ConfigError(f"reasoning_field must name a field of its own, such as "
                          f"'reasoning_content' or 'reasoning', not {reasoning_field!r}")
    if not isinstance(stream_arguments, bool):
        raise ConfigTypeError(
            f"stream_arguments must be True or False, not {type(stream_arguments).__name__}")
    if on_rejected not in get_args(OnRejected):
        raise ConfigError(
            f"on_rejected must be 'content', 'drop' or 'keep', not {on_rejected!r}")
    _check_parser_options(parser_options)
    return Settings(dialect=dialect, tools=_tool_list(tools), id_factory=id_factory,
                    stream_arguments=stream_arguments,
                    on_rejected=on_rejected,  # type: ignore[arg-type]  # checked above
                    parser_options=dict(parser_options), reasoning_field=reasoning_field)


def make_parser(settings: Settings) -> ParserLike:
    """A fresh parser for one choice. Raises the parser's own errors for bad options
    (`SchemaError` for a bad tool schema, `ConfigTypeError` for a wrong type)."""
    options = dict(settings.parser_options)
    if settings.stream_arguments:
        options["incremental"] = True   # SPEC 7's events, translated by _choice.py
    return StreamParser(settings.dialect, tools=settings.tools,
                        id_factory=settings.id_factory, **options)


def _tool_list(tools: ToolDefinitions | None) -> list[Any] | None:
    # Read a one-shot iterable once, since every choice's parser reads the tools. A
    # string or a mapping is left for the parser to refuse with its own clear message.
    if tools is None or isinstance(tools, (str, bytes, Mapping)) or not isinstance(tools, Iterable):
        return tools  # type: ignore[return-value]  # the parser reports the wrong type
    return list(tools)


def _check_parser_options(parser_options: Mapping[str, Any]) -> None:
    for name in parser_options:
        if name in _OWN_OPTIONS:
            hint = " (use stream_arguments=True)" if name == "incremental" else ""
            raise ConfigTypeError(f"{name!r} is set by the adapter itself{hint}; it is not "
                                  "a parser option here")
        if not _engine_takes(name):
            raise ConfigTypeError(
                f"unknown parser option {name!r}; StreamParser takes "
                + ", ".join(sorted(_engine_options() - _OWN_OPTIONS)))


@functools.cache
def _engine_options() -> frozenset[str]:
    return frozenset(name for name, parameter in
                     inspect.signature(StreamParser).parameters.items()
                     if parameter.kind is inspect.Parameter.KEYWORD_ONLY)


def _engine_takes(name: str) -> bool:
    return name in _engine_options()
