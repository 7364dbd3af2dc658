"""SPEC section 1 for every bundled dialect (SPEC 5.2): G1 lossless, G2 chunking-invariant
(failures included) and parse == stream, G3 never a call from code (markdown-it-py the
oracle), G4 fail closed and never half, G8 never raises on content.

Each property runs per dialect on texts built from that dialect's tags and pieces
(`test_dialects_samples.SAMPLES`), read by that dialect and by `auto`;
tests/test_properties.py and tests/test_failures.py hold the deepseek-only ones with
more deepseek-specific fragments. Each (dialect, reader) pair gets a third of the
profile's examples, so the suite's time stays that of about four properties per
dialect."""

from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

import toolparse
from conftest import failures, joined, random_chunks, shape, split_at, stream
from test_dialects_samples import COMMON, DIALECTS, SAMPLES, Sample
from test_markdown_oracle import oracle_calls

EXAMPLES = max(10, settings.default.max_examples // 3)
# Each dialect's texts read by its own grammar and by `auto` (SPEC 5.2), which must keep
# every guarantee too.
READERS = [(d, d) for d in DIALECTS] + [(d, "auto") for d in DIALECTS]
per_dialect = settings(max_examples=EXAMPLES)
cuts = st.lists(st.floats(min_value=0, max_value=1), max_size=60)


def split_at_fractions(text: str, fractions: list[float]) -> list[str]:
    return split_at(text, [round(f * len(text)) for f in fractions])


def dialect_text(sample: Sample) -> st.SearchStrategy[str]:
    pieces = (sample.fragments + COMMON + tuple(t for t, _ in sample.well_formed)
              + sample.calls + (sample.opening, sample.closing))
    return st.lists(st.one_of(st.sampled_from([p for p in pieces if p]), st.text(max_size=8)),
                    max_size=40).map("".join)


# ---- G1, G8, G2 -------------------------------------------------------------------------------

@pytest.mark.parametrize(("dialect", "reader"), READERS)
@per_dialect
@given(data=st.data())
def test_g1_lossless_g8_never_raises_g2_same_events_for_every_chunking(
        dialect: str, reader: str, data: st.DataObject) -> None:
    text = data.draw(st.one_of(dialect_text(SAMPLES[dialect]), st.text(max_size=200)))
    whole = toolparse.parse(text, dialect=reader)
    expected = shape(whole.events)
    assert joined(whole.events) == text
    for chunks in (split_at_fractions(text, data.draw(cuts)), list(text) or [""]):
        events = stream(chunks, dialect=reader)
        assert joined(events) == text
        # (a Text with no text is framing markup, harmony's, kept in its raw: SPEC G1)
        assert all(e.text or e.raw for e in events if isinstance(e, toolparse.Text))
        assert shape(events) == expected
        assert failures(events) == list(whole.failures)


# ---- G4 ---------------------------------------------------------------------------------------

@pytest.mark.parametrize(("dialect", "reader"), READERS)
@per_dialect
@given(data=st.data())
def test_g4_every_block_parses_alone_to_the_same_calls(
        dialect: str, reader: str, data: st.DataObject) -> None:
    text = data.draw(dialect_text(SAMPLES[dialect]))
    for event in stream(split_at_fractions(text, data.draw(cuts)), dialect=reader):
        if isinstance(event, toolparse.ToolCallBlock):
            (again,) = toolparse.parse(event.raw, dialect=reader).events
            assert isinstance(again, toolparse.ToolCallBlock)
            assert [(c.name, c.arguments) for c in again.calls] == [
                (c.name, c.arguments) for c in event.calls]


@pytest.mark.parametrize(("dialect", "reader"), READERS)
@per_dialect
@given(data=st.data())
def test_g4_a_truncated_block_is_text(
        dialect: str, reader: str, data: st.DataObject) -> None:
    block, _ = data.draw(st.sampled_from(SAMPLES[dialect].well_formed))
    cut = data.draw(st.integers(min_value=1, max_value=len(block) - 1))
    text = "prefix " + block[:cut]
    events = stream(split_at_fractions(text, data.draw(cuts)), dialect=reader)
    assert not any(isinstance(e, toolparse.ToolCallBlock) for e in events)
    assert joined(events) == text


@pytest.mark.parametrize(("dialect", "reader"), READERS)
@per_dialect
@given(data=st.data())
def test_g4_a_corrupted_block_never_half_executes(
        dialect: str, reader: str, data: st.DataObject) -> None:
    # One character replaced: whatever comes out is lossless, and every block that still
    # comes out is a complete block on its own.
    block, _ = data.draw(st.sampled_from(SAMPLES[dialect].well_formed))
    i = data.draw(st.integers(min_value=0, max_value=len(block) - 1))
    c = data.draw(st.sampled_from(["x", "<", ">", '"', " ", "/", "`", "]", "|", "{", "=", "\n"]))
    text = block[:i] + c + block[i + 1:]
    events = stream(split_at_fractions(text, data.draw(cuts)), dialect=reader)
    assert joined(events) == text
    for event in events:
        if isinstance(event, toolparse.ToolCallBlock):
            assert shape(toolparse.parse(event.raw, dialect=reader).events)[0][0] == "block"


def breakers(sample: Sample) -> list:
    close = sample.call_close
    return [
        lambda call: call.replace(close, " stray text " + close),
        lambda call: call.replace(close, close[:-2] + close[-1:] if len(close) > 1
                                  else ")"),        # misspelt: `</functon>`, `{"p": 1)`
        lambda call: call[:call.index(close)],                        # the call close missing
    ]


@pytest.mark.parametrize(("dialect", "reader"), READERS)
@per_dialect
@given(data=st.data())
def test_g4_no_call_of_a_broken_block_ever_comes_out(
        dialect: str, reader: str, data: st.DataObject) -> None:
    sample = SAMPLES[dialect]
    calls = data.draw(st.lists(st.sampled_from(sample.calls), min_size=2, max_size=4))
    broken = data.draw(st.integers(min_value=1, max_value=len(calls) - 1))
    calls[broken] = data.draw(st.sampled_from(breakers(sample)))(calls[broken])
    joined_calls = "\n".join(calls)
    block = sample.opening + joined_calls + sample.closing
    before = data.draw(st.sampled_from(["", "Doing it.\n", "x "]))
    text = before + block + data.draw(st.sampled_from(["", "\nok", "\n" + sample.one_line("z")]))
    # The unit that must not yield a call: the whole block, or only the broken call when
    # every call is a block of its own.
    start = len(before) + len(sample.opening)
    if sample.per_call_blocks:
        start += len("\n".join(calls[:broken])) + 1
        end = start + len(calls[broken])
    else:
        start, end = len(before), len(before) + len(block)
    whole = toolparse.parse(text, dialect=reader)
    points = data.draw(st.lists(st.integers(min_value=0, max_value=len(text)), max_size=30))
    for events in (whole.events, stream(split_at(text, points), dialect=reader),
                   stream(list(text), dialect=reader)):
        assert joined(events) == text
        for event in events:
            if isinstance(event, toolparse.ToolCallBlock) and event.start < end and event.end > start:
                # Only a JSON body that stopped being JSON keeps its block (SPEC 3.1):
                # its call is rejected, so the block is not accepted and none of it runs.
                assert not event.accepted, (text, event.raw)
        assert shape(events) == shape(whole.events)
        assert failures(events) == list(whole.failures)
    # Every breaker breaks its call: the block fails, or its call is rejected.
    assert whole.failures or not all(b.accepted for b in whole.events
                                     if isinstance(b, toolparse.ToolCallBlock)), text


# ---- G3: markdown-it-py as the oracle ---------------------------------------------------------

@st.composite
def documents(draw: st.DrawFn, sample: Sample) -> tuple[str, list[str]]:
    blocks: list[str] = []

    def new_block() -> str:
        blocks.append(sample.one_line(f"t{len(blocks)}"))
        return blocks[-1]

    lines: list[str] = []
    for _ in range(draw(st.integers(1, 6))):
        kind = draw(st.sampled_from(["para", "span", "fence", "indented", "item", "blank"]))
        if kind == "para":
            lines.append(draw(st.sampled_from(["Some text ", "", "1. ", "> "])) + new_block())
        elif kind == "span":
            ticks = "`" * draw(st.integers(1, 3))
            lines.append(f"Like {ticks} {new_block()} {ticks} or " + draw(st.sampled_from(["`", "x", ""])))
        elif kind == "fence":
            fence = draw(st.sampled_from(["```", "~~~", "````xml"]))
            lines += [fence, new_block()]
            if draw(st.integers(0, 3)):  # sometimes left unclosed
                lines.append(fence[:3] + ("`" if fence.startswith("````") else ""))
        elif kind == "indented":
            lines += ["", draw(st.sampled_from(["    ", "\t"])) + new_block()]
        elif kind == "item":
            lines += ["- " + new_block(), ""]
        else:
            lines.append("")
    return "\n".join(lines) + draw(st.sampled_from(["", "\n"])), blocks


@pytest.mark.parametrize(("dialect", "reader"), READERS)
@per_dialect
@given(data=st.data())
def test_g3_calls_are_exactly_the_blocks_outside_code(
        dialect: str, reader: str, data: st.DataObject) -> None:
    document, blocks = data.draw(documents(SAMPLES[dialect]))
    expected = oracle_calls(document, blocks)
    assert {c.name for c in toolparse.parse(document, dialect=reader).calls} == expected, document
    streamed = stream(random_chunks(document, data.draw(st.integers(0, 2**16)), 1, 6), dialect=reader)
    assert {c.name for e in streamed if isinstance(e, toolparse.ToolCallBlock)
            for c in e.calls} == expected, document
