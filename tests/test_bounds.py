"""SPEC G6 (linear) and G7 (bounded): adversarial inputs finish and stay lossless, and an
open block larger than max_capture fails exactly there. Speed itself is measured by the
benchmark (benchmarks/), never asserted here."""

from __future__ import annotations

import pytest

import toolparse
from toolparse._stream.engine import WINDOW
from conftest import failures, joined, random_chunks, shape, split_at, stream

OPEN = '<tool_calls><invoke name="a"><parameter name="p">'
CLOSE = "</parameter></invoke></tool_calls>"


def chunkings(text: str) -> list[list[str]]:
    return [[text], random_chunks(text, 5, 1, 4), random_chunks(text, 6, 50, 200)]


@pytest.mark.parametrize("size", [99, 100])
def test_block_of_exactly_max_capture_completes(size: int) -> None:
    text = OPEN + "x" * (size - len(OPEN) - len(CLOSE)) + CLOSE
    assert len(text) == size
    for chunks in chunkings(text):
        events = stream(chunks, max_capture=100)
        assert [type(e).__name__ for e in events] == ["ToolCallBlock"]


def test_block_one_larger_than_max_capture_fails_there() -> None:
    body = OPEN + "x" * (101 - len(OPEN) - len(CLOSE)) + CLOSE
    text = "hi " + body + " bye"
    # A call had started: the span runs on to the wrapper close the limit cut into.
    expected = [("text", "hi "), ("failed", body, "max_capture"), ("text", " bye")]
    for chunks in chunkings(text):
        events = stream(chunks, max_capture=100)
        assert shape(events) == expected
        assert joined(events) == text


def test_scanning_resumes_where_the_capture_limit_was_reached() -> None:
    # The first block is cut at its limit; a real block after it is still found.
    filler = "y" * 200
    second = '<tool_calls><invoke name="b"/></tool_calls>'
    text = OPEN + filler + " " + second
    for chunks in chunkings(text):
        events = stream(chunks, max_capture=100)
        # The first 100 characters go out at the limit; the rest of the broken span
        # follows as it arrives, up to the next wrapper open (SPEC 3.2, G7).
        assert shape(events) == [("failed", OPEN + filler + " ", "max_capture"),
                                 ("block", second, [("b", {})])]
        (failure,) = failures(events)
        assert (failure.start, failure.end, failure.at) == (0, 100, 100)


def test_a_tag_longer_than_max_capture_cannot_open_a_block() -> None:
    tag = '<tool_calls id="' + "z" * 50 + '">'
    text = tag + '<invoke name="a"/></tool_calls>'
    for chunks in chunkings(text):
        # The wrapper tag is text; the invoke and the close fit, and form a block.
        assert shape(stream(chunks, max_capture=40)) == [
            ("text", tag), ("block", '<invoke name="a"/></tool_calls>', [("a", {})])]


def test_bad_max_capture_is_a_usage_error() -> None:
    for bad in (0, -1):
        with pytest.raises(toolparse.ConfigError, match="max_capture"):
            toolparse.StreamParser(max_capture=bad)
    for wrong in (1.5, "10", True, None):
        with pytest.raises(toolparse.ConfigTypeError, match="max_capture"):
            toolparse.StreamParser(max_capture=wrong)  # type: ignore[arg-type]


ADVERSARIAL = {
    "unclosed wrapper mention then prose": "Use <tool_calls> like this " + "and more prose. " * 8000,
    "open wrapper then prose without tags": "<tool_calls>\n" + "words words\n" * 8000,
    "runs of <": "<" * 60000,
    "runs of < and spaces": "< " * 30000,
    "repeated tag prefixes": "<tool_" * 10000 + "<｜DSML｜" * 5000,
    "repeated openers": "<tool_calls>" * 6000,
    "unterminated attribute": '<invoke name="' + "q" * 60000,
    "backtick storm": "`` ` ``` `" * 6000 + '<tool_calls><invoke name="a"/></tool_calls>',
    "comment storm": "<tool_calls><!--" + "- -" * 20000,
    "big CDATA value": OPEN + "<![CDATA[" + ("line ]] of > text <\n" * 20000) + "]]>" + CLOSE,
    "many tiny invokes": "<tool_calls>" + '<invoke name="t"/>' * 5000 + "</tool_calls>",
}


