"""Tool definitions and their JSON Schemas: checked once, compiled to validators."""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from toolparse._errors import ConfigTypeError, SchemaError
from toolparse._calls.repair.base import VALIDATOR_CACHE_SIZE
from toolparse._calls.repair.keywords import bounded_validator_class
from toolparse._calls.repair.safety import check_document_depth, check_schema_safety
from toolparse._calls.values import schema_types

if TYPE_CHECKING:
    import jsonschema.protocols

# --- Validators -------------------------------------------------------------------------

_validators: OrderedDict[str, jsonschema.protocols.Validator] = OrderedDict()
_validators_lock = threading.Lock()


def _schema_pointer(path: Iterable[Any]) -> str:
    return "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in path)


def validator_for_schema(schema: Any, tool: str) -> jsonschema.protocols.Validator:
    """A validator for `schema` (the draft it declares, default 2020-12), built once.

    Raises `SchemaError` naming the tool when the schema is not JSON, not valid, or
    not safe (`safety`: a reference outside the definition or to nothing, a reference
    cycle, a pattern RE2 cannot run, nesting past the limit). The validator resolves
    references in a registry holding only this definition, and retrieves nothing.
    """
    if not isinstance(schema, Mapping):
        raise SchemaError(f"tool {tool!r}: the parameters schema must be a JSON object, "
                          f"got {type(schema).__name__}")
    check_document_depth(schema, tool)
    try:
        key = json.dumps(schema, sort_keys=True, separators=(",", ":"), ensure_ascii=False,
                         allow_nan=False)
    except (TypeError, ValueError, RecursionError) as error:
        raise SchemaError(f"tool {tool!r}: the parameters schema is not JSON ({error})") from None
    with _validators_lock:
        cached = _validators.get(key)
        if cached is not None:
            _validators.move_to_end(key)
            return cached
    # A copy in the caller's key order (hints list properties as declared); later changes
    # to the caller's dict cannot reach the cache.
    own_copy = json.loads(json.dumps(schema, ensure_ascii=False))
    validator = _build(own_copy, tool)
    with _validators_lock:
        _validators[key] = validator
        _validators.move_to_end(key)
        while len(_validators) > VALIDATOR_CACHE_SIZE:
            _validators.popitem(last=False)
    return validator


def _build(schema: dict[str, Any], tool: str) -> jsonschema.protocols.Validator:
    import jsonschema
    import referencing.jsonschema
    from jsonschema.validators import validator_for

    declared = schema.get("$schema")
    unknown: Any = None
    base: Any = validator_for(schema, default=unknown)
    if base is None:
        if declared is not None:
            raise SchemaError(f"tool {tool!r}: the $schema {declared!r} names no JSON Schema "
                              f"draft jsonschema knows")
        base = jsonschema.Draft202012Validator
    try:
        base.check_schema(schema)
    except jsonschema.exceptions.SchemaError as error:
        where = _schema_pointer(error.absolute_path) or "/"
        raise SchemaError(f"tool {tool!r}: invalid parameters schema at {where}: "
                          f"{error.message}") from None
    except RecursionError:
        raise SchemaError(f"tool {tool!r}: the parameters schema is nested too deeply to "
                          f"check") from None
    specification = referencing.jsonschema.specification_with(base.META_SCHEMA["$schema"])
    registry = check_schema_safety(schema, tool, specification)
    validator: jsonschema.protocols.Validator = bounded_validator_class(base)(
        schema, registry=registry)
    return validator


def _empty_parameters() -> dict[str, Any]:
    """The schema of a tool defined without `parameters`: it takes no arguments."""
    return {"type": "object", "properties": {}, "additionalProperties": False}


def _as_mapping(tool: Any, where: str) -> Mapping[str, Any]:
    """A definition as a mapping: itself, or what its `model_dump()` gives (the openai
    SDK's pydantic tool objects)."""
    if isinstance(tool, Mapping):
        return tool
    dump = getattr(tool, "model_dump", None)
    if not callable(dump):
        raise SchemaError(f"{where}: a tool definition must be a mapping or an object with "
                          f"model_dump(), got {type(tool).__name__}")
    try:
        dumped = dump()
    except Exception as error:  # the caller's object: say which and why, as a SchemaError
        raise SchemaError(f"{where}: model_dump() of the {type(tool).__name__} failed "
                          f"({type(error).__name__}: {error})") from None
    if not isinstance(dumped, Mapping):
        raise SchemaError(f"{where}: model_dump() of the {type(tool).__name__} gave a "
                          f"{type(dumped).__name__}, not a mapping")
    return dumped


def check_tools(tools: Iterable[Any]) -> dict[str, Any]:
    """Validate tool definitions up front; returns {name: parameters schema}.

    Takes OpenAI-style definitions (`{"type": "function", "function": {"name",
    "parameters"}}`) or `{"name", "parameters"}` dicts, or objects with `model_dump()`
    giving either (openai SDK tool objects), in any iterable, read once. A definition
    without `parameters` (or with `parameters: None`) takes no arguments. Raises
    `ConfigTypeError` when `tools` is not a collection of definitions (a string, one
    mapping, a number), and `SchemaError` naming the tool for a malformed definition,
    an invalid or unsafe schema (SPEC 6.1), a schema that cannot describe an object,
    or a duplicate name.
    """
    if isinstance(tools, (str, bytes, Mapping)) or not isinstance(tools, Iterable):
        what = "one mapping" if isinstance(tools, Mapping) else type(tools).__name__
        raise ConfigTypeError(f"tools must be a list of tool definitions, not {what}")
    schemas: dict[str, Any] = {}
    for index, item in enumerate(tools):
        where = f"tool #{index}"
        tool = _as_mapping(item, where)
        definition: Any = tool
        kind = tool.get("type", "function")
        if kind != "function":
            raise SchemaError(f"{where}: unsupported tool type {kind!r} (only 'function')")
        if "function" in tool:
            definition = _as_mapping(tool["function"], f"{where}: 'function'")
        name = definition.get("name")
        if not isinstance(name, str) or not name:
            raise SchemaError(f"{where}: a tool definition needs a non-empty string 'name'")
        parameters = definition.get("parameters")
        if parameters is None:
            parameters = _empty_parameters()
        validator_for_schema(parameters, name)
        types = schema_types(parameters, parameters)
        if types is not None and "object" not in types:
            raise SchemaError(f"tool {name!r}: the parameters schema must describe an object")
        if name in schemas:
            raise SchemaError(f"tool {name!r}: defined twice ({where})")
        schemas[name] = parameters
    return schemas
