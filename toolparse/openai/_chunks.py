"""Chunks and completions as data: dicts or openai SDK objects in, the same kind out.

The adapter works on plain mappings. An SDK object (anything with `model_dump()`) is
dumped with `exclude_unset=True`, so the fields it did not have stay absent and
unknown fields come along; the output is built back with the input's own class
(`model_validate`, so it round-trips). Nothing here imports the openai package.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from toolparse._errors import ChunkFormatError
from toolparse.openai._choice import Piece, Thought

__all__ = ["as_data", "checked_choices", "choice_outputs", "same_kind", "split_chunk"]

_OWN_CHOICE_FIELDS = frozenset({"index", "delta", "finish_reason"})
_OWN_DELTA_FIELDS = frozenset({"content", "tool_calls"})


def as_data(obj: Any, what: str) -> tuple[Mapping[str, Any], type | None]:
    """`obj` as a mapping, and the SDK class to rebuild it with (None for a mapping)."""
    if isinstance(obj, Mapping):
        return obj, None
    dump = getattr(obj, "model_dump", None)
    if callable(dump):
        data = dump(exclude_unset=True)
        if isinstance(data, Mapping):
            return data, type(obj)
    raise ChunkFormatError(f"{what} must be a mapping or an openai SDK object "
                           f"(with model_dump()), not {type(obj).__name__}")


def same_kind(data: dict[str, Any], kind: type | None) -> Any:
    """`data` as the input's kind: the dict itself, or an object of the SDK class."""
    if kind is None:
        return data
    try:
        return kind.model_validate(data)  # type: ignore[attr-defined]
    except ValueError:
        # A value the class's types do not list (a new finish_reason, say) came in on
        # an object the SDK built without validating; build the output the same way.
        return kind.model_construct(**data)  # type: ignore[attr-defined]


def checked_choices(data: Mapping[str, Any], body: str) -> list[Mapping[str, Any]]:
    """The `choices` of a chunk or completion, each checked for shape (before any of
    them changes a parser, so a bad chunk changes nothing). `body` is `delta` for a
    chunk and `message` for a completion."""
    choices = data.get("choices")
    if choices is None:
        return []
    if not isinstance(choices, list):
        raise ChunkFormatError(f"choices must be a list, not {type(choices).__name__}")
    for position, choice in enumerate(choices):
        where = f"choices[{position}]"
        if not isinstance(choice, Mapping):
            raise ChunkFormatError(f"{where} must be an object, not {type(choice).__name__}")
        index = choice.get("index", 0)
        if type(index) is not int:
            raise ChunkFormatError(f"{where}.index must be an integer, not {index!r}")
        inner = choice.get(body)
        if inner is None:
            continue
        if not isinstance(inner, Mapping):
            raise ChunkFormatError(f"{where}.{body} must be an object, not {type(inner).__name__}")
        content = inner.get("content")
        if content is not None and not isinstance(content, str):
            raise ChunkFormatError(f"{where}.{body}.content must be a string or null, "
                                   f"not {type(content).__name__}")
        calls = inner.get("tool_calls")
        if calls is not None and not isinstance(calls, list):
            raise ChunkFormatError(f"{where}.{body}.tool_calls must be a list or null, "
                                   f"not {type(calls).__name__}")
    return choices


def choice_outputs(choice: Mapping[str, Any], delta: Mapping[str, Any],
                   pieces: Sequence[Piece], finish: str | None,
                   reasoning_field: str = "reasoning_content") -> list[dict[str, Any]]:
    """The output choices for one input choice: one per piece, in order. The first
    carries the fields passed through (role, reasoning_content, logprobs, unknown
    ones), the last the finish_reason. None when the choice has nothing to say. A
    reasoning piece goes out in `reasoning_field` (after any the upstream sent in the
    same delta: an upstream that splits reasoning keeps its own)."""
    index = choice.get("index", 0)
    extra_delta = {key: value for key, value in delta.items() if key not in _OWN_DELTA_FIELDS}
    extra_choice = {key: value for key, value in choice.items()
                    if key not in _OWN_CHOICE_FIELDS}
    if not pieces:
        if finish is None and _all_none(extra_delta) and _all_none(extra_choice):
            return []
        pieces = [""] if isinstance(delta.get("content"), str) else [None]  # type: ignore[list-item]
    outputs: list[dict[str, Any]] = []
    last = len(pieces) - 1
    for position, piece in enumerate(pieces):
        out_delta = dict(extra_delta) if position == 0 else {}
        if isinstance(piece, str):
            out_delta["content"] = piece
        elif isinstance(piece, Thought):
            before = out_delta.get(reasoning_field)
            out_delta[reasoning_field] = (before if isinstance(before, str) else "") + piece.text
        elif piece is not None:
            out_delta["tool_calls"] = piece
        elif "content" in delta:
            out_delta["content"] = None
        out: dict[str, Any] = {"index": index}
        if position == 0:
            out.update(extra_choice)
        elif "logprobs" in choice:
            out["logprobs"] = None
        out["delta"] = out_delta
        out["finish_reason"] = finish if position == last else None
        outputs.append(out)
    return outputs


def split_chunk(data: Mapping[str, Any], per_choice: Sequence[list[dict[str, Any]]],
                kind: type | None) -> list[Any]:
    """Output chunks for one input chunk: the k-th holds each choice's k-th output,
    under the input's envelope (id, created, model, ...). `usage` rides on the last."""
    count = max((len(outputs) for outputs in per_choice), default=0)
    usage = data.get("usage")
    if count == 0:
        if usage is None:
            return []
        count = 1
    envelope = {key: value for key, value in data.items() if key != "choices"}
    chunks = []
    for position in range(count):
        chunk = dict(envelope)
        chunk["choices"] = [outputs[position] for outputs in per_choice
                            if position < len(outputs)]
        if position < count - 1 and "usage" in chunk:
            chunk["usage"] = None
        chunks.append(same_kind(chunk, kind))
    return chunks


def _all_none(fields: Mapping[str, Any]) -> bool:
    return all(value is None for value in fields.values())
