"""`stream_arguments=True` end to end (SPEC 8 over SPEC 7): the adapter over the real
`StreamParser(incremental=True)`, under any chunking, with the openai SDK's own types
and accumulator, and behind a real `toolparse serve --stream-arguments`.

The oracle is the default mode and `parse()`: a client that accumulates the streamed
entries by index builds the same content and the same calls, and sees each call's
first entry (id, name, `arguments: ""`) no later than the default mode's whole call,
in the output of the chunk that completed its invoke tag. A call cut after its first
entry went out (its block failed or was rejected, the stream ended inside it) is the
one difference: its accumulated arguments never parse as JSON, nothing more of it
comes, its block goes out as content and the choice finishes `stop`.
"""

from __future__ import annotations

import json
import re
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2
import openai
import pytest
from hypothesis import given
from hypothesis import strategies as st
from openai.lib.streaming.chat import ChatCompletionStreamState
from openai.types.chat import ChatCompletionChunk

import toolparse
from toolparse.openai import rewrite_stream, stream_rewriter
from test_openai_support import (
    TOOLS,
    call_text,
    chunks_for,
    client_view,
    counter_ids,
    expected_view,
    rebuilt,
)
from test_serve_support import UpstreamLog, fake_upstream, running, wait_until

READ = call_text("read_file", path="a.md")
ADD = call_text("add", a="1", b="2")
UNKNOWN = call_text("delete_everything", path="/")
BAD_ARGS = call_text("add", a="1", b="two")
LONG = "line of a file\n" * 40
WRITE = ('<tool_calls>\n<invoke name="write_file">\n<parameter name="path" string="true">'
         'notes.md</parameter>\n<parameter name="content" string="true">' + LONG
         + '</parameter>\n</invoke>\n</tool_calls>')
TWO = ('<tool_calls>\n<invoke name="read_file">\n<parameter name="path">a</parameter>\n'
       '</invoke>\n<invoke name="add">\n<parameter name="a">1</parameter>\n'
       '<parameter name="b">2</parameter>\n</invoke>\n</tool_calls>')
DSML = ('<｜DSML｜tool_calls><｜DSML｜invoke name="read_file"><｜DSML｜parameter name="path" '
        'string="true">b.md</｜DSML｜parameter></｜DSML｜invoke></｜DSML｜tool_calls>')
BROKEN = ('<tool_calls><invoke name="read_file"><parameter name="path" string="true">x.md'
          '</parameter></invoke>oops</tool_calls>')
# A JSON body: its closing brace arrives (and goes out as a piece) before the block fails.
BROKEN_JSON = '<tool_calls><invoke name="read_file">{"path": "x.md"}</invoke>oops</tool_calls>'
WRITE_JSON = ('<tool_calls>\n<invoke name="write_file">\n{"path": "n.md", "content": "'
              + "x" * 50 + '"}\n</invoke>\n</tool_calls>')
WRITE_TOOL = {"type": "function", "function": {
    "name": "write_file", "parameters": {
        "type": "object", "properties": {"path": {"type": "string"}, "content": {"type": "string"}},
        "required": ["path", "content"]}}}
ALL_TOOLS = [*TOOLS, WRITE_TOOL]

# Fragments of answers in which no call is announced and then cut: calls that go out,
# calls in Markdown code, prose, and wrapper tags that fail before any invoke.
CLEAN = ["Let me check. ", "Done.\n", "a < b and `x` ", "\n", "<", "<tool_", READ, ADD, WRITE,
         TWO, DSML, "```xml\n" + READ + "\n```\n", "`" + READ + "`", "Use <tool_calls> to wrap. "]
# And calls that are cut after their first entry: rejected by their schema (with
# tools), in a block that breaks, cut short (a JSON body cut short takes all that
# follows, up to an `</invoke>`).
CUT = [UNKNOWN, BAD_ARGS, BROKEN, BROKEN_JSON, WRITE_JSON[:-30],
       '<tool_calls>\n<invoke name="read_file">\n<parameter name="path">cut']
