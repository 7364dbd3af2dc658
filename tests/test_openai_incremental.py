"""`stream_arguments=True` (SPEC 8 over SPEC 7's incremental events), translated from
scripted event sequences.

These tests give the adapter, through its one parser factory
(`toolparse.openai._parsers.make_parser`), a parser that returns real toolparse event
objects in a chosen order, one list per `feed()`: orders the engine gives seldom or
never (late deltas of an aborted call, deltas that disagree with the final call) are
translated as safely as the usual ones. The same behaviour against the real engine,
under any chunking, is in test_openai_stream_arguments.py.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import pytest

import toolparse
from toolparse import ArgumentsDelta, BlockFailure, CallsAborted, CallStarted, Text, ToolCall
from toolparse import ToolCallBlock
from toolparse.openai import _parsers, rewrite_stream
from test_openai_support import chunk, client_view

Script = Sequence[Sequence[Any]]


class ScriptedParser:
    """Each feed() returns the next list of the script; close() the last one."""

    def __init__(self, script: Script, closing: Sequence[Any] = ()) -> None:
        self._script = list(script)
        self._closing = list(closing)

    def feed(self, text: str) -> list[Any]:
        return list(self._script.pop(0)) if self._script else []

    def close(self) -> list[Any]:
        return self._closing


def scripted(monkeypatch: pytest.MonkeyPatch, script: Script, closing: Sequence[Any] = (),
             **options: Any) -> list[Any]:
    """The adapter's output for one choice fed one chunk per script step, then stop."""
    monkeypatch.setattr(_parsers, "make_parser", lambda settings: ScriptedParser(script, closing))
    upstream = [chunk(0, content=f"<{step}>") for step in range(len(script))]
    upstream.append(chunk(0, "stop"))
    return list(rewrite_stream(upstream, stream_arguments=True, **options))


def entries(out: list[Any]) -> list[dict[str, Any]]:
    return [entry for c in out for choice in c["choices"]
            for entry in choice["delta"].get("tool_calls") or []]


FAILURE = BlockFailure("unexpected_token", 0, 60, 50, ("PARAM_CLOSE",))
CALL_RAW = '<tool_calls><invoke name="read_file"><parameter name="path">a.md</parameter></invoke></tool_calls>'


def read_call(status: str = "valid", id: str = "call_a", path: str = "a.md") -> ToolCall:
    return ToolCall("read_file", {"path": path}, status, id=id)  # type: ignore[arg-type]


def started(index: int = 0, id: str = "call_a", name: str = "read_file") -> CallStarted:
    return CallStarted(index, id, name, 0)


def test_first_entry_names_the_call_then_argument_pieces_then_confirmation(
        monkeypatch: pytest.MonkeyPatch) -> None:
    final = read_call().arguments_json                       # {"path":"a.md"}
    out = scripted(monkeypatch, [
        [Text("Reading. "), started()],
        [ArgumentsDelta(0, '{"path":')],
        [ArgumentsDelta(0, '"a.md"}')],
        [ToolCallBlock((read_call(),), CALL_RAW, 9, 9 + len(CALL_RAW)), Text(" done")],
    ])
    got = entries(out)
    assert got[0] == {"index": 0, "id": "call_a", "type": "function",
                      "function": {"name": "read_file", "arguments": ""}}
    pieces = [e["function"]["arguments"] for e in got[1:]]
    assert all(set(e) == {"index", "function"} and e["index"] == 0 for e in got[1:])
    assert "".join(pieces) == final
    assert pieces[-1] == "}"              # the closing brace waited for the block
    view = client_view(out)[0]
    assert view.content == "Reading.  done"
    assert view.finish == "tool_calls"


def test_no_prefix_sent_before_confirmation_is_complete_json(monkeypatch: pytest.MonkeyPatch) -> None:
    out = scripted(monkeypatch, [[started()], [ArgumentsDelta(0, '{"path":"a.md"}  \n')], []])
    sent = "".join(e["function"]["arguments"] for e in entries(out))
    assert sent == '{"path":"a.md"'
    with pytest.raises(json.JSONDecodeError):
        json.loads(sent)


def test_abort_after_the_first_entry_sends_no_more_and_finishes_stop(
        monkeypatch: pytest.MonkeyPatch) -> None:
    broken = '<tool_calls><invoke name="read_file"><parameter name="path">a.md</parameter>oops'
    out = scripted(monkeypatch, [
        [Text("Hi "), started()],
        [ArgumentsDelta(0, '{"path":"a.md"')],
        [CallsAborted((0,), FAILURE), Text(broken, FAILURE)],
        [ArgumentsDelta(0, "}")],                   # late news of an aborted call: ignored
        [Text(" after")],
    ])
    view = client_view(out)[0]
    assert view.content == "Hi " + broken + " after"
    assert view.calls[0]["arguments"] == '{"path":"a.md'   # what went out, never completed
    assert view.finish == "stop"


def test_rejection_after_the_first_entry_sends_the_block_as_text_and_stop(
        monkeypatch: pytest.MonkeyPatch) -> None:
    rejected = ToolCall("nope", {}, "rejected", id="call_a")
    for policy in ("content", "drop"):
        out = scripted(monkeypatch, [
            [started(name="nope")],
            [ToolCallBlock((rejected,), CALL_RAW, 0, len(CALL_RAW))],
        ], on_rejected=policy)
        view = client_view(out)[0]
        assert view.content == CALL_RAW
        assert view.calls[0] == {"id": "call_a", "name": "nope", "arguments": ""}
        assert len(entries(out)) == 1 and view.finish == "stop"


