"""`rewrite_completion`: one non-streaming chat.completion, rewritten (SPEC 8).

Each choice's `message.content` is parsed whole. The text stays the content; the
forwarded calls are appended to `message.tool_calls` (after any the upstream sent), and
the reasoning (SPEC 11) to the message's reasoning field (`reasoning_content`);
`finish_reason` follows the streaming rules. When only calls remain and no text, the
content is `null`, as OpenAI sends it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from toolparse.openai import _parsers
from toolparse.openai._choice import ChoiceRewriter, Pieces, Thought
from toolparse.openai._chunks import as_data, checked_choices, same_kind
from toolparse.openai._parsers import Settings

__all__ = ["rewrite_whole"]


def rewrite_whole(completion: Any, settings: Settings) -> Any:
    """The completion with each choice's message rewritten; the same kind as given."""
    data, kind = as_data(completion, "a chat.completion")
    choices = checked_choices(data, "message")
    if not choices:
        return completion
    # Built before any choice is read, so bad options raise whatever the completion.
    spare: _parsers.ParserLike | None = _parsers.make_parser(settings)
    rewritten = []
    for choice in choices:
        parser, spare = spare or _parsers.make_parser(settings), None
        rewritten.append(_rewrite_choice(choice, ChoiceRewriter(parser, settings),
                                         settings.reasoning_field))
    return same_kind({**data, "choices": rewritten}, kind)


def _rewrite_choice(choice: Mapping[str, Any], rewriter: ChoiceRewriter,
                    reasoning_field: str) -> dict[str, Any]:
    message = choice.get("message")
    if message is None or not isinstance(message.get("content"), str):
        return dict(choice)
    out = Pieces()
    rewriter.feed(message["content"], out)
    rewriter.close(out)
    text = "".join(piece for piece in out.items if isinstance(piece, str))
    calls = [{key: value for key, value in entry.items() if key != "index"}
             for piece in out.items if isinstance(piece, list) for entry in piece]
    thinking = "".join(piece.text for piece in out.items if isinstance(piece, Thought))
    new_message = dict(message)
    new_message["content"] = None if calls and not text else text
    if thinking:  # after any reasoning the upstream split off itself (SPEC 8)
        before = message.get(reasoning_field)
        new_message[reasoning_field] = (before if isinstance(before, str) else "") + thinking
    if calls:
        new_message["tool_calls"] = list(message.get("tool_calls") or []) + calls
    new_choice = dict(choice)
    new_choice["message"] = new_message
    new_choice["finish_reason"] = rewriter.finish_reason(choice.get("finish_reason"))
    return new_choice