# No backtick and no indentation: nothing waits on a Markdown decision (SPEC 4.3).
PROMPT = ["Let me check. ", "Done.\n", "a < b ", "\n", "<", READ, ADD, WRITE, TWO, DSML]

INVOKE_TAG = re.compile(r'<(?:｜DSML｜|\|DSML\|)?invoke\s+name="[^"]*"\s*/?>')


def split(text: str, cuts: list[int]) -> list[str]:
    points = sorted({0, len(text), *(cut % (len(text) + 1) for cut in cuts)})
    return [text[a:b] for a, b in zip(points, points[1:])]


def run(pieces: list[str], finish: str | None = "stop", stream_arguments: bool = True,
        **options: Any) -> list[Any]:
    return list(rewrite_stream(chunks_for(pieces, finish), id_factory=counter_ids(),
                               stream_arguments=stream_arguments, **options))


def per_input(pieces: list[str], stream_arguments: bool, **options: Any) -> list[list[Any]]:
    """The output of each input chunk (the role chunk first, then one per piece), then
    the finish chunk's and close()'s."""
    rewriter = stream_rewriter(id_factory=counter_ids(), stream_arguments=stream_arguments,
                               **options)
    out = [rewriter.feed(item) for item in chunks_for(pieces)]
    out[-1] += rewriter.close()
    return out


def entries_of(out: list[Any], index: int = 0) -> list[dict[str, Any]]:
    return [entry for item in out for choice in item["choices"] if choice["index"] == index
            for entry in choice["delta"].get("tool_calls") or []]


def parses(arguments: str) -> bool:
    try:
        json.loads(arguments)
    except ValueError:
        return False
    return True


def completed(view: Any) -> list[tuple[str, str, str]]:
    return [call for call in view.call_list() if parses(call[2])]


def check_first_entries(out: list[Any]) -> None:
    """Each call's first entry names it, with `arguments: ""`; later ones carry only
    argument pieces."""
    seen: set[int] = set()
    for entry in entries_of(out):
        if entry["index"] not in seen:
            seen.add(entry["index"])
            assert set(entry) == {"index", "id", "type", "function"}
            assert entry["type"] == "function" and entry["id"].startswith("call_")
            assert entry["function"]["arguments"] == "" and entry["function"]["name"]
        else:
            assert set(entry) == {"index", "function"} and set(entry["function"]) == {"arguments"}
    assert sorted(seen) == list(range(len(seen)))       # counted from 0, no gap


# ---- 1. the same client view as the default, under any chunking -----------------------------

@given(fragments=st.lists(st.sampled_from(CLEAN + CUT), max_size=8),
       cuts=st.lists(st.integers(0, 10**6), max_size=30),
       on_rejected=st.sampled_from(["content", "keep"]), with_tools=st.booleans())
def test_client_view_is_the_default_view_under_any_chunking(
        fragments: list[str], cuts: list[int], on_rejected: str, with_tools: bool) -> None:
    text = "".join(fragments)
    tools = ALL_TOOLS if with_tools else None
    pieces = split(text, cuts)
    out = run(pieces, tools=tools, on_rejected=on_rejected)
    view = client_view(out)[0]
    default = client_view(run(pieces, stream_arguments=False, tools=tools,
                              on_rejected=on_rejected))[0]
    expected = expected_view(text, on_rejected, tools=tools)
    check_first_entries(out)
    calls = completed(view)
    cut = [call for call in view.call_list() if not parses(call[2])]
    if not cut:   # nothing announced was cut: exactly the default view, ids included
        assert view.content == default.content == expected.content
        assert view.call_list() == default.call_list() == expected.calls
        assert view.finish == default.finish == expected.finish
        # Nothing lost, nothing reordered: the content, with each forwarded block's raw
        # text where its first call's entry arrived, is the text.
        assert rebuilt(view, expected) == text
        return
    assert view.finish == "stop"        # a call announced and then cut: never tool_calls
    if on_rejected == "content":
        # Cut calls are those of blocks that go out as content in the default mode too.
        assert view.content == default.content == expected.content
        assert [call[1:] for call in calls] == [call[1:] for call in expected.calls]
    else:
        # "keep" forwards a rejected call whose pieces went out only if they are the
        # start of its final arguments; otherwise its block goes out as content.
        wanted = iter(call[1:] for call in expected.calls)
        assert all(call[1:] in wanted for call in calls)        # a subsequence
        assert len(view.content) >= len(expected.content)


