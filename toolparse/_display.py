"""How events and results look in a notebook (`_repr_html_`) and at a prompt (`repr`).

The HTML shows the text as written, HTML-escaped, with marks on what the parser decided:

- each recognised block highlighted and numbered, coloured by the status of its calls
  (`valid` green, `repaired` amber, `rejected` red, `unchecked` blue: the worst call
  decides), and its calls in a table with their status, repair rules and hint;
- the text of a failed block outlined in red and labelled with its reason (SPEC 3.2);
- each block-start tag that sits in Markdown code labelled "in code, not run" (SPEC G3),
  found by `toolparse._explain.code_mentions`;
- a legend of those colours above the text. Long stretches of text are collapsed in a
  `<details>` element; a multi-line string argument is shown as preformatted text.

Each mark has a class (`tp-valid`, `tp-failed`, `tp-in-code`, `tp-legend`, ...) for
tests and user style sheets, and an inline style, because notebook front ends and
GitHub drop `<style>` elements. Colours are translucent, so they read on light and dark
themes.

Bounds: a display shows at most `MAX_SHOWN_CHARS` characters of text, `MAX_VALUE_CHARS`
of one argument value and `MAX_SHOWN_CALLS` calls, and says how much it left out, so a
multi-megabyte result does not flood the notebook. A repr shortens long strings to
`REPR_CHARS` and lists at most `REPR_EVENTS` events.
"""

from __future__ import annotations

import html
import json
import bisect
from collections.abc import Callable, Iterator, Sequence
from typing import Any, Final

from toolparse._events import (
    BlockFailure, Event, ParseResult, Reasoning, Text, ToolCall, ToolCallBlock, register_views)
from toolparse._explain import CodeMention, code_mentions

__all__ = [
    "block_html", "block_repr", "call_html", "call_repr", "reasoning_html", "reasoning_repr",
    "result_html", "result_repr", "text_html", "text_repr",
]

MAX_SHOWN_CHARS: Final = 20_000
"""Characters of source text one display shows; the rest is counted, not shown."""

MAX_VALUE_CHARS: Final = 1_000
"""Characters of one argument value (as JSON) a calls table shows."""

MAX_SHOWN_CALLS: Final = 200
"""Rows of one calls table."""

COLLAPSE_CHARS: Final = 1_200
"""A stretch of text (or a block) longer than this shows its first `COLLAPSED_HEAD`
characters and folds the rest into a `<details>` element."""

COLLAPSED_HEAD: Final = 400
"""Characters shown before the fold of a collapsed stretch (up to the line end)."""

REPR_CHARS: Final = 60
"""A string longer than this is shortened in a repr (its middle elided)."""

REPR_EVENTS: Final = 20
"""Events a ParseResult repr lists."""

_BOX = ("font-family: var(--jp-code-font-family, monospace); font-size: 0.85em; "
        "line-height: 1.4;")
_FLOW = ("white-space: pre-wrap; word-break: break-word; margin: 0 0 0.5em 0; padding: 0.5em; "
         "border: 1px solid rgba(128, 128, 128, 0.35); border-radius: 4px; "
         "background: rgba(128, 128, 128, 0.06);")
_NOTE = "color: rgba(128, 128, 128, 0.95); font-style: italic;"
_TABLE = "border-collapse: collapse; margin: 0.25em 0; text-align: left;"
_CELL = ("border: 1px solid rgba(128, 128, 128, 0.35); padding: 0.15em 0.5em; "
         "vertical-align: top; text-align: left;")
_CODE = ("white-space: pre; overflow-x: auto; margin: 0.15em 0 0.15em 1em; padding: 0.25em 0.5em; "
         "border-left: 3px solid rgba(128, 128, 128, 0.45); background: rgba(128, 128, 128, 0.08);")
_SUMMARY = "cursor: pointer; color: rgba(128, 128, 128, 0.95); font-style: italic;"

# Per mark: what the legend calls it, the highlight's background and outline colours,
# and the label's background colour.
_MARKS: Final = {
    "valid": ("valid call", "rgba(40, 167, 69, 0.22)", "rgba(40, 167, 69, 0.85)", "#2e7d32"),
    "repaired": ("repaired call", "rgba(255, 160, 0, 0.26)", "rgba(230, 140, 0, 0.85)", "#b26a00"),
    "rejected": ("rejected call", "rgba(220, 53, 69, 0.22)", "rgba(220, 53, 69, 0.85)", "#c62828"),
    "unchecked": ("unchecked call (no tools given)", "rgba(66, 133, 244, 0.20)",
                  "rgba(66, 133, 244, 0.75)", "#1f5fbf"),
    "failed": ("failed block: text, nothing ran", "rgba(220, 53, 69, 0.07)",
               "rgba(220, 53, 69, 0.9)", "#c62828"),
    "in-code": ("in code, not run", "rgba(128, 128, 128, 0.16)", "rgba(128, 128, 128, 0.8)",
                "#6b6b6b"),
    "reasoning": ("reasoning: apart from the answer, never run", "rgba(123, 97, 255, 0.10)",
                  "rgba(123, 97, 255, 0.6)", "#5b45c9"),
}
_WORST_FIRST: Final = ("rejected", "repaired", "valid", "unchecked")


