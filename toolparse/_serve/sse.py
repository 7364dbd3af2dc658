"""Server-sent events, as an OpenAI-style stream carries them (sans-I/O).

`SSEDecoder` cuts the bytes of a response into event blocks (the WHATWG event-stream
format: lines ending `\\n`, `\\r\\n` or `\\r`, a blank line ends an event, `data:`
lines joined by newlines, `:` comments). It works on whole network reads at a time,
so the proxy rewrites and writes all the events of one read together.

`StreamTranslator` is the chat stream's rewrite: `data:` chunks go through the SPEC 8
`StreamRewriter`, the content-only chunks of one read joined into one (`runs.py`:
most events then cost a byte comparison, not a JSON decode); what the rewrite leaves
unchanged is sent as the very bytes that came, and everything it cannot read (a
comment, another event type, data that is not a chunk) passes through as it came,
but for data nested deeper than the decoder reads (`codec.TooDeep`), which is dropped:
no chunk is that deep, and a client's own decoder would fail on it. `[DONE]` (or the
end of the upstream) first sends what the rewriter still holds.

Faults never cut the client's stream (SPEC 9). Whatever goes wrong while rewriting
(a bug: every known cause is fixed at its source) ends it as an upstream that stops
does: the events already rewritten, what the rewriter holds as content, each open
choice's finish_reason, `[DONE]`; one line is logged, and nothing more is sent.

Bound: an event larger than `max_event` bytes ends the stream (the upstream is not
speaking SSE) and nothing of it is sent; what waits between reads is at most that
much. An event that never ended is sent only if it is whole (the upstream closed
cleanly after it; a connection that broke leaves a part, which is dropped).
Cost: linear in the bytes, however many reads an event takes (its parts are joined
once, when it ends).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any, Final

from toolparse._errors import ChunkFormatError
from toolparse._serve.codec import MAX_DEPTH, TooDeep, dumps, loads
from toolparse._serve.runs import Run, content_only
from toolparse.openai import StreamRewriter

__all__ = ["DONE", "EventTooLarge", "SSEDecoder", "StreamTranslator", "fields"]

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

    __slots__ = ("_parts", "_size", "_newline", "_cr", "_max_event")

    def __init__(self, max_event: int = MAX_EVENT) -> None:
        self._parts: list[bytes] = []
        """The start of an event that has not ended yet, as read (line ends already
        made `\\n`), in pieces joined when it ends."""
        self._size = 0
        """Their bytes."""
        self._newline = False
        """They end with `\\n` (a `\\n` next ends the event)."""
        self._cr = False
        """The last read ended with `\\r`: maybe the first half of `\\r\\n`."""
        self._max_event = max_event

    @property
    def pending(self) -> bytes:
        """The start of the event that has not ended yet."""
        if len(self._parts) > 1:
            self._parts = [b"".join(self._parts)]
        return self._parts[0] if self._parts else b""

    @property
    def pending_size(self) -> int:
        return self._size

    def clear(self) -> None:
        """Forget the event that has not ended (its bytes were taken another way)."""
        self._parts, self._size, self._newline = [], 0, False

    def feed(self, data: bytes) -> list[bytes]:
        """The blocks of the events that `data` completes: each event's lines, with
        `\\n` line ends, without the blank line that ended it. EventTooLarge (and the
        event forgotten) when the event being read passes `max_event` bytes."""
        if self._cr or b"\r" in data:
            data = self._normalized(data)
        if not data:
            return []
        if b"\n\n" not in data and not (self._newline and data[0] == 0x0A):
            self._parts.append(data)           # the event goes on: nothing to split
            self._size += len(data)
            self._newline = data[-1] == 0x0A
            self._check_size()
            return []
        text = b"".join([*self._parts, data]) if self._parts else data
        blocks = text.split(b"\n\n")
        rest = blocks.pop()
        self._parts = [rest] if rest else []
        self._size, self._newline = len(rest), rest.endswith(b"\n")
        self._check_size()
        return [block for block in blocks if block] if b"" in blocks else blocks

    def _normalized(self, data: bytes) -> bytes:
        """`data` with its line ends made `\\n`; a `\\r` at its very end waits."""
        if self._cr:
            data = b"\r" + data
        self._cr = data.endswith(b"\r")
        if self._cr:
            data = data[:-1]
        return data.replace(b"\r\n", b"\n").replace(b"\r", b"\n")

    def _check_size(self) -> None:
        if self._size > self._max_event:
            self.clear()
            raise EventTooLarge(f"an SSE event longer than {self._max_event} bytes")

    def close(self) -> list[bytes]:
        """The last event, if the stream ended without its blank line."""
        rest = self.pending.rstrip(b"\r\n")
        self.clear()
        self._cr = False
        return [rest] if rest else []


class StreamTranslator:
    """One chat stream's SSE bytes in, rewritten SSE bytes out.

    The content-only chunks of one read go to the rewriter as one chunk (a run,
    `runs.py`): when it comes out unchanged, their events go on as the very bytes that
    came; if not, the rewritten chunks replace them all. `ended` tells the caller to
    stop reading: the client's stream has its `[DONE]` and nothing more will be sent.
    """

    __slots__ = ("_decoder", "_rewriter", "_done", "_run", "_last", "_trailer", "chunks",
                 "ended")

    def __init__(self, rewriter: StreamRewriter[Any], max_event: int = MAX_EVENT,
                 trailer: Callable[[], bytes] | None = None) -> None:
        self._decoder = SSEDecoder(max_event)
        self._rewriter = rewriter
        self._trailer = trailer
        """What goes out just before `[DONE]` (an SSE comment, say), asked for then."""
        self._run = Run()
        self._done = False
        """[DONE] has gone out: the rewrite is over (later events pass as they came)."""
        self._last: Any = None
        """The last chunk rewritten: its envelope ends the stream after a fault."""
        self.chunks = 0
        """Chunks read from the upstream (for the access log)."""
        self.ended = False
        """The client's stream is over: an event too large, a fault, or `finish()`."""

    def feed(self, data: bytes) -> bytes:
        """The bytes to send for the upstream's `data`."""
        if self.ended:
            return b""
        out: list[bytes] = []
        try:
            self._feed(data, out)
        except EventTooLarge as error:
            log.warning("upstream stream ended: %s (not sent)", error)
            return self._end(out)
        except Exception as error:      # SPEC 9: a fault never cuts the stream
            return self._fault(error, out)
        return b"".join(out)

    def finish(self, complete: bool = True) -> bytes:
        """The end of the upstream: its last event if whole, what the rewriter holds,
        [DONE]. `complete` is false when the upstream's answer broke off (a dropped
        connection, a time-out): an event it left unended is only a part, not sent."""
        if self.ended:
            return b""
        out: list[bytes] = []
        try:
            last = self._decoder.close()
            if last and not (complete and _whole(last[0])):
                log.warning("upstream stream ended inside an event; that part is not sent")
                last = []
            self._translate_all(last, out)
        except Exception as error:
            return self._fault(error, out)
        return self._end(out)

    def _feed(self, data: bytes, out: list[bytes]) -> None:
        decoder = self._decoder
        if not self._done and self._run.template is not None \
                and decoder.pending_size <= _FAST_PENDING:
            # A read of the run's template's events only: all at once.
            text = decoder.pending + data
            taken = self._run.match_leading(text)
            if taken:
                decoder.clear()
                data = text[taken:]
        self._translate_all(decoder.feed(data), out)

    def _translate_all(self, blocks: list[bytes], out: list[bytes]) -> None:
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
            elif chunk is _TOO_DEEP:
                log.warning("upstream event dropped: its data nests deeper than %d levels",
                            MAX_DEPTH)
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
        except ChunkFormatError:
            # Not a chunk we can read (checked before any of it is parsed): passed on
            # as it came; the client sees exactly what the upstream sent.
            log.warning("upstream event passed on unchanged: not a chat.completion.chunk")
            return raw
        self.chunks += 1
        self._last = chunk
        if len(outputs) == 1 and outputs[0] is chunk:
            return raw
        return b"".join([b"data: " + dumps(out) + b"\n\n" for out in outputs])

    def _close(self) -> bytes:
        closing = self._rewriter.close()
        trailer = self._trailer() if self._trailer is not None else b""
        text = b"".join([b"data: " + dumps(out) + b"\n\n" for out in closing]) + trailer + DONE
        self._done = True
        return text

    def _end(self, out: list[bytes]) -> bytes:
        """`out`, then (unless it went out already) what the rewriter holds and
        [DONE]; the stream is over."""
        try:
            if not self._done:
                out.append(self._close())
        except Exception as error:
            return self._fault(error, out)
        self.ended = True
        return b"".join(out)

    def _fault(self, error: Exception, out: list[bytes]) -> bytes:
        """End the stream after `error`: what went out before it, then what the
        rewriter holds, finish_reasons and [DONE] (if it can still say; if not, a
        `stop` for each choice of the last chunk). Logged once, by type only."""
        self.ended = True
        second: Exception | None = None
        if not self._done:
            try:
                out.append(self._close())
            except Exception as error_closing:
                second = error_closing
                out.append(_stopped(self._last))
            self._done = True
        log.error("rewriting the stream failed (%s%s); the client's stream ends here with "
                  "the text held so far", type(error).__name__,
                  f", then {type(second).__name__} closing it" if second else "")
        log.debug("rewrite fault", exc_info=error)
        return b"".join(out)


