"""Helpers shared by the incremental tests (no tests here): SPEC 7's rules over one
stream's events (`check_invariants`), and calls written in every bundled dialect's
markup from one description (`WRITERS`), for properties that hold in all of them.

The markup is spelled here, as the benchmark and the corpus spell it: a test writes
model output.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import toolparse
from toolparse import (
    ArgumentsDelta, CallsAborted, CallStarted, Reasoning, Text, ToolCallBlock)


def run(chunks: Iterable[str], **options: Any) -> list[list[Any]]:
    """The events of each feed() and of close(), one list each."""
    parser = toolparse.StreamParser(**options)
    out = [parser.feed(chunk) for chunk in chunks]
    out.append(parser.close())
    return out


def flat(lists: Sequence[Sequence[Any]]) -> list[Any]:
    return [event for events in lists for event in events]


def plain(lists: Sequence[Sequence[Any]]) -> list[list[Any]]:
    """Each feed's Text, Reasoning and ToolCallBlock events (what `incremental=False`
    gives)."""
    return [[e for e in events if isinstance(e, (Text, ToolCallBlock, Reasoning))]
            for events in lists]


def check_invariants(events: list[Any]) -> None:
    """SPEC 7's rules over one stream's events: calls numbered from 0 as they start; a
    delta only for a started call still open and not withdrawn; a failed block's
    CallsAborted names its open calls and comes right before its failed text; a call
    withdrawn (`diverged`) stays open until its block, which confirms every started
    call in order; and the pieces never lie: an accepted call that was not withdrawn
    has pieces that join to exactly its `arguments_json`, a rejected one none, and a
    withdrawn one pieces that do not (or a rejection)."""
    started: dict[int, CallStarted] = {}
    deltas: dict[int, str] = {}
    withdrawn: set[int] = set()
    open_indexes: list[int] = []
    for n, event in enumerate(events):
        if isinstance(event, CallStarted):
            assert event.index == len(started)  # numbered from 0, in order, no gap
            started[event.index] = event
            open_indexes.append(event.index)
        elif isinstance(event, ArgumentsDelta):
            assert event.index in open_indexes and event.text
            assert event.index not in withdrawn  # nothing of a call after its abort
            deltas[event.index] = deltas.get(event.index, "") + event.text
        elif isinstance(event, CallsAborted) and event.failure.reason == "diverged":
            (index,) = event.indexes
            assert index in open_indexes and index not in withdrawn
            withdrawn.add(index)
        elif isinstance(event, CallsAborted):
            assert event.indexes == tuple(i for i in open_indexes if i not in withdrawn)
            following = events[n + 1]
            assert isinstance(following, Text) and following.failure == event.failure
            open_indexes = []
        elif isinstance(event, ToolCallBlock):
            assert len(open_indexes) == len(event.calls)  # every call started, in order
            for index, call in zip(open_indexes, event.calls):
                assert (started[index].id, started[index].name) == (call.id, call.name)
                assert started[index].block_start == event.start
                pieces = deltas.get(index, "")
                if index in withdrawn:
                    assert pieces and (pieces != call.arguments_json or not call.accepted)
                elif call.accepted:
                    assert pieces == call.arguments_json, (pieces, call.arguments_json)
                else:
                    assert pieces == ""
            open_indexes = []
    assert not open_indexes  # nothing left started at the end of the stream


# ---- calls, described once, written in each dialect ------------------------------------------

@dataclass(frozen=True)
class Value:
    """An argument value as a model writes it: its text, and whether a dialect that can
    mark it a string (DSML's `string="true"`) does, or wraps it in CDATA."""

    text: str
    string: bool | None = None
    cdata: bool = False


@dataclass(frozen=True)
class Call:
    """A call: its name, and either its arguments (in order; a name may repeat) or a
    JSON body written as it is (valid or not)."""

    name: str
    params: tuple[tuple[str, Value], ...] = ()
    body: str | None = None

    def arguments_text(self) -> str:
        """The call's arguments as one JSON text, for the dialects that write JSON: its
        body, or its arguments as a JSON object (a repeated name written twice)."""
        if self.body is not None:
            return self.body
        members = [f"{json.dumps(key)}: {_json_value(value)}" for key, value in self.params]
        return "{" + ", ".join(members) + "}"


def _json_value(value: Value) -> str:
    """A value inside JSON arguments: JSON text as it is when it parses and is not
    marked a string, else a JSON string."""
    if not value.string:
        try:
            json.loads(value.text)
        except ValueError:
            pass
        else:
            return value.text
    return json.dumps(value.text, ensure_ascii=False)


def _xml_value(value: Value, entities: bool) -> str:
    if value.cdata and "]]>" not in value.text:
        return f"<![CDATA[{value.text}]]>"
    if entities:
        return value.text.replace("&", "&amp;").replace("<", "&lt;")
    return value.text


def _xml(wrapper: str, dsml: bool) -> Callable[[Sequence[Call]], str]:
    def write(calls: Sequence[Call]) -> str:
        out = [f"<{wrapper}>"]
        for call in calls:
            out.append(f'<invoke name="{call.name}">')
            if call.body is not None and dsml:
                out.append(call.body)
            for key, value in call.params:
                attr = ("" if not dsml or value.string is None
                        else f' string="{"true" if value.string else "false"}"')
                out.append(f'<parameter name="{key}"{attr}>{_xml_value(value, dsml)}'
                           "</parameter>")
            out.append("</invoke>")
        return "\n".join([*out, f"</{wrapper}>"])
    return write


def _qwen(calls: Sequence[Call]) -> str:
    out = ["<tool_call>"]
    for call in calls:
        out.append(f"<function={call.name}>")
        out += [f"<parameter={key}>\n{value.text}\n</parameter>" for key, value in call.params]
        out.append("</function>")
    return "\n".join([*out, "</tool_call>"])


def _glm(calls: Sequence[Call]) -> str:
    return "\n".join(
        f"<tool_call>{call.name}\n" + "".join(
            f"<arg_key>{key}</arg_key>\n<arg_value>{value.text}</arg_value>\n"
            for key, value in call.params) + "</tool_call>"
        for call in calls)


def _hermes(calls: Sequence[Call]) -> str:
    return "\n".join(f'<tool_call>\n{{"name": "{call.name}", "arguments": '
                     f"{call.arguments_text()}}}\n</tool_call>" for call in calls)


def _kimi(calls: Sequence[Call]) -> str:
    body = "\n".join(f"<|tool_call_begin|>functions.{call.name}:{n}<|tool_call_argument_begin|>"
                     f"{call.arguments_text()}<|tool_call_end|>" for n, call in enumerate(calls))
    return f"<|tool_calls_section_begin|>\n{body}\n<|tool_calls_section_end|>"


def _gpt_oss(calls: Sequence[Call]) -> str:
    return "".join(f"<|start|>assistant<|channel|>commentary to=functions.{call.name} "
                   f"<|constrain|>json<|message|>{call.arguments_text()}<|call|>"
                   for call in calls)


def _deepseek_v3(calls: Sequence[Call]) -> str:
    body = "\n".join(f"<｜tool▁call▁begin｜>function<｜tool▁sep｜>{call.name}\n```json\n"
                     f"{call.arguments_text()}\n```<｜tool▁call▁end｜>" for call in calls)
    return f"<｜tool▁calls▁begin｜>{body}<｜tool▁calls▁end｜>"


def _deepseek_v31(calls: Sequence[Call]) -> str:
    body = "".join(f"<｜tool▁call▁begin｜>{call.name}<｜tool▁sep｜>{call.arguments_text()}"
                   "<｜tool▁call▁end｜>" for call in calls)
    return f"<｜tool▁calls▁begin｜>{body}<｜tool▁calls▁end｜>"


def _seed_oss(calls: Sequence[Call]) -> str:
    out = ["<seed:tool_call>"]
    for call in calls:
        out.append(f"<function={call.name}>")
        out += [f"<parameter={key}>{value.text}</parameter>" for key, value in call.params]
        out.append("</function>")
    return "\n".join([*out, "</seed:tool_call>"])


def _minicpm5(calls: Sequence[Call]) -> str:
    return "\n".join(f'<function name="{call.name}">' + "".join(
        f'<param name="{key}">{value.text}</param>' for key, value in call.params) + "</function>"
        for call in calls)


def _hy_v3(calls: Sequence[Call]) -> str:
    body = "".join(f"\n<tool_call>{call.name}<tool_sep>" + "".join(
        f"\n<arg_key>{key}</arg_key>\n<arg_value>{value.text}</arg_value>"
        for key, value in call.params) + "\n</tool_call>" for call in calls)
    return f"<tool_calls>{body}\n</tool_calls>"


def _step3(calls: Sequence[Call]) -> str:
    body = "".join(f'<｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name="{call.name}">'
                   + "".join(f'<steptml:parameter name="{key}">{value.text}</steptml:parameter>'
                             for key, value in call.params)
                   + "</steptml:invoke><｜tool_call_end｜>" for call in calls)
    return f"<｜tool_calls_begin｜>{body}<｜tool_calls_end｜>"


def _json_object(open_tag: str, close_tag: str, member: str) -> Callable[[Sequence[Call]], str]:
    def write(calls: Sequence[Call]) -> str:
        return "\n".join(f'{open_tag}\n{{"name": "{call.name}", "{member}": '
                         f"{call.arguments_text()}}}\n{close_tag}" for call in calls)
    return write


def _json_calls(open_tag: str, close_tag: str, element: str,
                lines: bool = False) -> Callable[[Sequence[Call]], str]:
    def write(calls: Sequence[Call]) -> str:
        items = [element.format(name=call.name, args=call.arguments_text()) for call in calls]
        body = "\n" + "\n".join(items) + "\n" if lines else "[" + ", ".join(items) + "]"
        return f"{open_tag}{body}{close_tag}"
    return write


def _minimax_m3(calls: Sequence[Call]) -> str:
    ns = "]<]minimax[>["
    body = "\n".join(f'{ns}<invoke name="{call.name}">' + "".join(
        f"{ns}<{key}>{value.text}{ns}</{key}>" for key, value in call.params) + f"{ns}</invoke>"
        for call in calls)
    return f"{ns}<tool_call>\n{body}\n{ns}</tool_call>"


def _kimi_k3(calls: Sequence[Call]) -> str:
    body = "".join(f'<|open|>call tool="{call.name}" index="{i}"<|sep|>' + "".join(
        f'<|open|>argument key="{key}" type="string"<|sep|>{value.text}<|close|>argument<|sep|>'
        for key, value in call.params) + "<|close|>call<|sep|>" for i, call in enumerate(calls))
    return f"<|open|>tools<|sep|>{body}<|close|>tools<|sep|>"


def _mistral(calls: Sequence[Call]) -> str:
    return "".join(f"[TOOL_CALLS]{call.name}[ARGS]{call.arguments_text()}" for call in calls)


def _py_literal(value: Any) -> str:
    """A JSON value as a Python literal (`repr`: single quotes, `True`, `None`)."""
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_py_literal(k)}: {_py_literal(v)}"
                               for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(_py_literal(v) for v in value) + "]"
    return repr(value)


