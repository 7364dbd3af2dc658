"""Helpers shared by the adapter and server tests (no tests here): OpenAI-shaped
chunks for a text, the view an OpenAI client builds from a stream, and the view SPEC 8
says `parse()` implies."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import toolparse

TOOLS = [
    {"type": "function", "function": {
        "name": "read_file", "description": "Read a file.",
        "parameters": {"type": "object", "properties": {"path": {"type": "string"}},
                       "required": ["path"]}}},
    {"type": "function", "function": {
        "name": "add", "parameters": {
            "type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
            "required": ["a", "b"]}}},
]


def call_text(name: str, **params: str) -> str:
    body = "".join(f'<parameter name="{key}">{value}</parameter>\n' for key, value in params.items())
    return f'<tool_calls>\n<invoke name="{name}">\n{body}</invoke>\n</tool_calls>'


def counter_ids() -> Callable[[], str]:
    numbers = itertools.count()
    return lambda: f"call_{next(numbers)}"


def envelope(**extra: Any) -> dict[str, Any]:
    return {"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1700000000,
            "model": "deepseek-v3", **extra}


def chunk(index: int = 0, finish: str | None = None, **delta: Any) -> dict[str, Any]:
    return envelope(choices=[{"index": index, "delta": delta, "finish_reason": finish}])


def chunks_for(pieces: Sequence[str], finish: str | None = "stop", index: int = 0,
               role: bool = True) -> list[dict[str, Any]]:
    """The chunks an upstream sends for `pieces` of content: a role chunk, one chunk
    per piece, a finish chunk (none when `finish` is None)."""
    out = [chunk(index, role="assistant", content="")] if role else []
    out += [chunk(index, content=piece) for piece in pieces]
    if finish is not None:
        out.append(chunk(index, finish))
    return out


def completion_for(text: str, finish: str = "stop") -> dict[str, Any]:
    return {"id": "chatcmpl-1", "object": "chat.completion", "created": 1700000000,
            "model": "deepseek-v3",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": text},
                         "finish_reason": finish, "logprobs": None}],
            "usage": {"prompt_tokens": 5, "completion_tokens": 7, "total_tokens": 12}}


@dataclass
class ChoiceView:
    """What an OpenAI client accumulates for one choice."""

    content: str = ""
    calls: dict[int, dict[str, str]] = field(default_factory=dict)
    finish: str | None = None
    ordered: list[tuple[str, str]] = field(default_factory=list)
    """("content", text) and ("call", id) in the order they arrived."""

    def call_list(self) -> list[tuple[str, str, str]]:
        return [(c["id"], c["name"], c["arguments"]) for _, c in sorted(self.calls.items())]


def as_dict(obj: Any) -> dict[str, Any]:
    if isinstance(obj, dict):
        return obj
    dumped: dict[str, Any] = obj.model_dump(exclude_unset=True)
    return dumped


def client_view(chunks: Iterable[Any]) -> dict[int, ChoiceView]:
    """Accumulate a stream as an OpenAI client does: content concatenated, tool calls
    gathered by index (the first entry names the call, later ones extend its
    arguments)."""
    views: dict[int, ChoiceView] = {}
    for item in chunks:
        for choice in as_dict(item).get("choices") or []:
            view = views.setdefault(choice["index"], ChoiceView())
            delta = choice.get("delta") or {}
            if delta.get("content"):
                view.content += delta["content"]
                view.ordered.append(("content", delta["content"]))
            for entry in delta.get("tool_calls") or []:
                call = view.calls.setdefault(entry["index"], {"id": "", "name": "", "arguments": ""})
                function = entry.get("function") or {}
                if entry.get("id"):
                    call["id"] = entry["id"]
                    view.ordered.append(("call", entry["id"]))
                call["name"] += function.get("name") or ""
                call["arguments"] += function.get("arguments") or ""
            if choice.get("finish_reason") is not None:
                assert view.finish is None, "two finish reasons for one choice"
                view.finish = choice["finish_reason"]
    return views


def forwarded(block: toolparse.ToolCallBlock, on_rejected: str) -> list[toolparse.ToolCall]:
    """SPEC 8's policy: the calls of a block that go out."""
    if block.accepted or on_rejected == "keep":
        return list(block.calls)
    if on_rejected == "drop":
        return [call for call in block.calls if call.accepted]
    return []


@dataclass
class Expected:
    content: str
    calls: list[tuple[str, str, str]]
    blocks: dict[str, str]
    """First forwarded call id -> its block's raw text."""
    finish: str


def expected_view(text: str, on_rejected: str = "content", upstream: str = "stop",
                  **options: Any) -> Expected:
    """The client view `parse()` implies under SPEC 8 (ids from counter_ids())."""
    result = toolparse.parse(text, id_factory=counter_ids(), **options)
    content: list[str] = []
    calls: list[tuple[str, str, str]] = []
    blocks: dict[str, str] = {}
    for event in result.events:
        if isinstance(event, toolparse.Text):
            content.append(event.text)
            continue
        out = forwarded(event, on_rejected)
        if not out:
            content.append(event.raw)
            continue
        blocks[out[0].id] = event.raw
        calls += [(call.id, call.name, call.arguments_json) for call in out]
    finish = "tool_calls" if calls and upstream == "stop" else upstream
    return Expected("".join(content), calls, blocks, finish)


def rebuilt(view: ChoiceView, expected: Expected) -> str:
    """The content in, rebuilt from the stream in arrival order: each content piece,
    and each forwarded block's raw text where its first call arrived (SPEC 8: content
    out plus the raw of every forwarded block equals content in)."""
    return "".join(value if kind == "content" else expected.blocks.get(value, "")
                   for kind, value in view.ordered)