def _highlight(mark: str) -> str:
    _, background, line, _ = _MARKS[mark]
    dashed = "dashed" if mark in ("failed", "in-code") else "solid"
    return f"background: {background}; outline: 1px {dashed} {line}; border-radius: 2px;"


def _label(mark: str) -> str:
    return (f"background: {_MARKS[mark][3]}; color: #fff; font-size: 0.75em; font-style: normal; "
            "padding: 0 0.3em; margin-right: 0.2em; border-radius: 2px; white-space: nowrap;")


def _badge(mark: str, text: str, title: str = "") -> str:
    title_attr = f' title="{html.escape(title)}"' if title else ""
    return (f'<span class="tp-label tp-{mark}" style="{_label(mark)}"{title_attr}>'
            f"{html.escape(text)}</span>")


def block_status(block: ToolCallBlock) -> str:
    """The status a block is coloured by.

    Args:
        block: A recognised block.

    Returns:
        The status of its worst call: `rejected`, else `repaired`, else `valid`, else
        `unchecked`.
    """
    statuses = {call.status for call in block.calls}
    return next((s for s in _WORST_FIRST if s in statuses), "unchecked")


# ---- HTML --------------------------------------------------------------------------------

def text_html(event: Text) -> str:
    """The HTML of a Text event (`Text._repr_html_`).

    Args:
        event: The event.

    Returns:
        Its characters, escaped, in a box; a failed block's text outlined and labelled
        with its reason.
    """
    body, left_out = _clip(event.text, MAX_SHOWN_CHARS)
    heading = f"Text, {_count(len(event.text), 'character')}"
    if event.failure is None:
        flow = _collapsible(body, lambda piece: piece)
    else:
        heading += f", the text of a failed block ({event.failure.reason})"
        flow = _failed_html(body, 0, [], event.failure)
    return (f'<div style="{_BOX}"><div style="{_NOTE}">{html.escape(heading)}</div>'
            f'<div class="tp-flow" style="{_FLOW}">{flow}{_omitted(left_out, "character")}</div>'
            "</div>")


def reasoning_html(event: Reasoning) -> str:
    """The HTML of a Reasoning event (`Reasoning._repr_html_`).

    Args:
        event: The event.

    Returns:
        Its source (markers included), escaped, in the reasoning colour, folded under
        a summary: reasoning is shown apart from the answer, and collapsed.
    """
    body, left_out = _clip(event.raw, MAX_SHOWN_CHARS)
    heading = f"Reasoning, {_count(len(event.text), 'character')}"
    return (f'<div style="{_BOX}"><div style="{_NOTE}">{html.escape(heading)}</div>'
            f'<div class="tp-flow" style="{_FLOW}">{_reasoning_flow(body, len(event.text))}'
            f'{_omitted(left_out, "character")}</div></div>')


def _reasoning_flow(body: str, length: int) -> str:
    """A reasoning region's source, collapsed behind a label (its length)."""
    span = f'<span class="tp-reasoning" style="{_highlight("reasoning")}">'
    summary = f"reasoning, {_count(length, 'character')}"
    return (f'<details class="tp-reasoning-region" style="display: inline;">'
            f'<summary style="{_SUMMARY}">{_badge("reasoning", summary)}</summary>'
            f'{span}{html.escape(body)}</span></details>')


def call_html(call: ToolCall) -> str:
    """The HTML of a call (`ToolCall._repr_html_`).

    Args:
        call: The call.

    Returns:
        A one-row table: its name, its status (with the repair rules or the reason) and
        its arguments, with the hint of a rejected call.
    """
    return f'<div style="{_BOX}">{_calls_table([(None, call)])}</div>'


