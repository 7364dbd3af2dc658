"""Finishing calls: typing the arguments and applying the tool policy (SPEC 3 and 6).

The Transformer gives `RawCall`s (names and value texts as written). Here each becomes a
`ToolCall`: without tools, typed as SPEC 3 says and `unchecked`; with tools, typed by
the tool's schema and checked and repaired by `repair_tool_call`; a call to a tool that
was not given is `rejected` with reason `unknown_tool`.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, TypeAlias, runtime_checkable

from toolparse._collector import collector_paused
from toolparse._errors import ConfigTypeError
from toolparse._events import CallStatus, ToolCall, new_call_id
from toolparse._json import NOT_JSON, DuplicateKey, TooDeep, loads_strict
from toolparse._dialect.build import RawCall
from toolparse._dialect.syntaxes import DEFAULTS, TYPING, ValueSyntax
from toolparse._calls.values import too_deep_names, type_arguments

if TYPE_CHECKING:
    from toolparse._calls.repair import RepairConfig, RepairOutcome

__all__ = ["CallPolicy", "RepairOption", "SupportsModelDump", "ToolDefinition",
           "ToolDefinitions", "build_call", "build_calls", "make_policy"]


@runtime_checkable
class SupportsModelDump(Protocol):
    """A tool definition object that can give itself as a mapping: the openai SDK's
    pydantic models (`ChatCompletionFunctionTool`, `FunctionDefinition`) and any
    other pydantic model of the same shape."""

    def model_dump(self) -> Mapping[str, Any]: ...


ToolDefinition: TypeAlias = Mapping[str, Any] | SupportsModelDump
"""One tool: `{"type": "function", "function": {"name", "parameters"}}`, `{"name",
"parameters"}`, or an object with `model_dump()` giving one of those."""

ToolDefinitions: TypeAlias = Iterable[ToolDefinition]
"""What `tools=` takes: tool definitions in any iterable (read once)."""

# A string alias: `RepairConfig` lives in the repair package, which loads only when
# tools are given (start-up time); type checkers read the string.
RepairOption: TypeAlias = "RepairConfig | Mapping[str, Any]"
"""What `repair=` takes: a `RepairConfig`, or a mapping for `RepairConfig.from_mapping`
(snake_case or camelCase keys)."""


@dataclass(frozen=True, slots=True)
class CallPolicy:
    """What `tools=`, `model=` and `repair=` asked for, checked once up front."""

    schemas: Mapping[str, Any]
    """Tool name -> parameters schema (validated)."""
    model: str | None
    config: RepairConfig


def make_policy(tools: Any, model: Any, repair: Any) -> CallPolicy | None:
    """Check the tool options of `parse`/`StreamParser`; None when no tools were given.

    Raises, now rather than at the first call: `ConfigTypeError` for an option of the
    wrong type (`model=123`, `repair=3`, `tools="x"`, `tools=123`, one mapping instead
    of a list of them); `ConfigError` for a `repair` mapping with a bad key or value;
    `SchemaError` naming the tool for a bad definition or an unsafe schema (SPEC 6.1).
    `repair=` without `tools=` has no effect and says so with a `UserWarning`. `tools`
    is iterated once, so a generator is fine. A `CallPolicy` (tools checked once, for
    many parsers: `toolparse.scan`) is taken as it is.
    """
    if isinstance(tools, CallPolicy):
        return tools
    if model is not None and not isinstance(model, str):
        raise ConfigTypeError(f"model= must be a model route string, not "
                              f"{type(model).__name__}")
    if tools is None:
        if repair is not None:
            _repair_config(repair)   # still checked: a bad key is a bug either way
            warnings.warn("repair= has no effect without tools=: calls are only checked and "
                          "repaired against the tools' schemas", UserWarning, stacklevel=3)
        return None
    if isinstance(tools, (str, bytes, Mapping)) or not isinstance(tools, Iterable):
        what = "one mapping" if isinstance(tools, Mapping) else type(tools).__name__
        raise ConfigTypeError(f"tools= must be a list of tool definitions, not {what}")
    from toolparse._calls.repair import check_tools  # jsonschema loads when first used

    config = _repair_config(repair)
    return CallPolicy(schemas=check_tools(tools), model=model, config=config)


def _repair_config(repair: Any) -> RepairConfig:
    from toolparse._calls.repair import RepairConfig

    if repair is None:
        return RepairConfig()
    if isinstance(repair, RepairConfig):
        return repair
    if isinstance(repair, Mapping):
        return RepairConfig.from_mapping(repair)
    raise ConfigTypeError(f"repair= must be a RepairConfig or a mapping, not "
                          f"{type(repair).__name__}")


@collector_paused
def build_calls(raw_calls: Sequence[RawCall], raw: str, start: int,
                policy: CallPolicy | None,
                new_id: Callable[[], str] = new_call_id,
                typing: ValueSyntax = DEFAULTS[TYPING]) -> tuple[ToolCall, ...]:
    """The ToolCalls of one block whose source text `raw` starts at offset `start`.

    Without tools: SPEC 3 typing, status `unchecked` (a JSON body that is not one JSON
    object: `rejected`). With tools: schema typing, then `repair_tool_call`; a tool
    that was not given is `rejected` (`unknown_tool`). A rejected call keeps its typed
    arguments, so it can be shown and explained. `typing` is the dialect's (SPEC 5.1,
    its grammar header's row): one that `guesses` reads values as SPEC 3 says; any other
    leaves every value the schema does not type as its text (`json` calls carry their
    arguments as JSON text).
    """
    guess = typing.guesses
    return tuple(build_call(rc, raw[rc[3] - start:rc[4] - start], policy, new_id(), guess)
                 for rc in raw_calls)


def build_call(rc: RawCall, source: str, policy: CallPolicy | None, call_id: str,
               guess: bool = True,
               typed: tuple[dict[str, Any], tuple[str, ...]] | None = None) -> ToolCall:
    """One call of a block (`build_calls`): `source` is the call's own text. It
    depends on nothing else of its block, so a stream with incremental events builds
    each call as soon as it is complete (SPEC 7); `guess` is the typing's `guesses`.
    `typed`: without tools, what `type_arguments` gives for the call's parameters,
    when the caller has typed them already (arguments, json_errors)."""
    name, params, json_text, start, end = rc
    if not name:   # a JSON value where a call goes, that is no call (SPEC 5.3 e)
        from toolparse._calls.repair import RepairOutcome

        return ToolCall(name=name, arguments={}, status="rejected",
                        repair=RepairOutcome.not_a_call(json_text), raw=source, start=start,
                        end=end, id=call_id)
    schema = policy.schemas.get(name) if policy is not None else None
    json_errors: tuple[str, ...] = ()
    status: CallStatus = "unchecked"
    outcome: RepairOutcome | None = None
    deep: tuple[str, ...] = ()
    text: str | None = None
    if json_text is not None:
        arguments, outcome = _json_body(json_text) if policy is None else ({}, None)
        if outcome is not None:
            status = outcome.status
        elif policy is None:
            text = json_text  # one valid object: forwarded as written
    elif typed is not None and policy is None:
        arguments, json_errors = typed
    else:
        arguments, json_errors = type_arguments(params, schema, guess=guess)
        if schema is not None:
            deep = too_deep_names(params, schema)
    if policy is not None:
        from toolparse._calls.repair import RepairOutcome, repair_tool_call

        if schema is None:
            outcome = RepairOutcome.unknown_tool(name, policy.schemas)
        elif deep:
            # Text nested past what strict JSON reads, where the schema wants JSON: it
            # stayed a string, and saying `schema` (a type mismatch) would be wrong.
            outcome = RepairOutcome.too_deep(name, [_pointer(key, schema) for key in deep])
        else:
            given: str | dict[str, Any] = json_text if json_text is not None else arguments
            outcome = repair_tool_call(name, given, schema, model=policy.model,
                                       config=policy.config)
        status = outcome.status
        if outcome.arguments is not None:
            arguments = outcome.arguments
    return ToolCall(name=name, arguments=arguments, status=status, repair=outcome,
                    raw=source, start=start, end=end,
                    json_errors=json_errors, id=call_id, arguments_text=text)


def _json_body(text: str) -> tuple[dict[str, Any], RepairOutcome | None]:
    """Without tools, a JSON body is the arguments when it is one strict JSON object;
    otherwise the call is rejected (SPEC 3.1), its arguments `{}`."""
    from toolparse._calls.repair import RepairOutcome

    try:
        value = loads_strict(text)
    except DuplicateKey:
        value = NOT_JSON
    except TooDeep:
        return {}, RepairOutcome.invalid_body(text, "too_deep")
    if isinstance(value, dict):
        return value, None
    return {}, RepairOutcome.invalid_body(text, "invalid_json" if value is NOT_JSON
                                          else "not_object")


def _pointer(name: str, schema: Any) -> str:
    """The error path of a top-level argument: its name when the schema declares it,
    else `*` (paths never carry names the model made up)."""
    properties = schema.get("properties") if isinstance(schema, Mapping) else None
    shown = name if isinstance(properties, Mapping) and name in properties else "*"
    return "/" + shown.replace("~", "~0").replace("/", "~1")
