"""SPEC section 1 guarantees as properties: G1 lossless, G2 chunking-invariant (and
parse == stream), G4 fail closed, G5 low latency, G8 never raises on content.
(G3 against markdown-it-py lives in test_markdown_oracle.py; G6/G7 in test_bounds.py.)"""

from __future__ import annotations

from hypothesis import given, strategies as st

import toolparse
from conftest import joined, shape, split_at, stream

WELL_FORMED = [
    '<tool_calls><invoke name="read_file"><parameter name="path">a.md</parameter></invoke></tool_calls>',
    '<tool_calls>\n  <invoke name="w">\n    <parameter name="c"><![CDATA[x ]]> y]]></parameter>\n  </invoke>\n</tool_calls>',
    '<｜DSML｜tool_calls><｜DSML｜invoke name="b"><｜DSML｜parameter name="n">42</｜DSML｜parameter></｜DSML｜invoke></｜DSML｜tool_calls>',
    '<invoke name="o"/>\n</tool_calls>',
    '<tool_calls><invoke name="j">{"a": [1, "<"]}</invoke><!-- c --><invoke name="k"/></tool_calls>',
    '<|DSML|function_calls><invoke name="e"><parameter name="v" string="false">[1]</parameter></invoke></|DSML|function_calls>',
]

FRAGMENTS = [
    "<tool_calls>", "</tool_calls>", '<invoke name="a">', '<invoke name="b"/>', "</invoke>",
    '<parameter name="p">', '<parameter name="q" string="false">', "</parameter>",
    "<![CDATA[", "]]>", "<!--", "-->", "<｜DSML｜tool_calls>", "</｜DSML｜tool_calls>",
    '<|DSML|invoke name="c">', "</|DSML|invoke>", "<", ">", "</", "<tool_", "|DSML|", "｜",
    "`", "``", "```", "~~~", "\n", "\r\n", "\r", " ", "    ", "\t", "&amp;", "&lt;", "{", "}",
    '"', "'", "=", "/", "text", "42", "[1]", "\\", "-", "]", "中文", "😀",
] + WELL_FORMED

tool_text = st.lists(st.one_of(st.sampled_from(FRAGMENTS), st.text(max_size=8)), max_size=40).map("".join)
any_text = st.one_of(tool_text, st.text(max_size=300))
# Cut points as fractions of the text, so that short and long texts are cut as often.
cuts = st.lists(st.floats(min_value=0, max_value=1), max_size=60)


def split_at_fractions(text: str, fractions: list[float]) -> list[str]:
    return split_at(text, [round(f * len(text)) for f in fractions])


def g5_allows(emitted: str, held: str) -> bool:
    """What G5 lets wait: nothing, or a possible tag (or reasoning opener) from its `<`."""
    return held == "" or held[0] == "<"


def no_empty_text(events: list[toolparse.Event]) -> bool:
    return all(e.text for e in events if isinstance(e, toolparse.Text))


@given(any_text, cuts)
def test_g1_lossless_and_g8_never_raises(text: str, points: list[float]) -> None:
    events = stream(split_at_fractions(text, points))
    assert joined(events) == text
    assert no_empty_text(events)


@given(any_text, cuts)
def test_g2_chunking_invariant_and_parse_equals_stream(text: str, points: list[float]) -> None:
    expected = shape(toolparse.parse(text).events)
    assert shape(stream(split_at_fractions(text, points))) == expected
    assert shape(stream(list(text) or [""])) == expected


@given(tool_text, cuts)
def test_g4_every_block_parses_alone_to_the_same_calls(text: str, points: list[float]) -> None:
    for event in stream(split_at_fractions(text, points)):
        if isinstance(event, toolparse.ToolCallBlock):
            alone = toolparse.parse(event.raw)
            assert len(alone.events) == 1
            (again,) = alone.events
            assert isinstance(again, toolparse.ToolCallBlock)
            assert [(c.name, c.arguments) for c in again.calls] == [
                (c.name, c.arguments) for c in event.calls]


