"""Helpers for the export tests (SPEC 12): llguidance's matcher with a byte tokenizer,
random walks through its token masks, and tools inferred from a corpus block's calls."""

from __future__ import annotations

import functools
import random
import re
from typing import Any

import llguidance

EOS = 256


class _ByteTokens:
    """A tokenizer whose tokens are the 256 bytes, and an end-of-sequence token."""

    eos_token_id = EOS
    bos_token_id = None
    tokens = [bytes([i]) for i in range(256)] + [b"<eos>"]
    special_token_ids = [EOS]

    def __call__(self, text: str | bytes) -> list[int]:
        return list(text.encode() if isinstance(text, str) else text)


TOKENIZER = llguidance.LLTokenizer(llguidance.TokenizerWrapper(_ByteTokens()))


def compiled(lark: str) -> str:
    """The grammar as llguidance takes it; fails the test when llguidance refuses it."""
    grammar = llguidance.grammar_from("lark", lark)
    failed, warnings = llguidance.LLMatcher.validate_grammar_with_warnings(grammar, TOKENIZER)
    assert not failed and not warnings, warnings
    return grammar


def accepts(grammar: str, text: str) -> bool:
    """Whether the matcher takes `text` byte by byte and may end there."""
    matcher = llguidance.LLMatcher(TOKENIZER, grammar)
    return matcher.consume_tokens(list(text.encode())) and matcher.is_accepting()


def committed(grammar: str, prose: str, block: str) -> str:
    """The shortest start of `block` that, written after `prose`, leaves the matcher no
    way to end: the block's opening tag as far as the grammar must go on with a block
    (`<tool_call>`, but all of `<|open|>tools<|sep|>`, whose first `>` is in the middle)."""
    matcher = llguidance.LLMatcher(TOKENIZER, grammar)
    assert matcher.consume_tokens(list(prose.encode())), matcher.get_error()
    for end, char in enumerate(block, 1):
        assert matcher.consume_tokens(list(char.encode())), matcher.get_error()
        if not matcher.is_accepting():
            return block[:end]
    return block


_LIKED = frozenset(b'<>/"{}[]:,\n 0123456789abcdefghijklmnoprstuvw_|=.-\\')
_CLOSING = frozenset(b'<>/"}]\n|_')
_SPACES = frozenset(b' \t\n\r\x0b\x0c')


def walk(grammar: str, rng: random.Random, *, eos: float = 0.15, limit: int = 1500,
         prose: int = 0, prefix: str = "") -> str | None:
    """A text drawn through the matcher's token masks (None: not ended within `limit`
    bytes). Mostly characters of markup and JSON, then mostly closing ones, so that
    walks end; the end is taken with probability `eos` where allowed, never within the
    first `prose` bytes unless it is the only way on. `prefix` is written first. After
    150 bytes a walk leaves loops of spaces and tries whole tags (`_tags`), so that it
    ends."""
    matcher = llguidance.LLMatcher(TOKENIZER, grammar)
    out = bytearray(prefix.encode())
    assert matcher.consume_tokens(list(out)), matcher.get_error()
    for _ in range(limit):
        mask = matcher.compute_bitmask()
        allowed = [i for i in range(EOS + 1) if mask[i // 8] >> (i % 8) & 1]
        pool = [a for a in allowed if a != EOS]
        if EOS in allowed and (not pool or (len(out) >= prose and rng.random() < eos)):
            return out.decode()
        if not pool:
            return None
        liked = [a for a in pool if a in (_CLOSING if len(out) > 150 else _LIKED)]
        if len(out) > 150 and set(liked) <= _SPACES and rng.random() < 0.5:
            liked = [a for a in pool if a not in _SPACES] or liked  # out of a loop of spaces
        token = rng.choice(liked if liked and rng.random() < 0.9 else pool)
        tags = [t for t in _tags(grammar) if t[0] == token] if len(out) > 150 else []
        tag = rng.choice(tags) if tags and rng.random() < 0.5 else [token]
        if matcher.validate_tokens(tag) < len(tag):  # a whole closing tag, where it fits
            tag = [token]
        assert matcher.consume_tokens(tag), matcher.get_error()
        out += bytes(tag)
    return None


@functools.cache
def _tags(grammar: str) -> tuple[list[int], ...]:
    """The literal runs of the grammar's patterns that start with `<`, as bytes: what a
    long walk tries to write whole, so that a raw value ends (a walk of single bytes
    almost never spells `</steptml:parameter>` inside free text)."""
    found = set()
    for run in re.findall(r"(?:\\x\{[0-9A-F]+\}|[A-Za-z0-9_])+", grammar):
        text = re.sub(r"\\x\{([0-9A-F]+)\}", lambda m: chr(int(m.group(1), 16)), run)
        if text.startswith("<") and len(text) > 2:
            found.add(text)
    return tuple(list(t.encode()) for t in sorted(found))


def _schema_of(value: Any) -> dict[str, Any]:
    if isinstance(value, bool):
        return {"type": "boolean"}
    if isinstance(value, int):
        return {"type": "integer"}
    if isinstance(value, float):
        return {"type": "number"}
    if isinstance(value, str):
        return {"type": "string"}
    if value is None:
        return {"type": "null"}
    if isinstance(value, list):
        items = _merge([_schema_of(v) for v in value]) if value else {"type": "string"}
        return {"type": "array", "items": items}
    properties = {k: _schema_of(v) for k, v in value.items()}
    return {"type": "object", "properties": properties, "required": list(properties)}


def _merge(schemas: list[dict[str, Any]]) -> dict[str, Any]:
    first = schemas[0]
    if all(s == first for s in schemas):
        return first
    return {"anyOf": _unique(schemas)}


def _unique(schemas: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for schema in schemas:
        if schema not in out:
            out.append(schema)
    return out


def tools_of(calls: list[tuple[str, dict[str, Any]]]) -> list[dict[str, Any]]:
    """Tool definitions that every one of `calls` (name, arguments) satisfies: the keys in
    the order first seen, those present in every call required."""
    tools: dict[str, list[dict[str, Any]]] = {}
    for name, arguments in calls:
        tools.setdefault(name, []).append(arguments)
    out = []
    for name, argument_sets in tools.items():
        keys: list[str] = []
        for arguments in argument_sets:
            keys += [k for k in arguments if k not in keys]
        properties = {k: _merge([_schema_of(a[k]) for a in argument_sets if k in a])
                      for k in keys}
        required = [k for k in keys if all(k in a for a in argument_sets)]
        out.append({"name": name, "parameters": {"type": "object", "properties": properties,
                                                 "required": required}})
    return out
