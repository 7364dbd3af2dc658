"""Finishing calls: typing the arguments and applying the tool policy (SPEC 3 and 6).

The Transformer gives `RawCall`s (names and value texts as written). Here each becomes a
`ToolCall`: without tools, typed as SPEC 3 says and `unchecked`; with tools, typed by
the tool's schema and checked and repaired by `repair_tool_call`; a call to a tool that
was not given is `rejected` with reason `unknown_tool`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from typing import TYPE_CHECKING

from toolparse._errors import ConfigError
from toolparse._events import CallStatus, ToolCall, new_call_id
from toolparse._json import NOT_JSON, DuplicateKey, loads_strict
from toolparse._dialect.transform import RawCall
from toolparse._calls.values import type_arguments

if TYPE_CHECKING:
    from toolparse._calls.repair import RepairConfig, RepairOutcome

__all__ = ["CallPolicy", "build_calls", "make_policy"]


@dataclass(frozen=True, slots=True)
class CallPolicy:
    """What `tools=`, `model=` and `repair=` asked for, checked once up front."""

    schemas: Mapping[str, Any]
    """Tool name -> parameters schema (validated)."""
    model: str | None
    config: RepairConfig


def make_policy(tools: Any, model: Any, repair: Any) -> CallPolicy | None:
    """Check the tool options of `parse`/`StreamParser`; None when no tools were given.

    Raises SchemaError naming the tool for a bad definition (now, not at the first
    call), ConfigError for a bad `repair`, TypeError for a `model` that is not a string.
    """
    if tools is None and repair is None:
        if model is not None and not isinstance(model, str):
            raise TypeError(f"model must be a model route string, not {type(model).__name__}")
        return None
    from toolparse._calls.repair import RepairConfig, check_tools  # loads jsonschema

    if model is not None and not isinstance(model, str):
        raise TypeError(f"model must be a model route string, not {type(model).__name__}")
    if repair is None:
        config = RepairConfig()
    elif isinstance(repair, RepairConfig):
        config = repair
    elif isinstance(repair, Mapping):
        config = RepairConfig.from_mapping(repair)
    else:
        raise ConfigError(f"repair must be a RepairConfig or a mapping, not {type(repair).__name__}")
    if tools is None:
        return None
    return CallPolicy(schemas=check_tools(tools), model=model, config=config)


def _as_tuples(rc: RawCall) -> list[tuple[str, str, bool | None, bool]]:
    return [(p.name, p.text, p.string_attr, p.cdata_only) for p in rc.params]


def build_calls(raw_calls: Sequence[RawCall], raw: str, start: int,
                policy: CallPolicy | None,
                new_id: Callable[[], str] = new_call_id) -> tuple[ToolCall, ...]:
    """The ToolCalls of one block whose source text `raw` starts at offset `start`.

    Without tools: SPEC 3 typing, status `unchecked` (a JSON body that is not one JSON
    object: `rejected`). With tools: schema typing, then `repair_tool_call`; a tool
    that was not given is `rejected` (`unknown_tool`). A rejected call keeps its typed
    arguments, so it can be shown and explained.
    """
    return tuple(_build_call(rc, raw[rc.start - start:rc.end - start], policy, new_id())
                 for rc in raw_calls)


def _build_call(rc: RawCall, raw: str, policy: CallPolicy | None, call_id: str) -> ToolCall:
    schema = policy.schemas.get(rc.name) if policy is not None else None
    json_errors: tuple[str, ...] = ()
    status: CallStatus = "unchecked"
    outcome: RepairOutcome | None = None
    if rc.json_text is not None:
        arguments, outcome = _json_body(rc.json_text) if policy is None else ({}, None)
        if outcome is not None:
            status = outcome.status
    else:
        arguments, json_errors = type_arguments(_as_tuples(rc), schema)
    if policy is not None:
        from toolparse._calls.repair import RepairOutcome, repair_tool_call

        if schema is None:
            outcome = RepairOutcome.unknown_tool(rc.name, policy.schemas)
        else:
            given: str | dict[str, Any] = rc.json_text if rc.json_text is not None else arguments
            outcome = repair_tool_call(rc.name, given, schema, model=policy.model,
                                       config=policy.config)
        status = outcome.status
        if outcome.arguments is not None:
            arguments = outcome.arguments
    return ToolCall(name=rc.name, arguments=arguments, status=status, repair=outcome,
                    raw=raw, start=rc.start, end=rc.end, json_errors=json_errors, id=call_id)


def _json_body(text: str) -> tuple[dict[str, Any], RepairOutcome | None]:
    """Without tools, a JSON body is the arguments when it is one strict JSON object;
    otherwise the call is rejected (SPEC 3.1), its arguments `{}`."""
    try:
        value = loads_strict(text)
    except DuplicateKey:
        value = NOT_JSON
    if isinstance(value, dict):
        return value, None
    from toolparse._calls.repair import RepairOutcome

    return {}, RepairOutcome.invalid_body(text, "invalid_json" if value is NOT_JSON
                                          else "not_object")