def block_html(block: ToolCallBlock) -> str:
    """The HTML of a block (`ToolCallBlock._repr_html_`).

    Args:
        block: The block.

    Returns:
        Its source text highlighted in its status colour, then a table of its calls.
    """
    body, left_out = _clip(block.raw, MAX_SHOWN_CHARS)
    heading = (f"ToolCallBlock, characters {block.start}-{block.end}, "
               f"{_count(len(block.calls), 'call')}")
    return (f'<div style="{_BOX}"><div style="{_NOTE}">{heading}</div>'
            f'<div class="tp-flow" style="{_FLOW}">{_block_flow(block, body, None)}'
            f'{_omitted(left_out, "character")}</div>'
            f'{_calls_table([(None, call) for call in block.calls])}</div>')


def result_html(result: ParseResult) -> str:
    """The HTML of a whole result (`ParseResult._repr_html_`).

    Tags in code are found with the result's `dialect` when it records one, else with
    `deepseek`'s tags.

    Args:
        result: The result.

    Returns:
        A legend; the text with each block highlighted and numbered, failed blocks and
        tags in code marked and long stretches folded; then a table of every call (with
        its block's number) and one of the failures.
    """
    blocks = [e for e in result.events if isinstance(e, ToolCallBlock)]
    shown = list(_shown_events(result.events))
    mentions = code_mentions(shown, (result.dialect or "deepseek"))
    heading = (f"ParseResult: {_count(len(blocks), 'block')}, {_count(len(result.calls), 'call')}, "
               f"saw_tool_syntax={result.saw_tool_syntax}")
    notes = [_count(len(result.failures), "failed block")] if result.failures else []
    notes += [_count(len(mentions), "tag") + " in code, not run"] if mentions else []
    heading += "".join(f"; {note}" for note in notes)
    flow = "".join(_flow_html(result.events, shown, mentions))
    rows = [(number, call) for number, block in enumerate(blocks, 1) for call in block.calls]
    return (f'<div style="{_BOX}"><div style="{_NOTE}">{heading}</div>{_legend()}'
            f'<div class="tp-flow" style="{_FLOW}">{flow}</div>'
            f'{_calls_table(rows) if rows else ""}{_failures_table(result.failures)}</div>')


def _legend() -> str:
    items = "".join(
        f'<span class="tp-key tp-{mark}" style="margin-right: 0.9em; white-space: nowrap;">'
        f'<span style="{_highlight(mark)} padding: 0 0.55em; margin-right: 0.3em;"></span>'
        f"{html.escape(name)}</span>" for mark, (name, *_) in _MARKS.items())
    return f'<div class="tp-legend" style="margin: 0.2em 0 0.4em 0;">{items}</div>'


def _shown_events(events: Sequence[Event]) -> Iterator[Event]:
    """The events the display shows: the first MAX_SHOWN_CHARS characters of source
    text (a Text cut where the budget ends; a block whole, or not at all when cut)."""
    budget = MAX_SHOWN_CHARS
    for event in events:
        if budget <= 0:
            return
        if isinstance(event, Text) and event.raw == event.text:
            yield Text(event.text[:budget], event.failure)
        elif len(event.raw) <= budget:
            yield event
        budget -= len(event.raw)


def _flow_html(events: Sequence[Event], shown: Sequence[Event],
               mentions: Sequence[CodeMention]) -> Iterator[str]:
    """The events' source text, escaped and marked; stops after MAX_SHOWN_CHARS
    characters and says how much is left."""
    offset, budget, number, shown_chars = 0, MAX_SHOWN_CHARS, 0, 0
    starts = [mention.start for mention in mentions]
    for event in events:
        source = event.raw
        if budget <= 0:
            break
        piece, _ = _clip(source, budget)
        if isinstance(event, Reasoning):
            yield _reasoning_flow(piece, len(event.text))
        elif isinstance(event, Text):
            first = bisect.bisect_left(starts, offset)
            last = bisect.bisect_right(starts, offset + len(piece))
            inside = [m for m in mentions[first:last] if m.end <= offset + len(piece)]
            yield (_failed_html(piece, offset, inside, event.failure) if event.failure
                   else _collapsible(piece, lambda text: text, _Marker(offset, inside)))
        else:
            number += 1
            yield _block_flow(event, piece, number)
        offset += len(source)
        budget -= len(piece)
        shown_chars += len(piece)
    total = sum(len(e.raw) for e in events)
    if total > shown_chars:
        yield _omitted(total - shown_chars, "character")


def _block_flow(block: ToolCallBlock, body: str, number: int | None) -> str:
    """A block's source in its status colour, behind its number label."""
    mark = block_status(block)
    span = f'<span class="tp-block tp-{mark}" style="{_highlight(mark)}">'
    label = ""
    if number is not None:
        title = f"block {number}: characters {block.start}-{block.end}, {mark}"
        label = _badge(mark, str(number), title)
    return label + _collapsible(body, lambda text: f"{span}{text}</span>")