def _py_value(value: Value) -> str:
    """A value written as Python: the literal of its JSON when it is JSON and not marked
    a string, else a string."""
    if not value.string:
        try:
            return _py_literal(json.loads(value.text))
        except ValueError:
            pass
    return repr(value.text)


def _py_call(call: Call) -> str:
    """A call written as Python (SPEC 5.3 c); a body that is no JSON object is written
    as one positional string (which fails its block: not_literal)."""
    if call.body is None:
        return f"{call.name}(" + ", ".join(f"{k}={_py_value(v)}" for k, v in call.params) + ")"
    try:
        parsed = json.loads(call.body)
    except ValueError:
        parsed = None
    if not isinstance(parsed, dict) or not all(str(k).isidentifier() for k in parsed):
        return f"{call.name}({call.body!r})"
    return f"{call.name}(" + ", ".join(f"{k}={_py_literal(v)}" for k, v in parsed.items()) + ")"


def _pythonic(open_tag: str, close_tag: str, listed: bool) -> Callable[[Sequence[Call]], str]:
    def write(calls: Sequence[Call]) -> str:
        items = [_py_call(call) for call in calls]
        body = "[" + ", ".join(items) + "]" if listed else "\n".join(items)
        return f"{open_tag}{body}{close_tag}"
    return write
