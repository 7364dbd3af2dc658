"""Schema-guided argument repair (SPEC section 6).

Theory of operation
-------------------
A call's arguments arrive as JSON text (OpenAI's `function.arguments`) or as a dict the
XML parser built. `repair_tool_call` runs the rules of SPEC 6 in their fixed order and
stops at the first point where the arguments validate against the tool's schema:

1. `strict_parse`: JSON with duplicate keys or NaN/Infinity is not JSON. A parsed object
   that validates is `valid`, and the original text is returned byte for byte.
2. Only when the text does not parse: `decode_glm_pairs` (configured model routes) or
   `repair_json_syntax` (balanced text only; lossless fixes, then json-repair, then a
   check that every key and value token of the input survived, in order, in place).
3. Only when the result is still invalid: `strip_grammar_leaks` (configured routes),
   `rename_aliases`, `drop_optional_nulls`, `parse_stringified_collections`.
4. Re-validation: `repaired`, else `rejected` with a stable reason, error paths and a
   one-sentence hint for the model.

Each rule is one function below whose docstring states its precondition. A rule that
cannot act without guessing raises `_Reject`: nothing is invented, no field is dropped
unless the schema says it may be absent, no name is matched loosely, no key conflict is
settled by picking a winner, no text around the root is discarded.

Nothing here ever puts an argument value into an error, a hint or a log record: error
paths name only properties the schema declares (other segments are `*`), and messages
are built from the schema, never from the instance.

Bounds: every rule is linear in the size of the arguments (one regex tokenisation, one
schema walk), except json-repair, which only sees text up to `MAX_JSON_REPAIR_CHARS`.
Nesting deeper than `MAX_DEPTH` is refused (`invalid_json`) rather than recursed into; at
most `MAX_ERRORS` errors are reported; the validator cache holds `VALIDATOR_CACHE_SIZE`
schemas (the least recently used goes first).
"""

from __future__ import annotations

import json
import logging
import re
import threading
from collections import OrderedDict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Literal, NoReturn

from typing import TYPE_CHECKING

# jsonschema and json-repair cost about 50 ms to import; they load on first use, so that
# `import toolparse` stays fast for users who never pass tools.
if TYPE_CHECKING:
    import jsonschema
    import jsonschema.exceptions
    import jsonschema.protocols

from toolparse._errors import ConfigError, SchemaError
from toolparse._typing import (
    NOT_JSON,
    admits,
    item_schema,
    member_schema,
    resolve_local_ref,
    schema_types,
    strict_json,
    type_arguments,
)

__all__ = ["RepairConfig", "RepairOutcome", "repair_tool_call", "check_tools"]

logger = logging.getLogger("toolparse.repair")

Status = Literal["valid", "repaired", "rejected"]
Reason = Literal["truncated", "invalid_json", "duplicate_key", "missing_required",
                 "unknown_field", "alias_conflict", "grammar_leak", "schema", "unknown_tool"]
ErrorEntry = tuple[str, str, str]

MAX_DEPTH = 256
"""Deepest nesting of arrays/objects the repair rules walk; deeper text is `invalid_json`."""
MAX_ERRORS = 20
"""Most validation errors reported per outcome."""
MAX_JSON_REPAIR_CHARS = 128 * 1024
"""Largest text handed to json-repair, whose cost grows faster than linearly with long
strings (about 0.25 s at 100 KB, 2 s at 400 KB). Larger text gets the lossless fixes
only; if those are not enough it is rejected (`invalid_json`)."""
VALIDATOR_CACHE_SIZE = 256
"""Compiled validators kept, keyed by a canonical JSON dump of the schema."""

# GLM-4.5/4.6 write arguments as `<arg_key>k</arg_key><arg_value>v</arg_value>` pairs, and
# those tokens leak into JSON arguments on some routes. No GLM grammar ships yet; when it
# does, these spellings should come from it (STYLE: grammars are the source of syntax).
GLM_KEY_OPEN, GLM_KEY_CLOSE = "<arg_key>", "</arg_key>"
GLM_VALUE_OPEN, GLM_VALUE_CLOSE = "<arg_value>", "</arg_value>"
GLM_TOKENS = (GLM_KEY_OPEN, GLM_KEY_CLOSE, GLM_VALUE_OPEN, GLM_VALUE_CLOSE)

RULE_NAMES = ("decode_glm_pairs", "repair_json_syntax", "strip_grammar_leaks",
              "rename_aliases", "drop_optional_nulls", "parse_stringified_collections")


# --- Configuration ----------------------------------------------------------------------

_CAMEL_KEYS = {
    "grammarLeakModels": "grammar_leak_models",
    "repairJsonSyntax": "repair_json_syntax",
    "dropOptionalNulls": "drop_optional_nulls",
    "parseStringifiedCollections": "parse_stringified_collections",
    "aliases": "aliases",
    "debug": "debug",
}
_BOOL_FIELDS = ("repair_json_syntax", "drop_optional_nulls", "parse_stringified_collections",
                "debug")