def _failed_html(text: str, offset: int, mentions: Sequence[CodeMention],
                 failure: BlockFailure) -> str:
    """The text of a failed block: outlined, behind a label with its reason."""
    where = f"failed at character {failure.at}"
    if failure.expected:
        where += "; expected " + ", ".join(failure.expected)
    span = f'<span class="tp-failed" style="{_highlight("failed")}" title="{html.escape(where)}">'
    return (_badge("failed", f"failed: {failure.reason}", where)
            + _collapsible(text, lambda piece: f"{span}{piece}</span>", _Marker(offset, mentions)))


class _Marker:
    """Escapes a stretch of text at stream offset `offset`, labelling the block-start
    tags in code that fall in it."""

    def __init__(self, offset: int, mentions: Sequence[CodeMention]) -> None:
        self.offset = offset
        self.mentions = mentions

    def cut(self, at: int) -> int:
        """`at`, moved back to the start of a tag it would split."""
        for mention in self.mentions:
            if mention.start < self.offset + at < mention.end:
                return mention.start - self.offset
        return at

    def __call__(self, text: str, start: int) -> str:
        out, pos = [], 0
        for mention in self.mentions:
            begin, end = mention.start - self.offset - start, mention.end - self.offset - start
            if begin < pos or end > len(text):
                continue
            title = f"in {_KIND_NAMES[mention.kind]}, line {mention.line}: not run"
            out += [html.escape(text[pos:begin]), _badge("in-code", "in code, not run", title),
                    f'<span class="tp-in-code" style="{_highlight("in-code")}" '
                    f'title="{html.escape(title)}">{html.escape(text[begin:end])}</span>']
            pos = end
        out.append(html.escape(text[pos:]))
        return "".join(out)


_KIND_NAMES: Final = {"fenced": "a fenced code block", "indented": "an indented code block",
                      "span": "a code span"}


def _collapsible(text: str, wrap: Callable[[str], str], marker: _Marker | None = None) -> str:
    """`text` escaped (and marked), passed through `wrap`; past COLLAPSE_CHARS, the
    part after the first COLLAPSED_HEAD characters (to the line end) folds into a
    `<details>` element."""
    mark = marker or _Marker(0, ())
    cut = len(text)
    if len(text) > COLLAPSE_CHARS:
        line_end = text.find("\n", COLLAPSED_HEAD, COLLAPSED_HEAD + 200)
        cut = mark.cut(line_end + 1 if line_end >= 0 else COLLAPSED_HEAD)
    head = wrap(mark(text[:cut], 0))
    if cut >= len(text):
        return head
    rest = text[cut:]
    summary = f"… {_count(len(rest), 'more character')}, {_count(rest.count(chr(10)), 'line')}"
    return (f'{head}<details class="tp-more" style="display: inline;">'
            f'<summary style="{_SUMMARY}">{summary}</summary>{wrap(mark(rest, cut))}</details>')


def _calls_table(rows: Sequence[tuple[int | None, ToolCall]]) -> str:
    """Calls as table rows: (block number, tool, status, arguments)."""
    numbered = any(number is not None for number, _ in rows)
    head = (("block",) if numbered else ()) + ("tool", "status", "arguments")
    out = [f'<table class="tp-calls" style="{_TABLE}"><thead><tr>']
    out += [f'<th style="{_CELL}">{name}</th>' for name in head]
    out.append("</tr></thead><tbody>")
    for number, call in rows[:MAX_SHOWN_CALLS]:
        out.append(f'<tr class="tp-call tp-{call.status}">')
        if numbered:
            out.append(f'<td style="{_CELL}">{number}</td>')
        out.append(f'<td style="{_CELL}" title="id {html.escape(call.id)}">'
                   f"<b>{html.escape(call.name)}</b></td>")
        out.append(f'<td style="{_CELL}">{_status_html(call)}</td>')
        out.append(f'<td style="{_CELL}">{_arguments_html(call)}</td>')
        out.append("</tr>")
    out.append("</tbody></table>")
    if len(rows) > MAX_SHOWN_CALLS:
        out.append(_omitted(len(rows) - MAX_SHOWN_CALLS, "call"))
    return "".join(out)


def _status_html(call: ToolCall) -> str:
    """The status label; the reason of a rejected call; the rules of a repaired one."""
    text = f"rejected: {call.reason}" if call.status == "rejected" and call.reason else call.status
    out = _badge(call.status, text)
    if call.status == "repaired" and call.repair is not None and call.repair.rules:
        out += (f'<div class="tp-rules" style="{_NOTE}">rules: '
                f'{html.escape(", ".join(call.repair.rules))}</div>')
    return out


