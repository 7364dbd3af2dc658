"""How events and results look in a notebook (`_repr_html_`) and at a prompt (`repr`).

The HTML shows the text as written, HTML-escaped, with each recognised block
highlighted and numbered, and the calls in a small table. Styles are inline (notebook
front ends and GitHub drop `<style>` elements) and use translucent colours, so they
read on light and dark themes.

Bounds: a display shows at most `MAX_SHOWN_CHARS` characters of text, `MAX_VALUE_CHARS`
of one argument value and `MAX_SHOWN_CALLS` calls, and says how much it left out, so a
multi-megabyte result does not flood the notebook. A repr shortens long strings to
`REPR_CHARS` and lists at most `REPR_EVENTS` events.
"""

from __future__ import annotations

import html
import json
from collections.abc import Iterator, Sequence
from typing import Any, Final

from toolparse._events import Event, ParseResult, Text, ToolCall, ToolCallBlock

__all__ = [
    "block_html", "block_repr", "call_html", "call_repr", "result_html", "result_repr",
    "text_html", "text_repr",
]

MAX_SHOWN_CHARS: Final = 20_000
"""Characters of source text one display shows; the rest is counted, not shown."""

MAX_VALUE_CHARS: Final = 1_000
"""Characters of one argument value (as JSON) a calls table shows."""

MAX_SHOWN_CALLS: Final = 200
"""Rows of one calls table."""

REPR_CHARS: Final = 60
"""A string longer than this is shortened in a repr (its middle elided)."""

REPR_EVENTS: Final = 20
"""Events a ParseResult repr lists."""

_BOX = ("font-family: var(--jp-code-font-family, monospace); font-size: 0.85em; "
        "line-height: 1.4;")
_FLOW = ("white-space: pre-wrap; word-break: break-word; margin: 0 0 0.5em 0; padding: 0.5em; "
         "border: 1px solid rgba(128, 128, 128, 0.35); border-radius: 4px; "
         "background: rgba(128, 128, 128, 0.06);")
_BLOCK = ("background: rgba(255, 190, 0, 0.28); outline: 1px solid rgba(220, 150, 0, 0.7); "
          "border-radius: 2px;")
_LABEL = ("background: rgba(220, 150, 0, 0.85); color: #fff; font-size: 0.75em; "
          "padding: 0 0.3em; margin-right: 0.2em; border-radius: 2px;")
_NOTE = "color: rgba(128, 128, 128, 0.95); font-style: italic;"
_TABLE = "border-collapse: collapse; margin: 0.25em 0; text-align: left;"
_CELL = ("border: 1px solid rgba(128, 128, 128, 0.35); padding: 0.15em 0.5em; "
         "vertical-align: top; text-align: left;")
_VALUE = "white-space: pre-wrap; word-break: break-word; margin: 0;"


# ---- HTML --------------------------------------------------------------------------------

def text_html(event: Text) -> str:
    """A Text event: its characters, escaped, in a box."""
    count = len(event.text)
    body, left_out = _clip(event.text, MAX_SHOWN_CHARS)
    return (f'<div style="{_BOX}"><div style="{_NOTE}">Text, {_count(count, "character")}</div>'
            f'<pre style="{_FLOW}">{html.escape(body)}{_omitted(left_out, "character")}</pre></div>')


def call_html(call: ToolCall) -> str:
    """A ToolCall: its name, status and arguments as a table."""
    return f'<div style="{_BOX}">{_calls_table([(None, call)])}</div>'


def block_html(block: ToolCallBlock) -> str:
    """A ToolCallBlock: its source text highlighted, then its calls."""
    body, left_out = _clip(block.raw, MAX_SHOWN_CHARS)
    heading = (f"ToolCallBlock, characters {block.start}-{block.end}, "
               f"{_count(len(block.calls), 'call')}")
    return (f'<div style="{_BOX}"><div style="{_NOTE}">{heading}</div>'
            f'<pre style="{_FLOW}"><span style="{_BLOCK}">{html.escape(body)}</span>'
            f'{_omitted(left_out, "character")}</pre>'
            f'{_calls_table([(None, call) for call in block.calls])}</div>')


def result_html(result: ParseResult) -> str:
    """A ParseResult: the whole text with each block highlighted and numbered, then a
    table of every call with its block's number."""
    blocks = [e for e in result.events if isinstance(e, ToolCallBlock)]
    heading = (f"ParseResult: {_count(len(blocks), 'block')}, {_count(len(result.calls), 'call')}, "
               f"saw_tool_syntax={result.saw_tool_syntax}")
    flow = "".join(_flow_html(result.events))
    rows = [(number, call) for number, block in enumerate(blocks, 1) for call in block.calls]
    table = _calls_table(rows) if rows else ""
    return (f'<div style="{_BOX}"><div style="{_NOTE}">{heading}</div>'
            f'<pre style="{_FLOW}">{flow}</pre>{table}</div>')


def _flow_html(events: Sequence[Event]) -> Iterator[str]:
    """The events' source text, escaped, blocks highlighted; stops after
    MAX_SHOWN_CHARS characters and says how much is left."""
    budget = MAX_SHOWN_CHARS
    number = 0
    for index, event in enumerate(events):
        source = event.text if isinstance(event, Text) else event.raw
        shown, _ = _clip(source, budget)
        budget -= len(shown)
        if isinstance(event, Text):
            yield html.escape(shown)
        else:
            number += 1
            yield (f'<span style="{_LABEL}" title="block {number}: characters '
                   f'{event.start}-{event.end}">{number}</span>'
                   f'<span style="{_BLOCK}">{html.escape(shown)}</span>')
        if budget <= 0 and (len(shown) < len(source) or index + 1 < len(events)):
            rest = len(source) - len(shown) + sum(
                len(e.text if isinstance(e, Text) else e.raw) for e in events[index + 1:])
            yield _omitted(rest, "character")
            return


