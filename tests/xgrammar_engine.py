"""Helpers for the structural-tag tests (SPEC 12): xgrammar's own compiler and matcher
with a byte tokenizer built here, and random walks through its token masks (the same
walk as `export_engine.walk`, for llguidance).

xgrammar is in the vLLM environment only (its wheel pulls torch): the tests that
import this module skip elsewhere unless TOOLPARSE_REQUIRE_VLLM is set."""

from __future__ import annotations

import functools
import json
import random
import re

import xgrammar

EOS = 256
_VOCAB = [bytes([i]) for i in range(256)] + [b"</s>"]
TOKENIZER = xgrammar.TokenizerInfo(_VOCAB, vocab_type=xgrammar.VocabType.RAW,
                                   stop_token_ids=[EOS])
COMPILER = xgrammar.GrammarCompiler(TOKENIZER, cache_enabled=False)

_LIKED = frozenset(b'<>/"{}[]:,\n 0123456789abcdefghijklmnoprstuvw_|=.-\\')
_CLOSING = frozenset(b'<>/"}]\n|_')
_SPACES = frozenset(b' \t\n\r\x0b\x0c')


def compiled(tag: str) -> xgrammar.CompiledGrammar:
    """The structural tag (JSON text) compiled by xgrammar; fails the test if refused."""
    return COMPILER.compile_structural_tag(tag)


def accepts(grammar: xgrammar.CompiledGrammar, text: str) -> bool:
    """Whether the matcher takes `text` byte by byte and may end there."""
    matcher = xgrammar.GrammarMatcher(grammar)
    return all(matcher.accept_token(b) for b in text.encode()) and matcher.accept_token(EOS)


def committed(grammar: xgrammar.CompiledGrammar, prose: str, block: str) -> str:
    """The shortest start of `block` that, written after `prose`, leaves the matcher no
    way to end: the block's opening tag as far as the grammar must go on with a block
    (`<tool_call>`, but all of `<|open|>tools<|sep|>`, whose first `>` is in the middle),
    as `export_engine.committed` finds it with llguidance."""
    matcher = xgrammar.GrammarMatcher(grammar)
    mask = xgrammar.allocate_token_bitmask(1, EOS + 1)
    assert all(matcher.accept_token(b) for b in prose.encode()), prose
    for end, char in enumerate(block, 1):
        assert all(matcher.accept_token(b) for b in char.encode()), block[:end]
        matcher.fill_next_token_bitmask(mask)
        if not mask[0].tolist()[EOS // 32] >> (EOS % 32) & 1:
            return block[:end]
    return block


def walk(grammar: xgrammar.CompiledGrammar, rng: random.Random, *, eos: float = 0.15,
         limit: int = 1500, prefix: str = "") -> str | None:
    """A text drawn through the matcher's token masks (None: not ended within `limit`
    bytes), as `export_engine.walk` draws one: after 150 bytes it leaves loops of spaces
    and tries whole tags (`_tags`), so that a raw value and a tag's padding end.
    `prefix` is written first."""
    matcher = xgrammar.GrammarMatcher(grammar)
    out = bytearray(prefix.encode())
    assert all(matcher.accept_token(b) for b in out), prefix
    mask = xgrammar.allocate_token_bitmask(1, EOS + 1)
    for _ in range(limit):
        matcher.fill_next_token_bitmask(mask)
        row = mask[0].tolist()
        allowed = [i for i in range(EOS + 1) if row[i // 32] >> (i % 32) & 1]
        pool = [a for a in allowed if a != EOS]
        if EOS in allowed and (not pool or rng.random() < eos):
            # As vLLM's detokenizer decodes: xgrammar 0.2.8 lets a JSON string with a
            # `pattern` take an overlong UTF-8 form (`E0 80 8E`), which is no character
            # (docs/export.md); it reaches the parser as U+FFFD.
            return out.decode(errors="replace")
        if not pool:
            return None
        liked = [a for a in pool if a in (_CLOSING if len(out) > 150 else _LIKED)]
        if len(out) > 150 and set(liked) <= _SPACES and rng.random() < 0.5:
            liked = [a for a in pool if a not in _SPACES] or liked  # out of a loop of spaces
        token = rng.choice(liked if liked and rng.random() < 0.9 else pool)
        tags = [t for t in _tags(grammar) if t[0] == token] if len(out) > 150 else []
        tag = rng.choice(tags) if tags and rng.random() < 0.5 else b""
        if tag and _takes(matcher, tag):   # a whole closing tag, where it fits
            out += tag
            continue
        assert matcher.accept_token(token)
        out.append(token)
    return None


def _takes(matcher: xgrammar.GrammarMatcher, text: bytes) -> bool:
    """Whether the matcher takes all of `text` (taken then); else it is left as it was."""
    for n, byte in enumerate(text):
        if not matcher.accept_token(byte):
            if n:
                matcher.rollback(n)
            return False
    return True


_LITERAL = re.compile(r'"((?:[^"\\]|\\.)*)"')


@functools.cache
def _tag_texts(text: str) -> tuple[bytes, ...]:
    found = set()
    for literal in _LITERAL.findall(text):
        try:
            value = json.loads(f'"{literal}"')
        except ValueError:
            continue
        if value.startswith("<") and len(value) > 2:
            found.add(value.encode())
    return tuple(sorted(found))


def _tags(grammar: xgrammar.CompiledGrammar) -> tuple[bytes, ...]:
    """The string literals of the compiled grammar (its EBNF text) that start with `<`:
    what a long walk tries to write whole (a walk of single bytes almost never spells
    `</steptml:parameter>` inside free text)."""
    return _tag_texts(str(grammar.grammar))
