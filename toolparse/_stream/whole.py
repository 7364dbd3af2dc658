"""`parse()`: a whole text at once, as the stream engine reads it (SPEC G2).

The events are exactly those of one `StreamParser` fed the text in one chunk and
closed, with adjacent text of the same kind joined.

`parse()` runs with Python's cyclic garbage collector paused (`toolparse._collector`):
the calls of a long text are made in one burst.
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import groupby
from typing import cast

from toolparse._calls import RepairOption, ToolDefinitions
from toolparse._collector import collector_paused
from toolparse._dialect import Dialect
from toolparse._errors import ChunkTypeError
from toolparse._events import Event, ParseResult, Reasoning, Text
from toolparse._stream.output import make_text
from toolparse._stream.parser import DEFAULT_MAX_CAPTURE, StreamParser

__all__ = ["joined_runs", "parse"]


@collector_paused
def parse(text: str, dialect: str | Dialect = "deepseek", *,
          max_capture: int = DEFAULT_MAX_CAPTURE, tools: ToolDefinitions | None = None,
          model: str | None = None, repair: RepairOption | None = None,
          id_factory: Callable[[], str] | None = None, reasoning: str | None = "auto",
          in_reasoning: bool = False) -> ParseResult:
    """Parse a whole text at once: the same events as streaming it (SPEC G2).

    Python's cyclic garbage collector is paused while it runs (the engine makes no
    reference cycles) and restored on return; docs/semantics.md, "Bounds".

    Args:
        text: The whole answer.
        dialect: A bundled dialect's name (or `"auto"`) or a `Dialect`.
        max_capture: The most characters an open block may grow to (SPEC G7).
        tools: Tool definitions to type, validate and repair calls by (SPEC 6); see
            `StreamParser`.
        model: The model route, for the repair rules that depend on it.
        repair: A `RepairConfig` or a mapping of its fields.
        id_factory: A function returning each call's id (default: random ids).
        reasoning: The reasoning format (SPEC 11; see `StreamParser`): `"auto"`, a
            bundled format's name, or None.
        in_reasoning: The text starts inside a reasoning region (the prompt opened it).

    Returns:
        A `ParseResult`: the events, the calls (`accepted_calls` for those a gateway
        may run), the failures, the content (`text`: without the recognised blocks and
        reasoning regions) and the reasoning (`reasoning`).

    Raises:
        ChunkTypeError: `text` is not a `str`.
        UnknownDialectError, ConfigError, ConfigTypeError, SchemaError: As for
            `StreamParser`.

    Example:
        >>> import toolparse
        >>> answer = ('Reading it. <tool_calls><invoke name="read_file">'
        ...           '<parameter name="path">README.md</parameter></invoke></tool_calls>')
        >>> [(c.name, c.arguments) for c in toolparse.parse(answer).accepted_calls]
        [('read_file', {'path': 'README.md'})]
    """
    if not isinstance(text, str):
        raise ChunkTypeError(f"parse() takes a str, not {type(text).__name__}")
    parser = StreamParser(dialect, max_capture=max_capture, tools=tools, model=model,
                          repair=repair, id_factory=id_factory, reasoning=reasoning,
                          in_reasoning=in_reasoning)
    events = joined_runs(parser.feed(text) + parser.close())
    return ParseResult(events=tuple(events), saw_tool_syntax=parser.saw_tool_syntax,
                       dialect=parser.dialect)


def joined_runs(events: list[Event]) -> list[Event]:
    """The events with each run of adjacent text of the same failure (or none), and each
    run of adjacent reasoning, joined into one event. Each run is joined once: joining
    pairwise copied the text joined so far at every step, quadratic in a run's length
    (a long unclosed block comes out a window at a time)."""
    joined: list[Event] = []
    for _kind, group in groupby(events, _run_kind):
        run = list(group)
        first = run[0]
        if len(run) == 1 or not isinstance(first, (Text, Reasoning)):
            joined.extend(run)   # (a run of one)
            continue
        pieces = cast("list[Text | Reasoning]", run)
        text, raw = "".join([e.text for e in pieces]), "".join([e.raw for e in pieces])
        joined.append(make_text(text, first.failure, raw) if isinstance(first, Text)
                      else Reasoning(text, raw))
    return joined


def _run_kind(event: Event) -> object:
    """What adjacent events must share to be joined: text its failure, reasoning nothing;
    any other event is a run of its own (a key equal to no other)."""
    if isinstance(event, Text):
        return ("text", event.failure)
    if isinstance(event, Reasoning):
        return "reasoning"
    return object()