@pytest.mark.parametrize("name", sorted(ADVERSARIAL))
def test_adversarial_inputs_finish_lossless_and_chunking_invariant(name: str) -> None:
    text = ADVERSARIAL[name]
    whole = toolparse.parse(text)
    assert joined(whole.events) == text
    events = stream(random_chunks(text, 11, 1, 8))
    assert joined(events) == text
    assert shape(events) == shape(whole.events)


def test_big_values_and_many_invokes_are_calls() -> None:
    big = toolparse.parse(ADVERSARIAL["big CDATA value"])
    assert len(big.calls) == 1 and big.calls[0].arguments["p"].count("\n") == 20000
    many = toolparse.parse(ADVERSARIAL["many tiny invokes"])
    assert len(many.calls) == 5000


def test_unclosed_mention_does_not_hold_the_stream() -> None:
    # G5/G6: the prose after a failed mention is emitted as it arrives, not at the end.
    parser = toolparse.StreamParser()
    parser.feed("Use <tool_calls> like this")
    for chunk in split_at(" and more prose" * 100, range(0, 1500, 4)):
        assert joined(parser.feed(chunk)) == chunk


def test_held_output_gives_up_at_max_capture() -> None:
    # A block after a stray backtick waits on the paragraph; when what is held would
    # pass max_capture, every held block becomes text (fail closed) and streaming goes on.
    block = '<tool_calls><invoke name="a"/></tool_calls>'
    text = "note ` " + block + " " + "word " * 60 + "\n\nnext " + block
    for chunks in chunkings(text):
        events = stream(chunks, max_capture=200)
        assert joined(events) == text
        blocks = [e for e in events if isinstance(e, toolparse.ToolCallBlock)]
        assert [b.raw for b in blocks] == [block]  # only the one after the paragraph
        assert blocks[0].start == text.rindex(block)
    # Within the bound, the same held block counts when the paragraph ends.
    short = "note ` " + block + " words\n\nnext"
    assert len(toolparse.parse(short, max_capture=200).calls) == 1


def test_held_output_is_released_as_soon_as_it_is_decided() -> None:
    parser = toolparse.StreamParser(max_capture=200)
    parser.feed("note ` <tool_calls><invoke name=\"a\"/></tool_calls>")
    events = parser.feed(" " + "word " * 60)
    # The limit passed inside this chunk: the held block and the text are out now.
    assert joined(events).endswith("word " * 10) and not any(
        isinstance(e, toolparse.ToolCallBlock) for e in events)


def test_the_plain_text_events_kept_for_repeated_chunks_stay_bounded() -> None:
    # The engine keeps the event of a short plain text for the next chunk of the same
    # text (every parser shares them): equal events, never more than PLAIN_KEPT of them,
    # none for a long chunk.
    from toolparse._stream import output as engine

    first = toolparse.StreamParser().feed("the ")
    again = toolparse.StreamParser().feed("the ")
    assert first == again == [toolparse.Text("the ")] and again[0].failure is None
    feeder = toolparse.StreamParser()
    for n in range(engine.PLAIN_KEPT + 100):
        assert feeder.feed(f"w{n} ") == [toolparse.Text(f"w{n} ")]
        assert len(engine.PLAIN_EVENTS) <= engine.PLAIN_KEPT
    long_chunk = "y" * (engine.PLAIN_LENGTH + 1)
    assert feeder.feed(long_chunk) == [toolparse.Text(long_chunk)]
    assert long_chunk not in engine.PLAIN_EVENTS
    assert joined(feeder.close()) == ""


