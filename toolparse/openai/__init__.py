"""OpenAI chat completions with tool calls written as text, rewritten as `tool_calls`
(SPEC 8).

For gateways that put a raw-text model (one whose tool calls arrive as markup inside
`delta.content`) behind the OpenAI chat-completions API::

    from toolparse.openai import rewrite_stream

    upstream = client.chat.completions.create(..., stream=True)
    for chunk in rewrite_stream(upstream, tools=request_tools):
        send(chunk)           # delta.content: the text; delta.tool_calls: the calls

Dicts or openai SDK objects in, the same kind out (the openai package is never
imported here: SDK outputs are built with the input's own class). Pure: no I/O.

- One parser per choice index (choices may interleave). `delta.content` keeps the
  text; each forwarded call becomes `delta.tool_calls` entries whose `index` counts the
  choice's calls from 0. By default a call goes out whole when its block has parsed
  and passed `on_rejected`; `stream_arguments=True` (over `StreamParser(incremental=True)`)
  sends a call's id and name as soon as its tag is read, then its arguments in pieces,
  the closing `}` when the block is confirmed (docs/openai.md: the trade).
- `finish_reason`: `tool_calls` when the choice forwarded a call and the upstream said
  `stop`; anything else passes through (`length` included). A stream that ends inside
  an open block sends the block as text.
- `on_rejected` (a block with a rejected call): `"content"` (none of its calls goes
  out; its raw text is content), `"drop"` (its other calls go out), `"keep"` (all go
  out: an explicit opt-in to forwarding calls that failed their schema).
- Reasoning (SPEC 11: `<think>...</think>` at the start of the content, or the
  dialect's own format) goes out as `delta.reasoning_content` (`reasoning_field=`
  names another field), never as content; an upstream that already splits reasoning
  keeps its own field, and only its content is parsed.
- `role`, `reasoning_content`, `usage`, `logprobs` and unknown fields pass through.
  Content out plus the raw text of every forwarded block and reasoning region equals
  content in.
"""

from __future__ import annotations

from collections.abc import AsyncIterable, AsyncIterator, Callable, Iterable, Iterator
from typing import Any, TypeVar

from toolparse._calls import ToolDefinitions
from toolparse._dialect import Dialect
from toolparse._errors import ChunkFormatError
from toolparse.openai._completion import rewrite_whole
from toolparse.openai._parsers import OnRejected, settings_from
from toolparse.openai._rewriter import StreamRewriter

__all__ = ["ChunkFormatError", "OnRejected", "StreamRewriter", "arewrite_stream",
           "rewrite_completion", "rewrite_stream", "stream_rewriter"]

ChunkT = TypeVar("ChunkT")
CompletionT = TypeVar("CompletionT")


def stream_rewriter(*, tools: ToolDefinitions | None = None,
                    dialect: str | Dialect = "deepseek", stream_arguments: bool = False,
                    on_rejected: OnRejected = "content",
                    id_factory: Callable[[], str] | None = None,
                    reasoning_field: str = "reasoning_content",
                    **parser_options: Any) -> StreamRewriter[Any]:
    """A `StreamRewriter` for one stream, for push-style loops (`feed(chunk)` per
    chunk, `close()` at the end). Options as `rewrite_stream`; they are checked here
    (`SchemaError` for a bad tool schema, `ConfigError` for a bad option)."""
    return StreamRewriter(settings_from(
        tools=tools, dialect=dialect, stream_arguments=stream_arguments,
        on_rejected=on_rejected, id_factory=id_factory, parser_options=parser_options,
        reasoning_field=reasoning_field))


def rewrite_stream(chunks: Iterable[ChunkT], *, tools: ToolDefinitions | None = None,
                   dialect: str | Dialect = "deepseek", stream_arguments: bool = False,
                   on_rejected: OnRejected = "content",
                   id_factory: Callable[[], str] | None = None,
                   reasoning_field: str = "reasoning_content",
                   **parser_options: Any) -> Iterator[ChunkT]:
    """Rewrite a stream of `chat.completion.chunk`s (dicts or SDK objects): tool-call
    markup in `delta.content` becomes `delta.tool_calls`, and a reasoning region
    (SPEC 11) goes out in `delta.reasoning_content` (`reasoning_field` names another
    field, such as vLLM's newer `reasoning`), never as content. Options are checked at
    the call, before the first chunk is read. `parser_options` go to `StreamParser`
    (`max_capture`, `model`, `repair`, `reasoning`, `in_reasoning`)."""
    rewriter = stream_rewriter(tools=tools, dialect=dialect,
                               stream_arguments=stream_arguments, on_rejected=on_rejected,
                               id_factory=id_factory, reasoning_field=reasoning_field,
                               **parser_options)
    return _rewritten(chunks, rewriter)


def arewrite_stream(chunks: AsyncIterable[ChunkT], *, tools: ToolDefinitions | None = None,
                    dialect: str | Dialect = "deepseek", stream_arguments: bool = False,
                    on_rejected: OnRejected = "content",
                    id_factory: Callable[[], str] | None = None,
                    reasoning_field: str = "reasoning_content",
                    **parser_options: Any) -> AsyncIterator[ChunkT]:
    """`rewrite_stream` for an async iterable (such as `AsyncOpenAI`'s stream)."""
    rewriter = stream_rewriter(tools=tools, dialect=dialect,
                               stream_arguments=stream_arguments, on_rejected=on_rejected,
                               id_factory=id_factory, reasoning_field=reasoning_field,
                               **parser_options)
    return _arewritten(chunks, rewriter)


def rewrite_completion(completion: CompletionT, *, tools: ToolDefinitions | None = None,
                       dialect: str | Dialect = "deepseek",
                       on_rejected: OnRejected = "content",
                       id_factory: Callable[[], str] | None = None,
                       reasoning_field: str = "reasoning_content",
                       **parser_options: Any) -> CompletionT:
    """Rewrite a non-streaming `chat.completion` (a dict or an SDK `ChatCompletion`):
    each choice's calls move from `message.content` to `message.tool_calls`, and its
    reasoning (SPEC 11) to `message.reasoning_content` (or `reasoning_field`)."""
    settings = settings_from(tools=tools, dialect=dialect, stream_arguments=False,
                             on_rejected=on_rejected, id_factory=id_factory,
                             parser_options=parser_options, reasoning_field=reasoning_field)
    result: CompletionT = rewrite_whole(completion, settings)
    return result


def _rewritten(chunks: Iterable[ChunkT], rewriter: StreamRewriter[Any]) -> Iterator[ChunkT]:
    feed = rewriter.feed
    for chunk in chunks:
        out = feed(chunk)
        if len(out) == 1:
            yield out[0]
        else:
            yield from out
    yield from rewriter.close()


async def _arewritten(chunks: AsyncIterable[ChunkT],
                      rewriter: StreamRewriter[Any]) -> AsyncIterator[ChunkT]:
    async for chunk in chunks:
        for out in rewriter.feed(chunk):
            yield out
    for out in rewriter.close():
        yield out