def _calls_table(rows: Sequence[tuple[int | None, ToolCall]]) -> str:
    """Calls as table rows: (block number, tool, status, arguments)."""
    numbered = any(number is not None for number, _ in rows)
    head = (("block",) if numbered else ()) + ("tool", "status", "arguments")
    out = [f'<table style="{_TABLE}"><thead><tr>']
    out += [f'<th style="{_CELL}">{name}</th>' for name in head]
    out.append("</tr></thead><tbody>")
    for number, call in rows[:MAX_SHOWN_CALLS]:
        out.append("<tr>")
        if numbered:
            out.append(f'<td style="{_CELL}">{number}</td>')
        out.append(f'<td style="{_CELL}"><b>{html.escape(call.name)}</b></td>')
        out.append(f'<td style="{_CELL}">{html.escape(_status(call))}</td>')
        out.append(f'<td style="{_CELL}">{_arguments_html(call)}</td>')
        out.append("</tr>")
    out.append("</tbody></table>")
    if len(rows) > MAX_SHOWN_CALLS:
        out.append(_omitted(len(rows) - MAX_SHOWN_CALLS, "call"))
    return "".join(out)


def _status(call: ToolCall) -> str:
    if call.status == "rejected" and call.reason:
        return f"rejected: {call.reason}"
    return call.status


def _arguments_html(call: ToolCall) -> str:
    lines = []
    for key, value in call.arguments.items():
        text = json.dumps(value, ensure_ascii=False, indent=None)
        shown, left_out = _clip(text, MAX_VALUE_CHARS)
        lines.append(f"<b>{html.escape(key)}</b> = {html.escape(shown)}"
                     f"{_omitted(left_out, 'character')}")
    if call.json_errors:
        lines.append(f'<span style="{_NOTE}">not JSON, kept as text: '
                     f'{html.escape(", ".join(call.json_errors))}</span>')
    if call.hint:
        lines.append(f'<span style="{_NOTE}">hint: {html.escape(call.hint)}</span>')
    body = "\n".join(lines) if lines else f'<span style="{_NOTE}">no arguments</span>'
    return f'<pre style="{_VALUE}">{body}</pre>'


def _clip(text: str, limit: int) -> tuple[str, int]:
    """The first `limit` characters of `text` (at least none), and how many were left."""
    limit = max(limit, 0)
    return (text, 0) if len(text) <= limit else (text[:limit], len(text) - limit)


def _omitted(count: int, unit: str) -> str:
    return f'<span style="{_NOTE}"> … {_count(count, unit)} more not shown</span>' if count else ""


def _count(n: int, unit: str) -> str:
    return f"{n:,} {unit}{'' if n == 1 else 's'}"


# ---- repr --------------------------------------------------------------------------------

def text_repr(event: Text) -> str:
    """`Text('...')`, a long text shortened in the middle."""
    return f"Text({_short(event.text)})"


def call_repr(call: ToolCall) -> str:
    """`ToolCall(name=..., arguments=..., status=..., start=..., end=...)`; the repair
    outcome and parameters kept as text are added when there are any."""
    parts = [f"name={call.name!r}", f"arguments={_short(call.arguments)}",
             f"status={call.status!r}"]
    if call.reason:
        parts.append(f"reason={call.reason!r}")
    if call.json_errors:
        parts.append(f"json_errors={call.json_errors!r}")
    parts += [f"start={call.start}", f"end={call.end}"]
    return f"ToolCall({', '.join(parts)})"


def block_repr(block: ToolCallBlock) -> str:
    """`ToolCallBlock(start-end: name(args), ...; raw=...)` on one line."""
    calls = ", ".join(_call_summary(call) for call in block.calls)
    return f"ToolCallBlock({block.start}-{block.end}: {calls}; raw={_short(block.raw)})"


def result_repr(result: ParseResult) -> str:
    """The result's flags and its events, one a line (the first REPR_EVENTS)."""
    lines = [f"ParseResult(saw_tool_syntax={result.saw_tool_syntax}, "
             f"calls={len(result.calls)}, events=["]
    lines += [f"  {_event_summary(event)}," for event in result.events[:REPR_EVENTS]]
    if len(result.events) > REPR_EVENTS:
        lines.append(f"  ... {len(result.events) - REPR_EVENTS} more events")
    lines.append("])")
    return "\n".join(lines)


def _event_summary(event: Event) -> str:
    if isinstance(event, Text):
        return text_repr(event)
    return f"ToolCallBlock({event.start}-{event.end}: " + ", ".join(
        _call_summary(call) for call in event.calls) + ")"


def _call_summary(call: ToolCall) -> str:
    """`name(key=value, ...)`, values shortened."""
    return f"{call.name}(" + ", ".join(
        f"{key}={_short(value)}" for key, value in call.arguments.items()) + ")"


def _short(value: Any) -> str:
    text = repr(value)
    if len(text) <= REPR_CHARS:
        return text
    keep = (REPR_CHARS - 1) // 2
    return f"{text[:keep]}…{text[-keep:]}"
