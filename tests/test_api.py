"""The public API (SPEC section 2) and usage errors (SPEC G8, STYLE: errors)."""

from __future__ import annotations

import concurrent.futures
import dataclasses
import itertools
import os
import re

import pytest

import toolparse

BLOCK = '<tool_calls><invoke name="a"><parameter name="p">1</parameter></invoke></tool_calls>'


def test_public_names() -> None:
    for name in ["parse", "StreamParser", "Text", "ToolCallBlock", "ToolCall", "ParseResult",
                 "Dialect", "repair_tool_call", "RepairConfig", "RepairOutcome", "ToolparseError"]:
        assert name in toolparse.__all__ and hasattr(toolparse, name)


def test_parse_result_fields() -> None:
    result = toolparse.parse("before " + BLOCK + " after")
    assert isinstance(result.events, tuple)
    assert [type(e) for e in result.events] == [toolparse.Text, toolparse.ToolCallBlock, toolparse.Text]
    assert result.calls == result.events[1].calls  # type: ignore[union-attr]
    assert result.text == "before  after"
    assert result.saw_tool_syntax is True
    assert result.rejected_tool_names == () and result.rejected_by_policy is False


def test_events_are_frozen_positional_dataclasses() -> None:
    text = toolparse.Text("hi")
    assert text == toolparse.Text(text="hi")
    with pytest.raises(dataclasses.FrozenInstanceError):
        text.text = "no"  # type: ignore[misc]
    call = toolparse.ToolCall("f", {"a": 1})
    assert call.status == "unchecked" and call.repair is None
    blk = toolparse.ToolCallBlock((call,), "raw", 0, 3)
    assert blk.calls == (call,)


def test_stream_events_equal_parse_events() -> None:
    parser = toolparse.StreamParser(dialect="deepseek")
    events = parser.feed("x " + BLOCK[:20]) + parser.feed(BLOCK[20:] + " y") + parser.close()
    assert tuple(events) == toolparse.parse("x " + BLOCK + " y").events
    assert parser.saw_tool_syntax


def test_empty_chunk_is_normal_and_not_eof() -> None:
    parser = toolparse.StreamParser()
    assert parser.feed("") == []
    assert parser.feed("<tool_") == []
    assert parser.feed("") == []
    assert parser.feed("calls>") == []
    (event,) = parser.close()
    assert isinstance(event, toolparse.Text) and event.text == "<tool_calls>"
    assert event.failure is not None and event.failure.reason == "truncated"


def test_str_subclass_is_accepted() -> None:
    class S(str):
        pass
    parser = toolparse.StreamParser()
    assert parser.feed(S("plain")) == [toolparse.Text("plain")]


@pytest.mark.parametrize("chunk", [b"bytes", None, 3, ["list"]])
def test_feed_with_a_non_str_raises(chunk: object) -> None:
    parser = toolparse.StreamParser()
    with pytest.raises(toolparse.ChunkTypeError, match=type(chunk).__name__) as info:
        parser.feed(chunk)  # type: ignore[arg-type]
    assert isinstance(info.value, TypeError) and isinstance(info.value, toolparse.ToolparseError)
    if isinstance(chunk, bytes):
        assert "decode" in str(info.value)


def test_feed_after_close_raises() -> None:
    parser = toolparse.StreamParser()
    parser.close()
    with pytest.raises(toolparse.StreamClosedError, match="after close") as info:
        parser.feed("x")
    assert isinstance(info.value, ValueError)
    with pytest.raises(toolparse.StreamClosedError, match="twice"):
        parser.close()


def test_unknown_dialect_raises_naming_the_bundled_ones() -> None:
    with pytest.raises(toolparse.UnknownDialectError, match=r"'qwen'.*deepseek") as info:
        toolparse.StreamParser(dialect="qwen")
    assert isinstance(info.value, ValueError)
    with pytest.raises(toolparse.UnknownDialectError, match="int"):
        toolparse.parse("x", dialect=3)  # type: ignore[arg-type]


def test_parse_with_a_non_str_raises() -> None:
    with pytest.raises(toolparse.ChunkTypeError):
        toolparse.parse(b"x")  # type: ignore[arg-type]


def test_dialect_object_is_accepted() -> None:
    dialect = toolparse.Dialect.bundled("deepseek")
    assert dialect.name == "deepseek" and dialect.path.name == "deepseek.lark"
    assert toolparse.parse(BLOCK, dialect=dialect).calls[0].name == "a"
    assert toolparse.StreamParser(dialect).dialect is dialect


def test_to_openai_shape_and_ids() -> None:
    text = BLOCK + BLOCK
    calls = toolparse.parse(text).calls
    first = [c.to_openai() for c in calls]
    assert first == [c.to_openai() for c in calls]          # an id belongs to its call
    assert first[0]["id"] != first[1]["id"]
    again = [c.to_openai() for c in toolparse.parse(text).calls]
    assert {c["id"] for c in first}.isdisjoint(c["id"] for c in again)  # random per parse
    assert all(re.fullmatch(r"call_[0-9a-f]{24}", c["id"]) for c in first + again)
    assert first[0]["type"] == "function"
    assert first[0]["function"] == {"name": "a", "arguments": '{"p":1}'}
    # Ids are not part of equality: the same input gives equal calls (SPEC G2).
    assert toolparse.parse(text).calls == calls


