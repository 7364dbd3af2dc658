"""What every repair rule shares: limits, reason codes, the call being repaired."""

from __future__ import annotations

import contextlib
import functools
import logging
from collections.abc import Collection, Iterable, Iterator
from typing import TYPE_CHECKING, Any, Literal, NamedTuple

from toolparse._json import MAX_JSON_DEPTH
from toolparse._calls.repair.keywords import BudgetExceeded, spending
from toolparse._calls.values import resolve_local_ref

if TYPE_CHECKING:
    import jsonschema.protocols

    from toolparse._calls.repair.config import RepairConfig

logger = logging.getLogger("toolparse.repair")

Status = Literal["valid", "repaired", "rejected"]
Reason = Literal["truncated", "invalid_json", "not_object", "too_deep", "duplicate_key",
                 "missing_required", "unknown_field", "alias_conflict", "grammar_leak",
                 "schema", "unknown_tool", "not_a_call"]
ErrorEntry = tuple[str, str, str]

MAX_DEPTH = MAX_JSON_DEPTH
"""Deepest nesting of arrays/objects in a call's arguments, the arguments object
counting 1 (64). Deeper arguments, as text or as a dict, are `too_deep`: they are
neither parsed nor validated nor walked by a rule."""
MAX_ERRORS = 20
"""Most validation errors reported per outcome."""
MAX_JSON_REPAIR_CHARS = 128 * 1024
"""Largest text handed to json-repair, whose cost grows faster than linearly with long
strings (about 0.25 s at 100 KB, 2 s at 400 KB). Larger text gets the lossless fixes
only; if those are not enough it is rejected (`invalid_json`)."""
VALIDATOR_CACHE_SIZE = 256
"""Compiled validators kept, keyed by a canonical JSON dump of the schema."""

GLM_DIALECT = "glm45"
"""The bundled dialect whose key/value tokens the GLM rules use (SPEC 5.2)."""


class GlmTokens(NamedTuple):
    """GLM's argument boundary tokens, as the `glm45` grammar spells them (its `param`
    rule: key open, `key`, key close, value open, `value`, value close). GLM models write
    arguments as key/value pairs in these tokens, and the tokens leak into JSON
    arguments on some routes (SPEC 6, rules 2 and 3)."""

    key_open: str
    key_close: str
    value_open: str
    value_close: str


@functools.cache
def glm_tokens() -> GlmTokens:
    """The tokens, read from the grammar once per process when a GLM rule first runs."""
    from toolparse._dialect.loader import key_value_tokens

    return GlmTokens(*key_value_tokens(GLM_DIALECT))

RULE_NAMES = ("decode_glm_pairs", "repair_json_syntax", "strip_grammar_leaks",
              "rename_aliases", "drop_optional_nulls", "parse_stringified_collections")


# --- Internal plumbing ------------------------------------------------------------------

class Reject(Exception):
    """A rule refused: the call is rejected with this reason."""

    def __init__(self, reason: Reason, errors: tuple[ErrorEntry, ...] = ()) -> None:
        super().__init__(reason)
        self.reason: Reason = reason
        self.errors = errors


class Call:
    """What every rule needs to know about the call being repaired."""

    __slots__ = ("tool", "model", "config", "validator", "schema", "leak_route", "rules")

    def __init__(self, tool: str, model: str | None, config: RepairConfig,
                 validator: jsonschema.protocols.Validator) -> None:
        self.tool = tool
        self.model = model
        self.config = config
        self.validator = validator
        self.schema: Any = validator.schema
        self.leak_route = config.leaks_on(model)
        self.rules: list[str] = []

    def fired(self, rule: str, before: Any, after: Any) -> None:
        self.rules.append(rule)
        if self.config.debug and logger.isEnabledFor(logging.DEBUG):
            logger.debug("repair rule tool=%s rule=%s members=%d->%d", quote(self.tool), rule,
                         size_of(before), size_of(after))


