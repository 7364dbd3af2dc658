"""What the vLLM tests share: a real Hugging Face tokenizer made here, vLLM's own request,
parser composition and stream processor, and what a client accumulates.

Imported by `test_vllm*.py` only after their module-level `pytest.importorskip("vllm")`
(or, with TOOLPARSE_REQUIRE_VLLM set, a plain import that fails the run).

The tokenizer is built from the `tokenizers` package: a byte-level vocabulary (every text
has token ids) with the given markup added as special tokens, wrapped as transformers'
`PreTrainedTokenizerFast`, the class vLLM serves Hugging Face models with. Nothing is
loaded from a hub.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import tokenizers
from tokenizers import decoders, models, pre_tokenizers
from transformers import PreTrainedTokenizerFast
from vllm.entrypoints.openai.chat_completion.message_assembly import (
    assemble_chat_message_fields,
)
from vllm.entrypoints.openai.chat_completion.protocol import ChatCompletionRequest
from vllm.entrypoints.openai.chat_completion.stream_processor import ChatStreamProcessor
from vllm.parser import ParserManager

import toolparse
from toolparse.vllm_plugin._common import dialect_terminals, format_terminals
from toolparse.vllm_plugin._reasoning import marker_formats

PROMPT = "<|im_start|>user\nWhat now?<|im_end|>\n<|im_start|>assistant\n"
"""The rendered prompt the tests' answers follow (a ChatML-like header)."""


def make_tokenizer(specials: Iterable[str]) -> PreTrainedTokenizerFast:
    """A byte-level BPE tokenizer with no merges (a token per byte) and `specials` added
    as special tokens."""
    alphabet = sorted(pre_tokenizers.ByteLevel.alphabet())
    model = models.BPE(vocab={ch: i for i, ch in enumerate(alphabet)}, merges=[])
    inner = tokenizers.Tokenizer(model)
    inner.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)
    inner.decoder = decoders.ByteLevel()
    tokenizer = PreTrainedTokenizerFast(tokenizer_object=inner)
    wanted = sorted({token for token in specials if token})
    if wanted:
        tokenizer.add_special_tokens({"additional_special_tokens": wanted})
    return tokenizer


@functools.cache
def markup_tokenizer(dialect: str) -> PreTrainedTokenizerFast:
    """A tokenizer whose special tokens are every literal of the dialect's grammars and
    every reasoning marker: the case where the markup is special tokens."""
    terminals = dialect_terminals(toolparse.Dialect.bundled(dialect)) + format_terminals(
        toolparse.ReasoningFormat.bundled(name) for name in marker_formats())
    return make_tokenizer(literal for _regexp, literal in terminals if literal)


class Ids:
    """Token ids of texts, by one tokenizer (cached: the deltas of a stream repeat)."""

    def __init__(self, tokenizer: PreTrainedTokenizerFast) -> None:
        self.tokenizer = tokenizer
        self._cache: dict[str, list[int]] = {}

    def __call__(self, text: str) -> list[int]:
        ids = self._cache.get(text)
        if ids is None:
            ids = self._cache[text] = list(self.tokenizer.encode(text, add_special_tokens=False))
        return ids


def request(tools: Sequence[dict[str, Any]] | None, **fields: Any) -> ChatCompletionRequest:
    """vLLM's own chat request (validated as vLLM validates a client's)."""
    body: dict[str, Any] = {"model": "m", "messages": [{"role": "user", "content": "What now?"}]}
    if tools is not None:
        body["tools"] = list(tools)
    body.update(fields)
    return ChatCompletionRequest(**body)


def openai_tools(tools: Sequence[Any]) -> list[dict[str, Any]]:
    """Tool definitions in the Chat Completions shape."""
    shaped = []
    for tool in tools:
        if "function" in tool:
            shaped.append(tool)
        else:
            shaped.append({"type": "function", "function": {
                "name": tool["name"], "parameters": tool.get("parameters", {"type": "object"})}})
    return shaped


def composed(tool_parser: str | None, reasoning_parser: str | None,
             tokenizer: PreTrainedTokenizerFast) -> Any:
    """vLLM's composed `Parser` class for the two names, as `vllm serve` builds it
    (validated against the tokenizer)."""
    return ParserManager.get_parser(tool_parser_name=tool_parser,
                                    reasoning_parser_name=reasoning_parser,
                                    enable_auto_tools=True, tokenizer=tokenizer)


@dataclass
class Reply:
    """What a client has when the answer is over."""

    content: str = ""
    reasoning: str = ""
    calls: list[dict[str, Any]] = field(default_factory=list)
    finish_reason: str | None = None

    def view(self) -> tuple[str, str, list[tuple[str, str]]]:
        return self.content, self.reasoning, [(c["name"], c["arguments"]) for c in self.calls]