AliasTable = Mapping[str, Mapping[str, tuple[str, ...]]]


def _freeze_aliases(aliases: Any, key: str) -> AliasTable:
    if not isinstance(aliases, Mapping):
        raise ConfigError(f"{key}: expected a mapping {{tool: {{canonical: [alias, ...]}}}}, "
                          f"got {type(aliases).__name__}")
    frozen: dict[str, Mapping[str, tuple[str, ...]]] = {}
    for tool, table in aliases.items():
        if not isinstance(tool, str) or not isinstance(table, Mapping):
            raise ConfigError(f"{key}[{tool!r}]: expected a mapping {{canonical: [alias, ...]}}")
        owner: dict[str, str] = {}
        entries: dict[str, tuple[str, ...]] = {}
        for canonical, names in table.items():
            where = f"{key}[{tool!r}][{canonical!r}]"
            if not isinstance(canonical, str):
                raise ConfigError(f"{where}: a canonical name must be a string")
            if isinstance(names, str) or not isinstance(names, (list, tuple)):
                raise ConfigError(f"{where}: expected a list of alias names")
            for alias in names:
                if not isinstance(alias, str):
                    raise ConfigError(f"{where}: alias {alias!r} is not a string")
                if alias == canonical:
                    raise ConfigError(f"{where}: alias {alias!r} is the canonical name itself")
                if alias in owner and owner[alias] != canonical:
                    raise ConfigError(f"{where}: alias {alias!r} is also listed for "
                                      f"{owner[alias]!r}")
                owner[alias] = canonical
            entries[canonical] = tuple(dict.fromkeys(names))
        for alias, canonical in owner.items():
            if alias in entries:
                raise ConfigError(f"{key}[{tool!r}][{canonical!r}]: alias {alias!r} is also a "
                                  f"canonical name")
        frozen[tool] = MappingProxyType(entries)
    return MappingProxyType(frozen)


@dataclass(frozen=True, slots=True, kw_only=True)
class RepairConfig:
    """What `repair_tool_call` may do beyond strict validation (SPEC 6)."""

    grammar_leak_models: tuple[str, ...] = ()
    """Case-insensitive substrings of the model route (`"glm"` matches `zai/GLM-4.6`) on
    which GLM `<arg_key>/<arg_value>` pairs are decoded and leaked tokens stripped."""

    repair_json_syntax: bool = True
    """Repair JSON syntax in balanced text (trailing commas, quotes, comments, ...)."""

    drop_optional_nulls: bool = True
    """Drop a `null` for a declared, not-required property whose schema rejects null."""

    parse_stringified_collections: bool = True
    """Decode a string that is exactly a JSON array/object where the schema wants one."""

    aliases: AliasTable = field(default_factory=lambda: MappingProxyType({}), hash=False)
    """Explicit per-tool renames: `{tool: {canonical: [alias, ...]}}`. Exact names only."""

    debug: bool = False
    """Log each rule as it fires (sizes and names only) besides the per-call summary."""

    def __post_init__(self) -> None:
        models = self.grammar_leak_models
        if isinstance(models, str) or not isinstance(models, (list, tuple)) or not all(
                isinstance(m, str) and m for m in models):
            raise ConfigError("grammar_leak_models: expected a list of non-empty strings, "
                              f"got {models!r}")
        object.__setattr__(self, "grammar_leak_models", tuple(models))
        for name in _BOOL_FIELDS:
            if not isinstance(getattr(self, name), bool):
                raise ConfigError(f"{name}: expected true or false, "
                                  f"got {type(getattr(self, name)).__name__}")
        object.__setattr__(self, "aliases", _freeze_aliases(self.aliases, "aliases"))

    @classmethod
    def from_mapping(cls, mapping: Mapping[str, Any]) -> RepairConfig:
        """Build a config from snake_case or camelCase keys (`grammarLeakModels`, ...).

        Unknown keys, a key given in both spellings, and values of the wrong type raise
        `ConfigError` naming the key.
        """
        if not isinstance(mapping, Mapping):
            raise ConfigError(f"repair config: expected a mapping, got {type(mapping).__name__}")
        values: dict[str, Any] = {}
        spelled: dict[str, str] = {}
        snake = set(_CAMEL_KEYS.values())
        for key, value in mapping.items():
            name = _CAMEL_KEYS.get(key, key) if isinstance(key, str) else key
            if name not in snake:
                raise ConfigError(f"repair config: unknown key {key!r} (known: "
                                  f"{', '.join(sorted(snake))}, or their camelCase forms)")
            if name in values:
                raise ConfigError(f"repair config: {key!r} and {spelled[name]!r} are the same key")
            values[name], spelled[name] = value, key
        try:
            return cls(**values)
        except ConfigError as error:
            # Name the key as the caller spelled it.
            message = str(error)
            field_name = message.split(":", 1)[0]
            if field_name in spelled and spelled[field_name] != field_name:
                message = f"{spelled[field_name]}{message[len(field_name):]}"
            raise ConfigError(message) from None

    def leaks_on(self, model: str | None) -> bool:
        """Whether `model` is a route on which GLM grammar tokens are handled."""
        if not model or not self.grammar_leak_models:
            return False
        route = model.casefold()
        return any(pattern.casefold() in route for pattern in self.grammar_leak_models)