def size_of(value: Any) -> int:
    return len(value) if isinstance(value, (dict, list, str)) else 0


def quote(name: str, limit: int = 64) -> str:
    shown = name if len(name) <= limit else name[:limit] + "..."
    return "'" + shown.replace("'", "\\'") + "'"


def name_list(names: Iterable[str], limit: int = 20) -> str:
    names = list(names)
    shown = ", ".join(quote(n) for n in names[:limit])
    return shown + (f" and {len(names) - limit} more" if len(names) > limit else "")


def too_deep(pointer: str = "") -> Reject:
    return Reject("too_deep", ((pointer, "too_deep", f"nested deeper than {MAX_DEPTH} levels"),))


def too_deep_hint(tool: str) -> str:
    return (f"The arguments for {quote(tool)} are nested more than {MAX_DEPTH} levels deep; "
            f"call it again with flatter arguments.")


def measure(value: Any) -> int:
    """The number of JSON values in `value` (objects, arrays and scalars); raises
    `Reject("too_deep")` past `MAX_DEPTH` levels. Iterative, linear."""
    nodes, depth = 1, 1
    level: list[Any] = [value] if isinstance(value, (dict, list)) else []
    while level:   # (a level at a time: the scalars are counted, never visited one by one)
        below: list[Any] = []
        for node in level:
            children: Collection[Any] = node.values() if isinstance(node, dict) else node
            nodes += len(children)
            below += [child for child in children if isinstance(child, (dict, list))]
        if below and depth >= MAX_DEPTH:
            raise too_deep()
        level, depth = below, depth + 1
    return nodes


@contextlib.contextmanager
def validating(value: Any) -> Iterator[None]:
    """Run a validation of `value` within the bounds of G10: its depth checked first
    (`too_deep`), a budget of keyword evaluations sized for it (past it: `schema`,
    keyword `complexity`), and a stack overflow on a pathological schema reported as
    `too_deep`. Nothing escapes as an exception but `Reject`."""
    import referencing.exceptions

    nodes = measure(value)
    try:
        with spending(nodes):
            yield
    except RecursionError:
        raise too_deep() from None
    except BudgetExceeded:
        raise Reject("schema", (("", "complexity", "is too costly to check against the "
                                                   "schema"),)) from None
    except referencing.exceptions.Unresolvable:
        # The schema check resolved every reference when the tools were given; fail
        # closed should a dynamic reference still miss.
        raise Reject("schema", (("", "$ref", "cannot be checked against the schema"),)
                     ) from None


def is_valid(call: Call, value: Any) -> bool:
    """Whether `value` is an object that validates; raises `Reject` past a bound."""
    if not isinstance(value, dict):
        return False
    with validating(value):
        return bool(call.validator.is_valid(value))


def has_glm_token(text: str) -> bool:
    return any(token in text for token in glm_tokens())


def declared_properties(object_schema: Any, root: Any) -> tuple[dict[str, Any], set[str]]:
    """The `properties` and `required` an object schema states (one level into allOf)."""
    object_schema = resolve_local_ref(object_schema, root)
    properties: dict[str, Any] = {}
    required: set[str] = set()
    if not isinstance(object_schema, dict):
        return properties, required
    parts = [object_schema]
    if isinstance(object_schema.get("allOf"), list):
        parts += [resolve_local_ref(s, root) for s in object_schema["allOf"]]
    for part in parts:
        if isinstance(part, dict):
            if isinstance(part.get("properties"), dict):
                for name, sub in part["properties"].items():
                    properties.setdefault(name, sub)
            if isinstance(part.get("required"), list):
                required.update(r for r in part["required"] if isinstance(r, str))
    return properties, required


def member_pointer(call: Call, base: str, name: str) -> str:
    properties, _ = declared_properties(call.schema, call.schema)
    shown = name if name in properties else "*"
    return base + "/" + shown.replace("~", "~0").replace("/", "~1")