def test_drop_with_a_started_rejected_call_cuts_the_whole_block(monkeypatch: pytest.MonkeyPatch) -> None:
    good, bad = read_call(id="call_a"), ToolCall("nope", {}, "rejected", id="call_b")
    out = scripted(monkeypatch, [
        [started(0, "call_a"), ArgumentsDelta(0, '{"path":"a.md"}'), started(1, "call_b", "nope")],
        [ToolCallBlock((good, bad), CALL_RAW, 0, len(CALL_RAW))],
    ], on_rejected="drop")
    view = client_view(out)[0]
    assert view.calls[0]["arguments"] == '{"path":"a.md"'   # never completed
    assert view.content == CALL_RAW and view.finish == "stop"


def test_keep_completes_a_started_rejected_call(monkeypatch: pytest.MonkeyPatch) -> None:
    bad = ToolCall("nope", {"x": 1}, "rejected", id="call_a")
    out = scripted(monkeypatch, [
        [started(name="nope"), ArgumentsDelta(0, '{"x":1}')],
        [ToolCallBlock((bad,), CALL_RAW, 0, len(CALL_RAW))],
    ], on_rejected="keep")
    view = client_view(out)[0]
    assert view.calls[0] == {"id": "call_a", "name": "nope", "arguments": '{"x":1}'}
    assert (view.content, view.finish) == ("", "tool_calls")


def test_deltas_that_disagree_with_the_final_call_cut_it(monkeypatch: pytest.MonkeyPatch) -> None:
    out = scripted(monkeypatch, [
        [started(), ArgumentsDelta(0, '{"path":"b.md"}')],
        [ToolCallBlock((read_call(),), CALL_RAW, 0, len(CALL_RAW))],
    ])
    view = client_view(out)[0]
    assert view.content == CALL_RAW and view.finish == "stop"
    assert view.calls[0]["arguments"] == '{"path":"b.md"'


def test_a_withdrawn_call_ends_there_and_its_block_goes_out_as_content(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # SPEC 7/8: `diverged` withdraws a call whose block goes on. Nothing more of it goes
    # out (late pieces ignored), and when its block is confirmed none of the block's
    # calls does, the other one included: the block is content, the choice ends `stop`.
    diverged = BlockFailure("diverged", 12, 90, 50, ())
    listed = ToolCall("read_file", {"path": ["a.md", "b.md"]}, "unchecked", id="call_a")
    other = read_call(id="call_b", path="c.md")
    out = scripted(monkeypatch, [
        [Text("Hi "), started()],
        [ArgumentsDelta(0, '{"path":"a.md"')],
        [CallsAborted((0,), diverged), started(1, "call_b"), ArgumentsDelta(1, '{"path":')],
        [ArgumentsDelta(0, "}"), ArgumentsDelta(1, '"c.md"}')],
        [ToolCallBlock((listed, other), CALL_RAW, 3, 3 + len(CALL_RAW)), Text(" done")],
    ])
    view = client_view(out)[0]
    assert view.content == "Hi " + CALL_RAW + " done"
    assert list(view.calls) == [0, 1]
    assert view.calls[0]["arguments"] == '{"path":"a.md'     # what went out, never completed
    assert view.calls[1]["arguments"] == '{"path":"c.md"'    # its brace never comes
    assert view.finish == "stop"


def test_a_call_the_engine_did_not_start_goes_out_whole(monkeypatch: pytest.MonkeyPatch) -> None:
    second = read_call(id="call_b", path="b")
    out = scripted(monkeypatch, [
        [started(), ArgumentsDelta(0, '{"path":"a.md"}')],
        [ToolCallBlock((read_call(), second), CALL_RAW, 0, len(CALL_RAW))],
    ])
    view = client_view(out)[0]
    assert view.call_list() == [("call_a", "read_file", '{"path":"a.md"}'),
                                ("call_b", "read_file", '{"path":"b"}')]
    assert view.finish == "tool_calls"


def test_a_later_good_block_does_not_undo_the_taint(monkeypatch: pytest.MonkeyPatch) -> None:
    out = scripted(monkeypatch, [
        [started()],
        [CallsAborted((0,), FAILURE), Text("broken", FAILURE)],
        [started(1, "call_b"), ArgumentsDelta(1, '{"path":"a.md"}')],
        [ToolCallBlock((read_call(id="call_b"),), CALL_RAW, 10, 10 + len(CALL_RAW))],
    ])
    view = client_view(out)[0]
    assert view.calls[1] == {"id": "call_b", "name": "read_file", "arguments": '{"path":"a.md"}'}
    assert view.finish == "stop"          # a cut call went out earlier: never tool_calls


def test_a_truncated_stream_aborts_at_close(monkeypatch: pytest.MonkeyPatch) -> None:
    truncated = BlockFailure("truncated", 0, 20, 20, ())
    monkeypatch.setattr(_parsers, "make_parser", lambda settings: ScriptedParser(
        [[started(), ArgumentsDelta(0, '{"pa')]],
        [CallsAborted((0,), truncated), Text('<tool_calls><invoke name="read_file">', truncated)]))
    out = list(rewrite_stream([chunk(0, content="x")], stream_arguments=True))
    view = client_view(out)[0]
    assert view.finish == "stop" and view.content.startswith("<tool_calls>")
    assert view.calls[0]["arguments"] == '{"p'


def test_stream_arguments_asks_the_engine_for_incremental_events() -> None:
    parser = _parsers.make_parser(_parsers.settings_from(
        tools=None, dialect="deepseek", stream_arguments=True, on_rejected="content",
        id_factory=None, parser_options={}))
    assert isinstance(parser, toolparse.StreamParser)
    started = [e for e in parser.feed('<tool_calls><invoke name="read_file">')
               if isinstance(e, CallStarted)]
    assert [e.name for e in started] == ["read_file"]   # incremental=True: events come
