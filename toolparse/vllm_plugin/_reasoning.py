"""`ToolparseReasoningParser`: toolparse as vLLM's reasoning parser (`--reasoning-parser`).

One class per bundled reasoning format (`_registry.py`: `toolparse_<format>` reads one;
`toolparse` reads them all, each opener recognised at the start of the answer, as
`dialect="auto"` does, SPEC 11). It splits the model's thinking from its answer by
SPEC 11's rules, with the engine's own region reader (a `StreamParser`):

- A region opens only at the start of the answer, after optional whitespace; the same
  marker anywhere else is text. It ends at its first closer (or at a tool opener a
  dialect declares as ending it, G3b: Kimi's section). A region that never closes is
  reasoning to the end.
- The prompt decides where the answer starts: a prompt that ends with an opener (the
  DeepSeek-R1 and Qwen3-Thinking templates) starts it inside a region
  (`in_reasoning`); one that ends with a closer (thinking switched off) has none
  (`is_reasoning_end` is then true, and vLLM reads no reasoning). Only the prompt's end
  counts: a closer in an earlier turn says nothing about this one.
- Streaming declares `engine_based_streaming`: vLLM asks
  `has_engine_confirmed_reasoning_end()` after each delta and then takes the rest of
  the text with `finish_streaming()`, as the model wrote it, for the tool parser. Until
  the answer's start is decided, whitespace waits with it (so that the tool parser sees
  the answer's Markdown exactly as written).

Token ids (`is_reasoning_end`, `is_reasoning_end_streaming`, `extract_content_ids`) are
answered by decoding them with the request's tokenizer and reading the markers in the
text: at most the last `_PROMPT_TOKENS` of a prompt, and a delta with a marker's length
of context before it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Any, ClassVar, Final

from toolparse._events import Event, Reasoning, StreamEvent, Text
from toolparse._reasoning import NO_REGION, ReasoningFormat, Regions, reasoning_formats
from toolparse._stream import StreamParser
from toolparse._stream.reasoning import MAX_BLANKS
from toolparse._stream.reasoning import _BLANKS as BLANKS  # what may come before an opener
from toolparse.vllm_plugin._common import StreamText, format_terminals, keep_special_tokens
from toolparse.vllm_plugin._vllm import DeltaMessage, ReasoningParser

__all__ = ["ToolparseReasoningParser"]

_PROMPT_TOKENS: Final = 512
"""How many of the prompt's last tokens are decoded to read how it ends."""



def marker_formats() -> tuple[str, ...]:
    """The bundled formats a reasoning parser reads: a region between two markers. A
    channels format (harmony) is not one: its headers are its dialect's syntax, read
    by that dialect's tool parser (`toolparse_gpt_oss`), not by a reasoning parser."""
    return tuple(name for name in reasoning_formats()
                 if not ReasoningFormat.bundled(name).channels)