_DEFAULT_CONFIG = RepairConfig()


# --- The outcome ------------------------------------------------------------------------

@dataclass(frozen=True, slots=True, kw_only=True)
class RepairOutcome:
    """The result of checking and repairing one call's arguments."""

    status: Status
    """`valid` (untouched), `repaired` (rules fired, now valid) or `rejected`."""

    arguments: dict[str, Any] | None
    """The arguments to execute with; None when rejected."""

    text: str | None
    """The JSON text to forward: the original text, byte for byte, when valid; a fresh
    compact serialisation when repaired or when the input was a dict; for a rejected
    call the input as given (the original text, or the dict serialised), None when
    there is none (an unknown tool)."""

    rules: tuple[str, ...] = ()
    """Names of the rules that changed the arguments, in the order they fired."""

    reason: Reason | None = None
    """Stable code when rejected (see `docs/repair.md`), else None."""

    errors: tuple[ErrorEntry, ...] = ()
    """(JSON-pointer path, schema keyword, message) triples; never argument values.
    Path segments the schema does not name are shown as `*`."""

    hint: str | None = None
    """When rejected: one sentence a gateway can send the model, saying what to
    regenerate. Never contains argument values."""

    @classmethod
    def unknown_tool(cls, name: str, available: Iterable[str] = ()) -> RepairOutcome:
        """The outcome for a call to a tool that was not given (SPEC 6)."""
        names = list(dict.fromkeys(available))
        listed = f"; call one of: {_name_list(names)}" if names else "; call one of the given tools"
        return cls(status="rejected", arguments=None, text=None, reason="unknown_tool",
                   errors=(("", "name", "no tool of this name was given"),),
                   hint=f"There is no tool named {_quote(name)}{listed}.")


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


# --- Internal plumbing ------------------------------------------------------------------

class _Reject(Exception):
    """A rule refused: the call is rejected with this reason."""

    def __init__(self, reason: Reason, errors: tuple[ErrorEntry, ...] = ()) -> None:
        super().__init__(reason)
        self.reason: Reason = reason
        self.errors = errors


class _Call:
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
            logger.debug("repair rule tool=%s rule=%s members=%d->%d", _quote(self.tool), rule,
                         _size(before), _size(after))


def _size(value: Any) -> int:
    return len(value) if isinstance(value, (dict, list, str)) else 0


def _quote(name: str, limit: int = 64) -> str:
    shown = name if len(name) <= limit else name[:limit] + "..."
    return "'" + shown.replace("'", "\\'") + "'"


def _name_list(names: Iterable[str], limit: int = 20) -> str:
    names = list(names)
    shown = ", ".join(_quote(n) for n in names[:limit])
    return shown + (f" and {len(names) - limit} more" if len(names) > limit else "")


def _is_valid(call: _Call, value: Any) -> bool:
    if not isinstance(value, dict):
        return False
    import referencing.exceptions

    try:
        return bool(call.validator.is_valid(value))
    except RecursionError:
        return False
    except referencing.exceptions.Unresolvable as error:
        raise SchemaError(f"tool {call.tool!r}: the parameters schema has an unresolvable "
                          f"$ref ({error})") from None


def _has_glm_token(text: str) -> bool:
    return "arg_" in text and any(token in text for token in GLM_TOKENS)


# --- Rule 1: strict parse ---------------------------------------------------------------

class _DuplicateKey(Exception):
    pass


class _NonJsonConstant(Exception):
    pass


def _pairs_no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result = dict(pairs)
    if len(result) != len(pairs):
        raise _DuplicateKey
    return result


def _non_json_constant(name: str) -> NoReturn:
    raise _NonJsonConstant(name)


def strict_parse(text: str) -> Any:
    """Precondition: `text` is the raw argument text. Returns its JSON value, or NOT_JSON.

    Strict JSON: NaN and Infinity are not JSON (NOT_JSON, so syntax repair sees them and
    refuses); a duplicate key rejects the call at once (`duplicate_key`): no rule may
    pick which of two values the model meant.
    """
    try:
        return json.loads(text, object_pairs_hook=_pairs_no_duplicates,
                          parse_constant=_non_json_constant)
    except _DuplicateKey:
        raise _Reject("duplicate_key", (("", "duplicate_key",
                                         "an object repeats a property name"),)) from None
    except (_NonJsonConstant, ValueError, RecursionError):
        return NOT_JSON


