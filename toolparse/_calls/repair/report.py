"""Validation errors as reason codes, error paths and a hint for the model.

Nothing here puts an argument value into a message: paths name only properties the
schema declares, and messages are built from the schema."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from toolparse._calls.repair.base import (
    MAX_ERRORS, Call, ErrorEntry, Reason, glm_tokens, has_glm_token, name_list, quote,
    too_deep_hint,
    validating,
)

if TYPE_CHECKING:
    import jsonschema.exceptions

# --- Errors, reasons and hints ----------------------------------------------------------

def _error_pointer(error: jsonschema.exceptions.ValidationError) -> str:
    schema_path = list(error.absolute_schema_path)
    declared = {str(schema_path[i + 1]) for i, part in enumerate(schema_path[:-1])
                if part == "properties"}
    parts = []
    for part in error.absolute_path:
        shown = str(part) if isinstance(part, int) or part in declared else "*"
        parts.append(shown.replace("~", "~0").replace("/", "~1"))
    return "".join("/" + p for p in parts)


def _type_words(value: Any) -> str:
    names = [value] if isinstance(value, str) else list(value) if isinstance(value, list) else []
    return " or ".join(str(n) for n in names) or "another type"


_BOUND_MESSAGES = {
    "minimum": "must be at least {}",
    "maximum": "must be at most {}",
    "exclusiveMinimum": "must be greater than {}",
    "exclusiveMaximum": "must be less than {}",
    "multipleOf": "must be a multiple of {}",
    "minLength": "must have a length of at least {}",
    "maxLength": "must have a length of at most {}",
    "minItems": "must have at least {} items",
    "maxItems": "must have at most {} items",
    "minProperties": "must have at least {} properties",
    "maxProperties": "must have at most {} properties",
    "format": "must be a valid {}",
}
_FIXED_MESSAGES = {
    "additionalProperties": "has properties the schema does not define",
    "unevaluatedProperties": "has properties the schema does not define",
    "unevaluatedItems": "has items the schema does not define",
    "enum": "is not one of the allowed values",
    "const": "is not the required value",
    "pattern": "does not match the required pattern",
    "patternProperties": "has a property name that cannot be checked against the patterns",
    "uniqueItems": "has repeated items",
    "anyOf": "does not match any of the allowed forms",
    "oneOf": "does not match exactly one of the allowed forms",
    "not": "matches a form the schema forbids",
    "propertyNames": "has a property name the schema does not allow",
    "dependentRequired": "lacks a property another property requires",
    "contains": "has no item of the required kind",
    "false": "is not allowed here",
}


def _describe(error: jsonschema.exceptions.ValidationError) -> list[ErrorEntry]:
    """Error triples built from the schema only, never from the instance."""
    pointer = _error_pointer(error)
    keyword = str(error.validator)
    if keyword == "required":
        instance = error.instance if isinstance(error.instance, dict) else {}
        required = error.validator_value if isinstance(error.validator_value, list) else []
        return [(pointer + "/" + name.replace("~", "~0").replace("/", "~1"), "required",
                 f"missing required property {quote(name)}")
                for name in required if isinstance(name, str) and name not in instance]
    if keyword == "type":
        return [(pointer, keyword, f"must be {_type_words(error.validator_value)}")]
    if keyword in _BOUND_MESSAGES and isinstance(error.validator_value, (int, float, str)):
        return [(pointer, keyword, _BOUND_MESSAGES[keyword].format(error.validator_value))]
    return [(pointer, keyword, _FIXED_MESSAGES.get(keyword, f"fails the schema keyword "
                                                            f"{quote(keyword)}"))]


def schema_errors(call: Call, value: Any) -> tuple[tuple[ErrorEntry, ...], dict[str, list[str]]]:
    """The validation errors of `value`, and for each object with undefined properties
    the property names its schema does define (for the hint)."""
    if not isinstance(value, dict):
        return (("", "type", "the arguments must be a JSON object"),), {}
    found: dict[ErrorEntry, None] = {}
    defined: dict[str, list[str]] = {}
    with validating(value):   # may raise Reject (too_deep, complexity)
        for error in call.validator.iter_errors(value):
            for entry in _describe(error):
                found[entry] = None
            if error.validator in ("additionalProperties", "unevaluatedProperties"):
                properties = (error.schema.get("properties")
                              if isinstance(error.schema, dict) else None)
                defined.setdefault(_error_pointer(error), list(
                    properties if isinstance(properties, dict) else ()))
            if len(found) >= MAX_ERRORS:
                break
    return tuple(found)[:MAX_ERRORS], defined


def _first_segment(pointer: str) -> str:
    head = pointer[1:].split("/", 1)[0] if pointer.startswith("/") else ""
    return head.replace("~1", "/").replace("~0", "~")


def schema_reason(value: Any, errors: tuple[ErrorEntry, ...]) -> Reason:
    if isinstance(value, dict):
        # Leaked GLM markup explains the failure when it sits in a key, or in a top-level
        # string value that an error points at.
        if any(has_glm_token(key) for key in value):
            return "grammar_leak"
        failing = {_first_segment(path) for path, _, _ in errors}
        if any(isinstance(value.get(key), str) and has_glm_token(value[key])
               for key in failing if key):
            return "grammar_leak"
    keywords = {keyword for _, keyword, _ in errors}
    if "required" in keywords:
        return "missing_required"
    if keywords & {"additionalProperties", "unevaluatedProperties"}:
        return "unknown_field"
    return "schema"


def hint_for(call: Call, reason: Reason, errors: tuple[ErrorEntry, ...],
          defined: dict[str, list[str]] | None = None) -> str:
    tool = quote(call.tool)
    if reason == "truncated":
        return (f"The arguments for {tool} were cut off; call it again with the complete "
                f"arguments as one JSON object.")
    if reason == "invalid_json":
        return (f"The arguments for {tool} are not valid JSON; call it again with the "
                f"arguments as exactly one JSON object and nothing around it.")
    if reason == "too_deep":
        return too_deep_hint(call.tool)
    if reason == "duplicate_key":
        return (f"The arguments for {tool} give the same property more than once; call it "
                f"again with each property given once.")
    if reason == "alias_conflict":
        detail = errors[0][2] if errors else "a property is given under two names"
        return (f"The arguments for {tool} give one property under several names ({detail}); "
                f"call it again giving it once, under its canonical name.")
    if reason == "grammar_leak":
        tokens = glm_tokens()
        return (f"The arguments for {tool} contain {tokens.key_open}/{tokens.value_open} "
                f"markup; call it again with the arguments as a plain JSON object.")
    if reason == "missing_required":
        missing = [path.lstrip("/") for path, keyword, _ in errors if keyword == "required"]
        return (f"The call to {tool} lacks the required argument"
                f"{'s' if len(missing) > 1 else ''} {name_list(missing)}; call it again "
                f"with {'them' if len(missing) > 1 else 'it'} filled in.")
    if reason == "unknown_field":
        where, names = next(iter((defined or {"": []}).items()))
        at = f" at {where}" if where else ""
        if not names:
            return (f"The call to {tool} has arguments its schema does not define{at}; call "
                    f"it again without them.")
        return (f"The call to {tool} has arguments its schema does not define{at}; call it "
                f"again using only {name_list(names)}{' there' if where else ''}.")
    shown = "; ".join(f"{path} {message}" if path else message
                      for path, _, message in errors[:3])
    return (f"The arguments for {tool} do not match its schema ({shown}); call it again "
            f"with corrected values.")