class ToolparseReasoningParser(ReasoningParser):  # type: ignore[misc, unused-ignore]  # vLLM's class (Any where vLLM is absent)
    """vLLM's `ReasoningParser` reading the reasoning format `format_name` (None: every
    bundled format) with toolparse."""

    format_name: ClassVar[str | None] = None
    engine_based_streaming = True

    def __init__(self, tokenizer: Any, *args: Any, **kwargs: Any) -> None:
        super().__init__(tokenizer, *args, **kwargs)
        names = marker_formats() if self.format_name is None else (self.format_name,)
        self._formats = tuple(ReasoningFormat.bundled(name) for name in names)
        self._opened = [_at_end(f"(?:{f.open.pattern})"
                                + (f"(?:{f.label.pattern})?" if f.label is not None else "")
                                + r"\s*") for f in self._formats]
        self._closed = _at_end("|".join(f"(?:{f.close.pattern})" for f in self._formats)
                               + r"\s*")
        self._closer = _at_end("|".join(f"(?:{f.close.pattern})" for f in self._formats))
        self._closers = re.compile("|".join(f"(?:{f.close.pattern})" for f in self._formats))
        self._closer_bytes = max(len(f.close.pattern.encode()) for f in self._formats)
        self._prompt: tuple[bool, ReasoningFormat | None] = (False, None)
        """How the prompt ended: (closed a region, opened one of this format)."""
        self._stream: _Split | None = None

    # ---- the prompt ---------------------------------------------------------------------

    def set_prompt_token_ids(self, prompt_token_ids: Sequence[int]) -> None:
        tail = self._decoded_tail(prompt_token_ids, _PROMPT_TOKENS)
        opened = next((fmt for fmt, pattern in zip(self._formats, self._opened)
                       if pattern.search(tail)), None)
        self._prompt = (opened is None and self._closed.search(tail) is not None, opened)

    def is_reasoning_end(self, input_ids: Sequence[int]) -> bool:
        """True when the text ends (but for whitespace) with a closer: said of a prompt,
        the answer holds no reasoning."""
        return self._closed.search(self._decoded_tail(input_ids, _PROMPT_TOKENS)) is not None

    def is_reasoning_end_streaming(self, input_ids: Sequence[int],
                                   delta_ids: Iterable[int]) -> bool:
        """True when a closer ends inside the last `len(delta_ids)` tokens."""
        count = len(list(delta_ids))
        if count == 0:
            return False
        window = _last(input_ids, count + self._closer_bytes)
        before = self.model_tokenizer.decode(window[:len(window) - count])
        whole = self.model_tokenizer.decode(window)
        boundary = len(before.rstrip("\ufffd"))
        return any(found.end() > boundary for found in self._closers.finditer(whole))

    def extract_content_ids(self, input_ids: list[int]) -> list[int]:
        """The ids after the first closer in `input_ids`; all of them when there is none
        (the answer had no region). The shortest prefix holding a closer is found by
        bisection (a prefix that holds one is followed only by prefixes that do), so a
        delta of n tokens costs O(log n) decodes, not n."""
        ids = list(input_ids)
        decode = self.model_tokenizer.decode
        if not self._closers.search(decode(ids)):
            return ids
        low, high = 1, len(ids)
        while low < high:
            middle = (low + high) // 2
            if self._closers.search(decode(ids[:middle])):
                high = middle
            else:
                low = middle + 1
        return ids[high:]

    # ---- requests -----------------------------------------------------------------------

    def adjust_request(self, request: Any) -> Any:
        return keep_special_tokens(request, self.model_tokenizer,
                                   format_terminals(self._formats))

    @property
    def reasoning_start_str(self) -> str | None:
        return self._formats[0].open.literal if len(self._formats) == 1 else None

    @property
    def reasoning_end_str(self) -> str | None:
        return self._formats[0].close.literal if len(self._formats) == 1 else None

    # ---- whole answers ------------------------------------------------------------------

    def extract_reasoning(self, model_output: str, request: Any) -> tuple[str | None, str | None]:
        """(reasoning, content) of a whole answer; None for an empty part."""
        if self._prompt[0]:
            return None, model_output or None
        parser = self._parser()
        events = parser.feed(model_output) + parser.close()
        reasoning = "".join(e.text for e in events if isinstance(e, Reasoning))
        content = "".join(e.raw for e in events if not isinstance(e, Reasoning))
        return reasoning or None, content or None

    # ---- streams ------------------------------------------------------------------------

    def extract_reasoning_streaming(self, previous_text: str, current_text: str,
                                    delta_text: str, previous_token_ids: Sequence[int],
                                    current_token_ids: Sequence[int],
                                    delta_token_ids: Sequence[int]) -> Any:
        if self._stream is None:
            self._stream = _Split(self._parser(), Regions(self._formats), self._closer,
                                  in_region=self._prompt[1] is not None)
        split = self._stream
        if split.ended:   # (vLLM reads no more reasoning after the end: the text as is)
            return DeltaMessage(content=delta_text) if delta_text else None
        return split.feed(split.text.take(previous_text, current_text, delta_text))

    def has_engine_confirmed_reasoning_end(self) -> bool:
        return self._stream is not None and self._stream.ended

    def finish_streaming(self) -> Any:
        """At the end of the reasoning (or of the answer): the rest of the text, as
        written. The instance can then read another stream."""
        split, self._stream = self._stream, None
        if split is None or split.closed:
            return None
        split.closed = True
        return split.message(split.parser.close(), final=True)

    # ---- parts --------------------------------------------------------------------------

    def _parser(self) -> StreamParser:
        opened = self._prompt[1]
        if opened is not None:
            return StreamParser("auto", reasoning=opened.name, in_reasoning=True)
        return StreamParser("auto", reasoning=self.format_name or "auto")

    def _decoded_tail(self, ids: Sequence[int], count: int) -> str:
        return str(self.model_tokenizer.decode(_last(ids, count)))


