"""Safety of tool schemas (SPEC 6.1; G9, G10): checked once, when the tools are given.

A tool schema is operator input that a gateway may take from each request, so nothing
in it may make validation reach outside the process or run without bound later, when
a model's call arrives. `check_schema_safety` walks the schema once and raises
`SchemaError` (naming the tool and the JSON pointer) for:

- a `$ref` (`$dynamicRef`, `$recursiveRef`) that is not a `#...` reference: `http:`,
  `https:`, `file:`, `urn:`, a relative URI, anything that would need retrieval;
- a `#...` reference that resolves to nothing inside the definition (resolved by
  `referencing` against a registry holding only this definition, nested `$id`s
  included, with no retrieval at all);
- a cycle of references and in-place applicators (`allOf`, `anyOf`, `oneOf`, `not`,
  `if`/`then`/`else`, `dependentSchemas`) that returns to a schema without moving into
  the value: validating anything that reaches it would never end. Recursion through
  `properties`, `items` and the other keywords that move into the value is fine;
- a document nested deeper than `MAX_SCHEMA_DEPTH`, or a chain of more than
  `MAX_SCHEMA_DEPTH` schemas applied in place to one value;
- a `pattern` or `patternProperties` key that RE2 cannot compile (`patterns`);
- `unevaluatedProperties` together with `patternProperties` (jsonschema would match
  those patterns with Python's backtracking engine to find the evaluated names);
- a `$schema` that names no draft jsonschema knows.

Cost: linear in the size of the schema (each subschema is visited once, each reference
resolved once).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any

from toolparse._errors import SchemaError
from toolparse._calls.patterns import PatternError, compile_pattern

if TYPE_CHECKING:
    import referencing

__all__ = ["MAX_SCHEMA_DEPTH", "check_document_depth", "check_schema_safety"]

MAX_SCHEMA_DEPTH = 64
"""Deepest nesting of a schema document (objects and arrays), and longest chain of
schemas applied in place to one value."""

# Keywords whose values are subschemas, by how they apply.
_IN_PLACE_ONE = ("not", "if", "then", "else")
_IN_PLACE_LIST = ("allOf", "anyOf", "oneOf")
_IN_PLACE_MAP = ("dependentSchemas", "dependencies")
_INTO_ONE = ("additionalItems", "contains", "additionalProperties", "unevaluatedItems",
             "unevaluatedProperties", "propertyNames", "contentSchema", "items")
_INTO_LIST = ("prefixItems", "items")
_INTO_MAP = ("properties", "patternProperties")
_HOLDERS = ("$defs", "definitions")
_REFERENCES = ("$ref", "$dynamicRef", "$recursiveRef")
_DATA = frozenset({"enum", "const", "default", "examples"})
_NAME_MAPS = frozenset(_INTO_MAP + _IN_PLACE_MAP + _HOLDERS)
"""Keywords whose value maps names (which may be any string) to subschemas."""


def _escape(part: Any) -> str:
    return str(part).replace("~", "~0").replace("/", "~1")


def _shown(pointer: str) -> str:
    return pointer or "/"


def check_document_depth(schema: Any, tool: str) -> None:
    """Refuse a schema document nested deeper than `MAX_SCHEMA_DEPTH` (before anything
    that recurses, such as `json.dumps`, touches it). Iterative; any Python objects.
    (A level at a time, with no pointers: every call checks its schema again, and only
    a refusal needs to say where: `_deepest`.)"""
    level: list[Any] = [schema]
    for _ in range(MAX_SCHEMA_DEPTH):
        below: list[Any] = []
        for node in level:   # (every node here is a Mapping, list or tuple but the root)
            if isinstance(node, (Mapping, list, tuple)):
                children = node.values() if isinstance(node, Mapping) else node
                below += [child for child in children
                          if isinstance(child, (Mapping, list, tuple))]
        if not below:
            return
        level = below
    _deepest(schema, tool)


def _deepest(schema: Any, tool: str) -> None:
    """`check_document_depth`'s refusal, with the pointer of a node too deep."""
    stack: list[tuple[Any, int, str]] = [(schema, 1, "")]
    while stack:
        node, depth, pointer = stack.pop()
        if depth > MAX_SCHEMA_DEPTH:
            raise SchemaError(f"tool {tool!r}: the parameters schema nests deeper than "
                              f"{MAX_SCHEMA_DEPTH} levels (at {_shown(pointer)})")
        if isinstance(node, Mapping):
            stack.extend((child, depth + 1, f"{pointer}/{_escape(key)}")
                         for key, child in node.items() if isinstance(child, (Mapping, list,
                                                                               tuple)))
        elif isinstance(node, (list, tuple)):
            stack.extend((child, depth + 1, f"{pointer}/{index}")
                         for index, child in enumerate(node)
                         if isinstance(child, (Mapping, list, tuple)))