def test_call_ids_are_unique_across_draws_threads_and_forks() -> None:
    # Ids are drawn ahead in batches: no two may repeat, across a batch's end, across
    # threads, or between a process and a child forked while it held ids drawn ahead.
    from toolparse._events import new_call_id
    new_call_id()                               # ids drawn ahead now
    with concurrent.futures.ThreadPoolExecutor(4) as pool:
        ids = list(pool.map(lambda _: new_call_id(), range(1000)))
    assert len(set(ids)) == 1000
    assert all(re.fullmatch(r"call_[0-9a-f]{24}", i) for i in ids)
    if not hasattr(os, "fork"):
        return
    reader, writer = os.pipe()
    child = os.fork()
    if child == 0:                              # the child: its next id, to the parent
        os.write(writer, new_call_id().encode())
        os._exit(0)
    os.close(writer)
    os.waitpid(child, 0)
    theirs = os.read(reader, 100).decode()
    os.close(reader)
    ours = {new_call_id() for _ in range(200)}  # all it had drawn ahead, and more
    assert re.fullmatch(r"call_[0-9a-f]{24}", theirs) and theirs not in ours


def test_id_factory_gives_deterministic_ids() -> None:
    def ids() -> "itertools.count[int]":
        return itertools.count(1)
    for run in range(2):
        counter = ids()
        result = toolparse.parse(BLOCK + BLOCK, id_factory=lambda: f"call_{next(counter)}")
        assert [c.id for c in result.calls] == ["call_1", "call_2"]
    with pytest.raises(toolparse.ConfigTypeError, match="id_factory"):
        toolparse.StreamParser(id_factory="call_1")  # type: ignore[arg-type]
    with pytest.raises(toolparse.ConfigTypeError, match="returned int"):
        toolparse.parse(BLOCK, id_factory=lambda: 7)  # type: ignore[arg-type, return-value]


@pytest.mark.parametrize("size", [1, 3, 1 << 20])
def test_a_block_in_inline_code_draws_no_id(size: int) -> None:
    # The middle block waits on its ticket and turns out to be in a code span: only the
    # blocks that go out as blocks take ids, so a counter gives 1, 2 (not 1, 3).
    text = BLOCK + " `" + BLOCK + "` " + BLOCK
    counter = itertools.count(1)
    parser = toolparse.StreamParser(id_factory=lambda: f"call_{next(counter)}")
    events = [e for i in range(0, len(text), size) for e in parser.feed(text[i:i + size])]
    events += parser.close()
    calls = [call for e in events if isinstance(e, toolparse.ToolCallBlock) for call in e.calls]
    assert [call.id for call in calls] == ["call_1", "call_2"]


def test_the_docstring_examples_run() -> None:
    import doctest

    from toolparse._stream import parser, whole

    tried = failed = 0
    for module in (parser, whole):
        result = doctest.testmod(module)
        failed, tried = failed + result.failed, tried + result.attempted
    assert tried >= 3 and failed == 0


def test_help_describes_every_option_of_parse_and_stream_parser() -> None:
    for doc in (toolparse.parse.__doc__ or "", toolparse.StreamParser.__doc__ or ""):
        for option in ("dialect", "max_capture", "tools", "model", "repair", "id_factory"):
            assert f"{option}:" in doc, option


def test_bundled_dialect_names_and_a_near_miss() -> None:
    names = toolparse.dialects()
    assert "deepseek" in names and "markdown" not in names and "auto" not in names
    with pytest.raises(toolparse.UnknownDialectError, match="did you mean 'deepseek'"):
        toolparse.parse("x", dialect="DeepSeek")
    with pytest.raises(toolparse.UnknownDialectError, match="Bundled dialects: .*deepseek"):
        toolparse.parse("x", dialect="nonesuch")


def test_the_result_knows_its_dialect_and_the_adapter_loads_on_use() -> None:
    result = toolparse.parse(BLOCK)
    assert result.dialect is toolparse.Dialect.bundled("deepseek")
    assert toolparse.ParseResult(events=result.events).dialect is None
    assert toolparse.openai.rewrite_stream is not None


def test_feed_and_close_through_the_class_and_their_documented_types() -> None:
    # An instance's feed and close are the engine's own methods (no extra call per
    # chunk); the class's methods carry the documented signature and work unbound.
    import inspect

    parser = toolparse.StreamParser()
    events = toolparse.StreamParser.feed(parser, 'x <tool_calls><invoke name="a">')
    events += parser.feed("</invoke></tool_calls>")
    events += toolparse.StreamParser.close(parser)
    assert [type(e).__name__ for e in events] == ["Text", "ToolCallBlock"]
    assert inspect.signature(toolparse.StreamParser.feed).parameters["chunk"].annotation == "str"
    assert "chunk" in (toolparse.StreamParser.feed.__doc__ or "")
    with pytest.raises(toolparse.StreamClosedError):
        parser.close()


