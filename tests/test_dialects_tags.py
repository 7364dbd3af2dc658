"""The special-token and tag dialects of the third wave (issue 43), rule by rule: each
one's markup as its model's template writes it, the texts the serving engines test
their parsers with (as facts of the format), its leniencies and what it does not
accept. The guarantees of SPEC section 1 per dialect are in test_dialects_properties.py,
which picks these up from test_dialects_samples.SAMPLES."""

from __future__ import annotations

import json
from typing import Any

import pytest

import toolparse
from conftest import calls_of, check_chunkings  # noqa: F401  (the fixture)


def tool(name: str, properties: dict[str, Any]) -> dict[str, Any]:
    return {"type": "function", "function": {"name": name, "parameters": {
        "type": "object", "properties": properties}}}


# ---- deepseek_v3 -------------------------------------------------------------------------------

V3 = "deepseek_v3"
V3_BEGIN, V3_END = "<｜tool▁calls▁begin｜>", "<｜tool▁calls▁end｜>"


def v3_call(name: str, arguments: str, kind: str = "function") -> str:
    return (f"<｜tool▁call▁begin｜>{kind}<｜tool▁sep｜>{name}\n```json\n{arguments}\n```"
            "<｜tool▁call▁end｜>")


def test_v3_the_template_layout_gives_each_call(check_chunkings) -> None:
    # Two calls, a newline between them, as the R1 template joins them; the text
    # before the section is content, and so is the text after it.
    block = (V3_BEGIN + v3_call("get_weather", '{"city": "Tokyo", "unit": "celsius"}') + "\n"
             + v3_call("search_hotels", '{"location": "Tokyo", "check_in": "2025-01-15"}')
             + V3_END)
    assert check_chunkings("Let me check." + block + " Done.", dialect=V3) == [
        ("text", "Let me check."),
        ("block", block, [("get_weather", {"city": "Tokyo", "unit": "celsius"}),
                          ("search_hotels", {"location": "Tokyo", "check_in": "2025-01-15"})]),
        ("text", " Done.")]


def test_v3_arguments_are_json_as_written() -> None:
    # Every JSON type, escapes, an empty object: the arguments text goes on as written.
    arguments = ('{"s": "He said \\"hi\\"", "path": "C:\\\\Users\\\\f", "n": 42, "x": 3.14, '
                 '"b": true, "z": null, "a": ["a", "b"], "o": {"k": "v"}, "e": [], "eo": {}}')
    (call,) = toolparse.parse(V3_BEGIN + v3_call("f", arguments) + V3_END, dialect=V3).calls
    assert call.arguments == json.loads(arguments) and call.arguments_json == arguments
    (empty,) = toolparse.parse(V3_BEGIN + v3_call("now", "{}") + V3_END, dialect=V3).calls
    assert (empty.name, empty.arguments) == ("now", {})


def test_v3_a_fence_inside_a_value_is_the_values(check_chunkings) -> None:
    # The body ends only at the ``` that <｜tool▁call▁end｜> follows.
    value = {"code": "```python\nprint(1)\n```", "tick": "`a` ``b``"}
    block = V3_BEGIN + v3_call("run", json.dumps(value)) + V3_END
    assert check_chunkings(block, dialect=V3) == [("block", block, [("run", value)])]


def test_v3_the_blocks_fence_is_not_markdown(check_chunkings) -> None:
    # SPEC G3a: the fence inside a block opens no code; after the block, a code span is
    # a code span and a block is a block, as if the block were one word.
    first = V3_BEGIN + v3_call("a", "{}") + V3_END
    second = V3_BEGIN + v3_call("b", "{}") + V3_END
    text = f"{first}\nThen `{second}` is quoted, and\n{second}\n"
    assert check_chunkings(text, dialect=V3) == [
        ("block", first, [("a", {})]), ("text", text[len(first):text.rindex(second)]),
        ("block", second, [("b", {})]), ("text", "\n")]
    # After an unmatched backtick the block waits on the paragraph (SPEC 4.3); its own
    # backticks are not runs of that paragraph.
    held = f"Use `x {first} and` more"
    assert check_chunkings(held, dialect=V3) == [("text", held)]


@pytest.mark.parametrize("broken", [
    # The fence never closed: the section end inside the body.
    V3_BEGIN + "<｜tool▁call▁begin｜>function<｜tool▁sep｜>f\n```json\n{\"a\": 1}" + V3_END,
    # Text between the fence and the call end.
    V3_BEGIN + v3_call("f", '{"a": 1}').replace("```<", "``` oops<") + V3_END,
])
def test_v3_a_body_never_runs_on_into_the_next_block(broken: str, check_chunkings) -> None:
    events = check_chunkings(broken + "\n", dialect=V3)
    assert events[0] == ("failed", broken, "unexpected_token")
    # A real block in a new answer (a fresh stream) after the same text is still one.
    real = V3_BEGIN + v3_call("g", "{}") + V3_END
    assert calls_of("Sure.\n" + real, dialect=V3) == [("g", {})]


def test_v3_a_section_without_a_call_token_is_a_prose_mention(check_chunkings) -> None:
    # The section token, then a call without <｜tool▁call▁begin｜>: the token alone fails,
    # and the rest is text.
    rest = 'function<｜tool▁sep｜>get_weather\n```json\n{"city": "Tokyo"}\n```' + V3_END
    events = check_chunkings(V3_BEGIN + rest, dialect=V3)
    assert events == [("failed", V3_BEGIN, "unexpected_token"), ("text", rest)]


@pytest.mark.parametrize("token", ["<｜tool▁sep｜>", "<｜tool▁call▁end｜>", "<｜tool▁calls▁end｜>",
                                   "<｜tool▁call▁begin｜>"])
def test_v3_a_stray_special_token_is_text(token: str, check_chunkings) -> None:
    text = f"The token {token} alone."
    assert check_chunkings(text, dialect=V3) == [("text", text)]
    assert check_chunkings(text, dialect="auto") == [("text", text)]


def test_v3_only_a_function_call_is_read() -> None:
    text = V3_BEGIN + v3_call("hmm", "{}", kind="thought") + V3_END
    assert toolparse.parse(text, dialect=V3).calls == ()


def test_v3_arguments_that_are_not_json_reject_the_call_not_the_block() -> None:
    # An unclosed object before the fence: the block is a block, its call rejected.
    (block,) = toolparse.parse(V3_BEGIN + v3_call("f", '{"city": "Tokyo"') + V3_END,
                               dialect=V3).events
    assert isinstance(block, toolparse.ToolCallBlock) and not block.accepted
    assert block.calls[0].reason == "invalid_json"


def test_v3_the_fence_may_sit_on_the_names_line() -> None:
    text = V3_BEGIN + "<｜tool▁call▁begin｜>function<｜tool▁sep｜>f ```json{}```<｜tool▁call▁end｜>" + V3_END
    assert calls_of(text, dialect=V3) == [("f", {})]
    assert toolparse.Dialect.bundled(V3)._grammars[0].accept_only == {"_LENIENT_SAME_LINE"}