_FAST_PENDING: Final = 1 << 16
"""The longest unended event the run's fast path joins with a read (longer ones are
not a run's: a template's events are one token each)."""

_NOT_JSON: Final = object()
_TOO_DEEP: Final = object()
_ENVELOPE: Final = ("id", "object", "created", "model", "system_fingerprint")


def _chunk(data: bytes) -> Any:
    """The JSON value of an event's data, `_TOO_DEEP` or `_NOT_JSON`."""
    try:
        return loads(data)
    except TooDeep:
        return _TOO_DEEP
    except ValueError:
        return _NOT_JSON


def _whole(block: bytes) -> bool:
    """Whether an event that never got its blank line is whole: no data, `[DONE]`,
    or data that is JSON (a part of a JSON text is not; the rest is the upstream's)."""
    data, _ = fields(block)
    return data is None or data == b"[DONE]" or _chunk(data) is not _NOT_JSON


def _stopped(last: Any) -> bytes:
    """A `stop` for each choice of the chunk `last`, and [DONE]: the end of a stream
    whose rewriter failed twice."""
    if isinstance(last, dict) and isinstance(last.get("choices"), list):
        choices: list[dict[str, Any]] = [
            {"index": choice.get("index", 0) if isinstance(choice, dict) else 0,
             "delta": {}, "finish_reason": "stop", "logprobs": None}
            for choice in last["choices"]]
        envelope = {key: last[key] for key in _ENVELOPE if key in last}
        try:
            return b"data: " + dumps({**envelope, "choices": choices}) + b"\n\n" + DONE
        except TypeError:
            pass
    return DONE
