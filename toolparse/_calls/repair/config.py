"""`RepairConfig`: which repair rules run, for which model routes (SPEC 6)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from toolparse._errors import ConfigError

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


def freeze_aliases(aliases: Any, key: str) -> AliasTable:
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
        object.__setattr__(self, "aliases", freeze_aliases(self.aliases, "aliases"))

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


DEFAULT_CONFIG = RepairConfig()
