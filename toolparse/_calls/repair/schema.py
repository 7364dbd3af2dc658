"""Tool definitions and their JSON Schemas: checked once, compiled to validators."""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from toolparse._errors import SchemaError
from toolparse._calls.repair.base import VALIDATOR_CACHE_SIZE
from toolparse._calls.values import resolve_local_ref, schema_types

if TYPE_CHECKING:
    import jsonschema.protocols

# --- Validators -------------------------------------------------------------------------

_validators: OrderedDict[str, jsonschema.protocols.Validator] = OrderedDict()
_validators_lock = threading.Lock()


def _schema_pointer(path: Iterable[Any]) -> str:
    return "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in path)


def validator_for_schema(schema: Any, tool: str) -> jsonschema.protocols.Validator:
    """A validator for `schema` (the draft it declares, default 2020-12), built once.

    Raises `SchemaError` naming the tool when the schema is not JSON or not valid.
    """
    if not isinstance(schema, Mapping):
        raise SchemaError(f"tool {tool!r}: the parameters schema must be a JSON object, "
                          f"got {type(schema).__name__}")
    try:
        key = json.dumps(schema, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    except (TypeError, ValueError) as error:
        raise SchemaError(f"tool {tool!r}: the parameters schema is not JSON ({error})") from None
    with _validators_lock:
        cached = _validators.get(key)
        if cached is not None:
            _validators.move_to_end(key)
            return cached
    # A copy in the caller's key order (hints list properties as declared); later changes
    # to the caller's dict cannot reach the cache.
    own_copy = json.loads(json.dumps(schema, ensure_ascii=False))
    import jsonschema
    from jsonschema.validators import validator_for

    cls = validator_for(own_copy, default=jsonschema.Draft202012Validator)
    try:
        cls.check_schema(own_copy)
    except jsonschema.exceptions.SchemaError as error:
        where = _schema_pointer(error.absolute_path) or "/"
        raise SchemaError(f"tool {tool!r}: invalid parameters schema at {where}: "
                          f"{error.message}") from None
    broken = _broken_local_ref(own_copy)
    if broken is not None:
        raise SchemaError(f"tool {tool!r}: invalid parameters schema: $ref {broken!r} points "
                          f"at nothing")
    validator = cls(own_copy)
    with _validators_lock:
        _validators[key] = validator
        _validators.move_to_end(key)
        while len(_validators) > VALIDATOR_CACHE_SIZE:
            _validators.popitem(last=False)
    return validator


_DATA_KEYWORDS = frozenset({"enum", "const", "default", "examples"})


def _broken_local_ref(schema: Any) -> str | None:
    """The first local `$ref` (`#/...`) that resolves to nothing, if the schema has no
    nested `$id` (which would move the base); other references are checked when used."""
    refs: list[str] = []
    stack: list[tuple[Any, bool]] = [(schema, True)]
    while stack:
        node, is_root = stack.pop()
        if isinstance(node, dict):
            if not is_root and ("$id" in node or "id" in node) and isinstance(
                    node.get("$id", node.get("id")), str):
                return None
            ref = node.get("$ref")
            if isinstance(ref, str) and ref.startswith("#/"):
                refs.append(ref)
            stack.extend((child, False) for key, child in node.items()
                         if key not in _DATA_KEYWORDS)
        elif isinstance(node, list):
            stack.extend((child, False) for child in node)
    for ref in refs:
        if resolve_local_ref({"$ref": ref}, schema) == {"$ref": ref}:
            return ref
    return None


def _empty_parameters() -> dict[str, Any]:
    """The schema of a tool defined without `parameters`: it takes no arguments."""
    return {"type": "object", "properties": {}, "additionalProperties": False}


def check_tools(tools: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """Validate tool definitions up front; returns {name: parameters schema}.

    Takes OpenAI-style definitions (`{"type": "function", "function": {"name",
    "parameters"}}`) or `{"name", "parameters"}` dicts. A definition without
    `parameters` takes no arguments (an empty object). Raises `SchemaError` naming the
    tool for a malformed definition, an invalid schema, a schema that cannot describe an
    object, or a duplicate name.
    """
    if isinstance(tools, (str, bytes, Mapping)) or not isinstance(tools, Iterable):
        raise SchemaError(f"tools: expected a list of tool definitions, got {type(tools).__name__}")
    schemas: dict[str, Any] = {}
    for index, tool in enumerate(tools):
        where = f"tool #{index}"
        if not isinstance(tool, Mapping):
            raise SchemaError(f"{where}: a tool definition must be a mapping, "
                              f"got {type(tool).__name__}")
        definition: Any = tool
        if "function" in tool:
            if tool.get("type", "function") != "function":
                raise SchemaError(f"{where}: unsupported tool type {tool.get('type')!r}")
            definition = tool["function"]
            if not isinstance(definition, Mapping):
                raise SchemaError(f"{where}: 'function' must be a mapping")
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