def accumulate(reply: Reply, delta: Any) -> None:
    """Add one `DeltaMessage` to a client's view, by OpenAI's rules: content and
    reasoning appended; a tool-call entry with an id starts a call at its index, the
    others add to the arguments of the call at theirs."""
    if delta is None:
        return
    reply.content += delta.content or ""
    reply.reasoning += delta.reasoning or ""
    for entry in delta.tool_calls or ():
        function = entry.function
        if entry.id is not None:
            assert entry.index == len(reply.calls), (entry, reply.calls)
            assert function is not None and function.name, entry
            reply.calls.append({"id": entry.id, "name": function.name,
                                "arguments": function.arguments or ""})
        else:
            assert function is not None and function.name is None, entry
            reply.calls[entry.index]["arguments"] += function.arguments or ""


def streamed(parser_class: Any, chat: ChatCompletionRequest, ids: Ids, deltas: Sequence[str],
             prompt: str = PROMPT) -> Reply:
    """The answer `deltas` through vLLM's own stream processing: one parser for the
    request (as vLLM's renderer, `adjust_request` on one of its own first), then
    `ChatStreamProcessor.step` per delta, the last with `finish_reason="stop"`."""
    tokenizer = ids.tokenizer
    chat = parser_class(tokenizer, chat.tools, chat_template_kwargs={}).adjust_request(chat)
    parser = parser_class(tokenizer, chat.tools, chat_template_kwargs={})
    processor = ChatStreamProcessor(chat, parser, enable_auto_tools=True,
                                    parser_cls=parser_class)
    prompt_ids = ids(prompt)
    reply = Reply()
    for n, delta in enumerate(deltas):
        last = n == len(deltas) - 1
        step = processor.step(delta, ids(delta), "stop" if last else None, prompt_ids)
        accumulate(reply, step.delta)
        if last:
            reply.finish_reason = step.finish_reason
    return reply


def whole(parser_class: Any, chat: ChatCompletionRequest, ids: Ids, text: str,
          prompt: str = PROMPT) -> Reply:
    """The answer through vLLM's non-streaming path (`Parser.parse`, then the message
    fields as vLLM assembles them)."""
    tokenizer = ids.tokenizer
    chat = parser_class(tokenizer, chat.tools, chat_template_kwargs={}).adjust_request(chat)
    parser = parser_class(tokenizer, chat.tools, chat_template_kwargs={})
    parser.set_prompt_token_ids(ids(prompt))
    reasoning, content, calls = parser.parse(text, chat, enable_auto_tools=True,
                                             model_output_token_ids=ids(text))
    fields = assemble_chat_message_fields(chat, reasoning, content, calls,
                                          enable_auto_tools=True, parser_cls=parser_class)
    return Reply(content=fields.content or "", reasoning=fields.reasoning or "",
                 calls=[{"id": call.id, "name": call.function.name,
                         "arguments": call.function.arguments} for call in fields.tool_calls])


def expected(text: str, *, dialect: str, tools: Sequence[Any] | None, reasoning: str | None,
             in_reasoning: bool = False, regions_as_content: bool = False) -> Reply:
    """What `toolparse.parse` says the client must get (SPEC 8, `on_rejected="content"`):
    text, and the raw text of blocks not accepted or of no call, as content (nothing
    is forwarded of them, and content out plus the raw of every forwarded call is the
    text in); accepted calls; the reasoning, or its raw text as content where vLLM
    reads no reasoning."""
    result = toolparse.parse(text, dialect=dialect, tools=tools, reasoning=reasoning,
                             in_reasoning=in_reasoning)
    reply = Reply()
    for event in result.events:
        if isinstance(event, toolparse.Text):
            reply.content += event.text
        elif isinstance(event, toolparse.Reasoning):
            if regions_as_content:
                reply.content += event.raw
            else:
                reply.reasoning += event.text
        elif isinstance(event, toolparse.ToolCallBlock):
            if event.accepted and tools and event.calls:
                reply.calls.extend({"id": call.id, "name": call.name,
                                    "arguments": call.arguments_json} for call in event.calls)
            else:
                reply.content += event.raw
    reply.finish_reason = "tool_calls" if reply.calls else "stop"
    return reply


def permissive_tools(text: str, dialect: str, reasoning: str | None = "auto",
                     in_reasoning: bool = False) -> list[dict[str, Any]]:
    """A tool for every name the answer calls, taking any object: so that vLLM keeps the
    calls (it needs `tools`), and every call is accepted as `parse()` without tools
    would give it, but typed by a schema."""
    # (A rejected call may have no name, `not_a_call`: no tool can be named after it.)
    names = {call.name for call in toolparse.parse(text, dialect=dialect, reasoning=reasoning,
                                                   in_reasoning=in_reasoning).calls
             if isinstance(call.name, str) and call.name}
    names.add("unused_tool")
    return [{"type": "function", "function": {"name": name, "parameters": {"type": "object"}}}
            for name in sorted(names)]


def same_arguments(a: str, b: str) -> bool:
    return json.loads(a) == json.loads(b)
