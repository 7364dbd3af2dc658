"""toolparse.openai (SPEC 8): OpenAI chunks with tool-call markup in, tool_calls out.

The oracle is `parse()`: under any chunking, the view an OpenAI client accumulates
from the rewritten stream is parse()'s text and forwarded calls, and the content plus
the raw of every forwarded block, in arrival order, is the content in.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from openai.lib.streaming.chat import ChatCompletionStreamState
from openai.types.chat import ChatCompletion, ChatCompletionChunk

import toolparse
from toolparse.openai import (
    ChunkFormatError,
    arewrite_stream,
    rewrite_completion,
    rewrite_stream,
    stream_rewriter,
)
from test_openai_support import (
    TOOLS,
    call_text,
    chunk,
    chunks_for,
    client_view,
    completion_for,
    counter_ids,
    envelope,
    expected_view,
    rebuilt,
)

READ = call_text("read_file", path="a.md")
UNKNOWN = call_text("delete_everything", path="/")
BAD_ARGS = call_text("add", a="1", b="two")


def run(pieces: list[str], finish: str | None = "stop", **options: Any) -> list[Any]:
    return list(rewrite_stream(chunks_for(pieces, finish), id_factory=counter_ids(), **options))


def split(text: str, cuts: list[int]) -> list[str]:
    points = sorted({0, len(text), *(cut % (len(text) + 1) for cut in cuts)})
    return [text[a:b] for a, b in zip(points, points[1:])]


# ---- the oracle, under any chunking -----------------------------------------------------

FRAGMENTS = st.sampled_from([
    "Let me check. ", "Done.\n", "a < b and `x` ", "\n", "```\n", "`", "<", "<tool_",
    READ, UNKNOWN, BAD_ARGS, call_text("add", a="1", b="2"),
    "```xml\n" + READ + "\n```\n", "`" + READ + "`",
    '<tool_calls><invoke name="read_file"><parameter name="path">x</parameter>oops'
    "</invoke></tool_calls>",
    "Use <tool_calls> to wrap calls. ",
    '<tool_calls>\n<invoke name="read_file">\n<parameter name="path">cut',
])


@given(fragments=st.lists(FRAGMENTS, max_size=8), cuts=st.lists(st.integers(0, 10**6), max_size=30),
       on_rejected=st.sampled_from(["content", "drop", "keep"]), with_tools=st.booleans())
def test_client_view_is_parse_view_under_any_chunking(fragments: list[str], cuts: list[int],
                                                      on_rejected: str, with_tools: bool) -> None:
    text = "".join(fragments)
    tools = TOOLS if with_tools else None
    out = run(split(text, cuts), tools=tools, on_rejected=on_rejected)
    view = client_view(out)[0]
    expected = expected_view(text, on_rejected, tools=tools)
    assert view.content == expected.content
    assert view.call_list() == expected.calls
    assert view.finish == expected.finish
    assert rebuilt(view, expected) == text          # nothing lost, nothing reordered
    for call in view.calls.values():
        json.loads(call["arguments"])               # standard JSON (G11)


@given(fragments=st.lists(FRAGMENTS, max_size=6), cuts=st.lists(st.integers(0, 10**6), max_size=20))
def test_sdk_objects_in_sdk_objects_out_and_the_sdk_accumulates_them(fragments: list[str],
                                                                     cuts: list[int]) -> None:
    text = "".join(fragments)
    upstream = [ChatCompletionChunk.model_validate(c) for c in chunks_for(split(text, cuts))]
    state = ChatCompletionStreamState()
    out = list(rewrite_stream(upstream, tools=TOOLS, id_factory=counter_ids()))
    for item in out:
        assert isinstance(item, ChatCompletionChunk)
        assert ChatCompletionChunk.model_validate(item.model_dump(exclude_unset=True)) == item
        state.handle_chunk(item)
    final = state.get_final_completion().choices[0]
    expected = expected_view(text, tools=TOOLS)
    assert (final.message.content or "") == expected.content
    assert [(c.id, c.function.name, c.function.arguments)
            for c in final.message.tool_calls or []] == expected.calls
    assert final.finish_reason == expected.finish


def test_prose_chunks_pass_as_the_same_objects() -> None:
    upstream = chunks_for(["Hello", " world", ", no calls here."])
    out = list(rewrite_stream(upstream))
    assert [id(c) for c in out] == [id(c) for c in upstream]


def test_text_before_and_after_a_call_keeps_its_order() -> None:
    out = run(["Looking.\n" + READ[:20], READ[20:] + "\nThen more."])
    view = client_view(out)[0]
    assert view.ordered == [("content", "Looking.\n"), ("call", "call_0"),
                            ("content", "\nThen more.")]
    assert view.calls[0] == {"id": "call_0", "name": "read_file", "arguments": '{"path":"a.md"}'}
    assert view.finish == "tool_calls"
    entry = next(e for c in out for ch in c["choices"] for e in ch["delta"].get("tool_calls", []))
    assert entry == {"index": 0, "id": "call_0", "type": "function",
                     "function": {"name": "read_file", "arguments": '{"path":"a.md"}'}}


def test_calls_count_from_zero_and_ids_come_from_the_factory() -> None:
    view = client_view(run([READ, "and ", call_text("add", a="1", b="2")], tools=TOOLS))[0]
    assert view.call_list() == [("call_0", "read_file", '{"path":"a.md"}'),
                                ("call_1", "add", '{"a":1,"b":2}')]
    random_ids = client_view(rewrite_stream(chunks_for([READ])))[0]
    assert random_ids.calls[0]["id"].startswith("call_") and len(random_ids.calls[0]["id"]) == 29


def test_tools_as_sdk_objects_or_a_one_shot_iterator() -> None:
    from openai.types.chat import ChatCompletionFunctionTool

    text = READ + UNKNOWN
    expected = expected_view(text, tools=TOOLS)
    sdk_tools = [ChatCompletionFunctionTool.model_validate(tool) for tool in TOOLS]
    for tools in (sdk_tools, iter(TOOLS)):
        both = envelope(choices=[{"index": i, "delta": {"content": text}, "finish_reason": "stop"}
                                 for i in (0, 1)])
        views = client_view(rewrite_stream([both], tools=tools, id_factory=counter_ids()))
        assert views[0].content == views[1].content == expected.content
        assert [c[1:] for c in views[1].call_list()] == [c[1:] for c in expected.calls]


# ---- several choices -----------------------------------------------------------------------

@given(order=st.lists(st.booleans(), min_size=40, max_size=40))
def test_two_choices_interleaved_each_have_their_own_parser_and_indexes(order: list[bool]) -> None:
    texts = {0: "First: " + READ + " ok", 1: "Second `<tool_calls>` " + call_text("add", a="1", b="2")}
    queues = {i: chunks_for([t[k:k + 7] for k in range(0, len(t), 7)], index=i)
              for i, t in texts.items()}
    upstream = []
    for pick in order + [True] * 100 + [False] * 100:
        queue = queues[int(pick)] or queues[1 - int(pick)]
        if queue:
            upstream.append(queue.pop(0))
    views = client_view(rewrite_stream(upstream))
    for i, text in texts.items():
        expected = expected_view(text)
        assert views[i].content == expected.content
        assert [(name, args) for _, name, args in views[i].call_list()] == \
               [(name, args) for _, name, args in expected.calls]
        assert list(views[i].calls) == [0]           # each choice counts its calls from 0
        assert views[i].finish == "tool_calls"


def test_two_choices_in_one_chunk() -> None:
    both = envelope(choices=[{"index": 0, "delta": {"content": READ}, "finish_reason": "stop"},
                             {"index": 1, "delta": {"content": "just text"}, "finish_reason": "stop"}])
    views = client_view(rewrite_stream([both], id_factory=counter_ids()))
    assert views[0].call_list() == [("call_0", "read_file", '{"path":"a.md"}')]
    assert views[0].finish == "tool_calls"
    assert (views[1].content, views[1].calls, views[1].finish) == ("just text", {}, "stop")


# ---- rejected calls ---------------------------------------------------------------------

def test_rejected_call_default_content_sends_the_block_as_text_and_no_call() -> None:
    text = "Try: " + READ + UNKNOWN
    view = client_view(run([text], tools=TOOLS))[0]
    assert view.call_list() == [("call_0", "read_file", '{"path":"a.md"}')]
    assert view.content == "Try: " + UNKNOWN          # the rejected block, as its text
    assert view.finish == "tool_calls"                  # READ's own block was accepted


def test_rejected_call_in_one_block_under_each_policy() -> None:
    block = ('<tool_calls>\n<invoke name="read_file"><parameter name="path">a</parameter></invoke>\n'
             '<invoke name="nope"></invoke>\n</tool_calls>')
    content = client_view(run(["x ", block], tools=TOOLS, on_rejected="content"))[0]
    assert (content.content, content.calls, content.finish) == ("x " + block, {}, "stop")
    drop = client_view(run(["x ", block], tools=TOOLS, on_rejected="drop"))[0]
    assert drop.content == "x "
    assert drop.call_list() == [("call_0", "read_file", '{"path":"a"}')]
    assert drop.finish == "tool_calls"
    keep = client_view(run(["x ", block], tools=TOOLS, on_rejected="keep"))[0]
    assert keep.content == "x "
    assert keep.call_list() == [("call_0", "read_file", '{"path":"a"}'), ("call_1", "nope", "{}")]
    assert keep.finish == "tool_calls"


def test_drop_of_a_block_whose_only_call_is_rejected_keeps_its_text() -> None:
    view = client_view(run([UNKNOWN], tools=TOOLS, on_rejected="drop"))[0]
    assert (view.content, view.calls, view.finish) == (UNKNOWN, {}, "stop")


def test_rejected_option_values() -> None:
    with pytest.raises(toolparse.ConfigError, match="on_rejected"):
        rewrite_stream([], on_rejected="run")  # type: ignore[arg-type]
    with pytest.raises(toolparse.SchemaError):  # at the call, before any chunk is read
        rewrite_stream(iter(()), tools=[{"type": "function", "function": {
            "name": "f", "parameters": {"$ref": "https://example.com/schema"}}}])
    with pytest.raises(toolparse.ConfigTypeError, match="unknown parser option 'colour'"):
        rewrite_stream([], colour="blue")
    with pytest.raises(toolparse.ConfigTypeError, match="stream_arguments"):
        rewrite_stream([], incremental=True)
    with pytest.raises(toolparse.ConfigTypeError, match="stream_arguments"):
        rewrite_stream([], stream_arguments="yes")  # type: ignore[arg-type]


# ---- finish_reason ------------------------------------------------------------------------

def test_length_passes_through_even_after_a_call() -> None:
    view = client_view(run([READ, " and then"], finish="length"))[0]
    assert view.finish == "length" and len(view.calls) == 1


def test_cut_by_length_inside_a_block_ends_length_with_the_block_as_text() -> None:
    cut = READ[:40]
    view = client_view(run(["Reading ", cut], finish="length"))[0]
    assert (view.content, view.calls, view.finish) == ("Reading " + cut, {}, "length")


def test_stop_inside_an_open_block_is_text_and_stop() -> None:
    cut = READ[:40]
    view = client_view(run(["Reading ", cut], finish="stop"))[0]
    assert (view.content, view.calls, view.finish) == ("Reading " + cut, {}, "stop")


def test_a_stream_that_ends_without_finish_reason_is_finished_by_close() -> None:
    out = run(["Reading ", READ[:30]], finish=None)
    view = client_view(out)[0]
    assert (view.content, view.finish) == ("Reading " + READ[:30], "stop")
    assert out[-1]["id"] == "chatcmpl-1" and out[-1]["model"] == "deepseek-v3"
    assert client_view(run([READ], finish=None))[0].finish == "tool_calls"


def test_other_finish_reasons_pass_through() -> None:
    assert client_view(run([READ], finish="content_filter"))[0].finish == "content_filter"


# ---- what passes through -------------------------------------------------------------------

def test_usage_only_final_chunk_passes_through_unchanged() -> None:
    usage = envelope(choices=[], usage={"prompt_tokens": 3, "completion_tokens": 4, "total_tokens": 7})
    out = list(rewrite_stream(chunks_for([READ]) + [usage]))
    assert out[-1] is usage
    assert sum(1 for c in out if c.get("usage")) == 1


def test_role_reasoning_logprobs_and_unknown_fields_pass_through() -> None:
    logprobs = {"content": [{"token": "<", "logprob": -0.1, "bytes": [60], "top_logprobs": []}]}
    first = envelope(system_fingerprint="fp1", x_chunk="kept",
                     choices=[{"index": 0, "delta": {"role": "assistant", "content": "",
                                                     "reasoning_content": "thinking"},
                               "finish_reason": None, "logprobs": None, "x_choice": 1}])
    held = envelope(x_chunk="kept", choices=[{"index": 0, "delta": {"content": READ[:10]},
                                              "finish_reason": None, "logprobs": logprobs,
                                              "x_choice": 2}])
    out = list(rewrite_stream([first, held, chunk(0, "stop", content=READ[10:])]))
    assert out[0] is first
    assert out[1]["choices"][0]["logprobs"] == logprobs   # its content is held, not its logprobs
    assert out[1]["choices"][0]["delta"] == {"content": ""}
    assert out[1]["choices"][0]["finish_reason"] is None
    assert out[1]["x_chunk"] == "kept" and out[1]["choices"][0]["x_choice"] == 2


def test_a_chunk_whose_content_is_only_held_is_not_sent() -> None:
    out = run([READ[:10], READ[10:20], READ[20:]], finish="stop")
    assert len(out) == 3  # role chunk, the call, the finish
    assert out[1]["choices"][0]["delta"]["tool_calls"][0]["function"]["name"] == "read_file"


def test_upstream_tool_calls_are_renumbered_after_ours() -> None:
    upstream = [chunk(0, content=READ),
                chunk(0, tool_calls=[{"index": 0, "id": "call_up", "type": "function",
                                      "function": {"name": "up", "arguments": "{}"}}]),
                chunk(0, "tool_calls")]
    view = client_view(rewrite_stream(upstream, id_factory=counter_ids()))[0]
    assert view.call_list() == [("call_0", "read_file", '{"path":"a.md"}'), ("call_up", "up", "{}")]
    assert upstream[1]["choices"][0]["delta"]["tool_calls"][0]["index"] == 0  # input untouched


def test_content_after_finish_reason_passes_as_text() -> None:
    out = list(rewrite_stream([chunk(0, "stop", content="a"), chunk(0, content=READ)]))
    assert client_view(out)[0].content == "a" + READ


# ---- bad input ----------------------------------------------------------------------------

@pytest.mark.parametrize("bad, message", [
    ("text", "must be a mapping or an openai SDK object"),
    (envelope(choices="x"), "choices must be a list"),
    (envelope(choices=["x"]), r"choices\[0\] must be an object"),
    (envelope(choices=[{"index": "0", "delta": {}}]), r"choices\[0\].index must be an integer"),
    (envelope(choices=[{"index": 0, "delta": []}]), r"choices\[0\].delta must be an object"),
    (envelope(choices=[{"index": 0, "delta": {"content": 5}}]), "content must be a string or null"),
    (envelope(choices=[{"index": 0, "delta": {"tool_calls": {}}}]), "tool_calls must be a list"),
])
def test_a_malformed_chunk_raises_a_clear_error_and_changes_nothing(bad: Any, message: str) -> None:
    rewriter = stream_rewriter(id_factory=counter_ids())
    rewriter.feed(chunk(0, content="Hi " + READ[:20]))
    with pytest.raises(ChunkFormatError, match=message):
        rewriter.feed(bad)
    out = rewriter.feed(chunk(0, "stop", content=READ[20:])) + rewriter.close()
    assert client_view(out)[0].call_list() == [("call_0", "read_file", '{"path":"a.md"}')]
    with pytest.raises(toolparse.StreamClosedError):
        rewriter.feed(chunk(0, content="x"))


def test_a_chunk_without_choices_key_passes_through() -> None:
    error = {"error": {"message": "overloaded", "type": "server_error"}}
    assert list(rewrite_stream([error])) == [error]


# ---- async ----------------------------------------------------------------------------------

def test_async_iteration_gives_the_same_view() -> None:
    text = "Checking `<invoke>` first.\n" + READ + "\nok"

    async def upstream() -> AsyncIterator[dict[str, Any]]:
        for item in chunks_for([text[k:k + 3] for k in range(0, len(text), 3)]):
            await asyncio.sleep(0)
            yield item

    async def collect() -> list[Any]:
        return [c async for c in arewrite_stream(upstream(), id_factory=counter_ids())]

    view = client_view(asyncio.run(collect()))[0]
    expected = expected_view(text)
    assert (view.content, view.call_list(), view.finish) == (expected.content, expected.calls,
                                                             "tool_calls")


# ---- non-streaming --------------------------------------------------------------------------

def test_rewrite_completion_dict_and_sdk() -> None:
    text = "Sure.\n" + READ
    out = rewrite_completion(completion_for(text), id_factory=counter_ids())
    message = out["choices"][0]["message"]
    assert message["content"] == "Sure.\n"
    assert message["tool_calls"] == [{"id": "call_0", "type": "function",
                                      "function": {"name": "read_file",
                                                   "arguments": '{"path":"a.md"}'}}]
    assert out["choices"][0]["finish_reason"] == "tool_calls"
    assert out["usage"]["total_tokens"] == 12
    sdk = rewrite_completion(ChatCompletion.model_validate(completion_for(READ)), tools=TOOLS)
    assert isinstance(sdk, ChatCompletion)
    assert sdk.choices[0].message.content is None           # only calls: null, as OpenAI sends
    assert sdk.choices[0].message.tool_calls[0].function.name == "read_file"  # type: ignore[index,union-attr]


def test_rewrite_completion_rejected_and_length() -> None:
    out = rewrite_completion(completion_for(UNKNOWN), tools=TOOLS)
    assert out["choices"][0]["message"]["content"] == UNKNOWN
    assert "tool_calls" not in out["choices"][0]["message"]
    assert out["choices"][0]["finish_reason"] == "stop"
    cut = rewrite_completion(completion_for("x " + READ[:30], finish="length"))
    assert cut["choices"][0]["message"]["content"] == "x " + READ[:30]
    assert cut["choices"][0]["finish_reason"] == "length"


def test_rewrite_completion_without_choices_or_content() -> None:
    empty = {"id": "x", "object": "chat.completion", "choices": []}
    assert rewrite_completion(empty) is empty
    refusal = completion_for("x")
    refusal["choices"][0]["message"] = {"role": "assistant", "content": None, "refusal": "no"}
    assert rewrite_completion(refusal)["choices"][0]["message"]["refusal"] == "no"
