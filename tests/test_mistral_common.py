"""mistral against Mistral's own library (SPEC 5.3, 11): `mistral-common` renders
assistant messages with calls, offline, with the Tekken vocabulary it ships, for each
tokenizer version whose calls are written differently (v3 and v7: one JSON list; v11:
`[TOOL_CALLS]N[CALL_ID]I[ARGS]{...}`; v13: `[TOOL_CALLS]N[ARGS]{...}` and Magistral's
`[THINK]`). toolparse reads back exactly the calls the library rendered, and the
reasoning and content around them, whole and in any chunking."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import mistral_common
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from mistral_common.protocol.instruct.messages import AssistantMessage, TextChunk, ThinkChunk
from mistral_common.protocol.instruct.tool_calls import FunctionCall, ToolCall
from mistral_common.tokens.tokenizers.base import SpecialTokenPolicy
from mistral_common.tokens.tokenizers.mistral import MistralTokenizer
from mistral_common.tokens.tokenizers.tekken import Tekkenizer

import toolparse
from toolparse.corpus.run import random_chunks

VERSIONS = ("v3", "v7", "v11", "v13")
# The special tokens the bundled (v3) vocabulary's file leaves to the defaults, and those
# the later versions add: a v11 or v13 file lists them itself.
ADDED = ("[ARGS]", "[CALL_ID]", "[THINK]", "[/THINK]")


@pytest.fixture(scope="module")
def tokenizers(tmp_path_factory: pytest.TempPathFactory) -> dict[str, MistralTokenizer]:
    """One tokenizer per version, over the vocabulary mistral-common ships (no download)."""
    folder = tmp_path_factory.mktemp("tekken")
    shipped = Path(mistral_common.__file__).parent / "data" / "tekken_240911.json"
    data = json.loads(shipped.read_text(encoding="utf-8"))
    names = [str(getattr(t["token_str"], "value", t["token_str"]))
             for t in Tekkenizer.DEPRECATED_SPECIAL_TOKENS] + list(ADDED)
    found = {}
    for version in VERSIONS:
        file = folder / f"tekken_{version}.json"
        file.write_text(json.dumps({
            **data, "config": {**data["config"], "version": version},
            "special_tokens": [{"rank": i, "token_str": n, "is_control": True}
                               for i, n in enumerate(names)]}), encoding="utf-8")
        found[version] = MistralTokenizer.from_file(str(file))
    return found


def render(tokenizer: MistralTokenizer, calls: list[tuple[str, dict[str, Any]]],
           content: str = "", thinking: str | None = None) -> str:
    """An assistant message as the library renders it, without the end-of-sequence token
    a server strips."""
    chunks: list[Any] = [ThinkChunk(thinking=thinking, closed=True)] if thinking else []
    if content:
        chunks.append(TextChunk(text=content))
    message = AssistantMessage(
        content=(chunks if thinking else content) or None,
        tool_calls=[ToolCall(id=f"c{i:08d}", function=FunctionCall(
            name=name, arguments=json.dumps(arguments, ensure_ascii=False)))
            for i, (name, arguments) in enumerate(calls)])
    instruct = tokenizer.instruct_tokenizer
    tokens = instruct.encode_assistant_message(message, False)
    text = instruct.tokenizer.decode(tokens, special_token_policy=SpecialTokenPolicy.KEEP)
    return str(text).removesuffix("</s>")


def reading(result: toolparse.ParseResult) -> tuple[list[tuple[str, Any]], str, str]:
    return [(c.name, c.arguments) for c in result.calls], result.reasoning, result.text


def stream(text: str, seed: int) -> toolparse.ParseResult:
    parser = toolparse.StreamParser(dialect="mistral")
    events = [e for chunk in random_chunks(text, seed) for e in parser.feed(chunk)]
    return toolparse.ParseResult(tuple(events + parser.close()))


plain = st.text(st.sampled_from("ab }{][\"'`*_#\n\\:=/<>中😀é"), max_size=20)
values = st.recursive(
    st.none() | st.booleans() | st.integers(-10**6, 10**6) | plain
    | st.just("[TOOL_CALLS]f[ARGS]{}") | st.just('"}]'),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(plain, inner, max_size=3),
    max_leaves=8)
names = st.from_regex(r"[a-zA-Z][a-zA-Z0-9_-]{0,12}", fullmatch=True)
calls = st.lists(st.tuples(names, st.dictionaries(plain, values, max_size=4)),
                 min_size=1, max_size=4)
words = st.text(st.sampled_from("ab .,\n中é"), max_size=20)


@pytest.mark.parametrize("version", VERSIONS)
@settings(max_examples=100, deadline=None)
@given(named=calls, seed=st.integers(0, 2**16))
def test_the_calls_the_library_renders_read_back(
        tokenizers: dict[str, MistralTokenizer], version: str,
        named: list[tuple[str, dict[str, Any]]], seed: int) -> None:
    text = render(tokenizers[version], named)
    expected = ([(n, a) for n, a in named], "", "")
    assert reading(toolparse.parse(text, "mistral")) == expected, text
    assert reading(stream(text, seed)) == expected, text


@settings(max_examples=100, deadline=None)
@given(named=calls, thinking=words.filter(str.strip), content=words, seed=st.integers(0, 2**16))
def test_magistral_reasoning_and_content_read_back(
        tokenizers: dict[str, MistralTokenizer], named: list[tuple[str, dict[str, Any]]],
        thinking: str, content: str, seed: int) -> None:
    # v13 with [THINK]: the reasoning is the thinking, the content the text before the calls.
    text = render(tokenizers["v13"], named, content, thinking)
    expected = ([(n, a) for n, a in named], thinking, content)
    assert reading(toolparse.parse(text, "mistral")) == expected, text
    assert reading(stream(text, seed)) == expected, text


def test_the_rendered_forms_are_the_ones_the_grammar_reads(
        tokenizers: dict[str, MistralTokenizer]) -> None:
    # The library's own spelling, one call with nested values and a brace in a string,
    # for each version: the forms docs/dialects.md describes.
    named = [("get_weather", {"city": "Paris } é", "n": [1, {"x": None}]})]
    rendered = {v: render(tokenizers[v], named) for v in VERSIONS}
    body = '{"city": "Paris } é", "n": [1, {"x": null}]}'
    assert rendered["v7"] == ('[TOOL_CALLS][{"name": "get_weather", "arguments": ' + body
                              + ', "id": "c00000000"}]')
    assert rendered["v11"] == "[TOOL_CALLS]get_weather[CALL_ID]c00000000[ARGS]" + body
    assert rendered["v13"] == "[TOOL_CALLS]get_weather[ARGS]" + body
    for text in rendered.values():
        result = toolparse.parse(text + "\n\nDone.", "mistral")
        assert [(c.name, c.arguments) for c in result.calls] == named
        assert result.text == "\n\nDone."