def test_a_full_plain_text_cache_starts_over_and_keeps_what_comes_next() -> None:
    # When the kept events reach PLAIN_KEPT the cache starts over: one dictionary, never
    # more than PLAIN_KEPT events in all, and a text seen before the start is made
    # anew (an equal event, not the same object); a text seen since is kept again.
    from toolparse._stream import output as engine

    feeder = toolparse.StreamParser()
    before = feeder.feed("seen before ")[0]
    for n in range(engine.PLAIN_KEPT):  # enough new texts to fill it, from any state
        feeder.feed(f"v{n} ")
        assert len(engine.PLAIN_EVENTS) <= engine.PLAIN_KEPT
    assert "seen before " not in engine.PLAIN_EVENTS
    again = feeder.feed("seen before ")[0]
    assert again == before and again is not before
    assert feeder.feed("seen before ")[0] is again
    assert joined(feeder.close()) == ""


def test_the_table_of_plain_chunks_holds_none_with_a_block_start_character() -> None:
    # Under `auto` blocks start with `<`, `[`, `]` or `f`: the fast path tests the first
    # with `in` only for a chunk not in the table of short chunks in which no block can
    # start (`output.plain_events`, shared by the parsers that test the same characters);
    # such a chunk is tested, and kept if plain. The table never holds
    # a chunk a block could start in, and stays bounded.
    from toolparse._stream import output

    chunks = ["Hello", " wor", "ld. ", "Hello", "a [b", "] c ", "if x", " < y", " fu",
              "nny ", "Hello", "", "f", "oo. ", " wor", "[", "x", "]", "ld. "]
    parser = toolparse.StreamParser("auto")
    events = [event for chunk in chunks for event in parser.feed(chunk)]
    scanner = parser._engine._scanner
    starts = set(scanner.plain_chars[0] + scanner.plain_rest)
    assert starts == {"<", "[", "]", "f"}
    table = scanner.plain_table
    assert {"Hello", " wor", "ld. "} <= set(table) and "" not in table
    # It holds a chunk with a block-start character only where no block can start in
    # it (`if x`: Phi-4-mini's opener is `functools[`; `a [b`, ` < y`), never one where
    # one may be arriving (` fu`, `[`, `f`).
    assert {"if x", "a [b", " < y"} <= set(table)
    assert not {" fu", "[", "f", "]"} & set(table)
    assert all(scanner.start_search(chunk, 0) is None for chunk in table)
    for n in range(output.PLAIN_KEPT + 100):
        assert parser.feed(f"w{n} ") == [toolparse.Text(f"w{n} ")]
        assert len(table) <= output.PLAIN_KEPT
    assert parser.feed("") == [] and parser.feed("ok") == [toolparse.Text("ok")]
    assert joined(events + parser.close()) == "".join(chunks)  # (the loop's: checked)
    # A chunk found in the table is plain with no test at all, so one block-start
    # character has a table of its own too: `PLAIN_EVENTS` holds texts with `<` (here
    # as text a parser gave out; the text before a tag, a dead tail's).
    output.plain_text("<tool_calls>")
    assert "<tool_calls>" in output.PLAIN_EVENTS
    single = toolparse.StreamParser("deepseek")
    block = ["Intro. ", "<tool_calls>", '<invoke name="f">',
             '<parameter name="a">1</parameter>', "</invoke>", "</tool_calls>", "Done. "]
    got = [event for chunk in block for event in single.feed(chunk)] + single.close()
    assert [call.name for event in got if isinstance(event, toolparse.ToolCallBlock)
            for call in event.calls] == ["f"]
    own = single._engine._scanner.plain_table
    assert own is not output.PLAIN_EVENTS and "Done. " in own
    assert not any("<" in chunk for chunk in own)



def test_a_chunk_plain_under_one_dialects_openers_is_not_plain_under_anothers() -> None:
    # `<tool_calls>` can start no block of deepseek_v3 (its openers begin `<｜`), so its
    # parser keeps it as plain text; deepseek's begins there. Both start blocks with `<`
    # alone: their tables are kept apart by the openers, not by that character.
    other = toolparse.StreamParser("deepseek_v3")
    assert [e for c in ["Intro ", "<tool_calls>", " done"] for e in other.feed(c)] == [
        toolparse.Text("Intro "), toolparse.Text("<tool_calls>"), toolparse.Text(" done")]
    assert "<tool_calls>" in other._engine._scanner.plain_table
    parser = toolparse.StreamParser("deepseek")
    chunks = ["Intro ", "<tool_calls>", '<invoke name="f">',
              '<parameter name="a">1</parameter>', "</invoke>", "</tool_calls>"]
    got = [event for chunk in chunks for event in parser.feed(chunk)] + parser.close()
    assert [type(event).__name__ for event in got] == ["Text", "ToolCallBlock"]
    assert parser._engine._scanner.plain_table is not other._engine._scanner.plain_table