@given(fragments=st.lists(st.sampled_from(CLEAN), max_size=6),
       cuts=st.lists(st.integers(0, 10**6), max_size=20), with_tools=st.booleans())
def test_sdk_chunks_in_and_the_sdk_accumulator_builds_parse_calls(
        fragments: list[str], cuts: list[int], with_tools: bool) -> None:
    text = "".join(fragments)
    tools = ALL_TOOLS if with_tools else None
    upstream = [ChatCompletionChunk.model_validate(c) for c in chunks_for(split(text, cuts))]
    state = ChatCompletionStreamState()
    for item in rewrite_stream(upstream, tools=tools, id_factory=counter_ids(),
                               stream_arguments=True):
        assert isinstance(item, ChatCompletionChunk)
        assert ChatCompletionChunk.model_validate(item.model_dump(exclude_unset=True)) == item
        state.handle_chunk(item)
    final = state.get_final_completion().choices[0]
    expected = expected_view(text, tools=tools)
    assert (final.message.content or "") == expected.content
    assert [(c.id, c.function.name, c.function.arguments)
            for c in final.message.tool_calls or []] == expected.calls
    assert final.finish_reason == expected.finish


# ---- 2. earlier, and as soon as the invoke tag is read ---------------------------------------

def invoke_tag_ends(text: str, **options: Any) -> list[int]:
    """The offset of the last character of each forwarded call's invoke tag."""
    ends = []
    for event in toolparse.parse(text, **options).events:
        if isinstance(event, toolparse.ToolCallBlock):
            tags = list(INVOKE_TAG.finditer(event.raw))
            assert len(tags) == len(event.calls)
            ends += [event.start + tag.end() - 1 for tag in tags]
    return ends


def first_outputs(outputs: list[list[Any]]) -> list[int]:
    """For each call (by index), the number of the input chunk whose output has its
    first entry."""
    first: dict[int, int] = {}
    for number, out in enumerate(outputs):
        for entry in entries_of(out):
            first.setdefault(entry["index"], number)
    return [first[index] for index in sorted(first)]


@given(fragments=st.lists(st.sampled_from(PROMPT), max_size=6),
       cuts=st.lists(st.integers(0, 10**6), max_size=30), with_tools=st.booleans())
def test_a_call_starts_in_the_output_of_the_chunk_that_completes_its_tag(
        fragments: list[str], cuts: list[int], with_tools: bool) -> None:
    text = "".join(fragments)
    tools = ALL_TOOLS if with_tools else None
    pieces = split(text, cuts)
    streamed = first_outputs(per_input(pieces, True, tools=tools))
    whole = first_outputs(per_input(pieces, False, tools=tools))
    assert len(streamed) == len(whole)
    assert all(s <= w for s, w in zip(streamed, whole))
    # Input chunk k (k >= 1; 0 is the role chunk) holds text[starts[k-1]:starts[k]].
    starts = [0]
    for piece in pieces:
        starts.append(starts[-1] + len(piece))
    tag_chunks = [next(k for k in range(1, len(starts)) if starts[k - 1] <= end < starts[k])
                  for end in invoke_tag_ends(text, tools=tools)]
    assert streamed == tag_chunks


