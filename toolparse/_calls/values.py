"""Typing parameter values (SPEC section 3, "Typing"; section 6 with a schema).

A parameter value arrives as text. Without a schema, SPEC 3 decides its type from the
text alone and from how it was written (a `string` attribute, a value that is exactly
one CDATA section). JSON here is strict: no NaN or Infinity, no duplicate keys.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from toolparse._json import NOT_JSON, json_depth_exceeds, strict_json
from toolparse._calls.patterns import pattern_search

if TYPE_CHECKING:
    from toolparse._dialect.build import RawParam

__all__ = [
    "element_value", "type_value", "type_by_schema", "type_arguments", "too_deep_names",
    "schema_types", "admits", "member_schema", "item_schema", "resolve_local_ref",
]


def type_value(text: str, *, string_attr: bool | None, cdata_only: bool) -> tuple[Any, bool]:
    """Type one value as SPEC 3 says; returns (value, json_error).

    `string_attr` is the parameter's `string="true|false"` attribute (None when absent);
    `cdata_only` says the value was written as exactly one CDATA section. `json_error`
    is True when `string="false"` promised JSON and the text is not JSON: the value is
    then the text, flagged for repair.
    """
    if string_attr:
        return text, False
    if string_attr is False:
        value = strict_json(text)
        return (text, True) if value is NOT_JSON else (value, False)
    if cdata_only:
        return text, False
    value = strict_json(text)
    if value is NOT_JSON or isinstance(value, str):
        # A quoted JSON string stays as written, quotes included.
        return text, False
    return value, False


# --- Typing with a schema (SPEC section 6, first bullet) ---------------------------------
#
# A property schema is read only for the JSON types it admits. `schema_types` answers
# that from `type`, `enum`, `const`, local `$ref`s, `allOf` (intersection) and
# `anyOf` / `oneOf` (union); anything it cannot read (a remote `$ref`, `not`, an
# unconstrained `{}`) leaves the type open (None), and an open type means "not
# described": SPEC 3 decides. Cost: linear in the size of the schema, per value.

JSON_TYPES = frozenset({"string", "integer", "number", "boolean", "null", "array", "object"})
_MAX_REF_DEPTH = 32


def resolve_local_ref(schema: Any, root: Any) -> Any:
    """`schema` with local `$ref`s followed (`#`, `#/$defs/x`); unresolvable: `schema`."""
    for _ in range(_MAX_REF_DEPTH):
        if not isinstance(schema, dict):
            return schema
        ref = schema.get("$ref")
        if not isinstance(ref, str) or not ref.startswith("#") or root is None:
            return schema
        target = _pointer_get(root, ref[1:])
        if target is None:
            return schema
        if len(schema) > 1:
            # A $ref next to other keywords (2019-09+) applies both; keep the siblings.
            merged = {k: v for k, v in schema.items() if k != "$ref"}
            return {"allOf": [merged, target]}
        schema = target
    return schema


def _pointer_get(root: Any, pointer: str) -> Any:
    if pointer == "":
        return root
    if not pointer.startswith("/"):
        return None  # an anchor (`#name`): not followed
    node = root
    for raw in pointer[1:].split("/"):
        part = raw.replace("~1", "/").replace("~0", "~")
        if isinstance(node, dict) and part in node:
            node = node[part]
        elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        else:
            return None
    return node


def _value_types(value: Any) -> frozenset[str]:
    if value is None:
        return frozenset({"null"})
    if isinstance(value, bool):
        return frozenset({"boolean"})
    if isinstance(value, int):
        return frozenset({"integer", "number"})
    if isinstance(value, float):
        return frozenset({"integer", "number"}) if value.is_integer() else frozenset({"number"})
    if isinstance(value, str):
        return frozenset({"string"})
    if isinstance(value, list):
        return frozenset({"array"})
    if isinstance(value, dict):
        return frozenset({"object"})
    return frozenset()


def _intersect(left: frozenset[str] | None, right: frozenset[str] | None) -> frozenset[str] | None:
    if left is None:
        return right
    if right is None:
        return left
    return left & right


def schema_types(schema: Any, root: Any = None, _depth: int = 0) -> frozenset[str] | None:
    """The JSON types `schema` admits, or None when it does not say (any type).

    "number" in the result means non-integral numbers too; an integer-only schema
    gives "integer" alone. `root` resolves local `$ref`s.
    """
    if _depth > _MAX_REF_DEPTH:
        return None
    schema = resolve_local_ref(schema, root)
    if schema is False:
        return frozenset()
    if not isinstance(schema, dict):
        return None
    types: frozenset[str] | None = None
    declared = schema.get("type")
    if isinstance(declared, str):
        declared = [declared]
    if isinstance(declared, list):
        names = {t for t in declared if t in JSON_TYPES}
        if "number" in names:
            names.add("integer")
        types = frozenset(names)
    if "const" in schema:
        types = _intersect(types, _value_types(schema["const"]))
    if isinstance(schema.get("enum"), list):
        found: frozenset[str] = frozenset()
        for item in schema["enum"]:
            found |= _value_types(item)
        types = _intersect(types, found)
    if isinstance(schema.get("$ref"), str):
        return types  # a $ref we could not follow: only what the siblings say
    for key in ("anyOf", "oneOf"):
        branches = schema.get(key)
        if isinstance(branches, list) and branches:
            union: frozenset[str] | None = frozenset()
            for branch in branches:
                branch_types = schema_types(branch, root, _depth + 1)
                if branch_types is None:
                    union = None
                    break
                union = (union or frozenset()) | branch_types
            types = _intersect(types, union)
    branches = schema.get("allOf")
    if isinstance(branches, list):
        for branch in branches:
            types = _intersect(types, schema_types(branch, root, _depth + 1))
    return types


def admits(types: frozenset[str] | None, value: Any) -> bool:
    """Whether a value of this JSON type is among `types` (None admits everything)."""
    return types is None or bool(types & _value_types(value))


def type_by_schema(text: str, *, string_attr: bool | None, cdata_only: bool, schema: Any,
                   root: Any = None, guess: bool = True) -> tuple[Any, bool]:
    """Type one value against its property schema (SPEC 6); returns (value, json_error).

    - `string="true"` always gives the text.
    - A property the schema does not describe (no schema, or no readable type) is typed
      as SPEC 3 says (`type_value`).
    - `string="false"`: the JSON value of the text; when the text is not JSON, the text,
      flagged (`json_error`). When the JSON value is of a type the property does not
      admit but the property admits strings, the text.
    - No attribute, from CDATA or not: a property that admits strings keeps the text
      (also when it admits the decoded type too: no guessing), except that one that
      admits null too reads the exact text `null` (not from CDATA) as null. Otherwise
      the text is
      decoded when it is exactly a JSON value of an admitted type; anything else falls
      back to SPEC 3, and validation reports the mismatch.

    `root` is the whole parameters schema, for local `$ref`s. `guess=False` (a dialect
    with `typing=schema`, SPEC 5.1): where the schema does not decide, the text.
    """
    if string_attr:
        return text, False
    types = schema_types(schema, root) if schema is not None else None
    if types is None:
        return type_value(text, string_attr=string_attr, cdata_only=cdata_only) if guess \
            else (text, False)
    if string_attr is False:
        value = strict_json(text)
        if value is NOT_JSON:
            return text, True
        if not admits(types, value) and "string" in types:
            return text, False
        return value, False
    if "string" in types:
        # A property that admits null as well decodes the exact text `null` (MiniMax's
        # template writes None so); one that admits only strings keeps it (SPEC 6).
        written_null = text == "null" and not cdata_only and "null" in types
        return (None if written_null else text), False
    value = strict_json(text)
    if value is not NOT_JSON and not isinstance(value, str) and admits(types, value):
        return value, False
    return type_value(text, string_attr=None, cdata_only=cdata_only) if guess else (text, False)


def member_schema(object_schema: Any, key: str, root: Any = None) -> Any:
    """The schema an object schema gives member `key`: `properties`, then a matching
    `patternProperties` (matched by RE2: `toolparse._calls.patterns`), then a
    schema-valued `additionalProperties`; None if none. Looks one level into `allOf`."""
    object_schema = resolve_local_ref(object_schema, root)
    if not isinstance(object_schema, dict):
        return None
    candidates = [object_schema]
    if isinstance(object_schema.get("allOf"), list):
        candidates += [resolve_local_ref(s, root) for s in object_schema["allOf"]]
    for candidate in candidates:
        if not isinstance(candidate, dict):
            continue
        properties = candidate.get("properties")
        if isinstance(properties, dict) and key in properties:
            return properties[key]
    for candidate in candidates:
        if not isinstance(candidate, dict):
            continue
        patterns = candidate.get("patternProperties")
        if isinstance(patterns, dict):
            for pattern, sub in patterns.items():
                # RE2, linear in the key (G10); undecided counts as no match here, and
                # validation then fails the call closed.
                if isinstance(pattern, str) and pattern_search(pattern, key):
                    return sub
        extra = candidate.get("additionalProperties")
        if isinstance(extra, dict):
            return extra
    return None


def item_schema(array_schema: Any, index: int, root: Any = None) -> Any:
    """The schema an array schema gives item `index` (`prefixItems`, then `items`;
    the pre-2020 list form of `items` with `additionalItems`); None if none."""
    array_schema = resolve_local_ref(array_schema, root)
    if not isinstance(array_schema, dict):
        return None
    prefix = array_schema.get("prefixItems")
    items = array_schema.get("items")
    if isinstance(items, list):  # draft 4-7 tuple form
        prefix, items = items, array_schema.get("additionalItems")
    if isinstance(prefix, list) and index < len(prefix):
        return prefix[index]
    return items if isinstance(items, (dict, bool)) else None


def type_arguments(params: Sequence[RawParam],
                   parameters_schema: Any, *, guess: bool = True
                   ) -> tuple[dict[str, Any], tuple[str, ...]]:
    """Type a call's XML parameters, in document order; returns (arguments, json_errors).

    A repeated name gives a list, in order; when the property is an array, its items are
    typed by the array's item schemas, else each by the property's own schema.
    `json_errors` names the parameters whose `string="false"` text was not JSON, in the
    document order of those texts, each name once. With `parameters_schema=None` this is
    exactly SPEC 3's typing; `guess=False` (`typing=schema`, SPEC 5.1) keeps every value
    the schema does not type as its text.
    """
    if parameters_schema is None and guess:
        return _guessed(params)
    return _typed_members(params, parameters_schema, parameters_schema, guess)


def _typed_members(params: Sequence[RawParam], object_schema: Any, root: Any,
                   guess: bool) -> tuple[dict[str, Any], tuple[str, ...]]:
    """`type_arguments` for the members of an object whose schema is `object_schema`
    (the call's parameters, or a property's), `root` resolving local `$ref`s."""
    counts: dict[str, int] = {}
    for name, _, _, _ in params:
        counts[name] = counts.get(name, 0) + 1
    schemas: dict[str, tuple[Any, bool]] = {}
    for name, count in counts.items():
        prop = member_schema(object_schema, name, root) if object_schema is not None else None
        as_array = (count > 1 and prop is not None
                    and "array" in (schema_types(prop, root) or ()))
        schemas[name] = (prop, as_array)
    values: dict[str, list[Any]] = {}
    flagged: dict[str, None] = {}
    for name, text, string_attr, cdata_only in params:
        prop, as_array = schemas[name]
        typed_so_far = values.setdefault(name, [])
        sub = item_schema(prop, len(typed_so_far), root) if as_array else prop
        value, json_error = _typed_one((name, text, string_attr, cdata_only), sub, root, guess)
        if json_error:
            flagged[name] = None
        typed_so_far.append(value)
    arguments = {name: items if counts[name] > 1 else items[0]
                 for name, items in values.items()}
    return arguments, tuple(flagged)


def element_value(members: tuple[RawParam, ...], schema: Any, root: Any, guess: bool) -> Any:
    """A value written as elements (`member`s, MiniMax-M3): a JSON object of its members
    (a repeated name gives a list, as for arguments), typed by `schema` as a call's
    arguments are typed by its parameters schema; or, where `schema` admits arrays and
    not objects, an array of the members' values in order, each typed by its item
    schema (the members' names then say nothing: `<items><item>..</item></items>`).
    The builder refused members nested deeper than JSON is read (`MAX_JSON_DEPTH`)."""
    types = schema_types(schema, root) if schema is not None else None
    if types is not None and "array" in types and "object" not in types:
        return [_typed_one(member, item_schema(schema, index, root), root, guess)[0]
                for index, member in enumerate(members)]
    if schema is None and guess:
        return _guessed(members)[0]
    return _typed_members(members, schema, root, guess)[0]


def _typed_one(param: RawParam, schema: Any, root: Any, guess: bool) -> tuple[Any, bool]:
    """One value typed by its schema (None: none), as `type_arguments` types each."""
    _, text, string_attr, cdata_only = param
    if not isinstance(text, str):
        return element_value(text, schema, root, guess), False
    if schema is None:
        return (type_value(text, string_attr=string_attr, cdata_only=cdata_only) if guess
                else (text, False))
    return type_by_schema(text, string_attr=string_attr, cdata_only=cdata_only, schema=schema,
                          root=root, guess=guess)


def _guessed(params: Sequence[RawParam]
             ) -> tuple[dict[str, Any], tuple[str, ...]]:
    """`type_arguments` without a schema (the common call): SPEC 3's typing of each
    value, in order; a repeated name's values in a list, in order."""
    arguments: dict[str, Any] = {}
    repeated: dict[str, list[Any]] = {}
    flagged: dict[str, None] = {}
    for name, text, string_attr, cdata_only in params:
        value, json_error = (type_value(text, string_attr=string_attr, cdata_only=cdata_only)
                             if isinstance(text, str)
                             else (element_value(text, None, None, True), False))
        if json_error:
            flagged[name] = None
        if name not in arguments:
            arguments[name] = value
        elif name in repeated:
            repeated[name].append(value)
        else:
            repeated[name] = arguments[name] = [arguments[name], value]
    return arguments, tuple(flagged)


def too_deep_names(params: Sequence[RawParam],
                   parameters_schema: Any) -> tuple[str, ...]:
    """The parameters whose text is JSON nested deeper than strict JSON reads
    (`MAX_JSON_DEPTH`) where the schema wants a JSON value, not a string: typing kept
    such text as a string, and the call must be rejected as `too_deep`, not as a type
    mismatch. Each name once, in document order; cheap unless a text holds more
    brackets than the limit."""
    counts: dict[str, int] = {}
    for name, _, _, _ in params:
        counts[name] = counts.get(name, 0) + 1
    found: dict[str, None] = {}
    for name, text, string_attr, _ in params:
        if string_attr or name in found or not isinstance(text, str) \
                or not json_depth_exceeds(text):
            continue
        prop = member_schema(parameters_schema, name, parameters_schema)
        types = schema_types(prop, parameters_schema) if prop is not None else None
        if counts[name] > 1 and types is not None and "array" in types:
            item = item_schema(prop, 0, parameters_schema)
            types = schema_types(item, parameters_schema) if item is not None else None
        if types is not None and "string" not in types:
            found[name] = None
    return tuple(found)