# --- Rule 2a: GLM key/value pairs -------------------------------------------------------

_GLM_WS = " \t\r\n"
_GLM_PAIR = re.compile(
    re.escape(GLM_KEY_OPEN) + r"(.*?)" + re.escape(GLM_KEY_CLOSE) + r"[ \t\r\n]*"
    + re.escape(GLM_VALUE_OPEN) + r"(.*?)" + re.escape(GLM_VALUE_CLOSE) + r"[ \t\r\n]*",
    re.DOTALL)


def _glm_truncated(rest: str) -> bool:
    """Whether `rest` is a proper prefix of one more complete GLM pair."""
    if GLM_KEY_OPEN.startswith(rest):
        return True
    if not rest.startswith(GLM_KEY_OPEN):
        return False
    body = rest[len(GLM_KEY_OPEN):]
    end = body.find(GLM_KEY_CLOSE)
    if end < 0:
        return not _has_glm_token(body)
    if _has_glm_token(body[:end]):
        return False
    after = body[end + len(GLM_KEY_CLOSE):].lstrip(_GLM_WS)
    if GLM_VALUE_OPEN.startswith(after):
        return True
    if not after.startswith(GLM_VALUE_OPEN):
        return False
    return not _has_glm_token(after[len(GLM_VALUE_OPEN):])


def decode_glm_pairs(text: str, call: _Call) -> dict[str, Any] | None:
    """Precondition: `text` did not parse as JSON. Returns None when not applicable.

    Applies only on a configured model route, to text that is entirely complete
    `<arg_key>k</arg_key><arg_value>v</arg_value>` pairs (whitespace between and around).
    Keys are taken exactly; values are typed by the property schema as XML parameters
    are (a string property keeps the text, trailing newline included). A pair that is
    cut off is `truncated`; any other shape, a token inside a key or value, or a
    repeated key is refused.
    """
    stripped = text.lstrip(_GLM_WS)
    if not stripped.startswith(GLM_KEY_OPEN):
        return None
    if not call.leak_route:
        raise _Reject("grammar_leak", (("", "grammar_leak",
                                        "the arguments are GLM key/value pairs, not JSON"),))
    pos, end = len(text) - len(stripped), len(text)
    pairs: list[tuple[str, str, bool | None, bool]] = []
    seen: set[str] = set()
    while pos < end:
        match = _GLM_PAIR.match(text, pos)
        if match is None or _has_glm_token(match.group(1)) or _has_glm_token(match.group(2)):
            if match is None and _glm_truncated(text[pos:]):
                raise _Reject("truncated", (("", "truncated",
                                             "the last key/value pair is cut off"),))
            raise _Reject("grammar_leak", (("", "grammar_leak",
                                            "the key/value pairs are malformed"),))
        key = match.group(1)
        if key in seen:
            raise _Reject("duplicate_key", (("", "duplicate_key",
                                             "a key/value pair repeats a key"),))
        seen.add(key)
        pairs.append((key, match.group(2), None, False))
        pos = match.end()
    arguments, _ = type_arguments(pairs, call.schema)
    return arguments


# --- Rule 2b: JSON syntax repair --------------------------------------------------------

_TOKEN = re.compile(r"""
    (?P<ws>[ \t\r\n]+)
  | (?P<dq>"[^"\\]*(?:\\.[^"\\]*)*")
  | (?P<sq>'[^'\\]*(?:\\.[^'\\]*)*')
  | (?P<comment>//[^\n]*|/\*.*?\*/)
  | (?P<punct>[{}\[\],:])
  | (?P<bare>(?:[^ \t\r\n{}\[\],:"'/]|/(?![/*]))+)
""", re.VERBOSE | re.DOTALL)
_NON_JSON_WORDS = frozenset({"NaN", "Infinity", "-Infinity", "+Infinity"})
_SIMPLE_ESCAPES = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n",
                   "r": "\r", "t": "\t", "'": "'"}
_ESCAPE = re.compile(r"\\(u[dD][89abAB][0-9a-fA-F]{2}\\u[dD][c-fC-F][0-9a-fA-F]{2}"
                     r"|u[0-9a-fA-F]{4}|.)", re.DOTALL)


def _unescape(match: re.Match[str]) -> str:
    code = match.group(1)
    if code[0] == "u" and len(code) > 1:
        if len(code) == 11:  # a surrogate pair
            high, low = int(code[1:5], 16), int(code[7:11], 16)
            return chr(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))
        return chr(int(code[1:], 16))
    # An escape JSON does not define keeps its backslash; json-repair must agree or the
    # token check refuses the repair.
    return _SIMPLE_ESCAPES.get(code, "\\" + code)