def test_long_string_arguments_go_out_while_they_arrive() -> None:
    pieces = [WRITE[k:k + 4] for k in range(0, len(WRITE), 4)]
    outputs = per_input(pieces, True, tools=ALL_TOOLS)
    # with tools the deltas wait for the check (SPEC 7); without, they stream
    outputs_unchecked = per_input(pieces, True)
    block_end = len(pieces)                        # the chunk that completes the block
    early = [n for n, out in enumerate(outputs_unchecked) for e in entries_of(out)
             if "id" not in e and n < block_end - 1]
    assert len(early) > 50                         # piece after piece, before the end
    view = client_view([item for out in outputs_unchecked for item in out])[0]
    assert view.calls[0]["arguments"] == expected_view(WRITE).calls[0][2]
    call_end = (WRITE.index("</invoke>") + len("</invoke>") - 1) // 4 + 1  # its chunk
    checked = [n for n, out in enumerate(outputs) for e in entries_of(out) if "id" not in e]
    assert checked and min(checked) >= call_end


# ---- 3. a block broken after its first invoke ------------------------------------------------

def ordered_pieces(out: list[Any]) -> list[tuple[str, Any]]:
    pieces: list[tuple[str, Any]] = []
    for item in out:
        for choice in item["choices"]:
            delta = choice["delta"]
            pieces += [("entry", entry) for entry in delta.get("tool_calls") or []]
            if delta.get("content"):
                pieces.append(("content", delta["content"]))
    return pieces


@given(cuts=st.lists(st.integers(0, 10**6), max_size=30), with_tools=st.booleans(),
       before=st.sampled_from(["Reading. ", "Reading. " + READ]),
       broken=st.sampled_from([BROKEN, BROKEN_JSON]))
def test_a_block_broken_after_its_first_invoke_is_cut(cuts: list[int], with_tools: bool,
                                                      before: str, broken: str) -> None:
    text = before + broken + " Sorry."
    out = run(split(text, cuts), tools=ALL_TOOLS if with_tools else None)
    view = client_view(out)[0]
    good = expected_view(before).calls             # READ, when it comes first
    assert view.content == "Reading. " + broken + " Sorry."   # the block is text, as written
    assert [c[1:] for c in view.call_list()[:-1]] == [c[1:] for c in good]
    cut = view.calls[len(good)]
    assert cut["name"] == "read_file" and not parses(cut["arguments"])
    assert view.finish == "stop"                     # never tool_calls, even after READ
    # Nothing of the cut call once the block's text began to go out as content.
    sent = ""
    for kind, value in ordered_pieces(out):
        if kind == "content":
            sent += value
        elif value["index"] == len(good):
            assert len(sent) <= len("Reading. "), "an entry after the aborted block's text"


# ---- 4. a rejected call, under each policy ---------------------------------------------------

@pytest.mark.parametrize("size", [1, 4, 1000])
@pytest.mark.parametrize("on_rejected", ["content", "drop", "keep"])
@pytest.mark.parametrize("before", ["", READ], ids=["alone", "after_a_call"])
def test_an_unknown_tool_after_its_first_entry(size: int, on_rejected: str, before: str) -> None:
    text = before + "Deleting. " + UNKNOWN + " ok"
    out = run([text[k:k + size] for k in range(0, len(text), size)], tools=TOOLS,
              on_rejected=on_rejected)
    view = client_view(out)[0]
    check_first_entries(out)
    good = expected_view(before).calls
    assert [c[1:] for c in view.call_list()[:len(good)]] == [c[1:] for c in good]
    unknown = len(good)
    assert list(view.calls) == list(range(unknown + 1))
    assert view.calls[unknown]["name"] == "delete_everything"
    if on_rejected == "keep":
        assert view.calls[unknown]["arguments"] == '{"path":"/"}'
        assert (view.content, view.finish) == ("Deleting.  ok", "tool_calls")
    else:
        assert [e for e in entries_of(out) if e["index"] == unknown][1:] == []
        assert view.calls[unknown]["arguments"] == ""
        assert (view.content, view.finish) == ("Deleting. " + UNKNOWN + " ok", "stop")


