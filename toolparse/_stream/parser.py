"""`StreamParser`: the public face of the stream engine (`engine.py`).

It checks the options, builds the `Engine`, and then gets out of the way: an instance's
`feed` and `close` are the engine's own bound methods, so a chunk costs no extra call
here. The methods of the same names below carry the documentation and the types that
users' type checkers read (`feed` takes a `str`), and serve a call through the class
(`StreamParser.feed(parser, chunk)`). The engine takes a chunk of any type and refuses
what is not a `str` with `ChunkTypeError`, which is also what keeps the compiled build
(docs/performance.md) raising toolparse's errors rather than its own type checks.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final, NoReturn

from toolparse._calls import RepairOption, ToolDefinitions, make_policy
from toolparse._dialect import Dialect, resolve_dialect
from toolparse._errors import ConfigTypeError, ParserCopyError
from toolparse._events import Event, new_call_id
from toolparse._stream.engine import Engine
from toolparse._stream.options import check_max_capture, checked_ids, regions_for

__all__ = ["StreamParser", "DEFAULT_MAX_CAPTURE"]

DEFAULT_MAX_CAPTURE: Final = 1 << 20
"""Default `max_capture`: 1 MiB of characters."""


class StreamParser:
    """Finds tool calls in a text stream, chunk by chunk (sans-I/O).

    `feed(chunk)` returns the events that chunk made certain; `close()` ends the stream
    and returns the rest. Joining every event's text (`Text.text`, `ToolCallBlock.raw`)
    gives back the input exactly, however it was chunked (SPEC G1, G2); text that can no
    longer become part of a call comes out in the `feed()` that made that certain (G5).

    Args:
        dialect: A bundled dialect's name (`toolparse.dialects()`, or `"auto"` for all
            of them at once) or a `Dialect` (`Dialect.from_file` loads an edited
            grammar).
        max_capture: The most characters an open block (or output held on a Markdown
            decision) may grow to; past it the block fails with reason `max_capture`
            and scanning goes on (SPEC G7). Default 1 MiB.
        tools: The tool definitions the calls are checked against: OpenAI-style
            `{"type": "function", "function": {"name", "parameters"}}` dicts,
            `{"name", "parameters"}` dicts, or openai SDK tool objects. With tools,
            each call is typed by its JSON Schema, validated and repaired where the
            repair is unambiguous (SPEC 6); a call to a tool not given is rejected.
            None: calls are `unchecked`.
        model: The model route (for example `"z-ai/glm-4.5"`), matched against
            `RepairConfig.grammar_leak_models` to decide which repair rules apply.
        repair: A `RepairConfig` or a mapping of its fields (camelCase keys too).
        id_factory: A function returning each call's id, for deterministic ids (tests,
            replays). Default: `call_` and 24 random hex digits.
        incremental: Also give out provisional news of calls still arriving (SPEC 7):
            `CallStarted` when a call's name is known, `ArgumentsDelta` pieces of its
            arguments JSON, `CallsAborted` when its block fails. The `Text` and
            `ToolCallBlock` events stay exactly the same. With it, an id is drawn from
            `id_factory` when a call starts.
        reasoning: The reasoning format (SPEC 11): `"auto"` (the default) reads the
            dialect's own (`Dialect.reasoning`; every bundled format under
            `dialect="auto"`), a name picks a bundled one (`toolparse.reasoning_formats()`),
            None reads no regions. A region opens only at the start of the stream, after
            optional whitespace; its text comes out as `Reasoning` events, and nothing
            inside it is a call (SPEC G3b).
        in_reasoning: The stream starts inside a region, with no opener: the prompt
            opened it (the DeepSeek-R1, Qwen3-Thinking and MiniMax-M2 templates do).

    Raises:
        UnknownDialectError: `dialect` is not a bundled name or a `Dialect`.
        ConfigError: `max_capture` is not positive; `repair` has an unknown key.
        ConfigTypeError: An option of the wrong type (`max_capture=1.5`, `model=123`,
            `id_factory="x"`).
        SchemaError: A tool definition or its JSON Schema is invalid, or reaches
            outside itself (SPEC 6.1).
    """

    __slots__ = ("_engine", "__dict__")
    # `__dict__`: `feed` and `close` are set on each instance (the engine's methods).

    def __init__(self, dialect: str | Dialect = "deepseek", *,
                 max_capture: int = DEFAULT_MAX_CAPTURE,
                 tools: ToolDefinitions | None = None, model: str | None = None,
                 repair: RepairOption | None = None,
                 id_factory: Callable[[], str] | None = None,
                 incremental: bool = False, reasoning: str | None = "auto",
                 in_reasoning: bool = False) -> None:
        check_max_capture(max_capture)
        if id_factory is not None and not callable(id_factory):
            raise ConfigTypeError(
                f"id_factory must be a function returning a str, not {type(id_factory).__name__}")
        if not isinstance(incremental, bool):
            raise ConfigTypeError(
                f"incremental must be True or False, not {type(incremental).__name__}")
        resolved = resolve_dialect(dialect)
        engine = Engine(resolved, max_capture, make_policy(tools, model, repair),
                        checked_ids(id_factory) if id_factory is not None else new_call_id,
                        incremental, regions_for(resolved, reasoning, in_reasoning),
                        in_reasoning)
        self._engine = engine
        self.feed = engine.feed  # type: ignore[method-assign]
        self.close = engine.close  # type: ignore[method-assign]

    @property
    def dialect(self) -> Dialect:
        """The dialect this parser reads."""
        return self._engine.dialect()

    @property
    def saw_tool_syntax(self) -> bool:
        """A wrapper or invoke tag has been seen outside Markdown code."""
        return self._engine.saw_tool_syntax()

    def feed(self, chunk: str) -> list[Event]:
        """Consume one chunk; return the events it made certain, in order.

        Args:
            chunk: The next piece of the answer, of any length (an empty chunk is
                normal, not the end of the stream).

        Returns:
            `Text` and `ToolCallBlock` events, adjacent text of the same kind merged;
            with `incremental=True`, incremental events among them, in stream order
            (the list is then a `list[StreamEvent]`).

        Raises:
            ChunkTypeError: `chunk` is not a `str` (decode bytes first).
            StreamClosedError: The parser was closed.
        """
        return self._engine.feed(chunk)

    def close(self) -> list[Event]:
        """End the stream; return the remaining events.

        A block still open fails with reason `truncated`; output held on a Markdown
        decision is settled. The parser cannot be fed again.

        Raises:
            StreamClosedError: `close()` was already called.
        """
        return self._engine.close()

    def __copy__(self) -> NoReturn:
        raise ParserCopyError("a StreamParser cannot be copied: it holds a live stream; "
                              "start a new StreamParser and feed it the same chunks")

    def __deepcopy__(self, memo: Any) -> NoReturn:
        self.__copy__()

    def __reduce_ex__(self, protocol: Any) -> NoReturn:
        raise ParserCopyError("a StreamParser cannot be pickled: it holds a live stream; "
                              "pickle the chunks (or the ParseResult) instead")