def _decode_quoted(token: str) -> str:
    if token[0] == '"':
        try:
            value = json.loads(token, strict=False)
            if isinstance(value, str):
                return value
        except ValueError:
            pass
    return _ESCAPE.sub(_unescape, token[1:-1])


@dataclass(slots=True)
class _Scan:
    """The lenient tokenisation of argument text (for the balanced and token checks)."""

    problem: Reason | None = None
    detail: str = ""
    tokens: list[tuple[str, Any]] = field(default_factory=list)
    """Structure and scalars in order: ("{",), ("key", str), ("str", str), ("bare", str)."""
    removable: list[tuple[int, int]] = field(default_factory=list)
    """Spans a lossless fix removes: comments and trailing commas."""


def scan_json_text(text: str) -> _Scan:
    """Tokenise `text` leniently and decide whether it is balanced.

    Balanced: a string-aware scan (double- and single-quoted strings, comments) of two
    bracket kinds in which every closer matches its opener, the root is an object, and
    the root closes exactly at the end (whitespace aside). Ending inside a string,
    comment or open bracket is `truncated`; anything else unbalanced is `invalid_json`.
    Also finds duplicate keys and the NaN/Infinity words. Linear in `len(text)`.
    """
    scan = _Scan()
    lexemes: list[tuple[str, str, int, int]] = []
    pos, end = 0, len(text)
    while pos < end:
        match = _TOKEN.match(text, pos)
        if match is None:
            # Only an unclosed string or block comment fails to lex.
            scan.problem, scan.detail = "truncated", "a string or comment is not closed"
            return scan
        kind = match.lastgroup or ""
        if kind == "bare" and lexemes and lexemes[-1][0] == "bare":
            # `ls -la` unquoted is one bare token; the whitespace inside it counts.
            _, _, start, _ = lexemes[-1]
            lexemes[-1] = ("bare", text[start:match.end()], start, match.end())
        elif kind == "comment":
            scan.removable.append((match.start(), match.end()))
        elif kind != "ws":
            lexemes.append((kind, match.group(), match.start(), match.end()))
        pos = match.end()

    if not lexemes or lexemes[0][1] != "{":
        scan.problem, scan.detail = "invalid_json", "the arguments are not one JSON object"
        return scan
    stack: list[tuple[str, set[str]]] = []
    closers = {"}": "{", "]": "["}
    for index, (kind, lexeme, start, stop) in enumerate(lexemes):
        following = lexemes[index + 1][1] if index + 1 < len(lexemes) else ""
        if kind == "punct":
            if lexeme in "{[":
                if len(stack) >= MAX_DEPTH:
                    scan.problem, scan.detail = "invalid_json", "nested too deeply"
                    return scan
                stack.append((lexeme, set()))
                scan.tokens.append((lexeme, None))
            elif lexeme in "}]":
                if not stack or stack[-1][0] != closers[lexeme]:
                    scan.problem, scan.detail = "invalid_json", "a closing bracket does not match"
                    return scan
                stack.pop()
                scan.tokens.append((lexeme, None))
                if not stack and index + 1 < len(lexemes):
                    scan.problem, scan.detail = "invalid_json", "text follows the root object"
                    return scan
            elif lexeme == "," and following in ("}", "]"):
                scan.removable.append((start, stop))
            continue
        if kind == "bare" and lexeme in _NON_JSON_WORDS:
            scan.problem, scan.detail = "invalid_json", "NaN and Infinity are not JSON"
            return scan
        value = _decode_quoted(lexeme) if kind in ("dq", "sq") else lexeme
        if following == ":" and stack and stack[-1][0] == "{":
            if value in stack[-1][1]:
                scan.problem, scan.detail = "duplicate_key", "an object repeats a property name"
                return scan
            stack[-1][1].add(value)
            scan.tokens.append(("key", value))
        else:
            scan.tokens.append(("str" if kind in ("dq", "sq") else "bare", value))
    if stack:
        scan.problem, scan.detail = "truncated", "an object or array is not closed"
    return scan


def _output_tokens(value: Any, out: list[tuple[str, Any]], depth: int = 0) -> None:
    if depth > MAX_DEPTH:
        raise RecursionError
    if isinstance(value, dict):
        out.append(("{", None))
        for key, item in value.items():
            out.append(("key", key))
            _output_tokens(item, out, depth + 1)
        out.append(("}", None))
    elif isinstance(value, list):
        out.append(("[", None))
        for item in value:
            _output_tokens(item, out, depth + 1)
        out.append(("]", None))
    else:
        out.append(("value", value))


