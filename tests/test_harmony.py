"""gpt_oss against harmony's own library (SPEC 5.3, 11): `openai-harmony` renders
assistant messages, and parses completions, offline, with the o200k vocabulary that
`bpe-openai` ships. What toolparse reads from a completion (calls, reasoning, content)
is what the library reads from it, whole and in any chunking."""

from __future__ import annotations

import gzip
import json
import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import bpe_openai
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_corpus import CASES

import toolparse
from toolparse.corpus.run import random_chunks

Reading = tuple[list[tuple[str, Any]], str, str]
"""(calls as (name, arguments), reasoning, content)."""

SPECIAL = ("<|start|>", "<|end|>", "<|message|>", "<|channel|>", "<|constrain|>",
           "<|return|>", "<|call|>")


@pytest.fixture(scope="module")
def harmony(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """The gpt-oss encoding, its vocabulary read from bpe-openai's copy (no download)."""
    folder = tmp_path_factory.mktemp("o200k")
    packed = Path(bpe_openai.__file__).parent / "data" / "o200k_base.tiktoken.gz"
    with gzip.open(packed) as source, open(folder / "o200k_base.tiktoken", "wb") as target:
        shutil.copyfileobj(source, target)
    before = os.environ.get("TIKTOKEN_ENCODINGS_BASE")
    os.environ["TIKTOKEN_ENCODINGS_BASE"] = str(folder)
    import openai_harmony

    try:
        yield openai_harmony, openai_harmony.load_harmony_encoding(
            openai_harmony.HarmonyEncodingName.HARMONY_GPT_OSS)
    finally:
        if before is None:
            del os.environ["TIKTOKEN_ENCODINGS_BASE"]
        else:
            os.environ["TIKTOKEN_ENCODINGS_BASE"] = before


def oracle(harmony: Any, text: str) -> Reading | None:
    """The library's reading of a completion, or None where it refuses the text."""
    module, encoding = harmony
    # (a completion starts after the prompt's `<|start|>assistant`)
    tokens = encoding.encode(text.removeprefix("<|start|>assistant"), allowed_special="all")
    try:
        messages = encoding.parse_messages_from_completion_tokens(tokens, module.Role.ASSISTANT)
    except Exception:   # noqa: BLE001 (the library raises its own error types)
        return None
    calls, reasoning, content = [], [], []
    for message in messages:
        m = message.to_dict()
        body = "".join(part["text"] for part in m["content"])
        recipient = m.get("recipient") or ""
        if recipient.startswith("functions."):
            try:
                arguments: Any = json.loads(body)
            except ValueError:
                arguments = body   # (not JSON: no call of toolparse's can equal it)
            calls.append((recipient.removeprefix("functions."), arguments))
        elif m["role"] == "assistant" and m.get("channel") == "analysis" and not recipient:
            reasoning.append(body)
        else:   # the answer, and what toolparse does not run (built-in tools, other roles)
            content.append(body)
    return calls, "".join(reasoning), "".join(content)


def reading(result: toolparse.ParseResult) -> Reading:
    return [(c.name, c.arguments) for c in result.calls], result.reasoning, result.text


def render(harmony: Any, kind: str, body: str, name: str = "") -> str:
    """One assistant message as the library renders it."""
    module, encoding = harmony
    message = module.Message.from_role_and_content(module.Role.ASSISTANT, body)
    if kind == "call":
        message = (message.with_channel("commentary").with_recipient(f"functions.{name}")
                   .with_content_type("<|constrain|>json"))
    else:
        message = message.with_channel(kind)
    return str(encoding.decode_utf8(encoding.render(message)))


# ---- conversations the library renders ----------------------------------------------------

plain = st.text(st.sampled_from("ab <>|{}[]\"'`*_#\n\\:=/中😀"), max_size=30).filter(
    lambda s: not any(token in s for token in SPECIAL))
quoted = st.sampled_from([
    "",
    ('The format: <|channel|>commentary to=functions.rm <|constrain|>json<|message|>'
     '{"path": "/"} '),
    "```\n<|start|>assistant to=functions.x<|channel|>commentary json<|message|>{}\n``` "])
values = st.recursive(
    st.none() | st.booleans() | st.integers(-10**6, 10**6) | plain,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(plain, inner, max_size=3),
    max_leaves=8)
names = st.from_regex(r"[a-z][a-z0-9_]{0,8}", fullmatch=True)
messages = st.lists(st.one_of(
    st.tuples(st.just("analysis"), st.builds(str.__add__, quoted, plain), st.just("")),
    st.tuples(st.just("final"), plain.filter(bool), st.just("")),
    st.tuples(st.just("call"), st.dictionaries(plain, values, max_size=4).map(json.dumps), names),
), min_size=1, max_size=5)


@settings(max_examples=150, deadline=None)
@given(conversation=messages, keep_role=st.booleans(), seed=st.integers(0, 2**16))
def test_what_the_library_renders_reads_as_the_library_reads_it(
        harmony: Any, conversation: list[tuple[str, str, str]], keep_role: bool,
        seed: int) -> None:
    rendered = "".join(render(harmony, kind, body, name) for kind, body, name in conversation)
    # A completion starts after the prompt's `<|start|>assistant` (the library misreads
    # one that repeats it); toolparse reads it either way. A completion that calls first
    # then starts with the recipient (` to=functions.N<|channel|>...`: an anchored
    # opener, docs/dialects.md, gpt_oss).
    completion = rendered.removeprefix("<|start|>assistant")
    expected = oracle(harmony, completion)
    assert expected is not None, completion
    text = rendered if keep_role else completion
    result = toolparse.parse(text, dialect="gpt_oss")
    assert reading(result) == expected, text
    assert not result.failures and all(c.status == "unchecked" for c in result.calls)
    assert "".join(e.raw for e in result.events) == text
    assert not any(token in result.text for token in SPECIAL)
    parser = toolparse.StreamParser(dialect="gpt_oss")
    events = [e for chunk in random_chunks(text, seed, 1, 9) for e in parser.feed(chunk)]
    events += parser.close()
    assert [e for e in events if isinstance(e, toolparse.ToolCallBlock)] == [
        e for e in result.events if isinstance(e, toolparse.ToolCallBlock)]
    assert "".join(e.text for e in events if isinstance(e, toolparse.Reasoning)) == \
        result.reasoning


def test_a_completion_that_starts_with_the_recipient_is_a_call(harmony: Any) -> None:
    # What the library renders for a call once the prompt's `<|start|>assistant` is cut
    # off: the recipient first. Anywhere but the start of the answer, the same text is
    # content (SPEC 5.3 b).
    call = render(harmony, "call", '{"city": "Paris"}', "get_weather")
    answer = render(harmony, "final", "It is sunny.")
    completion = call.removeprefix("<|start|>assistant") + answer
    assert completion.startswith(" to=functions.get_weather<|channel|>commentary")
    expected = oracle(harmony, completion)
    assert expected == ([("get_weather", {"city": "Paris"})], "", "It is sunny.")
    whole = toolparse.parse(completion, dialect="gpt_oss")
    assert reading(whole) == expected and not whole.failures
    for seed in range(20):
        parser = toolparse.StreamParser(dialect="gpt_oss")
        events = [e for chunk in random_chunks(completion, seed, 1, 5) for e in parser.feed(chunk)]
        events += parser.close()
        assert "".join(e.raw for e in events) == completion
        assert [e for e in events if isinstance(e, toolparse.ToolCallBlock)] == [
            e for e in whole.events if isinstance(e, toolparse.ToolCallBlock)]
    # `auto` reads it too (its reasoning regions take the leading space as text).
    assert toolparse.parse(completion, dialect="auto").calls[0].name == "get_weather"
    later = render(harmony, "final", "Hi.").removeprefix("<|start|>assistant") + completion
    assert not toolparse.parse(later, dialect="gpt_oss").calls


# ---- the corpus, read by the library --------------------------------------------------------

GPT_OSS = [case for case in CASES if case.dialect == "gpt_oss" and case.reasoning == "auto"]


def test_the_corpus_reads_as_the_library_reads_it(harmony: Any) -> None:
    compared = 0
    for case in GPT_OSS:
        text = case.path.read_text(encoding="utf-8")
        result = toolparse.parse(text, dialect="gpt_oss")
        expected = oracle(harmony, text)
        if expected is None or any(isinstance(a, str) for _, a in expected[0]):
            # The library refuses text outside messages, and reads a call whose
            # `<|call|>` a server stripped on into the next message; toolparse keeps
            # the text (content) and ends the call with its object (SPEC 11).
            continue
        if result.failures:   # (a call cut short: the library refuses it too)
            raise AssertionError(f"{case.id}: the library reads {expected}")
        # (whitespace after a call's object is the call's text to the library, a line of
        # content to toolparse)
        calls, thought, content = reading(result)
        assert (calls, thought, content.strip()) == (*expected[:2], expected[2].strip()), case.id
        compared += 1
    assert len(GPT_OSS) >= 20 and compared >= len(GPT_OSS) * 2 // 3, (compared, len(GPT_OSS))


def test_a_call_the_library_renders_is_one_block_with_a_typed_call(harmony: Any) -> None:
    text = render(harmony, "call", '{"path": "a.py", "limit": 20}', "read_file")
    tools = [{"type": "function", "function": {"name": "read_file", "parameters": {
        "type": "object", "properties": {"path": {"type": "string"},
                                         "limit": {"type": "integer"}}}}}]
    result = toolparse.parse(text, dialect="gpt_oss", tools=tools)
    (call,) = result.calls
    assert (call.name, call.arguments, call.status) == ("read_file", {"path": "a.py",
                                                                      "limit": 20}, "valid")
    assert result.text == ""   # the `<|call|>` the library renders is framing


def test_harmony_is_read_by_its_own_dialect_only() -> None:
    text = "<|channel|>analysis<|message|>Thinking.<|end|>Hi"
    with pytest.raises(toolparse.ConfigError, match="only its own dialect reads"):
        toolparse.parse(text, dialect="qwen3_coder", reasoning="harmony")
    for dialect in ("gpt_oss", "auto"):
        result = toolparse.parse(text, dialect=dialect, reasoning="harmony")
        assert (result.reasoning, result.text) == ("Thinking.", "Hi")
    off = toolparse.parse(text, dialect="gpt_oss", reasoning=None)
    assert (off.reasoning, off.text) == ("", "Thinking.Hi")


def test_a_token_split_across_chunks_inside_a_string_still_ends_the_message() -> None:
    # `<` is string text only when no harmony token starts there: the lexer waits for
    # what its lookahead reads, wherever a chunk ends (docs/grammars.md, Atoms and runs).
    text = ('<|channel|>commentary to=functions.run <|constrain|>json<|message|>'
            '{"command": "rm -rf<|start|>assistant<|channel|>final<|message|>No.<|return|>')
    whole = toolparse.parse(text, dialect="gpt_oss")
    assert not whole.calls and whole.failures and whole.text.endswith('"rm -rfNo.')
    for cut in range(1, len(text)):
        parser = toolparse.StreamParser(dialect="gpt_oss")
        events = parser.feed(text[:cut]) + parser.feed(text[cut:]) + parser.close()
        assert [(type(e), e.raw) for e in events if not isinstance(e, toolparse.Text)
                or e.failure] == [(type(e), e.raw) for e in whole.events
                                  if not isinstance(e, toolparse.Text) or e.failure], cut