def _gemma_value(value: Any) -> str:
    if isinstance(value, str):
        return f'<|"|>{value}<|"|>'
    if isinstance(value, list):
        return "[" + ",".join(_gemma_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ",".join(f"{k}:{_gemma_value(v)}" for k, v in value.items()) + "}"
    return json.dumps(value)


def _gemma4(calls: Sequence[Call]) -> str:
    """Gemma 4's calls: each value a JSON value where it is one (and not marked a
    string), else a string; a body written as is (valid or not), in Gemma's notation
    when it is a JSON object."""
    def arguments(call: Call) -> str:
        if call.body is not None:
            try:
                value = json.loads(call.body)
            except ValueError:
                return call.body
            return _gemma_value(value) if isinstance(value, dict) else call.body
        return "{" + ",".join(f"{key}:{_gemma_value(json.loads(_json_value(value)))}"
                              for key, value in call.params) + "}"
    return "".join(f"<|tool_call>call:{call.name}{arguments(call)}<tool_call|>" for call in calls)


WRITERS: dict[str, Callable[[Sequence[Call]], str]] = {
    "deepseek": _xml("tool_calls", dsml=True),
    "anthropic": _xml("function_calls", dsml=False),
    "minimax_m2": _xml("minimax:tool_call", dsml=False),
    "qwen3_coder": _qwen,
    "glm45": _glm,
    "hermes": _hermes,
    "kimi_k2": _kimi,
    "gpt_oss": _gpt_oss,
    "deepseek_v3": _deepseek_v3,
    "deepseek_v31": _deepseek_v31,
    "seed_oss": _seed_oss,
    "minicpm5": _minicpm5,
    "hy_v3": _hy_v3,
    "step3": _step3,
    "longcat": _json_object("<longcat_tool_call>", "</longcat_tool_call>", "arguments"),
    "internlm": _json_object("<|action_start|><|plugin|>", "<|action_end|>", "parameters"),
    "nemotron": _json_calls("<TOOLCALL>", "</TOOLCALL>", '{{"name": "{name}", "arguments": {args}}}'),
    "cohere": _json_calls("<|START_ACTION|>", "<|END_ACTION|>",
                          '{{"tool_call_id": "0", "tool_name": "{name}", "parameters": {args}}}'),
    "apertus": _json_calls("<|tools_prefix|>", "<|tools_suffix|>", '{{"{name}": {args}}}'),
    "hunyuan_a13b": _json_calls("<tool_calls>", "</tool_calls>",
                                '{{"name": "{name}", "arguments": {args}}}'),
    "minimax_m1": _json_calls("<tool_calls>", "</tool_calls>",
                              '{{"name": "{name}", "arguments": {args}}}', lines=True),
    "mistral": _mistral,
    "olmo3": _pythonic("<function_calls>", "</function_calls>", listed=False),
    "lfm2": _pythonic("<|tool_call_start|>", "<|tool_call_end|>", listed=True),
    "pythonic": _pythonic("<|python_start|>", "<|python_end|>", listed=True),
    "minimax_m3": _minimax_m3,
    "kimi_k3": _kimi_k3,
    "granite": _json_calls("<|tool_call|>", "", '{{"name": "{name}", "arguments": {args}}}'),
    "phi4_mini": _json_calls("functools", "", '{{"name": "{name}", "arguments": {args}}}'),
    "gemma4": _gemma4,
    "llama3_json": lambda calls: "<|python_tag|>" + "; ".join(
        f'{{"name": "{call.name}", "parameters": {call.arguments_text()}}}' for call in calls),
}
"""Bundled dialect -> how it writes a block of calls. A dialect added to the bundle
needs one here: the properties run over `toolparse.dialects()`."""


# Typed values, nested ones among them, with the spacing models write; long values are
# code, with the characters that need escaping in JSON and in XML.
NESTED = ['{"a": {"b": [1, 2.5, {"c": null}]}, "d": "x\\"y"}', "[1, [2, [3, {}]]]",
          "[ 1 , 2 ]", '{ "k" : [ ] }', '{"u": "\\u00e9 中"}', "1.0", "-0", "1e5", "true",
          "null", '"quoted"', "[1.5e300, 2.25]", "12345678901234567890"]
CODE = ['def f(a, b):', '    return a < b and "x" or \'y\'', 'if (a && b) { c[0] = "\\n"; }',
        "x = 1  # trailing  ", "\tindented\twith tabs", "path\\to\\file", "中文 😀 text", ""]
INVALID_BODIES = ['{"a": 1,, }', "{", '{"a": 1', '{"a": 1, "a": 2}', "[1, 2]", '{"a": NaN}',
                  '{"a": 1} trailing', '{"a": [1, 2}']
TOOLS = [{"name": name, "parameters": {"type": "object", "properties": {
    "path": {"type": "string"}, "n": {"type": "integer"}, "tree": {"type": "object"},
    "items": {"type": "array"}, "code": {"type": "string"}}}} for name in ("f", "g")]
"""Tools for the calls the generators write (names `f` and `g`; `h` is unknown)."""
