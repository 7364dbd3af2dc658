"""mistral's bad input (issue 49): calls that never close, deep nesting, the call token
in prose, and `auto` (the library's renderings are in test_mistral_common.py)."""

from __future__ import annotations

import pytest

import toolparse
from conftest import joined, shape, stream


def test_json_that_never_closes_fails_at_max_capture_with_its_text_kept() -> None:
    text = 'Sure.[TOOL_CALLS]f[ARGS]{"a": "' + "x" * 1_000_000
    result = toolparse.parse(text, "mistral", max_capture=100_000)
    assert result.calls == () and joined(result.events) == text
    assert [f.reason for f in result.failures] == ["max_capture"]
    result = toolparse.parse(text, "mistral")
    assert result.calls == () and [f.reason for f in result.failures] == ["truncated"]


def test_ten_thousand_levels_give_events() -> None:
    depth = 10_000
    text = '[TOOL_CALLS]f[ARGS]{"a": ' + "[" * depth + "]" * depth + "} ok"
    events = stream([text[i:i + 64] for i in range(0, len(text), 64)], dialect="mistral")
    assert joined(events) == text
    assert shape(events)[-1] == ("text", " ok")
    (call,) = toolparse.parse(text, "mistral").calls
    assert call.status == "rejected"   # deeper than the typing reads (SPEC G8)


@pytest.mark.parametrize("dialect", ["mistral", "auto"])
@pytest.mark.parametrize("prose", [
    "The [TOOL_CALLS] token starts calls.",
    "See [TOOL_CALLS](https://docs.mistral.ai) for [TOOL_CALLS]: a list [1, 2].",
    "[TOOL_CALLS]Sure, here is the answer.",
    "[TOOL_CALLS] [not a call]",
    # A listed call's object starts no block: only `[TOOL_CALLS][` opens a list.
    'The shape is {"name": "f", "arguments": {}}, in a list: [{"name": "f", "arguments": {}}].',
])
def test_the_call_token_in_prose_is_text(dialect: str, prose: str) -> None:
    text = prose + '\n[TOOL_CALLS]get_time[ARGS]{"tz": "UTC"}'
    result = toolparse.parse(text, dialect)
    assert [(c.name, c.arguments) for c in result.calls] == [("get_time", {"tz": "UTC"})]
    assert result.text.startswith(prose) and "get_time" not in result.text


@pytest.mark.parametrize("text", [
    '[TOOL_CALLS]get_weather[ARGS]{"city": "Paris"}[TOOL_CALLS]get_time[ARGS]{}',
    '[TOOL_CALLS][{"name": "get_weather", "arguments": {"city": "Paris"}, "id": "a1b2c3d4e"}, '
    '{"name": "get_time", "arguments": {}}]',
])
def test_auto_finds_the_calls(text: str) -> None:
    result = toolparse.parse("Checking.\n" + text + "\nDone.", "auto")
    assert [(c.name, c.arguments) for c in result.calls] == [
        ("get_weather", {"city": "Paris"}), ("get_time", {})]
    assert result.text == "Checking.\n\nDone."