# ---- wrong-typed arguments: a ToolparseError that is also a TypeError, naming them (G8) ----

def _a_case() -> object:
    return toolparse.corpus.find_cases(toolparse.corpus.bundled_corpus())[0]


WRONG_TYPES = [
    # (call, a word the message must hold: the argument's name)
    ("parse(None)", lambda: toolparse.parse(None), "str"),
    ("parse(dialect=None)", lambda: toolparse.parse("x", dialect=None), "dialect"),
    ("parse(max_capture='1')", lambda: toolparse.parse("x", max_capture="1"), "max_capture"),
    ("parse(tools=3)", lambda: toolparse.parse("x", tools=3), "tools"),
    ("parse(model=3)", lambda: toolparse.parse("x", model=3), "model"),
    ("parse(repair=3)", lambda: toolparse.parse("x", repair=3), "repair"),
    ("parse(id_factory=3)", lambda: toolparse.parse("x", id_factory=3), "id_factory"),
    ("StreamParser(None)", lambda: toolparse.StreamParser(None), "dialect"),
    ("StreamParser(incremental=1)", lambda: toolparse.StreamParser(incremental=1), "incremental"),
    ("StreamParser().feed(b'x')", lambda: toolparse.StreamParser().feed(b"x"), "feed"),
    ("Dialect.from_file(None)", lambda: toolparse.Dialect.from_file(None), "path"),
    ("Dialect.from_file(b'x.lark')", lambda: toolparse.Dialect.from_file(b"x.lark"), "path"),
    ("Dialect.from_file(name=3)",
     lambda: toolparse.Dialect.from_file("grammars/dialects/deepseek.lark", name=3), "name"),
    ("Dialect.bundled(None)", lambda: toolparse.Dialect.bundled(None), "name"),
    ("Dialect.bundled(['x'])", lambda: toolparse.Dialect.bundled(["x"]), "name"),
    ("repair_tool_call(config=3)",
     lambda: toolparse.repair_tool_call("f", "{}", None, config=3), "config"),
    ("repair_tool_call(model=3)",
     lambda: toolparse.repair_tool_call("f", "{}", None, model=3), "model"),
    ("corpus.find_cases(3)", lambda: toolparse.corpus.find_cases(3), "path"),
    ("corpus.load_case(None)", lambda: toolparse.corpus.load_case(None), "path"),
    ("corpus.load_case(root=3)", lambda: toolparse.corpus.load_case("x.txt", root=3), "root"),
    ("corpus.chunkings(None)", lambda: toolparse.corpus.chunkings(None), "case"),
    ("corpus.random_chunks(None, 1)", lambda: toolparse.corpus.random_chunks(None, 1), "text"),
    ("corpus.random_chunks('x', 'a')", lambda: toolparse.corpus.random_chunks("x", "a"), "seed"),
    ("corpus.split_at(None, [1])", lambda: toolparse.corpus.split_at(None, [1]), "text"),
    ("corpus.split_at('abc', 3)", lambda: toolparse.corpus.split_at("abc", 3), "cuts"),
    ("corpus.split_at('abc', ['a'])", lambda: toolparse.corpus.split_at("abc", ["a"]), "cuts[0]"),
    ("corpus.event_records([3])", lambda: toolparse.corpus.event_records([3]), "events[0]"),
    ("corpus.run_case(None)", lambda: toolparse.corpus.run_case(None), "case"),
    ("corpus.run_case(dialect=3)", lambda: toolparse.corpus.run_case(_a_case(), 3), "dialect"),
    ("corpus.records_match(3, [])", lambda: toolparse.corpus.records_match(3, []), "expected"),
    ("corpus.render_records([3])", lambda: toolparse.corpus.render_records([3]), "records[0]"),
    ("corpus.summary_table([3])", lambda: toolparse.corpus.summary_table([3]), "results[0]"),
    ("corpus.update_case(None)", lambda: toolparse.corpus.update_case(None), "case"),
    ("corpus.update_case(dialect=3)",
     lambda: toolparse.corpus.update_case(_a_case(), 3, write=False), "dialect"),
]


@pytest.mark.parametrize(("call", "named"), [case[1:] for case in WRONG_TYPES],
                         ids=[case[0] for case in WRONG_TYPES])
def test_a_wrong_typed_argument_is_a_toolparse_type_error_naming_it(call, named: str) -> None:
    with pytest.raises(toolparse.ToolparseError) as info:
        call()
    assert isinstance(info.value, TypeError), type(info.value).__mro__
    assert named in str(info.value), str(info.value)


def test_a_dialect_of_the_wrong_type_is_still_an_unknown_dialect_error() -> None:
    # Handlers written for the older error keep catching it.
    with pytest.raises(toolparse.UnknownDialectError):
        toolparse.StreamParser(3)