def _same_scalar(kind: str, written: Any, value: Any) -> bool:
    if kind == "str":
        return type(value) is str and value == written
    literal = {"true": True, "false": False, "null": None}
    if written in literal:
        return value is literal[written]
    number = strict_json(written)
    if isinstance(number, (int, float)) and not isinstance(number, bool):
        return type(value) is type(number) and value == number
    return type(value) is str and value == written  # an unquoted word, as written


def tokens_survive(scan: _Scan, value: Any) -> bool:
    """The token-preservation check: `value` has exactly the input's keys, values and
    brackets, in order, each as written (no dropped member, no invented value, no
    closed-off string, no altered escape)."""
    out: list[tuple[str, Any]] = []
    try:
        _output_tokens(value, out)
    except RecursionError:
        return False
    if len(out) != len(scan.tokens):
        return False
    for (kind, written), (out_kind, produced) in zip(scan.tokens, out):
        if kind in ("{", "}", "[", "]", "key"):
            if out_kind != kind or (kind == "key" and produced != written):
                return False
        elif out_kind != "value" or not _same_scalar(kind, written, produced):
            return False
    return True


def _remove_spans(text: str, spans: list[tuple[int, int]]) -> str:
    pieces, pos = [], 0
    for start, stop in sorted(spans):
        pieces.append(text[pos:start])
        pos = stop
    pieces.append(text[pos:])
    return "".join(pieces)


def repair_json_syntax(text: str, call: _Call) -> dict[str, Any]:
    """Precondition: `text` did not parse as strict JSON and is not GLM pairs.

    Refuses unless the text is balanced (`scan_json_text`). Then, lossless fixes first
    (remove trailing commas and comments, allow raw control characters in strings);
    then json-repair (never its schema mode); then the token-preservation check. Any
    shortfall rejects: json-repair alone would close truncated strings, invent empty
    values, drop members and corrupt escaped quotes.
    """
    scan = scan_json_text(text)
    if scan.problem is not None:
        raise _Reject(scan.problem, (("", scan.problem, scan.detail),))
    if not call.config.repair_json_syntax:
        raise _Reject("invalid_json", (("", "invalid_json", "the arguments are not valid JSON"),))
    fixed = _remove_spans(text, scan.removable)
    try:
        value = json.loads(fixed, strict=False, object_pairs_hook=_pairs_no_duplicates,
                           parse_constant=_non_json_constant)
    except _DuplicateKey:
        raise _Reject("duplicate_key", (("", "duplicate_key",
                                         "an object repeats a property name"),)) from None
    except (_NonJsonConstant, ValueError, RecursionError):
        if len(fixed) > MAX_JSON_REPAIR_CHARS:
            raise _Reject("invalid_json", (("", "invalid_json", "the arguments are not valid "
                                            "JSON and too large to repair"),)) from None
        import json_repair

        try:
            value = json_repair.repair_json(fixed, return_objects=True, skip_json_loads=True)
        except Exception:  # json-repair is third-party code on hostile input
            value = NOT_JSON
    if not isinstance(value, dict) or not tokens_survive(scan, value):
        raise _Reject("invalid_json", (("", "invalid_json", "the JSON cannot be repaired without "
                                        "changing a key or value"),))
    return value


# --- Rule 3: schema-guided fixes --------------------------------------------------------

def _strip_boundary(text: str, opening: str, closing: str) -> str:
    stripped = text
    if stripped.startswith(opening):
        stripped = stripped[len(opening):]
    if stripped.endswith(closing):
        stripped = stripped[:-len(closing)]
    if stripped == text or _has_glm_token(stripped):
        return text  # a token left in the middle: not a boundary leak, leave it all
    return stripped


def strip_grammar_leaks(arguments: Any, call: _Call) -> Any:
    """Precondition: parsed arguments that do not validate; a configured model route.

    Removes a leading `<arg_key>` / trailing `</arg_key>` from top-level keys and a
    leading `<arg_value>` / trailing `</arg_value>` from top-level string values, only
    when no token is left inside afterwards (never from the middle of a key or value;
    whitespace next to a token is content and stays). A stripped key that collides with
    another key is refused (`grammar_leak`): no winner is picked.
    """
    if not call.leak_route or not isinstance(arguments, dict):
        return arguments
    result: dict[str, Any] = {}
    changed = False
    for key, value in arguments.items():
        new_key = _strip_boundary(key, GLM_KEY_OPEN, GLM_KEY_CLOSE)
        new_value = (_strip_boundary(value, GLM_VALUE_OPEN, GLM_VALUE_CLOSE)
                     if isinstance(value, str) else value)
        if new_key in result:
            raise _Reject("grammar_leak", ((_member_pointer(call, "", new_key), "grammar_leak",
                                            "two keys are the same once leaked markup is "
                                            "removed"),))
        changed = changed or new_key is not key or new_value is not value
        result[new_key] = new_value
    return result if changed else arguments


