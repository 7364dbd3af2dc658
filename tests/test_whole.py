"""Calls read whole (`_dialect/whole.py`): a `json_call` handed to Python's JSON decoder
instead of being stepped token by token changes no event and the feed of none (SPEC G1,
G2, G5, 3.2), with and without gates, whatever the text: valid calls, broken ones, text
the grammar takes and the decoder does not, and a block's limit."""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

import toolparse
from toolparse._bench.dialects import dialect_workload
from toolparse._dialect import bundled_dialects
from toolparse._dialect import table as table_module
from toolparse._dialect.loader import resolve_dialect
from toolparse._syntax.files import grammar_path
from toolparse._dialect.whole import BROKEN, CLOSED, INCOMPLETE, INVALID, Depth, read_whole
from conftest import joined
from test_gates import feeds, no_gates
from test_properties import cuts, split_at_fractions

WHOLE_DIALECTS = [name for name in bundled_dialects()
                  if any(grammar.wholes for grammar in resolve_dialect(name)._grammars)]


@contextmanager
def no_wholes(dialect: toolparse.Dialect) -> Iterator[None]:
    """The dialect's grammars reading every `json_call` token by token."""
    grammars = dialect._grammars
    saved = [(grammar.wholes, grammar.whole_opens) for grammar in grammars]
    for grammar in grammars:
        grammar.__dict__["wholes"] = {}
        grammar.__dict__["whole_opens"] = frozenset()
    try:
        yield
    finally:
        for grammar, (wholes, opens) in zip(grammars, saved):
            grammar.__dict__["wholes"] = wholes
            grammar.__dict__["whole_opens"] = opens


def test_the_dialects_whose_calls_are_read_whole() -> None:
    # Their calls are `json_call`s of the bundled common/json.lark. (lfm2 reads Python
    # calls too: its `json_call` shares rules with them, so it steps; llama3_json,
    # minimax_m1, mistral and gpt_oss read their JSON by rules of their own.)
    assert set(WHOLE_DIALECTS) == {"apertus", "cohere", "granite", "hunyuan_a13b",
                                   "nemotron", "phi4_mini"}


def test_a_json_terminal_of_its_own_means_tokens(tmp_path: Path) -> None:
    # A grammar that narrows a JSON terminal takes less than the decoder: it steps.
    text = grammar_path("dialects/granite.lark").read_text(encoding="utf-8")
    old = "%import common.json (json_call, _json_ws, RBRACKET, COMMA)"
    assert old in text, "the bundled grammar changed shape; update this test"
    path = tmp_path / "narrowed.lark"
    path.write_text(text.replace(old, old[:-1] + ", STRING_LT)\n%override STRING_LT: /<(?!\\|)/"),
                    encoding="utf-8")
    assert not toolparse.Dialect.from_file(path)._grammars[0].wholes
    path.write_text(text, encoding="utf-8")   # (the same file as bundled: read whole)
    assert toolparse.Dialect.from_file(path)._grammars[0].wholes
    assert resolve_dialect("granite")._grammars[0].wholes


def test_a_call_read_whole_feeds_no_token_of_it(monkeypatch: pytest.MonkeyPatch) -> None:
    fed: list[str] = []
    real = table_module.Driver.feed

    def feed(driver: table_module.Driver, term: str, value: object) -> None:
        fed.append(term)
        real(driver, term, value)

    monkeypatch.setattr(table_module.Driver, "feed", feed)
    text = '<tool_call>[{"name": "f", "arguments": {"a": [1, "]}"]}}]'
    for size in (1, 4, len(text)):
        fed.clear()
        parser = toolparse.StreamParser("granite")
        events = [e for i in range(0, len(text), size) for e in parser.feed(text[i:i + size])]
        events += parser.close()
        block = next(e for e in events if isinstance(e, toolparse.ToolCallBlock))
        assert [(c.name, json.loads(c.arguments_json)) for c in block.calls] == [
            ("f", {"a": [1, "]}"]})]
        assert not any("QUOTE" in term for term in fed), (size, fed)


@pytest.mark.parametrize(("text", "expected"), [
    ('{"a": [1, {"b": "]}"}]} after', 23),
    ('[1, 2]', 6),
    ('{"a": 1', INCOMPLETE), ('{"a": [', INCOMPLETE), ('{"a": "x]}', INCOMPLETE),
    ('{"a": {', INCOMPLETE), ('[{', INCOMPLETE),
    ('{"a": 1,}', INVALID), ('{"a": NaN}', INVALID), ('[Infinity]', INVALID),
    ('{"a": "x\ny"}', INVALID),   # (a raw control character: the grammar takes it)
    ('[' + "1" * 5000 + ']', INVALID),   # (longer than `int` reads)
    ('[' * 100_000 + ']' * 100_000, INVALID),   # (deeper than the decoder goes)
    ('{"a": "\\q"}', INVALID), ("[1\u0661]", INVALID),
])
def test_read_whole(text: str, expected: int) -> None:
    assert read_whole(text, 0, len(text)) == expected


def test_a_value_past_the_stop_is_incomplete() -> None:
    assert read_whole("[1, 2]", 0, 4) == INCOMPLETE


