"""The entry point: `repair_tool_call` runs the rules of SPEC 6 in their order."""

from __future__ import annotations

import logging
from typing import Any

from toolparse._errors import ConfigTypeError
from toolparse._json import NOT_JSON, dumps_strict
from toolparse._calls.repair.base import (
    Call, ErrorEntry, Reason, Reject, is_valid, logger, measure, quote,
)
from toolparse._calls.repair.config import DEFAULT_CONFIG, RepairConfig
from toolparse._calls.repair.fixes import SCHEMA_RULES
from toolparse._calls.repair.json_text import decode_glm_pairs, repair_json_syntax, strict_parse
from toolparse._calls.repair.outcome import RepairOutcome
from toolparse._calls.repair.report import hint_for, schema_errors, schema_reason
from toolparse._calls.repair.schema import validator_for_schema

# --- The entry point --------------------------------------------------------------------

def _serialise(arguments: dict[str, Any]) -> str:
    """Standard JSON for arguments that validated (G11: never NaN or Infinity)."""
    text = dumps_strict(arguments)
    if text is None:
        raise Reject("invalid_json", (("", "invalid_json", "the arguments cannot be written "
                                                           "as standard JSON"),))
    return text


def _repaired(call: Call, value: dict[str, Any]) -> RepairOutcome:
    return RepairOutcome(status="repaired", arguments=value, text=_serialise(value),
                         rules=tuple(call.rules))


def _rejected(call: Call, reason: Reason, errors: tuple[ErrorEntry, ...],
              text: str | None, defined: dict[str, list[str]] | None = None) -> RepairOutcome:
    return RepairOutcome(status="rejected", arguments=None, text=text, rules=tuple(call.rules),
                         reason=reason, errors=errors,
                         hint=hint_for(call, reason, errors, defined))


def _run(call: Call, arguments: str | dict[str, Any]) -> RepairOutcome:
    if isinstance(arguments, str):
        given_text: str | None = arguments
        value = strict_parse(arguments)  # may raise Reject (duplicate_key)
        if isinstance(value, dict) and is_valid(call, value):
            return RepairOutcome(status="valid", arguments=value, text=arguments)
        if value is NOT_JSON:
            glm = decode_glm_pairs(arguments, call)
            if glm is not None:
                call.fired("decode_glm_pairs", arguments, glm)
                value = glm
            else:
                value = repair_json_syntax(arguments, call)
                call.fired("repair_json_syntax", arguments, value)
            if is_valid(call, value):
                return _repaired(call, value)
    else:
        value = arguments
        measure(value)   # too_deep before anything recurses into it
        given_text = dumps_strict(arguments)
        if given_text is None:
            raise Reject("invalid_json", (("", "invalid_json", "the arguments are not "
                                            "JSON-serialisable"),))
        if is_valid(call, value):
            return RepairOutcome(status="valid", arguments=value, text=given_text)

    for rule in SCHEMA_RULES:
        new_value = rule(value, call)
        if new_value is not value:
            call.fired(rule.__name__, value, new_value)
            value = new_value
    if is_valid(call, value):
        return _repaired(call, value)
    errors, defined = schema_errors(call, value)
    return _rejected(call, schema_reason(value, errors), errors, given_text, defined)


def repair_tool_call(name: str, arguments: str | dict[str, Any], schema: Any, *,
                     model: str | None = None,
                     config: RepairConfig | None = None) -> RepairOutcome:
    """Check one call's arguments against its tool's schema and repair what SPEC 6 allows.

    `arguments` is the raw JSON text (OpenAI `function.arguments`) or a dict the XML
    parser built; `schema` is the tool's parameters schema (None: any object). `model`
    is the model route, matched against `config.grammar_leak_models`. Never raises on
    content; raises `SchemaError` for an invalid or unsafe schema (SPEC 6.1: checked
    before anything is validated, and nothing is ever fetched), `TypeError` for a name or
    arguments of another type and `ConfigTypeError` for a `model` or `config` of one.
    """
    if not isinstance(name, str):
        raise TypeError(f"repair_tool_call: name must be a str, got {type(name).__name__}")
    if not isinstance(arguments, (str, dict)):
        raise TypeError(f"repair_tool_call: arguments must be JSON text or a dict, "
                        f"got {type(arguments).__name__}")
    if config is not None and not isinstance(config, RepairConfig):
        raise ConfigTypeError(f"repair_tool_call: config must be a RepairConfig, "
                              f"got {type(config).__name__}")
    if model is not None and not isinstance(model, str):
        raise ConfigTypeError(f"repair_tool_call: model must be a model route string, "
                              f"got {type(model).__name__}")
    validator = validator_for_schema({"type": "object"} if schema is None else schema, name)
    call = Call(name, model, config or DEFAULT_CONFIG, validator)
    try:
        outcome = _run(call, arguments)
    except Reject as refusal:
        text = arguments if isinstance(arguments, str) else dumps_strict(arguments)
        outcome = _rejected(call, refusal.reason, refusal.errors, text)
    if logger.isEnabledFor(logging.DEBUG):
        logger.debug(
            "repair tool=%s model=%s status=%s rules=%s reason=%s paths=%s in=%d out=%d",
            quote(name), model, outcome.status, ",".join(outcome.rules) or "-",
            outcome.reason or "-", ",".join(path or "/" for path, _, _ in outcome.errors) or "-",
            len(arguments) if isinstance(arguments, str) else len(arguments),
            len(outcome.text) if outcome.text is not None else 0)
    return outcome
