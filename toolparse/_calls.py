"""Finishing calls: typing the arguments and applying the tool policy (SPEC 3 and 6).

The Transformer gives `RawCall`s (names and value texts as written). Here each becomes a
`ToolCall`: without tools, typed as SPEC 3 says and `unchecked`; with tools, typed by
the tool's schema and checked and repaired by `repair_tool_call`; a call to a tool that
was not given is `rejected` with reason `unknown_tool`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from toolparse._events import ToolCall
from toolparse._transform import RawCall
from toolparse._typing import type_value

__all__ = ["CallPolicy", "build_calls", "type_raw_params"]


@dataclass(frozen=True, slots=True)
class CallPolicy:
    """What `tools=`, `model=` and `repair=` asked for."""

    schemas: Mapping[str, Mapping[str, Any]] | None = None
    """Tool name -> parameters schema; None when no tools were given."""
    model: str | None = None
    config: Any = None
    extra: dict[str, Any] = field(default_factory=dict)


def type_raw_params(params: Sequence[Any]) -> tuple[dict[str, Any], tuple[str, ...]]:
    """SPEC 3 typing of a parameter list: a repeated name gives a list, in order."""
    arguments: dict[str, Any] = {}
    repeated: set[str] = set()
    json_errors: list[str] = []
    for p in params:
        value, json_error = type_value(p.text, string_attr=p.string_attr, cdata_only=p.cdata_only)
        if json_error:
            json_errors.append(p.name)
        if p.name not in arguments:
            arguments[p.name] = value
        elif p.name in repeated:
            arguments[p.name].append(value)
        else:
            arguments[p.name] = [arguments[p.name], value]
            repeated.add(p.name)
    return arguments, tuple(dict.fromkeys(json_errors))


def build_calls(raw_calls: Sequence[RawCall], raw: str, start: int,
                policy: CallPolicy | None) -> tuple[ToolCall, ...]:
    """The ToolCalls of one block whose source text `raw` starts at offset `start`."""
    calls = []
    for rc in raw_calls:
        if rc.json_arguments is not None:
            arguments, json_errors = rc.json_arguments, ()
        else:
            arguments, json_errors = type_raw_params(rc.params)
        calls.append(ToolCall(
            name=rc.name, arguments=arguments, raw=raw[rc.start - start:rc.end - start],
            start=rc.start, end=rc.end, json_errors=json_errors))
    return tuple(calls)