def rename_aliases(arguments: Any, call: _Call) -> Any:
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
            raise _Reject("alias_conflict", (
                (_member_pointer(call, "", canonical), "alias_conflict",
                 f"{_quote(canonical)} is given as {_name_list(given)}"),))
        renames[present[0]] = canonical
    if not renames:
        return arguments
    return {renames.get(key, key): value for key, value in arguments.items()}


def _declared_properties(object_schema: Any, root: Any) -> tuple[dict[str, Any], set[str]]:
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


def _drop_nulls(value: Any, schema: Any, root: Any, depth: int) -> Any:
    if depth > MAX_DEPTH or schema is None:
        return value
    if isinstance(value, dict):
        properties, required = _declared_properties(schema, root)
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


def drop_optional_nulls(arguments: Any, call: _Call) -> Any:
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


def parse_stringified_collections(arguments: Any, call: _Call) -> Any:
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


_SCHEMA_RULES = (strip_grammar_leaks, rename_aliases, drop_optional_nulls,
                 parse_stringified_collections)


# --- Errors, reasons and hints ----------------------------------------------------------

def _member_pointer(call: _Call, base: str, name: str) -> str:
    properties, _ = _declared_properties(call.schema, call.schema)
    shown = name if name in properties else "*"
    return base + "/" + shown.replace("~", "~0").replace("/", "~1")


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
                 f"missing required property {_quote(name)}")
                for name in required if isinstance(name, str) and name not in instance]
    if keyword == "type":
        return [(pointer, keyword, f"must be {_type_words(error.validator_value)}")]
    if keyword in _BOUND_MESSAGES and isinstance(error.validator_value, (int, float, str)):
        return [(pointer, keyword, _BOUND_MESSAGES[keyword].format(error.validator_value))]
    return [(pointer, keyword, _FIXED_MESSAGES.get(keyword, f"fails the schema keyword "
                                                            f"{_quote(keyword)}"))]


def _schema_errors(call: _Call, value: Any) -> tuple[tuple[ErrorEntry, ...], dict[str, list[str]]]:
    """The validation errors of `value`, and for each object with undefined properties
    the property names its schema does define (for the hint)."""
    if not isinstance(value, dict):
        return (("", "type", "the arguments must be a JSON object"),), {}
    found: dict[ErrorEntry, None] = {}
    defined: dict[str, list[str]] = {}
    try:
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
    except RecursionError:
        found[("", "depth", "nested too deeply to validate")] = None
    return tuple(found)[:MAX_ERRORS], defined


def _first_segment(pointer: str) -> str:
    head = pointer[1:].split("/", 1)[0] if pointer.startswith("/") else ""
    return head.replace("~1", "/").replace("~0", "~")


def _schema_reason(value: Any, errors: tuple[ErrorEntry, ...]) -> Reason:
    if isinstance(value, dict):
        # Leaked GLM markup explains the failure when it sits in a key, or in a top-level
        # string value that an error points at.
        if any(_has_glm_token(key) for key in value):
            return "grammar_leak"
        failing = {_first_segment(path) for path, _, _ in errors}
        if any(isinstance(value.get(key), str) and _has_glm_token(value[key])
               for key in failing if key):
            return "grammar_leak"
    keywords = {keyword for _, keyword, _ in errors}
    if "required" in keywords:
        return "missing_required"
    if keywords & {"additionalProperties", "unevaluatedProperties"}:
        return "unknown_field"
    return "schema"


def _hint(call: _Call, reason: Reason, errors: tuple[ErrorEntry, ...],
          defined: dict[str, list[str]] | None = None) -> str:
    tool = _quote(call.tool)
    if reason == "truncated":
        return (f"The arguments for {tool} were cut off; call it again with the complete "
                f"arguments as one JSON object.")
    if reason == "invalid_json":
        return (f"The arguments for {tool} are not valid JSON; call it again with the "
                f"arguments as exactly one JSON object and nothing around it.")
    if reason == "duplicate_key":
        return (f"The arguments for {tool} give the same property more than once; call it "
                f"again with each property given once.")
    if reason == "alias_conflict":
        detail = errors[0][2] if errors else "a property is given under two names"
        return (f"The arguments for {tool} give one property under several names ({detail}); "
                f"call it again giving it once, under its canonical name.")
    if reason == "grammar_leak":
        return (f"The arguments for {tool} contain <arg_key>/<arg_value> markup; call it "
                f"again with the arguments as a plain JSON object.")
    if reason == "missing_required":
        missing = [path.lstrip("/") for path, keyword, _ in errors if keyword == "required"]
        return (f"The call to {tool} lacks the required argument"
                f"{'s' if len(missing) > 1 else ''} {_name_list(missing)}; call it again "
                f"with {'them' if len(missing) > 1 else 'it'} filled in.")
    if reason == "unknown_field":
        where, names = next(iter((defined or {"": []}).items()))
        at = f" at {where}" if where else ""
        if not names:
            return (f"The call to {tool} has arguments its schema does not define{at}; call "
                    f"it again without them.")
        return (f"The call to {tool} has arguments its schema does not define{at}; call it "
                f"again using only {_name_list(names)}{' there' if where else ''}.")
    shown = "; ".join(f"{path} {message}" if path else message
                      for path, _, message in errors[:3])
    return (f"The arguments for {tool} do not match its schema ({shown}); call it again "
            f"with corrected values.")


