"""Anchored openers (SPEC 5.3 b): a block opener the grammar header declares
`anchored=` opens a block only at the start of the answer, after nothing but
whitespace and a reasoning region. Anywhere else the same characters are text, under
every chunking, and text that can no longer be such an opener goes out at once."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

import toolparse
from conftest import all_chunkings, joined, random_chunks, shape, stream

# A call tag that counts anywhere, and a bare `call NAME:` that counts only at the start.
ANCHORED = r"""
// anchored.lark: a call tag anywhere, and a bare call only at the start of the answer.
//! toolparse: typing=json value_edges=none reasoning=think anchored=BARE_OPEN
%import common.json (json_value)

block: invoke
invoke: (CALL_OPEN | BARE_OPEN) json_body
json_body: json_value

CALL_OPEN.3: /<call (?P<name>[a-z_]+)>/
BARE_OPEN.3: /call (?P<name>[a-z_]+):/
WS: /\s+/
%ignore WS
"""

BARE = 'call f:{"a": 1}'


def _load(tmp_path: Path, source: str, name: str = "anchored") -> toolparse.Dialect:
    path = tmp_path / f"{name}.lark"
    path.write_text(source.lstrip(), encoding="utf-8")
    return toolparse.Dialect.from_file(path)


@pytest.fixture(scope="module")
def anchored(tmp_path_factory: pytest.TempPathFactory) -> toolparse.Dialect:
    return _load(tmp_path_factory.mktemp("anchored"), ANCHORED)


@pytest.fixture(scope="module")
def mixed(anchored: toolparse.Dialect) -> toolparse.Dialect:
    """`auto`'s situation: the anchored grammar among others (here hermes), read at once."""
    hermes = toolparse.Dialect.bundled("hermes")
    return toolparse.Dialect("mixed", None, (anchored._grammars[0], hermes._grammars[0]))


def _calls(text: str, dialect: toolparse.Dialect) -> list[tuple[str, object]]:
    return [(c.name, c.arguments) for c in toolparse.parse(text, dialect, reasoning="think").calls]


def _same_for_every_chunking(text: str, dialect: toolparse.Dialect) -> list[tuple]:
    expected = shape(toolparse.parse(text, dialect, reasoning="think").events)
    for label, chunks in all_chunkings(text):
        events = stream(chunks, dialect=dialect, reasoning="think")
        assert joined(events) == text, label
        assert shape(events) == expected, label
    return expected


@pytest.mark.parametrize("which", ["anchored", "mixed"])
def test_at_the_start_after_whitespace_or_reasoning_it_opens_a_block(
        which: str, request: pytest.FixtureRequest) -> None:
    dialect = request.getfixturevalue(which)
    assert _same_for_every_chunking(BARE + " Done.", dialect) == [
        ("block", BARE, [("f", {"a": 1})]), ("text", " Done.")]
    assert _same_for_every_chunking(" \n\n " + BARE, dialect) == [
        ("text", " \n\n "), ("block", BARE, [("f", {"a": 1})])]
    assert _same_for_every_chunking("<think>call g:{}</think>\n" + BARE, dialect) == [
        ("reasoning", "call g:{}", "<think>call g:{}</think>"), ("text", "\n"),
        ("block", BARE, [("f", {"a": 1})])]


@pytest.mark.parametrize("which", ["anchored", "mixed"])
@pytest.mark.parametrize("before", ["Sure. ", "x", "`", "<call g>{} ", "<think>r</think>ok ",
                                    "    "])
def test_anywhere_else_it_is_text(which: str, before: str,
                                  request: pytest.FixtureRequest) -> None:
    # After text, after a block, or in code (four spaces indent a code block).
    dialect = request.getfixturevalue(which)
    text = before + BARE + " " + BARE
    events = _same_for_every_chunking(text, dialect)
    assert [e for e in events if e[0] == "block" and e[1].startswith("call")] == []
    assert ("f", {"a": 1}) not in _calls(text, dialect)


def test_a_second_bare_call_after_the_first_block_is_text(anchored: toolparse.Dialect) -> None:
    assert _same_for_every_chunking(BARE + "\n" + BARE, anchored) == [
        ("block", BARE, [("f", {"a": 1})]), ("text", "\n" + BARE)]


def test_the_other_openers_count_anywhere(anchored: toolparse.Dialect) -> None:
    assert _calls('Sure. <call g>{"b": 2}', anchored) == [("g", {"b": 2})]


def test_text_that_can_no_longer_be_an_anchored_opener_goes_out_at_once(
        anchored: toolparse.Dialect) -> None:
    parser = toolparse.StreamParser(dialect=anchored)
    assert shape(parser.feed("  ")) == [("text", "  ")]
    assert parser.feed("cal") == []          # may still be `call NAME:`
    assert shape(parser.feed("m down")) == [("text", "calm down")]
    assert shape(parser.feed(" call f:")) == [("text", " call f:")]   # not at the start


def test_the_header_names_block_openers_only(tmp_path: Path) -> None:
    with pytest.raises(toolparse.GrammarError, match="anchored=WS"):
        _load(tmp_path, ANCHORED.replace("anchored=BARE_OPEN", "anchored=WS"))
    with pytest.raises(toolparse.GrammarError, match="every block opener"):
        _load(tmp_path, ANCHORED.replace("anchored=BARE_OPEN", "anchored=BARE_OPEN,CALL_OPEN"))


# ---- chunking invariance, and where the anchor holds --------------------------------------

prefixes = st.lists(st.sampled_from(["\n", " ", "x", "call", "<think>r</think>", "<call g>{}",
                                     "`"]), max_size=5).map("".join).filter(
    lambda s: "    " not in s)   # (four spaces would indent a code block)


def _at_start(prefix: str) -> bool:
    """The model: the anchor holds after whitespace, and a region at the very start."""
    rest = prefix.lstrip(" \n")
    if rest.startswith("<think>"):
        rest = rest.split("</think>", 1)[1]
    return rest.strip(" \n") == ""


@given(prefix=prefixes, suffix=prefixes, seed=st.integers(0, 2**16))
def test_a_bare_call_counts_only_at_the_start_under_any_chunking(
        anchored: toolparse.Dialect, mixed: toolparse.Dialect, prefix: str, suffix: str,
        seed: int) -> None:
    text = prefix + BARE + suffix
    for dialect in (anchored, mixed):
        whole = toolparse.parse(text, dialect, reasoning="think")
        assert (("f", {"a": 1}) in [(c.name, c.arguments) for c in whole.calls]) == \
            _at_start(prefix), text
        events = stream(random_chunks(text, seed, 1, 6), dialect=dialect, reasoning="think")
        assert joined(events) == text
        assert shape(events) == shape(whole.events)
