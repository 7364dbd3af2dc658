"""The difference between the calls another system recorded and the calls toolparse found.

Matching (docs/scan.md, "Comparing with recorded calls"): each recorded call, in order,
takes the first call not yet taken that has its name and JSON-equal arguments (`1` and
`1.0` are equal; `true` and `1` are not; key order does not count). Then:

- a recorded call that took a *rejected* call: `unknown_tool` when that call named a
  tool not in `--tools`, else `rejected` (its `detail` is the call's reason);
- a recorded call that took nothing is explained, each rule over all such calls before
  the next rule, each piece of markup explaining one call at most:
  1. `in_code`: a call in Markdown code with its name and arguments (`kind`, `line`);
     `in_reasoning`: a call quoted inside a reasoning region with its name and arguments
     (SPEC 10: the model only thought about it);
  2. `failed`: a call tag naming its tool inside a failed block (`detail`: the
     failure's reason);
  3. `in_code`: a call tag in code naming its tool, whatever its arguments;
  4. `unknown_tool`: `--tools` was given and has no such tool;
  5. `not_found`: no markup for it at all;
- a found call that is accepted and that no recorded call took: `not_in_recorded`.
  (A rejected call nobody recorded is no difference: neither side ran it.)
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from toolparse._events import ToolCall
from toolparse._scan.explain import CodeCall, FailedTag
from toolparse._scan.fields import NOT_JSON, RecordedCall

__all__ = ["Lines", "Markup", "compare", "json_equal"]

_NEWLINE: Final = re.compile("\n")


class Lines:
    """Line numbers (from 1, counting `\\n` as `code_mentions` does) of offsets in a
    text; the newline offsets are found once, on first use."""

    __slots__ = ("_text", "_newlines")

    def __init__(self, text: str) -> None:
        self._text = text
        self._newlines: list[int] | None = None

    def of(self, offset: int) -> int:
        if self._newlines is None:
            self._newlines = [m.start() for m in _NEWLINE.finditer(self._text)]
        return bisect.bisect_left(self._newlines, offset) + 1


@dataclass(slots=True)
class Markup:
    """What explains unmatched recorded calls, computed only when one needs it."""

    code: Callable[[], list[CodeCall]]
    failed: Callable[[], list[FailedTag]]
    lines: Lines
    tool_names: frozenset[str] | None
    """The names `--tools` gave, or None without tools."""
    reasoning: list[CodeCall] = field(default_factory=list)
    """The calls quoted inside reasoning regions (found for every record)."""


def difference(reason: str, name: str, *, recorded: int | None = None, call: int | None = None,
               kind: str | None = None, line: int | None = None, start: int | None = None,
               detail: str | None = None) -> dict[str, Any]:
    """One difference record (every key always present: docs/scan.md)."""
    return {"reason": reason, "name": name, "recorded": recorded, "call": call, "kind": kind,
            "line": line, "start": start, "detail": detail}


def compare(recorded: Sequence[RecordedCall], calls: Sequence[ToolCall],
            markup: Markup) -> list[dict[str, Any]]:
    """The differences, recorded calls first (in recorded order), then found calls."""
    taken = [False] * len(calls)
    by_recorded: dict[int, dict[str, Any]] = {}
    unmatched: list[int] = []
    for index, want in enumerate(recorded):
        found = next((j for j, call in enumerate(calls) if not taken[j]
                      and call.name == want.name and json_equal(call.arguments, want.arguments)),
                     None)
        if found is None:
            unmatched.append(index)
            continue
        taken[found] = True
        call = calls[found]
        if not call.accepted:
            unknown = call.reason == "unknown_tool"
            by_recorded[index] = difference("unknown_tool" if unknown else "rejected", want.name,
                                            recorded=index, call=found,
                                            line=markup.lines.of(call.start), start=call.start,
                                            detail=None if unknown else call.reason)
    if unmatched:
        by_recorded.update(_explain(recorded, unmatched, markup))
    out = [by_recorded[index] for index in sorted(by_recorded)]
    out.extend(difference("not_in_recorded", call.name, call=j, line=markup.lines.of(call.start),
                          start=call.start)
               for j, call in enumerate(calls) if not taken[j] and call.accepted)
    return out


def _explain(recorded: Sequence[RecordedCall], unmatched: list[int],
             markup: Markup) -> dict[int, dict[str, Any]]:
    code = markup.code()
    code_used = [False] * len(code)
    out: dict[int, dict[str, Any]] = {}

    def in_code(index: int, exact: bool) -> None:
        want = recorded[index]
        for k, example in enumerate(code):
            if code_used[k] or example.name != want.name:
                continue
            if exact and (example.arguments is None
                          or not json_equal(example.arguments, want.arguments)):
                continue
            code_used[k] = True
            out[index] = difference("in_code", want.name, recorded=index, kind=example.kind,
                                    line=markup.lines.of(example.start), start=example.start)
            return

    _each(unmatched, out, lambda index: in_code(index, exact=True))
    _each(unmatched, out, _reasoning_rule(recorded, markup, out))
    if len(out) < len(unmatched):
        _each(unmatched, out, _failed_rule(recorded, markup, out))
    _each(unmatched, out, lambda index: in_code(index, exact=False))
    for index in unmatched:
        if index not in out:
            name = recorded[index].name
            unknown = markup.tool_names is not None and name not in markup.tool_names
            out[index] = difference("unknown_tool" if unknown else "not_found", name,
                                    recorded=index)
    return out


def _each(unmatched: list[int], out: dict[int, dict[str, Any]],
          rule: Callable[[int], None]) -> None:
    for index in unmatched:
        if index not in out:
            rule(index)


def _reasoning_rule(recorded: Sequence[RecordedCall], markup: Markup,
                    out: dict[int, dict[str, Any]]) -> Callable[[int], None]:
    quoted = markup.reasoning
    used = [False] * len(quoted)

    def in_reasoning(index: int) -> None:
        want = recorded[index]
        for k, call in enumerate(quoted):
            if (not used[k] and call.name == want.name
                    and json_equal(call.arguments, want.arguments)):
                used[k] = True
                out[index] = difference("in_reasoning", want.name, recorded=index,
                                        line=markup.lines.of(call.start), start=call.start)
                return
    return in_reasoning


def _failed_rule(recorded: Sequence[RecordedCall], markup: Markup,
                 out: dict[int, dict[str, Any]]) -> Callable[[int], None]:
    tags = markup.failed()
    used = [False] * len(tags)

    def failed(index: int) -> None:
        want = recorded[index]
        for k, tag in enumerate(tags):
            if not used[k] and tag.name == want.name:
                used[k] = True
                out[index] = difference("failed", want.name, recorded=index,
                                        line=markup.lines.of(tag.start), start=tag.start,
                                        detail=tag.failure.reason)
                return
    return failed


def json_equal(a: Any, b: Any) -> bool:
    """Equal as JSON values: numbers by value (`1 == 1.0`), but never a boolean and a
    number; objects whatever their key order; arrays in order."""
    if a is NOT_JSON or b is NOT_JSON:
        return False
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(json_equal(a[key], b[key]) for key in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(json_equal(x, y) for x, y in zip(a, b))
    return type(a) is type(b) and a == b
