"""Content runs: the content-only chunks of one network read, rewritten as one chunk.

A token stream is mostly chunks that differ only in `delta.content`: one choice,
nothing else in its delta, no finish_reason, logprobs or usage, and the same id,
model and created. Consecutive such chunks of one read form a run; the translator
feeds the run to the rewriter as one chunk whose content is theirs joined. Nothing
waits for it (they came together), and the parser's result does not depend on how
its text is cut (SPEC G2), so what the client sees differs only in where chunks are
cut. A proxy that falls behind reads many events at a time, and so spends one parser
feed per read instead of one per event: it catches up.

Recognising a chunk of the run costs a byte comparison, not a JSON decode: the first
chunk's envelope is encoded once around a marker (`Template`), and an event that is
that prefix, one JSON string literal and that suffix is, by the JSON grammar, the same
chunk with that string as its content. A read whose events all fit the template is
checked by comparing it, whole, with the template rebuilt around its contents, and
their strings are decoded by one `orjson.loads`: a read of many tokens costs little
more than a read of one. An upstream whose bytes differ from orjson's encoding (other
spacing, key order) is still correct, through a decode per event.
"""

from __future__ import annotations

from typing import Any, Final

import orjson

__all__ = ["Run", "content_only"]

_CONTENT_CHOICE: Final = frozenset({"index", "delta", "finish_reason", "logprobs"})
_MARK: Final = "\x00toolparse-content\x00"
_MARK_LITERAL: Final = orjson.dumps(_MARK)
_MISSING: Final = object()


def content_only(chunk: Any) -> str | None:
    """The content of a chunk that carries nothing else: one choice whose delta is
    `{"content": <text>}`, no finish_reason, logprobs or usage. None otherwise."""
    if type(chunk) is not dict or chunk.get("usage") is not None:
        return None
    choices = chunk.get("choices")
    if type(choices) is not list or len(choices) != 1:
        return None
    choice = choices[0]
    if type(choice) is not dict or not _CONTENT_CHOICE.issuperset(choice) \
            or choice.get("finish_reason") is not None or choice.get("logprobs") is not None:
        return None
    delta = choice.get("delta")
    if type(delta) is not dict or len(delta) != 1:
        return None
    content = delta.get("content")
    return content if type(content) is str else None


class Template:
    """A content-only chunk's event block with the content cut out: `prefix` (from
    `data: `), then the content's JSON string literal, then `suffix`."""

    __slots__ = ("base", "prefix", "suffix", "_ends", "_tail", "_sep")

    def __init__(self, base: dict[str, Any], prefix: bytes, suffix: bytes) -> None:
        self.base = base
        self.prefix = prefix
        self.suffix = suffix
        self._ends = len(prefix), len(suffix)
        self._tail = suffix + b"\n\n"
        self._sep = self._tail + prefix
        """What lies between two events' contents."""

    @classmethod
    def of(cls, base: dict[str, Any]) -> Template | None:
        """The template of content-only chunk `base`, or None if the marker's literal
        is not found exactly once (an envelope that holds the marker itself)."""
        choice = base["choices"][0]
        try:
            encoded = orjson.dumps({**base, "choices": [{**choice, "delta": {"content": _MARK}}]})
        except TypeError:
            return None
        if encoded.count(_MARK_LITERAL) != 1:
            return None
        prefix, _, suffix = encoded.partition(_MARK_LITERAL)
        return cls(base, b"data: " + prefix, suffix)

    def content(self, data: bytes) -> str | None:
        """The content of event block `data` if it is this template's chunk with some
        content (a one-line block: the suffix ends the JSON, and JSON strings hold
        no raw line break)."""
        head, tail = self._ends
        if len(data) < head + tail + 2 or not data.startswith(self.prefix) \
                or not data.endswith(self.suffix):
            return None
        literal = data[head:len(data) - tail]
        if literal[0] != 0x22 or literal[-1] != 0x22:   # '"'
            return None
        try:
            value = orjson.loads(literal)
        except orjson.JSONDecodeError:
            return None
        return value if type(value) is str else None

    def leading(self, text: bytes) -> tuple[int, str, int]:
        """The complete events of `text` (SSE bytes from an event's start) when every
        one is this template's chunk: how many bytes they take with their blank lines,
        their contents joined, and how many they are. (0, "", 0) when one is not (the
        read then goes the per-event way).

        The check is two comparisons of the whole, not one per event: the events'
        bytes must equal the template rebuilt around what lies between its prefix
        and suffix in each, and those pieces must be one JSON string each (one decode
        of them all as an array, of as many strings as there are events) without a
        line break."""
        if not text.startswith(self.prefix):   # an upstream that spaces its JSON, say
            return 0, "", 0
        blocks = text.split(b"\n\n")
        rest = blocks.pop()
        if not blocks:
            return 0, "", 0
        head, tail = self._ends
        pieces = [block[head:len(block) - tail] for block in blocks]
        end = len(text) - len(rest)
        if self.prefix + self._sep.join(pieces) + self._tail != text[:end]:
            return 0, "", 0
        literals = b",".join(pieces)
        if b"\n" in literals or b"\r" in literals:
            return 0, "", 0
        try:
            contents = orjson.loads(b"[" + literals + b"]")
            joined = "".join(contents)
        except (orjson.JSONDecodeError, TypeError):   # not strings, one to a piece
            return 0, "", 0
        if len(contents) != len(pieces):
            return 0, "", 0
        return end, joined, len(pieces)