@pytest.mark.parametrize("size", [1, 4, 1000])
def test_drop_with_a_started_rejected_call_sends_the_whole_block_as_text(size: int) -> None:
    block = ('<tool_calls>\n<invoke name="read_file"><parameter name="path">a</parameter></invoke>\n'
             '<invoke name="nope"></invoke>\n</tool_calls>')
    out = run([block[k:k + size] for k in range(0, len(block), size)], tools=TOOLS,
              on_rejected="drop")
    view = client_view(out)[0]
    assert [call["name"] for call in view.calls.values()] == ["read_file", "nope"]
    assert not any(parses(call["arguments"]) for call in view.calls.values())
    assert (view.content, view.finish) == (block, "stop")


@pytest.mark.parametrize("size", [1, 4, 1000])
def test_a_parameter_written_twice_cuts_its_streamed_call(size: int) -> None:
    # parse() makes one call {"p": ["aaaa", "bbbb"]}; the pieces that went out before
    # the second name ({"p":"aaaa...) are not its start, so the call cannot complete.
    text = ('x <tool_calls><invoke name="r"><parameter name="p" string="true">aaaa</parameter>'
            '<parameter name="p" string="true">bbbb</parameter></invoke></tool_calls>')
    out = run([text[k:k + size] for k in range(0, len(text), size)])
    view = client_view(out)[0]
    assert expected_view(text).calls[0][2] == '{"p":["aaaa","bbbb"]}'
    assert list(view.calls) == [0] and not parses(view.calls[0]["arguments"])
    assert "bbbb" not in view.calls[0]["arguments"]
    assert (view.content, view.finish) == (text, "stop")


# ---- 5. a stream cut inside a started call ---------------------------------------------------

@pytest.mark.parametrize("finish, reason", [("length", "length"), (None, "stop"), ("stop", "stop")])
@pytest.mark.parametrize("cut", [
    WRITE[:len('<tool_calls>\n<invoke name="write_file">')],   # just the tag
    WRITE[:WRITE.index("line") + 30],                           # inside a string value
    WRITE_JSON[:WRITE_JSON.index("}") + 1],                     # a whole JSON body, no </invoke>
], ids=["tag", "value", "json_body"])
@pytest.mark.parametrize("before", ["", READ], ids=["alone", "after_a_call"])
def test_a_stream_cut_inside_a_started_call(finish: str | None, reason: str, cut: str,
                                            before: str) -> None:
    text = before + "Writing. " + cut
    out = run([text[k:k + 4] for k in range(0, len(text), 4)], finish=finish)
    view = client_view(out)[0]
    good = expected_view(before).calls
    assert [c[1:] for c in view.call_list()[:len(good)]] == [c[1:] for c in good]
    assert list(view.calls) == list(range(len(good) + 1))
    assert view.calls[len(good)]["name"] == "write_file"
    assert not parses(view.calls[len(good)]["arguments"])
    assert (view.content, view.finish) == ("Writing. " + cut, reason)


# ---- 6. two choices, interleaved -------------------------------------------------------------

@given(order=st.lists(st.booleans(), min_size=80, max_size=80))
def test_two_interleaved_choices_keep_their_own_calls(order: list[bool]) -> None:
    texts = {0: "First: " + WRITE + " ok", 1: "Second: " + READ.replace("a.md", "b" * 60)}
    queues = {i: chunks_for([t[k:k + 5] for k in range(0, len(t), 5)], index=i)
              for i, t in texts.items()}
    upstream = []
    for pick in order + [True] * 400 + [False] * 400:
        queue = queues[int(pick)] or queues[1 - int(pick)]
        if queue:
            upstream.append(queue.pop(0))
    out = list(rewrite_stream(upstream, stream_arguments=True))
    views = client_view(out)
    for i, text in texts.items():
        expected = expected_view(text)
        assert views[i].content == expected.content
        assert [c[1:] for c in views[i].call_list()] == [c[1:] for c in expected.calls]
        assert list(views[i].calls) == [0] and views[i].finish == "tool_calls"
    assert views[0].calls[0]["id"] != views[1].calls[0]["id"]
    pieces = {i: [e["function"]["arguments"] for e in entries_of(out, i)] for i in texts}
    assert len(pieces[0]) > 10                       # the long one streamed
    assert not any("line of" in p for p in pieces[1])
    assert not any("bbb" in p for p in pieces[0])


