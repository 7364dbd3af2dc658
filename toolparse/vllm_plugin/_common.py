"""What the tool and the reasoning parser share: the stream's text as vLLM hands it
over, the special tokens a request must keep, the log, and vLLM's delta from the OpenAI
adapter's pieces (SPEC 8: the adapter builds every delta; nothing here builds one twice).

vLLM gives a streaming parser each delta three ways (`previous_text`, `current_text`,
`delta_text`) under one of two conventions: the classic one, where `previous_text` is
everything the parser was given before, and the one vLLM's composed `Parser` uses when
every parser declares `engine_based_streaming`, where `previous_text` is always empty
and `current_text` is the delta. `StreamText` accepts either, decided by the stream's
second call and held to after, and refuses text that contradicts what the parser has
seen (a parser instance used for two streams, say) with a `StreamContractError`: a wrong
call is never made from it.

Cost per delta: the length checks, and comparisons of at most `_TAIL` characters and
the delta; never the whole text.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Final

from toolparse._dialect import Dialect
from toolparse._errors import ToolparseError
from toolparse._events import Reasoning, StreamEvent, Text, ToolCallBlock
from toolparse._reasoning import ReasoningFormat
from toolparse.openai._choice import Pieces, Thought
from toolparse.vllm_plugin._vllm import DeltaFunctionCall, DeltaMessage, DeltaToolCall

__all__ = ["LOG", "ObservedParser", "StreamContractError", "StreamText", "delta_message",
           "dialect_terminals", "format_terminals", "keep_special_tokens", "markup_tokens",
           "tool_dicts"]

LOG: Final = logging.getLogger("vllm.toolparse")
"""Failed blocks and rejected calls, with their reasons in words. A child of vLLM's own
`vllm` logger, so the lines come out where and as vLLM's do."""

_TAIL: Final = 64
"""How many of the last characters seen are kept to check `previous_text` against."""


class StreamContractError(ToolparseError, ValueError):
    """vLLM (or a caller) handed a streaming parser text that does not continue what it
    was given: a `previous_text` that is not the text seen so far, or a `current_text`
    that is not `previous_text` followed by `delta_text`. One parser instance reads one
    stream; nothing is made of such text."""


class StreamText:
    """The text of one stream, as handed over delta by delta; see the module docstring."""

    __slots__ = ("seen", "tail", "accumulating")

    def __init__(self) -> None:
        self.seen = 0
        """How many characters the parser has been given."""
        self.tail = ""
        """The last `_TAIL` of them."""
        self.accumulating: bool | None = None
        """True: `previous_text` is all the text before (the classic convention);
        False: it is always empty (engine-based); None: not known yet."""

    def take(self, previous_text: object, current_text: object, delta_text: object) -> str:
        """The delta, once checked against the text seen so far."""
        if not (isinstance(previous_text, str) and isinstance(current_text, str)
                and isinstance(delta_text, str)):
            raise StreamContractError(
                "previous_text, current_text and delta_text must be str, not "
                f"{type(previous_text).__name__}, {type(current_text).__name__} and "
                f"{type(delta_text).__name__}")
        previous = len(previous_text)
        if len(current_text) != previous + len(delta_text) \
                or current_text[previous:] != delta_text \
                or current_text[max(previous - _TAIL, 0):previous] != previous_text[-_TAIL:]:
            raise StreamContractError(
                f"current_text ({len(current_text)} characters) is not previous_text "
                f"({previous}) followed by delta_text ({len(delta_text)})")
        self._check_previous(previous_text)
        self.seen += len(delta_text)
        self.tail = (self.tail + delta_text)[-_TAIL:]
        return delta_text

    def _check_previous(self, previous_text: str) -> None:
        if self.seen == 0 and not previous_text:
            return
        if not previous_text and self.accumulating is not True:
            self.accumulating = False
            return
        if self.accumulating is not False and len(previous_text) == self.seen \
                and previous_text.endswith(self.tail):
            self.accumulating = True
            return
        raise StreamContractError(
            f"previous_text ({len(previous_text)} characters, ending "
            f"{previous_text[-20:]!r}) is not what this parser was given "
            f"({self.seen} characters, ending {self.tail[-20:]!r}): a parser instance "
            "reads one stream, from its first delta")


