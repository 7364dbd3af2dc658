"""The fleet configuration file (`toolparse serve --config FILE`, SPEC 9): upstreams by
name and an ordered list of routes, in TOML, read with the standard library.

    [upstreams.local]
    url = "http://127.0.0.1:8000/v1"
    api_key_env = "UPSTREAM_KEY"        # optional

    [[routes]]
    name = "qwen"
    model = "Qwen/Qwen3-Coder-*"
    upstream = "local"
    dialect = "qwen3_coder"

Everything is checked when the file is read, before anything starts: each mistake is
a `FleetError` whose one line names the file and the key (`routes[0] ("qwen").dialect:
unknown dialect 'qwen3'; did you mean 'qwen3_coder'?`). The keys are listed in
`UPSTREAM_KEYS` and `ROUTE_KEYS`; docs/serve.md describes each.

This module reads and checks; the server never reads the file again. The secrets an
`api_key_env` names stay in the environment (each worker reads its own).
"""

from __future__ import annotations

import dataclasses
import math
import os
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Final, get_args
from urllib.parse import urlsplit

from toolparse._dialect import Dialect
from toolparse._dialect.loader import resolve_dialect
from toolparse._errors import ConfigError, ToolparseError
from toolparse._reasoning import reasoning_formats
from toolparse._serve.config import ForeignPolicy, Route, ServeConfig, Upstream
from toolparse.openai import OnRejected, stream_rewriter

__all__ = ["NO_ROUTE", "ROUTE_KEYS", "UPSTREAM_KEYS", "FleetError", "check_fleet",
           "check_url", "load_fleet", "model_glob_problem"]

UPSTREAM_KEYS: Final = ("url", "api_key_env", "timeout", "connect_timeout")
ROUTE_KEYS: Final = ("name", "model", "upstream", "dialect", "grammar", "reasoning",
                     "in_reasoning", "on_rejected", "stream_arguments", "on_foreign_markup")

MAX_NAME: Final = 64
"""The longest route or upstream name (a label on every metric)."""

MAX_SECONDS: Final = 86_400.0
"""The longest time-out (a day): as the command line's own bound."""

_NAME_CHARS: Final = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                               "0123456789_.:-")

NO_ROUTE: Final = "-"
"""The route label of a request that took no route (reserved: no route may be named so)."""


class FleetError(ConfigError):
    """A configuration file that cannot be served; the message names the file and key."""


def load_fleet(path: str | Path, base: ServeConfig) -> ServeConfig:
    """`base` (the limits and defaults the flags set) with the upstreams and routes of
    the file at `path`. FleetError for anything wrong, naming the file and the key."""
    file = Path(path)
    try:
        data = tomllib.loads(file.read_text(encoding="utf-8"))
    except OSError as error:
        raise FleetError(f"{file}: cannot read it: {error.strerror or error}") from None
    except UnicodeDecodeError as error:
        raise FleetError(f"{file}: not UTF-8 text (byte {error.start})") from None
    except tomllib.TOMLDecodeError as error:
        raise FleetError(f"{file}: not TOML: {error}") from None
    try:
        return _fleet(data, file, base)
    except FleetError as error:
        raise FleetError(f"{file}: {error}") from None


def _fleet(data: Mapping[str, Any], file: Path, base: ServeConfig) -> ServeConfig:
    _only(data, ("upstreams", "routes"), "the file")
    tables = data.get("upstreams")
    if not isinstance(tables, dict) or not tables:
        raise FleetError("upstreams: missing: name at least one, as [upstreams.NAME] with "
                         "a url")
    upstreams = tuple(_upstream(name, table, base) for name, table in tables.items())
    listed = data.get("routes")
    if not isinstance(listed, list) or not listed:
        raise FleetError("routes: missing: list at least one, as [[routes]] with a name, "
                         "a model, an upstream and a dialect")
    routes = tuple(_route(number, table, file, base) for number, table in enumerate(listed))
    fleet = dataclasses.replace(base, routes=routes, upstreams=upstreams)
    check_fleet(fleet)
    return fleet


def check_fleet(config: ServeConfig) -> None:
    """What holds across routes: unique names, known upstreams, no route hidden behind a
    `*` before it, and options a parser accepts (an error now, not at the first
    request)."""
    upstreams, routes = config.fleet()
    names = {upstream.name for upstream in upstreams}
    seen: set[str] = set()
    catch_all: str | None = None
    for number, route in enumerate(routes):
        key = _route_key(number, route.name)
        if route.name in seen:
            raise FleetError(f"{key}.name: a second route named {route.name!r}")
        seen.add(route.name)
        if route.upstream not in names:
            raise FleetError(f"{key}.upstream: no upstream named {route.upstream!r} (the "
                             f"file names {', '.join(sorted(names))})")
        if catch_all is not None:
            raise FleetError(f"{key}: never taken: the route {catch_all!r} before it takes "
                             "every model ('*')")
        if route.model == "*":
            catch_all = route.name
        try:
            stream_rewriter(dialect=route.dialect, stream_arguments=route.stream_arguments,
                            on_rejected=route.on_rejected, reasoning=route.reasoning,
                            in_reasoning=route.in_reasoning)
        except ToolparseError as error:   # (the one route of the flags: the flags' words)
            raise FleetError(f"{key}: {error}" if config.routes else str(error)) from None