BROKEN = OPEN + "v</parameter><oops/></invoke></tool_calls>"
GOOD = OPEN + "v" + CLOSE


def test_a_long_chunk_reads_as_any_other_chunking() -> None:
    # parse() gives the engine one chunk; past WINDOW characters it is read a window at
    # a time, so that each block whose fate waits on a backtick run (UNDECIDED) sends at
    # most a window back to be read again. Windows or not, the events are the same.
    pieces = ["note ` " + BROKEN + " and ` closes it.\n\n",  # in code: plain text
              "note ` " + BROKEN + " never closed.\n\n",  # outside: a failed span
              "plain " + GOOD + "\n\n", "x ` " + GOOD + " y\n\n"]
    order = [(i * 7) % 4 for i in range(3 * WINDOW // 80)]
    text = "".join(pieces[i] for i in order)
    assert len(text) > 3 * WINDOW
    whole = toolparse.parse(text)
    assert joined(whole.events) == text
    assert len(whole.calls) == order.count(2) + order.count(3)
    assert len(failures(whole.events)) == order.count(1)
    events = stream(random_chunks(text, 3, 1, 9))
    assert shape(events) == shape(whole.events)
    # A chunk of exactly a window and one just past it.
    events = stream([text[:WINDOW], text[WINDOW:2 * WINDOW + 1], text[2 * WINDOW + 1:]])
    assert shape(events) == shape(whole.events)


def test_a_long_chunk_under_auto_reads_as_any_other_chunking() -> None:
    # The same for blocks whose dialect is chosen while their text is held (CHOOSING).
    pieces = ['<tool_call>\n{"name": "read", "arguments": {"path": "a.md"}}\n</tool_call>\n',
              "<tool_call>\n<function=read>\n<parameter=path>a.md</parameter>\n"
              "</function>\n</tool_call>\n", "Some prose between the calls.\n"]
    count = 3 * WINDOW // 50
    text = "".join(pieces[i % 3] for i in range(count))
    assert len(text) > 3 * WINDOW
    whole = toolparse.parse(text, "auto")
    assert joined(whole.events) == text
    assert [c.name for c in whole.calls] == ["read"] * (count - count // 3)
    events = stream(random_chunks(text, 4, 1, 9), dialect="auto")
    assert shape(events) == shape(whole.events)


def test_parse_joins_each_run_of_text_once(monkeypatch: pytest.MonkeyPatch) -> None:
    # A long text comes out of the engine a window at a time; parse() joins each run of
    # adjacent text (and of reasoning) into one event, in one step: joined pairwise,
    # each step copied all the text joined before it, quadratic in the run's length.
    from toolparse._stream import whole

    text = "<think>" + "r" * (3 * WINDOW) + "</think>" + "a < b. " * WINDOW + OPEN + "x"
    parser = toolparse.StreamParser("deepseek", max_capture=1 << 23)
    pieces = [type(e).__name__ for e in parser.feed(text) + parser.close()]
    assert pieces.count("Reasoning") > 2 and pieces.count("Text") > 6, pieces
    made: list[str] = []
    real = whole.make_text
    monkeypatch.setattr(whole, "make_text", lambda *a: made.append(a[0]) or real(*a))
    result = toolparse.parse(text, max_capture=1 << 23)
    assert [type(e).__name__ for e in result.events] == ["Reasoning", "Text", "Text"]
    assert "".join(e.raw for e in result.events) == text
    failure = result.events[2].failure
    assert failure is not None and failure.reason == "truncated"
    assert len(made) == 1   # (the one run of several text events, joined once)
