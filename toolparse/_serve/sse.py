"""Server-sent events, as an OpenAI-style stream carries them (sans-I/O).

`SSEDecoder` cuts the bytes of a response into events (the WHATWG event-stream
format: lines ending `\\n`, `\\r\\n` or `\\r`, a blank line ends an event, `data:`
lines joined by newlines, `:` comments). It works on whole network reads at a time,
so the proxy rewrites and writes all the events of one read together: the per-event
cost is a split and one JSON decode.

`StreamTranslator` is the chat stream's rewrite: each `data:` chunk goes through the
SPEC 8 `StreamRewriter`; an event the rewrite leaves unchanged is sent as the very
bytes that came, and everything it cannot read (a comment, another event type, data
that is not a chunk) passes through as it came. `[DONE]` (or the end of the upstream)
first sends what the rewriter still holds.

Bound: an event larger than `max_event` bytes ends the stream (the upstream is not
speaking SSE); what waits between reads is at most that much.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from typing import Any, Final

import orjson

from toolparse._errors import ChunkFormatError
from toolparse.openai import StreamRewriter

__all__ = ["DONE", "Event", "EventTooLarge", "SSEDecoder", "StreamTranslator", "dumps", "loads"]

log = logging.getLogger("toolparse.serve")

DONE: Final = b"data: [DONE]\n\n"
MAX_EVENT: Final = 16 << 20
"""The largest SSE event accepted (16 MiB): more is not a chat stream."""


class EventTooLarge(Exception):
    """An SSE event grew past `max_event` bytes without ending."""


@dataclass(frozen=True, slots=True)
class Event:
    """One SSE event: its `data` (None when it had no data line) and its raw bytes."""

    data: bytes | None
    raw: bytes
    """The event as it came, with its closing blank line: sent on when not rewritten."""
    plain: bool
    """A message event (no `event:` field, or `event: message`)."""


class SSEDecoder:
    """Bytes in, complete events out."""

    __slots__ = ("_pending", "_max_event")

    def __init__(self, max_event: int = MAX_EVENT) -> None:
        self._pending = b""
        """The start of an event that has not ended yet."""
        self._max_event = max_event

    def feed(self, data: bytes) -> list[Event]:
        text = self._pending + data
        if b"\r" in text:
            # A \r at the very end may be the first half of \r\n: it waits.
            keep = b"\r" if text.endswith(b"\r") else b""
            text = text[:len(text) - len(keep)].replace(b"\r\n", b"\n").replace(b"\r", b"\n")
            text += keep
        blocks = text.split(b"\n\n")
        self._pending = blocks.pop()
        if len(self._pending) > self._max_event:
            raise EventTooLarge(f"an SSE event longer than {self._max_event} bytes")
        return [_event(block) for block in blocks if block]

    def close(self) -> list[Event]:
        """The last event, if the stream ended without its blank line."""
        rest, self._pending = self._pending.rstrip(b"\r\n"), b""
        return [_event(rest)] if rest else []


def _event(block: bytes) -> Event:
    raw = block + b"\n\n"
    if block.startswith(b"data: ") and b"\n" not in block:   # the common shape: one line
        return Event(block[6:], raw, True)
    data: list[bytes] = []
    kind = b"message"
    for line in block.split(b"\n"):
        if not line or line.startswith(b":"):
            continue
        name, _, value = line.partition(b":")
        value = value[1:] if value.startswith(b" ") else value
        if name == b"data":
            data.append(value)
        elif name == b"event":
            kind = value
    return Event(b"\n".join(data) if data else None, raw, kind == b"message")


def loads(data: bytes) -> Any:
    """JSON text to a value (orjson; the standard module for what orjson refuses,
    such as integers beyond 64 bits). Raises ValueError for text that is not JSON."""
    try:
        return orjson.loads(data)
    except orjson.JSONDecodeError:
        return json.loads(data)


def dumps(value: Any) -> bytes:
    try:
        return orjson.dumps(value)
    except TypeError:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode()


class StreamTranslator:
    """One chat stream's SSE bytes in, rewritten SSE bytes out."""

    __slots__ = ("_decoder", "_rewriter", "_done", "chunks")

    def __init__(self, rewriter: StreamRewriter[Any]) -> None:
        self._decoder = SSEDecoder()
        self._rewriter = rewriter
        self._done = False
        """[DONE] has gone out: the rewrite is over."""
        self.chunks = 0
        """Chunks read from the upstream (for the access log)."""

    def feed(self, data: bytes) -> bytes:
        return b"".join([self._translate(event) for event in self._decoder.feed(data)])

    def finish(self) -> bytes:
        """The end of the upstream: the last event, what the rewriter holds, [DONE]."""
        out = b"".join([self._translate(event) for event in self._decoder.close()])
        if self._done:
            return out
        return out + self._close()

    def _translate(self, event: Event) -> bytes:
        if self._done or event.data is None or not event.plain:
            return event.raw
        if event.data == b"[DONE]":
            return self._close()
        try:
            chunk = loads(event.data)
            outputs = self._rewriter.feed(chunk)
        except (ValueError, ChunkFormatError) as error:
            # Not a chunk we can read (ChunkFormatError is a ValueError too): passed on as
            # it came; the client sees exactly what the upstream sent.
            log.warning("upstream event passed on unchanged: %s", type(error).__name__)
            return event.raw
        self.chunks += 1
        if len(outputs) == 1 and outputs[0] is chunk:
            return event.raw
        return b"".join([b"data: " + dumps(out) + b"\n\n" for out in outputs])

    def _close(self) -> bytes:
        self._done = True
        closing = self._rewriter.close()
        return b"".join([b"data: " + dumps(out) + b"\n\n" for out in closing]) + DONE