@pytest.mark.parametrize(("text", "outcome", "at"), [
    ('{"a": [1, {"b": "]}\\\\\\"{"}]} x', CLOSED, 28),
    ('{"a": "\\u12', 0, 7),   # (the escape still arriving: read again from it)
    ('{"a": "\\', 0, 7),
    ('{"a": "\\q"}', BROKEN, 8), ('{"a": "\\u12x"}', BROKEN, 8),
    ("[1]]", CLOSED, 3), ("] x", BROKEN, 1), ('{"a": 1 \\', BROKEN, 9),
])
@pytest.mark.parametrize("size", [1, 2, 3, 50])
def test_depth_read_in_pieces(text: str, outcome: int, at: int, size: int) -> None:
    depth = Depth(10)   # (stream offsets: the text begins at 10)
    seen = 0
    for stop in [*range(size, len(text), size), len(text)]:
        seen = depth.advance(text, 10, stop)
        if seen:
            break
    assert (seen, depth.at - 10) == (outcome, at)


CORPUS_TEXTS = {name: [case.text for case in toolparse.corpus.find_cases()
                       if case.dialect == name] for name in WHOLE_DIALECTS}
WORKLOADS = {name: dialect_workload("tools", name, 6000, 3).text for name in WHOLE_DIALECTS}
PIECES = ["]", "}", "{", "[", '"', "\\", "\\u12", "\n", "\x01", "NaN", "1e", "tru", ",", ":",
          "<", "<tool_call>[", "<|tool_call|>[", "<function_call> {", "</TOOLCALL>",
          "<|END_ACTION|>", "<|tools_suffix|>", "</tool_call>", '{"name": "g"}', "x"]


def both(name: str, chunks: list[str], max_capture: int, incremental: bool = False,
         gates: bool = True) -> tuple[list[list[toolparse.StreamEvent]], ...]:
    """The feeds with calls read whole and token by token (with or without gates)."""
    dialect = resolve_dialect(name)
    if gates:
        whole = feeds(dialect, chunks, max_capture, incremental)
        with no_wholes(dialect):
            return whole, feeds(dialect, chunks, max_capture, incremental)
    with no_gates(dialect):
        whole = feeds(dialect, chunks, max_capture, incremental)
        with no_wholes(dialect):
            return whole, feeds(dialect, chunks, max_capture, incremental)


@pytest.mark.parametrize("name", WHOLE_DIALECTS)
@pytest.mark.parametrize("gates", [True, False])
def test_every_regular_chunking_of_the_corpus_gives_the_same_feeds(name: str,
                                                                   gates: bool) -> None:
    for text in [*CORPUS_TEXTS[name], WORKLOADS[name][:3000]]:
        for size in range(1, 8):
            chunks = [text[i:i + size] for i in range(0, len(text), size)]
            whole, tokens = both(name, chunks, 1 << 20, gates=gates)
            assert whole == tokens, (text[:60], size)


@pytest.mark.parametrize("text", [
    # The tag is in a fence's info string: the block goes out as text once it fails,
    # in the feed where the tokens find the failure (a raw newline in a string, then a
    # name outside one), not later, when its brackets balance.
    '``` <function_call> {\n  "na_call> {\n  "name": "save",\n  "arguments": {"a": 1}}\n}',
    'See `<tool_call>[{"name": "f", "arguments": {"a": [1, 2,, 3]}}]` and more',
    'Text <tool_call>[{"name": "f", "arguments": {"a": "x"}}, {"name": "g" oops ]} more',
])
@pytest.mark.parametrize("gates", [True, False])
def test_a_broken_call_fails_in_the_same_feed(text: str, gates: bool) -> None:
    for size in range(1, 12):
        chunks = [text[i:i + size] for i in range(0, len(text), size)]
        whole, tokens = both("granite", chunks, 1 << 20, gates=gates)
        assert whole == tokens, size


@settings(max_examples=600, deadline=None)
@given(st.sampled_from(WHOLE_DIALECTS), st.data(), cuts, st.booleans(), st.booleans(),
       st.sampled_from([40, 200, 1 << 20]))
def test_any_text_gives_the_same_feeds_read_whole_or_by_tokens(
        name: str, data: st.DataObject, points: list[float], gates: bool, incremental: bool,
        max_capture: int) -> None:
    # The dialect's corpus and workload texts, whole, cut short, or with markup, JSON
    # the decoder refuses, or another block spliced in (a broken call, an opener
    # inside a value, a close tag where a bracket should be), in random chunks.
    texts = [*CORPUS_TEXTS[name], WORKLOADS[name][:1500]]
    text = data.draw(st.sampled_from(texts))
    for _ in range(data.draw(st.integers(0, 3))):
        at = data.draw(st.integers(0, len(text)))
        how = data.draw(st.sampled_from(["cut", "splice", "splice", "drop"]))
        if how == "cut":
            text = text[:at]
        elif how == "drop":
            text = text[:at] + text[at + data.draw(st.integers(1, 8)):]
        else:
            other = data.draw(st.sampled_from(texts))
            piece = data.draw(st.one_of(st.text(max_size=6), st.just(other[:at]),
                                        st.sampled_from(PIECES)))
            text = text[:at] + piece + text[at:]
    # A backtick or a fence before it: the block's tag may be in code, and a failure
    # then shows at once (the block goes out as text when the tracker says code).
    text = data.draw(st.sampled_from(["", "", "`", "``` ", "Text `", "> "])) + text
    chunks = split_at_fractions(text, points)
    whole, tokens = both(name, chunks, max_capture, incremental, gates)
    assert whole == tokens
    assert joined(itertools.chain.from_iterable(whole)) == text
