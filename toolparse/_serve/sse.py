"""Server-sent events, as an OpenAI-style stream carries them (sans-I/O).

`SSEDecoder` cuts the bytes of a response into event blocks (the WHATWG event-stream
format: lines ending `\\n`, `\\r\\n` or `\\r`, a blank line ends an event, `data:`
lines joined by newlines, `:` comments). It works on whole network reads at a time,
so the proxy rewrites and writes all the events of one read together.

`StreamTranslator` is the chat stream's rewrite: `data:` chunks go through the SPEC 8
`StreamRewriter`, the content-only chunks of one read joined into one (`runs.py`:
most events then cost a byte comparison, not a JSON decode); what the rewrite leaves
unchanged is sent as the very bytes that came, and everything it cannot read (a
comment, another event type, data that is not a chunk) passes through as it came.
`[DONE]` (or the end of the upstream) first sends what the rewriter still holds.

Bound: an event larger than `max_event` bytes ends the stream (the upstream is not
speaking SSE); what waits between reads is at most that much.
"""

from __future__ import annotations

import json
import logging
from typing import Any, Final

import orjson

from toolparse._serve.runs import Run, content_only
from toolparse.openai import StreamRewriter

__all__ = ["DONE", "EventTooLarge", "SSEDecoder", "StreamTranslator", "dumps", "fields", "loads"]

log = logging.getLogger("toolparse.serve")

DONE: Final = b"data: [DONE]\n\n"
MAX_EVENT: Final = 16 << 20
"""The largest SSE event accepted (16 MiB): more is not a chat stream."""


class EventTooLarge(Exception):
    """An SSE event grew past `max_event` bytes without ending."""


def fields(block: bytes) -> tuple[bytes | None, bool]:
    """An event block's data (None when it had no data line) and whether it is a
    message event."""
    if block.startswith(b"data: ") and b"\n" not in block:   # the common shape: one line
        return block[6:], True
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
    return (b"\n".join(data) if data else None), kind == b"message"


class SSEDecoder:
    """Bytes in, complete event blocks out (`fields` reads one)."""

    __slots__ = ("pending", "_max_event")

    def __init__(self, max_event: int = MAX_EVENT) -> None:
        self.pending = b""
        """The start of an event that has not ended yet (from an event's start, its
        line ends as they came or already made `\\n`)."""
        self._max_event = max_event

    def feed(self, data: bytes) -> list[bytes]:
        """The blocks of the events that `data` completes: each event's lines, with
        `\\n` line ends, without the blank line that ended it."""
        text = self.pending + data
        if b"\r" in text:
            # A \r at the very end may be the first half of \r\n: it waits.
            keep = b"\r" if text.endswith(b"\r") else b""
            text = text[:len(text) - len(keep)].replace(b"\r\n", b"\n").replace(b"\r", b"\n")
            text += keep
        blocks = text.split(b"\n\n")
        self.pending = blocks.pop()
        if len(self.pending) > self._max_event:
            raise EventTooLarge(f"an SSE event longer than {self._max_event} bytes")
        return [block for block in blocks if block] if b"" in blocks else blocks

    def close(self) -> list[bytes]:
        """The last event, if the stream ended without its blank line."""
        rest, self.pending = self.pending.rstrip(b"\r\n"), b""
        return [rest] if rest else []


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
    """One chat stream's SSE bytes in, rewritten SSE bytes out.

    The content-only chunks of one read go to the rewriter as one chunk (a run,
    `runs.py`): when it comes out unchanged, their events go on as the very bytes that
    came; if not, the rewritten chunks replace them all.
    """

    __slots__ = ("_decoder", "_rewriter", "_done", "_run", "chunks")

    def __init__(self, rewriter: StreamRewriter[Any]) -> None:
        self._decoder = SSEDecoder()
        self._rewriter = rewriter
        self._run = Run()
        self._done = False
        """[DONE] has gone out: the rewrite is over."""
        self.chunks = 0
        """Chunks read from the upstream (for the access log)."""

    def feed(self, data: bytes) -> bytes:
        if not self._done and self._run.template is not None:
            # A read of the run's template's events only: all at once.
            text = self._decoder.pending + data
            taken = self._run.match_leading(text)
            if taken:
                self._decoder.pending = b""
                data = text[taken:]
        return self._translate_all(self._decoder.feed(data))

    def finish(self) -> bytes:
        """The end of the upstream: the last event, what the rewriter holds, [DONE]."""
        out = self._translate_all(self._decoder.close())
        if self._done:
            return out
        return out + self._close()

    def _translate_all(self, blocks: list[bytes]) -> bytes:
        out: list[bytes] = []
        run = self._run
        for block in blocks:
            if self._done:
                out.append(block + b"\n\n")
            elif run.match(block):
                continue
            else:
                self._translate(block, out)
        if run.count:
            out.append(self._flush())
        return b"".join(out)

    def _translate(self, block: bytes, out: list[bytes]) -> None:
        """An event that does not continue the run by its bytes alone."""
        run = self._run
        data, plain = fields(block)
        if data is not None and plain and data != b"[DONE]":
            chunk = _chunk(data)
            content = content_only(chunk)
            if content is not None and run.take(chunk, content, block):
                return
            if run.count:
                out.append(self._flush())
            if content is not None:
                run.start(chunk, content, block)
            elif chunk is _NOT_JSON:
                log.warning("upstream event passed on unchanged: not JSON")
                out.append(block + b"\n\n")
            else:
                out.append(self._rewrite(chunk, block + b"\n\n"))
            return
        if run.count:
            out.append(self._flush())
        out.append(self._close() if plain and data == b"[DONE]" else block + b"\n\n")

    def _flush(self) -> bytes:
        chunk, raw, count = self._run.take_all()
        self.chunks += count - 1
        return self._rewrite(chunk, raw)

    def _rewrite(self, chunk: Any, raw: bytes) -> bytes:
        """The rewritten chunks for `chunk`, or `raw` (the bytes it came as) when the
        rewrite leaves it unchanged."""
        try:
            outputs = self._rewriter.feed(chunk)
        except ValueError as error:   # ChunkFormatError, chiefly
            # Not a chunk we can read: passed on as it came; the client sees exactly
            # what the upstream sent.
            log.warning("upstream event passed on unchanged: %s", type(error).__name__)
            return raw
        self.chunks += 1
        if len(outputs) == 1 and outputs[0] is chunk:
            return raw
        return b"".join([b"data: " + dumps(out) + b"\n\n" for out in outputs])

    def _close(self) -> bytes:
        self._done = True
        closing = self._rewriter.close()
        return b"".join([b"data: " + dumps(out) + b"\n\n" for out in closing]) + DONE


_NOT_JSON: Final = object()


def _chunk(data: bytes) -> Any:
    """The JSON value of an event's data, or `_NOT_JSON`."""
    try:
        return loads(data)
    except ValueError:
        return _NOT_JSON