class Run:
    """The run being gathered, and the template of its envelope (kept between runs:
    a stream's envelope rarely changes)."""

    __slots__ = ("raw", "count", "contents", "base", "template")

    def __init__(self) -> None:
        self.raw: list[bytes] = []
        """The run's events as they came, each with the blank line that ended it."""
        self.count = 0
        """How many events the run holds."""
        self.contents: list[str] = []
        self.base: dict[str, Any] | None = None
        """The run's first chunk (its envelope and choice)."""
        self.template: Template | None = None

    def match(self, block: bytes) -> bool:
        """Add the event `block` if its bytes are the template's."""
        template = self.template
        if template is None or (self.base is not None and self.base is not template.base):
            return False
        content = template.content(block)
        if content is None:
            return False
        self.base = template.base
        self.raw.append(block + b"\n\n")
        self.contents.append(content)
        self.count += 1
        return True

    def match_leading(self, text: bytes) -> int:
        """Add the complete events of `text` (bytes from an event's start) if all are
        the template's; returns how many bytes they took (0: none taken)."""
        template = self.template
        if template is None or (self.base is not None and self.base is not template.base):
            return 0
        end, content, count = template.leading(text)
        if end:
            self.base = template.base
            self.raw.append(text[:end])
            self.contents.append(content)
            self.count += count
        return end

    def take(self, chunk: Any, content: str, block: bytes) -> bool:
        """Add decoded content-only `chunk` if it continues the run: the same choice
        and an envelope (id, model, created, ...) equal to the first chunk's."""
        base = self.base
        if base is None or len(chunk) != len(base) or \
                chunk["choices"][0].get("index", 0) != base["choices"][0].get("index", 0):
            return False
        for key, value in base.items():
            if key != "choices" and chunk.get(key, _MISSING) != value:
                return False
        self.raw.append(block + b"\n\n")
        self.contents.append(content)
        self.count += 1
        return True

    def start(self, chunk: dict[str, Any], content: str, block: bytes) -> None:
        """Begin a run with content-only `chunk` (the run is empty)."""
        self.base = chunk
        self.template = Template.of(chunk)   # the fast path did not know this envelope
        self.raw.append(block + b"\n\n")
        self.contents.append(content)
        self.count = 1

    def take_all(self) -> tuple[dict[str, Any], bytes, int]:
        """The run as one chunk (the first one's envelope and choice, the contents
        joined), its events' bytes as they came and their number; the run is then
        empty."""
        assert self.base is not None
        base, raw, contents, count = self.base, self.raw, self.contents, self.count
        self.raw, self.contents, self.base, self.count = [], [], None, 0
        choice = {**base["choices"][0], "delta": {"content": "".join(contents)}}
        return {**base, "choices": [choice]}, b"".join(raw), count