def _subschemas(node: dict[str, Any]) -> Iterator[tuple[dict[str, Any], bool]]:
    """(subschema, whether it applies in place) for each object-valued subschema of
    `node`; boolean subschemas hold nothing to check."""
    for key in _IN_PLACE_ONE + _INTO_ONE:
        child = node.get(key)
        if isinstance(child, dict):
            yield child, key in _IN_PLACE_ONE
    for key in _IN_PLACE_LIST + _INTO_LIST:
        children = node.get(key)
        if isinstance(children, list):
            yield from ((child, key in _IN_PLACE_LIST) for child in children
                        if isinstance(child, dict))
    for key in _IN_PLACE_MAP + _INTO_MAP + _HOLDERS:
        children = node.get(key)
        if isinstance(children, dict):
            yield from ((child, key in _IN_PLACE_MAP) for child in children.values()
                        if isinstance(child, dict))


class _Walk:
    """The schema as a graph: every subschema once, with its pointer and in-place edges."""

    def __init__(self, tool: str, root: dict[str, Any],
                 specification: referencing.Specification[Any]) -> None:
        from referencing import Registry

        self.tool = tool
        self.pointers: dict[int, str] = {}
        """id(object) -> its JSON pointer, for every object in the document."""
        self.order: list[dict[str, Any]] = []
        """The subschemas, in the order they were met (the root first)."""
        self.edges: dict[int, list[tuple[int, str | None]]] = {}
        """id(schema) -> in-place edges (id(target), the reference keyword or None)."""
        self.dynamic_anchors: dict[str, list[int]] = {}
        self.recursive_anchors: list[int] = []
        self._index(root)
        resource = specification.create_resource(root)
        registry: referencing.Registry[Any] = Registry().with_resource(
            resource.id() or "", resource)
        try:
            self.registry = registry.crawl()
        except Exception as error:  # referencing on operator input: report, never crash
            raise SchemaError(f"tool {tool!r}: the parameters schema cannot be indexed "
                              f"({type(error).__name__})") from None
        self._walk(root, self.registry.resolver_with_root(resource), specification)

    def _fail(self, message: str) -> SchemaError:
        return SchemaError(f"tool {self.tool!r}: {message}")

    def _index(self, root: dict[str, Any]) -> None:
        """Record every object's pointer, and check that each `$schema` outside data
        keywords names a known draft (referencing would raise at validation time)."""
        # (node, pointer, inside a data keyword, a map of names to schemas)
        stack: list[tuple[Any, str, bool, bool]] = [(root, "", False, False)]
        while stack:
            node, pointer, in_data, names = stack.pop()
            if isinstance(node, dict):
                self.pointers[id(node)] = pointer
                dialect = node.get("$schema")
                # In a map of names (`properties`), `$schema` is a property's name.
                if dialect is not None and not in_data and not names:
                    self._check_dialect(dialect, pointer)
                stack.extend((child, f"{pointer}/{_escape(key)}",
                              in_data or (not names and key in _DATA),
                              not in_data and not names and key in _NAME_MAPS)
                             for key, child in node.items() if isinstance(child, (dict, list)))
            elif isinstance(node, list):
                stack.extend((child, f"{pointer}/{i}", in_data, False)
                             for i, child in enumerate(node) if isinstance(child, (dict, list)))

    def _check_dialect(self, dialect: Any, pointer: str) -> None:
        import referencing.jsonschema

        try:
            if not isinstance(dialect, str):
                raise TypeError(dialect)
            referencing.jsonschema.specification_with(dialect)
        except (referencing.jsonschema.UnknownDialect, TypeError):
            raise self._fail(f"the $schema at {pointer}/$schema ({dialect!r}) "
                             f"names no known JSON Schema draft") from None

    def _walk(self, root: dict[str, Any], resolver: Any,
              specification: referencing.Specification[Any]) -> None:
        from referencing.jsonschema import specification_with

        stack: list[tuple[dict[str, Any], Any, Any]] = [(root, resolver, specification)]
        seen: set[int] = set()
        while stack:
            node, resolver, specification = stack.pop()
            if id(node) in seen:
                continue
            seen.add(id(node))
            self.order.append(node)
            pointer = self.pointers[id(node)]
            edges = self.edges.setdefault(id(node), [])
            self._check_node(node, pointer)
            for keyword in _REFERENCES:
                target = self._resolve(node, keyword, resolver, pointer)
                if target is not None:
                    target_node, target_resolver = target
                    edges.append((id(target_node), keyword))
                    stack.append((target_node, target_resolver, specification))
            for child, in_place in _subschemas(node):
                if in_place:
                    edges.append((id(child), None))
                spec = (specification_with(child["$schema"]) if "$schema" in child
                        else specification)
                stack.append((child, resolver.in_subresource(spec.create_resource(child)), spec))

    def _check_node(self, node: dict[str, Any], pointer: str) -> None:
        pattern = node.get("pattern")
        if isinstance(pattern, str):
            self._check_pattern(pattern, f"{pointer}/pattern")
        patterns = node.get("patternProperties")
        if isinstance(patterns, dict):
            for key in patterns:
                self._check_pattern(key, f"{pointer}/patternProperties/{_escape(key)}")
        anchor = node.get("$dynamicAnchor")
        if isinstance(anchor, str):
            self.dynamic_anchors.setdefault(anchor, []).append(id(node))
        if node.get("$recursiveAnchor") is True:
            self.recursive_anchors.append(id(node))

    def _check_pattern(self, pattern: str, pointer: str) -> None:
        try:
            compile_pattern(pattern)
        except PatternError as error:
            raise self._fail(f"the pattern at {pointer} cannot be matched in linear time "
                             f"({error}); rewrite it without backreferences, lookaround or "
                             f"possessive repeats") from None

    def _resolve(self, node: dict[str, Any], keyword: str, resolver: Any,
                 pointer: str) -> tuple[dict[str, Any], Any] | None:
        import referencing.exceptions

        if keyword not in node:
            return None
        reference = node[keyword]
        where = f"{pointer}/{keyword}"
        if not isinstance(reference, str):
            raise self._fail(f"the {keyword} at {where} must be a string")
        if not reference.startswith("#"):
            raise self._fail(f"the {keyword} at {where} ({reference!r}) points outside the tool "
                             f"definition; only '#...' references within it are resolved, "
                             f"and nothing is ever fetched")
        try:
            resolved = resolver.lookup(reference)
        except referencing.exceptions.Unresolvable:
            raise self._fail(f"the {keyword} at {where} ({reference!r}) points at nothing in "
                             f"the tool definition") from None
        except Exception as error:  # referencing on operator input: report, never crash
            raise self._fail(f"the {keyword} at {where} ({reference!r}) cannot be resolved "
                             f"({type(error).__name__})") from None
        target = resolved.contents
        if isinstance(target, bool):
            return None
        if not isinstance(target, dict):
            raise self._fail(f"the {keyword} at {where} ({reference!r}) points at something "
                             f"that is not a schema")
        return target, resolved.resolver

    def add_dynamic_edges(self) -> None:
        """A `$dynamicRef` may land on any `$dynamicAnchor` of its name, and a
        `$recursiveRef` on any `$recursiveAnchor: true`: count every such edge."""
        for node in self.order:
            edges = self.edges[id(node)]
            dynamic = node.get("$dynamicRef")
            if isinstance(dynamic, str) and dynamic.startswith("#"):
                edges.extend((target, "$dynamicRef")
                             for target in self.dynamic_anchors.get(dynamic[1:], ()))
            if isinstance(node.get("$recursiveRef"), str):
                edges.extend((target, "$recursiveRef") for target in self.recursive_anchors)

    def check_cycles_and_chains(self) -> None:
        """Refuse an in-place cycle (naming it) or an in-place chain longer than the
        limit. Iterative depth-first search; each node and edge once."""
        done: dict[int, int] = {}        # id -> longest in-place chain from it
        on_path: dict[int, int] = {}     # id -> index in `path`
        for start in self.order:
            if id(start) in done:
                continue
            path: list[int] = [id(start)]
            via: list[str | None] = [None]   # the reference keyword that entered path[i]
            on_path[id(start)] = 0
            iterators = [iter(self.edges[id(start)])]
            while iterators:
                step = next(iterators[-1], None)
                if step is None:
                    node = path.pop()
                    via.pop()
                    iterators.pop()
                    del on_path[node]
                    longest = 1 + max((done[t] for t, _ in self.edges[node]), default=0)
                    if longest > MAX_SCHEMA_DEPTH:
                        raise self._fail(f"the schema at {_shown(self.pointers[node])} applies "
                                         f"a chain of more than {MAX_SCHEMA_DEPTH} schemas to "
                                         f"one value")
                    done[node] = longest
                    continue
                target, keyword = step
                if target in done:
                    continue
                if target in on_path:
                    self._report_cycle(path[on_path[target]:], via[on_path[target]:],
                                       target, keyword)
                on_path[target] = len(path)
                path.append(target)
                via.append(keyword)
                iterators.append(iter(self.edges[target]))

    def _report_cycle(self, cycle: list[int], via: list[str | None], target: int,
                      keyword: str | None) -> None:
        """Raise for the cycle `cycle` (a path of in-place edges; `via[i]` entered
        `cycle[i]`) closed by `keyword` from its last node back to `target`. The message
        shows the schemas the cycle reaches by reference, from the first in document
        order, and names the reference that enters that one."""
        ring = len(cycle)
        entering = {node: (cycle[i - 1], via[i]) for i, node in enumerate(cycle) if i}
        entering[target] = (cycle[-1], keyword)
        by_reference = [node for node in cycle if entering[node][1] is not None]
        first = min(range(len(by_reference)),
                    key=lambda i: self.pointers[by_reference[i]]) if by_reference else 0
        shown_nodes = (by_reference[first:] + by_reference[:first]) or cycle[:ring]
        shown = " -> ".join("#" + self.pointers[node] for node in [*shown_nodes,
                                                                   shown_nodes[0]])
        source, how = entering[shown_nodes[0]]
        raise self._fail(f"the {how or '$ref'} at {self.pointers[source]}/{how or '$ref'} "
                         f"closes a cycle of references that never moves into the value: "
                         f"{shown}")


def check_schema_safety(schema: dict[str, Any], tool: str,
                        specification: referencing.Specification[Any]
                        ) -> referencing.Registry[Any]:
    """Check `schema` (the tool's own copy, already valid against its metaschema) by
    the rules of this module; returns the registry validation resolves references in:
    this definition and its nested resources only, with no retrieval."""
    walk = _Walk(tool, schema, specification)
    walk.add_dynamic_edges()
    walk.check_cycles_and_chains()
    unevaluated = next((walk.pointers[id(n)] for n in walk.order
                        if "unevaluatedProperties" in n), None)
    with_patterns = next((walk.pointers[id(n)] for n in walk.order
                          if "patternProperties" in n), None)
    if unevaluated is not None and with_patterns is not None:
        raise SchemaError(f"tool {tool!r}: unevaluatedProperties (at "
                          f"{_shown(unevaluated)}) together with patternProperties (at "
                          f"{_shown(with_patterns)}) is not supported: finding the "
                          f"evaluated names would run the patterns on a backtracking "
                          f"engine")
    return walk.registry
