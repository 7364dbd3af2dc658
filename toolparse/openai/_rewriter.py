"""`StreamRewriter`: chat.completion.chunk objects in, rewritten chunks out (sans-I/O).

Per input chunk: each choice's `delta.content` goes to that choice's parser, and the
parser's events become that choice's pieces (`_choice.py`); the chunk's k-th output
holds every choice's k-th piece. A choice's `finish_reason` closes its parser.
`close()` ends every choice that never got one (an upstream that stopped early).

Cost: a chunk of one choice whose content comes out unchanged (the common case: prose)
is yielded as the very same object, after one `feed()`; no copy is made.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Generic, TypeVar, cast

from toolparse._errors import StreamClosedError
from toolparse._events import Text
from toolparse.openai import _parsers
from toolparse.openai._choice import ChoiceRewriter, Pieces
from toolparse.openai._chunks import as_data, checked_choices, choice_outputs, split_chunk
from toolparse.openai._parsers import Settings

__all__ = ["StreamRewriter"]

ChunkT = TypeVar("ChunkT")

_Fed = tuple[ChoiceRewriter, list[Any]]
"""Events a choice's parser already gave for the chunk's content."""

_QUIET_CHOICE = frozenset({"index", "delta", "finish_reason", "logprobs"})


class StreamRewriter(Generic[ChunkT]):
    """Rewrites one streamed chat completion, chunk by chunk (SPEC 8).

    `feed(chunk)` returns the chunks to send for it (none, the same object, or new
    ones of the same kind); `close()` ends the stream and returns the rest. The
    functions `rewrite_stream` and `arewrite_stream` are loops around it.
    """

    def __init__(self, settings: Settings) -> None:
        self._settings = settings
        self._choices: dict[int, ChoiceRewriter] = {}
        self._last: Any = None
        """The last chunk that had choices: the envelope for what close() sends."""
        self._closed = False
        # One parser up front, so that bad options (a bad schema) raise here, before
        # any chunk: it becomes the first choice's.
        self._spare: _parsers.ParserLike | None = _parsers.make_parser(settings)

    def feed(self, chunk: ChunkT) -> list[ChunkT]:
        """The chunks to send for `chunk`, in order."""
        if self._closed:
            raise StreamClosedError("feed() called after close()")
        if type(chunk) is dict:
            return self._feed_dict(chunk, cast("dict[str, Any]", chunk))
        peeked = _peek(chunk)
        if peeked is None:
            return self._rewrite(chunk, None)
        index, choice, content = peeked
        rewriter = self._choices.get(index)
        if rewriter is None or rewriter.finished:
            return self._rewrite(chunk, None)
        events = rewriter.parser.feed(content)
        if len(events) == 1:
            event = events[0]
            if type(event) is Text and (event.text is content or event.text == content):
                # The content comes out unchanged: the same object. (close() takes its
                # envelope from the last chunk rewritten; a stream's ids do not change.)
                return [chunk]
        return self._rewrite(chunk, (rewriter, list(events)))

    def _feed_dict(self, chunk: ChunkT, data: dict[str, Any]) -> list[ChunkT]:
        """`feed` for a dict chunk (`data`, the same object): `_peek` and `_quiet` in
        one pass, since this runs for every chunk of a stream, most of them one
        choice's content."""
        choices = data.get("choices")
        if type(choices) is list and len(choices) == 1:
            choice = choices[0]
            if type(choice) is dict:
                delta = choice.get("delta")
                index = choice.get("index", 0)
                if type(delta) is dict and choice.get("finish_reason") is None \
                        and type(index) is int and delta.get("tool_calls") is None:
                    content = delta.get("content")
                    rewriter = self._choices.get(index)
                    if type(content) is str and content and rewriter is not None \
                            and not rewriter.finished:
                        events = rewriter.parser.feed(content)
                        if not events:
                            # All held: no chunk at all, if it has nothing else to pass
                            # on (no role, logprobs, usage or unknown fields).
                            if len(delta) == 1 and _QUIET_CHOICE.issuperset(choice) \
                                    and choice.get("logprobs") is None \
                                    and data.get("usage") is None:
                                return []
                        elif len(events) == 1:
                            event = events[0]
                            if type(event) is Text and (event.text is content
                                                        or event.text == content):
                                return [chunk]
                        return self._rewrite(chunk, (rewriter, list(events)))
        return self._rewrite(chunk, None)

    def close(self) -> list[ChunkT]:
        """End the stream: every choice without a finish_reason gets its held text
        and one (SPEC 8's rules, as if the upstream had said `stop`)."""
        if self._closed:
            raise StreamClosedError("close() called twice")
        self._closed = True
        open_choices = sorted((index, choice) for index, choice in self._choices.items()
                              if not choice.finished)
        if not open_choices or self._last is None:
            return []
        data, kind = as_data(self._last, "a chat.completion.chunk")
        per_choice = []
        for index, choice in open_choices:
            out = Pieces()
            choice.close(out)
            per_choice.append(choice_outputs({"index": index}, {}, out.items,
                                             choice.finish_reason(None),
                                             self._settings.reasoning_field))
        envelope = {**data, "choices": []}
        if "usage" in envelope:  # the usage went out with the chunk that carried it
            envelope["usage"] = None
        return split_chunk(envelope, per_choice, kind)

    # ---- the general path ----------------------------------------------------------------

    def _rewrite(self, chunk: ChunkT, fed: _Fed | None) -> list[ChunkT]:
        data, kind = as_data(chunk, "a chat.completion.chunk")
        choices = checked_choices(data, "delta")
        if not choices:  # a usage-only chunk, an error object: passed on as it came
            return [chunk]
        self._last = chunk
        per_choice = [self._rewrite_choice(choice, fed) for choice in choices]
        if [len(outputs) for outputs in per_choice] == [1] * len(choices) \
                and [outputs[0] for outputs in per_choice] == choices:
            return [chunk]  # nothing changed (a role chunk, say): the same object
        return split_chunk(data, per_choice, kind)

    def _rewrite_choice(self, choice: Mapping[str, Any], fed: _Fed | None) -> list[dict[str, Any]]:
        index = choice.get("index", 0)
        delta = choice.get("delta") or {}
        rewriter = self._choice(index)
        out = Pieces()
        upstream_calls = delta.get("tool_calls")
        if upstream_calls:
            out.items.append(rewriter.upstream_calls(upstream_calls))
        content = delta.get("content")
        if fed is not None and fed[0] is rewriter:
            rewriter.translate(fed[1], out)
        elif content:
            rewriter.feed(content, out)
        finish = choice.get("finish_reason")
        if finish is not None and not rewriter.finished:
            rewriter.close(out)
            finish = rewriter.finish_reason(finish)
        return choice_outputs(choice, delta, out.items, finish, self._settings.reasoning_field)

    def _choice(self, index: int) -> ChoiceRewriter:
        choice = self._choices.get(index)
        if choice is None:
            parser, self._spare = self._spare, None
            if parser is None:
                parser = _parsers.make_parser(self._settings)
            choice = self._choices[index] = ChoiceRewriter(parser, self._settings)
        return choice


def _peek(chunk: Any) -> tuple[int, Any, str] | None:
    """(the choice's index, the choice, its content) for an SDK chunk of one choice that
    carries content and no finish_reason or tool_calls of its own: a chunk whose output
    may be the same object. Read by attribute (dicts take `_feed_dict`)."""
    if isinstance(chunk, Mapping):
        return None
    choices = getattr(chunk, "choices", None)
    if type(choices) is not list or len(choices) != 1:
        return None
    choice = choices[0]
    delta = getattr(choice, "delta", None)
    index = getattr(choice, "index", None)
    if delta is None or getattr(choice, "finish_reason", 0) is not None \
            or type(index) is not int or getattr(delta, "tool_calls", 0) is not None:
        return None
    content = getattr(delta, "content", None)
    return (index, choice, content) if type(content) is str and content else None
