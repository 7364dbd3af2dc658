"""A value syntax's stream (SPEC 7): what it gives out while a value arrives is always a
prefix of the value its `value_text` reads at the end, and it gives out all but a
bounded end."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolparse._dialect.syntaxes import VALUE_EDGES, VALUE_SYNTAXES, names
from toolparse._dialect.value_stream import ValueStream
from toolparse._dialect.values import Cdata

EDGES = names(VALUE_EDGES)


def stream_of(edges: str) -> ValueStream:
    """A new stream of the row `edges` (or `json`) names."""
    return VALUE_SYNTAXES[edges].stream()


def value_text(pieces: tuple[Any, ...], edges: str = "xml") -> tuple[str, bool]:
    return VALUE_SYNTAXES[edges].value_text(pieces)

# Characters that exercise every rule: blanks and newlines at the edges, entities (whole,
# cut, too long), `;`, and plain letters.
_TEXT = st.lists(st.sampled_from(list(" \t\r\n\xa0ab&;#x1lt") + ["&amp;", "&#38;", "&lt",
                                                                "&#x26;"]),
                 max_size=6).map("".join)
_PIECE = st.one_of(_TEXT.map(lambda s: ("text", s)), _TEXT.map(lambda s: ("cdata", s)))


def streamed(edges: str, pieces: list[tuple[str, str]]) -> tuple[str, list[str]]:
    """Feed the pieces; returns the joined output and the output after each piece."""
    stream = stream_of(edges)
    outs = [stream.cdata(text) if kind == "cdata" else stream.text(text)
            for kind, text in pieces]
    return "".join(outs), outs


def final(edges: str, pieces: list[tuple[str, str]]) -> str:
    """The value as the builder reads it: a CDATA section is one Cdata piece (its
    content arrives in pieces, adjacent content pieces belong to one section)."""
    built: list[Any] = []
    for kind, text in pieces:
        if kind == "cdata":
            if built and isinstance(built[-1], Cdata):
                built[-1] = Cdata(built[-1].text + text)
            else:
                built.append(Cdata(text))
        else:
            built.append(text)
    return value_text(tuple(built), edges)[0]


@settings(max_examples=600, deadline=None)
@given(st.sampled_from(EDGES), st.lists(_PIECE, max_size=8))
def test_what_goes_out_is_a_prefix_of_the_final_value(edges: str,
                                                      pieces: list[tuple[str, str]]) -> None:
    # Every prefix of the piece sequence is a possible moment: what went out by then
    # must begin the final value of the whole sequence (and of every longer one).
    out, _ = streamed(edges, pieces)
    assert final(edges, pieces).startswith(out)
    for cut in range(len(pieces)):
        early, _ = streamed(edges, pieces[:cut])
        assert out.startswith(early)


@pytest.mark.parametrize("edges", EDGES)
def test_a_long_value_goes_out_as_it_arrives(edges: str) -> None:
    line = "def handler(event):  return event['body'] & mask;\n"
    value = "\n" + line * 400
    pieces = [("text", value[i:i + 4]) for i in range(0, len(value), 4)]
    out, outs = streamed(edges, pieces)
    assert final(edges, pieces).startswith(out)
    # Never more than one line (a blank run and a possible entity) behind.
    sent = 0
    for n, piece_out in enumerate(outs, 1):
        sent += len(piece_out)
        arrived = sum(len(text) for _, text in pieces[:n])
        assert arrived - sent <= 12


def test_a_value_that_starts_blank_waits_for_a_certain_newline() -> None:
    stream = stream_of("xml")
    assert stream.text("  indented") == ""        # trimmed, unless a newline follows
    assert stream.text(" line\n") == ""           # that newline may be the last one
    assert stream.text("next") == "  indented line\nnext"


def test_a_value_that_starts_blank_on_one_line_waits_to_the_end() -> None:
    stream = stream_of("xml")
    assert stream.text(" a b c ") == ""
    assert final("xml", [("text", " a b c ")]) == "a b c"


def test_an_entity_cut_by_a_chunk_waits_for_its_end() -> None:
    stream = stream_of("xml")
    assert stream.text("a &am") == "a "
    assert stream.text("p; b") == "& b"


def test_trim_keeps_entities_as_written() -> None:
    stream = stream_of("trim")
    assert stream.text("a &amp; b") == "a &amp; b"


def test_cdata_content_goes_out_verbatim_at_once() -> None:
    stream = stream_of("xml")
    assert stream.cdata("x <tag> &amp;  ") == "x <tag> &amp;  "


def test_newline_edges_hold_only_a_last_newline() -> None:
    stream = stream_of("newline")
    assert stream.text("\r") == ""
    assert stream.text("\nfirst\r") == "first"
    assert stream.text("\nsecond\n") == "\r\nsecond"


def test_json_holds_trailing_blanks() -> None:
    stream = stream_of("json")
    assert stream.text('{"a": 1') == '{"a": 1'
    assert stream.text("} \n") == "}"


@pytest.mark.parametrize("text, value", [
    ("\rab\ncd", "\rab\ncd"),        # a lone \r first: no newline to drop, the later \n stays
    ("\r\nab\ncd", "ab\ncd"),
    ("\nab", "ab"),
    ("\n\nab", "\nab"),
])
def test_only_a_newline_at_the_very_start_is_dropped(text: str, value: str) -> None:
    assert value_text((text,))[0] == value
    assert value_text((text, Cdata("z")))[0] == value + "z"