def _upstream(name: str, table: Any, base: ServeConfig) -> Upstream:
    key = f"upstreams.{name}"
    _check_name(name, key)
    if not isinstance(table, dict):
        raise FleetError(f"{key}: must be a table ([upstreams.{name}]) with a url")
    _only(table, UPSTREAM_KEYS, key)
    url = _text(table, "url", key, required=True)
    problem = check_url(url)
    if problem:
        raise FleetError(f"{key}.url: {problem}")
    variable = _text(table, "api_key_env", key)
    if variable is not None and not os.environ.get(variable):
        raise FleetError(f"{key}.api_key_env: the environment variable {variable!r} is not "
                         "set (or is empty)")
    timeout = _seconds(table, "timeout", key)
    return Upstream(name, url, variable, timeout if timeout is not None else base.timeout,
                    _seconds(table, "connect_timeout", key))


def _route(number: int, table: Any, file: Path, base: ServeConfig) -> Route:
    if not isinstance(table, dict):
        raise FleetError(f"routes[{number}]: must be a table ([[routes]])")
    name = table.get("name")
    key = _route_key(number, name if isinstance(name, str) else None)
    _only(table, ROUTE_KEYS, key)
    name = _text(table, "name", key, required=True)
    _check_name(name, f"{key}.name")
    model = _text(table, "model", key, required=True)
    problem = model_glob_problem(model)
    if problem:
        raise FleetError(f"{key}.model: {problem}")
    reasoning = _text(table, "reasoning", key) or "auto"
    if reasoning not in ("auto", "none", *reasoning_formats()):
        raise FleetError(f"{key}.reasoning: unknown reasoning format {reasoning!r}; the "
                         f"bundled ones: auto, none, {', '.join(reasoning_formats())}")
    return Route(
        name=name, model=model, upstream=_text(table, "upstream", key, required=True),
        dialect=_dialect(table, key, file),
        reasoning=None if reasoning == "none" else reasoning,
        in_reasoning=_flag(table, "in_reasoning", key),
        on_rejected=_choice(table, "on_rejected", key, get_args(OnRejected), "content"),
        stream_arguments=_flag(table, "stream_arguments", key),
        on_foreign_markup=_choice(table, "on_foreign_markup", key, get_args(ForeignPolicy),
                                  base.on_foreign_markup))


def _dialect(table: Mapping[str, Any], key: str, file: Path) -> str | Dialect:
    name = _text(table, "dialect", key)
    grammar = _text(table, "grammar", key)
    if (name is None) == (grammar is None):
        raise FleetError(f"{key}: give either a dialect (a bundled name, or 'auto') or a "
                         "grammar (a file)" if name is None else
                         f"{key}: a dialect and a grammar: give one")
    try:
        if grammar is not None:
            path = Path(grammar)
            return Dialect.from_file(path if path.is_absolute() else file.parent / path)
        resolve_dialect(name or "")
    except ToolparseError as error:
        raise FleetError(f"{key}.{'grammar' if grammar is not None else 'dialect'}: "
                         f"{error}") from None
    return name or ""


def model_glob_problem(pattern: str) -> str | None:
    """What is wrong with a route's `model` (an exact name or an `fnmatch` glob), or
    None. A `[` that no `]` closes is a mistake (fnmatch would read it as a literal `[`,
    which no model name holds)."""
    if not pattern:
        return "empty: give a model name, or a glob such as 'Qwen/*' or '*'"
    at = 0
    while True:
        at = pattern.find("[", at)
        if at < 0:
            return None
        close = pattern.find("]", at + 2 if pattern[at + 1:at + 2] in ("!", "]") else at + 1)
        if close < 0:
            return f"{pattern!r} is not a glob: the '[' at character {at + 1} is never closed"
        at = close + 1


def check_url(url: str) -> str | None:
    """What is wrong with an upstream's URL, or None."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        return f"must be an http:// or https:// URL, not {url!r}"
    return None


def _route_key(number: int, name: str | None) -> str:
    return f"routes[{number}]" + (f" ({name!r})" if name else "")


def _check_name(name: str, key: str) -> None:
    if not name or len(name) > MAX_NAME or not set(name) <= _NAME_CHARS or name == NO_ROUTE:
        raise FleetError(f"{key}: {name!r} is not a name: 1 to {MAX_NAME} letters, digits "
                         "and '_.:-' (it labels metrics and logs)")


def _only(table: Mapping[str, Any], keys: tuple[str, ...], key: str) -> None:
    for name in table:
        if name not in keys:
            raise FleetError(f"{key}: unknown key {name!r} (known: {', '.join(keys)})")


def _text(table: Mapping[str, Any], name: str, key: str, required: bool = False) -> Any:
    value = table.get(name)
    if value is None:
        if required:
            raise FleetError(f"{key}.{name}: missing")
        return None
    if not isinstance(value, str):
        raise FleetError(f"{key}.{name}: must be a string, not {_kind(value)}")
    return value


def _flag(table: Mapping[str, Any], name: str, key: str) -> bool:
    value = table.get(name, False)
    if not isinstance(value, bool):
        raise FleetError(f"{key}.{name}: must be true or false, not {_kind(value)}")
    return value


def _choice(table: Mapping[str, Any], name: str, key: str, choices: tuple[str, ...],
            default: str) -> Any:
    value = table.get(name, default)
    if value not in choices:
        raise FleetError(f"{key}.{name}: must be one of {', '.join(choices)}, not {value!r}")
    return value


def _seconds(table: Mapping[str, Any], name: str, key: str) -> float | None:
    value = table.get(name)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) \
            or not math.isfinite(value) or not 0 < value <= MAX_SECONDS:
        raise FleetError(f"{key}.{name}: must be a number of seconds, more than 0 and at "
                         f"most {MAX_SECONDS:g}, not {value!r}")
    return float(value)


def _kind(value: Any) -> str:
    names: Mapping[type, str] = {bool: "a boolean", int: "a number", float: "a number",
                                 list: "an array", dict: "a table"}
    return names.get(type(value), type(value).__name__)