# --- The entry point --------------------------------------------------------------------

def _serialise(arguments: dict[str, Any]) -> str:
    return json.dumps(arguments, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def _serialise_or_none(arguments: dict[str, Any]) -> str | None:
    try:
        return _serialise(arguments)
    except (TypeError, ValueError, RecursionError):
        return None


def _rejected(call: _Call, reason: Reason, errors: tuple[ErrorEntry, ...],
              text: str | None, defined: dict[str, list[str]] | None = None) -> RepairOutcome:
    return RepairOutcome(status="rejected", arguments=None, text=text, rules=tuple(call.rules),
                         reason=reason, errors=errors,
                         hint=_hint(call, reason, errors, defined))


def _run(call: _Call, arguments: str | dict[str, Any]) -> RepairOutcome:
    if isinstance(arguments, str):
        given_text: str | None = arguments
        value = strict_parse(arguments)  # may raise _Reject (duplicate_key)
        if isinstance(value, dict) and _is_valid(call, value):
            return RepairOutcome(status="valid", arguments=value, text=arguments)
        if value is NOT_JSON:
            glm = decode_glm_pairs(arguments, call)
            if glm is not None:
                call.fired("decode_glm_pairs", arguments, glm)
                value = glm
            else:
                value = repair_json_syntax(arguments, call)
                call.fired("repair_json_syntax", arguments, value)
            if _is_valid(call, value):
                return RepairOutcome(status="repaired", arguments=value,
                                     text=_serialise(value), rules=tuple(call.rules))
    else:
        value = arguments
        try:
            given_text = _serialise(arguments)
        except (TypeError, ValueError, RecursionError):
            raise _Reject("invalid_json", (("", "invalid_json", "the arguments are not "
                                            "JSON-serialisable"),)) from None
        if _is_valid(call, value):
            return RepairOutcome(status="valid", arguments=value, text=given_text)

    for rule in _SCHEMA_RULES:
        new_value = rule(value, call)
        if new_value is not value:
            call.fired(rule.__name__, value, new_value)
            value = new_value
    if _is_valid(call, value):
        return RepairOutcome(status="repaired", arguments=value, text=_serialise(value),
                             rules=tuple(call.rules))
    errors, defined = _schema_errors(call, value)
    return _rejected(call, _schema_reason(value, errors), errors, given_text, defined)


def repair_tool_call(name: str, arguments: str | dict[str, Any], schema: Any, *,
                     model: str | None = None,
                     config: RepairConfig | None = None) -> RepairOutcome:
    """Check one call's arguments against its tool's schema and repair what SPEC 6 allows.

    `arguments` is the raw JSON text (OpenAI `function.arguments`) or a dict the XML
    parser built; `schema` is the tool's parameters schema (None: any object). `model`
    is the model route, matched against `config.grammar_leak_models`. Never raises on
    content; raises `SchemaError` for an invalid schema and `TypeError` for arguments of
    another type.
    """
    if not isinstance(name, str):
        raise TypeError(f"repair_tool_call: name must be a str, got {type(name).__name__}")
    if not isinstance(arguments, (str, dict)):
        raise TypeError(f"repair_tool_call: arguments must be JSON text or a dict, "
                        f"got {type(arguments).__name__}")
    if config is not None and not isinstance(config, RepairConfig):
        raise TypeError(f"repair_tool_call: config must be a RepairConfig, "
                        f"got {type(config).__name__}")
    validator = validator_for_schema({"type": "object"} if schema is None else schema, name)
    call = _Call(name, model, config or _DEFAULT_CONFIG, validator)
    try:
        outcome = _run(call, arguments)
    except _Reject as refusal:
        text = arguments if isinstance(arguments, str) else _serialise_or_none(arguments)
        outcome = _rejected(call, refusal.reason, refusal.errors, text)
    if logger.isEnabledFor(logging.DEBUG):
        logger.debug(
            "repair tool=%s model=%s status=%s rules=%s reason=%s paths=%s in=%d out=%d",
            _quote(name), model, outcome.status, ",".join(outcome.rules) or "-",
            outcome.reason or "-", ",".join(path or "/" for path, _, _ in outcome.errors) or "-",
            len(arguments) if isinstance(arguments, str) else len(arguments),
            len(outcome.text) if outcome.text is not None else 0)
    return outcome