@given(st.sampled_from(WELL_FORMED), st.data())
def test_g4_truncated_block_is_text(block: str, data: st.DataObject) -> None:
    cut = data.draw(st.integers(min_value=1, max_value=len(block) - 1))
    text = "prefix " + block[:cut]
    points = data.draw(cuts)
    events = stream(split_at_fractions(text, points))
    assert not any(isinstance(e, toolparse.ToolCallBlock) for e in events)
    assert joined(events) == text


@given(st.sampled_from(WELL_FORMED), st.data())
def test_g4_corrupted_block_never_half_executes(block: str, data: st.DataObject) -> None:
    # Replace one character; whatever comes out is lossless, and every block that still
    # comes out is a complete block on its own.
    i = data.draw(st.integers(min_value=0, max_value=len(block) - 1))
    c = data.draw(st.sampled_from(["x", "<", ">", '"', " ", "/", "`", "]"]))
    text = block[:i] + c + block[i + 1:]
    events = stream(split_at_fractions(text, data.draw(cuts)))
    assert joined(events) == text
    for event in events:
        if isinstance(event, toolparse.ToolCallBlock):
            assert shape(toolparse.parse(event.raw).events)[0][0] == "block"


plain = st.text(alphabet=st.characters(blacklist_characters="<`"), max_size=200)


@given(plain, cuts)
def test_g5_plain_text_is_emitted_by_the_feed_that_brought_it(text: str, points: list[float]) -> None:
    parser = toolparse.StreamParser()
    for chunk in split_at_fractions(text, points):
        assert "".join(e.text for e in parser.feed(chunk)) == chunk  # type: ignore[union-attr]
    assert parser.close() == []


@given(st.text(alphabet=st.characters(blacklist_characters="`"), max_size=200).map(
    lambda s: s) | tool_text.filter(lambda s: "`" not in s), cuts)
def test_g5_only_a_possible_tag_or_an_open_block_is_held(text: str, points: list[float]) -> None:
    # Without backticks nothing waits on Markdown: what has not been emitted after a
    # feed starts at a `<` (a partial tag, or an open block).
    parser = toolparse.StreamParser()
    seen = ""
    emitted = ""
    for chunk in split_at_fractions(text, points):
        seen += chunk
        emitted += joined(parser.feed(chunk))
        assert seen.startswith(emitted)
        held = seen[len(emitted):]
        assert g5_allows(emitted, held)


# Text dense with `<` and block-start prefixes (no quotes: a held prefix then holds no
# second `<`), with whole blocks among them.
lt_text = st.lists(st.sampled_from(
    ["<", "<<", "<<<<", "<tool_", "<tool_calls", "<｜DSML｜", "<｜DSML｜tool_calls", "<|DSML|",
     "<invok", "x", " ", "\n", "a<b", WELL_FORMED[0], WELL_FORMED[2]]), max_size=30).map("".join)


@given(lt_text, cuts)
def test_g5_after_dead_prefixes_only_the_last_one_waits(text: str, points: list[float]) -> None:
    # A `<` that can no longer start a block goes out in the feed that made that
    # certain, whatever comes after it: what waits is one prefix, from its `<`. And
    # the blocks among them are found under every chunking.
    parser = toolparse.StreamParser()
    seen = emitted = ""
    events: list[toolparse.Event] = []
    for chunk in split_at_fractions(text, points):
        seen += chunk
        out = parser.feed(chunk)
        events += out
        emitted += joined(out)
        held = seen[len(emitted):]
        assert seen.startswith(emitted) and g5_allows(emitted, held)
        assert held.count("<") <= 1 or held.startswith(("<tool_calls>", "<｜DSML｜tool_calls>"))
    events += parser.close()
    assert shape(events) == shape(toolparse.parse(text).events)