class ObservedParser:
    """A parser whose events are logged (failed blocks, rejected calls) on their way to
    the adapter, and rewritten where the request wants no calls (`calls=False`: every
    block is its text) or vLLM reads no reasoning (`regions_as_text`: a region is its
    raw text; nothing in it is a call either way, SPEC G3b)."""

    __slots__ = ("_parser", "_calls", "_regions_as_text")

    def __init__(self, parser: Any, *, calls: bool, regions_as_text: bool) -> None:
        self._parser = parser
        self._calls = calls
        self._regions_as_text = regions_as_text

    def feed(self, chunk: str) -> list[StreamEvent]:
        return self._seen(self._parser.feed(chunk))

    def close(self) -> list[StreamEvent]:
        return self._seen(self._parser.close())

    def _seen(self, events: Sequence[StreamEvent]) -> list[StreamEvent]:
        seen: list[StreamEvent] = []
        for event in events:
            if isinstance(event, Text):
                if event.failure is not None:
                    LOG.warning("toolparse: a block failed (%s) and goes out as content: %s",
                                event.failure.reason, event.failure.message)
                seen.append(event)
            elif isinstance(event, ToolCallBlock):
                seen.append(self._block(event))
            elif isinstance(event, Reasoning) and self._regions_as_text:
                seen.append(Text(event.raw))
            else:
                seen.append(event)
        return seen

    def _block(self, block: ToolCallBlock) -> StreamEvent:
        if not self._calls:
            return Text(block.raw)
        for call in block.calls:
            if call.status == "rejected":
                LOG.warning("toolparse: a call was rejected (%s), and its block goes out as "
                            "content: %s", call.reason, call.message)
        return block


def delta_message(pieces: Pieces) -> Any:
    """vLLM's `DeltaMessage` of the adapter's pieces (None when they hold nothing):
    content, reasoning and `tool_calls` entries, each in stream order. (vLLM's delta has
    one field of each kind, so the order between text and calls inside one delta is
    the one thing a delta cannot say; what a client accumulates is the same.)"""
    content: list[str] = []
    reasoning: list[str] = []
    calls: list[Any] = []
    for piece in pieces.items:
        if isinstance(piece, str):
            content.append(piece)
        elif isinstance(piece, Thought):
            reasoning.append(piece.text)
        else:
            calls.extend(_delta_call(entry) for entry in piece)
    if not (content or reasoning or calls):
        return None
    return DeltaMessage(content="".join(content) or None,
                        reasoning="".join(reasoning) or None, tool_calls=calls)


def _delta_call(entry: Mapping[str, Any]) -> Any:
    function = entry.get("function") or {}
    return DeltaToolCall(index=entry["index"], id=entry.get("id"), type=entry.get("type"),
                         function=DeltaFunctionCall(name=function.get("name"),
                                                    arguments=function.get("arguments")))


def tool_dicts(tools: Iterable[Any] | None) -> list[dict[str, Any]] | None:
    """The request's function tools as toolparse reads them (SPEC 6): Chat Completions'
    `{"type": "function", "function": {...}}` as given, the Responses API's flat
    `{"type": "function", "name", "parameters"}` as `{"name", "parameters"}`; tools of
    other kinds (built-in ones) are no function a model's markup can call. None: none."""
    if not tools:
        return None
    read: list[dict[str, Any]] = []
    for tool in tools:
        data = tool.model_dump(exclude_none=True) if hasattr(tool, "model_dump") else tool
        if not isinstance(data, Mapping):
            continue
        if "function" in data:
            read.append(dict(data))
        elif data.get("type", "function") == "function" and "name" in data:
            read.append({"name": data["name"],
                         "parameters": data.get("parameters") or {"type": "object"}})
    return read or None


def markup_tokens(tokenizer: Any, patterns: Iterable[tuple[str, str | None]]) -> list[str]:
    """The tokenizer's special tokens that are markup: a token that is part of one of
    the (regular expression, literal) terminals given, or that one of them matches
    whole. vLLM removes special tokens from the text unless a request says otherwise."""
    special = set(getattr(tokenizer, "all_special_tokens", None) or ())
    added = getattr(tokenizer, "added_tokens_decoder", None)
    if isinstance(added, Mapping):
        special.update(str(token) for token in added.values() if getattr(token, "special", False))
    terminals = list(patterns)
    return sorted(token for token in special if token and any(
        (literal is not None and token in literal) or re.fullmatch(regexp, token)
        for regexp, literal in terminals))


def dialect_terminals(dialect: Dialect) -> list[tuple[str, str | None]]:
    """Every terminal of the dialect's grammars: (regular expression, literal)."""
    return [(record.regexp, record.literal) for grammar in dialect._grammars
            for record in grammar.record.terminals]


def format_terminals(formats: Iterable[ReasoningFormat]) -> list[tuple[str, str | None]]:
    """The markers of reasoning formats: (regular expression, literal)."""
    return [(marker.pattern, marker.literal) for fmt in formats
            for marker in (fmt.open, fmt.close, fmt.label) if marker is not None]


def keep_special_tokens(request: Any, tokenizer: Any,
                        terminals: Iterable[tuple[str, str | None]]) -> Any:
    """The request, set to keep special tokens in the text when some of the markup is
    special tokens (else vLLM strips it, and the parser never sees it)."""
    if markup_tokens(tokenizer, terminals) and hasattr(request, "skip_special_tokens"):
        request.skip_special_tokens = False
    return request
