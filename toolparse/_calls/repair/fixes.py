"""Rule 3 of SPEC 6: fixes the schema makes unambiguous."""

from __future__ import annotations

from typing import Any

from toolparse._json import strict_json
from toolparse._calls.repair.base import (
    MAX_DEPTH, Call, Reject, declared_properties, glm_tokens, has_glm_token, member_pointer,
    name_list, quote,
)
from toolparse._calls.values import admits, item_schema, member_schema, schema_types

# --- Rule 3: schema-guided fixes --------------------------------------------------------

def _strip_boundary(text: str, opening: str, closing: str) -> str:
    stripped = text
    if stripped.startswith(opening):
        stripped = stripped[len(opening):]
    if stripped.endswith(closing):
        stripped = stripped[:-len(closing)]
    if stripped == text or has_glm_token(stripped):
        return text  # a token left in the middle: not a boundary leak, leave it all
    return stripped


def strip_grammar_leaks(arguments: Any, call: Call) -> Any:
    """Precondition: parsed arguments that do not validate; a configured model route.

    Removes a leading `<arg_key>` / trailing `</arg_key>` from top-level keys and a
    leading `<arg_value>` / trailing `</arg_value>` from top-level string values, only
    when no token is left inside afterwards (never from the middle of a key or value;
    whitespace next to a token is content and stays). A stripped key that collides with
    another key is refused (`grammar_leak`): no winner is picked.
    """
    if not call.leak_route or not isinstance(arguments, dict):
        return arguments
    tokens = glm_tokens()
    result: dict[str, Any] = {}
    changed = False
    for key, value in arguments.items():
        new_key = _strip_boundary(key, tokens.key_open, tokens.key_close)
        new_value = (_strip_boundary(value, tokens.value_open, tokens.value_close)
                     if isinstance(value, str) else value)
        if new_key in result:
            raise Reject("grammar_leak", ((member_pointer(call, "", new_key), "grammar_leak",
                                            "two keys are the same once leaked markup is "
                                            "removed"),))
        changed = changed or new_key is not key or new_value is not value
        result[new_key] = new_value
    return result if changed else arguments


def rename_aliases(arguments: Any, call: Call) -> Any:
    """Precondition: parsed arguments that do not validate; aliases configured for the tool.

    Renames an alias key to its canonical name, in place in key order, when exactly one
    alias of that name is present and the canonical key is absent. The canonical key
    present (even as null) together with an alias, or two aliases of one name, is
    refused (`alias_conflict`). Names match exactly: no case folding, no fuzziness.
    """
    table = call.config.aliases.get(call.tool)
    if not table or not isinstance(arguments, dict):
        return arguments
    renames: dict[str, str] = {}
    for canonical, aliases in table.items():
        present = [alias for alias in aliases if alias in arguments]
        if not present:
            continue
        if canonical in arguments or len(present) > 1:
            given = ([canonical] if canonical in arguments else []) + present
            raise Reject("alias_conflict", (
                (member_pointer(call, "", canonical), "alias_conflict",
                 f"{quote(canonical)} is given as {name_list(given)}"),))
        renames[present[0]] = canonical
    if not renames:
        return arguments
    return {renames.get(key, key): value for key, value in arguments.items()}


def _drop_nulls(value: Any, schema: Any, root: Any, depth: int) -> Any:
    if depth > MAX_DEPTH or schema is None:
        return value
    if isinstance(value, dict):
        properties, required = declared_properties(schema, root)
        result: dict[str, Any] = {}
        changed = False
        for key, item in value.items():
            if item is None and key in properties and key not in required:
                types = schema_types(properties[key], root)
                if types is not None and "null" not in types:
                    changed = True
                    continue
            new_item = _drop_nulls(item, member_schema(schema, key, root), root, depth + 1)
            changed = changed or new_item is not item
            result[key] = new_item
        return result if changed else value
    if isinstance(value, list):
        items = [_drop_nulls(item, item_schema(schema, i, root), root, depth + 1)
                 for i, item in enumerate(value)]
        return items if any(a is not b for a, b in zip(items, value)) else value
    return value


def drop_optional_nulls(arguments: Any, call: Call) -> Any:
    """Precondition: parsed arguments that do not validate.

    Drops a member whose value is null when the property is declared in `properties`,
    is not `required`, and its schema admits no null (by `type`, `enum`, `const`,
    `anyOf`/`oneOf`/`allOf`, local `$ref`). Applies at any depth the schema describes.
    A null the schema allows is kept; a required null is kept (and fails validation);
    a null under an undeclared name is kept (unknown fields are never dropped).
    """
    if not call.config.drop_optional_nulls:
        return arguments
    return _drop_nulls(arguments, call.schema, call.schema, 0)


def _destringify(value: Any, schema: Any, root: Any, depth: int) -> Any:
    if depth > MAX_DEPTH or schema is None:
        return value
    if isinstance(value, str):
        types = schema_types(schema, root)
        if types and "string" not in types and types & {"array", "object"}:
            decoded = strict_json(value)
            if isinstance(decoded, (list, dict)) and admits(types, decoded):
                return _destringify(decoded, schema, root, depth + 1)
        return value
    if isinstance(value, dict):
        result = {key: _destringify(item, member_schema(schema, key, root), root, depth + 1)
                  for key, item in value.items()}
        return result if any(result[k] is not v for k, v in value.items()) else value
    if isinstance(value, list):
        items = [_destringify(item, item_schema(schema, i, root), root, depth + 1)
                 for i, item in enumerate(value)]
        return items if any(a is not b for a, b in zip(items, value)) else value
    return value


def parse_stringified_collections(arguments: Any, call: Call) -> Any:
    """Precondition: parsed arguments that do not validate.

    Replaces a string with the JSON array or object it exactly is (strict JSON) where
    the schema admits an array or object there and admits no string, at any depth the
    schema describes, the root included (double-encoded arguments), and inside what it
    decodes (a stringified array inside a stringified object). A string the schema
    accepts as a string is never touched; a bare string is never wrapped in an array.
    """
    if not call.config.parse_stringified_collections:
        return arguments
    return _destringify(arguments, call.schema, call.schema, 0)


SCHEMA_RULES = (strip_grammar_leaks, rename_aliases, drop_optional_nulls,
                 parse_stringified_collections)