class _Split:
    """One answer's reasoning and content, as the deltas come."""

    __slots__ = ("parser", "text", "regions", "closer", "ended", "closed", "region",
                 "waiting", "head")

    def __init__(self, parser: StreamParser, regions: Regions, closer: re.Pattern[str],
                 *, in_region: bool) -> None:
        self.parser = parser
        self.text = StreamText()
        self.regions = regions
        self.closer = closer
        """Any closer of the formats read, at the end of a text."""
        self.ended = False
        """The reasoning has ended (or the answer has none): vLLM takes the rest."""
        self.closed = False
        self.region = in_region
        """A region has opened (or the stream started inside one)."""
        self.waiting: list[str] = []
        """Whitespace at the start, until it is known whether a region follows it."""
        self.head = ""
        """The answer's start, until it is known whether a region opens (bounded: a
        region opens after at most `MAX_BLANKS` of whitespace, with an opener of at
        most `MAX_MARKER` characters and a label)."""

    def feed(self, text: str) -> Any:
        message = self.message(self.parser.feed(text))
        if not (self.ended or self.region):
            self.head += text
            self._decide()
        return message

    def message(self, events: Sequence[StreamEvent], *, final: bool = False) -> Any:
        reasoning: list[str] = []
        content: list[str] = []
        for event in events:
            if not isinstance(event, Event):   # (streamed arguments: never asked for)
                continue
            if self.ended:   # (whitespace held before the end was decided comes first)
                content.extend(self.waiting)
                self.waiting.clear()
                content.append(event.raw)
            elif isinstance(event, Reasoning):
                self.region = True
                content.extend(self.waiting)   # the whitespace before the region
                self.waiting.clear()
                reasoning.append(event.text)
                self.ended = self._closes(event)
            elif isinstance(event, Text) and event.failure is None \
                    and not event.text.strip(BLANKS) and not final:
                self.waiting.append(event.raw)
            else:
                content.extend(self.waiting)
                self.waiting.clear()
                content.append(event.raw)
                self.ended = True
        if final:
            content.extend(self.waiting)
            self.waiting.clear()
        if not (reasoning or content):
            return None
        return DeltaMessage(reasoning="".join(reasoning) or None,
                            content="".join(content) or None)

    def _closes(self, event: Reasoning) -> bool:
        """Whether this piece of the region holds its closer (the raw text goes on
        after the piece's text with a closer)."""
        found = self.closer.search(event.raw)
        return found is not None and event.raw[:found.start()].endswith(event.text)

    def _decide(self) -> None:
        """No region opens when the answer's first character that is not whitespace
        cannot begin an opener (the engine's own test, `Regions.opening`), or after
        more whitespace than an opener may follow: the rest is the tool parser's."""
        head = self.head
        first = len(head) - len(head.lstrip(BLANKS))
        if first > MAX_BLANKS:
            self.ended = True
        elif first < len(head):
            which, end = self.regions.opening(head, first, False)
            self.ended = which < 0 and end == NO_REGION


def _at_end(pattern: str) -> re.Pattern[str]:
    return re.compile(f"(?:{pattern})\\Z")


def _last(ids: Sequence[int], count: int) -> list[int]:
    """The last `count` ids, as a list (vLLM may pass a view that is not a list)."""
    size = len(ids)
    return [ids[i] for i in range(max(size - count, 0), size)]
