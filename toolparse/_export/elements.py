"""Values written as elements (a grammar's `member` rule: MiniMax-M3), for the export.

Where a grammar reads a value's members (docs/grammars.md, "Values written as
elements"), a parameter whose schema is an object or an array is written as members,
the way the parser types them back:

- an object: one member per property, named by its key, in the schema's order, the
  required ones present, each other one at most once, no other key; `{}` as text
  where no property is required (members that are all left out would be an empty
  text, which is no object);
- an array: its items as members, all named `ITEM` (the parser reads any name, the
  members' names say nothing for an array), as many as `minItems`/`maxItems` allow;
  `[]` as text where it may be empty;
- each member's own value in turn as its schema says (the writer's `value`): raw text
  for a string, members for an object or an array, `%json` for another type.

A member is the grammar's `member` rule with its key filled into the tags, as a
parameter's are. The nesting follows the schema, so a recursive schema (a `$ref` to an
enclosing schema) is an `ExportError` (the structural tag writes no recursion).
Whitespace (the grammar's ignored run) may stand before each member.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from toolparse._dialect.roles import own_name
from toolparse._errors import ExportError
from toolparse._export.schema import ANNOTATIONS

if TYPE_CHECKING:
    from toolparse._export.llguidance import _Context, _Writer

__all__ = ["ITEM", "value"]

ITEM = "item"
"""The name the export gives an array's items (the parser reads any)."""
_OBJECT_KEYS = ANNOTATIONS | {"type", "properties", "required", "additionalProperties"}
_ARRAY_KEYS = ANNOTATIONS | {"type", "items", "minItems", "maxItems"}
_MAX_REPEAT = 64
"""The most items of an array the grammar spells out one by one (`minItems`, or the
span up to `maxItems`)."""
_MAX_DEPTH = 62
"""Members nested deeper than this would pass the parser's `MAX_JSON_DEPTH` (64, the
arguments object and the argument counting two)."""


def value(writer: _Writer, ctx: _Context, schema: Any, types: Any) -> str | None:
    """A parameter's or a member's value as members, for an object or an array schema;
    None for any other (written as text or `%json` by the writer)."""
    if not isinstance(schema, dict) or types is None:
        return None
    if set(types) == {"object"}:
        return _object(writer, ctx, schema)
    if set(types) == {"array"}:
        return _array(writer, ctx, schema)
    return None


def _fail(writer: _Writer, ctx: _Context, why: str) -> ExportError:
    tool, pointer = writer.where(ctx)
    return ExportError(f"tool {tool!r}, schema {pointer}: {why}")


def _check(writer: _Writer, ctx: _Context, schema: dict[str, Any], known: frozenset[str],
           what: str) -> None:
    unknown = sorted(set(schema) - known)
    if unknown:
        raise _fail(writer, ctx, f"the keyword {unknown[0]!r} is not exported for {what} "
                                 "written as elements")


def _object(writer: _Writer, ctx: _Context, schema: dict[str, Any]) -> str:
    _check(writer, ctx, schema, _OBJECT_KEYS, "an object")
    if isinstance(schema.get("additionalProperties"), dict):
        raise _fail(writer, ctx, "`additionalProperties` with a schema: its keys are not "
                                 "known to write")
    properties = schema.get("properties", {})
    required = schema.get("required", [])
    if not isinstance(properties, dict) or not isinstance(required, list):
        raise _fail(writer, ctx, "`properties` is not an object or `required` not a list")
    missing = [key for key in required if key not in properties]
    if missing:
        raise _fail(writer, ctx, f"the required key {missing[0]!r} has no property schema")
    _, pointer = writer.where(ctx)
    members = [(_one(writer, _member(writer, ctx, key, sub, f"{pointer}/properties/"
                                     + key.replace("~", "~0").replace("/", "~1"))),
                key in required) for key, sub in properties.items()]
    if not members:
        return _literal("{}")
    if any(needed for _, needed in members):
        return "(" + " ".join(m if needed else f"{m}?" for m, needed in members) + ")"
    # All optional: `{}`, or the members from the first one written on.
    starts = [" ".join([m] + [f"{rest}?" for rest, _ in members[i + 1:]])
              for i, (m, _) in enumerate(members)]
    return "(" + " | ".join([_literal("{}"), *starts]) + ")"


def _array(writer: _Writer, ctx: _Context, schema: dict[str, Any]) -> str:
    _check(writer, ctx, schema, _ARRAY_KEYS, "an array")
    items = schema.get("items")
    if not isinstance(items, dict):
        raise _fail(writer, ctx, "an array without one `items` schema")
    low, high = schema.get("minItems", 0), schema.get("maxItems")
    if not isinstance(low, int) or not (high is None or isinstance(high, int)) \
            or low > _MAX_REPEAT or (high is not None and high - low > _MAX_REPEAT):
        raise _fail(writer, ctx, f"`minItems`/`maxItems` beyond {_MAX_REPEAT} items")
    if high == 0 and low == 0:
        return _literal("[]")
    if high is not None and high < max(low, 1):
        raise _fail(writer, ctx, "`maxItems` below `minItems`")
    _, pointer = writer.where(ctx)
    one = _one(writer, _member(writer, ctx, ITEM, items, f"{pointer}/items"))
    parts = [one] * max(low, 1)
    if high is None:
        parts.append(f"{one}*")
    elif high > max(low, 1):
        tail = f"{one}?"
        for _ in range(high - max(low, 1) - 1):
            tail = f"({one} {tail})?"
        parts.append(tail)
    written = " ".join(parts)
    return f"({_literal('[]')} | {written})" if low == 0 else f"({written})"


def _member(writer: _Writer, ctx: _Context, key: str, schema: Any, pointer: str) -> str:
    """The grammar's `member` rule for `key`, its value typed by `schema`."""
    tool = writer.where(ctx)[0]
    parent = writer.nested.get(ctx)
    refs = parent[3] if parent is not None else ()
    ref = schema.get("$ref") if isinstance(schema, dict) else None
    if isinstance(ref, str) and ref in refs:
        raise ExportError(f"tool {tool!r}, schema {pointer}: a recursive schema ({ref}) "
                          "is not written as elements")
    if pointer.count("/") > 2 * _MAX_DEPTH:
        raise ExportError(f"tool {tool!r}, schema {pointer}: nested too deep")
    sub: _Context = (f"{tool}\x00{pointer}", key)
    writer.nested[sub] = (tool, schema, pointer, (*refs, ref) if isinstance(ref, str) else refs)
    origin = next(o for o in writer.rules if own_name(o) == "member")
    return writer.rule(origin, sub)


def _one(writer: _Writer, member: str) -> str:
    return f"({writer.ws} {member})" if writer.ws else member


def _literal(text: str) -> str:
    return '"' + text + '"'
