"""The stream engine's options checked once, with errors that name what is wrong."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Final

from toolparse._dialect import Dialect
from toolparse._errors import ChunkTypeError, ConfigError, ConfigTypeError, StreamClosedError
from toolparse._events import Event
from toolparse._reasoning import ReasoningFormat, Regions, reasoning_formats, resolve_format

__all__ = ["WINDOW", "check_max_capture", "checked_chunk", "checked_ids", "regions_for",
           "windows"]

WINDOW: Final = 1 << 16
"""A chunk longer than this is read a window at a time (`windows`). A decision
that sends text back to be read again (UNDECIDED, CHOOSING) takes the rest of the text
it was given with it, so one long chunk holding many such blocks (a whole transcript
given to `parse()`) would be copied once per block: quadratic. Read by windows, each
copy is at most a window and the whole is linear (SPEC G6). Above `MAX_ATOM`, so a
chunk this long never took `Engine.feed`'s arriving-tag fast path."""


def windows(feed: Callable[[str], list[Event]], chunk: str) -> list[Event]:
    """A long chunk given to `feed` (the engine's), as windows of at most `WINDOW`
    characters (SPEC G2: the same events)."""
    events: list[Event] = []
    for at in range(0, len(chunk), WINDOW):
        events += feed(chunk[at:at + WINDOW])
    return events

def check_max_capture(max_capture: object) -> None:
    if isinstance(max_capture, bool) or not isinstance(max_capture, int):
        raise ConfigTypeError(
            f"max_capture must be an int (a number of characters), not {type(max_capture).__name__}")
    if max_capture < 1:
        raise ConfigError(f"max_capture must be at least 1 character, not {max_capture}")


def checked_ids(factory: Callable[[], str]) -> Callable[[], str]:
    """`factory`, with a clear error when it returns something other than a str."""
    def new_id() -> str:
        value = factory()
        if not isinstance(value, str):
            raise ConfigTypeError(f"id_factory returned {type(value).__name__}, not a str")
        return value
    return new_id


def regions_for(dialect: Dialect, reasoning: object, in_reasoning: object) -> Regions | None:
    """The reasoning formats a parser reads (SPEC 11): `"auto"`, the dialect's default
    (every bundled format under `dialect="auto"`), a bundled format's name, a
    `ReasoningFormat`, or None for none; with the dialect's tool openers that end a
    region. None when no format is read."""
    if not isinstance(in_reasoning, bool):
        raise ConfigTypeError(
            f"in_reasoning must be True or False, not {type(in_reasoning).__name__}")
    if reasoning == "auto":
        reasoning = dialect.reasoning
    if reasoning is None:
        if in_reasoning:
            raise ConfigError("in_reasoning=True needs a reasoning format: the dialect "
                              f"{dialect.name!r} has none by default; name one with reasoning=")
        return None
    if reasoning == "auto":   # dialect="auto": every bundled format
        formats = [resolve_format(name) for name in reasoning_formats()]
    elif isinstance(reasoning, ReasoningFormat):
        formats = [reasoning]
    elif isinstance(reasoning, str):
        formats = [resolve_format(reasoning)]
    else:
        raise ConfigTypeError(f"reasoning must be a reasoning format's name, 'auto' or None, "
                              f"not {type(reasoning).__name__}")
    for f in formats:
        if f.channels and not any(g.header.reasoning == f.name for g in dialect._grammars):
            raise ConfigError(
                f"reasoning={f.name!r} is a message protocol that only its own dialect reads "
                f"(its headers are that dialect's syntax); the dialect {dialect.name!r} "
                f"reads {dialect.reasoning!r} by default")
    return _regions(dialect, tuple(formats))


@functools.lru_cache(maxsize=64)
def _regions(dialect: Dialect, formats: tuple[ReasoningFormat, ...]) -> Regions:
    """Made once per dialect and formats: a parser is made per stream, `Regions` holds
    no stream's state, and `dialect="auto"`'s thirteen sets of markers took 0.1 ms."""
    return Regions(formats, dialect._reasoning_enders())


def checked_chunk(chunk: object, *, closed: bool) -> str:
    """A chunk `feed()` was given, as a plain str; raises for a chunk of another type or
    a closed parser (API misuse, SPEC G8)."""
    if not isinstance(chunk, str):
        raise ChunkTypeError(
            f"feed() takes a str chunk, not {type(chunk).__name__}"
            + (" (decode bytes first)" if isinstance(chunk, (bytes, bytearray)) else ""))
    if closed:
        raise StreamClosedError("feed() called after close(); start a new StreamParser")
    return chunk if type(chunk) is str else str(chunk)
