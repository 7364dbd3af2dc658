"""Tool schemas made safe to generate from (SPEC 12): no closing tag inside a value.

A JSON value written between two tags (a JSON body, a parameter's JSON value) ends at
the dialect's first closing tag, wherever it stands: inside a JSON string too. So every
string a schema lets the engine write gets a `pattern` that keeps the closing tags out
(`regex.avoiding`), every object is closed (`additionalProperties: false` where the
schema leaves it open: the engine would otherwise write keys of any spelling), and what
cannot be made safe that way is an `ExportError` naming the tool and the JSON pointer:
a string that already has a `pattern` or a `format`, a value of any type, a keyword the
engine's JSON Schema support may not know. The grammar then writes less than the schema
allows, never a call that the parser reads differently.
"""

from __future__ import annotations

import copy
from typing import Any

from toolparse._errors import ExportError

__all__ = ["ANNOTATIONS", "closed_schema", "string_schema"]

ANNOTATIONS = frozenset({"description", "title", "default", "examples", "$comment",
                          "deprecated", "readOnly", "writeOnly"})
_NUMBER = frozenset({"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum",
                     "multipleOf"})
_KNOWN = ANNOTATIONS | _NUMBER | frozenset({
    "type", "properties", "required", "items", "additionalProperties", "enum", "const",
    "anyOf", "oneOf", "allOf", "$ref", "$defs", "definitions", "minItems", "maxItems",
    "minLength", "maxLength", "$schema", "$id", "minProperties", "maxProperties"})
_FLOAT_BOUND = 1e15
"""llguidance writes a bounded number without an exponent, so never one beyond a float."""
_TYPES = ("null", "boolean", "integer", "number", "string", "array", "object")


def _pointer(path: tuple[str, ...]) -> str:
    return "".join("/" + p.replace("~", "~0").replace("/", "~1") for p in path) or "/"


class _Closer:
    """One schema walk: the tool, the words to keep out of strings, their pattern."""

    def __init__(self, tool: str, words: frozenset[str], pattern: str) -> None:
        self.tool = tool
        self.words = words
        self.pattern = pattern

    def fail(self, path: tuple[str, ...], why: str) -> ExportError:
        return ExportError(f"tool {self.tool!r}, schema {_pointer(path)}: {why}")

    def check_text(self, text: Any, path: tuple[str, ...]) -> None:
        """A fixed string (an enum or const value, a key) must hold no closing tag."""
        if isinstance(text, str) and any(word in text for word in self.words):
            raise self.fail(path, f"{text!r} holds a closing tag of the dialect, which "
                                  "would end the value")
        if isinstance(text, dict):
            for key, value in text.items():
                self.check_text(key, path)
                self.check_text(value, path)
        if isinstance(text, list):
            for item in text:
                self.check_text(item, path)

    def node(self, schema: Any, path: tuple[str, ...]) -> Any:
        if schema is True:
            raise self.fail(path, "a value of any type (`true`): its strings could hold "
                                  "a closing tag; give it a type")
        if not isinstance(schema, dict):
            return schema
        unknown = sorted(set(schema) - _KNOWN)
        if unknown:
            raise self.fail(path, f"the keyword {unknown[0]!r} is not exported")
        out = dict(schema)
        for key in ("enum", "const"):
            if key in out:
                self.check_text(out[key], (*path, key))
        for key in ("anyOf", "oneOf", "allOf"):
            if key in out:
                out[key] = [self.node(s, (*path, key, str(i))) for i, s in enumerate(out[key])]
        for key in ("$defs", "definitions"):
            if isinstance(out.get(key), dict):
                out[key] = {k: self.node(s, (*path, key, k)) for k, s in out[key].items()}
        self.typed(out, path)
        return out

    def typed(self, out: dict[str, Any], path: tuple[str, ...]) -> None:
        declared = out.get("type")
        types = [declared] if isinstance(declared, str) else declared
        if types is None:
            if not ({"enum", "const", "$ref", "anyOf", "oneOf", "allOf"} & set(out)):
                raise self.fail(path, "a value of any type: its strings could hold a "
                                      "closing tag; give it a type")
            return
        if "string" in types and "enum" not in out and "const" not in out:
            if "pattern" in out or "format" in out:
                raise self.fail(path, "a string with a `pattern` or `format` cannot also "
                                      "be kept free of the dialect's closing tags")
            out["pattern"] = self.pattern
        if "number" in types:  # a JSON number too large for a float is refused (SPEC 3.1)
            out.setdefault("minimum", -_FLOAT_BOUND)
            out.setdefault("maximum", _FLOAT_BOUND)
        if "array" in types and "items" in out:
            out["items"] = self.node(out["items"], (*path, "items"))
        elif "array" in types:
            raise self.fail(path, "an array without `items`: its strings could hold a "
                                  "closing tag")
        if "object" in types:
            self.object(out, path)

    def object(self, out: dict[str, Any], path: tuple[str, ...]) -> None:
        properties = out.get("properties", {})
        self.check_text(list(properties), (*path, "properties"))
        out["properties"] = {k: self.node(s, (*path, "properties", k))
                             for k, s in properties.items()}
        extra = out.get("additionalProperties", False)
        if isinstance(extra, dict):
            raise self.fail(path, "`additionalProperties` with a schema: its keys could "
                                  "hold a closing tag")
        out["additionalProperties"] = False


def closed_schema(schema: Any, tool: str, words: frozenset[str], pattern: str) -> Any:
    """`schema` (a tool's parameters, or one property's) with every string kept free of
    `words` by `pattern` and every object closed; ExportError for what cannot be."""
    return _Closer(tool, words, pattern).node(copy.deepcopy(schema), ())


def string_schema(schema: Any) -> tuple[str, ...] | None:
    """For a parameter written as raw text: the fixed strings it may be (`enum`/`const`),
    () for any string, None when the schema says more than that about a string (a
    `pattern`, a length, a format: the raw text would need that constraint)."""
    if not isinstance(schema, dict):
        return () if schema is True or schema is None else None
    rest = set(schema) - ANNOTATIONS - {"type"}
    if "const" in schema and rest <= {"const"}:
        return (schema["const"],) if isinstance(schema["const"], str) else None
    if "enum" in schema and rest <= {"enum"}:
        values = schema["enum"]
        if isinstance(values, list) and all(isinstance(v, str) for v in values):
            return tuple(values)
        return None
    if rest in ({"anyOf"}, {"oneOf"}):  # a union of bare types (string or null, say)
        branches = schema[next(iter(rest))]
        if isinstance(branches, list) and all(
                isinstance(b, dict) and set(b) <= ANNOTATIONS | {"type"} for b in branches):
            return ()
    return () if not rest else None


def json_types() -> tuple[str, ...]:
    """The JSON Schema type names, in a fixed order."""
    return _TYPES
