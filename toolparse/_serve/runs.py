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
chunk with that string as its content. An upstream whose bytes differ from orjson's
encoding (other spacing, key order) is still correct, through a decode per event.
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

    __slots__ = ("base", "prefix", "suffix", "_ends")

    def __init__(self, base: dict[str, Any], prefix: bytes, suffix: bytes) -> None:
        self.base = base
        self.prefix = prefix
        self.suffix = suffix
        self._ends = len(prefix), len(suffix)

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


class Run:
    """The run being gathered, and the template of its envelope (kept between runs:
    a stream's envelope rarely changes)."""

    __slots__ = ("blocks", "contents", "base", "template")

    def __init__(self) -> None:
        self.blocks: list[bytes] = []
        """The run's event blocks, as they came."""
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
        self.blocks.append(block)
        self.contents.append(content)
        return True

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
        self.blocks.append(block)
        self.contents.append(content)
        return True

    def start(self, chunk: dict[str, Any], content: str, block: bytes) -> None:
        """Begin a run with content-only `chunk` (the run is empty)."""
        self.base = chunk
        self.template = Template.of(chunk)   # the fast path did not know this envelope
        self.blocks.append(block)
        self.contents.append(content)

    def take_all(self) -> tuple[dict[str, Any], bytes, int]:
        """The run as one chunk (the first one's envelope and choice, the contents
        joined), its events' bytes as they came and their number; the run is then
        empty."""
        assert self.base is not None
        base, blocks, contents = self.base, self.blocks, self.contents
        self.blocks, self.contents, self.base = [], [], None
        choice = {**base["choices"][0], "delta": {"content": "".join(contents)}}
        return {**base, "choices": [choice]}, b"\n\n".join(blocks) + b"\n\n", len(blocks)