def _arguments_html(call: ToolCall) -> str:
    """One line per argument; a multi-line string as preformatted text."""
    lines = []
    for key, value in call.arguments.items():
        if isinstance(value, str) and "\n" in value:
            shown, left_out = _clip(value, MAX_VALUE_CHARS)
            lines.append(f"<div><b>{html.escape(key)}</b> =</div>"
                         f'<pre class="tp-code" style="{_CODE}">{html.escape(shown)}</pre>'
                         f"{_omitted(left_out, 'character')}")
            continue
        shown, left_out = _clip(json.dumps(value, ensure_ascii=False), MAX_VALUE_CHARS)
        lines.append(f'<div style="white-space: pre-wrap; word-break: break-word;">'
                     f"<b>{html.escape(key)}</b> = {html.escape(shown)}"
                     f"{_omitted(left_out, 'character')}</div>")
    if call.json_errors:
        lines.append(f'<div style="{_NOTE}">not JSON, kept as text: '
                     f'{html.escape(", ".join(call.json_errors))}</div>')
    if call.hint:
        lines.append(f'<div class="tp-hint" style="{_NOTE}">hint: {html.escape(call.hint)}</div>')
    return "".join(lines) or f'<span style="{_NOTE}">no arguments</span>'


def _failures_table(failures: Sequence[BlockFailure]) -> str:
    """The failed blocks: span, reason, where, and what the grammar expected there."""
    if not failures:
        return ""
    out = [f'<table class="tp-failures" style="{_TABLE}"><thead><tr>']
    out += [f'<th style="{_CELL}">{name}</th>'
            for name in ("failed block", "reason", "failed at", "expected there")]
    out.append("</tr></thead><tbody>")
    for failure in failures[:MAX_SHOWN_CALLS]:
        out.append(f'<tr class="tp-failure"><td style="{_CELL}">characters '
                   f"{failure.start}-{failure.end}</td>"
                   f'<td style="{_CELL}">{_badge("failed", failure.reason)}</td>'
                   f'<td style="{_CELL}">{failure.at}</td>'
                   f'<td style="{_CELL}">{html.escape(", ".join(failure.expected)) or "-"}</td></tr>')
    out.append("</tbody></table>")
    if len(failures) > MAX_SHOWN_CALLS:
        out.append(_omitted(len(failures) - MAX_SHOWN_CALLS, "failure"))
    return "".join(out)


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
    """The repr of a Text event.

    Args:
        event: The event.

    Returns:
        `Text('...')`, a long text shortened in the middle.
    """
    return f"Text({_short(event.text)})"


def reasoning_repr(event: Reasoning) -> str:
    """The repr of a Reasoning event in a result's repr: `Reasoning('...')`, a long
    text shortened in the middle."""
    return f"Reasoning({_short(event.text)})"


def call_repr(call: ToolCall) -> str:
    """The repr of a call (`repr(ToolCall)`).

    Args:
        call: The call.

    Returns:
        `ToolCall(name=..., arguments=..., status=..., start=..., end=...)`, with the
        reason of a rejected call and the parameters kept as text when there are any.
    """
    parts = [f"name={call.name!r}", f"arguments={_short(call.arguments)}",
             f"status={call.status!r}"]
    if call.reason:
        parts.append(f"reason={call.reason!r}")
    if call.json_errors:
        parts.append(f"json_errors={call.json_errors!r}")
    parts += [f"start={call.start}", f"end={call.end}"]
    return f"ToolCall({', '.join(parts)})"


def block_repr(block: ToolCallBlock) -> str:
    """The repr of a block (`repr(ToolCallBlock)`).

    Args:
        block: The block.

    Returns:
        `ToolCallBlock(start-end: name(args), ...; raw=...)` on one line.
    """
    calls = ", ".join(_call_summary(call) for call in block.calls)
    return f"ToolCallBlock({block.start}-{block.end}: {calls}; raw={_short(block.raw)})"


def result_repr(result: ParseResult) -> str:
    """The repr of a result (`repr(ParseResult)`).

    Args:
        result: The result.

    Returns:
        The result's flags, then its events one a line (the first `REPR_EVENTS`).
    """
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
    if isinstance(event, Reasoning):
        return reasoning_repr(event)
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


register_views(text_html=text_html, reasoning_html=reasoning_html, call_repr=call_repr,
               call_html=call_html,
               block_repr=block_repr, block_html=block_html, result_repr=result_repr,
               result_html=result_html)