# ---- 7. toolparse serve --stream-arguments, with the openai client ----------------------------

SERVED = [
    "Let me read it.\n" + READ + "\nDone.",
    "In Markdown, write `<tool_calls>` like this:\n```\n" + READ + "\n```\nThat was an example.",
    "Two: " + READ + ADD,
    "Writing it.\n" + WRITE,
    "Both at once: " + TWO,
]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The base URL of a `toolparse serve --stream-arguments` process (the command, as a
    user starts it) in front of the fake upstream."""
    log = tmp_path_factory.mktemp("serve") / "stderr.txt"
    with running(fake_upstream(UpstreamLog())) as upstream, log.open("wb") as stderr:
        port = free_port()
        process = subprocess.Popen(
            [sys.executable, "-m", "toolparse", "serve", "--upstream", upstream.url + "/v1",
             "--port", str(port), "--stream-arguments", "--log-level", "warning"],
            stdout=subprocess.DEVNULL, stderr=stderr)
        try:
            # (A bound, not a timing: a loaded machine can take long to start a process.)
            wait_until(lambda: healthy(port, process, log), what="toolparse serve to start",
                       seconds=90)
            yield f"http://127.0.0.1:{port}/v1"
        finally:
            process.terminate()
            process.wait(timeout=10)


def healthy(port: int, process: subprocess.Popen[bytes], log: Path) -> bool:
    if process.poll() is not None:
        raise AssertionError("toolparse serve exited: " + log.read_text())
    try:
        return httpx2.get(f"http://127.0.0.1:{port}/healthz", timeout=1).status_code == 200
    except httpx2.TransportError:
        return False


def streamed(base_url: str, answer: str, model: str = "replay",
             **options: Any) -> tuple[Any, list[dict[str, Any]]]:
    """The final completion the SDK's accumulator builds, and the chunks as dicts."""
    state = ChatCompletionStreamState()
    chunks = []
    with openai.OpenAI(base_url=base_url, api_key="sk-x", max_retries=0, timeout=20) as client:
        for item in client.chat.completions.create(
                model=model, messages=[{"role": "user", "content": answer}], stream=True,
                **options):
            state.handle_chunk(item)
            chunks.append(item.model_dump(exclude_unset=True))
    return state.get_final_completion().choices[0], chunks


@pytest.mark.parametrize("answer", SERVED, ids=range(len(SERVED)))
@pytest.mark.parametrize("with_tools", [True, False])
def test_serve_stream_arguments_with_the_openai_client(served: str, answer: str,
                                                       with_tools: bool) -> None:
    tools = ALL_TOOLS if with_tools else None
    # The file's content is paced (an event every 5 ms), so that the proxy reads its
    # events apart: events that come in one read are rewritten as one chunk.
    paced = answer.startswith("Writing") and not with_tools
    final, chunks = streamed(served, answer, "paced" if paced else "replay",
                             **({"tools": tools} if tools else {}))
    expected = expected_view(answer, tools=tools)
    assert (final.message.content or "") == expected.content
    assert [(c.function.name, c.function.arguments) for c in final.message.tool_calls or []] \
        == [call[1:] for call in expected.calls]
    assert final.finish_reason == expected.finish
    check_first_entries(chunks)
    if paced:   # the file's content, as it came
        assert len([e for e in entries_of(chunks) if "id" not in e]) > 10


def test_serve_stream_arguments_cut_call(served: str) -> None:
    answer = "Cut off: " + READ[:45]
    final, chunks = streamed(served, answer)
    assert final.message.content == answer and final.finish_reason == "stop"
    (call,) = final.message.tool_calls or []
    assert call.function.name == "read_file" and not parses(call.function.arguments)
    check_first_entries(chunks)
